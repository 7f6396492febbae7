/*
 * cmd_repl: the commands of replication's master side: SYNC, PSYNC, REPLCONF, ROLE, WAIT. What they start (the RDB child, the stream, the backlog) is
 * server/'s (srv_repl.c), reached through the repl_* hooks; the stream's contents are the
 * write feed's (cmd_feed.c); INFO's replication section is cmd_info.c's. REPLICAOF makes it
 * a replica itself (server/srv_replica.c).
 */
#include "cmd/admin/cmd_repl.h"

#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_block.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"

/* SYNC, PSYNC replid offset */
static void sync_generic(struct cmd_call *c, int psync)
{
    struct cmd_hooks *h = &c->srv->hooks;
    char replid[41] = "", id[41];
    long long offset = -1;
    int r;

    if (c->cl->flags & CMD_CLIENT_REPLICA) {
        return; /* Redis ignores a second SYNC */
    }
    if (h->repl_sync == NULL) {
        cmd_reply_err(c, "ERR replication is not available on this server");
        return;
    }
    if (c->out->len != 0) {
        /* Replies still unsent would land inside the RDB transfer. */
        cmd_reply_err(c, "ERR SYNC and PSYNC are invalid with pending output");
        return;
    }
    if (psync) {
        if (cmd_ll_or_reply(c, 2, &offset, NULL) != 0) {
            return;
        }
        snprintf(replid, sizeof(replid), "%.*s", (int)c->argv[1].len,
                 (const char *)c->argv[1].p);
    }
    r = h->repl_sync(h->srv, c->cl, replid, offset, psync, id);
    if (r == CMD_REPL_FAILED) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (r == CMD_REPL_IGNORED) {
        return;
    }
    /* From here on only the stream reaches it: its own replies are dropped (REPLCONF ACK
     * has none), the "+CONTINUE" line is sent as a push, which survives that. */
    c->cl->flags |= CMD_CLIENT_REPLICA | CMD_CLIENT_REPLY_OFF;
    if (r == CMD_REPL_CONTINUE) {
        char line[64];
        snprintf(line, sizeof(line), "CONTINUE %s", id);
        cmd_push_begin(c);
        resp_write_simple(c->out, line);
        cmd_push_end(c);
    }
}

static void cmd_sync(struct cmd_call *c)
{
    sync_generic(c, 0);
}

static void cmd_psync(struct cmd_call *c)
{
    sync_generic(c, 1);
}

/* REPLCONF <option> <value> [<option> <value> ...] */
static void cmd_replconf(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;

    if (c->argc % 2 == 0) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    for (size_t i = 1; i < c->argc; i += 2) {
        long long v;
        if (cmd_arg_is(c, i, "listening-port")) {
            if (cmd_ll_or_reply(c, i + 1, &v, NULL) != 0) {
                return;
            }
            if (h->repl_conf != NULL) {
                h->repl_conf(h->srv, c->cl, CMD_REPLCONF_PORT, v, NULL);
            }
        } else if (cmd_arg_is(c, i, "ip-address")) {
            char ip[64];
            if (c->argv[i + 1].len >= 46) {
                resp_write_errorf(c->out,
                                  "ERR REPLCONF ip-address provided by replica instance is too "
                                  "long: %zu bytes",
                                  c->argv[i + 1].len);
                return;
            }
            snprintf(ip, sizeof(ip), "%.*s", (int)c->argv[i + 1].len,
                     (const char *)c->argv[i + 1].p);
            if (h->repl_conf != NULL) {
                h->repl_conf(h->srv, c->cl, CMD_REPLCONF_IP, 0, ip);
            }
        } else if (cmd_arg_is(c, i, "getack")) {
            /* The master asks for the offset this replica processed (sent after the command,
             * by server/: the link's output is not this reply's). Nothing is replied. */
            if ((c->cl->flags & CMD_CLIENT_MASTER) && h->repl_conf != NULL) {
                h->repl_conf(h->srv, c->cl, CMD_REPLCONF_GETACK, 0, NULL);
            }
            return;
        } else if (cmd_arg_is(c, i, "capa") || cmd_arg_is(c, i, "rdb-only")) {
            /* Capabilities: terse sends the RDB as a sized bulk, which every replica reads. */
        } else if (cmd_arg_is(c, i, "ack")) {
            /* A replica's acknowledgement: recorded, never answered. */
            if (!(c->cl->flags & CMD_CLIENT_REPLICA) ||
                !cmd_parse_ll(c->argv[i + 1].p, c->argv[i + 1].len, &v)) {
                return;
            }
            if (h->repl_conf != NULL) {
                h->repl_conf(h->srv, c->cl, CMD_REPLCONF_ACK, v, NULL);
            }
            return;
        } else {
            resp_write_errorf(c->out, "ERR Unrecognized REPLCONF option: %.*s",
                              (int)c->argv[i].len, (const char *)c->argv[i].p);
            return;
        }
    }
    resp_write_ok(c->out);
}

struct role_acc {
    struct cmd_call *c;
    size_t n;
};

static void role_replica(void *arg, const struct cmd_repl_replica *r)
{
    struct role_acc *a = arg;
    char num[32];
    int n;

    if (strcmp(r->state, "online") != 0) {
        return;
    }
    resp_write_array(a->c->out, 3);
    resp_write_bulk(a->c->out, r->ip, strlen(r->ip));
    n = snprintf(num, sizeof(num), "%d", r->port);
    resp_write_bulk(a->c->out, num, (size_t)n);
    n = snprintf(num, sizeof(num), "%llu", (unsigned long long)r->offset);
    resp_write_bulk(a->c->out, num, (size_t)n);
}

static void count_online(void *arg, const struct cmd_repl_replica *r)
{
    struct role_acc *a = arg;

    a->n += strcmp(r->state, "online") == 0;
}

/* ROLE: terse is a master; its online replicas with their address and acknowledged offset. */
static void cmd_role(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    struct cmd_repl_info info;
    struct role_acc acc = {c, 0};

    memset(&info, 0, sizeof(info));
    if (h->repl_info != NULL) {
        h->repl_info(h->srv, &info, count_online, &acc);
    }
    if (info.replica) {
        resp_write_array(c->out, 5);
        resp_write_bulk(c->out, "slave", 5);
        resp_write_bulk(c->out, info.master_host, strlen(info.master_host));
        resp_write_int(c->out, info.master_port);
        resp_write_bulk(c->out, info.link_state, strlen(info.link_state));
        resp_write_int(c->out, info.slave_offset);
        return;
    }
    resp_write_array(c->out, 3);
    resp_write_bulk(c->out, "master", 6);
    resp_write_int(c->out, (long long)info.offset);
    resp_write_array(c->out, acc.n);
    if (h->repl_info != NULL && acc.n > 0) {
        h->repl_info(h->srv, &info, role_replica, &acc);
    }
}

/* WAIT numreplicas timeout: blocks until that many replicas acknowledged the client's last
 * write (its woff), or timeout ms passed (0: for ever); replies how many did. Inside EXEC it
 * answers at once. */
static void cmd_wait(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    long long num, timeout, acked;

    if (cmd_ll_or_reply(c, 1, &num, NULL) != 0 ||
        cmd_ll_or_reply(c, 2, &timeout, "ERR timeout is not an integer or out of range") != 0) {
        return;
    }
    if (timeout < 0) {
        cmd_reply_err(c, "ERR timeout is negative");
        return;
    }
    acked = cmd_block_acked(c->srv, c->cl);
    if (acked >= num || (c->mode & CMD_CALL_EXEC)) {
        resp_write_int(c->out, acked);
        return;
    }
    if (cmd_block(c, 1, 0, 1, timeout) == 0) {
        resp_write_int(c->out, acked); /* a server that cannot block */
    } else if (!(c->mode & CMD_CALL_RETRY) && h->repl_getack != NULL) {
        h->repl_getack(h->srv);
    }
}

/* REPLICAOF host port | NO ONE (SLAVEOF is its old name). */
static void cmd_replicaof(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    char host[256];
    long long port;
    int r;

    if (h->repl_replicaof == NULL) {
        cmd_reply_err(c, "ERR replication is not available on this server");
        return;
    }
    if (cmd_arg_is(c, 1, "no") && cmd_arg_is(c, 2, "one")) {
        (void)h->repl_replicaof(h->srv, NULL, 0);
        resp_write_ok(c->out);
        return;
    }
    if (c->cl->flags & CMD_CLIENT_REPLICA) {
        cmd_reply_err(c, "ERR Command is not valid when client is a replica.");
        return;
    }
    if (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, &port) || port < 0 || port > 65535) {
        cmd_reply_err(c, "ERR Invalid master port");
        return;
    }
    snprintf(host, sizeof(host), "%.*s", (int)c->argv[1].len, (const char *)c->argv[1].p);
    r = h->repl_replicaof(h->srv, host, (int)port);
    resp_write_simple(c->out, r == 1 ? "OK Already connected to specified master" : "OK");
}

int cmd_repl_is_replconf(const struct cmd_def *d)
{
    return d->proc == cmd_replconf;
}


#define REPL_ADMIN (CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI)

const struct cmd_def cmd_repl_defs[] = {
    {"psync", -3, REPL_ADMIN, 0, 0, 0, cmd_psync, "@admin @slow @dangerous",
     "Internal command used for replication", "2.8.0", "server", NULL},
    {"replconf", -1,
     CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, 0, 0, 0,
     cmd_replconf, "@admin @slow @dangerous",
     "An internal command for configuring the replication stream", "3.0.0", "server", NULL},
    {"replicaof", 3, CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, 0, 0, 0,
     cmd_replicaof, "@admin @slow @dangerous",
     "Make the server a replica of another instance, or promote it as master.", "5.0.0",
     "server", NULL},
    {"role", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, cmd_role,
     "@admin @fast @dangerous", "Return the role of the instance in the context of replication",
     "2.8.12", "server", NULL},
    {"slaveof", 3, CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, 0, 0, 0,
     cmd_replicaof, "@admin @slow @dangerous",
     "Make the server a replica of another instance, or promote it as master. Deprecated "
     "starting with Redis 5. Use REPLICAOF instead.",
     "1.0.0", "server", NULL},
    {"sync", 1, REPL_ADMIN, 0, 0, 0, cmd_sync, "@admin @slow @dangerous",
     "Internal command used for replication", "1.0.0", "server", NULL},
    {"wait", 3, CMD_NOSCRIPT | CMD_WAITS_REPLICAS, 0, 0, 0, cmd_wait, "@slow @connection",
     "Wait for the synchronous replication of all the write commands sent in the context of "
     "the current connection",
     "3.0.0", "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
