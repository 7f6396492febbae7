/*
 * srv_aof_rewrite: BGREWRITEAOF, Redis 7.0's multi-part way, and the manifest on disk.
 *
 * At the fork the parent writes out what it holds and opens a new incr file (AOF on: the next
 * sequence number, added to the manifest at once; appendonly just turned on: the temporary
 * temp-<appendfilename>.incr, in no manifest yet), so every write after the fork lands in a
 * file the new base does not cover. The child writes the base, an RDB file of the frozen
 * dataset (persist_rdb_save_fd), to temp-rewriteaof-bg-<pid>.aof, fsyncs it and exits. When it
 * succeeded, the parent renames it <appendfilename>.<seq>.base.rdb (and the temporary incr
 * file to its numbered name), writes the new manifest atomically (temp file, fsync, rename,
 * fsync of the directory: a crash leaves the old or the new manifest, each naming files that
 * exist), then deletes the files the new base covers. A failed child leaves the manifest as
 * it was (its incr files still replay everything).
 *
 *   dir/appenddirname/
 *     appendonly.aof.manifest       file appendonly.aof.2.base.rdb seq 2 type b
 *     appendonly.aof.2.base.rdb     file appendonly.aof.5.incr.aof seq 5 type i
 *     appendonly.aof.5.incr.aof
 *
 * One child at a time, of any kind: a rewrite asked for while BGSAVE or a replication sync
 * runs is scheduled and started by cron once it ended.
 *
 * Write errors (a full disk): a rewrite does not start while the AOF holds writes it could not
 * write (they precede the fork: the new base has them, and the next incr file would replay
 * them again). A child that fails sends its errno through a pipe; when it was the first
 * rewrite of an AOF just turned on, that AOF is on disk nowhere, so writes get -MISCONF with
 * that errno until a first rewrite succeeds (retried every AOF_RETRY_DELAY_MS).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "persist/persist_rdb.h"
#include "server/aof/srv_aof.h"
#include "server/aof/srv_aof_bio.h"
#include "server/aof/srv_aof_files.h"
#include "server/aof/srv_aof_rewrite.h"
#include "terse/status.h"
#include "cmd/mech/cmd_feed.h"

#define AOF_PATH_MAX 4096

static void aof_name(const struct srv *s, char *out, size_t cap, long long seq, int base)
{
    snprintf(out, cap, "%s.%lld.%s", s->cfg.appendfilename, seq,
             base ? "base.rdb" : "incr.aof");
}

static void temp_incr_name(const struct srv *s, char *out, size_t cap)
{
    snprintf(out, cap, "temp-%s.incr", s->cfg.appendfilename);
}

/* ---- the child ---------------------------------------------------------------------------- */

/* The child failed with errno e: it tells the parent through msg_fd (one int into an empty
 * pipe: never blocks) and exits 1. */
static void child_fail(int msg_fd, int e)
{
    if (msg_fd >= 0) {
        ssize_t n = write(msg_fd, &e, sizeof(e));
        (void)n;
    }
    _exit(1);
}

static void child_main(struct srv *s, pid_t parent, int msg_fd)
{
    char name[64], path[AOF_PATH_MAX];
    struct persist_error err;
    int fd, rc, e;

    srv_child_enter(s, parent);
    snprintf(name, sizeof(name), "temp-rewriteaof-bg-%ld.aof", (long)getpid());
    srv_aof_path(s, name, path, sizeof(path));
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        e = errno;
        core_log(CORE_LOG_WARNING, "Opening the temp file for AOF rewrite %s: %s", path,
                 strerror(e));
        child_fail(msg_fd, e);
    }
    errno = 0;
    rc = persist_rdb_save_fd(s->shard, s->codec, fd, core_time_unix_ms(),
                             s->cmd.hooks.mem_used(s), NULL, NULL, NULL, &err);
    if (rc != TERSE_OK || fsync(fd) != 0 || close(fd) != 0) {
        e = errno != 0 ? errno : EIO; /* the failed write's, when the writer kept it */
        core_log(CORE_LOG_WARNING, "Write error writing append only file on disk: %s (%s)",
                 rc != TERSE_OK ? err.reason : "fsync", strerror(e));
        child_fail(msg_fd, e);
    }
    _exit(0);
}

/* ---- start -------------------------------------------------------------------------------- */

/* WAIT_REWRITE without a rewrite running: the temporary incr file and what the buffer still
 * holds for it are of no use (the next rewrite's base covers them). Their write error stays
 * (writes get -MISCONF, as in Redis) until a first rewrite succeeds. */
static void drop_temp_incr(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    char name[PERSIST_AOF_NAME_CAP], path[AOF_PATH_MAX];

    core_buf_consume(&a->buf, core_buf_pending(&a->buf));
    if (a->fd >= 0) {
        close(a->fd);
        a->fd = -1;
        temp_incr_name(s, name, sizeof(name));
        srv_aof_path(s, name, path, sizeof(path));
        unlink(path);
    }
}

/* Opens the incr file writes go to from the fork on. 0 or -1 (logged, nothing changed). */
static int open_next_incr(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    char name[PERSIST_AOF_NAME_CAP], path[AOF_PATH_MAX];
    long long seq = a->man.incr_seq + 1;
    int fd;

    if (a->state == SRV_AOF_OFF) {
        a->fork_incr_seq = seq;
        return 0;
    }
    if (a->state == SRV_AOF_WAIT_REWRITE) {
        temp_incr_name(s, name, sizeof(name));
    } else {
        aof_name(s, name, sizeof(name), seq, 0);
    }
    srv_aof_path(s, name, path, sizeof(path));
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        core_log(CORE_LOG_WARNING, "Can't open the append-only file %s: %s", path,
                 strerror(errno));
        return -1;
    }
    if (a->state == SRV_AOF_ON) {
        if (persist_aof_manifest_add(&a->man, PERSIST_AOF_INCR, name, seq) != TERSE_OK ||
            srv_aof_manifest_persist(s) != 0) {
            if (a->man.n_incr > 0 && a->man.incr[a->man.n_incr - 1].seq == seq) {
                a->man.n_incr--;
                a->man.incr_seq = seq - 1;
            }
            close(fd);
            unlink(path);
            return -1;
        }
    }
    if (a->fd >= 0) {
        srv_aof_bio_fsync(&a->bio, a->fd, 1); /* fsynced and closed off the loop */
    }
    a->fd = fd;
    a->incr_size = 0;
    a->fork_incr_seq = seq;
    return 0;
}

int srv_aof_rewrite_start(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    pid_t parent = getpid(), pid;
    int msg[2] = {-1, -1}, was_scheduled;

    if (a->child_pid > 0) {
        return CMD_SAVE_BUSY;
    }
    if (srv_child_busy(s) || s->cmd.feed.n_ops > 0) {
        /* another child, or inside a transaction whose ops are not fed yet */
        a->scheduled = 1;
        return CMD_SAVE_SCHEDULED;
    }
    was_scheduled = a->scheduled;
    a->scheduled = 0;
    a->last_try_ms = core_time_unix_ms();
    if (srv_aof_dir_create(s) != 0) {
        return CMD_SAVE_FAILED;
    }
    if (!a->man_loaded) {
        if (srv_aof_manifest_read(s) < 0) {
            return CMD_SAVE_FAILED;
        }
        a->man_loaded = 1;
    }
    srv_aof_flush(s);
    if (a->state == SRV_AOF_ON && core_buf_pending(&a->buf) > 0) {
        /* Writes from before the fork that the AOF could not write: they belong to the incr
         * file the new base follows, not to the next one, where they would replay twice.
         * A rewrite cron was to start stays due (it waits for the write error to clear). */
        core_log(CORE_LOG_WARNING, "Can't rewrite append only file in background: the AOF "
                 "can't write its buffer: %s", strerror(a->last_write_errno));
        a->last_rewrite_ok = 0;
        a->scheduled = was_scheduled;
        return CMD_SAVE_FAILED;
    }
    if (a->state == SRV_AOF_WAIT_REWRITE) {
        drop_temp_incr(s);
    }
    if (open_next_incr(s) != 0) {
        a->last_rewrite_ok = 0;
        return CMD_SAVE_FAILED;
    }
    if (pipe2(msg, O_CLOEXEC) != 0) {
        msg[0] = msg[1] = -1; /* the rewrite still runs; only the child's errno is lost */
    }
    pid = fork();
    if (pid < 0) {
        core_log(CORE_LOG_WARNING, "Can't rewrite append only file in background: fork: %s",
                 strerror(errno));
        a->n_failures++;
        a->last_rewrite_ok = 0;
        if (msg[0] >= 0) {
            close(msg[0]);
            close(msg[1]);
        }
        return CMD_SAVE_FAILED;
    }
    if (pid == 0) {
        if (msg[0] >= 0) {
            close(msg[0]);
        }
        child_main(s, parent, msg[1]);
    }
    if (msg[1] >= 0) {
        close(msg[1]);
    }
    a->child_msg_fd = msg[0];
    a->child_pid = pid;
    a->child_start_ms = a->last_try_ms;
    core_log(CORE_LOG_NOTICE, "Background append only file rewriting started by pid %ld",
             (long)pid);
    /* The feed goes to the new file from here, SELECTing its db first. */
    if (s->cmd.feed.on) {
        cmd_feed_enable(&s->cmd, 1);
    } else {
        srv_feed_consumers_changed(s);
    }
    return CMD_SAVE_OK;
}

/* ---- the end ------------------------------------------------------------------------------ */

static void unlink_name(struct srv *s, const char *name)
{
    char path[AOF_PATH_MAX];

    srv_aof_path(s, name, path, sizeof(path));
    if (unlink(path) != 0 && errno != ENOENT) {
        core_log(CORE_LOG_WARNING, "Can't delete the AOF file %s: %s", path, strerror(errno));
    }
}

static uint64_t file_size(struct srv *s, const char *name)
{
    char path[AOF_PATH_MAX];
    struct stat st;

    srv_aof_path(s, name, path, sizeof(path));
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The child succeeded: the new base and manifest replace the old ones. 0, or -1 with *err
 * the errno of what failed. */
static int install(struct srv *s, const char *tmp_base, int *err)
{
    struct srv_aof *a = &s->aof;
    struct persist_aof_manifest m;
    char base[PERSIST_AOF_NAME_CAP], incr[PERSIST_AOF_NAME_CAP], from[AOF_PATH_MAX],
        to[AOF_PATH_MAX];
    int rc = TERSE_OK;

    aof_name(s, base, sizeof(base), a->man.base_seq + 1, 1);
    persist_aof_manifest_init(&m, &s->cmd.alloc);
    rc = persist_aof_manifest_add(&m, PERSIST_AOF_BASE, base, a->man.base_seq + 1);
    for (size_t i = 0; i < a->man.n_incr && rc == TERSE_OK; i++) {
        if (a->man.incr[i].seq >= a->fork_incr_seq) {
            rc = persist_aof_manifest_add(&m, PERSIST_AOF_INCR, a->man.incr[i].name,
                                          a->man.incr[i].seq);
        }
    }
    if (rc == TERSE_OK && a->state == SRV_AOF_WAIT_REWRITE) {
        aof_name(s, incr, sizeof(incr), a->fork_incr_seq, 0);
        rc = persist_aof_manifest_add(&m, PERSIST_AOF_INCR, incr, a->fork_incr_seq);
    }
    srv_aof_path(s, tmp_base, from, sizeof(from));
    srv_aof_path(s, base, to, sizeof(to));
    if (rc != TERSE_OK || rename(from, to) != 0) {
        *err = rc != TERSE_OK ? ENOMEM : errno;
        core_log(CORE_LOG_WARNING, "Error moving the rewritten AOF base into place: %s",
                 strerror(*err));
        persist_aof_manifest_deinit(&m);
        return -1;
    }
    if (a->state == SRV_AOF_WAIT_REWRITE) {
        char tname[PERSIST_AOF_NAME_CAP];
        temp_incr_name(s, tname, sizeof(tname));
        srv_aof_path(s, tname, from, sizeof(from));
        srv_aof_path(s, incr, to, sizeof(to));
        if (rename(from, to) != 0) {
            *err = errno;
            core_log(CORE_LOG_WARNING, "Error renaming the temporary AOF incr file: %s",
                     strerror(*err));
            unlink_name(s, base);
            persist_aof_manifest_deinit(&m);
            return -1;
        }
    }
    /* Swap in the new manifest; on failure the old one is still what the disk says. */
    struct persist_aof_manifest old = a->man;
    a->man = m;
    if (srv_aof_manifest_persist(s) != 0) {
        *err = errno;
        a->man = old;
        persist_aof_manifest_deinit(&m);
        unlink_name(s, base);
        if (a->state == SRV_AOF_WAIT_REWRITE) {
            unlink_name(s, incr); /* in no manifest: the caller drops it as the temp file */
        }
        return -1;
    }
    if (old.has_base) {
        unlink_name(s, old.base.name);
    }
    for (size_t i = 0; i < old.n_incr; i++) {
        if (old.incr[i].seq < a->fork_incr_seq) {
            unlink_name(s, old.incr[i].name);
        }
    }
    for (size_t i = 0; i < old.n_hist; i++) {
        unlink_name(s, old.hist[i].name);
    }
    persist_aof_manifest_deinit(&old);
    a->base_size = file_size(s, base);
    a->cur_size = a->base_size;
    for (size_t i = 0; i < a->man.n_incr; i++) {
        a->cur_size += file_size(s, a->man.incr[i].name);
    }
    if (a->state == SRV_AOF_WAIT_REWRITE) {
        a->state = SRV_AOF_ON;
        core_log(CORE_LOG_NOTICE, "Background AOF rewrite finished successfully; the AOF is "
                 "on");
    }
    return 0;
}

/* The errno a failed child sent, 0 when none. The child has exited: its end of the pipe is
 * closed, so the read does not block. */
static int child_msg_take(struct srv_aof *a)
{
    int e = 0;
    ssize_t n;

    if (a->child_msg_fd < 0) {
        return 0;
    }
    do {
        n = read(a->child_msg_fd, &e, sizeof(e));
    } while (n < 0 && errno == EINTR);
    close(a->child_msg_fd);
    a->child_msg_fd = -1;
    return n == (ssize_t)sizeof(e) ? e : 0;
}

void srv_aof_rewrite_reap(struct srv *s, int block)
{
    struct srv_aof *a = &s->aof;
    char tmp[64];
    int status = 0, child_err, install_err = EIO, ok;
    pid_t r;
    int64_t now;

    if (a->child_pid <= 0) {
        return;
    }
    do {
        r = waitpid(a->child_pid, &status, block ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
        return;
    }
    now = core_time_unix_ms();
    child_err = child_msg_take(a);
    snprintf(tmp, sizeof(tmp), "temp-rewriteaof-bg-%ld.aof", (long)a->child_pid);
    a->child_pid = 0;
    a->last_rewrite_time_s = (long long)((now - a->child_start_ms) / 1000);
    srv_aof_flush(s); /* the new incr file holds everything fed so far */
    ok = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok && install(s, tmp, &install_err) == 0) {
        core_log(CORE_LOG_NOTICE, "Background AOF rewrite terminated with success");
        a->n_rewrites++;
        a->n_failures = 0;
        a->last_rewrite_ok = 1;
        if (!a->last_write_ok && core_buf_pending(&a->buf) == 0) {
            /* a first AOF that could not be written is now complete on disk */
            core_log(CORE_LOG_WARNING, "AOF write error looks solved, terse can write again.");
            a->last_write_ok = 1;
            srv_persist_misconf_sync(s);
        }
    } else {
        core_log(CORE_LOG_WARNING, "Background AOF rewrite terminated with error");
        unlink_name(s, tmp);
        a->n_failures++;
        a->last_rewrite_ok = 0;
        a->last_try_ms = now;
        if (a->state == SRV_AOF_WAIT_REWRITE) {
            drop_temp_incr(s); /* tried again after AOF_RETRY_DELAY_MS */
            if (ok || child_err != 0) {
                /* A write failed (the child's, or the parent's putting its files in place):
                 * the AOF just turned on is on disk nowhere, and writes acknowledged now
                 * would be in memory only. Refused until a first rewrite succeeds. */
                a->last_write_ok = 0;
                a->last_write_errno = ok ? install_err : child_err;
                srv_persist_misconf_sync(s);
            }
        }
    }
    srv_feed_consumers_changed(s);
}

void srv_aof_rewrite_kill(struct srv *s)
{
    struct srv_aof *a = &s->aof;
    char tmp[64];

    if (a->child_pid <= 0) {
        return;
    }
    core_log(CORE_LOG_NOTICE, "Killing running AOF rewrite child: %ld", (long)a->child_pid);
    kill(a->child_pid, SIGKILL);
    (void)waitpid(a->child_pid, NULL, 0);
    (void)child_msg_take(a);
    snprintf(tmp, sizeof(tmp), "temp-rewriteaof-bg-%ld.aof", (long)a->child_pid);
    unlink_name(s, tmp);
    a->child_pid = 0;
}
