/*
 * cmd_watch: WATCH and UNWATCH, the optimistic lock of MULTI/EXEC.
 *
 * A client's watched keys are in the server's watch registry (cmd_keyreg.c); a change to one
 * marks its clients CMD_CLIENT_DIRTY_CAS, so their EXEC replies null, as Redis's
 * touchWatchedKey does.
 *
 * Stale keys, as Redis 7.0 treats them: WATCH looks its keys up first, so a key whose expiry
 * has passed is deleted then (before it is watched) and counts as missing; EXEC looks them up
 * again, so a watched key that expired since goes now and fails the transaction. FLUSHDB and
 * FLUSHALL reach watched keys through the shard's removals; SWAPDB, which removes nothing,
 * touches a watched key that exists, unexpired, in either of the two databases. A missing key
 * that SWAPDB replaces with a stale one is no change: it is marked stale (the key's mark), and
 * its deletion later is no change either (only a write to it is).
 */
#include "cmd/mech/cmd_watch.h"

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_keyreg.h"
#include "terse/status.h"

void cmd_watch_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen)
{
    for (struct cmd_keyreg_key *k = cmd_keyreg_first(&srv->watch, hash); k != NULL;
         k = k->bucket_next) {
        if (!cmd_keyreg_same(k, hash, db, key, klen)) {
            continue;
        }
        /* A removal calls this with the entry already out of the index. */
        if (k->mark && store_peek(srv->shard, db, key, klen) == NULL) {
            k->mark = 0;
            continue;
        }
        k->cl->flags |= CMD_CLIENT_DIRTY_CAS;
    }
}

void cmd_watch_unwatch_all(struct cmd_server *srv, struct cmd_client *cl)
{
    cmd_keyreg_drop(srv, &srv->watch, &cl->watched);
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
    struct cmd_keyreg *reg = &srv->watch;

    for (size_t i = 0; reg->n > 0 && i < reg->n_buckets; i++) {
        for (struct cmd_keyreg_key *k = reg->buckets[i]; k != NULL; k = k->bucket_next) {
            int other = k->db == a ? b : a;
            if (k->db != a && k->db != b) {
                continue;
            }
            if (alive(srv->shard, a, k->key, k->klen, now_ms) ||
                alive(srv->shard, b, k->key, k->klen, now_ms)) {
                k->cl->flags |= CMD_CLIENT_DIRTY_CAS;
            } else {
                /* Stale or missing on both sides: what comes in is stale or nothing. */
                k->mark = store_peek(srv->shard, other, k->key, k->klen) != NULL;
            }
        }
    }
}

void cmd_watch_expire_check(struct cmd_server *srv, struct cmd_client *cl, int64_t now_ms)
{
    /* A lookup deletes a key found stale, and the deletion dirties cl (cmd_watch_changed). */
    for (struct cmd_keyreg_key *k = cl->watched; k != NULL; k = k->client_next) {
        (void)store_lookup(srv->shard, k->db, k->key, k->klen, now_ms, 0);
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
        if (cmd_keyreg_add(c->srv, &c->srv->watch, &cl->watched, cl, cl->db, c->argv[i].p,
                           c->argv[i].len) != TERSE_OK) {
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
