/*
 * srv_backup: snapshots on S3-compatible storage, used when `dir` is s3://<bucket>/<prefix>
 * (Dragonfly's convention). The wire side is src/s3/ (docs/formats/backup.md); the snapshot
 * bytes are persist/'s (docs/formats/snapshot.md), unchanged.
 *
 * Object names: every save is a new object, so "the newest under the prefix" is the latest
 * complete backup and an upload that fails never damages an earlier one:
 *
 *   <prefix>/<stem>-<unix ms, 13 digits><ext>     dbfilename dump.terse -> dump-1717171717171.terse
 *
 * Restore lists <prefix>/<stem>- and takes the newest object (LastModified, then the greater
 * key: with fixed-width milliseconds, the later save). Old objects are not deleted; retention
 * is the bucket's lifecycle rule.
 *
 * Save (streamed, constant memory):
 *
 *   writer thread                      pipe                 calling thread
 *   persist_save_fd(shard, wfd) --> [ 1 MiB ] --> read --> s3_client_put (part buffer,
 *   closes wfd when done                                    aws-chunked, multipart)
 *
 * The snapshot is never staged on disk and never held whole: memory is the pipe, persist's
 * block buffer and one s3 part. At EOF the reader joins the writer and reports its status, so
 * a snapshot that failed half-way is never completed as an object (s3_client_put aborts the
 * multipart upload instead). When the upload fails first, closing the read end stops the
 * writer with EPIPE (SIGPIPE is ignored process-wide). The shard must not change meanwhile:
 * SAVE blocks the server's only thread; BGSAVE runs this in the forked child.
 *
 * Restore: the newest object is downloaded into an unlinked temporary file in $TMPDIR (default
 * /tmp), mapped, and given to persist_load_mem, which verifies everything before inserting.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_time.h"
#include "persist/persist.h"
#include "s3/s3_client.h"
#include "server/snapshot/srv_backup.h"
#include "terse/status.h"

#define BACKUP_PIPE_BYTES (1 << 20) /* pipe room asked for (Linux's unprivileged maximum) */
#define BACKUP_TMP_MAX 4096         /* longest temporary file path */

/* Where a backup goes: the parsed dir and the object key or listing prefix. */
struct backup_loc {
    char bucket[S3_BUCKET_MAX + 1];
    char prefix[S3_KEY_MAX + 1];
    char key[S3_KEY_MAX + 1];
};

static enum s3_checksum_alg checksum_of(int cfg)
{
    switch ((enum core_config_s3checksum)cfg) {
    case CORE_S3_CHECKSUM_CRC32:
        return S3_CHECKSUM_CRC32;
    case CORE_S3_CHECKSUM_CRC64NVME:
        return S3_CHECKSUM_CRC64NVME;
    case CORE_S3_CHECKSUM_SHA1:
        return S3_CHECKSUM_SHA1;
    case CORE_S3_CHECKSUM_SHA256:
        return S3_CHECKSUM_SHA256;
    case CORE_S3_CHECKSUM_CRC32C:
    default:
        return S3_CHECKSUM_CRC32C;
    }
}

/* Builds the client from the s3-* options; credentials come from the environment. */
static int client_create(const struct srv *s, struct s3_client **out, char *why, size_t cap)
{
    struct s3_settings set;
    int rc;

    s3_settings_default(&set);
    set.endpoint = s->cfg.s3_endpoint[0] != '\0' ? s->cfg.s3_endpoint : NULL;
    set.region = s->cfg.s3_region[0] != '\0' ? s->cfg.s3_region : NULL;
    set.path_style = s->cfg.s3_path_style;
    set.checksum = checksum_of(s->cfg.s3_checksum);
    set.part_size = (size_t)s->cfg.s3_part_size;
    set.part_checksums = s->cfg.s3_part_checksums;
    rc = s3_client_create(out, &set);
    if (rc != TERSE_OK) {
        snprintf(why, cap,
                 "cannot set up the S3 client (%s): check s3-endpoint, s3-region and the "
                 "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY environment variables",
                 terse_strerror(rc));
    }
    return rc;
}

/*
 * Splits dir into bucket and prefix and writes into loc->key either the object key of a save
 * at ms (ms >= 0) or the listing prefix of restores (ms < 0).
 */
static int backup_loc_init(const struct srv *s, int64_t ms, struct backup_loc *loc, char *why,
                           size_t cap)
{
    const char *name = s->cfg.dbfilename;
    const char *dot = strrchr(name, '.');
    size_t stem_len = dot != NULL && dot != name ? (size_t)(dot - name) : strlen(name);
    const char *ext = name + stem_len;
    size_t plen;
    int n;

    if (s3_url_parse(s->cfg.dir, loc->bucket, sizeof(loc->bucket), loc->prefix,
                     sizeof(loc->prefix)) != TERSE_OK) {
        snprintf(why, cap, "dir %s is not s3://<bucket>[/<prefix>] within S3's limits",
                 s->cfg.dir);
        return TERSE_EINVAL;
    }
    plen = strlen(loc->prefix);
    if (ms >= 0) {
        n = snprintf(loc->key, sizeof(loc->key), "%s%s%.*s-%013lld%s", loc->prefix,
                     plen > 0 && loc->prefix[plen - 1] != '/' ? "/" : "", (int)stem_len, name,
                     (long long)ms, ext);
    } else {
        n = snprintf(loc->key, sizeof(loc->key), "%s%s%.*s-", loc->prefix,
                     plen > 0 && loc->prefix[plen - 1] != '/' ? "/" : "", (int)stem_len, name);
    }
    if (n < 0 || (size_t)n >= sizeof(loc->key)) {
        snprintf(why, cap, "object key under %s is longer than S3_KEY_MAX", s->cfg.dir);
        return TERSE_ETOOBIG;
    }
    return TERSE_OK;
}

/* ---- save --------------------------------------------------------------------------------- */

struct backup_writer {
    struct store_shard *shard;     /* borrowed, frozen for the call */
    const terse_allocator *alloc;  /* borrowed */
    int64_t now_ms;
    int fd;                        /* write end of the pipe; the thread closes it */
    int rc;                        /* persist_save_fd's status, read after the join */
    struct persist_save_stats st;
    struct persist_error err;
};

struct backup_reader {
    int fd;                        /* read end of the pipe */
    pthread_t thread;              /* the writer */
    int joined;                    /* 1 once the writer was joined */
    int writer_failed;             /* 1 when the writer's error ended the upload */
    struct backup_writer *w;       /* borrowed */
};

static void *writer_main(void *arg)
{
    struct backup_writer *w = arg;

    w->rc = persist_save_fd(w->shard, w->fd, w->now_ms, w->alloc, &w->st, &w->err);
    close(w->fd);
    return NULL;
}

/* s3_read_fn over the pipe. */
static int reader_read(void *opaque, uint8_t *dst, size_t dst_cap, size_t *dst_len)
{
    struct backup_reader *r = opaque;
    ssize_t n = 0;

    *dst_len = 0;
    if (!r->joined) {
        do {
            n = read(r->fd, dst, dst_cap);
        } while (n < 0 && errno == EINTR);
        if (n < 0) {
            return TERSE_EIO;
        }
        if (n > 0) {
            *dst_len = (size_t)n;
            return TERSE_OK;
        }
        pthread_join(r->thread, NULL);
        r->joined = 1;
    }
    /* EOF: the object is complete only if the whole snapshot was written. */
    r->writer_failed = r->w->rc != TERSE_OK;
    return r->w->rc;
}

int srv_backup_save(struct srv *s, int64_t now_ms, char *why, size_t why_cap)
{
    struct backup_loc loc;
    struct backup_writer w;
    struct backup_reader r;
    struct s3_put_result res;
    struct s3_client *c = NULL;
    uint64_t t0 = core_time_mono_us();
    int fds[2], rc;

    memset(&res, 0, sizeof(res));
    if ((rc = backup_loc_init(s, now_ms, &loc, why, why_cap)) != TERSE_OK ||
        (rc = client_create(s, &c, why, why_cap)) != TERSE_OK) {
        return rc;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, why_cap, "pipe: %s", strerror(errno));
        s3_client_destroy(&c);
        return TERSE_EIO;
    }
    (void)fcntl(fds[1], F_SETPIPE_SZ, BACKUP_PIPE_BYTES); /* best effort: fewer wake-ups */
    memset(&w, 0, sizeof(w));
    w.shard = s->shard;
    w.alloc = &s->cmd.alloc;
    w.now_ms = now_ms;
    w.fd = fds[1];
    r.fd = fds[0];
    r.joined = 0;
    r.writer_failed = 0;
    r.w = &w;
    if ((rc = pthread_create(&r.thread, NULL, writer_main, &w)) != 0) {
        snprintf(why, why_cap, "cannot start the snapshot writer: %s", strerror(rc));
        close(fds[0]);
        close(fds[1]);
        s3_client_destroy(&c);
        return TERSE_EIO;
    }
    rc = s3_client_put(c, loc.bucket, loc.key, reader_read, &r, &res);
    close(r.fd); /* a writer still running stops with EPIPE */
    if (!r.joined) {
        pthread_join(r.thread, NULL);
    }
    if (rc == TERSE_OK) {
        double secs = (double)(core_time_mono_us() - t0) / 1e6;
        core_log(CORE_LOG_NOTICE,
                 "DB saved to s3://%s/%s: %llu keys, %llu bytes, %u parts, %u requests "
                 "(%u retries), %.3f s, %.1f MiB/s",
                 loc.bucket, loc.key, (unsigned long long)w.st.n_keys,
                 (unsigned long long)res.n_bytes, res.n_parts, res.n_requests, res.n_retries,
                 secs, secs > 0 ? (double)res.n_bytes / 1048576.0 / secs : 0.0);
    } else if (r.writer_failed) {
        snprintf(why, why_cap, "s3://%s/%s: writing the snapshot failed at byte %llu: %s%s",
                 loc.bucket, loc.key, (unsigned long long)w.err.offset, w.err.reason,
                 res.aborted < 0 ? " (AbortMultipartUpload failed too)" : "");
    } else {
        snprintf(why, why_cap, "s3://%s/%s: %s: %s%s", loc.bucket, loc.key,
                 terse_strerror(rc), s3_client_error(c),
                 res.aborted < 0 ? " (AbortMultipartUpload failed too: an incomplete "
                                   "multipart upload may remain)"
                                 : "");
    }
    s3_client_destroy(&c);
    return rc;
}

/* ---- restore ------------------------------------------------------------------------------ */

/* s3_write_fn into a file descriptor. */
static int fd_write(void *opaque, const uint8_t *src, size_t len)
{
    const int *fd = opaque;

    while (len > 0) {
        ssize_t n = write(*fd, src, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return TERSE_EIO;
        }
        src += n;
        len -= (size_t)n;
    }
    return TERSE_OK;
}

/* An unlinked temporary file in $TMPDIR (or /tmp); -1 with why set on failure. */
static int temp_file(char *why, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    char path[BACKUP_TMP_MAX];
    int fd;

    if (dir == NULL || dir[0] == '\0') {
        dir = "/tmp";
    }
    snprintf(path, sizeof(path), "%s/terse-restore-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, cap, "cannot create a temporary file in %s: %s", dir, strerror(errno));
        return -1;
    }
    unlink(path);
    return fd;
}

/* Verifies and loads the downloaded snapshot in fd into shard. */
static int load_fd(int fd, struct store_shard *shard, int64_t now_ms, const char *what,
                   struct persist_load_stats *st, char *why, size_t cap)
{
    struct persist_error err;
    struct stat sb;
    void *map;
    int rc;

    if (fstat(fd, &sb) != 0 || sb.st_size == 0) {
        snprintf(why, cap, "%s: empty object", what);
        return TERSE_ECORRUPT;
    }
    map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        snprintf(why, cap, "%s: mmap of the downloaded copy: %s", what, strerror(errno));
        return TERSE_EIO;
    }
    rc = persist_load_mem(shard, map, (size_t)sb.st_size, now_ms, st, &err);
    munmap(map, (size_t)sb.st_size);
    if (rc != TERSE_OK) {
        snprintf(why, cap, "%s at offset %llu: %s", what, (unsigned long long)err.offset,
                 err.reason[0] != '\0' ? err.reason : terse_strerror(rc));
    }
    return rc;
}

int srv_backup_restore(struct srv *s, struct store_shard *shard, int64_t now_ms,
                       struct persist_load_stats *st, char *why, size_t why_cap)
{
    struct backup_loc loc;
    struct s3_client *c = NULL;
    char key[S3_KEY_MAX + 1], what[S3_BUCKET_MAX + S3_KEY_MAX + 8];
    uint64_t n_bytes = 0, t0 = core_time_mono_us();
    int fd = -1, rc;

    if ((rc = backup_loc_init(s, -1, &loc, why, why_cap)) != TERSE_OK ||
        (rc = client_create(s, &c, why, why_cap)) != TERSE_OK) {
        return rc;
    }
    rc = s3_client_newest(c, loc.bucket, loc.key, key, sizeof(key));
    if (rc != TERSE_OK) {
        if (rc == TERSE_ENOTFOUND) {
            snprintf(why, why_cap, "no snapshot under s3://%s/%s", loc.bucket, loc.key);
        } else {
            snprintf(why, why_cap, "listing s3://%s/%s: %s: %s", loc.bucket, loc.key,
                     terse_strerror(rc), s3_client_error(c));
        }
        goto out;
    }
    snprintf(what, sizeof(what), "s3://%s/%s", loc.bucket, key);
    if ((fd = temp_file(why, why_cap)) < 0) {
        rc = TERSE_EIO;
        goto out;
    }
    rc = s3_client_get(c, loc.bucket, key, fd_write, &fd, &n_bytes);
    if (rc != TERSE_OK) {
        snprintf(why, why_cap, "downloading %s: %s: %s", what, terse_strerror(rc),
                 s3_client_error(c));
        /* a missing object here was deleted after the listing: not "nothing to restore" */
        rc = rc == TERSE_ENOTFOUND ? TERSE_EIO : rc;
        goto out;
    }
    s3_client_destroy(&c); /* frees the part buffer before the dataset grows */
    rc = load_fd(fd, shard, now_ms, what, st, why, why_cap);
    if (rc == TERSE_OK) {
        core_log(CORE_LOG_NOTICE, "Restored %s: %llu bytes, %.3f s", what,
                 (unsigned long long)n_bytes, (double)(core_time_mono_us() - t0) / 1e6);
    }
out:
    if (fd >= 0) {
        close(fd);
    }
    s3_client_destroy(&c);
    return rc;
}
