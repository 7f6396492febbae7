/*
 * cmd_zset_read: the sorted-set reads of single members and the count: ZCARD, ZSCORE,
 * ZMSCORE, ZRANK, ZREVRANK. ZSCORE and ZMSCORE look members up in the decoded form itself (no
 * array: one pass, nothing laid out), ZRANK in the array cmd_zset_read lays out (a rank is an
 * index). A chunked zset answers from its member map and its tree's counts (cmd_zset_coll.h).
 */

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"
#include "cmd/zset/cmd_zset_coll.h"
#include "cmd/zset/cmd_zset_form.h"

void cmd_zset_zcard(struct cmd_call *c)
{
    cmd_elems_card(c, STORE_TYPE_ZSET);
}

/* The score of member in the zset e (its form, or its chunks' member map): 1, 0 when absent,
 * or TERSE_ECORRUPT (or TERSE_ENOMEM). */
static int score_of(struct cmd_call *c, const struct store_entry *e, const uint8_t *form,
                    size_t len, const struct resp_slice *m, double *score)
{
    struct store_hash_kv kv;
    int rc;

    if (cmd_zset_coll_of(e) != NULL) {
        return coll_zset_score(cmd_coll_env(c, &c->argv[1]), cmd_zset_coll_of(e), m->p, m->len,
                               score);
    }
    rc = store_hash_find(form, len, m->p, m->len, &kv);

    if (rc == 1) {
        if (kv.vlen != STORE_ZSET_SCORE_LEN) {
            return TERSE_ECORRUPT;
        }
        *score = store_zset_score(kv.v);
    }
    return rc;
}

/* ZSCORE key member */
void cmd_zset_zscore(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len;
    double score = 0;
    int rc;

    if (cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    rc = e == NULL ? 0 : score_of(c, e, form, len, &c->argv[2], &score);
    if (rc < 0) {
        cmd_value_reply_bad(c, &c->argv[1], rc);
    } else if (rc == 0) {
        resp_write_null(c->out);
    } else {
        resp_write_double(c->out, score);
    }
}

/* ZMSCORE key member [member ...] */
void cmd_zset_zmscore(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len, mark;
    double score = 0;

    if (cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    mark = c->out->len;
    resp_write_array(c->out, c->argc - 2);
    for (size_t j = 2; j < c->argc; j++) {
        int rc = e == NULL ? 0 : score_of(c, e, form, len, &c->argv[j], &score);
        if (rc < 0) {
            cmd_elems_withdraw(c, mark, rc);
            return;
        }
        if (rc == 0) {
            resp_write_null(c->out);
        } else {
            resp_write_double(c->out, score);
        }
    }
}

/* ZRANK, ZREVRANK key member */
static void zrank_generic(struct cmd_call *c, bool rev)
{
    const struct store_entry *e;
    struct store_zset_el *a;
    const uint8_t *form;
    size_t n, i, len;

    if (cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        struct coll *co = cmd_zset_coll_of(e);
        uint64_t rank = 0;
        double score;
        int rc = coll_zset_rank(cmd_coll_env(c, &c->argv[1]), co, c->argv[2].p, c->argv[2].len,
                                &rank, &score);
        if (rc < 0) {
            cmd_value_reply_bad(c, &c->argv[1], rc);
        } else if (rc == 0) {
            resp_write_null(c->out);
        } else {
            resp_write_int(c->out, (long long)(rev ? coll_count(co) - 1 - rank : rank));
        }
        return;
    }
    if (cmd_zset_decode_or_reply(c, &c->argv[1], form, len, 0, &a, &n) != 0) {
        return;
    }
    i = cmd_zset_find(a, n, c->argv[2].p, c->argv[2].len);
    if (i == n) {
        resp_write_null(c->out);
    } else {
        resp_write_int(c->out, (long long)(rev ? n - 1 - i : i));
    }
}

void cmd_zset_zrank(struct cmd_call *c)
{
    zrank_generic(c, false);
}

void cmd_zset_zrevrank(struct cmd_call *c)
{
    zrank_generic(c, true);
}
