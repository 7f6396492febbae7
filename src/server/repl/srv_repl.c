/*
 * srv_repl: the master side of Redis replication. A replica (a redis-server with replicaof
 * pointing here, or any client that sends SYNC or PSYNC) gets a full resynchronisation: an RDB
 * file of the dataset written by a forked child (persist_rdb_save_fd), sent as one bulk
 * ("$<size>\r\n" then the bytes, Redis's disk-based sync), then the write feed (cmd_feed.c)
 * from the instant of the fork. PSYNC with this server's replid and an offset still in the
 * backlog continues instead ("+CONTINUE"): the missing bytes come from the backlog, a ring of
 * repl-backlog-size bytes of the feed kept while replicas are attached (and repl-backlog-ttl
 * seconds after the last one left).
 *
 * States of a replica (struct srv_repl_link):
 *   WAIT_START  attached, waiting for the next child (one child at a time, BGSAVE's included)
 *   WAIT_END    the child writes its RDB; "+FULLRESYNC <replid> <offset>" was sent (PSYNC)
 *   SEND_RDB    the file streams through the connection's output, a chunk at a time
 *   ONLINE      the feed goes straight to the connection's output
 * Until ONLINE, the feed collects in the link's own buffer (from the fork on: what came before
 * is in the RDB), moved behind the file once it is sent.
 *
 * Buffers: the backlog is owned by struct srv_repl (core_alloc), each link's buffer by its
 * link; both freed here. Replicas are bounded by client-output-buffer-limit's replica class
 * (their output plus the link's buffer) and closed past it, as Redis does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/admin/cmd_server.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "server/aof/srv_aof.h"
#include "server/repl/srv_repl.h"
#include "server/repl/srv_repl_child.h"
#include "server/repl/srv_replica.h"
#include "terse/status.h"

#define REPL_CHUNK (64 * 1024)     /* bytes of the RDB file read into the output per step */
#define REPL_NEWLINE_MS 1000       /* a waiting replica gets "\n" this often (keeps its link) */

static const char *state_name(enum srv_repl_state st)
{
    static const char *const names[] = {"wait_bgsave", "wait_bgsave", "send_bulk", "online"};

    return names[st];
}

/* ---- the backlog -------------------------------------------------------------------------- */

static void backlog_put(struct srv_repl *r, const uint8_t *p, size_t len)
{
    if (r->backlog == NULL) {
        return;
    }
    if (len >= r->backlog_cap) { /* only the tail fits */
        p += len - r->backlog_cap;
        len = r->backlog_cap;
    }
    while (len > 0) {
        size_t n = r->backlog_cap - r->backlog_idx;
        n = n < len ? n : len;
        memcpy(r->backlog + r->backlog_idx, p, n);
        r->backlog_idx = (r->backlog_idx + n) % r->backlog_cap;
        r->backlog_len = r->backlog_len + n > r->backlog_cap ? r->backlog_cap
                                                             : r->backlog_len + n;
        p += n;
        len -= n;
    }
}

static void backlog_create(struct srv *s)
{
    struct srv_repl *r = &s->repl;
    size_t cap = (size_t)s->cfg.repl_backlog_size;

    if (r->backlog != NULL) {
        return;
    }
    r->backlog = core_alloc(cap);
    if (r->backlog == NULL) {
        core_log(CORE_LOG_WARNING, "No memory for a replication backlog of %zu bytes", cap);
        return;
    }
    r->backlog_cap = cap;
    r->backlog_len = 0;
    r->backlog_idx = 0;
}

static void backlog_free(struct srv_repl *r)
{
    core_free(r->backlog);
    r->backlog = NULL;
    r->backlog_cap = r->backlog_len = r->backlog_idx = 0;
}

/* First offset the backlog holds (Redis's repl_backlog_first_byte_offset). */
static uint64_t backlog_first(const struct srv_repl *r)
{
    return r->offset - r->backlog_len + 1;
}

/* Appends to out the backlog's bytes from offset from on. TERSE_OK or TERSE_ENOMEM. */
static int backlog_copy(const struct srv_repl *r, uint64_t from, struct core_buf *out)
{
    size_t n = (size_t)(r->offset - from + 1);
    size_t pos = (r->backlog_idx + r->backlog_cap - n) % r->backlog_cap;

    while (n > 0) {
        size_t k = r->backlog_cap - pos < n ? r->backlog_cap - pos : n;
        if (core_buf_append(out, r->backlog + pos, k) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
        pos = (pos + k) % r->backlog_cap;
        n -= k;
    }
    return TERSE_OK;
}

/* ---- replicas ----------------------------------------------------------------------------- */

void srv_repl_schedule(struct srv *s, struct srv_client *c)
{
    if (!c->scheduled) {
        c->scheduled = 1;
        c->sched_next = s->sched;
        s->sched = c;
    }
}

void srv_repl_detach(struct srv *s, struct srv_client *c)
{
    struct srv_repl *r = &s->repl;
    struct srv_repl_link *l = c->repl;
    struct srv_client **pp;

    if (l == NULL) {
        return;
    }
    for (pp = &r->replicas; *pp != NULL; pp = &(*pp)->repl->next) {
        if (*pp == c) {
            *pp = l->next;
            break;
        }
    }
    r->n_replicas--;
    if (l->rdb_fd >= 0) {
        close(l->rdb_fd);
    }
    core_buf_deinit(&l->wait);
    core_free(l);
    c->repl = NULL;
    core_log(CORE_LOG_NOTICE, "Connection with replica %s lost.", c->cmd.addr);
    if (r->n_replicas == 0) {
        r->no_replicas_since_ms = core_time_unix_ms();
        srv_feed_consumers_changed(s);
    }
}

/* Bytes a replica holds in the server (its output and the link's buffer). */
size_t srv_repl_pending(const struct srv_client *c)
{
    return c->repl == NULL ? 0 : core_buf_pending(&c->repl->wait);
}

void srv_repl_feed(struct srv *s, const uint8_t *p, size_t len)
{
    struct srv_repl *r = &s->repl;

    if (p == NULL) {
        /* Writes were lost: no replica can follow, and no backlog can continue one. */
        while (r->replicas != NULL) {
            r->replicas->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
            srv_repl_schedule(s, r->replicas);
            srv_repl_detach(s, r->replicas);
        }
        backlog_free(r);
        srv_feed_consumers_changed(s);
        cmd_server_id(&s->cmd, (long)getpid() ^ (long)r->offset, 1, r->replid);
        return;
    }
    backlog_put(r, p, len);
    r->offset += len;
    for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
        struct srv_repl_link *l = c->repl;
        struct core_buf *to = l->state == ONLINE ? &c->conn.out : &l->wait;

        if (l->state == WAIT_START) {
            continue; /* the RDB its child will write holds these writes */
        }
        if (core_buf_append(to, p, len) != TERSE_OK) {
            core_log(CORE_LOG_WARNING, "No memory for the feed of replica %s: closing it",
                     c->cmd.addr);
            c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
        }
        if (l->state == ONLINE) {
            srv_repl_schedule(s, c);
        }
    }
}

int srv_repl_sync(struct srv *s, struct srv_client *c, const char *replid, long long offset,
                  int psync)
{
    struct srv_repl *r = &s->repl;
    struct srv_repl_link *l;
    int cont;

    if (c->repl != NULL) {
        return CMD_REPL_IGNORED;
    }
    l = core_alloc(sizeof(*l));
    if (l == NULL) {
        return CMD_REPL_FAILED;
    }
    memset(l, 0, sizeof(*l));
    core_buf_init(&l->wait);
    l->rdb_fd = -1;
    l->port = c->repl_port;
    snprintf(l->ip, sizeof(l->ip), "%s", c->repl_ip[0] != '\0' ? c->repl_ip : c->cmd.addr);
    if (c->repl_ip[0] == '\0') {
        char *colon = strrchr(l->ip, ':');
        if (colon != NULL) {
            *colon = '\0';
        }
    }
    l->ack_ms = l->newline_ms = core_time_unix_ms();
    l->psync = psync;
    cont = psync && r->backlog != NULL && strcmp(replid, r->replid) == 0 &&
           offset >= (long long)backlog_first(r) && offset <= (long long)r->offset + 1;
    if (cont) {
        if (offset <= (long long)r->offset &&
            backlog_copy(r, (uint64_t)offset, &l->wait) != TERSE_OK) {
            core_buf_deinit(&l->wait);
            core_free(l);
            return CMD_REPL_FAILED;
        }
        l->state = SEND_RDB; /* nothing to send from a file: the next step puts it ONLINE */
        r->n_partial_ok++;
        core_log(CORE_LOG_NOTICE,
                 "Partial resynchronization request from %s accepted. Sending %lld bytes of "
                 "backlog starting from offset %lld.",
                 c->cmd.addr, (long long)r->offset - offset + 1, offset);
    } else {
        l->state = WAIT_START;
        r->n_full++;
        if (psync && strcmp(replid, "?") != 0) {
            r->n_partial_err++; /* it asked to continue and could not */
        }
        core_log(CORE_LOG_NOTICE, "Replica %s asks for synchronization", c->cmd.addr);
        if (psync) {
            core_log(CORE_LOG_NOTICE, "Full resync requested by replica %s", c->cmd.addr);
        }
    }
    c->repl = l;
    l->next = r->replicas;
    r->replicas = c;
    r->n_replicas++;
    backlog_create(s);
    srv_feed_consumers_changed(s);
    srv_repl_schedule(s, c);
    return cont ? CMD_REPL_CONTINUE : CMD_REPL_FULL;
}

void srv_repl_ack(struct srv *s, struct srv_client *c, long long offset)
{
    if (c->repl != NULL) {
        uint64_t off = offset > 0 ? (uint64_t)offset : 0;
        s->repl.acks_moved |= off > c->repl->ack_off;
        c->repl->ack_off = off;
        c->repl->ack_ms = core_time_unix_ms();
    }
}

/* ---- sending ------------------------------------------------------------------------------ */

int srv_repl_pump(struct srv *s, struct srv_client *c)
{
    struct srv_repl_link *l = c->repl;

    (void)s;
    while (l->state == SEND_RDB && core_buf_pending(&c->conn.out) < REPL_CHUNK) {
        if (l->rdb_left > 0) {
            size_t want = l->rdb_left < REPL_CHUNK ? (size_t)l->rdb_left : REPL_CHUNK;
            ssize_t n;

            if (core_buf_reserve(&c->conn.out, want) != TERSE_OK) {
                return -1;
            }
            do {
                n = read(l->rdb_fd, c->conn.out.p + c->conn.out.len, want);
            } while (n < 0 && errno == EINTR);
            if (n <= 0) {
                core_log(CORE_LOG_WARNING, "SYNC failed: reading the replication RDB: %s",
                         n < 0 ? strerror(errno) : "short file");
                return -1;
            }
            c->conn.out.len += (size_t)n;
            l->rdb_left -= (uint64_t)n;
            continue;
        }
        if (l->rdb_fd >= 0) {
            close(l->rdb_fd);
            l->rdb_fd = -1;
            core_log(CORE_LOG_NOTICE, "Synchronization with replica %s succeeded",
                     c->cmd.addr);
        }
        if (core_buf_pending(&l->wait) > 0 && /* an empty buffer's p is NULL */
            core_buf_append(&c->conn.out, l->wait.p + l->wait.off,
                            core_buf_pending(&l->wait)) != TERSE_OK) {
            return -1;
        }
        core_buf_deinit(&l->wait);
        core_buf_init(&l->wait);
        l->state = ONLINE;
        l->ack_ms = core_time_unix_ms();
    }
    return l->state == SEND_RDB ? 1 : 0;
}

/* ---- the loop's step ---------------------------------------------------------------------- */

void srv_repl_step(struct srv *s, int64_t now_ms)
{
    struct srv_repl *r = &s->repl;
    int waiting = 0;

    if (r->n_replicas == 0 && r->child_pid == 0 && r->backlog == NULL) {
        return;
    }
    if (now_ms == 0) {
        now_ms = core_time_unix_ms();
    }
    srv_repl_child_reap(s);
    if (r->backlog != NULL && r->backlog_cap != (size_t)s->cfg.repl_backlog_size) {
        backlog_free(r); /* CONFIG SET repl-backlog-size: a new, empty one */
        backlog_create(s);
    }
    for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
        struct srv_repl_link *l = c->repl;
        waiting |= l->state == WAIT_START;
        if (l->state == ONLINE && l->psync &&
            now_ms - l->ack_ms > s->cfg.repl_timeout * 1000) {
            /* A PSYNC replica acknowledges every second; SYNC ones never do. */
            core_log(CORE_LOG_WARNING, "Disconnecting timedout replica: %s", c->cmd.addr);
            c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
            srv_repl_schedule(s, c);
            continue;
        }
        if (l->state <= WAIT_END && now_ms - l->newline_ms >= REPL_NEWLINE_MS) {
            l->newline_ms = now_ms;
            (void)core_buf_append(&c->conn.out, "\n", 1); /* a replica's keepalive */
            srv_repl_schedule(s, c);
        }
    }
    if (waiting && !srv_child_busy(s)) {
        srv_repl_child_start(s);
    }
    if (r->acks_moved) {
        r->acks_moved = 0;
        cmd_block_wake_waits(&s->cmd); /* WAIT clients whose replicas caught up */
    }
    if (r->getack && r->n_replicas > 0) {
        /* A client waits in WAIT: ask every replica for its offset now, in the stream (as
         * Redis does), rather than at its next once-a-second acknowledgement. */
        static const char getack[] = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
        r->getack = 0;
        srv_repl_feed(s, (const uint8_t *)getack, sizeof(getack) - 1);
    }
    if (r->n_replicas > 0 && now_ms - r->last_ping_ms >= s->cfg.repl_ping_replica_period * 1000) {
        static const char ping[] = "*1\r\n$4\r\nPING\r\n";
        r->last_ping_ms = now_ms;
        /* Like Redis, the ping is part of the stream (it moves the offset). */
        srv_repl_feed(s, (const uint8_t *)ping, sizeof(ping) - 1);
    }
    if (r->n_replicas == 0 && r->backlog != NULL && s->cfg.repl_backlog_ttl > 0 &&
        now_ms - r->no_replicas_since_ms > s->cfg.repl_backlog_ttl * 1000) {
        backlog_free(r);
        srv_feed_consumers_changed(s);
        core_log(CORE_LOG_NOTICE, "Replication backlog freed after %lld seconds without "
                 "replicas.", (long long)s->cfg.repl_backlog_ttl);
    }
}

void srv_repl_init(struct srv *s)
{
    memset(&s->repl, 0, sizeof(s->repl));
    cmd_server_id(&s->cmd, (long)getpid(), 1, s->repl.replid);
    s->repl.last_ping_ms = core_time_unix_ms();
}

void srv_repl_teardown(struct srv *s)
{
    srv_repl_child_kill(s);
    backlog_free(&s->repl);
}

/* ---- INFO, ROLE --------------------------------------------------------------------------- */

void srv_repl_info(void *srv, struct cmd_repl_info *out,
                   void (*replica)(void *arg, const struct cmd_repl_replica *r), void *arg)
{
    struct srv *s = srv;
    struct srv_repl *r = &s->repl;
    int64_t now = core_time_unix_ms();

    srv_replica_info(s, out);
    memcpy(out->replid, r->replid, sizeof(out->replid));
    out->offset = r->offset;
    out->n_replicas = r->n_replicas;
    out->backlog_active = r->backlog != NULL;
    out->backlog_size = (uint64_t)s->cfg.repl_backlog_size;
    out->backlog_first = r->backlog != NULL ? backlog_first(r) : 0;
    out->backlog_histlen = r->backlog_len;
    out->sync_full = r->n_full;
    out->sync_partial_ok = r->n_partial_ok;
    out->sync_partial_err = r->n_partial_err;
    if (replica == NULL) {
        return;
    }
    for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
        struct cmd_repl_replica rr;
        snprintf(rr.ip, sizeof(rr.ip), "%s", c->repl->ip);
        rr.port = c->repl->port;
        rr.state = state_name(c->repl->state);
        rr.offset = c->repl->ack_off;
        rr.lag = (now - c->repl->ack_ms) / 1000;
        replica(arg, &rr);
    }
}

/* ---- hooks -------------------------------------------------------------------------------- */

static void hook_feed(void *srv, const uint8_t *p, size_t len, unsigned to)
{
    struct srv *s = srv;

    if (to & CMD_FEED_TO_REPL) {
        srv_repl_feed(s, p, len);
    }
    if (to & CMD_FEED_TO_AOF) {
        srv_aof_feed(s, p, len);
    }
    if (s->cmd.cur_call != NULL) {
        s->cmd.cur_call->cl->woff = s->repl.offset; /* what WAIT waits for */
    }
}

static long long hook_acked(void *srv, uint64_t woff)
{
    struct srv *s = srv;
    long long n = 0;

    for (struct srv_client *c = s->repl.replicas; c != NULL; c = c->repl->next) {
        n += c->repl->state == ONLINE && c->repl->ack_off >= woff;
    }
    return n;
}

static long long hook_good(void *srv, long long max_lag)
{
    struct srv *s = srv;
    int64_t now = core_time_unix_ms();
    long long n = 0;

    for (struct srv_client *c = s->repl.replicas; c != NULL; c = c->repl->next) {
        n += c->repl->state == ONLINE && (now - c->repl->ack_ms) / 1000 <= max_lag;
    }
    return n;
}

static void hook_getack(void *srv)
{
    ((struct srv *)srv)->repl.getack = 1;
}

static int hook_sync(void *srv, struct cmd_client *cl, const char *replid, long long offset,
                     int psync, char replid_out[41])
{
    struct srv *s = srv;

    memcpy(replid_out, s->repl.replid, 41);
    return srv_repl_sync(s, srv_client_of(cl), replid, offset, psync);
}

void srv_repl_drop_replicas(struct srv *s)
{
    while (s->repl.replicas != NULL) {
        struct srv_client *c = s->repl.replicas;
        c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
        srv_repl_schedule(s, c);
        srv_repl_detach(s, c);
    }
    srv_repl_new_history(s);
}

void srv_repl_new_history(struct srv *s)
{
    struct srv_repl *r = &s->repl;

    backlog_free(r);
    cmd_feed_flush(&s->cmd, 0);
    cmd_server_id(&s->cmd, (long)getpid() ^ (long)core_time_unix_ms(), 1, r->replid);
    srv_feed_consumers_changed(s);
}

static int hook_replicaof(void *srv, const char *host, int port)
{
    return srv_replica_set(srv, host, port);
}

static void hook_conf(void *srv, struct cmd_client *cl, int what, long long num,
                      const char *text)
{
    struct srv_client *c = srv_client_of(cl);

    if (what == CMD_REPLCONF_PORT) {
        c->repl_port = (int)num;
    } else if (what == CMD_REPLCONF_IP) {
        snprintf(c->repl_ip, sizeof(c->repl_ip), "%s", text);
    } else if (what == CMD_REPLCONF_ACK) {
        srv_repl_ack(srv, c, num);
    } else if (what == CMD_REPLCONF_GETACK) {
        ((struct srv *)srv)->master.ack_now = 1;
    }
}

void srv_repl_hooks_install(struct srv *s)
{
    s->cmd.hooks.feed = hook_feed;
    s->cmd.hooks.repl_sync = hook_sync;
    s->cmd.hooks.repl_conf = hook_conf;
    s->cmd.hooks.repl_info = srv_repl_info;
    s->cmd.hooks.repl_acked = hook_acked;
    s->cmd.hooks.repl_getack = hook_getack;
    s->cmd.hooks.repl_good = hook_good;
    s->cmd.hooks.repl_replicaof = hook_replicaof;
}
