/*
 * cmd_strset: the SET family of the string commands (SET, SETNX, SETEX, PSETEX, GETSET,
 * GETDEL, GETEX, MSET, MSETNX), with Redis 7.0's options, replies and error texts. Their rows
 * are in cmd_string_defs (cmd_string.c).
 *
 * Invariants:
 * - A command that replies an error changes nothing: the options are parsed and checked
 *   before the first write.
 * - A command that replies the old value (SET ... GET, GETSET, GETDEL, GETEX) changes the key
 *   only once that value was replied whole: a value that fails its checksum is replied as the
 *   CORRUPT error and the key is left as it is.
 * - Keys are reached through cmd_shard() only; the db is the client's.
 */
#include "cmd/string/cmd_strset.h"

#include <limits.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "store/store.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static struct store_shard *key_shard(struct cmd_call *c, const struct resp_slice *key)
{
    return cmd_shard(c, key->p, key->len);
}

/* Replies e's value (decoding straight into the reply). Returns 1 when the value was sent,
 * 0 when an error (corruption, a dead connection) was written instead. */
static int reply_value_sent(struct cmd_call *c, const struct store_entry *e,
                            const struct resp_slice *key)
{
    size_t mark = c->out->len;

    cmd_reply_value(c, e, key);
    return !c->out->err && c->out->len > mark && c->out->p[mark] != '-';
}

/* ---- SET family ---------------------------------------------------------------------------- */

enum set_flag {
    SET_NX = 1 << 0,
    SET_XX = 1 << 1,
    SET_GET = 1 << 2,
    SET_KEEPTTL = 1 << 3,
    SET_PERSIST = 1 << 4, /* GETEX only */
    SET_EX = 1 << 5,
    SET_PX = 1 << 6,
    SET_EXAT = 1 << 7,
    SET_PXAT = 1 << 8
};

#define SET_ANY_EXPIRE (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

enum set_cmd { FOR_SET = 1, FOR_GETEX = 2 };

/* The options SET and GETEX take: which command accepts each, and which options already seen
 * make it a syntax error (Redis accepts a repeated option; the last expire value wins). */
static const struct set_opt {
    const char *name;
    unsigned flag;
    unsigned conflicts;
    unsigned cmds;  /* enum set_cmd */
    int takes_arg;
} set_opts[] = {
    {"nx", SET_NX, SET_XX, FOR_SET, 0},
    {"xx", SET_XX, SET_NX, FOR_SET, 0},
    {"get", SET_GET, 0, FOR_SET, 0},
    {"keepttl", SET_KEEPTTL, SET_PERSIST | SET_ANY_EXPIRE, FOR_SET, 0},
    {"persist", SET_PERSIST, SET_KEEPTTL | SET_ANY_EXPIRE, FOR_GETEX, 0},
    {"ex", SET_EX, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_EX), FOR_SET | FOR_GETEX, 1},
    {"px", SET_PX, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_PX), FOR_SET | FOR_GETEX, 1},
    {"exat", SET_EXAT, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_EXAT),
     FOR_SET | FOR_GETEX, 1},
    {"pxat", SET_PXAT, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_PXAT),
     FOR_SET | FOR_GETEX, 1},
};

struct set_args {
    unsigned flags;     /* enum set_flag */
    size_t expire_argi; /* argument holding the expire time; 0 when none */
    const char *name;   /* command name for "invalid expire time in '<name>' command" */
};

/* Parses options argv[first..argc) as Redis's parseExtendedStringArgumentsOrReply. */
static int set_args_parse_or_reply(struct cmd_call *c, size_t first, unsigned cmd,
                                   struct set_args *a)
{
    for (size_t i = first; i < c->argc; i++) {
        const struct set_opt *o = NULL;

        for (size_t k = 0; k < sizeof(set_opts) / sizeof(set_opts[0]); k++) {
            if (cmd_arg_is(c, i, set_opts[k].name)) {
                o = &set_opts[k];
                break;
            }
        }
        if (o == NULL || !(o->cmds & cmd) || (a->flags & o->conflicts) ||
            (o->takes_arg && i + 1 >= c->argc)) {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return TERSE_EINVAL;
        }
        a->flags |= o->flag;
        if (o->takes_arg) {
            a->expire_argi = ++i;
        }
    }
    return TERSE_OK;
}

/* The absolute expiry (unix ms) the options ask for, as Redis's getExpireMillisecondsOrReply:
 * the time must be positive and must not overflow once scaled and offset by now. */
static int expire_ms_or_reply(struct cmd_call *c, const struct set_args *a, int64_t *out)
{
    long long v;
    int secs = (a->flags & (SET_EX | SET_EXAT)) != 0;

    if (cmd_ll_or_reply(c, a->expire_argi, &v, CMD_ERR_NOT_INT) != 0) {
        return TERSE_EINVAL;
    }
    if (v <= 0 || (secs && v > LLONG_MAX / 1000)) {
        goto invalid;
    }
    if (secs) {
        v *= 1000;
    }
    if (a->flags & (SET_EX | SET_PX)) {
        if (v > LLONG_MAX - c->now_ms) {
            goto invalid;
        }
        v += c->now_ms;
    }
    *out = v;
    return TERSE_OK;
invalid:
    resp_write_errorf(c->out, "ERR invalid expire time in '%s' command", a->name);
    return TERSE_EINVAL;
}

/* What a SET that wrote feeds, as Redis 7.0 propagates it: with an expiry, "SET key value
 * PXAT <ms>" (replayed later it must expire at the same instant); with GET, the command
 * without its GET options; GETSET as "SET key value". */
static void feed_set(struct cmd_call *c, const struct resp_slice *key,
                     const struct resp_slice *val, const struct set_args *a, int64_t expire_ms)
{
    char num[CMD_FEED_NUM];

    if (a->expire_argi != 0) {
        struct resp_slice v[5] = {cmd_feed_str("SET"), *key, *val, cmd_feed_str("PXAT"),
                                  cmd_feed_ll(num, expire_ms)};
        cmd_feed_rewrite(c, v, 5);
    } else if (a->flags & SET_GET) {
        struct resp_slice *v = cmd_feed_argv(c->srv, c->argc);
        size_t n = 0;

        if (c->argc == 3) { /* GETSET key value */
            struct resp_slice g[3] = {cmd_feed_str("SET"), *key, *val};
            cmd_feed_rewrite(c, g, 3);
            return;
        }
        if (v == NULL) {
            return;
        }
        for (size_t i = 0; i < c->argc; i++) {
            if (i < 3 || !cmd_arg_is(c, i, "get")) {
                v[n++] = c->argv[i];
            }
        }
        cmd_feed_rewrite(c, v, n);
    }
}

/*
 * SET and its variants. int_reply: SETNX's :1/:0 instead of +OK/nil. An expire time in the
 * past is stored as given: the key is gone at its next lookup, as in Redis 7.0.
 */
static void set_generic(struct cmd_call *c, const struct resp_slice *key,
                        const struct resp_slice *val, const struct set_args *a, int int_reply)
{
    int64_t expire_ms = STORE_NO_EXPIRE;
    struct store_entry *e;
    size_t mark = c->out->len;
    int replied = 0, st;

    if (a->expire_argi != 0 && expire_ms_or_reply(c, a, &expire_ms) != TERSE_OK) {
        return;
    }
    if (a->flags & SET_KEEPTTL) {
        expire_ms = STORE_KEEP_TTL;
    }
    if (a->flags & SET_GET) {
        e = cmd_lookup_read(c, key, &replied);
        if (replied) {
            return;
        }
        if (e == NULL) {
            resp_write_null(c->out);
        } else if (!reply_value_sent(c, e, key)) {
            return;
        }
    } else {
        e = cmd_lookup_write(c, key, NULL); /* SET replaces a value of any type */
    }
    if (((a->flags & SET_NX) && e != NULL) || ((a->flags & SET_XX) && e == NULL)) {
        if (int_reply) {
            resp_write_int(c->out, 0);
        } else if (!(a->flags & SET_GET)) {
            resp_write_null(c->out);
        }
        return;
    }
    st = cmd_value_set(c, key, val->p, val->len, expire_ms);
    if (st != TERSE_OK) {
        /* The old value may already be in the reply (GET): take it back so the client sees
         * the error alone. Nothing else was written since mark. */
        c->out->len = mark;
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "set", key);
    if (a->expire_argi != 0) {
        cmd_changed(c, CMD_NOTIFY_GENERIC, "expire", key);
    }
    if (cmd_feed_on(c)) {
        feed_set(c, key, val, a, expire_ms);
    }
    if (int_reply) {
        resp_write_int(c->out, 1);
    } else if (!(a->flags & SET_GET)) {
        resp_write_ok(c->out);
    }
}

void cmd_set_proc(struct cmd_call *c)
{
    struct set_args a = {0, 0, "set"};

    if (set_args_parse_or_reply(c, 3, FOR_SET, &a) != TERSE_OK) {
        return;
    }
    set_generic(c, &c->argv[1], &c->argv[2], &a, 0);
}

void cmd_setnx_proc(struct cmd_call *c)
{
    struct set_args a = {SET_NX, 0, "setnx"};

    set_generic(c, &c->argv[1], &c->argv[2], &a, 1);
}

void cmd_setex_proc(struct cmd_call *c)
{
    struct set_args a = {SET_EX, 2, "setex"};

    set_generic(c, &c->argv[1], &c->argv[3], &a, 0);
}

void cmd_psetex_proc(struct cmd_call *c)
{
    struct set_args a = {SET_PX, 2, "psetex"};

    set_generic(c, &c->argv[1], &c->argv[3], &a, 0);
}

void cmd_getset_proc(struct cmd_call *c)
{
    struct set_args a = {SET_GET, 0, "getset"};

    set_generic(c, &c->argv[1], &c->argv[2], &a, 0);
}

void cmd_getdel_proc(struct cmd_call *c)
{
    struct store_entry *e = cmd_string_lookup_or_reply(c, &c->argv[1]);

    if (e == NULL) {
        return;
    }
    if (reply_value_sent(c, e, &c->argv[1]) &&
        store_delete(key_shard(c, &c->argv[1]), c->cl->db, c->argv[1].p, c->argv[1].len,
                     c->now_ms)) {
        cmd_changed(c, CMD_NOTIFY_GENERIC, "del", &c->argv[1]);
        cmd_feed_rewrite_del(c, &c->argv[1]);
    }
}

/* GETEX: the value, then the expiry change. EXAT/PXAT at or before now deletes the key. */
void cmd_getex_proc(struct cmd_call *c)
{
    struct set_args a = {0, 0, "getex"};
    const struct resp_slice *key = &c->argv[1];
    struct store_shard *s = key_shard(c, key);
    int64_t when_ms = STORE_NO_EXPIRE;
    struct store_entry *e;
    bool had_ttl;

    if (set_args_parse_or_reply(c, 2, FOR_GETEX, &a) != TERSE_OK) {
        return;
    }
    e = cmd_string_lookup_or_reply(c, key);
    if (e == NULL) {
        return;
    }
    if (a.expire_argi != 0 && expire_ms_or_reply(c, &a, &when_ms) != TERSE_OK) {
        return;
    }
    if (!reply_value_sent(c, e, key)) {
        return;
    }
    had_ttl = store_entry_expire(e) != STORE_NO_EXPIRE;
    if ((a.flags & (SET_EXAT | SET_PXAT)) && when_ms <= c->now_ms) {
        (void)store_delete(s, c->cl->db, key->p, key->len, c->now_ms);
        cmd_changed(c, CMD_NOTIFY_GENERIC, "del", key);
        cmd_feed_rewrite_del(c, key);
    } else if (a.expire_argi != 0) {
        if (store_expire_set(s, c->cl->db, key->p, key->len, when_ms, c->now_ms) == 1) {
            cmd_changed(c, CMD_NOTIFY_GENERIC, "expire", key);
            cmd_feed_rewrite_pexpireat(c, key, when_ms);
        }
    } else if ((a.flags & SET_PERSIST) && had_ttl) {
        struct resp_slice p[2] = {cmd_feed_str("PERSIST"), *key};

        (void)store_expire_set(s, c->cl->db, key->p, key->len, STORE_NO_EXPIRE, c->now_ms);
        cmd_changed(c, CMD_NOTIFY_GENERIC, "persist", key);
        cmd_feed_rewrite(c, p, 2);
    }
    c->feed |= CMD_FEED_PREVENT; /* GETEX is never fed as sent */
}

/* MSET and MSETNX: the pairs count must be whole (the table's arity only says "at least"). */
static int pairs_ok_or_reply(struct cmd_call *c, const char *name)
{
    if (c->argc % 2 == 0) {
        resp_write_errorf(c->out, "ERR wrong number of arguments for '%s' command", name);
        return TERSE_EINVAL;
    }
    return TERSE_OK;
}

static int mset_pairs(struct cmd_call *c)
{
    for (size_t i = 1; i + 1 < c->argc; i += 2) {
        int st = cmd_value_set(c, &c->argv[i], c->argv[i + 1].p, c->argv[i + 1].len,
                               STORE_NO_EXPIRE);
        if (st != TERSE_OK) {
            cmd_reply_status(c, st);
            return st;
        }
        cmd_changed(c, CMD_NOTIFY_STRING, "set", &c->argv[i]);
    }
    return TERSE_OK;
}

void cmd_mset_proc(struct cmd_call *c)
{
    if (pairs_ok_or_reply(c, "mset") != TERSE_OK || mset_pairs(c) != TERSE_OK) {
        return;
    }
    resp_write_ok(c->out);
}

void cmd_msetnx_proc(struct cmd_call *c)
{
    if (pairs_ok_or_reply(c, "msetnx") != TERSE_OK) {
        return;
    }
    for (size_t i = 1; i < c->argc; i += 2) {
        if (cmd_lookup_write(c, &c->argv[i], NULL) != NULL) {
            resp_write_int(c->out, 0);
            return;
        }
    }
    if (mset_pairs(c) != TERSE_OK) {
        return;
    }
    resp_write_int(c->out, 1);
}

