/*
 * srv_aof: the append-only file wired into the server (Redis 7.0's multi-part AOF).
 *
 * States (struct srv_aof): OFF; ON, the write feed (cmd_feed.c) appended to the last incr file
 * of the manifest; WAIT_REWRITE, after CONFIG SET appendonly yes: the first rewrite runs (its
 * base holds the dataset at the fork) and the feed goes to a temporary incr file that becomes
 * part of the AOF when the rewrite succeeds (srv_aof_rewrite.c).
 *
 * Writing: the feed's bytes collect in a buffer owned here (kept between units, so a warm feed
 * allocates nothing) and go to the file with one write(2) before the replies of the commands
 * that produced them are sent (srv_conn.c calls srv_aof_flush before writing to a client) and
 * after every turn of the loop, as Redis writes its aof_buf in beforeSleep. fsync follows
 * appendfsync: always, right after that write, in the loop (the reply waits for the disk, as
 * Redis's does); everysec, once a second from cron through the background thread
 * (srv_aof_bio.c), so the loop never waits for the disk; an fsync still running then is not
 * queued twice (aof_delayed_fsync counts those); no, never (the kernel decides).
 *
 * A write that fails, as Redis 7.0's flushAppendOnlyFile handles it: the bytes of a short
 * write are cut off again (ftruncate to the size before it), so the file ends with a whole
 * command. Under appendfsync always the process then exits (so does a failed fsync): the
 * replies of those writes are in the clients' buffers and the writes cannot be undone, so
 * none of them may go out. Under everysec and no the bytes stay in the buffer and every
 * later flush retries them; meanwhile aof_last_write_status is err and writes (and PING) get
 * "-MISCONF Errors writing to the AOF file: <strerror>" (srv_persist_misconf_sync), so at most
 * the writes of the failed flush are acknowledged and not on disk. The first write that goes
 * through clears it. A failed background fsync (srv_aof_bio.c) refuses writes the same way
 * until one succeeds.
 *
 * Startup with appendonly yes loads the AOF instead of the snapshot (srv_aof_load.c), as
 * Redis does, and creates an empty one (a base and an incr file) when there is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_time.h"
#include "persist/persist_rdb.h"
#include "server/aof/srv_aof.h"
#include "server/aof/srv_aof_bio.h"
#include "server/aof/srv_aof_files.h"
#include "server/aof/srv_aof_load.h"
#include "server/aof/srv_aof_rewrite.h"
#include "terse/status.h"

#define AOF_PATH_MAX 4096
#define AOF_FSYNC_PERIOD_MS 1000
#define AOF_RETRY_DELAY_MS 5000 /* a failed rewrite of WAIT_REWRITE is tried again after this */
#define AOF_BUF_KEEP (1024 * 1024) /* a write buffer above this is freed once empty */
#define AOF_WRITE_ERR_LOG_MS 30000 /* a write that keeps failing is logged this often (Redis's
                                      AOF_WRITE_LOG_ERROR_RATE) */

void srv_aof_feed(struct srv *s, const uint8_t *p, size_t len)
{
    struct srv_aof *a = &s->aof;

    if (!srv_aof_wants_feed(s)) {
        return;
    }
    if (p == NULL || core_buf_append(&a->buf, p, len) != TERSE_OK) {
        /* Writes are missing from the incr file: only a new base can cover them. */
        core_log(CORE_LOG_WARNING, "The AOF lost writes (out of memory): rewriting it");
        a->scheduled = 1;
    }
}

/* The background fsync's status moved: writes are refused or accepted again. */
static void bio_err_poll(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    int e = srv_aof_bio_err(&a->bio);

    if (e != a->bio_err) {
        a->bio_err = e;
        srv_persist_misconf_sync(s);
    }
}

/* write(2) until all n bytes are in or it fails. The bytes written; *err: the errno (0). */
static size_t write_all(int fd, const uint8_t *p, size_t n, int *err)
{
    size_t done = 0;

    *err = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            *err = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    return done;
}

/* n bytes were to be written, done were: undo a partial write, then exit (always) or keep the
 * rest for the next flush and refuse writes meanwhile. */
static void write_failed(struct srv *s, size_t n, size_t done, int err)
{
    struct srv_aof *a = &s->aof;
    int64_t now = core_time_unix_ms();
    int can_log = now - a->write_err_log_ms > AOF_WRITE_ERR_LOG_MS;

    if (can_log) {
        a->write_err_log_ms = now;
    }
    if (done == 0) {
        if (can_log) {
            core_log(CORE_LOG_WARNING, "Error writing to the AOF file: %s", strerror(err));
        }
    } else {
        if (can_log) {
            core_log(CORE_LOG_WARNING, "Short write while writing to the AOF file: "
                     "(nwritten=%zu, expected=%zu)", done, n);
        }
        if (ftruncate(a->fd, (off_t)a->incr_size) != 0) {
            if (can_log) {
                core_log(CORE_LOG_WARNING, "Could not remove short write from the "
                         "append-only file.  terse may refuse to load the AOF the next time "
                         "it starts.  ftruncate: %s", strerror(errno));
            }
        } else {
            done = 0; /* the file is as it was before this write */
        }
        err = ENOSPC;
    }
    if (s->cfg.appendfsync == CORE_FSYNC_ALWAYS) {
        core_log(CORE_LOG_WARNING, "Can't recover from AOF write error when the AOF fsync "
                 "policy is 'always'. Exiting...");
        exit(1);
    }
    if (done > 0) {
        /* a torn command stays in the file: the rest must follow it */
        core_buf_consume(&a->buf, done);
        a->incr_size += (uint64_t)done;
        a->cur_size += (uint64_t)done;
    }
    a->last_write_errno = err;
    if (a->last_write_ok) {
        a->last_write_ok = 0;
        srv_persist_misconf_sync(s);
    }
}

void srv_aof_flush(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    size_t n = core_buf_pending(&a->buf), done;
    int err;

    bio_err_poll(s);
    if (n == 0 || a->fd < 0) {
        return;
    }
    done = write_all(a->fd, a->buf.p + a->buf.off, n, &err);
    if (done < n) {
        write_failed(s, n, done, err);
        return;
    }
    core_buf_consume(&a->buf, n);
    a->incr_size += (uint64_t)n;
    a->cur_size += (uint64_t)n;
    core_buf_compact(&a->buf);
    if (!a->last_write_ok) {
        core_log(CORE_LOG_WARNING, "AOF write error looks solved, terse can write again.");
        a->last_write_ok = 1;
        srv_persist_misconf_sync(s);
    }
    if (s->cfg.appendfsync == CORE_FSYNC_ALWAYS && fdatasync(a->fd) != 0) {
        core_log(CORE_LOG_WARNING, "Can't persist AOF for fsync error when the AOF fsync "
                 "policy is 'always': %s. Exiting...", strerror(errno));
        exit(1);
    }
}

/* ---- on and off --------------------------------------------------------------------------- */

static int start(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    int rc;

    if (srv_aof_bio_start(&a->bio) != 0) {
        core_log(CORE_LOG_WARNING, "Can't start the AOF fsync thread");
        return -1;
    }
    if (a->child_pid > 0) {
        core_log(CORE_LOG_WARNING, "AOF was enabled but there is already an AOF rewriting in "
                 "background. Stopping background AOF and starting a rewrite now.");
        srv_aof_rewrite_kill(s);
    }
    a->state = SRV_AOF_WAIT_REWRITE;
    rc = srv_aof_rewrite_start(s);
    if (rc == CMD_SAVE_FAILED) {
        a->state = SRV_AOF_OFF;
        return -1;
    }
    if (rc == CMD_SAVE_SCHEDULED) {
        core_log(CORE_LOG_WARNING, "AOF was enabled but there is already another background "
                 "operation. An AOF background was scheduled to start when possible.");
    }
    /* A new AOF: the errors of the one turned off no longer refuse writes. */
    if (srv_aof_bio_err(&a->bio) != 0) {
        core_log(CORE_LOG_WARNING, "AOF reopen, just ignore the AOF fsync error in bio job");
        srv_aof_bio_err_reset(&a->bio);
        a->bio_err = 0;
    }
    if (!a->last_write_ok) {
        core_log(CORE_LOG_WARNING, "AOF reopen, just ignore the last error.");
        a->last_write_ok = 1;
    }
    srv_persist_misconf_sync(s);
    return 0;
}

static void stop(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    enum srv_aof_state was = a->state;

    srv_aof_flush(s);
    srv_aof_rewrite_kill(s);
    if (a->fd >= 0) {
        if (fdatasync(a->fd) != 0 && errno != EINVAL) {
            core_log(CORE_LOG_WARNING, "Fail to fsync the AOF file: %s", strerror(errno));
        }
        close(a->fd);
        a->fd = -1;
    }
    if (was == SRV_AOF_WAIT_REWRITE) {
        char name[PERSIST_AOF_NAME_CAP], path[AOF_PATH_MAX];
        snprintf(name, sizeof(name), "temp-%s.incr", s->cfg.appendfilename);
        srv_aof_path(s, name, path, sizeof(path));
        unlink(path);
    }
    core_buf_consume(&a->buf, core_buf_pending(&a->buf));
    a->state = SRV_AOF_OFF;
    a->scheduled = 0;
    srv_feed_consumers_changed(s);
    srv_persist_misconf_sync(s); /* an AOF that is off refuses nothing */
}

int srv_aof_config_changed(struct srv *s, char *errbuf, size_t cap)
{
    if (s->cfg.appendonly && s->aof.state == SRV_AOF_OFF) {
        if (start(s) != 0) {
            s->cfg.appendonly = false;
            snprintf(errbuf, cap, "ERR CONFIG SET failed (possibly related to argument "
                                  "'appendonly') - Unable to turn on AOF. Check server logs.");
            return -1;
        }
        core_log(CORE_LOG_NOTICE, "AOF enabled by CONFIG SET");
    } else if (!s->cfg.appendonly && s->aof.state != SRV_AOF_OFF) {
        stop(s);
        core_log(CORE_LOG_NOTICE, "AOF disabled by CONFIG SET");
    }
    return 0;
}

/* ---- startup ------------------------------------------------------------------------------ */

/* An empty dataset's base, written here (Redis does the same on a fresh start). */
static int create_base(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    char name[PERSIST_AOF_NAME_CAP], path[AOF_PATH_MAX], tmp[AOF_PATH_MAX];
    struct persist_error err;
    long long seq = a->man.base_seq + 1;
    int fd, rc;

    snprintf(name, sizeof(name), "%s.%lld.base.rdb", s->cfg.appendfilename, seq);
    srv_aof_path(s, name, path, sizeof(path));
    srv_aof_path(s, "temp-base-startup.rdb", tmp, sizeof(tmp));
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        core_log(CORE_LOG_WARNING, "Can't create the AOF base %s: %s", tmp, strerror(errno));
        return -1;
    }
    rc = persist_rdb_save_fd(s->shard, s->codec, fd, core_time_unix_ms(),
                             s->cmd.hooks.mem_used(s), NULL, NULL, NULL, &err);
    if (rc != TERSE_OK || fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0 ||
        persist_aof_manifest_add(&a->man, PERSIST_AOF_BASE, name, seq) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "Can't create the AOF base %s", path);
        unlink(tmp);
        return -1;
    }
    core_log(CORE_LOG_NOTICE, "Creating AOF base file %s on server start", name);
    return 0;
}

static uint64_t size_of(struct srv *s, const char *name)
{
    char path[AOF_PATH_MAX];
    struct stat st;

    srv_aof_path(s, name, path, sizeof(path));
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int srv_aof_startup(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    char name[PERSIST_AOF_NAME_CAP], path[AOF_PATH_MAX];
    size_t n_hist;
    int rc, changed = 0, opened;

    if (srv_aof_dir_create(s) != 0 || (rc = srv_aof_manifest_read(s)) < 0) {
        return -1;
    }
    a->man_loaded = 1;
    if (rc == 0 && srv_aof_load(s) < 0) {
        return -1;
    }
    if (!a->man.has_base && a->man.n_incr == 0) {
        if (create_base(s) != 0) {
            return -1;
        }
        changed = 1;
    }
    opened = a->man.n_incr > 0;
    if (!opened) {
        snprintf(name, sizeof(name), "%s.%lld.incr.aof", s->cfg.appendfilename,
                 a->man.incr_seq + 1);
        if (persist_aof_manifest_add(&a->man, PERSIST_AOF_INCR, name, a->man.incr_seq + 1) !=
            TERSE_OK) {
            return -1;
        }
        changed = 1;
    }
    srv_aof_path(s, a->man.incr[a->man.n_incr - 1].name, path, sizeof(path));
    a->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (a->fd < 0) {
        core_log(CORE_LOG_WARNING, "Can't open the append-only file %s: %s", path,
                 strerror(errno));
        return -1;
    }
    /* The manifest is written only when it changed: a server restarted on a full disk with
     * its AOF in place starts (as Redis does) and writes nothing until a client writes.
     * History files go once a manifest without them is on disk; when only they would change
     * it and it cannot be written (logged), they stay, listed, until a rewrite succeeds. */
    n_hist = a->man.n_hist;
    a->man.n_hist = 0;
    if ((changed || n_hist > 0) && srv_aof_manifest_persist(s) != 0) {
        a->man.n_hist = n_hist;
        if (changed) {
            return -1;
        }
        n_hist = 0;
    }
    for (size_t i = 0; i < n_hist; i++) {
        core_log(CORE_LOG_NOTICE, "Removing the history file %s", a->man.hist[i].name);
        srv_aof_path(s, a->man.hist[i].name, path, sizeof(path));
        unlink(path);
    }
    if (srv_aof_bio_start(&a->bio) != 0) {
        return -1;
    }
    core_log(CORE_LOG_NOTICE, "%s AOF incr file %s on server start",
             opened ? "Opening" : "Creating", a->man.incr[a->man.n_incr - 1].name);
    a->base_size = a->man.has_base ? size_of(s, a->man.base.name) : 0;
    a->cur_size = a->base_size;
    for (size_t i = 0; i < a->man.n_incr; i++) {
        a->cur_size += size_of(s, a->man.incr[i].name);
    }
    a->incr_size = size_of(s, a->man.incr[a->man.n_incr - 1].name);
    a->state = SRV_AOF_ON;
    srv_feed_consumers_changed(s);
    return 0;
}

/* ---- cron, INFO, hooks, teardown ---------------------------------------------------------- */

void srv_aof_cron(struct srv *s, int64_t now_ms)
{
    struct srv_aof *a = &s->aof;

    srv_aof_rewrite_reap(s, 0);
    srv_aof_flush(s);
    if (a->fd >= 0 && s->cfg.appendfsync == CORE_FSYNC_EVERYSEC &&
        now_ms - a->last_fsync_ms >= AOF_FSYNC_PERIOD_MS) {
        if (srv_aof_bio_pending(&a->bio) > 0) {
            a->delayed_fsync++; /* the disk is behind: one queued fsync is enough */
        } else {
            srv_aof_bio_fsync(&a->bio, a->fd, 0);
        }
        a->last_fsync_ms = now_ms;
    }
    if (core_buf_pending(&a->buf) == 0) {
        core_buf_shrink(&a->buf, AOF_BUF_KEEP);
    }
    if (a->child_pid > 0 || srv_child_busy(s)) {
        return;
    }
    if ((a->scheduled && a->last_write_ok) ||
        (a->state == SRV_AOF_WAIT_REWRITE && now_ms - a->last_try_ms > AOF_RETRY_DELAY_MS)) {
        (void)srv_aof_rewrite_start(s);
        return;
    }
    if (a->state == SRV_AOF_ON && a->last_write_ok && s->cfg.auto_aof_rewrite_percentage > 0 &&
        a->cur_size > s->cfg.auto_aof_rewrite_min_size &&
        now_ms - a->last_try_ms > AOF_RETRY_DELAY_MS) {
        uint64_t base = a->base_size > 0 ? a->base_size : 1;
        long long growth = (long long)(a->cur_size * 100 / base) - 100;
        if (growth >= s->cfg.auto_aof_rewrite_percentage) {
            core_log(CORE_LOG_NOTICE, "Starting automatic rewriting of AOF on %lld%% growth",
                     growth);
            (void)srv_aof_rewrite_start(s);
        }
    }
}

void srv_aof_info(struct srv *s, struct cmd_persist_info *out)
{
    struct srv_aof *a = &s->aof;

    out->aof_enabled = a->state != SRV_AOF_OFF;
    out->aof_rewrite_in_progress = a->child_pid > 0;
    out->aof_rewrite_scheduled = a->scheduled;
    out->aof_last_rewrite_time_s = a->last_rewrite_time_s;
    out->aof_current_rewrite_time_s =
        a->child_pid > 0 ? (long long)((core_time_unix_ms() - a->child_start_ms) / 1000) : -1;
    out->aof_last_bgrewrite_ok = a->last_rewrite_ok;
    out->aof_rewrites = a->n_rewrites;
    out->aof_rewrites_consecutive_failures = a->n_failures;
    out->aof_last_write_ok = a->last_write_ok && srv_aof_bio_err(&a->bio) == 0;
    out->aof_current_size = a->cur_size;
    out->aof_base_size = a->base_size;
    out->aof_buffer_length = core_buf_pending(&a->buf);
    out->aof_pending_bio_fsync = srv_aof_bio_pending(&a->bio);
    out->aof_delayed_fsync = a->delayed_fsync;
}

static int hook_bgrewriteaof(void *srv)
{
    return srv_aof_rewrite_start(srv);
}

void srv_aof_init(struct srv *s)
{
    struct srv_aof *a = &s->aof;

    memset(a, 0, sizeof(*a));
    atomic_init(&a->bio.err, 0);
    a->fd = -1;
    a->child_msg_fd = -1;
    a->last_write_ok = 1;
    a->last_rewrite_ok = 1;
    a->last_rewrite_time_s = -1;
    core_buf_init(&a->buf);
    persist_aof_manifest_init(&a->man, &s->cmd.alloc);
}

void srv_aof_hooks_install(struct srv *s)
{
    s->cmd.hooks.bgrewriteaof = hook_bgrewriteaof;
    s->cmd.hooks.loadaof = srv_aof_loadaof;
}

void srv_aof_teardown(struct srv *s)
{
    struct srv_aof *a = &s->aof;

    srv_aof_rewrite_kill(s);
    srv_aof_flush(s);
    if (a->fd >= 0) {
        if (fdatasync(a->fd) != 0 && errno != EINVAL) {
            core_log(CORE_LOG_WARNING, "Fail to fsync the AOF file: %s", strerror(errno));
        }
        close(a->fd);
        a->fd = -1;
    }
    srv_aof_bio_stop(&a->bio);
    core_buf_deinit(&a->buf);
    persist_aof_manifest_deinit(&a->man);
    a->state = SRV_AOF_OFF;
}
