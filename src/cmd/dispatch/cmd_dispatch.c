/*
 * cmd_dispatch: the top of the command layer. It holds the list of every family's rows (the
 * table cmd_table builds), brings the server's command state up and down, creates and drops
 * clients, and dispatches a client's command in Redis 7.0's processCommand order: resolve the
 * command (unknown command, unknown subcommand), check arity, authentication, MULTI's rules,
 * maxmemory (evict, or refuse a CMD_DENYOOM command that does not fit: cmd_memory.c), MISCONF,
 * min-replicas and read-only replicas, the RESP2 subscribed context and a busy script, then
 * queue it in a transaction or run it (cmd_run.c) and flush the write feed and the blocked
 * clients it made ready.
 */
#include "cmd/dispatch/cmd_dispatch.h"


#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/script/cmd_script.h"
#include "cmd/core/cmd_util.h"
#include "cmd/string/cmd_bitops.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_client.h"
#include "cmd/mech/cmd_conn.h"
#include "cmd/mech/cmd_cstats.h"
#include "cmd/keyspace/cmd_dump.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_gate.h"
#include "cmd/hash/cmd_hash.h"
#include "cmd/mech/cmd_keyreg.h"
#include "cmd/keyspace/cmd_keys.h"
#include "cmd/list/cmd_list.h"
#include "cmd/mech/cmd_memory.h"
#include "cmd/admin/cmd_memory_cmd.h"
#include "cmd/mech/cmd_multi.h"
#include "cmd/admin/cmd_persist.h"
#include "cmd/mech/cmd_pubsub.h"
#include "cmd/mech/cmd_records.h"
#include "cmd/admin/cmd_repl.h"
#include "cmd/mech/cmd_run.h"
#include "cmd/admin/cmd_server.h"
#include "cmd/set/cmd_set.h"
#include "cmd/stream/cmd_stream.h"
#include "cmd/keyspace/cmd_sort.h"
#include "cmd/string/cmd_string.h"
#include "cmd/zset/cmd_zset.h"
#include "coll/coll.h"
#include "terse/status.h"
#include "cmd/stream/cmd_stream_table.h"
#include "cmd/script/cmd_script_cmd.h"
#include "cmd/script/cmd_script_fcmd.h"
#include "cmd/core/cmd_table.h"

static const struct cmd_def *const *families(size_t *n)
{
    static const struct cmd_def *const fam[] = {cmd_string_defs, cmd_keys_defs, cmd_conn_defs,
                                                cmd_client_defs,
                                                cmd_server_defs, cmd_memory_defs,
                                                cmd_persist_defs, cmd_hash_defs,
                                                cmd_list_defs, cmd_set_defs, cmd_zset_defs,
                                                cmd_stream_defs, cmd_multi_defs, cmd_sort_defs,
                                                cmd_pubsub_defs, cmd_dump_defs, cmd_repl_defs,
                                                cmd_bitmap_defs, cmd_script_defs,
                                                cmd_function_defs};
    *n = sizeof(fam) / sizeof(fam[0]);
    return fam;
}

int cmd_server_init(struct cmd_server *srv)
{
    size_t n_fam;
    const struct cmd_def *const *fam = families(&n_fam);

    if (cmd_table_build(srv, fam, n_fam) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (cmd_cstats_build(srv) != TERSE_OK) {
        cmd_table_free(srv);
        return TERSE_ENOMEM;
    }
    srv->clients = NULL;
    srv->next_client_id = 1;
    srv->scratch = NULL;
    srv->scratch_cap = 0;
    srv->scratch2 = NULL;
    srv->scratch2_cap = 0;
    srv->scratch3 = NULL;
    srv->scratch3_cap = 0;
    srv->stream_big = NULL;
    memset(&srv->watch, 0, sizeof(srv->watch));
    memset(&srv->block, 0, sizeof(srv->block));
    srv->cur_call = NULL;
    memset(&srv->pubsub_chan, 0, sizeof(srv->pubsub_chan));
    memset(&srv->pubsub_pat, 0, sizeof(srv->pubsub_pat));
    memset(&srv->pubsub_shard, 0, sizeof(srv->pubsub_shard));
    srv->n_blocked = 0;
    srv->block_next_deadline = 0;
    srv->ready = NULL;
    srv->n_ready = srv->ready_cap = 0;
    memset(&srv->stats, 0, sizeof(srv->stats));
    srv->used_memory_startup =
        srv->hooks.mem_used != NULL ? srv->hooks.mem_used(srv->hooks.srv) : 0;
    srv->dirty = 0;
    memset(&srv->feed, 0, sizeof(srv->feed));
    srv->feed.sel_db = -1;
    srv->script = NULL;
    cmd_change_setup(srv);
    return TERSE_OK;
}

void cmd_server_deinit(struct cmd_server *srv)
{
    cmd_cstats_free(srv);
    cmd_table_free(srv);
    srv->alloc.free(srv->alloc.opaque, srv->scratch);
    srv->alloc.free(srv->alloc.opaque, srv->scratch2);
    srv->alloc.free(srv->alloc.opaque, srv->scratch3);
    srv->scratch = srv->scratch2 = srv->scratch3 = NULL;
    srv->scratch_cap = srv->scratch2_cap = srv->scratch3_cap = 0;
    cmd_stream_big_free(srv);
    cmd_keyreg_free(srv, &srv->watch);
    cmd_keyreg_free(srv, &srv->block);
    cmd_keyreg_free(srv, &srv->pubsub_chan);
    cmd_keyreg_free(srv, &srv->pubsub_pat);
    cmd_keyreg_free(srv, &srv->pubsub_shard);
    srv->alloc.free(srv->alloc.opaque, srv->ready);
    srv->ready = NULL;
    srv->n_ready = srv->ready_cap = 0;
    cmd_feed_free(srv);
    cmd_script_destroy(srv, &srv->script);
}

int cmd_name_known(const char *name)
{
    size_t n_fam;
    const struct cmd_def *const *fam = families(&n_fam);

    return cmd_table_has(fam, n_fam, name);
}



/* Appends at most n bytes of s to buf (at *len, capacity cap), keeping a NUL. */
static void cat(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    size_t room = cap - 1 - *len;
    size_t k = n < room ? n : room;

    memcpy(buf + *len, s, k);
    *len += k;
    buf[*len] = '\0';
}

/* Redis 7.0: "unknown command '<name>', with args beginning with: '<a>' '<b>' ". The quoted
 * argument list stops once it reaches 128 bytes; each piece is cut to what is left. */
static void reply_unknown(struct cmd_call *c)
{
    char args[160], msg[512];
    size_t alen = 0;
    int nlen = c->argv[0].len > 128 ? 128 : (int)c->argv[0].len;

    args[0] = '\0';
    for (size_t i = 1; i < c->argc && alen < 128; i++) {
        size_t keep = 128 - alen;
        size_t n = c->argv[i].len < keep ? c->argv[i].len : keep;
        cat(args, sizeof(args), &alen, "'", 1);
        cat(args, sizeof(args), &alen, (const char *)c->argv[i].p, n);
        cat(args, sizeof(args), &alen, "' ", 2);
    }
    snprintf(msg, sizeof(msg), "ERR unknown command '%.*s', with args beginning with: %s", nlen,
             (const char *)c->argv[0].p, args);
    /* Arguments are binary: a NUL would cut the message; Redis sends it whole, so do we up to
     * the first NUL, and resp_write_error turns CR/LF into spaces. */
    cmd_reply_err(c, msg);
}

/* A command refused before it ran (msg: Redis's error text): inside MULTI the transaction is
 * doomed too; a refused EXEC ends it, "EXECABORT ... because of: " the error. */
static void refuse(struct cmd_call *c, const struct cmd_def *d, const char *msg)
{
    if (d != NULL && cmd_multi_is_exec(d)) {
        if (strncmp(msg, "ERR ", 4) == 0) {
            msg += 4;
        }
        resp_write_errorf(c->out, "EXECABORT Transaction discarded because of: %s", msg);
        cmd_multi_discard(c->srv, c->cl);
    } else {
        cmd_reply_err(c, msg);
        if (c->cl->flags & CMD_CLIENT_MULTI) {
            c->cl->flags |= CMD_CLIENT_DIRTY_EXEC;
        }
    }
    cmd_cstats_rejected(c->srv, d);
}

/* Redis's refusals of a write (MISCONF, NOREPLICAS), after the memory check as in Redis 7.0's
 * processCommand: 1 when d was refused (replied). EXEC counts as a write when it queued one. */
static int writes_denied(struct cmd_call *c, const struct cmd_def *d)
{
    struct cmd_server *srv = c->srv;
    int is_write = (d->flags & CMD_WRITE) ||
                   (cmd_multi_is_exec(d) && (c->cl->flags & CMD_CLIENT_MULTI) &&
                    (c->cl->mq.flags & CMD_WRITE));

    if (srv->settings.misconf && (is_write || cmd_conn_is_ping(d))) {
        refuse(c, d, cmd_misconf_text(srv) + 1);
        return 1;
    }
    if (is_write && !cmd_repl_enough_replicas(srv)) {
        refuse(c, d, CMD_ERR_NOREPLICAS);
        return 1;
    }
    if (is_write && srv->settings.replica_ro) {
        refuse(c, d, "READONLY You can't write against a read only replica.");
        return 1;
    }
    if (srv->settings.replica_stale &&
        (!(d->flags & CMD_STALE) ||
         (cmd_multi_is_exec(d) && (c->cl->flags & CMD_CLIENT_MULTI) &&
          (c->cl->mq.inv_flags & CMD_STALE)))) {
        refuse(c, d, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
                     "'no'.");
        return 1;
    }
    return 0;
}

/* cmd_dispatch's checks and run, for the call it set up. */
static void dispatch(struct cmd_call *c)
{
    struct cmd_server *srv = c->srv;
    struct cmd_client *cl = c->cl;
    const struct resp_slice *argv = c->argv;
    size_t argc = c->argc;
    const struct cmd_def *d;
    int queue, deny, busy;
    char msg[128];

    d = cmd_resolve(srv, argv, argc);
    if (d == NULL) {
        const struct cmd_def *base = cmd_lookup(srv, argv[0].p, argv[0].len);
        if (base != NULL && base->subcmds != NULL) {
            cmd_reply_unknown_subcommand(c);
        } else {
            reply_unknown(c);
        }
        cmd_cstats_mark(srv);
        if (cl->flags & CMD_CLIENT_MULTI) {
            cl->flags |= CMD_CLIENT_DIRTY_EXEC;
        }
        return;
    }
    if ((d->arity > 0 && (size_t)d->arity != argc) || (d->arity < 0 && argc < (size_t)-d->arity)) {
        snprintf(msg, sizeof(msg), "ERR wrong number of arguments for '%s' command", d->name);
        refuse(c, d, msg);
        return;
    }
    if ((cl->flags & CMD_CLIENT_REPLICA) && !cmd_repl_is_replconf(d)) {
        return; /* a replica's link carries the stream; it only acknowledges it */
    }
    if (!(cl->flags & CMD_CLIENT_AUTHED) && !(d->flags & CMD_NO_AUTH)) {
        refuse(c, d, "NOAUTH Authentication required.");
        return;
    }
    queue = (cl->flags & CMD_CLIENT_MULTI) && !(d->flags & CMD_TX_NOW);
    if (queue && (d->flags & CMD_NO_MULTI)) {
        refuse(c, d, "ERR Command not allowed inside a transaction");
        return;
    }
    /* Inside MULTI any command is refused when memory is over (queueing takes memory); EXEC
     * is when one it would run is a CMD_DENYOOM one (Redis 7.0's processCommand). */
    deny = queue || (cmd_multi_is_exec(d) && (cl->flags & CMD_CLIENT_MULTI) &&
                     (cl->mq.flags & CMD_DENYOOM));
    busy = cmd_script_busy(srv); /* a script runs past its time: others are served meanwhile */
    if (cl->flags & CMD_CLIENT_MASTER) {
        /* The master's stream is obeyed: no memory, persistence or read-only refusal. */
    } else if (srv->settings.maxmemory != 0 && !busy && !srv->settings.replica &&
               !cmd_memory_admit(c, d, deny)) {
        refuse(c, d, CMD_ERR_OOM);
        return;
    } else if ((srv->settings.misconf || srv->settings.min_replicas_to_write > 0 ||
                srv->settings.replica_ro || srv->settings.replica_stale) &&
               writes_denied(c, d)) {
        return;
    }
    if (cl->resp == 2 && !(d->flags & CMD_SUB_OK) && cmd_pubsub_any(cl)) {
        snprintf(msg, sizeof(msg),
                 "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                 "/ RESET are allowed in this context",
                 d->name);
        refuse(c, d, msg);
        return;
    }
    if (busy && !(d->flags & CMD_ALLOW_BUSY)) {
        refuse(c, d, cmd_script_busy_error(srv));
        return;
    }
    if (queue) {
        cmd_multi_queue(c, d);
        return;
    }
    cmd_run(c, d);
}

void cmd_dispatch(struct cmd_server *srv, struct cmd_client *cl, const struct resp_slice *argv,
                  size_t argc)
{
    struct cmd_call call;
    struct cmd_call *outer = srv->cur_call; /* a script running past its time: its EVAL */
    unsigned skip;

    memset(&call, 0, sizeof(call));
    call.srv = srv;
    call.cl = cl;
    call.out = cl->out;
    call.argv = argv;
    call.argc = argc;
    if (srv->hooks.now_unix_us != NULL) {
        call.start_us = srv->hooks.now_unix_us(srv->hooks.srv);
        call.now_ms = call.start_us / 1000;
    } else {
        call.now_ms = srv->hooks.now_ms(srv->hooks.srv);
    }
    cl->last_ms = call.now_ms;
    call.pushed = cl->out->len;
    skip = cl->flags & CMD_CLIENT_REPLY_SKIP;
    /* Nested in a busy script (hooks.busy_events), the script's unit stays open: only
     * CMD_ALLOW_BUSY commands run, and none of them writes. */
    if (srv->feed.n_ops > 0 && outer == NULL) {
        cmd_feed_flush(srv, 0); /* keys that expired outside a command, one op each */
    }
    if (outer == NULL) {
        cmd_cstats_mark(srv); /* errors before this command are not its own */
    }
    srv->cur_call = &call;
    dispatch(&call);
    if (srv->feed.on && outer == NULL) {
        /* With cur_call still set: the server notes the offset of cl's writes (WAIT). */
        cmd_feed_flush(srv, !(call.feed & CMD_FEED_NO_MULTI));
    }
    srv->cur_call = outer;
    if (cl->flags & (CMD_CLIENT_REPLY_OFF | CMD_CLIENT_REPLY_SKIP)) {
        cl->out->len = call.pushed; /* the reply goes; push messages stay */
    }
    /* CLIENT REPLY SKIP silences the one command after it (Redis's resetClient). */
    cl->flags &= ~skip;
    if (cl->flags & CMD_CLIENT_REPLY_SKIP_NEXT) {
        cl->flags = (cl->flags & ~(unsigned)CMD_CLIENT_REPLY_SKIP_NEXT) | CMD_CLIENT_REPLY_SKIP;
    }
    if (srv->n_ready > 0 && outer == NULL) {
        cmd_block_serve(srv); /* after the whole command (EXEC included), as Redis does */
    }
}

void cmd_server_trim(struct cmd_server *srv, size_t keep)
{
    if (srv->scratch_cap > keep) {
        srv->alloc.free(srv->alloc.opaque, srv->scratch);
        srv->scratch = NULL;
        srv->scratch_cap = 0;
    }
    if (srv->scratch2_cap > keep) {
        srv->alloc.free(srv->alloc.opaque, srv->scratch2);
        srv->scratch2 = NULL;
        srv->scratch2_cap = 0;
    }
    if (srv->scratch3_cap > keep) {
        srv->alloc.free(srv->alloc.opaque, srv->scratch3);
        srv->scratch3 = NULL;
        srv->scratch3_cap = 0;
    }
    coll_env_trim(store_coll_env(srv->shard), keep);
    cmd_feed_trim(srv, keep);
    cmd_script_trim(srv, keep);
    for (struct cmd_client *cl = srv->clients; cl != NULL; cl = cl->next) {
        cmd_records_trim(srv, &cl->mq, keep);
        cmd_records_trim(srv, &cl->blk, keep);
    }
}
