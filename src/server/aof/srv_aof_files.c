/*
 * srv_aof_files: the AOF directory and its manifest on disk. The manifest is read whole
 * (at most PERSIST_AOF_MANIFEST_MAX bytes) and parsed by persist_aof_manifest.c; it is written
 * to temp-<appendfilename>.manifest, fsynced, renamed over <appendfilename>.manifest, and the
 * directory fsynced, so a crash leaves the old or the new manifest, never a torn one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_mem.h"
#include "server/aof/srv_aof_files.h"
#include "terse/status.h"

#define AOF_PATH_MAX 4096

void srv_aof_path(const struct srv *s, const char *name, char *out, size_t cap)
{
    const char *dir = s->cfg.dir[0] != '\0' ? s->cfg.dir : ".";
    size_t n = strlen(dir);

    snprintf(out, cap, "%s%s%s/%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/",
             s->cfg.appenddirname, name);
}

int srv_aof_dir_create(struct srv *s)
{
    char path[AOF_PATH_MAX];
    size_t n;

    srv_aof_path(s, "", path, sizeof(path));
    n = strlen(path);
    path[n - 1] = '\0'; /* the trailing '/' */
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        core_log(CORE_LOG_WARNING, "Can't open or create append-only dir %s: %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

void srv_aof_dir_fsync(struct srv *s)
{
    char path[AOF_PATH_MAX];
    int fd;

    srv_aof_path(s, ".", path, sizeof(path));
    fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        if (fsync(fd) != 0) {
            core_log(CORE_LOG_WARNING, "Fail to fsync AOF directory %s: %s", path,
                     strerror(errno));
        }
        close(fd);
    }
}

int srv_aof_manifest_read(struct srv *s)
{
    char name[PERSIST_AOF_NAME_CAP + 16], path[AOF_PATH_MAX];
    struct persist_error err;
    struct stat st;
    char *text = NULL;
    ssize_t n;
    size_t len = 0;
    int fd, rc = -1;

    snprintf(name, sizeof(name), "%s.manifest", s->cfg.appendfilename);
    srv_aof_path(s, name, path, sizeof(path));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            persist_aof_manifest_reset(&s->aof.man);
            return 1;
        }
        core_log(CORE_LOG_WARNING, "Fatal error: can't open the AOF manifest %s for reading: %s",
                 path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_size > (off_t)PERSIST_AOF_MANIFEST_MAX) {
        core_log(CORE_LOG_WARNING, "The AOF manifest %s is unreadable or too large", path);
        close(fd);
        return -1;
    }
    /* owned here, freed before return */
    text = core_alloc((size_t)st.st_size + 1);
    while (text != NULL && len < (size_t)st.st_size &&
           (n = read(fd, text + len, (size_t)st.st_size - len)) != 0) {
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            core_log(CORE_LOG_WARNING, "Read AOF manifest %s failed: %s", path, strerror(errno));
            goto out;
        }
        len += (size_t)n;
    }
    if (text == NULL) {
        core_log(CORE_LOG_WARNING, "Out of memory reading the AOF manifest %s", path);
        goto out;
    }
    if (persist_aof_manifest_parse(&s->aof.man, (const uint8_t *)text, len, &err) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "*** FATAL AOF MANIFEST FILE ERROR *** %s, at line %llu: %s",
                 path, (unsigned long long)err.offset, err.reason);
        goto out;
    }
    rc = 0;
out:
    core_free(text);
    close(fd);
    return rc;
}

int srv_aof_manifest_persist(struct srv *s)
{
    char name[PERSIST_AOF_NAME_CAP + 16], path[AOF_PATH_MAX], tmp[AOF_PATH_MAX];
    size_t cap = persist_aof_manifest_size(&s->aof.man) + 1, n, off = 0;
    char *text = core_alloc(cap);
    int fd, ok = 0, e;

    if (text == NULL) {
        core_log(CORE_LOG_WARNING, "Out of memory writing the AOF manifest");
        return -1;
    }
    n = persist_aof_manifest_format(&s->aof.man, text, cap);
    snprintf(name, sizeof(name), "%s.manifest", s->cfg.appendfilename);
    srv_aof_path(s, name, path, sizeof(path));
    snprintf(name, sizeof(name), "temp-%s.manifest", s->cfg.appendfilename);
    srv_aof_path(s, name, tmp, sizeof(tmp));
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        while (off < n) {
            ssize_t w = write(fd, text + off, n - off);
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w <= 0) {
                if (w == 0) {
                    errno = ENOSPC;
                }
                break;
            }
            off += (size_t)w;
        }
        ok = off == n && fsync(fd) == 0;
        e = errno;
        if (close(fd) != 0 && ok) {
            ok = 0;
            e = errno;
        }
        errno = e;
    }
    core_free(text);
    if (!ok || rename(tmp, path) != 0) {
        e = errno;
        core_log(CORE_LOG_WARNING, "Error trying to write the AOF manifest file %s: %s", path,
                 strerror(e));
        unlink(tmp);
        errno = e; /* the caller's to report */
        return -1;
    }
    srv_aof_dir_fsync(s);
    return 0;
}
