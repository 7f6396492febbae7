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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd_server.h"
#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "persist/persist.h"
#include "persist/persist_rdb.h"
#include "server/srv_internal.h"
#include "terse/status.h"

#define REPL_CHUNK (64 * 1024)     /* bytes of the RDB file read into the output per step */
#define REPL_NEWLINE_MS 1000       /* a waiting replica gets "\n" this often (keeps its link) */
#define REPL_PATH_MAX 4096

enum repl_state { WAIT_START = 0, WAIT_END = 1, SEND_RDB = 2, ONLINE = 3 };

struct srv_repl_link {
    enum repl_state state;
    int psync;                  /* asked with PSYNC: "+FULLRESYNC" is sent at the fork */
    struct core_buf wait;       /* the feed while not ONLINE */
    int rdb_fd;                 /* the file being sent, -1 when none */
    uint64_t rdb_left;          /* its bytes still to send */
    uint64_t ack_off;           /* REPLCONF ACK */
    int64_t ack_ms;
    int64_t newline_ms;         /* last keepalive newline */
    int port;                   /* REPLCONF listening-port, 0 when not told */
    char ip[64];                /* REPLCONF ip-address, else the peer's address */
    struct srv_client *next;    /* s->repl.replicas */
};

static const char *state_name(enum repl_state st)
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

static void schedule(struct srv *s, struct srv_client *c)
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
            schedule(s, r->replicas);
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
            schedule(s, c);
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
        core_log(CORE_LOG_NOTICE,
                 "Partial resynchronization request from %s accepted. Sending %lld bytes of "
                 "backlog starting from offset %lld.",
                 c->cmd.addr, (long long)r->offset - offset + 1, offset);
    } else {
        l->state = WAIT_START;
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
    schedule(s, c);
    return cont ? CMD_REPL_CONTINUE : CMD_REPL_FULL;
}

void srv_repl_ack(struct srv *s, struct srv_client *c, long long offset)
{
    (void)s;
    if (c->repl != NULL) {
        c->repl->ack_off = offset > 0 ? (uint64_t)offset : 0;
        c->repl->ack_ms = core_time_unix_ms();
    }
}

/* ---- the RDB child ------------------------------------------------------------------------ */

static void child_path(const struct srv *s, long pid, char *out, size_t cap)
{
    const char *dir = s->cfg.dir[0] != '\0' && !srv_backup_is_s3(s->cfg.dir) ? s->cfg.dir : "/tmp";
    size_t n = strlen(dir);

    snprintf(out, cap, "%s%stemp-repl-%ld.rdb", dir, n > 0 && dir[n - 1] == '/' ? "" : "/",
             pid);
}

static void child_main(struct srv *s, pid_t parent, int64_t now_ms)
{
    char path[REPL_PATH_MAX];
    struct persist_error err;
    struct persist_rdb_aux aux = {0, s->repl.replid, (long long)s->repl.offset};
    sigset_t all;
    int fd, rc;

    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(1);
    }
    for (size_t i = 0; i < s->n_listen; i++) {
        close(s->listen_fd[i]);
    }
    child_path(s, (long)getpid(), path, sizeof(path));
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        core_log(CORE_LOG_WARNING, "Replication RDB %s: %s", path, strerror(errno));
        _exit(1);
    }
    rc = persist_rdb_save_fd(s->shard, s->codec, fd, now_ms, s->cmd.hooks.mem_used(s), &aux,
                             NULL, NULL, &err);
    if (rc != TERSE_OK || close(fd) != 0) {
        core_log(CORE_LOG_WARNING, "Replication RDB %s failed: %s", path, err.reason);
        _exit(1);
    }
    _exit(0);
}

/* Starts the child for the replicas waiting for one. */
static void child_start(struct srv *s)
{
    struct srv_repl *r = &s->repl;
    pid_t parent = getpid(), pid;
    int64_t now = core_time_unix_ms();

    /* The stream a fresh replica reads starts at the fork and selects its db first. */
    cmd_feed_flush(&s->cmd, 0);
    cmd_feed_enable(&s->cmd, 1);
    pid = fork();
    if (pid < 0) {
        core_log(CORE_LOG_WARNING, "Can't start the replication RDB: fork: %s",
                 strerror(errno));
        for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
            if (c->repl->state == WAIT_START) {
                c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
                schedule(s, c);
            }
        }
        return;
    }
    if (pid == 0) {
        child_main(s, parent, now);
    }
    r->child_pid = pid;
    core_log(CORE_LOG_NOTICE,
             "Starting BGSAVE for SYNC with target: disk (pid %ld, replication offset %llu)",
             (long)pid, (unsigned long long)r->offset);
    for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
        struct srv_repl_link *l = c->repl;
        if (l->state != WAIT_START) {
            continue;
        }
        l->state = WAIT_END;
        core_buf_consume(&l->wait, core_buf_pending(&l->wait));
        if (l->psync) {
            char line[128];
            int n = snprintf(line, sizeof(line), "+FULLRESYNC %s %llu\r\n", r->replid,
                             (unsigned long long)r->offset);
            if (core_buf_append(&c->conn.out, line, (size_t)n) != TERSE_OK) {
                c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
            }
        }
        schedule(s, c);
    }
}

/* The child ended: its replicas start receiving the file, or are closed when it failed. */
static void child_done(struct srv *s, int ok)
{
    struct srv_repl *r = &s->repl;
    char path[REPL_PATH_MAX];
    struct stat st;

    child_path(s, (long)r->child_pid, path, sizeof(path));
    r->child_pid = 0;
    for (struct srv_client *c = r->replicas; c != NULL; c = c->repl->next) {
        struct srv_repl_link *l = c->repl;
        char head[32];
        int n;

        if (l->state != WAIT_END) {
            continue;
        }
        l->rdb_fd = ok ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (l->rdb_fd < 0 || fstat(l->rdb_fd, &st) != 0) {
            core_log(CORE_LOG_WARNING, "SYNC failed: the replication RDB could not be %s",
                     ok ? "opened" : "written");
            c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
            schedule(s, c);
            continue;
        }
        l->rdb_left = (uint64_t)st.st_size;
        n = snprintf(head, sizeof(head), "$%llu\r\n", (unsigned long long)st.st_size);
        if (core_buf_append(&c->conn.out, head, (size_t)n) != TERSE_OK) {
            c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
        }
        l->state = SEND_RDB;
        schedule(s, c);
    }
    (void)unlink(path); /* open descriptors keep the bytes until sent */
    if (ok) {
        core_log(CORE_LOG_NOTICE, "Background RDB transfer started");
    }
}

static void child_reap(struct srv *s, int block)
{
    int status = 0;
    pid_t w;

    if (s->repl.child_pid <= 0) {
        return;
    }
    do {
        w = waitpid(s->repl.child_pid, &status, block ? 0 : WNOHANG);
    } while (w < 0 && errno == EINTR);
    if (w == 0) {
        return;
    }
    child_done(s, w > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int srv_repl_child_busy(const struct srv *s)
{
    return s->repl.child_pid > 0;
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
    child_reap(s, 0);
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
            schedule(s, c);
            continue;
        }
        if (l->state <= WAIT_END && now_ms - l->newline_ms >= REPL_NEWLINE_MS) {
            l->newline_ms = now_ms;
            (void)core_buf_append(&c->conn.out, "\n", 1); /* a replica's keepalive */
            schedule(s, c);
        }
    }
    if (waiting && !srv_child_busy(s)) {
        child_start(s);
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
    if (s->repl.child_pid > 0) {
        char path[REPL_PATH_MAX];
        kill(s->repl.child_pid, SIGKILL);
        child_path(s, (long)s->repl.child_pid, path, sizeof(path));
        (void)waitpid(s->repl.child_pid, NULL, 0);
        (void)unlink(path);
        s->repl.child_pid = 0;
    }
    backlog_free(&s->repl);
}

/* ---- INFO, ROLE --------------------------------------------------------------------------- */

void srv_repl_info(void *srv, struct cmd_repl_info *out,
                   void (*replica)(void *arg, const struct cmd_repl_replica *r), void *arg)
{
    struct srv *s = srv;
    struct srv_repl *r = &s->repl;
    int64_t now = core_time_unix_ms();

    memcpy(out->replid, r->replid, sizeof(out->replid));
    out->offset = r->offset;
    out->n_replicas = r->n_replicas;
    out->backlog_active = r->backlog != NULL;
    out->backlog_size = (uint64_t)s->cfg.repl_backlog_size;
    out->backlog_first = r->backlog != NULL ? backlog_first(r) : 0;
    out->backlog_histlen = r->backlog_len;
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

void srv_feed_consumers_changed(struct srv *s)
{
    /* The backlog records the stream while no replica is attached too: one that comes back
     * continues from it. The AOF, while on (or waiting for its first rewrite), is the other
     * consumer. */
    int on = s->repl.n_replicas > 0 || s->repl.backlog != NULL || srv_aof_wants_feed(s);

    if (on != s->cmd.feed.on) {
        cmd_feed_enable(&s->cmd, on);
    }
}

static void hook_feed(void *srv, const uint8_t *p, size_t len, unsigned to)
{
    if (to & CMD_FEED_TO_REPL) {
        srv_repl_feed(srv, p, len);
    }
    if (to & CMD_FEED_TO_AOF) {
        srv_aof_feed(srv, p, len);
    }
}

static int hook_sync(void *srv, struct cmd_client *cl, const char *replid, long long offset,
                     int psync, char replid_out[41])
{
    struct srv *s = srv;

    memcpy(replid_out, s->repl.replid, 41);
    return srv_repl_sync(s, srv_client_of(cl), replid, offset, psync);
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
    }
}

void srv_repl_hooks_install(struct srv *s)
{
    s->cmd.hooks.feed = hook_feed;
    s->cmd.hooks.repl_sync = hook_sync;
    s->cmd.hooks.repl_conf = hook_conf;
    s->cmd.hooks.repl_info = srv_repl_info;
}
