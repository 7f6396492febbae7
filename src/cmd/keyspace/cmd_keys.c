/*
 * cmd_keys: the keyspace commands (DEL, UNLINK, EXISTS, TOUCH, TYPE, RENAME, RENAMENX, COPY,
 * MOVE, FLUSHDB, FLUSHALL, SELECT, SWAPDB) with Redis 7.0's syntax, replies and error texts,
 * the helpers the family shares (cmd_keys.h), and the family's table, cmd_keys_defs, whose
 * other handlers live in cmd_expire.c, cmd_scan.c and cmd_object.c.
 *
 * Invariants:
 * - A key is reached only through cmd_shard(). Keyspace-wide commands (KEYS, SCAN, RANDOMKEY,
 *   DBSIZE, FLUSH*, SWAPDB) go through cmd_keys_all_shard(): the first version has one shard,
 *   and that function is the one place that becomes a loop over shards.
 * - Lookups follow Redis's lookup flags: read-side commands count keyspace hits and misses;
 *   only the commands Redis lets touch a key (TOUCH, COPY's source) update its LRU/LFU data;
 *   write-side lookups count nothing.
 * - Times are absolute unix milliseconds taken from the call (c->now_ms), read once.
 */
#include "cmd/keyspace/cmd_keys.h"

#include <assert.h>
#include <limits.h>
#include <string.h>

#include "cmd/keyspace/cmd_expire.h"
#include "cmd/keyspace/cmd_object.h"
#include "cmd/keyspace/cmd_scan.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/mech/cmd_watch.h"
#include "terse/status.h"

#define KEYS_ERR_SAME_OBJECT "ERR source and destination objects are the same"

/* ---- helpers ------------------------------------------------------------------------------ */



static int keys_same_slice(const struct resp_slice *a, const struct resp_slice *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/*
 * Parses argument argi as an int as Redis's getIntFromObjectOrReply: not an integer, or out
 * of int range, replies msg (or Redis's default texts when msg is NULL). 0 or -1.
 */
static int keys_int_or_reply(struct cmd_call *c, size_t argi, int *out, const char *msg)
{
    long long v;

    if (!cmd_parse_ll(c->argv[argi].p, c->argv[argi].len, &v)) {
        cmd_reply_err(c, msg != NULL ? msg : CMD_ERR_NOT_INT);
        return -1;
    }
    if (v < INT_MIN || v > INT_MAX) {
        if (msg != NULL) {
            cmd_reply_err(c, msg);
        } else {
            resp_write_errorf(c->out, "ERR value is out of range, value must between %d and %d",
                              INT_MIN, INT_MAX);
        }
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int keys_db_valid(const struct cmd_call *c, int db)
{
    return db >= 0 && db < c->srv->settings.databases;
}


/* ---- DEL, UNLINK, EXISTS, TOUCH, TYPE ----------------------------------------------------- */

/* UNLINK frees synchronously too: values are flat entries, freeing one is cheap. */
/* DEL, and UNLINK (lazy: a big container is freed in bounded steps off the command). */
static void keys_del(struct cmd_call *c)
{
    long long n = 0;
    struct store_shard *s = cmd_keys_all_shard(c);
    unsigned lazy = store_lazy(s);

    if (cmd_arg_is(c, 0, "unlink")) {
        store_set_lazy(s, lazy | STORE_LAZY_USER);
    }
    for (size_t i = 1; i < c->argc; i++) {
        const struct resp_slice *k = &c->argv[i];
        if (store_delete(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, c->now_ms)) {
            cmd_changed(c, CMD_NOTIFY_GENERIC, "del", k);
            n++;
        }
    }
    store_set_lazy(s, lazy);
    resp_write_int(c->out, n);
}

/* EXISTS counts a key as often as it is named. */
static void keys_exists(struct cmd_call *c)
{
    long long n = 0;

    for (size_t i = 1; i < c->argc; i++) {
        if (cmd_keys_lookup(c, c->cl->db, &c->argv[i], CMD_KEYS_LOOKUP_STATS) != NULL) {
            n++;
        }
    }
    resp_write_int(c->out, n);
}

static void keys_touch(struct cmd_call *c)
{
    long long n = 0;

    for (size_t i = 1; i < c->argc; i++) {
        if (cmd_keys_lookup(c, c->cl->db, &c->argv[i],
                            CMD_KEYS_LOOKUP_STATS | CMD_KEYS_LOOKUP_TOUCH) != NULL) {
            n++;
        }
    }
    resp_write_int(c->out, n);
}

static void keys_type(struct cmd_call *c)
{
    const struct store_entry *e = cmd_keys_lookup(c, c->cl->db, &c->argv[1], CMD_KEYS_LOOKUP_STATS);

    resp_write_simple(c->out, e != NULL ? cmd_keys_type_name(e) : "none");
}

/* ---- RENAME, RENAMENX, COPY, MOVE --------------------------------------------------------- */

static void keys_rename_generic(struct cmd_call *c, int nx)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct store_shard *s = cmd_shard(c, src->p, src->len);
    int db = c->cl->db;
    int st;

    if (cmd_keys_lookup(c, db, src, 0) == NULL) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
        return;
    }
    /* Renaming a key to itself is a no-op that still requires the key to exist. */
    if (keys_same_slice(src, dst)) {
        if (nx) {
            resp_write_int(c->out, 0);
        } else {
            resp_write_ok(c->out);
        }
        return;
    }
    /* One shard in this version; a cross-shard rename arrives with the shard mailboxes. */
    assert(cmd_shard(c, dst->p, dst->len) == s);
    if (nx && cmd_keys_lookup(c, db, dst, 0) != NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    st = store_rename(s, db, src->p, src->len, dst->p, dst->len, c->now_ms);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_GENERIC, "rename_from", src);
    cmd_changed(c, CMD_NOTIFY_GENERIC, "rename_to", dst);
    if (nx) {
        resp_write_int(c->out, 1);
    } else {
        resp_write_ok(c->out);
    }
}

static void keys_rename(struct cmd_call *c)
{
    keys_rename_generic(c, 0);
}

static void keys_renamenx(struct cmd_call *c)
{
    keys_rename_generic(c, 1);
}

/* COPY source destination [DB destination-db] [REPLACE] */
static void keys_copy(struct cmd_call *c)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    int src_db = c->cl->db, dst_db = c->cl->db, replace = 0;
    int st;

    for (size_t j = 3; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "replace")) {
            replace = 1;
        } else if (cmd_arg_is(c, j, "db") && j + 1 < c->argc) {
            if (keys_int_or_reply(c, j + 1, &dst_db, NULL) != 0) {
                return;
            }
            if (!keys_db_valid(c, dst_db)) {
                cmd_reply_err(c, CMD_ERR_DB_INDEX);
                return;
            }
            j++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (src_db == dst_db && keys_same_slice(src, dst)) {
        cmd_reply_err(c, KEYS_ERR_SAME_OBJECT);
        return;
    }
    if (cmd_keys_lookup(c, src_db, src, CMD_KEYS_LOOKUP_STATS | CMD_KEYS_LOOKUP_TOUCH) == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    assert(cmd_shard(c, dst->p, dst->len) == cmd_shard(c, src->p, src->len));
    st = store_copy(cmd_shard(c, src->p, src->len), src_db, src->p, src->len, dst_db, dst->p,
                    dst->len, replace, c->now_ms);
    switch (st) {
    case TERSE_OK:
        cmd_changed_db(c, CMD_NOTIFY_GENERIC, "copy_to", dst_db, dst);
        resp_write_int(c->out, 1);
        break;
    case TERSE_ENOTFOUND: /* source gone (cannot happen after the lookup above) */
    case TERSE_EINVAL:    /* destination exists and no REPLACE */
        resp_write_int(c->out, 0);
        break;
    default:
        cmd_reply_status(c, st);
        break;
    }
}

/* MOVE key db */
static void keys_move(struct cmd_call *c)
{
    const struct resp_slice *k = &c->argv[1];
    int dst_db;
    int st;

    if (keys_int_or_reply(c, 2, &dst_db, NULL) != 0) {
        return;
    }
    if (!keys_db_valid(c, dst_db)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    if (dst_db == c->cl->db) {
        cmd_reply_err(c, KEYS_ERR_SAME_OBJECT);
        return;
    }
    st = store_move(cmd_shard(c, k->p, k->len), c->cl->db, dst_db, k->p, k->len, c->now_ms);
    switch (st) {
    case TERSE_OK:
        cmd_changed(c, CMD_NOTIFY_GENERIC, "move_from", k);
        cmd_changed_db(c, CMD_NOTIFY_GENERIC, "move_to", dst_db, k);
        resp_write_int(c->out, 1);
        break;
    case TERSE_ENOTFOUND: /* no such key in the source db */
    case TERSE_EINVAL:    /* key already in the destination db */
        resp_write_int(c->out, 0);
        break;
    default:
        cmd_reply_status(c, st);
        break;
    }
}

/* ---- FLUSHDB, FLUSHALL, SELECT, SWAPDB ------------------------------------------------------ */

/*
 * [ASYNC|SYNC]: entries are flat and freed at once either way; chunked containers are freed
 * lazily under ASYNC (or lazyfree-lazy-user-flush without SYNC), at once otherwise. Sets
 * the shard's lazy bits for the flush: *saved gets them back for keys_flush_done.
 */
static int keys_flush_args_or_reply(struct cmd_call *c, unsigned *saved)
{
    struct store_shard *s = cmd_keys_all_shard(c);
    bool lazy;

    if (c->argc == 1) {
        lazy = c->srv->settings.lazy_user_flush;
    } else if (c->argc == 2 && (cmd_arg_is(c, 1, "sync") || cmd_arg_is(c, 1, "async"))) {
        lazy = cmd_arg_is(c, 1, "async");
    } else {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    *saved = store_lazy(s);
    store_set_lazy(s, lazy ? *saved | STORE_LAZY_USER : *saved & ~(unsigned)STORE_LAZY_USER);
    return 0;
}

static void keys_flushdb(struct cmd_call *c)
{
    unsigned saved;

    if (keys_flush_args_or_reply(c, &saved) != 0) {
        return;
    }
    store_flushdb(cmd_keys_all_shard(c), c->cl->db);
    store_set_lazy(cmd_keys_all_shard(c), saved);
    c->feed |= CMD_FEED_FORCE; /* fed even when the db was empty, as Redis does */
    resp_write_ok(c->out);
}

static void keys_flushall(struct cmd_call *c)
{
    unsigned saved;

    if (keys_flush_args_or_reply(c, &saved) != 0) {
        return;
    }
    store_flushall(cmd_keys_all_shard(c));
    store_set_lazy(cmd_keys_all_shard(c), saved);
    if (c->srv->hooks.flushall != NULL && !(c->cl->flags & CMD_CLIENT_MUST_OBEY)) {
        c->srv->hooks.flushall(c->srv->hooks.srv); /* not while the AOF replays */
    }
    c->feed |= CMD_FEED_FORCE;
    resp_write_ok(c->out);
}

static void keys_select(struct cmd_call *c)
{
    int db;

    if (keys_int_or_reply(c, 1, &db, NULL) != 0) {
        return;
    }
    if (!keys_db_valid(c, db)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    c->cl->db = db;
    resp_write_ok(c->out);
}

static void keys_swapdb(struct cmd_call *c)
{
    int a, b;

    if (keys_int_or_reply(c, 1, &a, "ERR invalid first DB index") != 0 ||
        keys_int_or_reply(c, 2, &b, "ERR invalid second DB index") != 0) {
        return;
    }
    if (!keys_db_valid(c, a) || !keys_db_valid(c, b)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    if (a != b) {
        cmd_watch_swapdb(c->srv, a, b, c->now_ms);
        cmd_block_swapdb(c->srv, a, b);
    }
    store_swapdb(cmd_keys_all_shard(c), a, b);
    c->feed |= CMD_FEED_FORCE; /* the store reports no key change for a swap */
    resp_write_ok(c->out);
}

/* ---- the table ------------------------------------------------------------------------------ */

#define KEYS_RO_FAST (CMD_READONLY | CMD_FAST)
#define KEYS_W_FAST (CMD_WRITE | CMD_FAST)
#define KEYS_ACL_RF "@keyspace @read @fast"
#define KEYS_ACL_WF "@keyspace @write @fast"
#define KEYS_ACL_WS "@keyspace @write @slow"

const struct cmd_def cmd_keys_defs[] = {
    {"copy", -3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, keys_copy, KEYS_ACL_WS, "Copy a key", "6.2.0",
     "generic", NULL},
    {"dbsize", 1, KEYS_RO_FAST, 0, 0, 0, cmd_dbsize_proc, KEYS_ACL_RF,
     "Return the number of keys in the selected database", "1.0.0", "server", NULL},
    {"del", -2, CMD_WRITE, 1, -1, 1, keys_del, KEYS_ACL_WS, "Delete a key", "1.0.0", "generic",
     NULL},
    {"exists", -2, KEYS_RO_FAST, 1, -1, 1, keys_exists, KEYS_ACL_RF, "Determine if a key exists",
     "1.0.0", "generic", NULL},
    {"expire", -3, KEYS_W_FAST, 1, 1, 1, cmd_expire_proc, KEYS_ACL_WF,
     "Set a key's time to live in seconds", "1.0.0", "generic", NULL},
    {"expireat", -3, KEYS_W_FAST, 1, 1, 1, cmd_expireat_proc, KEYS_ACL_WF,
     "Set the expiration for a key as a UNIX timestamp", "1.2.0", "generic", NULL},
    {"expiretime", 2, KEYS_RO_FAST, 1, 1, 1, cmd_expiretime_proc, KEYS_ACL_RF,
     "Get the expiration Unix timestamp for a key", "7.0.0", "generic", NULL},
    {"flushall", -1, CMD_WRITE, 0, 0, 0, keys_flushall, "@keyspace @write @slow @dangerous",
     "Remove all keys from all databases", "1.0.0", "server", NULL},
    {"flushdb", -1, CMD_WRITE, 0, 0, 0, keys_flushdb, "@keyspace @write @slow @dangerous",
     "Remove all keys from the current database", "1.0.0", "server", NULL},
    {"keys", 2, CMD_READONLY, 0, 0, 0, cmd_keys_proc, "@keyspace @read @slow @dangerous",
     "Find all keys matching the given pattern", "1.0.0", "generic", NULL},
    {"move", 3, KEYS_W_FAST, 1, 1, 1, keys_move, KEYS_ACL_WF, "Move a key to another database",
     "1.0.0", "generic", NULL},
    {"object", -2, 0, 0, 0, 0, NULL, "@slow", "A container for object introspection commands",
     "2.2.3", "generic", cmd_object_subcmds},
    {"persist", 2, KEYS_W_FAST, 1, 1, 1, cmd_persist_key_proc, KEYS_ACL_WF,
     "Remove the expiration from a key", "2.2.0", "generic", NULL},
    {"pexpire", -3, KEYS_W_FAST, 1, 1, 1, cmd_pexpire_proc, KEYS_ACL_WF,
     "Set a key's time to live in milliseconds", "2.6.0", "generic", NULL},
    {"pexpireat", -3, KEYS_W_FAST, 1, 1, 1, cmd_pexpireat_proc, KEYS_ACL_WF,
     "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0",
     "generic", NULL},
    {"pexpiretime", 2, KEYS_RO_FAST, 1, 1, 1, cmd_pexpiretime_proc, KEYS_ACL_RF,
     "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "generic", NULL},
    {"pttl", 2, KEYS_RO_FAST, 1, 1, 1, cmd_pttl_proc, KEYS_ACL_RF,
     "Get the time to live for a key in milliseconds", "2.6.0", "generic", NULL},
    {"randomkey", 1, CMD_READONLY | CMD_ARBITRARY_KEYS, 0, 0, 0, cmd_randomkey_proc,
     "@keyspace @read @slow",
     "Return a random key from the keyspace", "1.0.0", "generic", NULL},
    {"rename", 3, CMD_WRITE, 1, 2, 1, keys_rename, KEYS_ACL_WS, "Rename a key", "1.0.0",
     "generic", NULL},
    {"renamenx", 3, KEYS_W_FAST, 1, 2, 1, keys_renamenx, KEYS_ACL_WF,
     "Rename a key, only if the new key does not exist", "1.0.0", "generic", NULL},
    {"scan", -2, CMD_READONLY | CMD_ARBITRARY_KEYS, 0, 0, 0, cmd_scan_proc,
     "@keyspace @read @slow",
     "Incrementally iterate the keys space", "2.8.0", "generic", NULL},
    {"select", 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, keys_select, "@fast @connection",
     "Change the selected database for the current connection", "1.0.0", "connection", NULL},
    {"swapdb", 3, KEYS_W_FAST, 0, 0, 0, keys_swapdb, "@keyspace @write @fast @dangerous",
     "Swaps two Redis databases", "4.0.0", "server", NULL},
    {"touch", -2, KEYS_RO_FAST, 1, -1, 1, keys_touch, KEYS_ACL_RF,
     "Alters the last access time of a key(s). Returns the number of existing keys specified.",
     "3.2.1", "generic", NULL},
    {"ttl", 2, KEYS_RO_FAST, 1, 1, 1, cmd_ttl_proc, KEYS_ACL_RF,
     "Get the time to live for a key in seconds", "1.0.0", "generic", NULL},
    {"type", 2, KEYS_RO_FAST, 1, 1, 1, keys_type, KEYS_ACL_RF, "Determine the type stored at key",
     "1.0.0", "generic", NULL},
    {"unlink", -2, KEYS_W_FAST, 1, -1, 1, keys_del, KEYS_ACL_WF,
     "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non "
     "blocking.",
     "4.0.0", "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

