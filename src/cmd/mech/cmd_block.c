/*
 * cmd_block: blocked clients (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX,
 * BZMPOP, XREAD and XREADGROUP with BLOCK, and WAIT, which waits on no key), as Redis 7.0
 * runs them.
 *
 * A blocking command first runs as its non-blocking twin. When there is nothing to take, it
 * calls cmd_block: the command is kept (struct cmd_records, arguments copied), its keys go
 * into the server's block registry (cmd_keyreg.c) and the client is CMD_CLIENT_BLOCKED: the
 * server runs none of its further commands until it is served, times out, or CLIENT UNBLOCK
 * ends the wait.
 *
 * Serving. Every change to a key a client waits on (a push, but also a SET, RENAME, MOVE,
 * SWAPDB, a delete...) marks that key's waiting clients and queues the key in srv->ready.
 * After every command, cmd_block_serve takes the queued keys in order and, for each, its
 * marked clients first come, first served: each one's command runs again in CMD_CALL_RETRY
 * mode, its reply going to its own output buffer (hooks.client_out). A command that still
 * finds nothing (the list is gone, or is a string now) calls cmd_block again, which then
 * leaves the client waiting and nothing replied. What a served command writes (BLMOVE's push)
 * queues more keys, so chains of clients are served in the same pass.
 *
 * Timeouts: the server calls cmd_block_timeouts from its loop, woken by the earliest deadline
 * (srv->block_next_deadline); the reply is a null array, whatever the command (Redis 7.0's
 * answer, BLMOVE's too). Inside EXEC a blocking command never waits: it gives the answer of
 * its non-blocking twin on empty lists.
 */
#include "cmd/mech/cmd_block.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_cstats.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/mech/cmd_keyreg.h"
#include "cmd/mech/cmd_records.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"

#define READY_MIN 16u /* first srv->ready, entries */

/* ---- waiting ----------------------------------------------------------------------------- */

int cmd_block_ready(struct cmd_call *c, const struct resp_slice *key, enum store_type type)
{
    const struct store_entry *e =
        store_lookup(c->srv->shard, c->cl->db, key->p, key->len, c->now_ms, 0);

    if (e == NULL) {
        return 0; /* an emptied list or zset is no key */
    }
    if (store_entry_type(e) == type) {
        return 1;
    }
    if (c->mode & CMD_CALL_RETRY) {
        return 0; /* Redis keeps such a client waiting */
    }
    cmd_reply_err(c, CMD_ERR_WRONGTYPE);
    return -1;
}

int cmd_block_first_ready(struct cmd_call *c, size_t first, size_t n, enum store_type type,
                          size_t *at)
{
    for (size_t j = first; j < first + n; j++) {
        int has = cmd_block_ready(c, &c->argv[j], type);
        if (has != 0) {
            *at = j;
            return has;
        }
    }
    return 0;
}

int cmd_block_timeout(struct cmd_call *c, size_t i, int64_t *ms)
{
    long double secs, msd;
    long long tval;

    if (!cmd_parse_ld(c->argv[i].p, c->argv[i].len, &secs)) {
        cmd_reply_err(c, "ERR timeout is not a float or out of range");
        return -1;
    }
    /* Redis rounds seconds * 1000 up (0.0001 waits 1 ms) and converts it to a long long as
     * the CPU does: a value out of range (inf too) comes out as LLONG_MIN, hence "negative". */
    msd = ceill(secs * 1000.0L);
    tval = msd > -9223372036854775808.0L && msd < 9223372036854775808.0L ? (long long)msd
                                                                         : LLONG_MIN;
    if (tval < 0) {
        cmd_reply_err(c, "ERR timeout is negative");
        return -1;
    }
    *ms = tval;
    return 0;
}

static void note_deadline(struct cmd_server *srv, int64_t deadline)
{
    if (deadline != 0 && (srv->block_next_deadline == 0 || deadline < srv->block_next_deadline)) {
        srv->block_next_deadline = deadline;
    }
}

int cmd_block(struct cmd_call *c, size_t first, size_t n, size_t step, int64_t timeout_ms)
{
    return cmd_block_as(c, c->argv, first, n, step, timeout_ms);
}

int cmd_block_as(struct cmd_call *c, const struct resp_slice *argv, size_t first, size_t n,
                 size_t step, int64_t timeout_ms)
{
    struct cmd_server *srv = c->srv;
    struct cmd_client *cl = c->cl;
    const struct cmd_def *d;

    if (c->mode & CMD_CALL_RETRY) {
        c->blocked = 1; /* still nothing: keep waiting */
        return 1;
    }
    if ((c->mode & CMD_CALL_EXEC) || srv->hooks.client_out == NULL) {
        return 0;
    }
    d = cmd_resolve(srv, c->argv, c->argc);
    cmd_records_clear(&cl->blk);
    if (d == NULL || cmd_records_put(srv, &cl->blk, d, argv, c->argc) != TERSE_OK) {
        cmd_reply_err(c, CMD_ERR_OOM);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        const struct resp_slice *key = &c->argv[first + k * step];
        if (cmd_keyreg_add(srv, &srv->block, &cl->blocked_on, cl, cl->db, key->p, key->len) !=
            TERSE_OK) {
            cmd_keyreg_drop(srv, &srv->block, &cl->blocked_on);
            cmd_reply_err(c, CMD_ERR_OOM);
            return -1;
        }
    }
    cl->flags |= CMD_CLIENT_BLOCKED;
    /* A deadline past what a clock can reach is no deadline: Redis 7.0's sum wraps and its
     * client waits for ever. */
    cl->block_deadline_ms =
        timeout_ms > 0 && timeout_ms <= INT64_MAX - c->now_ms ? c->now_ms + timeout_ms : 0;
    srv->n_blocked++;
    note_deadline(srv, cl->block_deadline_ms);
    c->blocked = 1;
    return 1;
}

void cmd_block_end(struct cmd_server *srv, struct cmd_client *cl)
{
    if (!(cl->flags & CMD_CLIENT_BLOCKED)) {
        return;
    }
    cmd_keyreg_drop(srv, &srv->block, &cl->blocked_on);
    cmd_records_clear(&cl->blk);
    cl->flags &= ~(unsigned)CMD_CLIENT_BLOCKED;
    srv->n_blocked--;
}

/* ---- waking ------------------------------------------------------------------------------ */

/* Queues (hash, db) as ready, unless it is the last one queued. */
static void queue_ready(struct cmd_server *srv, uint64_t hash, int db)
{
    if (srv->n_ready > 0 && srv->ready[srv->n_ready - 1].hash == hash &&
        srv->ready[srv->n_ready - 1].db == db) {
        return;
    }
    if (cmd_grow(srv, (void **)&srv->ready, &srv->ready_cap, srv->n_ready + 1,
                 sizeof(*srv->ready), READY_MIN) != TERSE_OK) {
        return; /* the marks stay: the next key queued (or the timeout) gets to them */
    }
    srv->ready[srv->n_ready].hash = hash;
    srv->ready[srv->n_ready].db = db;
    srv->n_ready++;
}

void cmd_block_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen)
{
    int any = 0;

    for (struct cmd_keyreg_key *k = cmd_keyreg_first(&srv->block, hash); k != NULL;
         k = k->bucket_next) {
        if (cmd_keyreg_same(k, hash, db, key, klen)) {
            k->mark = 1;
            any = 1;
        }
    }
    if (any) {
        queue_ready(srv, hash, db);
    }
}

void cmd_block_swapdb(struct cmd_server *srv, int a, int b)
{
    struct cmd_keyreg *reg = &srv->block;

    for (size_t i = 0; reg->n > 0 && i < reg->n_buckets; i++) {
        for (struct cmd_keyreg_key *k = reg->buckets[i]; k != NULL; k = k->bucket_next) {
            if (k->db == a || k->db == b) {
                k->mark = 1;
                queue_ready(srv, k->hash, k->db);
            }
        }
    }
}

/* Runs cl's blocked command again; 1 when it was served (replied), 0 when it keeps waiting. */
static int retry(struct cmd_server *srv, struct cmd_client *cl)
{
    struct cmd_call call, *prev;
    const struct cmd_def *d;
    size_t pos = 0;
    int64_t t0;

    memset(&call, 0, sizeof(call));
    call.srv = srv;
    call.cl = cl;
    call.out = srv->hooks.client_out(srv->hooks.srv, cl);
    call.now_ms = srv->hooks.now_ms(srv->hooks.srv);
    call.mode = CMD_CALL_RETRY;
    d = cmd_records_next(&cl->blk, &pos, &call.argc);
    call.argv = cl->blk.argv;
    cl->out = call.out;
    prev = srv->cur_call;
    srv->cur_call = &call;
    call.feed_changes = srv->feed.changes;
    t0 = cmd_cstats_clock(srv);
    d->proc(&call);
    cl->block_usec += cmd_cstats_since(srv, t0);
    if (srv->feed.on) {
        if (!call.blocked) {
            cmd_feed_after(&call, d);
        }
        cmd_feed_flush(srv, 1); /* each served client is a unit of its own, as in Redis */
    }
    srv->cur_call = prev;
    cl->out = NULL;
    if (!call.blocked) {
        if (d->flags & CMD_WRITE) {
            srv->dirty++;
        }
        cmd_cstats_called(srv, d, cl->block_usec);
        cmd_block_end(srv, cl);
    }
    srv->hooks.client_out_done(srv->hooks.srv, cl);
    return !call.blocked;
}

/* Serves the marked clients waiting on the ready key r, first come first served. */
static void serve_key(struct cmd_server *srv, struct cmd_ready r)
{
    struct cmd_keyreg_key *k = cmd_keyreg_first(&srv->block, r.hash);

    while (k != NULL) {
        if (!k->mark || k->hash != r.hash || k->db != r.db) {
            k = k->bucket_next;
            continue;
        }
        k->mark = 0;
        if (retry(srv, k->cl)) {
            /* Its keys left the chain: start over (the unmarked ones are skipped). */
            k = cmd_keyreg_first(&srv->block, r.hash);
        } else {
            k = k->bucket_next;
        }
    }
}

void cmd_block_serve(struct cmd_server *srv)
{
    /* Serving pushes (BLMOVE) and so queues more: go on until the queue is drained. */
    for (size_t i = 0; i < srv->n_ready; i++) {
        serve_key(srv, srv->ready[i]);
    }
    srv->n_ready = 0;
}

long long cmd_block_acked(struct cmd_server *srv, const struct cmd_client *cl)
{
    struct cmd_hooks *h = &srv->hooks;

    return h->repl_acked != NULL ? h->repl_acked(h->srv, cl->woff) : 0;
}

/* Writes cl's timeout reply (or err), ends its wait, and hands it back to the server.
 * unblocked: CLIENT UNBLOCK ended it, which Redis counts as a failed call either way. */
static void wake_empty(struct cmd_server *srv, struct cmd_client *cl, const char *err,
                       int unblocked)
{
    struct resp_out *o = srv->hooks.client_out(srv->hooks.srv, cl);
    size_t pos = 0, argc;
    const struct cmd_def *d = cmd_records_next(&cl->blk, &pos, &argc);
    struct cmd_cstat *st;

    cmd_cstats_mark(srv);
    if (err != NULL) {
        resp_write_error(o, err);
    } else if (d->flags & CMD_WAITS_REPLICAS) {
        resp_write_int(o, cmd_block_acked(srv, cl)); /* WAIT answers how many replicas did */
    } else {
        resp_write_null_array(o); /* whatever the command, as Redis 7.0 answers a timeout */
    }
    st = cmd_cstats_called(srv, d, cl->block_usec);
    if (unblocked && err == NULL && st != NULL) {
        st->failed++; /* its null reply is no error, but the call failed */
    }
    cmd_block_end(srv, cl);
    srv->hooks.client_out_done(srv->hooks.srv, cl);
}

void cmd_block_timeouts(struct cmd_server *srv, int64_t now_ms)
{
    int64_t next = 0;

    if (srv->block_next_deadline == 0 || now_ms < srv->block_next_deadline) {
        return;
    }
    for (struct cmd_client *cl = srv->clients; cl != NULL; cl = cl->next) {
        if (!(cl->flags & CMD_CLIENT_BLOCKED) || cl->block_deadline_ms == 0) {
            continue;
        }
        if (cl->block_deadline_ms <= now_ms) {
            wake_empty(srv, cl, NULL, 0);
        } else if (next == 0 || cl->block_deadline_ms < next) {
            next = cl->block_deadline_ms;
        }
    }
    srv->block_next_deadline = next;
}

void cmd_block_wake_waits(struct cmd_server *srv)
{
    for (struct cmd_client *cl = srv->clients; cl != NULL; cl = cl->next) {
        size_t pos = 0, argc;
        if ((cl->flags & CMD_CLIENT_BLOCKED) &&
            (cmd_records_next(&cl->blk, &pos, &argc)->flags & CMD_WAITS_REPLICAS)) {
            (void)retry(srv, cl);
        }
    }
}

int cmd_block_unblock(struct cmd_server *srv, struct cmd_client *cl, int with_error)
{
    if (!(cl->flags & CMD_CLIENT_BLOCKED)) {
        return 0;
    }
    wake_empty(srv, cl, with_error ? "UNBLOCKED client unblocked via CLIENT UNBLOCK" : NULL, 1);
    return 1;
}
