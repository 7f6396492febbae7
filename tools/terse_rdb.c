/*
 * terse-rdb: converts a terse snapshot into a Redis RDB file (version 10) that redis-server
 * 7.0 loads: the migration path from terse to Redis, and the check that the whole-dataset RDB
 * writer (persist_rdb_save_fd) writes what Redis reads (tests/integration/test_dump.py).
 *
 *   terse-rdb SNAPSHOT OUT.rdb [DATABASES]
 *
 * Keys whose expiry has passed are left out. Exit status 0, or 1 with the reason on stderr.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

#include "persist/persist.h"
#include "persist/persist_rdb.h"
#include "store/store.h"
#include "terse/status.h"

static int64_t now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int main(int argc, char **argv)
{
    struct store_shard *s = NULL;
    struct persist_load_stats ls;
    struct persist_save_stats ss;
    struct persist_error err;
    int n_db = argc > 3 ? atoi(argv[3]) : 16, fd, rc;
    int64_t now = now_ms();

    if (argc < 3 || n_db < 1) {
        fprintf(stderr, "usage: %s SNAPSHOT OUT.rdb [DATABASES]\n", argv[0]);
        return 1;
    }
    if (store_shard_create(&s, n_db) != TERSE_OK) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    rc = persist_load_file(s, argv[1], now, &ls, &err);
    if (rc != TERSE_OK) {
        fprintf(stderr, "%s: %s (offset %llu)\n", argv[1], err.reason,
                (unsigned long long)err.offset);
        store_shard_destroy(&s);
        return 1;
    }
    fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(argv[2]);
        store_shard_destroy(&s);
        return 1;
    }
    rc = persist_rdb_save_fd(s, NULL, fd, now, 0, NULL, NULL, &ss, &err);
    if (close(fd) != 0 && rc == TERSE_OK) {
        rc = TERSE_EIO;
    }
    store_shard_destroy(&s);
    if (rc != TERSE_OK) {
        fprintf(stderr, "%s: %s (offset %llu)\n", argv[2], err.reason,
                (unsigned long long)err.offset);
        return 1;
    }
    printf("%llu keys, %llu bytes\n", (unsigned long long)ss.n_keys,
           (unsigned long long)ss.file_bytes);
    return 0;
}
