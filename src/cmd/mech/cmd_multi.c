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
 * cmd_records). Inside EXEC a blocking command answers at once, as if its timeout passed.
 */
#include "cmd/mech/cmd_multi.h"

#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_records.h"
#include "cmd/mech/cmd_run.h"
#include "cmd/mech/cmd_watch.h"
#include "terse/status.h"

void cmd_multi_queue(struct cmd_call *c, const struct cmd_def *d)
{
    if (cmd_records_put(c->srv, &c->cl->mq, d, c->argv, c->argc) != TERSE_OK) {
        c->cl->flags |= CMD_CLIENT_DIRTY_EXEC;
        cmd_reply_err(c, CMD_ERR_OOM);
        return;
    }
    resp_write_simple(c->out, "QUEUED");
}

void cmd_multi_discard(struct cmd_server *srv, struct cmd_client *cl)
{
    cmd_records_clear(&cl->mq);
    cl->flags &= ~(unsigned)(CMD_CLIENT_MULTI | CMD_CLIENT_DIRTY_CAS | CMD_CLIENT_DIRTY_EXEC);
    cmd_watch_unwatch_all(srv, cl);
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

static void cmd_exec(struct cmd_call *c)
{
    struct cmd_client *cl = c->cl;
    struct cmd_records *q = &cl->mq;
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
    /* Nothing watched matters from here on; the commands run outside MULTI. */
    cmd_watch_unwatch_all(c->srv, cl);
    cl->flags &= ~(unsigned)CMD_CLIENT_MULTI;
    resp_write_array(c->out, q->n);
    for (size_t k = 0; k < q->n; k++) {
        struct cmd_call call = *c; /* one clock for the whole transaction, as in Redis */
        const struct cmd_def *d = cmd_records_next(q, &pos, &call.argc);
        call.argv = q->argv;
        call.mode |= CMD_CALL_EXEC;
        call.start_us = 0; /* each command timed on its own (INFO commandstats) */
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
