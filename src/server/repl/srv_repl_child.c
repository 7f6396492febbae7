/*
 * srv_repl_child: the forked child of a full resynchronisation (srv_repl.c). It writes the
 * dataset as an RDB file (persist_rdb_save_fd) to <dir>/temp-repl-<pid>.rdb (/tmp when dir is
 * an s3:// URL); the parent, once it has reaped the child, opens the file for every replica
 * that waited for it, unlinks it (the descriptors keep it until sent) and starts the
 * transfer. One child at a time, BGSAVE's included (srv_persist.c).
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
#include "core/core_time.h"
#include "persist/persist.h"
#include "persist/persist_rdb.h"
#include "server/repl/srv_repl.h"
#include "server/repl/srv_repl_child.h"
#include "terse/status.h"
#include "cmd/mech/cmd_feed.h"

#define REPL_PATH_MAX 4096

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
    int fd, rc;

    srv_child_enter(s, parent);
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
void srv_repl_child_start(struct srv *s)
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
                srv_repl_schedule(s, c);
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
        srv_repl_schedule(s, c);
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
            srv_repl_schedule(s, c);
            continue;
        }
        l->rdb_left = (uint64_t)st.st_size;
        n = snprintf(head, sizeof(head), "$%llu\r\n", (unsigned long long)st.st_size);
        if (core_buf_append(&c->conn.out, head, (size_t)n) != TERSE_OK) {
            c->cmd.flags |= CMD_CLIENT_CLOSE_ASAP;
        }
        l->state = SEND_RDB;
        srv_repl_schedule(s, c);
    }
    (void)unlink(path); /* open descriptors keep the bytes until sent */
    if (ok) {
        core_log(CORE_LOG_NOTICE, "Background RDB transfer started");
    }
}

void srv_repl_child_reap(struct srv *s)
{
    const int block = 0;

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

void srv_repl_child_kill(struct srv *s)
{
    char path[REPL_PATH_MAX];

    if (s->repl.child_pid <= 0) {
        return;
    }
    kill(s->repl.child_pid, SIGKILL);
    child_path(s, (long)s->repl.child_pid, path, sizeof(path));
    (void)waitpid(s->repl.child_pid, NULL, 0);
    (void)unlink(path);
    s->repl.child_pid = 0;
}
