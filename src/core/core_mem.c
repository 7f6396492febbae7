/*
 * core_mem: counting wrapper over libc malloc.
 *
 * used_bytes is the sum of malloc_usable_size over live blocks: exact with respect to what
 * the allocator handed out (size-class rounding included), which is what INFO used_memory
 * and maxmemory admission must see. Counters are relaxed atomics: they are statistics, not
 * synchronisation.
 */
#include "core/core_mem.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Process-wide by nature (see header). */
static _Atomic uint64_t mem_used;
static _Atomic uint64_t mem_peak;
static _Atomic uint64_t mem_n_alloc;
static _Atomic uint64_t mem_n_free;
static _Atomic uint64_t mem_n_realloc;
static _Atomic uint64_t mem_fail_countdown; /* 0: off; 1: the next allocation fails */

static int inject_failure(void)
{
    uint64_t n = atomic_load_explicit(&mem_fail_countdown, memory_order_relaxed);

    if (n == 0) {
        return 0;
    }
    atomic_store_explicit(&mem_fail_countdown, n - 1, memory_order_relaxed);
    return n == 1;
}

static void account_add(size_t n)
{
    uint64_t used = atomic_fetch_add_explicit(&mem_used, n, memory_order_relaxed) + n;
    uint64_t peak = atomic_load_explicit(&mem_peak, memory_order_relaxed);

    while (used > peak &&
           !atomic_compare_exchange_weak_explicit(&mem_peak, &peak, used, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

static void account_sub(size_t n)
{
    atomic_fetch_sub_explicit(&mem_used, n, memory_order_relaxed);
}

void *core_alloc(size_t n)
{
    void *p;

    if (inject_failure()) {
        return NULL;
    }
    p = malloc(n == 0 ? 1 : n);
    if (p == NULL) {
        return NULL;
    }
    account_add(malloc_usable_size(p));
    atomic_fetch_add_explicit(&mem_n_alloc, 1, memory_order_relaxed);
    return p;
}

void *core_calloc(size_t n, size_t size)
{
    void *p;

    if (size != 0 && n > SIZE_MAX / size) {
        return NULL;
    }
    p = core_alloc(n * size);
    if (p != NULL) {
        memset(p, 0, n * size);
    }
    return p;
}

void *core_realloc(void *p, size_t n)
{
    size_t old;
    void *np;

    if (p == NULL) {
        return core_alloc(n);
    }
    old = malloc_usable_size(p);
    if (n > old && inject_failure()) {
        return NULL;
    }
#ifdef TERSE_DEBUG
    /* Always move, so a pointer kept across a realloc is caught by the sanitizers. */
    np = malloc(n == 0 ? 1 : n);
    if (np == NULL) {
        return NULL;
    }
    memcpy(np, p, old < n ? old : n);
    memset(p, 0xa5, old);
    free(p);
#else
    np = realloc(p, n == 0 ? 1 : n);
    if (np == NULL) {
        return NULL;
    }
#endif
    account_sub(old);
    account_add(malloc_usable_size(np));
    atomic_fetch_add_explicit(&mem_n_realloc, 1, memory_order_relaxed);
    return np;
}

void core_free(void *p)
{
    size_t n;

    if (p == NULL) {
        return;
    }
    n = malloc_usable_size(p);
#ifdef TERSE_DEBUG
    memset(p, 0xa5, n);
#endif
    account_sub(n);
    atomic_fetch_add_explicit(&mem_n_free, 1, memory_order_relaxed);
    free(p);
}

char *core_strndup(const char *s, size_t n)
{
    char *d = core_alloc(n + 1);

    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

size_t core_mem_usable(const void *p)
{
    return p == NULL ? 0 : malloc_usable_size((void *)(uintptr_t)p);
}

void core_mem_stats_get(struct core_mem_stats *out)
{
    out->used_bytes = atomic_load_explicit(&mem_used, memory_order_relaxed);
    out->peak_bytes = atomic_load_explicit(&mem_peak, memory_order_relaxed);
    out->n_alloc = atomic_load_explicit(&mem_n_alloc, memory_order_relaxed);
    out->n_free = atomic_load_explicit(&mem_n_free, memory_order_relaxed);
    out->n_realloc = atomic_load_explicit(&mem_n_realloc, memory_order_relaxed);
}

void core_mem_calls(uint64_t *allocs, uint64_t *frees)
{
    *allocs = atomic_load_explicit(&mem_n_alloc, memory_order_relaxed) +
              atomic_load_explicit(&mem_n_realloc, memory_order_relaxed);
    *frees = atomic_load_explicit(&mem_n_free, memory_order_relaxed);
}

uint64_t core_mem_used(void)
{
    return atomic_load_explicit(&mem_used, memory_order_relaxed);
}

void core_mem_peak_reset(void)
{
    atomic_store_explicit(&mem_peak, core_mem_used(), memory_order_relaxed);
}

void core_mem_fail_after(uint64_t nth)
{
    atomic_store_explicit(&mem_fail_countdown, nth, memory_order_relaxed);
}
