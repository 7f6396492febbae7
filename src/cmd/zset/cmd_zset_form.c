/*
 * cmd_zset_form: the steps the sorted-set commands share: read a zset (decoded into scratch),
 * find a member, decide the encoding Redis would give (listpack or skiplist), store a new
 * form (in chunks when it is a big skiplist: cmd_zset_coll.h), and reply elements with or
 * without scores.
 */
#include "cmd/zset/cmd_zset_form.h"

#include <math.h>
#include <string.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/zset/cmd_zset_coll.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* Whether a listpack cannot hold the member (cmd_elems_form_is_table's test). */
static bool member_too_long(const struct cmd_server *srv, const struct store_hash_kv *kv)
{
    return (long long)kv->flen > srv->settings.zset_max_listpack_value;
}

int cmd_zset_commit(struct cmd_call *c, const struct resp_slice *key, struct store_zset_el *a,
                    size_t n, bool table)
{
    size_t len = 0, size;
    int st;

    for (size_t i = 0; i < n && !table; i++) {
        if (a[i].score == 0) {
            a[i].score = 0.0; /* -0 too: Redis's listpack holds it as the integer 0 */
        }
    }

    c->emptied = 0;
    if (n == 0) {
        c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                  c->now_ms);
        return TERSE_OK;
    }
    size = store_zset_form_size(a, n);
    st = cmd_scratch2_reserve(c->srv, size);
    if (st == TERSE_OK) {
        st = store_zset_form_write(a, n, c->srv->scratch2, c->srv->scratch2_cap, &len);
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (cmd_zset_wants_chunks(c->srv, table, len)) {
        return cmd_zset_coll_store_form(c, key, len);
    }
    return cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_ZSET, len,
                                table ? (unsigned)STORE_SET_RAW : 0u);
}

int cmd_zset_decode_or_reply(struct cmd_call *c, const struct resp_slice *key,
                             const uint8_t *form, size_t len, size_t extra,
                             struct store_zset_el **a, size_t *n)
{
    uint64_t count = 0;
    int st;

    *n = 0;
    st = len == 0 ? TERSE_OK : store_zset_count(form, len, &count);
    if (st == TERSE_OK && count > len) {
        st = TERSE_ECORRUPT; /* every element takes more than a byte */
    }
    if (st == TERSE_OK &&
        cmd_scratch3_reserve(c->srv, ((size_t)count + extra + 1) * sizeof(**a)) != TERSE_OK) {
        st = TERSE_ENOMEM;
    }
    if (st == TERSE_OK) {
        *a = (struct store_zset_el *)(void *)c->srv->scratch3;
        st = store_zset_decode(form, len, *a, (size_t)count, n);
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st == TERSE_ETOOBIG ? TERSE_ECORRUPT : st);
        return -1;
    }
    return 0;
}

bool cmd_zset_entry_is_table(const struct store_entry *e)
{
    return e != NULL && (store_entry_is_raw(e) || store_entry_enc(e) == STORE_ENC_COLL);
}

const char *cmd_zset_encoding(const struct store_entry *e)
{
    return cmd_zset_entry_is_table(e) ? "skiplist" : "listpack";
}

size_t cmd_zset_find(const struct store_zset_el *a, size_t n, const uint8_t *m, size_t mlen)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i].mlen == mlen && (mlen == 0 || memcmp(a[i].m, m, mlen) == 0)) {
            return i;
        }
    }
    return n;
}

int cmd_zset_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len)
{
    return cmd_elems_form_is_table(srv, form, len, srv->settings.zset_max_listpack_entries,
                                   member_too_long);
}

bool cmd_zset_is_table(const struct cmd_server *srv, size_t n, size_t maxlen)
{
    return (long long)n > srv->settings.zset_max_listpack_entries ||
           (long long)maxlen > srv->settings.zset_max_listpack_value;
}

size_t cmd_zset_max_len(const struct store_zset_el *a, size_t n)
{
    size_t max = 0;

    for (size_t i = 0; i < n; i++) {
        max = a[i].mlen > max ? a[i].mlen : max;
    }
    return max;
}

int cmd_zset_read(struct cmd_call *c, const struct resp_slice *key, int for_write, size_t extra,
                  const struct store_entry **e, struct store_zset_el **a, size_t *n)
{
    const uint8_t *form;
    size_t len;

    *a = NULL;
    *n = 0;
    if (cmd_value_read_form(c, key, STORE_TYPE_ZSET, for_write, e, &form, &len) != 0) {
        return -1;
    }
    if (cmd_zset_coll_of(*e) != NULL) {
        /* A chunked zset whole: the O(n) paths (the commands with a chunked path of their own
         * do not come here). */
        int st = cmd_coll_whole(c, key, cmd_zset_coll_of(*e), &form, &len);
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, key, st);
            return -1;
        }
    }
    return cmd_zset_decode_or_reply(c, key, form, len, extra, a, n);
}

void cmd_zset_reply_els(struct cmd_call *c, const struct store_zset_el *a, size_t n, bool rev,
                        bool withscores)
{
    bool pairs = withscores && c->out->proto >= 3;

    resp_write_array(c->out, withscores && !pairs ? 2 * n : n);
    for (size_t i = 0; i < n; i++) {
        const struct store_zset_el *el = &a[rev ? n - 1 - i : i];
        if (pairs) {
            resp_write_array(c->out, 2);
        }
        resp_write_bulk(c->out, el->m, el->mlen);
        if (withscores) {
            resp_write_double(c->out, el->score);
        }
    }
}

int cmd_zset_score_or_reply(struct cmd_call *c, size_t argi, double *out, const char *err)
{
    if (!cmd_parse_double(c->argv[argi].p, c->argv[argi].len, out)) {
        cmd_reply_err(c, err != NULL ? err : CMD_ERR_NOT_FLOAT);
        return -1;
    }
    return 0;
}
