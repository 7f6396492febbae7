/*
 * cmd_watch: WATCH's bookkeeping, the optimistic lock of MULTI/EXEC.
 *
 * Every watched key is one struct cmd_watch_key, in two lists at once: its client's (what
 * UNWATCH, EXEC and DISCARD drop) and a bucket of the server's table, chained by the shard's
 * key hash (what a change looks up). While the table holds a key, the shard calls on_change
 * after every write, expiry change and removal (store_watch_changes), and a change to a watched
 * key marks its clients CMD_CLIENT_DIRTY_CAS, so their EXEC replies null, as Redis's
 * touchWatchedKey does. With nothing watched the shard has no listener: a write pays one
 * pointer test.
 *
 * Stale keys, as Redis 7.0 treats them: WATCH looks its keys up first, so a key whose expiry
 * has passed is deleted then (before it is watched) and counts as missing; EXEC looks them up
 * again, so a watched key that expired since goes now and fails the transaction. FLUSHDB and
 * FLUSHALL reach watched keys through the shard's removals; SWAPDB, which removes nothing,
 * touches a watched key that exists, unexpired, in either of the two databases. A missing key
 * that SWAPDB replaces with a stale one is no change: it is marked stale, and its deletion
 * later is no change either (only a write to it is).
 *
 * Memory: one allocation per key a WATCH adds (freed when unwatched); the bucket array grows
 * with the number of keys and is kept until the server stops.
 */
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_internal.h"
#include "cmd/cmd_util.h"
#include "terse/status.h"

#define WATCH_MIN_BUCKETS 16u

struct cmd_watch_key {
    struct cmd_watch_key *bucket_next; /* next in the server's bucket */
    struct cmd_watch_key *client_next; /* next of the same client */
    struct cmd_client *cl;
    uint64_t hash;                     /* store_key_hash of key */
    int db;
    int stale;                         /* SWAPDB put an expired key here: its removal is no
                                          change */
    size_t klen;
    uint8_t key[];                     /* klen bytes */
};

static struct cmd_watch_key **bucket_of(const struct cmd_server *srv, uint64_t hash)
{
    return &srv->watch_buckets[hash & (srv->watch_n_buckets - 1)];
}

static int same(const struct cmd_watch_key *w, uint64_t hash, int db, const void *key,
                size_t klen)
{
    return w->hash == hash && w->db == db && w->klen == klen &&
           (klen == 0 || memcmp(w->key, key, klen) == 0);
}

/* The shard's change listener: every client watching key of db is dirty now. */
static void on_change(void *arg, int db, const void *key, size_t klen)
{
    struct cmd_server *srv = arg;
    uint64_t hash = store_key_hash(srv->shard, key, klen);

    for (struct cmd_watch_key *w = *bucket_of(srv, hash); w != NULL; w = w->bucket_next) {
        if (!same(w, hash, db, key, klen)) {
            continue;
        }
        /* A removal calls this with the entry already out of the index. */
        if (w->stale && store_peek(srv->shard, db, key, klen) == NULL) {
            w->stale = 0;
            continue;
        }
        w->cl->flags |= CMD_CLIENT_DIRTY_CAS;
    }
}

/* Doubles the bucket array (or makes the first one); TERSE_OK or TERSE_ENOMEM (unchanged). */
static int grow(struct cmd_server *srv)
{
    size_t n = srv->watch_n_buckets ? srv->watch_n_buckets * 2 : WATCH_MIN_BUCKETS;
    struct cmd_watch_key **b = srv->alloc.alloc(srv->alloc.opaque, n * sizeof(*b));

    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    memset(b, 0, n * sizeof(*b));
    for (size_t i = 0; i < srv->watch_n_buckets; i++) {
        struct cmd_watch_key *w = srv->watch_buckets[i], *next;
        for (; w != NULL; w = next) {
            next = w->bucket_next;
            w->bucket_next = b[w->hash & (n - 1)];
            b[w->hash & (n - 1)] = w;
        }
    }
    srv->alloc.free(srv->alloc.opaque, srv->watch_buckets);
    srv->watch_buckets = b;
    srv->watch_n_buckets = n;
    return TERSE_OK;
}

/* Watches key of db for cl unless it already does. TERSE_OK or TERSE_ENOMEM. */
static int watch_key(struct cmd_server *srv, struct cmd_client *cl, int db, const void *key,
                     size_t klen)
{
    uint64_t hash = store_key_hash(srv->shard, key, klen);
    struct cmd_watch_key *w;

    for (w = cl->watched; w != NULL; w = w->client_next) {
        if (same(w, hash, db, key, klen)) {
            return TERSE_OK;
        }
    }
    if (srv->watch_n >= srv->watch_n_buckets && grow(srv) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    w = srv->alloc.alloc(srv->alloc.opaque, sizeof(*w) + klen);
    if (w == NULL) {
        return TERSE_ENOMEM;
    }
    w->cl = cl;
    w->hash = hash;
    w->db = db;
    w->stale = 0;
    w->klen = klen;
    if (klen > 0) {
        memcpy(w->key, key, klen);
    }
    w->bucket_next = *bucket_of(srv, hash);
    *bucket_of(srv, hash) = w;
    w->client_next = cl->watched;
    cl->watched = w;
    if (srv->watch_n++ == 0) {
        store_watch_changes(srv->shard, on_change, srv);
    }
    return TERSE_OK;
}

void cmd_watch_unwatch_all(struct cmd_server *srv, struct cmd_client *cl)
{
    struct cmd_watch_key *w, *next;

    for (w = cl->watched; w != NULL; w = next) {
        struct cmd_watch_key **pp = bucket_of(srv, w->hash);
        next = w->client_next;
        while (*pp != w) {
            pp = &(*pp)->bucket_next;
        }
        *pp = w->bucket_next;
        srv->alloc.free(srv->alloc.opaque, w);
        if (--srv->watch_n == 0) {
            store_watch_changes(srv->shard, NULL, NULL);
        }
    }
    cl->watched = NULL;
}

void cmd_watch_deinit(struct cmd_server *srv)
{
    srv->alloc.free(srv->alloc.opaque, srv->watch_buckets);
    srv->watch_buckets = NULL;
    srv->watch_n_buckets = 0;
}

/* Present and not past its expiry, without deleting a stale key (store_peek). */
static int alive(struct store_shard *shard, int db, const void *key, size_t klen, int64_t now_ms)
{
    const struct store_entry *e = store_peek(shard, db, key, klen);
    int64_t exp;

    if (e == NULL) {
        return 0;
    }
    exp = store_entry_expire(e);
    return exp == STORE_NO_EXPIRE || exp > now_ms;
}

void cmd_watch_swapdb(struct cmd_server *srv, int a, int b, int64_t now_ms)
{
    for (size_t i = 0; i < srv->watch_n_buckets; i++) {
        for (struct cmd_watch_key *w = srv->watch_buckets[i]; w != NULL; w = w->bucket_next) {
            int other = w->db == a ? b : a;
            if (w->db != a && w->db != b) {
                continue;
            }
            if (alive(srv->shard, a, w->key, w->klen, now_ms) ||
                alive(srv->shard, b, w->key, w->klen, now_ms)) {
                w->cl->flags |= CMD_CLIENT_DIRTY_CAS;
            } else {
                /* Stale or missing on both sides: what comes in is stale or nothing. */
                w->stale = store_peek(srv->shard, other, w->key, w->klen) != NULL;
            }
        }
    }
}

void cmd_watch_expire_check(struct cmd_server *srv, struct cmd_client *cl, int64_t now_ms)
{
    /* A lookup deletes a key found stale, and the deletion dirties cl through on_change. */
    for (struct cmd_watch_key *w = cl->watched; w != NULL; w = w->client_next) {
        (void)store_lookup(srv->shard, w->db, w->key, w->klen, now_ms, 0);
    }
}

/* ---- WATCH, UNWATCH ---------------------------------------------------------------------- */

void cmd_watch(struct cmd_call *c)
{
    struct cmd_client *cl = c->cl;

    if (cl->flags & CMD_CLIENT_MULTI) {
        cmd_reply_err(c, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    for (size_t i = 1; i < c->argc; i++) {
        /* A stale key goes before it is watched (see the header comment). */
        (void)store_lookup(c->srv->shard, cl->db, c->argv[i].p, c->argv[i].len, c->now_ms, 0);
        if (watch_key(c->srv, cl, cl->db, c->argv[i].p, c->argv[i].len) != TERSE_OK) {
            cmd_reply_err(c, CMD_ERR_OOM);
            return;
        }
    }
    resp_write_ok(c->out);
}

void cmd_unwatch(struct cmd_call *c)
{
    cmd_watch_unwatch_all(c->srv, c->cl);
    c->cl->flags &= ~(unsigned)CMD_CLIENT_DIRTY_CAS;
    resp_write_ok(c->out);
}
