/*
 * s3_pool: a bounded, process-wide pool that serves libcurl's and OpenSSL's heap requests for
 * the s3 layer (installed by s3_setup(1) through curl_global_init_mem and
 * CRYPTO_set_mem_functions), so that a backup of any size makes the same number of real heap
 * calls: the libraries' per-request allocations are recycled here instead.
 *
 *   arena (S3_POOL_ARENA bytes, one malloc at setup, touched only as it is used)
 *   +--------+---------+--------+---------+--------------------+
 *   | hdr|blk| hdr|blk | ...                  bump -> free room |
 *   +--------+---------+--------+---------+--------------------+
 *   free lists: one per power-of-two class S3_POOL_MIN..S3_POOL_MAX bytes
 *
 * A block is carved from the arena once, at the bump pointer, and afterwards recycled through
 * its class's free list, never returned to the arena. A request larger than S3_POOL_MAX, or
 * one that finds the arena exhausted, falls back to malloc (counted in n_fallbacks; the
 * uploader's tests assert it stays 0). Every block carries a 16-byte header (class, magic)
 * so free and realloc know where a pointer came from. Guarded by one mutex.
 */
#ifndef S3_POOL_H
#define S3_POOL_H

#include <stddef.h>
#include <stdint.h>

#define S3_POOL_ARENA ((size_t)16 << 20) /* arena bytes (fixed cost while installed) */
#define S3_POOL_MIN 32                   /* smallest class, bytes with header */
#define S3_POOL_MAX ((size_t)1 << 20)    /* largest class, bytes with header */

struct s3_pool_stats {
    uint64_t n_allocs;     /* malloc/calloc/realloc/strdup calls served (all sources) */
    uint64_t n_fallbacks;  /* of those, served by the system malloc */
    size_t peak_bytes;     /* arena bytes ever carved (high-water mark) */
    int installed;         /* libcurl's allocations go through the pool */
    int openssl;           /* OpenSSL's too (only possible before its first allocation) */
};

/*
 * s3_pool_install: allocates the arena and hooks libcurl (and, when still possible, OpenSSL)
 * to it, then initialises libcurl. Called by s3_setup(1) only, once, before any thread uses
 * libcurl or OpenSSL. Returns TERSE_OK, TERSE_ENOMEM, or TERSE_EIO (libcurl init failed).
 */
int s3_pool_install(void);

/* s3_pool_stats_get: a snapshot of the counters (all zero when the pool is not installed). */
void s3_pool_stats_get(struct s3_pool_stats *st);

#endif /* S3_POOL_H */
