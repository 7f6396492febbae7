/*
 * srv_replica: terse as a replica of a Redis-compatible master (REPLICAOF host port, or
 * `replicaof` in the config): a redis-server to migrate from with no downtime, or another
 * terse. The master side is srv_repl.c.
 *
 * The link, as a Redis 7.0 replica speaks it (disk-based sync: no "capa eof"):
 *   CONNECT     a connection is due at next_try_ms (every second after a failure)
 *   CONNECTING  non-blocking connect() in flight
 *   HANDSHAKE   sent at once: [AUTH masteruser masterauth], PING, REPLCONF listening-port,
 *               REPLCONF capa psync2, PSYNC <replid> <offset+1> (or "? -1"); their replies
 *               are read in order, newlines the master sends meanwhile skipped
 *   TRANSFER    after +FULLRESYNC: "$<size>" then the RDB, written to <dir>/temp-sync-<pid>.rdb,
 *               then loaded in place of the dataset (persist_rdb_load_mem, verified first)
 *   CONNECTED   the socket is a client of the server flagged CMD_CLIENT_MASTER: the master's
 *               stream runs as commands (no replies), its offset counted per command, an ACK
 *               sent every second and on REPLCONF GETACK
 * +CONTINUE keeps the dataset and goes straight to CONNECTED. A lost link goes back to
 * CONNECT and asks to continue from the offset it reached.
 *
 * While a replica: writes from clients get -READONLY (replica-read-only), keys are not expired
 * actively (the master's DELs expire them, as in Redis) and maxmemory evicts nothing; the
 * server's own replicas are dropped when it becomes a replica or loads a new dataset (they
 * resynchronise with it). Buffers: link.in (handshake replies) is owned by the link and freed
 * when the link ends; the loaded file is unmapped and removed right after the load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_time.h"
#include "persist/persist_rdb_load.h"
#include "server/aof/srv_aof_rewrite.h"
#include "server/repl/srv_repl.h"
#include "server/repl/srv_replica.h"
#include "terse/status.h"
#include "cmd/keyspace/cmd_after_load.h"

#define LINK_RETRY_MS 1000
#define LINK_ACK_MS 1000
#define LINK_LINE_MAX 512

static void link_close(struct srv *s)
{
    struct srv_master *m = &s->master;

    if (m->fd >= 0) {
        core_loop_del(s->loop, m->fd);
        close(m->fd);
        m->fd = -1;
    }
    if (m->tmp_fd >= 0) {
        close(m->tmp_fd);
        m->tmp_fd = -1;
        (void)unlink(m->tmp_path);
    }
    core_buf_deinit(&m->in);
    core_buf_init(&m->in);
}

/* The link failed or ended: try again in a second (a master's replicas keep trying). */
static void link_fail(struct srv *s, const char *why)
{
    struct srv_master *m = &s->master;

    if (why != NULL) {
        core_log(CORE_LOG_WARNING, "Replication with master %s:%d: %s", m->host, m->port, why);
    }
    link_close(s);
    if (m->client != NULL) {
        struct srv_client *c = m->client;
        m->client = NULL;
        c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
        srv_repl_schedule(s, c);
    }
    if (m->state != SRV_MASTER_NONE) {
        m->state = SRV_MASTER_CONNECT;
        m->next_try_ms = core_time_unix_ms() + LINK_RETRY_MS;
        if (m->down_since_ms == 0) {
            m->down_since_ms = core_time_unix_ms();
        }
    }
    srv_settings_sync(s); /* replica-serve-stale-data follows the link */
}

static int append_cmd(struct core_buf *b, const char *const *argv, int argc)
{
    char head[32];
    int n = snprintf(head, sizeof(head), "*%d\r\n", argc);

    if (core_buf_append(b, head, (size_t)n) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]);
        n = snprintf(head, sizeof(head), "$%zu\r\n", len);
        if (core_buf_append(b, head, (size_t)n) != TERSE_OK ||
            core_buf_append(b, argv[i], len) != TERSE_OK ||
            core_buf_append(b, "\r\n", 2) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
    }
    return TERSE_OK;
}

static int write_all(int fd, struct core_buf *b)
{
    ssize_t w = write(fd, b->p + b->off, core_buf_pending(b));

    return w == (ssize_t)core_buf_pending(b) ? TERSE_OK : TERSE_EIO;
}

/* Sends the handshake's first part at once ([AUTH], PING, REPLCONF listening-port, REPLCONF
 * capa: a few hundred bytes, one write on a fresh socket). PSYNC follows once their replies
 * are in: a master refuses it while replies of the same connection are still unsent. */
static int send_handshake(struct srv *s)
{
    struct srv_master *m = &s->master;
    struct core_buf b;
    char port[16];
    const char *ping[] = {"PING"};
    const char *lport[] = {"REPLCONF", "listening-port", port};
    const char *capa[] = {"REPLCONF", "capa", "psync2"};
    int rc = TERSE_OK;

    core_buf_init(&b);
    snprintf(port, sizeof(port), "%lld", (long long)s->cfg.port);
    m->replies = 3;
    m->psync_sent = 0;
    if (s->cfg.masterauth[0] != '\0') {
        const char *auth[] = {"AUTH", s->cfg.masteruser, s->cfg.masterauth};
        const char *auth2[] = {"AUTH", s->cfg.masterauth};
        rc = s->cfg.masteruser[0] != '\0' ? append_cmd(&b, auth, 3) : append_cmd(&b, auth2, 2);
        m->replies++;
    }
    rc = rc != TERSE_OK ? rc : append_cmd(&b, ping, 1);
    rc = rc != TERSE_OK ? rc : append_cmd(&b, lport, 3);
    rc = rc != TERSE_OK ? rc : append_cmd(&b, capa, 3);
    rc = rc != TERSE_OK ? rc : write_all(m->fd, &b);
    core_buf_deinit(&b);
    return rc;
}

/* PSYNC <replid> <offset + 1>, or "? -1" for a first, full synchronisation. */
static int send_psync(struct srv *s)
{
    struct srv_master *m = &s->master;
    struct core_buf b;
    char off[32];
    const char *psync[] = {"PSYNC", m->cached ? m->replid : "?", off};
    int rc;

    snprintf(off, sizeof(off), "%lld", m->cached ? m->offset + 1 : -1LL);
    core_buf_init(&b);
    rc = append_cmd(&b, psync, 3);
    rc = rc != TERSE_OK ? rc : write_all(m->fd, &b);
    core_buf_deinit(&b);
    m->psync_sent = 1;
    return rc;
}

/* The next line of link.in without its CRLF into line; 1, or 0 when none is complete. */
static int take_line(struct core_buf *in, char *line, size_t cap)
{
    const uint8_t *p = in->p + in->off;
    size_t n = core_buf_pending(in);
    const uint8_t *nl = n > 0 ? memchr(p, '\n', n) : NULL;
    size_t len;

    if (nl == NULL) {
        return 0;
    }
    len = (size_t)(nl - p);
    if (len > 0 && p[len - 1] == '\r') {
        len--;
    }
    snprintf(line, cap, "%.*s", (int)(len < cap ? len : cap - 1), (const char *)p);
    core_buf_consume(in, (size_t)(nl - p) + 1);
    return 1;
}

/* The link becomes a client of the server: the master's stream runs as its commands. */
static void become_connected(struct srv *s)
{
    struct srv_master *m = &s->master;
    char addr[NET_ADDR_MAX];
    struct srv_client *c;
    int fd = m->fd;

    core_loop_del(s->loop, fd);
    snprintf(addr, sizeof(addr), "%.48s:%d", m->host, m->port);
    c = s->client_new(s, fd, addr, "");
    if (c == NULL) {
        link_fail(s, "no memory for the master's client");
        return;
    }
    m->fd = -1;
    c->cmd.flags |= CMD_CLIENT_MASTER | CMD_CLIENT_MUST_OBEY | CMD_CLIENT_AUTHED |
                    CMD_CLIENT_REPLY_OFF;
    if (core_buf_pending(&m->in) > 0 &&
        core_buf_append(&c->conn.in, m->in.p + m->in.off, core_buf_pending(&m->in)) != TERSE_OK) {
        c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
    }
    core_buf_deinit(&m->in);
    core_buf_init(&m->in);
    m->client = c;
    m->state = SRV_MASTER_CONNECTED;
    m->cached = 1;
    m->down_since_ms = 0;
    m->last_io_ms = m->last_ack_ms = core_time_unix_ms();
    srv_settings_sync(s);
    srv_repl_schedule(s, c); /* runs what came with the handshake's last bytes */
    core_log(CORE_LOG_NOTICE, "MASTER <-> REPLICA sync: Finished with success");
}

/* The RDB received: the dataset is replaced by it (verified before anything is dropped
 * beyond the flush). */
static void load_transfer(struct srv *s)
{
    struct srv_master *m = &s->master;
    struct persist_load_stats st;
    struct persist_error err;
    struct stat sb;
    uint8_t *map = NULL;
    int rc;

    close(m->tmp_fd);
    m->tmp_fd = open(m->tmp_path, O_RDONLY | O_CLOEXEC);
    if (m->tmp_fd < 0 || fstat(m->tmp_fd, &sb) != 0) {
        link_fail(s, "cannot read the received RDB back");
        return;
    }
    if (sb.st_size > 0) {
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, m->tmp_fd, 0);
        if (map == MAP_FAILED) {
            link_fail(s, "cannot map the received RDB");
            return;
        }
    }
    /* Replaced, not merged: its own replicas resynchronise with the new dataset. */
    srv_repl_drop_replicas(s);
    store_flushall(s->shard);
    memset(&err, 0, sizeof(err));
    /* Big lists, hashes, sets and sorted sets are built in chunks as they are read. */
    s->rdb.load_ck.env = cmd_value_load_shapes(&s->cmd, &s->rdb.load_ck.list,
                                               &s->rdb.load_ck.elems,
                                               &s->rdb.load_ck.stream_min);
    rc = persist_rdb_load_mem(s->shard, (int)s->cfg.databases, &s->rdb, map,
                              (size_t)sb.st_size, core_time_unix_ms(), &st, NULL, &err);
    if (map != NULL) {
        munmap(map, (size_t)sb.st_size);
    }
    close(m->tmp_fd);
    m->tmp_fd = -1;
    (void)unlink(m->tmp_path);
    if (rc != TERSE_OK) {
        store_flushall(s->shard);
        core_log(CORE_LOG_WARNING, "Failed loading the master's RDB at offset %llu: %s",
                 (unsigned long long)err.offset, err.reason);
        m->cached = 0;
        link_fail(s, "the RDB from the master could not be loaded");
        return;
    }
    cmd_value_after_load(&s->cmd);
    if (s->aof.state != SRV_AOF_OFF) {
        /* The AOF holds the old dataset: a new base from the loaded one (a rewrite already
         * running wrote the old one, so it goes). */
        srv_aof_rewrite_kill(s);
        s->aof.scheduled = 1;
    }
    core_log(CORE_LOG_NOTICE, "MASTER <-> REPLICA sync: Loaded %llu keys (%llu expired)",
             (unsigned long long)st.n_loaded, (unsigned long long)st.n_expired);
    become_connected(s);
}

/* TRANSFER: the bulk's header, then its bytes into the temporary file. */
static void on_transfer(struct srv *s)
{
    struct srv_master *m = &s->master;
    char line[LINK_LINE_MAX];

    if (m->bulk_total < 0) {
        while (take_line(&m->in, line, sizeof(line))) {
            if (line[0] == '\0') {
                continue; /* the master's keepalive while it writes the RDB */
            }
            if (line[0] != '$' || strncmp(line, "$EOF:", 5) == 0) {
                link_fail(s, "unexpected reply instead of the RDB bulk");
                return;
            }
            m->bulk_total = m->bulk_left = strtoll(line + 1, NULL, 10);
            if (m->bulk_total < 0) {
                link_fail(s, "bad RDB bulk length");
                return;
            }
            core_log(CORE_LOG_NOTICE, "MASTER <-> REPLICA sync: receiving %lld bytes from master "
                     "to disk", m->bulk_total);
            break;
        }
        if (m->bulk_total < 0) {
            return;
        }
    }
    while (m->bulk_left > 0 && core_buf_pending(&m->in) > 0) {
        size_t n = core_buf_pending(&m->in);
        ssize_t w;
        n = (long long)n > m->bulk_left ? (size_t)m->bulk_left : n;
        w = write(m->tmp_fd, m->in.p + m->in.off, n);
        if (w <= 0) {
            link_fail(s, "cannot write the received RDB");
            return;
        }
        core_buf_consume(&m->in, (size_t)w);
        m->bulk_left -= w;
    }
    if (m->bulk_left == 0) {
        load_transfer(s);
    }
}

/* HANDSHAKE: the replies, in order; the PSYNC's decides what comes next. */
static void on_handshake(struct srv *s)
{
    struct srv_master *m = &s->master;
    char line[LINK_LINE_MAX];

    while (m->state == SRV_MASTER_HANDSHAKE && take_line(&m->in, line, sizeof(line))) {
        if (line[0] == '\0') {
            continue;
        }
        if (!m->psync_sent) {
            /* AUTH, PING, REPLCONF: a refused AUTH or PING ends it (REPLCONF errors are
             * ignored, as Redis's replica ignores an old master's) */
            if (line[0] == '-' && strncmp(line, "-ERR Unrecognized REPLCONF", 26) != 0) {
                link_fail(s, line + 1);
                return;
            }
            if (--m->replies == 0 && send_psync(s) != TERSE_OK) {
                link_fail(s, "cannot send PSYNC");
                return;
            }
            continue;
        }
        if (strncmp(line, "+FULLRESYNC ", 12) == 0) {
            char id[41];
            long long off = -1;
            if (sscanf(line + 12, "%40s %lld", id, &off) != 2 || strlen(id) != 40) {
                link_fail(s, "bad FULLRESYNC reply");
                return;
            }
            memcpy(m->replid, id, sizeof(id));
            m->offset = off;
            snprintf(m->tmp_path, sizeof(m->tmp_path), "%s/temp-sync-%ld.rdb",
                     s->cfg.dir[0] != '\0' && !srv_backup_is_s3(s->cfg.dir) ? s->cfg.dir : "/tmp",
                     (long)getpid());
            m->tmp_fd = open(m->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (m->tmp_fd < 0) {
                link_fail(s, "cannot create the file for the master's RDB");
                return;
            }
            core_log(CORE_LOG_NOTICE, "Full resync from master: %s:%lld", id, off);
            m->state = SRV_MASTER_TRANSFER;
            m->bulk_total = -1;
            m->sync_start_ms = core_time_unix_ms();
            on_transfer(s);
        } else if (strncmp(line, "+CONTINUE", 9) == 0) {
            char id[41];
            if (sscanf(line + 9, " %40s", id) == 1 && strlen(id) == 40) {
                memcpy(m->replid, id, sizeof(id)); /* the master's new replid */
            }
            core_log(CORE_LOG_NOTICE, "Successful partial resynchronization with master.");
            become_connected(s);
        } else {
            link_fail(s, line[0] == '-' ? line + 1 : "unexpected PSYNC reply");
        }
        return;
    }
}

static void on_link_event(struct core_loop *loop, int fd, void *arg, unsigned events)
{
    struct srv *s = arg;
    struct srv_master *m = &s->master;
    char err[256];

    (void)loop;
    (void)fd;
    if (m->state == SRV_MASTER_CONNECTING) {
        if (!(events & CORE_EV_WRITE) && !(events & CORE_EV_READ)) {
            return;
        }
        if (net_connect_result(m->fd, err, sizeof(err)) != TERSE_OK) {
            link_fail(s, err);
            return;
        }
        if (send_handshake(s) != TERSE_OK) {
            link_fail(s, "cannot send the handshake");
            return;
        }
        m->state = SRV_MASTER_HANDSHAKE;
        m->last_io_ms = core_time_unix_ms();
        core_loop_mod(s->loop, m->fd, CORE_EV_READ);
        return;
    }
    for (;;) {
        ssize_t n;
        if (core_buf_reserve(&m->in, 64 * 1024) != TERSE_OK) {
            link_fail(s, "no memory for the link's buffer");
            return;
        }
        n = read(m->fd, m->in.p + m->in.len, m->in.cap - m->in.len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        }
        if (n <= 0) {
            link_fail(s, n == 0 ? "connection closed by the master" : strerror(errno));
            return;
        }
        m->in.len += (size_t)n;
        m->last_io_ms = core_time_unix_ms();
        if (m->state == SRV_MASTER_HANDSHAKE) {
            on_handshake(s);
        } else if (m->state == SRV_MASTER_TRANSFER) {
            on_transfer(s);
        }
        if (m->state != SRV_MASTER_HANDSHAKE && m->state != SRV_MASTER_TRANSFER) {
            return;
        }
        if (m->state == SRV_MASTER_TRANSFER) {
            core_buf_compact(&m->in);
        }
    }
}

static void link_connect(struct srv *s)
{
    struct srv_master *m = &s->master;
    char err[256];

    if (net_connect(m->host, m->port, &m->fd, err, sizeof(err)) != TERSE_OK) {
        link_fail(s, err);
        return;
    }
    if (core_loop_add(s->loop, m->fd, CORE_EV_READ | CORE_EV_WRITE, on_link_event, s) !=
        TERSE_OK) {
        close(m->fd);
        m->fd = -1;
        link_fail(s, "cannot watch the connection");
        return;
    }
    m->state = SRV_MASTER_CONNECTING;
    m->last_io_ms = core_time_unix_ms();
    core_log(CORE_LOG_NOTICE, "Connecting to MASTER %s:%d", m->host, m->port);
}

/* ---- what the server asks ----------------------------------------------------------------- */

void srv_replica_step(struct srv *s, int64_t now_ms)
{
    struct srv_master *m = &s->master;

    if (m->state == SRV_MASTER_NONE) {
        return;
    }
    if (now_ms == 0) {
        now_ms = core_time_unix_ms(); /* read only when a replica: the loop calls this often */
    }
    if (m->state == SRV_MASTER_CONNECT && now_ms >= m->next_try_ms) {
        link_connect(s);
    } else if (m->state != SRV_MASTER_CONNECT && m->state != SRV_MASTER_CONNECTED &&
               now_ms - m->last_io_ms > s->cfg.repl_timeout * 1000) {
        link_fail(s, "timeout during the synchronization");
    } else if (m->state == SRV_MASTER_CONNECTED && m->client != NULL) {
        if (now_ms - m->client->cmd.last_ms > s->cfg.repl_timeout * 1000) {
            link_fail(s, "MASTER timeout: no data nor PING received");
            return;
        }
        if (m->ack_now || now_ms - m->last_ack_ms >= LINK_ACK_MS) {
            char off[32];
            const char *ack[] = {"REPLCONF", "ACK", off};
            snprintf(off, sizeof(off), "%lld", m->offset);
            m->ack_now = 0;
            m->last_ack_ms = now_ms;
            if (append_cmd(&m->client->conn.out, ack, 3) == TERSE_OK) {
                srv_repl_schedule(s, m->client);
            }
        }
    }
}

void srv_replica_processed(struct srv *s, struct srv_client *c, size_t bytes)
{
    if (c == s->master.client) {
        s->master.offset += (long long)bytes;
    }
}

void srv_replica_client_gone(struct srv *s, struct srv_client *c)
{
    if (c == s->master.client) {
        s->master.client = NULL;
        link_fail(s, "connection with master lost");
    }
}

int srv_replica_set(struct srv *s, const char *host, int port)
{
    struct srv_master *m = &s->master;

    if (host == NULL) { /* REPLICAOF NO ONE */
        if (m->state == SRV_MASTER_NONE) {
            return 0;
        }
        m->state = SRV_MASTER_NONE;
        link_fail(s, NULL);
        m->cached = 0;
        srv_settings_sync(s);
        srv_repl_new_history(s);
        core_log(CORE_LOG_NOTICE, "MASTER MODE enabled");
        return 0;
    }
    if (m->state != SRV_MASTER_NONE && strcasecmp(m->host, host) == 0 && m->port == port) {
        return 1; /* already its replica */
    }
    if (m->state != SRV_MASTER_NONE) {
        m->state = SRV_MASTER_NONE;
        link_fail(s, NULL);
    }
    snprintf(m->host, sizeof(m->host), "%s", host);
    m->port = port;
    m->cached = 0;
    m->state = SRV_MASTER_CONNECT;
    m->next_try_ms = 0;
    m->down_since_ms = core_time_unix_ms();
    srv_settings_sync(s);
    srv_repl_drop_replicas(s);
    core_log(CORE_LOG_NOTICE, "REPLICAOF %s:%d enabled", host, port);
    return 0;
}

void srv_replica_init(struct srv *s)
{
    struct srv_master *m = &s->master;

    memset(m, 0, sizeof(*m));
    m->fd = m->tmp_fd = -1;
    core_buf_init(&m->in);
    if (s->cfg.replicaof[0] != '\0') {
        char host[256];
        int port;
        if (sscanf(s->cfg.replicaof, "%255s %d", host, &port) == 2) {
            (void)srv_replica_set(s, host, port);
        }
    }
}

void srv_replica_teardown(struct srv *s)
{
    s->master.state = SRV_MASTER_NONE;
    link_close(s);
}

static const char *const state_names[] = {"none", "connect", "connecting", "handshake", "sync",
                                          "connected"};

void srv_replica_info(const struct srv *s, struct cmd_repl_info *out)
{
    const struct srv_master *m = &s->master;
    int64_t now = core_time_unix_ms();

    out->replica = m->state != SRV_MASTER_NONE;
    if (!out->replica) {
        return;
    }
    snprintf(out->master_host, sizeof(out->master_host), "%s", m->host);
    out->master_port = m->port;
    out->link_up = m->state == SRV_MASTER_CONNECTED;
    out->link_state = state_names[m->state];
    out->sync_in_progress = m->state == SRV_MASTER_TRANSFER;
    out->last_io_s = m->state == SRV_MASTER_CONNECTED && m->client != NULL
                         ? (now - m->client->cmd.last_ms) / 1000
                         : m->last_io_ms != 0 ? (now - m->last_io_ms) / 1000 : -1;
    out->down_since_s = m->down_since_ms != 0 ? (now - m->down_since_ms) / 1000 : -1;
    out->slave_offset = m->cached ? m->offset : 0;
    out->read_only = s->cfg.replica_read_only;
    out->sync_total = m->state == SRV_MASTER_TRANSFER ? m->bulk_total : 0;
    out->sync_read = m->state == SRV_MASTER_TRANSFER && m->bulk_total >= 0
                         ? m->bulk_total - m->bulk_left
                         : 0;
}
