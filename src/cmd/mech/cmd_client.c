/*
 * cmd_client: the CLIENT family (ID, SETNAME, GETNAME, LIST, INFO, KILL, NO-EVICT, REPLY,
 * UNBLOCK, HELP), with Redis 7.0's replies and errors. CLIENT LIST and INFO print Redis's
 * fields; the ones terse has no counterpart for (argv-mem, rbs...) print what terse holds or 0.
 */
#include "cmd/mech/cmd_client.h"

#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_multi.h"
#include "cmd/mech/cmd_pubsub.h"
#include "cmd/mech/cmd_records.h"
#include "terse/status.h"
#include "cmd/mech/cmd_keyreg.h"
#include "cmd/core/cmd_table.h"

/* Valid client name: printable ASCII without spaces. Replies the error when invalid. */
int cmd_client_set_name_or_reply(struct cmd_call *c, const struct resp_slice *name)
{
    char *copy;

    for (size_t i = 0; i < name->len; i++) {
        if (name->p[i] < '!' || name->p[i] > '~') {
            cmd_reply_err(c, "ERR Client names cannot contain spaces, newlines or special "
                             "characters.");
            return -1;
        }
    }
    copy = NULL;
    if (name->len > 0) {
        copy = c->srv->alloc.alloc(c->srv->alloc.opaque, name->len + 1);
        if (copy == NULL) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
        memcpy(copy, name->p, name->len);
        copy[name->len] = '\0';
    }
    c->srv->alloc.free(c->srv->alloc.opaque, c->cl->name);
    c->cl->name = copy;
    return 0;
}

static void cmd_client_id(struct cmd_call *c)
{
    resp_write_int(c->out, (long long)c->cl->id);
}

static void cmd_client_setname(struct cmd_call *c)
{
    if (cmd_client_set_name_or_reply(c, &c->argv[2]) == 0) {
        resp_write_ok(c->out);
    }
}

static void cmd_client_getname(struct cmd_call *c)
{
    if (c->cl->name == NULL) {
        resp_write_null(c->out);
    } else {
        resp_write_cstr(c->out, c->cl->name);
    }
}

/* One CLIENT LIST line, as Redis 7.0 formats it, ending in '\n'. Returns its length. */
static size_t client_line(struct cmd_call *c, const struct cmd_client *cl, char *buf, size_t cap)
{
    size_t qbuf = 0, qfree = 0, obuf = 0, omem = 0;
    size_t n_sub = 0, n_psub = 0, n_ssub = 0;
    int n;
    char flags[8];
    size_t fl = 0;

    if (c->srv->hooks.client_io != NULL) {
        c->srv->hooks.client_io(c->srv->hooks.srv, cl, &qbuf, &qfree, &obuf, &omem);
    }
    for (const struct cmd_keyreg_key *k = cl->subs; k != NULL; k = k->client_next) {
        n_sub++;
    }
    for (const struct cmd_keyreg_key *k = cl->psubs; k != NULL; k = k->client_next) {
        n_psub++;
    }
    for (const struct cmd_keyreg_key *k = cl->ssubs; k != NULL; k = k->client_next) {
        n_ssub++;
    }
    if (cmd_pubsub_any(cl)) {
        flags[fl++] = 'P';
    }
    if (cl->flags & CMD_CLIENT_BLOCKED) {
        flags[fl++] = 'b';
    }
    if (cl->flags & CMD_CLIENT_REPLICA) {
        flags[fl++] = 'S';
    }
    if (cl->flags & CMD_CLIENT_MASTER) {
        flags[fl++] = 'M';
    }
    if (cl->flags & CMD_CLIENT_MULTI) {
        flags[fl++] = 'x';
    }
    if (cl->flags & CMD_CLIENT_DIRTY_CAS) {
        flags[fl++] = 'd';
    }
    if (cl->flags & CMD_CLIENT_NO_EVICT) {
        flags[fl++] = 'e';
    }
    if (cl->flags & (CMD_CLIENT_CLOSE_ASAP | CMD_CLIENT_CLOSE_AFTER_REPLY)) {
        flags[fl++] = 'c';
    }
    if (fl == 0) {
        flags[fl++] = 'N';
    }
    flags[fl] = '\0';
    n = snprintf(buf, cap,
                 "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
                 "sub=%zu psub=%zu ssub=%zu multi=%lld qbuf=%zu qbuf-free=%zu argv-mem=0 multi-mem=%zu "
                 "rbs=%zu rbp=0 obl=%zu oll=0 omem=%zu tot-mem=%zu events=r cmd=%s user=default "
                 "redir=-1 resp=%d\n",
                 (unsigned long long)cl->id, cl->addr, cl->laddr, cl->fd,
                 cl->name != NULL ? cl->name : "", (long long)((c->now_ms - cl->ctime_ms) / 1000),
                 (long long)((c->now_ms - cl->last_ms) / 1000), flags, cl->db,
                 n_sub, n_psub, n_ssub, (cl->flags & CMD_CLIENT_MULTI) ? (long long)cl->mq.n : -1LL, qbuf, qfree,
                 cmd_records_mem(&cl->mq),
                 qbuf + qfree, obuf, omem, qbuf + qfree + omem,
                 cl->last_cmd != NULL ? cl->last_cmd : "NULL", cl->resp);
    if (n < 0) {
        return 0;
    }
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* Whether cl is selected by CLIENT LIST's ID filter (argv[3..]); all when there is none. */
static int id_selected(const struct cmd_call *c, const struct cmd_client *cl)
{
    if (c->argc < 4) {
        return 1;
    }
    for (size_t i = 3; i < c->argc; i++) {
        long long id;
        if (cmd_parse_ll(c->argv[i].p, c->argv[i].len, &id) && (unsigned long long)id == cl->id) {
            return 1;
        }
    }
    return 0;
}

/* A client type of CLIENT LIST and CLIENT KILL at argv[i]: CLIENT_TYPE_*, or -1 after
 * replying the error. */
enum {
    CLIENT_TYPE_ANY = -2,
    CLIENT_TYPE_NORMAL = 0,
    CLIENT_TYPE_PUBSUB,
    CLIENT_TYPE_REPLICA,
    CLIENT_TYPE_MASTER
};

static int client_type_or_reply(struct cmd_call *c, size_t i)
{
    if (cmd_arg_is(c, i, "normal")) {
        return CLIENT_TYPE_NORMAL;
    }
    if (cmd_arg_is(c, i, "pubsub")) {
        return CLIENT_TYPE_PUBSUB;
    }
    if (cmd_arg_is(c, i, "replica") || cmd_arg_is(c, i, "slave")) {
        return CLIENT_TYPE_REPLICA;
    }
    if (cmd_arg_is(c, i, "master")) {
        return CLIENT_TYPE_MASTER; /* the link to this replica's master */
    }
    resp_write_errorf(c->out, "ERR Unknown client type '%.*s'",
                      c->argv[i].len > 128 ? 128 : (int)c->argv[i].len,
                      (const char *)c->argv[i].p);
    return -1;
}

/* Whether cl is of type (CLIENT_TYPE_ANY: every client is). */
static int type_ok(const struct cmd_client *cl, int type)
{
    switch (type) {
    case CLIENT_TYPE_ANY:
        return 1;
    case CLIENT_TYPE_NORMAL:
        return !cmd_pubsub_any(cl) && !(cl->flags & (CMD_CLIENT_REPLICA | CMD_CLIENT_MASTER));
    case CLIENT_TYPE_PUBSUB:
        return cmd_pubsub_any(cl);
    case CLIENT_TYPE_REPLICA:
        return (cl->flags & CMD_CLIENT_REPLICA) != 0;
    case CLIENT_TYPE_MASTER:
        return (cl->flags & CMD_CLIENT_MASTER) != 0;
    default:
        return 0;
    }
}

static void cmd_client_list(struct cmd_call *c)
{
    char line[1024];
    size_t total = 0, n = 0;
    int by_id = 0, type = CLIENT_TYPE_ANY;

    if (c->argc == 4 && cmd_arg_is(c, 2, "type")) {
        type = client_type_or_reply(c, 3);
        if (type < 0) {
            return;
        }
    } else if (c->argc >= 4 && cmd_arg_is(c, 2, "id")) {
        by_id = 1;
        for (size_t i = 3; i < c->argc; i++) {
            long long id;
            if (!cmd_parse_ll(c->argv[i].p, c->argv[i].len, &id) || id <= 0) {
                cmd_reply_err(c, "ERR Invalid client ID");
                return;
            }
        }
    } else if (c->argc != 2) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    /* Two passes over the clients: size first, then the lines into scratch. */
    for (const struct cmd_client *cl = c->srv->clients; cl != NULL; cl = cl->next) {
        if ((!by_id || id_selected(c, cl)) && type_ok(cl, type)) {
            total += client_line(c, cl, line, sizeof(line));
        }
    }
    if (cmd_scratch_reserve(c->srv, total + 1) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    for (const struct cmd_client *cl = c->srv->clients; cl != NULL; cl = cl->next) {
        if ((!by_id || id_selected(c, cl)) && type_ok(cl, type)) {
            size_t k = client_line(c, cl, line, sizeof(line));
            if (n + k > total) {
                k = total - n;
            }
            memcpy(c->srv->scratch + n, line, k);
            n += k;
        }
    }
    resp_write_verbatim(c->out, "txt", c->srv->scratch, n);
}

static void cmd_client_info(struct cmd_call *c)
{
    char line[1024];
    size_t n = client_line(c, c->cl, line, sizeof(line));

    resp_write_verbatim(c->out, "txt", line, n);
}

static void cmd_client_no_evict(struct cmd_call *c)
{
    if (cmd_arg_is(c, 2, "on")) {
        c->cl->flags |= CMD_CLIENT_NO_EVICT;
    } else if (cmd_arg_is(c, 2, "off")) {
        c->cl->flags &= ~(unsigned)CMD_CLIENT_NO_EVICT;
    } else {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    resp_write_ok(c->out);
}

/* CLIENT REPLY ON|OFF|SKIP: OFF and SKIP reply nothing themselves (cmd_dispatch drops the
 * replies of a silenced client). */
static void cmd_client_reply(struct cmd_call *c)
{
    if (cmd_arg_is(c, 2, "on")) {
        c->cl->flags &= ~(unsigned)(CMD_CLIENT_REPLY_OFF | CMD_CLIENT_REPLY_SKIP);
        resp_write_ok(c->out);
    } else if (cmd_arg_is(c, 2, "off")) {
        c->cl->flags |= CMD_CLIENT_REPLY_OFF;
    } else if (cmd_arg_is(c, 2, "skip")) {
        if (!(c->cl->flags & CMD_CLIENT_REPLY_OFF)) {
            c->cl->flags |= CMD_CLIENT_REPLY_SKIP_NEXT;
        }
    } else {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
    }
}

/* CLIENT UNBLOCK client-id [TIMEOUT|ERROR] */
static void cmd_client_unblock(struct cmd_call *c)
{
    long long id;
    int with_error = 0;

    if (c->argc > 4) {
        cmd_reply_err(c, "ERR unknown subcommand or wrong number of arguments for 'unblock'. "
                         "Try CLIENT HELP.");
        return;
    }
    if (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, &id)) {
        cmd_reply_err(c, CMD_ERR_NOT_INT);
        return;
    }
    if (c->argc == 4) {
        if (cmd_arg_is(c, 3, "error")) {
            with_error = 1;
        } else if (!cmd_arg_is(c, 3, "timeout")) {
            cmd_reply_err(c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    for (struct cmd_client *cl = c->srv->clients; cl != NULL; cl = cl->next) {
        if ((long long)cl->id == id) {
            resp_write_int(c->out, cmd_block_unblock(c->srv, cl, with_error));
            return;
        }
    }
    resp_write_int(c->out, 0);
}

static void kill_client(struct cmd_call *c, struct cmd_client *cl)
{
    cmd_block_end(c->srv, cl); /* a killed client takes nothing pushed before it is gone */
    if (cl == c->cl) {
        cl->flags |= CMD_CLIENT_CLOSE_AFTER_REPLY;
    } else {
        cl->flags |= CMD_CLIENT_CLOSE_ASAP;
    }
}

static void cmd_client_kill(struct cmd_call *c)
{
    long long id = 0;
    const struct resp_slice *addr = NULL, *laddr = NULL;
    int skipme = 1, type = CLIENT_TYPE_ANY;
    long long killed = 0;

    if (c->argc == 3) {
        /* Old form: CLIENT KILL ip:port. */
        for (struct cmd_client *cl = c->srv->clients; cl != NULL; cl = cl->next) {
            if (cmd_slice_eq(&c->argv[2], cl->addr)) {
                kill_client(c, cl);
                resp_write_ok(c->out);
                return;
            }
        }
        cmd_reply_err(c, "ERR No such client");
        return;
    }
    for (size_t i = 2; i < c->argc; i += 2) {
        if (i + 1 >= c->argc) {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
        if (cmd_arg_is(c, i, "id")) {
            if (!cmd_parse_ll(c->argv[i + 1].p, c->argv[i + 1].len, &id) || id <= 0) {
                cmd_reply_err(c, "ERR client-id should be greater than 0");
                return;
            }
        } else if (cmd_arg_is(c, i, "addr")) {
            addr = &c->argv[i + 1];
        } else if (cmd_arg_is(c, i, "laddr")) {
            laddr = &c->argv[i + 1];
        } else if (cmd_arg_is(c, i, "skipme")) {
            if (cmd_arg_is(c, i + 1, "yes")) {
                skipme = 1;
            } else if (cmd_arg_is(c, i + 1, "no")) {
                skipme = 0;
            } else {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return;
            }
        } else if (cmd_arg_is(c, i, "type")) {
            type = client_type_or_reply(c, i + 1);
            if (type < 0) {
                return;
            }
        } else if (cmd_arg_is(c, i, "user")) {
            if (!cmd_slice_eq(&c->argv[i + 1], "default")) {
                int n = c->argv[i + 1].len > 128 ? 128 : (int)c->argv[i + 1].len;
                resp_write_errorf(c->out, "ERR No such user '%.*s'", n,
                                  (const char *)c->argv[i + 1].p);
                return;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    for (struct cmd_client *cl = c->srv->clients; cl != NULL; cl = cl->next) {
        if (id != 0 && cl->id != (unsigned long long)id) {
            continue;
        }
        if (!type_ok(cl, type)) {
            continue;
        }
        if (addr != NULL && !cmd_slice_eq(addr, cl->addr)) {
            continue;
        }
        if (laddr != NULL && !cmd_slice_eq(laddr, cl->laddr)) {
            continue;
        }
        if (skipme && cl == c->cl) {
            continue;
        }
        kill_client(c, cl);
        killed++;
    }
    resp_write_int(c->out, killed);
}

static void cmd_client_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "    * ID <client-id>",
        "      Kill connections by client id.",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "HELP",
        "    Print this help.",
        NULL};
    cmd_reply_help(c, lines);
}

#define CONN_FLAGS (CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)

static const struct cmd_def client_subcmds[] = {
    {"client|getname", 2, CONN_FLAGS, 0, 0, 0, cmd_client_getname, "@slow @connection",
     "Returns the name of the connection.", "2.6.9", "connection", NULL},
    {"client|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_client_help, "@slow @connection",
     "Returns helpful text about the different subcommands.", "5.0.0", "connection", NULL},
    {"client|id", 2, CONN_FLAGS, 0, 0, 0, cmd_client_id, "@slow @connection",
     "Returns the unique client ID of the connection.", "5.0.0", "connection", NULL},
    {"client|info", 2, CONN_FLAGS, 0, 0, 0, cmd_client_info, "@slow @connection",
     "Returns information about the connection.", "6.2.0", "connection", NULL},
    {"client|kill", -3, CMD_ADMIN | CONN_FLAGS, 0, 0, 0, cmd_client_kill,
     "@admin @slow @dangerous @connection", "Terminates open connections.", "2.4.0",
     "connection", NULL},
    {"client|list", -2, CMD_ADMIN | CONN_FLAGS, 0, 0, 0, cmd_client_list,
     "@admin @slow @dangerous @connection", "Lists open connections.", "2.4.0", "connection",
     NULL},
    {"client|no-evict", 3, CMD_ADMIN | CONN_FLAGS, 0, 0, 0, cmd_client_no_evict,
     "@admin @slow @dangerous @connection",
     "Sets the client eviction mode of the connection.", "7.0.0", "connection", NULL},
    {"client|reply", 3, CONN_FLAGS, 0, 0, 0, cmd_client_reply, "@slow @connection",
     "Instruct the server whether to reply to commands", "3.2.0", "connection", NULL},
    {"client|unblock", -3, CMD_ADMIN | CONN_FLAGS, 0, 0, 0, cmd_client_unblock,
     "@admin @slow @dangerous @connection",
     "Unblock a client blocked in a blocking command from a different connection", "5.0.0",
     "connection", NULL},
    {"client|setname", 3, CONN_FLAGS, 0, 0, 0, cmd_client_setname, "@slow @connection",
     "Sets the connection name.", "2.6.9", "connection", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

const struct cmd_def cmd_client_defs[] = {
    {"client", -2, 0, 0, 0, 0, NULL, "@slow", "A container for client connection commands.",
     "2.4.0", "connection", client_subcmds},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

/* ---- a client's command state, from connection to close -------------------------------- */

void cmd_client_init(struct cmd_server *srv, struct cmd_client *cl)
{
    memset(cl, 0, sizeof(*cl));
    cl->id = srv->next_client_id++;
    cl->resp = 2;
    cl->fd = -1;
    if (srv->settings.requirepass == NULL || srv->settings.requirepass[0] == '\0') {
        cl->flags |= CMD_CLIENT_AUTHED;
    }
    cl->next = srv->clients;
    if (srv->clients != NULL) {
        srv->clients->prev = cl;
    }
    srv->clients = cl;
}

void cmd_client_deinit(struct cmd_server *srv, struct cmd_client *cl)
{
    if (cl->prev != NULL) {
        cl->prev->next = cl->next;
    } else if (srv->clients == cl) {
        srv->clients = cl->next;
    }
    if (cl->next != NULL) {
        cl->next->prev = cl->prev;
    }
    cl->prev = cl->next = NULL;
    cmd_block_end(srv, cl);
    cmd_pubsub_client_free(srv, cl);
    cmd_multi_discard(srv, cl);
    cmd_records_free(srv, &cl->mq);
    cmd_records_free(srv, &cl->blk);
    srv->alloc.free(srv->alloc.opaque, cl->name);
    cl->name = NULL;
}
