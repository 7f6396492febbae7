/*
 * s3-tool: a small command-line driver of the s3 layer for the integration tests.
 *
 *   s3-tool put BUCKET KEY FILE|-      upload (pull-style read callback over the file)
 *   s3-tool get BUCKET KEY FILE|-      download (write callback into the file)
 *   s3-tool newest BUCKET PREFIX       print the newest key under PREFIX
 *   s3-tool abort BUCKET KEY UPLOADID  AbortMultipartUpload
 *
 * Settings come from the environment: S3_ENDPOINT, S3_REGION, S3_PATH_STYLE (default 1),
 * S3_CHECKSUM (crc32c), S3_PART_SIZE, S3_CHUNK_SIZE, S3_PART_CHECKSUMS (1), S3_MAX_ATTEMPTS,
 * S3_BACKOFF_MS, S3_BACKOFF_MAX_MS, S3_STALL_S, S3_POOL (1: libcurl/OpenSSL allocations from
 * the s3 pool); credentials from AWS_ACCESS_KEY_ID etc. as in production.
 * put prints one line "key=value ..." with the result, the pool's figures and the peak RSS.
 * Exit status 0 on success, 1 on error (the error line goes to stderr).
 */
#include "s3/s3_client.h"
#include "s3/s3_pool.h"
#include "terse/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t
env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? (size_t)strtoull(v, NULL, 0) : dflt;
}

static int
file_read(void *opaque, uint8_t *dst, size_t dst_cap, size_t *dst_len)
{
    FILE *f = opaque;

    *dst_len = fread(dst, 1, dst_cap, f);
    return ferror(f) ? TERSE_EIO : TERSE_OK;
}

static int
file_write(void *opaque, const uint8_t *src, size_t len)
{
    return fwrite(src, 1, len, opaque) == len ? TERSE_OK : TERSE_EIO;
}

/* Peak RSS of this process image: VmHWM (getrusage's ru_maxrss would include the peak of
 * the process that forked us, which exec does not reset). */
static long
peak_rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");

    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
        }
    }
    fclose(f);
    return kb;
}

int
main(int argc, char **argv)
{
    struct s3_settings set;
    struct s3_client *c = NULL;
    int rc = TERSE_EINVAL;
    const char *v;

    if (argc < 3) {
        fprintf(stderr, "usage: s3-tool put|get|newest|abort BUCKET ...\n");
        return 2;
    }
    s3_settings_default(&set);
    set.endpoint = getenv("S3_ENDPOINT");
    if ((v = getenv("S3_REGION")) != NULL) {
        set.region = v;
    }
    set.path_style = (int)env_size("S3_PATH_STYLE", 1);
    if ((v = getenv("S3_CHECKSUM")) != NULL && s3_checksum_parse(v, &set.checksum) != 0) {
        fprintf(stderr, "s3-tool: unknown checksum %s\n", v);
        return 2;
    }
    set.part_size = env_size("S3_PART_SIZE", set.part_size);
    set.chunk_size = env_size("S3_CHUNK_SIZE", set.chunk_size);
    set.part_checksums = (int)env_size("S3_PART_CHECKSUMS", 1);
    set.max_attempts = (unsigned)env_size("S3_MAX_ATTEMPTS", set.max_attempts);
    set.backoff_ms = (unsigned)env_size("S3_BACKOFF_MS", set.backoff_ms);
    set.backoff_max_ms = (unsigned)env_size("S3_BACKOFF_MAX_MS", set.backoff_max_ms);
    set.stall_timeout_s = (unsigned)env_size("S3_STALL_S", set.stall_timeout_s);

    if (s3_setup((int)env_size("S3_POOL", 1)) != TERSE_OK) {
        fprintf(stderr, "s3-tool: s3_setup failed\n");
        return 1;
    }
    if ((rc = s3_client_create(&c, &set)) != TERSE_OK) {
        fprintf(stderr, "s3-tool: bad settings: %s\n", terse_strerror(rc));
        s3_teardown();
        return 1;
    }
    if (strcmp(argv[1], "put") == 0 && argc == 5) {
        struct s3_put_result res;
        FILE *f = strcmp(argv[4], "-") == 0 ? stdin : fopen(argv[4], "rb");
        struct s3_pool_stats ps;

        if (f == NULL) {
            perror(argv[4]);
            rc = TERSE_EIO;
        } else {
            rc = s3_client_put(c, argv[2], argv[3], file_read, f, &res);
            s3_pool_stats_get(&ps);
            printf("status=%d bytes=%llu parts=%u requests=%u retries=%u aborted=%d "
                   "checksum=%s pool_allocs=%llu pool_fallbacks=%llu pool_peak=%zu "
                   "maxrss_kb=%ld\n",
                   rc, (unsigned long long)res.n_bytes, res.n_parts, res.n_requests,
                   res.n_retries, res.aborted, res.checksum, (unsigned long long)ps.n_allocs,
                   (unsigned long long)ps.n_fallbacks, ps.peak_bytes, peak_rss_kb());
            if (f != stdin) {
                fclose(f);
            }
        }
    } else if (strcmp(argv[1], "get") == 0 && argc == 5) {
        FILE *f = strcmp(argv[4], "-") == 0 ? stdout : fopen(argv[4], "wb");
        uint64_t n = 0;

        if (f == NULL) {
            perror(argv[4]);
            rc = TERSE_EIO;
        } else {
            rc = s3_client_get(c, argv[2], argv[3], file_write, f, &n);
            if (f != stdout) {
                fclose(f);
            }
            fprintf(stderr, "s3-tool: got %llu bytes\n", (unsigned long long)n);
        }
    } else if (strcmp(argv[1], "newest") == 0 && argc == 4) {
        char key[S3_KEY_MAX + 1];

        rc = s3_client_newest(c, argv[2], argv[3], key, sizeof(key));
        if (rc == TERSE_OK) {
            printf("%s\n", key);
        }
    } else if (strcmp(argv[1], "abort") == 0 && argc == 5) {
        rc = s3_client_abort(c, argv[2], argv[3], argv[4]);
    } else {
        fprintf(stderr, "s3-tool: bad command line\n");
        rc = TERSE_EINVAL;
    }
    if (rc != TERSE_OK) {
        fprintf(stderr, "s3-tool: %s: %s\n", terse_strerror(rc), s3_client_error(c));
    }
    s3_client_destroy(&c);
    s3_teardown();
    return rc == TERSE_OK ? 0 : 1;
}
