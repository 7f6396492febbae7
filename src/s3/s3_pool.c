/*
 * s3_pool: the pool of s3_pool.h, and s3_setup/s3_teardown.
 *
 * This file holds the s3 layer's only mutable process-wide state: libcurl and OpenSSL take
 * their allocator as plain function pointers without a context argument, so the pool they
 * call has to be reachable from a global. It is written once by s3_setup (before threads
 * start) and guarded by `mu` afterwards. The arena is deliberately never freed while
 * libcurl may still hold blocks; s3_teardown releases it after curl_global_cleanup.
 */
#include "s3/s3_pool.h"

#include "s3/s3_client.h"
#include "terse/status.h"

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N_CLASSES 16 /* 32 B .. 1 MiB */
#define HDR 16       /* keeps payloads 16-byte aligned */
#define MAGIC_POOL 0x73337031u
#define MAGIC_SYS 0x73337379u

struct hdr {
    uint32_t magic;  /* MAGIC_POOL or MAGIC_SYS */
    uint32_t cls;    /* class index (pool blocks) */
    uint64_t size;   /* usable bytes of a system block */
};

struct free_blk {
    struct free_blk *next;
};

static struct {
    pthread_mutex_t mu;
    uint8_t *arena;
    size_t bump;
    struct free_blk *free[N_CLASSES];
    struct s3_pool_stats st;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int
class_of(size_t total)
{
    size_t sz = S3_POOL_MIN;

    for (int c = 0; c < N_CLASSES; c++, sz <<= 1) {
        if (total <= sz) {
            return c;
        }
    }
    return -1;
}

static void *
pool_malloc(size_t n)
{
    struct hdr *h = NULL;
    int cls = n <= S3_POOL_MAX - HDR ? class_of(n + HDR) : -1;

    pthread_mutex_lock(&pool.mu);
    pool.st.n_allocs++;
    if (cls >= 0) {
        size_t sz = (size_t)S3_POOL_MIN << cls;
        if (pool.free[cls] != NULL) {
            h = (struct hdr *)(void *)pool.free[cls];
            pool.free[cls] = pool.free[cls]->next;
        } else if (pool.bump + sz <= S3_POOL_ARENA) {
            h = (struct hdr *)(void *)(pool.arena + pool.bump);
            pool.bump += sz;
            pool.st.peak_bytes = pool.bump;
        }
        if (h != NULL) {
            h->magic = MAGIC_POOL;
            h->cls = (uint32_t)cls;
        }
    }
    if (h == NULL) {
        pool.st.n_fallbacks++;
    }
    pthread_mutex_unlock(&pool.mu);
    if (h == NULL) {
        h = malloc(n + HDR);
        if (h == NULL) {
            return NULL;
        }
        h->magic = MAGIC_SYS;
        h->size = n;
    }
    return (uint8_t *)h + HDR;
}

static struct hdr *
hdr_of(void *p)
{
    return (struct hdr *)(void *)((uint8_t *)p - HDR);
}

static size_t
usable(const struct hdr *h)
{
    return h->magic == MAGIC_POOL ? ((size_t)S3_POOL_MIN << h->cls) - HDR : (size_t)h->size;
}

static void
pool_free(void *p)
{
    if (p == NULL) {
        return;
    }
    struct hdr *h = hdr_of(p);
    if (h->magic == MAGIC_SYS) {
        h->magic = 0;
        free(h);
        return;
    }
    if (h->magic != MAGIC_POOL) {
        abort(); /* not ours: a library bypassed the allocator it was given */
    }
    uint32_t cls = h->cls; /* read before the free-list link overwrites the header */
    if (cls >= N_CLASSES) {
        abort();
    }
    h->magic = 0;
    pthread_mutex_lock(&pool.mu);
    struct free_blk *f = (struct free_blk *)(void *)h;
    f->next = pool.free[cls];
    pool.free[cls] = f;
    pthread_mutex_unlock(&pool.mu);
}

static void *
pool_realloc(void *p, size_t n)
{
    if (p == NULL) {
        return pool_malloc(n);
    }
    if (n == 0) {
        pool_free(p);
        return NULL;
    }
    struct hdr *h = hdr_of(p);
    size_t have = usable(h);
    if (n <= have && h->magic == MAGIC_POOL) {
        return p;
    }
    void *q = pool_malloc(n);
    if (q != NULL) {
        memcpy(q, p, have < n ? have : n);
        pool_free(p);
    }
    return q;
}

static void *
pool_calloc(size_t nmemb, size_t size)
{
    if (size != 0 && nmemb > SIZE_MAX / size) {
        return NULL;
    }
    void *p = pool_malloc(nmemb * size);
    if (p != NULL) {
        memset(p, 0, nmemb * size);
    }
    return p;
}

static char *
pool_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = pool_malloc(n);

    if (p != NULL) {
        memcpy(p, s, n);
    }
    return p;
}

/* OpenSSL's hooks carry the caller's file and line; the pool does not need them. */
static void *
ossl_malloc(size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return pool_malloc(n);
}

static void *
ossl_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file;
    (void)line;
    return pool_realloc(p, n);
}

static void
ossl_free(void *p, const char *file, int line)
{
    (void)file;
    (void)line;
    pool_free(p);
}

int
s3_pool_install(void)
{
    pool.arena = malloc(S3_POOL_ARENA);
    if (pool.arena == NULL) {
        return TERSE_ENOMEM;
    }
    pool.st.openssl = CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free) == 1;
    if (curl_global_init_mem(CURL_GLOBAL_DEFAULT, pool_malloc, pool_free, pool_realloc,
                             pool_strdup, pool_calloc) != CURLE_OK) {
        return TERSE_EIO;
    }
    pool.st.installed = 1;
    return TERSE_OK;
}

void
s3_pool_stats_get(struct s3_pool_stats *st)
{
    pthread_mutex_lock(&pool.mu);
    *st = pool.st;
    pthread_mutex_unlock(&pool.mu);
}

int
s3_setup(int use_pool)
{
    if (use_pool) {
        return s3_pool_install();
    }
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? TERSE_OK : TERSE_EIO;
}

void
s3_teardown(void)
{
    curl_global_cleanup();
    /* OpenSSL may still hold pool blocks until process exit (its atexit handlers free them),
     * so the arena stays mapped when OpenSSL uses it; otherwise it is released here. */
    if (pool.st.installed && !pool.st.openssl) {
        free(pool.arena);
        pool.arena = NULL;
        pool.st.installed = 0;
    }
}
