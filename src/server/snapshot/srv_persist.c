/*
 * srv_persist: snapshots wired into the server: load at startup, SAVE, BGSAVE (a forked
 * child, as Redis does), save points from cron, SHUTDOWN [SAVE|NOSAVE], DEBUG RELOAD and the
 * INFO persistence figures. The format and the file handling are persist/'s.
 *
 * Files: <dir>/<dbfilename>, written through <dir>/temp-<pid>.terse by the process that
 * saves (the child for BGSAVE), renamed into place once complete and fsynced.
 *
 * BGSAVE: fork(); the child saves the frozen copy of the shard and exits 0 or 1; the parent
 * keeps serving and reaps it from cron (waitpid, WNOHANG). One child at a time. The child
 * asks the kernel to kill it when the parent dies (PR_SET_PDEATHSIG), so no orphan renames a
 * snapshot under a restarted server. Change count: cmd.dirty as the child forked is what its
 * snapshot covers; on success it is subtracted (changes made meanwhile stay counted).
 *
 * Startup: the snapshot is loaded (verified completely, then inserted) before the listeners
 * are opened, so no client ever sees a partial dataset and -LOADING is never needed. A
 * snapshot that fails verification stops startup with the file, the offset and the reason;
 * to start empty instead, move the file aside or point dbfilename elsewhere.
 *
 * S3: when dir is s3://bucket/prefix, every save (SAVE, BGSAVE's child, save points,
 * SHUTDOWN, DEBUG RELOAD) streams a new object there and startup restores the newest one
 * (srv_backup.c). A BGSAVE child that fails writes its reason (S3's code and message) to a
 * pipe; the parent logs it when it reaps the child. Nothing under an s3:// dir is a local
 * path: no file is opened there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/mech/cmd_change.h"
#include "core/core_log.h"
#include "core/core_time.h"
#include "persist/persist.h"
#include "server/aof/srv_aof.h"
#include "server/snapshot/srv_backup.h"
#include "server/snapshot/srv_persist.h"
#include "terse/status.h"
#include "cmd/keyspace/cmd_after_load.h"

#define PERSIST_PATH_MAX 4096
/* After a failed BGSAVE, save points wait this long before trying again (Redis's
 * CONFIG_BGSAVE_RETRY_DELAY). */
#define PERSIST_RETRY_DELAY_MS 5000
/* Room for the reason of a failed save (an S3 error line plus the object's name). */
#define PERSIST_WHY_CAP 1024

static int is_s3(const struct srv *s)
{
    return srv_backup_is_s3(s->cfg.dir);
}

/* <dir>/<name> into out. */
static void join_path(const struct srv *s, const char *name, char *out, size_t cap)
{
    const char *dir = s->cfg.dir[0] != '\0' ? s->cfg.dir : ".";
    size_t n = strlen(dir);

    snprintf(out, cap, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name);
}

static void snapshot_path(const struct srv *s, char *out, size_t cap)
{
    join_path(s, s->cfg.dbfilename, out, cap);
}

static void temp_path(const struct srv *s, long pid, char *out, size_t cap)
{
    char name[64];

    snprintf(name, sizeof(name), "temp-%ld.terse", pid);
    join_path(s, name, out, cap);
}

/* Saves in this process (SAVE, SHUTDOWN, DEBUG RELOAD, and the BGSAVE child); on failure the
 * reason goes to the log and into why. */
static int save_here(struct srv *s, int64_t now_ms, char *why, size_t why_cap)
{
    char path[PERSIST_PATH_MAX], tmp[PERSIST_PATH_MAX];
    struct persist_save_stats st;
    struct persist_error err;
    uint64_t t0 = core_time_mono_us();
    int rc;

    if (is_s3(s)) {
        rc = srv_backup_save(s, now_ms, why, why_cap);
        if (rc != TERSE_OK) {
            core_log(CORE_LOG_WARNING, "Failed saving the snapshot to S3: %s", why);
        }
        return rc;
    }
    snapshot_path(s, path, sizeof(path));
    temp_path(s, (long)getpid(), tmp, sizeof(tmp));
    rc = persist_save_file(s->shard, path, tmp, now_ms, &s->cmd.alloc, &st, &err);
    if (rc != TERSE_OK) {
        snprintf(why, why_cap, "%s", err.reason); /* the path is in the log line below */
        core_log(CORE_LOG_WARNING, "Failed saving the snapshot %s: %s", path, err.reason);
        return rc;
    }
    core_log(CORE_LOG_NOTICE,
             "DB saved on disk: %s, %llu keys (%llu values deduplicated), %llu bytes, %.3f s",
             path, (unsigned long long)st.n_keys, (unsigned long long)st.n_dedup,
             (unsigned long long)st.file_bytes, (double)(core_time_mono_us() - t0) / 1e6);
    return TERSE_OK;
}

static void saved(struct srv *s, int64_t now_ms, uint64_t covered)
{
    struct srv_persist *p = &s->persist;

    s->cmd.dirty = s->cmd.dirty > covered ? s->cmd.dirty - covered : 0;
    p->last_save_ms = now_ms;
    p->n_saves++;
    p->last_bgsave_ok = 1;
    srv_persist_misconf_sync(s);
}

static int save_fg(struct srv *s)
{
    char why[PERSIST_WHY_CAP];
    int64_t now = core_time_unix_ms();

    if (s->persist.child_pid > 0) {
        return CMD_SAVE_BUSY;
    }
    if (save_here(s, now, why, sizeof(why)) != TERSE_OK) {
        /* As Redis's rdbSave: the caller hears of it (SAVE's -ERR, SHUTDOWN's refusal);
         * rdb_last_bgsave_status, and so -MISCONF, is about background saves only. */
        return CMD_SAVE_FAILED;
    }
    saved(s, now, s->cmd.dirty);
    return CMD_SAVE_OK;
}

static void child_main(struct srv *s, pid_t parent, int msg_fd)
{
    char why[PERSIST_WHY_CAP];

    srv_child_enter(s, parent);
    why[0] = '\0';
    if (save_here(s, core_time_unix_ms(), why, sizeof(why)) == TERSE_OK) {
        _exit(0);
    }
    if (msg_fd >= 0) {
        /* One short write into an empty pipe: never blocks. */
        ssize_t n = write(msg_fd, why, strnlen(why, sizeof(why) - 1));
        (void)n;
    }
    _exit(1);
}

static int bgsave_start(struct srv *s)
{
    struct srv_persist *p = &s->persist;
    pid_t parent = getpid(), pid;
    int msg[2] = {-1, -1};

    p->last_bgsave_try_ms = core_time_unix_ms();
    if (pipe2(msg, O_CLOEXEC) != 0) {
        msg[0] = msg[1] = -1; /* the save still runs; only its reason would be lost */
    }
    pid = fork();
    if (pid < 0) {
        core_log(CORE_LOG_WARNING, "Can't save in background: fork: %s", strerror(errno));
        p->last_bgsave_ok = 0;
        srv_persist_misconf_sync(s);
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
    p->child_msg_fd = msg[0];
    core_log(CORE_LOG_NOTICE, "Background saving started by pid %ld", (long)pid);
    p->child_pid = pid;
    p->child_start_ms = p->last_bgsave_try_ms;
    p->child_dirty = s->cmd.dirty;
    return CMD_SAVE_OK;
}

/* The child's failure report, "" when there is none. The child has exited: its end of the
 * pipe is closed, so the read does not block. */
static void child_msg_take(struct srv_persist *p, char *out, size_t cap)
{
    ssize_t n = 0;

    out[0] = '\0';
    if (p->child_msg_fd < 0) {
        return;
    }
    do {
        n = read(p->child_msg_fd, out, cap - 1);
    } while (n < 0 && errno == EINTR);
    out[n > 0 ? (size_t)n : 0] = '\0';
    close(p->child_msg_fd);
    p->child_msg_fd = -1;
}

/* Reaps the child if it has exited (block: wait for it). */
static void child_reap(struct srv *s, int block)
{
    struct srv_persist *p = &s->persist;
    char tmp[PERSIST_PATH_MAX], why[PERSIST_WHY_CAP];
    int status = 0;
    pid_t r;
    int64_t now;

    if (p->child_pid <= 0) {
        return;
    }
    do {
        r = waitpid(p->child_pid, &status, block ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) {
        return;
    }
    now = core_time_unix_ms();
    child_msg_take(p, why, sizeof(why));
    if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        core_log(CORE_LOG_NOTICE, "Background saving terminated with success");
        saved(s, now, p->child_dirty);
    } else {
        if (r > 0 && WIFSIGNALED(status)) {
            core_log(CORE_LOG_WARNING, "Background saving terminated by signal %d",
                     WTERMSIG(status));
        } else if (why[0] != '\0') {
            core_log(CORE_LOG_WARNING, "Background saving error: %s", why);
        } else {
            core_log(CORE_LOG_WARNING, "Background saving error");
        }
        if (!is_s3(s)) {
            temp_path(s, (long)p->child_pid, tmp, sizeof(tmp));
            unlink(tmp);
        }
        p->last_bgsave_ok = 0;
        srv_persist_misconf_sync(s);
    }
    p->last_bgsave_time_s = (long long)((now - p->child_start_ms) / 1000);
    p->child_pid = 0;
}

static void child_kill(struct srv *s)
{
    if (s->persist.child_pid > 0) {
        int was_ok = s->persist.last_bgsave_ok;
        core_log(CORE_LOG_WARNING, "There is a child saving a snapshot. Killing it!");
        kill(s->persist.child_pid, SIGKILL);
        child_reap(s, 1);
        /* Stopped on purpose, not failed (Redis kills it with SIGUSR1, which does not
         * count): no -MISCONF for it. */
        s->persist.last_bgsave_ok = was_ok;
        srv_persist_misconf_sync(s);
    }
}

/* ---- hooks -------------------------------------------------------------------------------- */

static int hook_save(void *arg)
{
    return save_fg(arg);
}

static int hook_bgsave(void *arg, int schedule)
{
    struct srv *s = arg;

    if (srv_child_busy(s)) {
        /* Redis answers "already in progress" to SCHEDULE too when the child is an RDB one
         * (a replication sync's included). */
        (void)schedule;
        return CMD_SAVE_BUSY;
    }
    return bgsave_start(s);
}

static void hook_flushall(void *arg)
{
    struct srv *s = arg;
    char why[PERSIST_WHY_CAP];
    int64_t now = core_time_unix_ms();

    child_kill(s); /* its snapshot would bring the flushed keys back */
    if (s->cfg.save.n_point > 0 && save_here(s, now, why, sizeof(why)) == TERSE_OK) {
        /* as Redis's rdbSave: not a SAVE (rdb_saves), and a failure changes no status */
        s->cmd.dirty = 0;
        s->persist.last_save_ms = now;
        s->persist.last_bgsave_ok = 1;
        srv_persist_misconf_sync(s);
    }
}

static int64_t hook_lastsave(void *arg)
{
    struct srv *s = arg;
    return s->persist.last_save_ms / 1000;
}

static void hook_persist_info(void *arg, struct cmd_persist_info *out)
{
    struct srv *s = arg;
    const struct srv_persist *p = &s->persist;

    memset(out, 0, sizeof(*out));
    out->bgsave_in_progress = p->child_pid > 0;
    out->last_bgsave_ok = p->last_bgsave_ok;
    out->last_save_s = p->last_save_ms / 1000;
    out->last_bgsave_time_s = p->last_bgsave_time_s;
    out->current_bgsave_time_s =
        p->child_pid > 0 ? (long long)((core_time_unix_ms() - p->child_start_ms) / 1000) : -1;
    out->saves = p->n_saves;
    out->last_load_keys_expired = p->load_expired;
    out->last_load_keys_loaded = p->load_loaded;
    srv_aof_info(s, out);
}

/* Loads path into a fresh shard and swaps it in; the old dataset stays on any failure. */
static int reload_file(struct srv *s, char *errbuf, size_t cap)
{
    char path[PERSIST_PATH_MAX];
    struct store_shard *fresh = NULL;
    struct persist_load_stats st;
    struct persist_error err;
    char why[PERSIST_WHY_CAP];
    int rc;

    snapshot_path(s, path, sizeof(path));
    if (store_shard_create(&fresh, store_shard_n_db(s->shard)) != TERSE_OK) {
        snprintf(errbuf, cap, "ERR Error trying to load the RDB dump: out of memory");
        return -1;
    }
    if (is_s3(s)) {
        rc = srv_backup_restore(s, fresh, core_time_unix_ms(), &st, why, sizeof(why));
        if (rc != TERSE_OK) {
            core_log(CORE_LOG_WARNING, "DEBUG RELOAD: %s", why);
            snprintf(errbuf, cap, "ERR Error trying to load the RDB dump, check server logs.");
            store_shard_destroy(&fresh);
            return -1;
        }
    } else if ((rc = persist_load_file(fresh, path, core_time_unix_ms(), &st, &err)) !=
               TERSE_OK) {
        core_log(CORE_LOG_WARNING, "DEBUG RELOAD: cannot load %s at offset %llu: %s", path,
                 (unsigned long long)err.offset,
                 rc == TERSE_ENOTFOUND ? "no such file" : err.reason);
        snprintf(errbuf, cap, "ERR Error trying to load the RDB dump, check server logs.");
        store_shard_destroy(&fresh);
        return -1;
    }
    store_shard_destroy(&s->shard);
    s->shard = fresh;
    s->cmd.shard = fresh;
    cmd_value_after_load(&s->cmd);
    cmd_settings_changed(&s->cmd); /* the change listener, on the fresh shard */
    s->persist.load_loaded = st.n_loaded;
    s->persist.load_expired = st.n_expired;
    return 0;
}

static int hook_reload(void *arg, int nosave, char *errbuf, size_t cap)
{
    struct srv *s = arg;

    if (!nosave) {
        int rc = save_fg(s);
        if (rc == CMD_SAVE_BUSY) {
            snprintf(errbuf, cap, "ERR Background save already in progress");
            return -1;
        }
        if (rc != CMD_SAVE_OK) {
            snprintf(errbuf, cap, "ERR Error trying to save the DB, check server logs.");
            return -1;
        }
    }
    return reload_file(s, errbuf, cap);
}

void srv_persist_hooks_install(struct srv *s)
{
    struct cmd_hooks *h = &s->cmd.hooks;

    h->save = hook_save;
    h->bgsave = hook_bgsave;
    h->lastsave = hook_lastsave;
    h->flushall = hook_flushall;
    h->persist_info = hook_persist_info;
    h->reload = hook_reload;
    s->persist.last_save_ms = core_time_unix_ms();
    s->persist.last_bgsave_ok = 1;
    srv_persist_misconf_sync(s);
    s->persist.last_bgsave_time_s = -1;
    s->persist.child_msg_fd = -1;
}

/* ---- startup, cron, shutdown -------------------------------------------------------------- */

int srv_persist_load(struct srv *s)
{
    char path[PERSIST_PATH_MAX];
    struct persist_load_stats st;
    struct persist_error err;
    char why[PERSIST_WHY_CAP];
    uint64_t t0 = core_time_mono_us();
    int rc;

    if (is_s3(s)) {
        rc = srv_backup_restore(s, s->shard, core_time_unix_ms(), &st, why, sizeof(why));
        if (rc == TERSE_ENOTFOUND) {
            core_log(CORE_LOG_NOTICE, "Starting with an empty dataset: %s", why);
            return 0;
        }
        if (rc != TERSE_OK) {
            core_log(CORE_LOG_WARNING,
                     "Cannot restore the snapshot from %s: %s. Refusing to start without it; "
                     "to start with an empty dataset instead, start with a dir that holds no "
                     "snapshot (a new s3:// prefix, or a local directory, then CONFIG SET dir "
                     "s3://... once S3 is reachable) and restart.",
                     s->cfg.dir, why);
            return -1;
        }
        cmd_value_after_load(&s->cmd);
        s->persist.load_loaded = st.n_loaded;
        s->persist.load_expired = st.n_expired;
        core_log(CORE_LOG_NOTICE, "DB loaded from %s: %.3f seconds, %llu keys (%llu expired "
                 "keys skipped)", s->cfg.dir, (double)(core_time_mono_us() - t0) / 1e6,
                 (unsigned long long)st.n_loaded, (unsigned long long)st.n_expired);
        return 0;
    }
    snapshot_path(s, path, sizeof(path));
    rc = persist_load_file(s->shard, path, core_time_unix_ms(), &st, &err);
    if (rc == TERSE_ENOTFOUND) {
        return 0;
    }
    if (rc != TERSE_OK) {
        core_log(CORE_LOG_WARNING,
                 "Bad snapshot %s at offset %llu: %s. Refusing to start with it; to start "
                 "with an empty dataset instead, move the file aside (or set dbfilename to "
                 "another name) and restart.",
                 path, (unsigned long long)err.offset, err.reason);
        return -1;
    }
    cmd_value_after_load(&s->cmd);
    cmd_settings_changed(&s->cmd); /* the change listener, on the fresh shard */
    s->persist.load_loaded = st.n_loaded;
    s->persist.load_expired = st.n_expired;
    core_log(CORE_LOG_NOTICE, "DB loaded from disk: %.3f seconds, %llu keys (%llu expired "
             "keys skipped), %s", (double)(core_time_mono_us() - t0) / 1e6,
             (unsigned long long)st.n_loaded, (unsigned long long)st.n_expired, path);
    return 0;
}

void srv_persist_cron(struct srv *s, int64_t now_ms)
{
    struct srv_persist *p = &s->persist;

    child_reap(s, 0);
    if (srv_child_busy(s)) {
        return;
    }
    for (size_t i = 0; i < s->cfg.save.n_point; i++) {
        const struct core_config_save_point *sp = &s->cfg.save.point[i];

        if (s->cmd.dirty >= (uint64_t)sp->changes &&
            now_ms - p->last_save_ms > sp->seconds * 1000 &&
            (now_ms - p->last_bgsave_try_ms > PERSIST_RETRY_DELAY_MS || p->last_bgsave_ok)) {
            core_log(CORE_LOG_NOTICE, "%lld changes in %lld seconds. Saving...",
                     (long long)sp->changes, (long long)sp->seconds);
            bgsave_start(s);
            return;
        }
    }
}

int srv_persist_shutdown(struct srv *s, unsigned flags)
{
    child_kill(s);
    if (s->aof.state == SRV_AOF_WAIT_REWRITE && s->aof.child_pid > 0) {
        /* appendonly was just turned on: the dataset is not in the AOF until its first
         * rewrite ends (Redis refuses to exit too). */
        if (!(flags & CMD_SHUTDOWN_FORCE)) {
            core_log(CORE_LOG_WARNING, "Writing initial AOF, can't exit.");
            return -1;
        }
        core_log(CORE_LOG_WARNING, "Writing initial AOF. Exit anyway.");
    }
    if (flags & CMD_SHUTDOWN_NOSAVE) {
        return 0;
    }
    if ((flags & CMD_SHUTDOWN_SAVE) || s->cfg.save.n_point > 0) {
        core_log(CORE_LOG_NOTICE, "Saving the final snapshot before exiting.");
        if (save_fg(s) != CMD_SAVE_OK) {
            if (flags & CMD_SHUTDOWN_FORCE) {
                return 0;
            }
            core_log(CORE_LOG_WARNING, "Error trying to save the DB, can't exit.");
            return -1;
        }
    }
    return 0;
}

void srv_persist_teardown(struct srv *s)
{
    child_kill(s);
}
