/*
 * cmd_multi: transactions, MULTI / EXEC / DISCARD, and the rows of WATCH and UNWATCH
 * (cmd_watch.c keeps the watched keys).
 *
 * After MULTI, cmd_dispatch checks each command as it would run it (unknown command, arity,
 * authentication, "not allowed inside a transaction", maxmemory, in Redis 7.0's order) and
 * hands it here to queue instead of running it: the client gets +QUEUED, or the error, which
 * also marks the transaction to abort (CMD_CLIENT_DIRTY_EXEC). EXEC then runs the queue in one
 * go, nothing else running in between (one worker thread), and replies with an array of their
 * replies; or null when a watched key changed; or EXECABORT.
 *
 * The queue copies each command's arguments (the input buffer they point into is reused), in
 * the client's own buffer, which is kept from one transaction to the next (struct
 * cmd_multi_queue).
 */
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_internal.h"
#include "cmd/cmd_util.h"
#include "terse/status.h"

#define QUEUE_MIN 256u /* first buffer of a queue, bytes */

/* Grows *p (of *cap units of size each) to hold at least want units. TERSE_OK or
 * TERSE_ENOMEM (unchanged). */
static int reserve(struct cmd_server *srv, void **p, size_t *cap, size_t want, size_t size,
                   size_t min)
{
    size_t n = *cap > min ? *cap : min;
    void *np;

    if (want <= *cap) {
        return TERSE_OK;
    }
    while (n < want) {
        n *= 2;
    }
    np = srv->alloc.alloc(srv->alloc.opaque, n * size);
    if (np == NULL) {
        return TERSE_ENOMEM;
    }
    if (*cap > 0) {
        memcpy(np, *p, *cap * size); /* a queue keeps what it holds */
    }
    srv->alloc.free(srv->alloc.opaque, *p);
    *p = np;
    *cap = n;
    return TERSE_OK;
}

void cmd_multi_queue(struct cmd_call *c, const struct cmd_def *d)
{
    struct cmd_multi_queue *q = &c->cl->mq;
    size_t need = sizeof(d) + sizeof(uint32_t) * (1 + c->argc);
    uint8_t *p;
    uint32_t u;

    for (size_t i = 0; i < c->argc; i++) {
        need += c->argv[i].len;
    }
    if (c->argc > UINT32_MAX ||
        reserve(c->srv, (void **)&q->buf, &q->cap, q->len + need, 1, QUEUE_MIN) != TERSE_OK) {
        c->cl->flags |= CMD_CLIENT_DIRTY_EXEC;
        cmd_reply_err(c, CMD_ERR_OOM);
        return;
    }
    p = q->buf + q->len;
    memcpy(p, &d, sizeof(d));
    p += sizeof(d);
    u = (uint32_t)c->argc;
    memcpy(p, &u, sizeof(u));
    p += sizeof(u);
    for (size_t i = 0; i < c->argc; i++) {
        u = (uint32_t)c->argv[i].len; /* proto-max-bulk-len keeps it far below 4 GiB */
        memcpy(p, &u, sizeof(u));
        p += sizeof(u);
        if (u > 0) {
            memcpy(p, c->argv[i].p, u);
        }
        p += u;
    }
    q->len += need;
    q->n++;
    q->flags |= d->flags;
    resp_write_simple(c->out, "QUEUED");
}

void cmd_multi_discard(struct cmd_server *srv, struct cmd_client *cl)
{
    cl->mq.len = 0;
    cl->mq.n = 0;
    cl->mq.flags = 0;
    cl->flags &= ~(unsigned)(CMD_CLIENT_MULTI | CMD_CLIENT_DIRTY_CAS | CMD_CLIENT_DIRTY_EXEC);
    cmd_watch_unwatch_all(srv, cl);
}

void cmd_multi_client_free(struct cmd_server *srv, struct cmd_client *cl)
{
    cmd_multi_discard(srv, cl);
    srv->alloc.free(srv->alloc.opaque, cl->mq.buf);
    srv->alloc.free(srv->alloc.opaque, cl->mq.argv);
    memset(&cl->mq, 0, sizeof(cl->mq));
}

void cmd_multi_trim(struct cmd_server *srv, struct cmd_client *cl, size_t keep)
{
    if (cl->mq.n == 0 && cl->mq.cap > keep) {
        srv->alloc.free(srv->alloc.opaque, cl->mq.buf);
        cl->mq.buf = NULL;
        cl->mq.cap = 0;
    }
    if (cl->mq.n == 0 && cl->mq.argv_cap * sizeof(*cl->mq.argv) > keep) {
        srv->alloc.free(srv->alloc.opaque, cl->mq.argv);
        cl->mq.argv = NULL;
        cl->mq.argv_cap = 0;
    }
}

/* ---- MULTI, EXEC, DISCARD ---------------------------------------------------------------- */

static void cmd_multi(struct cmd_call *c)
{
    if (c->cl->flags & CMD_CLIENT_MULTI) {
        cmd_reply_err(c, "ERR MULTI calls can not be nested");
        return;
    }
    c->cl->flags |= CMD_CLIENT_MULTI;
    resp_write_ok(c->out);
}

static void cmd_discard(struct cmd_call *c)
{
    if (!(c->cl->flags & CMD_CLIENT_MULTI)) {
        cmd_reply_err(c, "ERR DISCARD without MULTI");
        return;
    }
    cmd_multi_discard(c->srv, c->cl);
    resp_write_ok(c->out);
}

/* Points q->argv at the arguments of the record at *pos and moves *pos past it; returns the
 * record's row. q->argv has room for the largest record (cmd_exec reserved it). */
static const struct cmd_def *next_record(struct cmd_multi_queue *q, size_t *pos, size_t *argc)
{
    const uint8_t *p = q->buf + *pos;
    const struct cmd_def *d;
    uint32_t n, len;

    memcpy(&d, p, sizeof(d));
    p += sizeof(d);
    memcpy(&n, p, sizeof(n));
    p += sizeof(n);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&len, p, sizeof(len));
        p += sizeof(len);
        q->argv[i].p = p;
        q->argv[i].len = len;
        p += len;
    }
    *pos = (size_t)(p - q->buf);
    *argc = n;
    return d;
}

/* The most arguments any queued command has. */
static size_t max_argc(const struct cmd_multi_queue *q)
{
    size_t pos = 0, most = 0;

    for (size_t k = 0; k < q->n; k++) {
        const uint8_t *p = q->buf + pos + sizeof(const struct cmd_def *);
        uint32_t n, len;
        memcpy(&n, p, sizeof(n));
        p += sizeof(n);
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&len, p, sizeof(len));
            p += sizeof(len) + len;
        }
        pos = (size_t)(p - q->buf);
        most = n > most ? n : most;
    }
    return most;
}

static void cmd_exec(struct cmd_call *c)
{
    struct cmd_client *cl = c->cl;
    struct cmd_multi_queue *q = &cl->mq;
    size_t pos = 0;

    if (!(cl->flags & CMD_CLIENT_MULTI)) {
        cmd_reply_err(c, "ERR EXEC without MULTI");
        return;
    }
    cmd_watch_expire_check(c->srv, cl, c->now_ms);
    if (cl->flags & CMD_CLIENT_DIRTY_EXEC) {
        cmd_reply_err(c, "EXECABORT Transaction discarded because of previous errors.");
        cmd_multi_discard(c->srv, cl);
        return;
    }
    if (cl->flags & CMD_CLIENT_DIRTY_CAS) {
        resp_write_null_array(c->out);
        cmd_multi_discard(c->srv, cl);
        return;
    }
    if (reserve(c->srv, (void **)&q->argv, &q->argv_cap, max_argc(q), sizeof(*q->argv), 8) !=
        TERSE_OK) {
        cmd_reply_err(c, "EXECABORT Transaction discarded because of: " CMD_ERR_OOM);
        cmd_multi_discard(c->srv, cl);
        return;
    }
    /* Nothing watched matters from here on; the commands run outside MULTI. */
    cmd_watch_unwatch_all(c->srv, cl);
    cl->flags &= ~(unsigned)CMD_CLIENT_MULTI;
    resp_write_array(c->out, q->n);
    for (size_t k = 0; k < q->n; k++) {
        struct cmd_call call = *c;
        const struct cmd_def *d = next_record(q, &pos, &call.argc);
        call.argv = q->argv;
        call.now_ms = c->now_ms; /* one clock for the whole transaction, as in Redis */
        cmd_run(&call, d);
    }
    cmd_multi_discard(c->srv, cl);
}

int cmd_multi_is_exec(const struct cmd_def *d)
{
    return d->proc == cmd_exec;
}

const struct cmd_def cmd_multi_defs[] = {
    {"discard", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY | CMD_TX_NOW,
     0, 0, 0, cmd_discard, "@fast @transaction", "Discard all commands issued after MULTI",
     "2.0.0", "transactions", NULL},
    {"exec", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG | CMD_TX_NOW, 0, 0, 0,
     cmd_exec, "@slow @transaction", "Execute all commands issued after MULTI", "1.2.0",
     "transactions", NULL},
    {"multi", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY | CMD_TX_NOW,
     0, 0, 0, cmd_multi, "@fast @transaction", "Mark the start of a transaction block", "1.2.0",
     "transactions", NULL},
    {"unwatch", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0,
     cmd_unwatch, "@fast @transaction", "Forget about all watched keys", "2.2.0",
     "transactions", NULL},
    {"watch", -2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY | CMD_TX_NOW,
     1, -1, 1, cmd_watch, "@fast @transaction",
     "Watch the given keys to determine execution of the MULTI/EXEC block", "2.2.0",
     "transactions", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
