/*
 * srv_conn: clients. Accept, then per readable event:
 *
 *   read into conn.in -> parse commands in place (argv are slices of conn.in) -> dispatch each,
 *   replies appended to conn.out through a resp_out view -> write conn.out to the socket
 *
 * conn.in is neither compacted nor grown while its commands run, so argument slices stay
 * valid for the whole batch; conn.out is compacted before a batch so offsets a command keeps
 * (deferred lengths) stay valid while it grows. A protocol error replies, marks the client to
 * close after the reply and executes nothing of the bad command.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "server/aof/srv_aof.h"
#include "server/repl/srv_repl.h"
#include "server/repl/srv_replica.h"
#include "server/srv_conn.h"
#include "terse/status.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_client.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/mech/cmd_pubsub.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_util.h"

static void on_client_event(struct core_loop *loop, int fd, void *arg, unsigned events);

/* resp_out grow callback: grows conn.out without compacting it (see file comment). */
static int out_grow(void *owner, struct resp_out *o, size_t need)
{
    struct core_buf *b = owner;

    b->len = o->len;
    if (core_buf_reserve(b, need) != TERSE_OK) {
        return -1;
    }
    o->p = b->p;
    o->len = b->len;
    o->cap = b->cap;
    return 0;
}

static void *req_realloc(void *p, size_t n)
{
    return core_realloc(p, n);
}

struct srv_client *srv_client_new(struct srv *s, int fd, const char *addr, const char *laddr)
{
    struct srv_client *c = core_calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    net_conn_init(&c->conn, fd);
    net_keepalive(fd, (int)s->cfg.tcp_keepalive);
    resp_request_init(&c->req, req_realloc, core_free);
    cmd_client_init(&s->cmd, &c->cmd);
    c->srv = s;
    c->read_want = SRV_READ_CHUNK;
    c->cmd.fd = fd;
    c->cmd.ctime_ms = c->cmd.last_ms = core_time_unix_ms();
    snprintf(c->cmd.addr, sizeof(c->cmd.addr), "%s", addr);
    snprintf(c->cmd.laddr, sizeof(c->cmd.laddr), "%s", laddr);
    if (core_loop_add(s->loop, fd, CORE_EV_READ, on_client_event, c) != TERSE_OK) {
        cmd_client_deinit(&s->cmd, &c->cmd);
        resp_request_deinit(&c->req);
        c->conn.fd = -1; /* the caller closes fd */
        net_conn_deinit(&c->conn);
        core_free(c);
        return NULL;
    }
    s->n_clients++;
    return c;
}

/* Redis 7.0's answer to a client refused by protected mode, byte for byte. */
static const char denied_msg[] =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    "to do one of the above things in order for the server to start accepting connections from "
    "the outside.\r\n";

/* Best effort, as Redis's: the socket is new, so the text fits its send buffer. */
static void refuse(struct srv *s, int fd, const char *msg, size_t len)
{
    ssize_t w = send(fd, msg, len, MSG_NOSIGNAL);

    (void)w;
    close(fd);
    s->rejected_connections++;
}

/* Redis 7.0's rule (clientAcceptHandler): protected-mode yes and a default user without a
 * password refuse every client that is not local, whatever bind says. */
static int protected_refuses(const struct srv *s, const char *addr)
{
    return s->cfg.protected_mode && s->cfg.requirepass[0] == '\0' && !net_addr_is_local(addr);
}

static void listeners_arm(struct srv *s, unsigned mask)
{
    for (size_t i = 0; i < s->n_listen; i++) {
        core_loop_mod(s->loop, s->listen_fd[i], mask);
    }
}

/* accept() failed for the listener, not for one connection: the connection stays queued and
 * the listener stays readable, so under a level-triggered loop retrying now would spin. The
 * listeners rest for SRV_ACCEPT_PAUSE_MS (clients already connected are served meanwhile) and
 * the failure is logged once per SRV_ACCEPT_LOG_MS at most. */
static void accept_failed(struct srv *s, int os_err)
{
    uint64_t now = core_time_mono_us();

    listeners_arm(s, 0);
    s->accept_resume_us = now + SRV_ACCEPT_PAUSE_MS * 1000ULL;
    if (s->accept_fail_logged_us != 0 &&
        now - s->accept_fail_logged_us < SRV_ACCEPT_LOG_MS * 1000ULL) {
        s->accept_fail_unlogged++;
        return;
    }
    if (s->accept_fail_unlogged > 0) {
        core_log(CORE_LOG_WARNING,
                 "Accepting client connection: accept: %s (%llu more failures since the last "
                 "report; accepting pauses %d ms after each)",
                 strerror(os_err), (unsigned long long)s->accept_fail_unlogged,
                 SRV_ACCEPT_PAUSE_MS);
    } else {
        core_log(CORE_LOG_WARNING, "Accepting client connection: accept: %s", strerror(os_err));
    }
    s->accept_fail_unlogged = 0;
    s->accept_fail_logged_us = now;
}

int srv_accept_poll_ms(const struct srv *s, int timeout_ms)
{
    uint64_t now, left_ms;

    if (s->accept_resume_us == 0) {
        return timeout_ms;
    }
    now = core_time_mono_us();
    left_ms = now >= s->accept_resume_us ? 0 : (s->accept_resume_us - now + 999) / 1000;
    return timeout_ms < 0 || (uint64_t)timeout_ms > left_ms ? (int)left_ms : timeout_ms;
}

void srv_accept_resume(struct srv *s)
{
    if (s->accept_resume_us != 0 && core_time_mono_us() >= s->accept_resume_us) {
        s->accept_resume_us = 0;
        listeners_arm(s, CORE_EV_READ);
    }
}

void srv_on_accept(struct core_loop *loop, int lfd, void *arg, unsigned events)
{
    static const char full_msg[] = "-ERR max number of clients reached\r\n";
    struct srv *s = arg;
    char addr[NET_ADDR_MAX], laddr[NET_ADDR_MAX];
    struct srv_client *c;
    int fd, st, os_err;

    (void)events;
    (void)loop; /* s->loop */
    for (int i = 0; i < 64; i++) {
        st = net_accept(lfd, &fd, addr, laddr, &os_err);
        if (st == TERSE_MORE) {
            return;
        }
        if (st != TERSE_OK) {
            accept_failed(s, os_err);
            return;
        }
        if (s->n_clients >= (uint64_t)s->cfg.maxclients) {
            refuse(s, fd, full_msg, sizeof(full_msg) - 1);
            continue;
        }
        if (protected_refuses(s, addr)) {
            /* Redis refuses it after creating its client, which takes an id. */
            s->cmd.next_client_id++;
            refuse(s, fd, denied_msg, sizeof(denied_msg) - 1);
            continue;
        }
        c = srv_client_new(s, fd, addr, laddr);
        if (c == NULL) {
            close(fd);
            s->rejected_connections++;
            continue;
        }
        s->total_connections++;
        core_log(CORE_LOG_VERBOSE, "Accepted %s", addr);
    }
}

void srv_client_close(struct srv *s, struct srv_client *c)
{
    if (c->scheduled) {
        struct srv_client **pp = &s->sched;
        while (*pp != c) {
            pp = &(*pp)->sched_next;
        }
        *pp = c->sched_next;
    }
    srv_repl_detach(s, c);
    srv_replica_client_gone(s, c);
    core_loop_del(s->loop, c->conn.fd);
    s->net_in += c->conn.n_in;
    s->net_out += c->conn.n_out;
    cmd_client_deinit(&s->cmd, &c->cmd);
    resp_request_deinit(&c->req);
    net_conn_deinit(&c->conn);
    core_free(c);
    s->n_clients--;
}

void srv_close_all_clients(struct srv *s)
{
    while (s->cmd.clients != NULL) {
        struct srv_client *c = srv_client_of(s->cmd.clients);
        /* Best effort: replies already produced go out before the socket closes. */
        net_conn_write(&c->conn);
        srv_client_close(s, c);
    }
}

/* Output buffer limits of the client's class, and SRV_UNAUTH_OBUF_MAX for a client that has
 * not authenticated while a password is required (Redis's authRequired: a client that
 * connected before requirepass was set counts as authenticated). Returns 1 when the client
 * must be closed. */
static int over_output_limit(struct srv *s, struct srv_client *c, int64_t now_ms)
{
    const struct core_config_obuf_class *k =
        &s->cfg.client_output_buffer_limit
             .cls[c->repl != NULL          ? CORE_CLIENT_REPLICA
                  : cmd_pubsub_any(&c->cmd) ? CORE_CLIENT_PUBSUB
                                            : CORE_CLIENT_NORMAL];
    size_t used = core_buf_pending(&c->conn.out) + srv_repl_pending(c);

    if (k->hard_bytes != 0 && used >= k->hard_bytes) {
        return 1;
    }
    if (used > SRV_UNAUTH_OBUF_MAX && !(c->cmd.flags & CMD_CLIENT_AUTHED) &&
        s->cfg.requirepass[0] != '\0') {
        return 1;
    }
    if (k->soft_bytes != 0 && used >= k->soft_bytes) {
        if (c->soft_since_ms == 0) {
            c->soft_since_ms = now_ms;
        } else if (now_ms - c->soft_since_ms > k->soft_seconds * 1000) {
            return 1;
        }
    } else {
        c->soft_since_ms = 0;
    }
    return 0;
}

static void log_output_limit(struct srv_client *c)
{
    core_log(CORE_LOG_WARNING,
             "Client id=%llu addr=%s scheduled to be closed ASAP for overcoming of output "
             "buffer limits.",
             (unsigned long long)c->cmd.id, c->cmd.addr);
}

/* Sends what is pending and sets the write interest; a replica in a full sync gets the next
 * part of its RDB file each time its output drains. Returns 0, or -1 when c was closed. */
static int flush_client(struct srv *s, struct srv_client *c)
{
    int st, more;

    srv_aof_flush(s); /* the AOF holds a write before its reply goes out */
    do {
        more = c->repl != NULL ? srv_repl_pump(s, c) : 0;
        if (more < 0) {
            srv_client_close(s, c);
            return -1;
        }
        st = net_conn_write(&c->conn);
    } while (more > 0 && st == TERSE_OK);
    if (st == TERSE_EIO) {
        srv_client_close(s, c);
        return -1;
    }
    if (st == TERSE_OK && (c->cmd.flags & CMD_CLIENT_CLOSE_AFTER_REPLY)) {
        srv_client_close(s, c);
        return -1;
    }
    if ((st == TERSE_MORE) != c->writing) {
        c->writing = st == TERSE_MORE;
        core_loop_mod(s->loop, c->conn.fd,
                      CORE_EV_READ | (c->writing ? (unsigned)CORE_EV_WRITE : 0u));
    }
    if (st == TERSE_OK && cmd_memory_near_limit(&s->cmd)) {
        /* At maxmemory, a buffer grown by a pipeline gives its room back once it is empty
         * (as Redis frees reply blocks once sent), not after SRV_IDLE_BUF_S of idleness. */
        core_buf_shrink(&c->conn.in, SRV_IDLE_BUF_KEEP);
        core_buf_shrink(&c->conn.out, SRV_IDLE_BUF_KEEP);
    }
    return 0;
}

/* Replies "-ERR <text>" to a protocol error and marks the client to close after it. */
static void protocol_error(struct srv_client *c, struct resp_out *o, const char *text)
{
    resp_write_errorf(o, "ERR %s", text);
    c->cmd.flags |= CMD_CLIENT_CLOSE_AFTER_REPLY;
    core_log(CORE_LOG_VERBOSE, "Protocol error (%s) from client: id=%llu addr=%s", text,
             (unsigned long long)c->cmd.id, c->cmd.addr);
}

/* Parses and runs every complete command in conn.in. Returns -1 if c must be closed now. */
static int process_input(struct srv *s, struct srv_client *c)
{
    struct resp_limits lim;
    struct resp_out o;
    int64_t now_ms;
    int rc = 0;

    lim.max_bulk_len = (long long)s->cfg.proto_max_bulk_len;
    lim.max_multibulk_len = RESP_MAX_MULTIBULK;
    core_buf_compact(&c->conn.out);
    o.p = c->conn.out.p;
    o.len = c->conn.out.len;
    o.cap = c->conn.out.cap;
    o.grow = out_grow;
    o.owner = &c->conn.out;
    o.proto = c->cmd.resp;
    o.err = 0;
    o.on_error = cmd_count_error;
    o.err_arg = &s->cmd;
    c->cmd.out = &o;

    while (core_buf_pending(&c->conn.in) > 0 &&
           !(c->cmd.flags &
             (CMD_CLIENT_CLOSE_AFTER_REPLY | CMD_CLIENT_CLOSE_ASAP | CMD_CLIENT_BLOCKED))) {
        size_t used = 0;
        lim.unauthenticated = !(c->cmd.flags & CMD_CLIENT_AUTHED);
        int st = resp_parse_request(&c->req, c->conn.in.p + c->conn.in.off,
                                    core_buf_pending(&c->conn.in), &lim, &used);
        if (st == TERSE_MORE) {
            if (core_buf_pending(&c->conn.in) > s->cfg.client_query_buffer_limit) {
                core_log(CORE_LOG_WARNING,
                         "Closing client that reached max query buffer length: id=%llu "
                         "addr=%s",
                         (unsigned long long)c->cmd.id, c->cmd.addr);
                rc = -1;
            }
            break;
        }
        if (st == TERSE_EPROTO) {
            protocol_error(c, &o, c->req.err);
            core_buf_consume(&c->conn.in, core_buf_pending(&c->conn.in));
            break;
        }
        if (st != TERSE_OK) {
            rc = -1;
            break;
        }
        if (c->req.argc > 0) {
            cmd_dispatch(&s->cmd, &c->cmd, c->req.argv, c->req.argc);
        }
        core_buf_consume(&c->conn.in, used);
        if (c->cmd.flags & CMD_CLIENT_MASTER) {
            srv_replica_processed(s, c, used); /* the master's stream offset */
        }
        if (o.err) {
            rc = -1;
            break;
        }
        c->conn.out.len = o.len;
        now_ms = c->cmd.last_ms;
        if (over_output_limit(s, c, now_ms)) {
            log_output_limit(c);
            rc = -1;
            break;
        }
    }
    c->conn.out.len = o.len;
    c->cmd.out = NULL;
    if (o.err) {
        rc = -1;
    }
    return rc;
}

static void on_client_event(struct core_loop *loop, int fd, void *arg, unsigned events)
{
    struct srv_client *c = arg;
    struct srv *s = c->srv;

    (void)loop;
    (void)fd;
    if (c->cmd.flags & CMD_CLIENT_PROTECTED) {
        return; /* its script runs (srv_busy_events): nothing is read, nothing closed */
    }
    if (events & CORE_EV_READ) {
        size_t want = c->read_want, got = 0, pend = core_buf_pending(&c->conn.in);
        int st;

        if (c->req.need > pend && c->req.need - pend > want) {
            want = c->req.need - pend;
            if (want > SRV_READ_BIG_MAX) {
                want = SRV_READ_BIG_MAX;
            }
        }
        st = net_conn_read(&c->conn, want, &got);
        if (st == TERSE_EIO || st == TERSE_ENOMEM) {
            srv_client_close(s, c);
            return;
        }
        if ((c->cmd.flags & CMD_CLIENT_BLOCKED) &&
            core_buf_pending(&c->conn.in) > s->cfg.client_query_buffer_limit) {
            /* Nothing is parsed while it waits: the limit is checked here instead. */
            core_log(CORE_LOG_WARNING,
                     "Closing client that reached max query buffer length: id=%llu addr=%s",
                     (unsigned long long)c->cmd.id, c->cmd.addr);
            srv_client_close(s, c);
            return;
        }
        if (got == want && want == c->read_want && c->read_want < SRV_READ_STREAM) {
            c->read_want *= 2;
        } else if (got < SRV_READ_CHUNK / 2) {
            c->read_want = SRV_READ_CHUNK;
        }
        if (st == TERSE_OK) {
            c->cmd.last_ms = core_time_unix_ms();
            if (process_input(s, c) != 0) {
                srv_client_close(s, c);
                return;
            }
        }
    }
    if (c->cmd.flags & CMD_CLIENT_CLOSE_ASAP) {
        srv_client_close(s, c);
        return;
    }
    flush_client(s, c);
}

void srv_clients_sweep(struct srv *s, int64_t now_ms)
{
    struct cmd_client *cl = s->cmd.clients;

    while (cl != NULL) {
        struct cmd_client *next = cl->next;
        struct srv_client *c = srv_client_of(cl);

        if (cl->flags & CMD_CLIENT_CLOSE_ASAP) {
            srv_client_close(s, c);
        } else if (over_output_limit(s, c, now_ms)) {
            log_output_limit(c);
            srv_client_close(s, c);
        } else if (s->cfg.timeout > 0 &&
                   !(cl->flags & (CMD_CLIENT_REPLICA | CMD_CLIENT_MASTER)) &&
                   now_ms - cl->last_ms > s->cfg.timeout * 1000 &&
                   core_buf_pending(&c->conn.out) == 0) {
            core_log(CORE_LOG_VERBOSE, "Closing idle client");
            srv_client_close(s, c);
        } else if (now_ms - cl->last_ms > SRV_IDLE_BUF_S * 1000) {
            core_buf_shrink(&c->conn.in, SRV_IDLE_BUF_KEEP);
            core_buf_shrink(&c->conn.out, SRV_IDLE_BUF_KEEP);
        }
        cl = next;
    }
}

int srv_busy_events(void *srv)
{
    struct srv *s = srv;

    core_loop_poll(s->loop, 0);
    return s->stop;
}

/* ---- replies outside a client's own commands (blocked clients) ---------------------------- */

struct resp_out *srv_client_out(void *srv, struct cmd_client *cl)
{
    struct srv_client *c = srv_client_of(cl);

    core_buf_compact(&c->conn.out);
    c->bout.p = c->conn.out.p;
    c->bout.len = c->conn.out.len;
    c->bout.cap = c->conn.out.cap;
    c->bout.grow = out_grow;
    c->bout.owner = &c->conn.out;
    c->bout.proto = cl->resp;
    c->bout.err = 0;
    c->bout.on_error = cmd_count_error;
    c->bout.err_arg = &((struct srv *)srv)->cmd;
    return &c->bout;
}

void srv_client_out_done(void *srv, struct cmd_client *cl)
{
    struct srv *s = srv;
    struct srv_client *c = srv_client_of(cl);

    c->conn.out.len = c->bout.len;
    if (c->bout.err) {
        cl->flags |= CMD_CLIENT_CLOSE_ASAP;
    }
    if (!c->scheduled) {
        c->scheduled = 1;
        c->sched_next = s->sched;
        s->sched = c;
    }
}

void srv_clients_resume(struct srv *s)
{
    int64_t now = core_time_unix_ms();

    cmd_block_timeouts(&s->cmd, now);
    cmd_block_serve(&s->cmd);
    while (s->sched != NULL) {
        struct srv_client *c = s->sched;

        s->sched = c->sched_next;
        c->scheduled = 0;
        if (c->cmd.flags & CMD_CLIENT_CLOSE_ASAP) {
            srv_client_close(s, c);
            continue;
        }
        /* Commands it pipelined behind the blocking one run now (they may block it again,
         * or serve others, which schedules them in turn). */
        if (!(c->cmd.flags & CMD_CLIENT_BLOCKED) && core_buf_pending(&c->conn.in) > 0) {
            c->cmd.last_ms = now;
            if (process_input(s, c) != 0) {
                srv_client_close(s, c);
                continue;
            }
        }
        if ((c->cmd.flags & CMD_CLIENT_CLOSE_ASAP) || over_output_limit(s, c, now)) {
            if (!(c->cmd.flags & CMD_CLIENT_CLOSE_ASAP)) {
                log_output_limit(c); /* a subscriber that does not read its messages */
            }
            srv_client_close(s, c);
            continue;
        }
        (void)flush_client(s, c);
    }
}
