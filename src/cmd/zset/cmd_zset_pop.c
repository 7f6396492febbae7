/*
 * cmd_zset_pop: ZPOPMIN, ZPOPMAX and ZMPOP (Redis's genericZpopCommand: the first existing key,
 * its lowest or highest members taken off the end of its array), and the reads that walk the
 * form as a hash form (cmd_elems): ZRANDMEMBER and ZSCAN. The blocking forms (BZPOPMIN,
 * BZPOPMAX, BZMPOP) pop the same way once a zset is there, and otherwise wait (cmd_block.c).
 */

#include <limits.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/zset/cmd_zset_coll.h"
#include "cmd/zset/cmd_zset_form.h"

#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"
#define ERR_RAND_REPLY "ERR ZRANDMEMBER reply would pass 1 GiB"

/* How a pop replies (Redis's use_nested_array, emitkey, reply_nil_when_empty). */
struct pop_how {
    bool max;    /* ZPOPMAX, ZMPOP MAX */
    bool nested; /* each member and score a pair of its own */
    bool zmpop;  /* [key, [pairs]], and a null array when no key holds a zset */
    bool emitkey; /* BZPOPMIN, BZPOPMAX: the key first, in the same flat array */
};

/* One popped member and its score, in the reply. */
static void write_popped(struct cmd_call *c, const struct store_zset_el *el, struct pop_how how)
{
    if (how.nested) {
        resp_write_array(c->out, 2);
    }
    resp_write_bulk(c->out, el->m, el->mlen);
    resp_write_double(c->out, el->score);
}

/* The take lowest (highest: how.max) members of the chunked zset co replied, walking from that
 * end, then removed from it. TERSE_OK or a status (nothing removed). */
static int pop_coll(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                    size_t take, struct pop_how how)
{
    struct coll_env *env = cmd_coll_env(c, key);
    uint64_t n = coll_count(co), removed = 0;
    struct coll_zset_it it;
    struct store_zset_el el;
    size_t i = 0;
    int st = coll_zset_it_init(env, co, how.max ? n - 1 : 0, how.max, &it);

    while (st == TERSE_OK && i < take && (st = coll_zset_it_next(env, &it, &el)) == 1) {
        write_popped(c, &el, how);
        i++;
        st = TERSE_OK;
    }
    if (st < 0) {
        return st;
    }
    if (i != take) {
        return TERSE_ECORRUPT;
    }
    st = coll_zset_remove_range(env, co, how.max ? n - take : 0, take, NULL, NULL, &removed);
    if (st == TERSE_OK && removed != take) {
        st = TERSE_ECORRUPT;
    }
    if (removed > 0) {
        int st2 = cmd_zset_coll_settle(c, key, co);
        st = st != TERSE_OK ? st : st2;
    }
    return st;
}

/*
 * Pops up to count (-1: one, flat) members of the first existing of the nkeys keys from
 * argv[first]. A key of another type before any zset answers WRONGTYPE.
 */
static void pop_generic(struct cmd_call *c, size_t first, size_t nkeys, long long count,
                        struct pop_how how)
{
    const struct resp_slice *key = NULL;
    const struct store_entry *e = NULL;
    struct store_zset_el *a = NULL;
    const uint8_t *form;
    struct coll *co;
    size_t n = 0, len, take, mark;
    int st;

    for (size_t j = 0; j < nkeys && e == NULL; j++) {
        int replied = 0;
        key = &c->argv[first + j];
        e = cmd_lookup_write_type(c, key, STORE_TYPE_ZSET, &replied);
        if (replied) {
            return;
        }
    }
    if (e == NULL || (count == 0 && !how.zmpop)) {
        if (e == NULL && how.zmpop) {
            resp_write_null_array(c->out);
        } else {
            resp_write_array(c->out, 0);
        }
        return;
    }
    if (cmd_value_read_form(c, key, STORE_TYPE_ZSET, 1, &e, &form, &len) != 0) {
        return;
    }
    co = cmd_zset_coll_of(e);
    if (co == NULL && cmd_zset_decode_or_reply(c, key, form, len, 0, &a, &n) != 0) {
        return;
    }
    n = co != NULL ? (size_t)coll_count(co) : n;
    take = count < 0 ? 1 : (unsigned long long)count > n ? n : (size_t)count;
    mark = c->out->len;
    if (how.zmpop) {
        resp_write_array(c->out, 2);
        resp_write_bulk(c->out, key->p, key->len);
    }
    if (how.emitkey) {
        resp_write_array(c->out, 1 + 2 * take);
        resp_write_bulk(c->out, key->p, key->len);
    } else {
        resp_write_array(c->out, how.nested ? take : 2 * take);
    }
    if (co != NULL) {
        st = pop_coll(c, key, co, take, how);
    } else {
        for (size_t i = 0; i < take; i++) {
            write_popped(c, &a[how.max ? n - 1 - i : i], how);
        }
        st = cmd_zset_commit(c, key, how.max ? a : a + take, n - take,
                             cmd_zset_entry_is_table(e));
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_value_reply_bad(c, key, st);
        return;
    }
    cmd_changed_edit(c, CMD_NOTIFY_ZSET, how.max ? "zpopmax" : "zpopmin", key);
    if ((how.zmpop || how.emitkey) && cmd_feed_on(c)) {
        /* ZMPOP and the blocking pops are fed as the plain ZPOPMIN/ZPOPMAX they did. */
        char num[CMD_FEED_NUM];
        struct resp_slice f[3] = {cmd_feed_str(how.max ? "ZPOPMAX" : "ZPOPMIN"), *key,
                                  cmd_feed_ll(num, (long long)take)};
        cmd_feed_rewrite(c, f, how.zmpop ? 3 : 2);
    }
}

/* ZPOPMIN, ZPOPMAX key [count] */
static void zpop(struct cmd_call *c, bool max)
{
    long long count = -1;

    if (c->argc > 3) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc == 3 && (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0)) {
        cmd_reply_err(c, ERR_NOT_POSITIVE); /* Redis words a non-integer the same way */
        return;
    }
    pop_generic(c, 1, 1, count,
                (struct pop_how){max, c->out->proto >= 3 && count != -1, false, false});
}

void cmd_zset_zpopmin(struct cmd_call *c)
{
    zpop(c, false);
}

void cmd_zset_zpopmax(struct cmd_call *c)
{
    zpop(c, true);
}

/* ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] */
void cmd_zset_zmpop(struct cmd_call *c)
{
    long long count;
    size_t nkeys;
    bool min;

    if (cmd_elems_mpop_args_or_reply(c, 1, "min", "max", &nkeys, &min, &count) == 0) {
        pop_generic(c, 2, nkeys, count, (struct pop_how){!min, true, true, false});
    }
}

/* BZPOPMIN, BZPOPMAX key [key ...] timeout */
static void bzpop(struct cmd_call *c, bool max)
{
    size_t nkeys = c->argc - 2, at;
    int64_t timeout_ms;
    int has;

    if (cmd_block_timeout(c, c->argc - 1, &timeout_ms) != 0) {
        return;
    }
    has = cmd_block_first_ready(c, 1, nkeys, STORE_TYPE_ZSET, &at);
    if (has > 0) {
        pop_generic(c, at, 1, -1, (struct pop_how){max, false, false, true});
    } else if (has == 0 && cmd_block(c, 1, nkeys, 1, timeout_ms) == 0) {
        resp_write_null_array(c->out);
    }
}

void cmd_zset_bzpopmin(struct cmd_call *c)
{
    bzpop(c, false);
}

void cmd_zset_bzpopmax(struct cmd_call *c)
{
    bzpop(c, true);
}

/* BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] */
void cmd_zset_bzmpop(struct cmd_call *c)
{
    long long count;
    int64_t timeout_ms;
    size_t nkeys, at;
    bool min;
    int has;

    if (cmd_block_timeout(c, 1, &timeout_ms) != 0 ||
        cmd_elems_mpop_args_or_reply(c, 2, "min", "max", &nkeys, &min, &count) != 0) {
        return;
    }
    has = cmd_block_first_ready(c, 3, nkeys, STORE_TYPE_ZSET, &at);
    if (has > 0) {
        pop_generic(c, at, 1, count, (struct pop_how){!min, true, true, false});
    } else if (has == 0 && cmd_block(c, 3, nkeys, 1, timeout_ms) == 0) {
        resp_write_null_array(c->out);
    }
}

/* ZRANDMEMBER key [count [WITHSCORES]] */
void cmd_zset_zrandmember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    long long l = 1;
    bool withscores;
    uint64_t n;
    size_t len;

    if (cmd_elems_rand_args_or_reply(c, "withscores", &l, &withscores) != 0 ||
        cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL) {
        cmd_elems_rand_reply_none(c, c->argc >= 3);
        return;
    }
    if (cmd_zset_coll_of(e) != NULL &&
        !(c->argc >= 3 && l > 1 && (uint64_t)l >= coll_count(cmd_zset_coll_of(e)))) {
        /* Picks by rank in the order, each O(log n). */
        cmd_elems_coll_rand_reply(c, cmd_zset_coll_of(e), c->argc == 2, l == 1 ? -1 : l,
                                  withscores ? CMD_ELEMS_VAL_SCORE : CMD_ELEMS_VAL_NONE,
                                  ERR_RAND_REPLY);
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        int st = cmd_coll_whole(c, &c->argv[1], cmd_zset_coll_of(e), &form, &len);
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, &c->argv[1], st);
            return;
        }
    }
    if (cmd_elems_open_or_reply(c, form, len, &it, &n) != 0) {
        return;
    }
    if (c->argc >= 3 && l > 1 && (uint64_t)l >= n) {
        /* Redis's "case 2": the whole zset, as its iterator walks it, from the highest. */
        struct store_zset_el *a;
        size_t got;
        if (cmd_zset_decode_or_reply(c, &c->argv[1], form, len, 0, &a, &got) == 0) {
            cmd_zset_reply_els(c, a, got, true, withscores);
        }
        return;
    }
    /* Redis 7.0 answers a count of 1 as it does a negative count (its "case 1"). */
    cmd_elems_rand_reply(c, form, len, n, c->argc == 2, l == 1 ? -1 : l,
                         withscores ? CMD_ELEMS_VAL_SCORE : CMD_ELEMS_VAL_NONE, ERR_RAND_REPLY);
}

/* ZSCAN key cursor [MATCH pattern] [COUNT count] (cmd_elems_scan) */
void cmd_zset_zscan(struct cmd_call *c)
{
    cmd_elems_scan(c, STORE_TYPE_ZSET, CMD_ELEMS_VAL_SCORE);
}
