/*
 * cmd_expire: the expiry commands of the keyspace family (EXPIRE, PEXPIRE, EXPIREAT,
 * PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST), with Redis 7.0's syntax, replies and
 * error texts. Their rows are in cmd_keys_defs (cmd_keys.c).
 *
 * Invariants:
 * - Times are absolute unix milliseconds taken from the call (c->now_ms), read once.
 * - Setting an expiry is a write-side lookup (counts nothing); the TTL family counts keyspace
 *   hits and misses, as Redis's lookupKeyRead does.
 * - A new expiry at or before now deletes the key.
 */
#include "cmd/keyspace/cmd_expire.h"

#include <limits.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "terse/status.h"

enum keys_expire_flags {
    KEYS_EXPIRE_NX = 1 << 0,
    KEYS_EXPIRE_XX = 1 << 1,
    KEYS_EXPIRE_GT = 1 << 2,
    KEYS_EXPIRE_LT = 1 << 3
};

/* Parses NX|XX|GT|LT from argument 3 on, with Redis's errors. 0 or -1 (replied). */
static int keys_expire_flags_or_reply(struct cmd_call *c, unsigned *flags)
{
    *flags = 0;
    for (size_t j = 3; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "nx")) {
            *flags |= KEYS_EXPIRE_NX;
        } else if (cmd_arg_is(c, j, "xx")) {
            *flags |= KEYS_EXPIRE_XX;
        } else if (cmd_arg_is(c, j, "gt")) {
            *flags |= KEYS_EXPIRE_GT;
        } else if (cmd_arg_is(c, j, "lt")) {
            *flags |= KEYS_EXPIRE_LT;
        } else {
            resp_write_errorf(c->out, "ERR Unsupported option %.*s", (int)c->argv[j].len,
                              (const char *)c->argv[j].p);
            return -1;
        }
    }
    if ((*flags & KEYS_EXPIRE_NX) &&
        (*flags & (KEYS_EXPIRE_XX | KEYS_EXPIRE_GT | KEYS_EXPIRE_LT))) {
        cmd_reply_err(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((*flags & KEYS_EXPIRE_GT) && (*flags & KEYS_EXPIRE_LT)) {
        cmd_reply_err(c, "ERR GT and LT options at the same time are not compatible");
        return -1;
    }
    return 0;
}

/* Whether NX/XX/GT/LT let a new expiry `when` replace `cur` (STORE_NO_EXPIRE = none). */
static int keys_expire_allowed(unsigned flags, int64_t cur, long long when)
{
    int has = cur != STORE_NO_EXPIRE;

    if ((flags & KEYS_EXPIRE_NX) && has) {
        return 0;
    }
    if ((flags & KEYS_EXPIRE_XX) && !has) {
        return 0;
    }
    /* No expiry counts as an infinite one: GT never beats it, LT always does. */
    if ((flags & KEYS_EXPIRE_GT) && (!has || when <= cur)) {
        return 0;
    }
    if ((flags & KEYS_EXPIRE_LT) && has && when >= cur) {
        return 0;
    }
    return 1;
}

/*
 * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT. base_ms: added to the argument (now or 0);
 * unit_ms: 1000 for seconds, 1 for milliseconds; name: for the overflow error.
 * A resulting time at or before now deletes the key.
 */
/* The EXPIRE family is fed as "PEXPIREAT key <when> [options]": replayed later, the key must
 * expire at the same instant (Redis 7.0's expireGenericCommand). */
static void feed_pexpireat(struct cmd_call *c, int64_t when)
{
    struct resp_slice *v = cmd_feed_argv(c->srv, c->argc);
    char num[CMD_FEED_NUM];

    if (v == NULL) {
        return;
    }
    v[0] = cmd_feed_str("PEXPIREAT");
    v[1] = c->argv[1];
    v[2] = cmd_feed_ll(num, when);
    for (size_t i = 3; i < c->argc; i++) {
        v[i] = c->argv[i];
    }
    cmd_feed_rewrite(c, v, c->argc);
}

static void keys_expire_generic(struct cmd_call *c, long long base_ms, long long unit_ms,
                                const char *name)
{
    const struct resp_slice *k = &c->argv[1];
    struct store_shard *s = cmd_shard(c, k->p, k->len);
    const struct store_entry *e;
    unsigned flags;
    long long when;

    if (keys_expire_flags_or_reply(c, &flags) != 0 || cmd_ll_or_reply(c, 2, &when, NULL) != 0) {
        return;
    }
    if (when > LLONG_MAX / unit_ms || when < LLONG_MIN / unit_ms ||
        when * unit_ms > LLONG_MAX - base_ms) {
        resp_write_errorf(c->out, "ERR invalid expire time in '%s' command", name);
        return;
    }
    when = when * unit_ms + base_ms;
    e = cmd_keys_lookup(c, c->cl->db, k, 0);
    if (e == NULL || !keys_expire_allowed(flags, store_entry_expire(e), when)) {
        resp_write_int(c->out, 0);
        return;
    }
    if (when <= c->now_ms) {
        store_delete(s, c->cl->db, k->p, k->len, c->now_ms);
        cmd_changed(c, CMD_NOTIFY_GENERIC, "del", k);
        cmd_feed_rewrite_del(c, k);
    } else {
        /* A first expiry may grow the entry: ENOMEM leaves the key unchanged. */
        int st = store_expire_set(s, c->cl->db, k->p, k->len, when, c->now_ms);
        if (st < 0) {
            cmd_reply_status(c, st);
            return;
        }
        cmd_changed(c, CMD_NOTIFY_GENERIC, "expire", k);
        if (cmd_feed_on(c)) {
            feed_pexpireat(c, when);
        }
    }
    resp_write_int(c->out, 1);
}

void cmd_expire_proc(struct cmd_call *c)
{
    keys_expire_generic(c, c->now_ms, 1000, "expire");
}

void cmd_pexpire_proc(struct cmd_call *c)
{
    keys_expire_generic(c, c->now_ms, 1, "pexpire");
}

void cmd_expireat_proc(struct cmd_call *c)
{
    keys_expire_generic(c, 0, 1000, "expireat");
}

void cmd_pexpireat_proc(struct cmd_call *c)
{
    keys_expire_generic(c, 0, 1, "pexpireat");
}

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 no key, -1 no expiry. Seconds round half up. */
static void keys_ttl_generic(struct cmd_call *c, int in_ms, int absolute)
{
    const struct store_entry *e = cmd_keys_lookup(c, c->cl->db, &c->argv[1], CMD_KEYS_LOOKUP_STATS);
    int64_t exp, t;

    if (e == NULL) {
        resp_write_int(c->out, -2);
        return;
    }
    exp = store_entry_expire(e);
    if (exp == STORE_NO_EXPIRE) {
        resp_write_int(c->out, -1);
        return;
    }
    t = absolute ? exp : exp - c->now_ms;
    if (t < 0) {
        t = 0;
    }
    /* (t + 500) / 1000 without overflow near INT64_MAX. */
    resp_write_int(c->out, in_ms ? t : t / 1000 + (t % 1000 >= 500));
}

void cmd_ttl_proc(struct cmd_call *c)
{
    keys_ttl_generic(c, 0, 0);
}

void cmd_pttl_proc(struct cmd_call *c)
{
    keys_ttl_generic(c, 1, 0);
}

void cmd_expiretime_proc(struct cmd_call *c)
{
    keys_ttl_generic(c, 0, 1);
}

void cmd_pexpiretime_proc(struct cmd_call *c)
{
    keys_ttl_generic(c, 1, 1);
}

void cmd_persist_key_proc(struct cmd_call *c)
{
    const struct resp_slice *k = &c->argv[1];
    const struct store_entry *e = cmd_keys_lookup(c, c->cl->db, k, 0);
    int st;

    if (e == NULL || store_entry_expire(e) == STORE_NO_EXPIRE) {
        resp_write_int(c->out, 0);
        return;
    }
    st = store_expire_set(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, STORE_NO_EXPIRE,
                          c->now_ms);
    if (st < 0) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_GENERIC, "persist", k);
    resp_write_int(c->out, 1);
}
