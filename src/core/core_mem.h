/*
 * core_mem: the one allocation wrapper of the server.
 *
 * Every heap byte the server holds goes through these functions so that it can be counted
 * (INFO used_memory, maxmemory admission) and so that tests can fail the Nth allocation (OOM
 * injection) or assert that a warm request loop allocates nothing.
 *
 * The counters are process-wide atomics: the one deliberate exception to "no mutable globals",
 * because the allocator itself is process-wide (as Redis's used_memory is). Sizes are the
 * allocator's usable sizes (malloc_usable_size), so the figure is what libc really handed out.
 *
 * Thread-safety: every function may be called from any thread.
 */
#ifndef TERSE_CORE_MEM_H
#define TERSE_CORE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Returns n bytes, or NULL when libc fails or an injected failure fires. */
void *core_alloc(size_t n);
/* Zeroed n*size bytes, NULL on overflow or failure. */
void *core_calloc(size_t n, size_t size);
/* realloc semantics; on failure the old block is untouched and NULL is returned.
 * In debug builds (TERSE_DEBUG) the block always moves, so stale pointers show up. */
void *core_realloc(void *p, size_t n);
/* Frees p (NULL is a no-op). In debug builds the freed bytes are poisoned first. */
void core_free(void *p);
/* Duplicates n bytes (plus a NUL terminator); NULL on failure. */
char *core_strndup(const char *s, size_t n);

/* The usable size of a block returned by the functions above. */
size_t core_mem_usable(const void *p);

struct core_mem_stats {
    uint64_t used_bytes; /* usable bytes currently held */
    uint64_t peak_bytes; /* highest used_bytes seen */
    uint64_t n_alloc;    /* successful alloc/calloc/realloc-from-NULL calls, ever */
    uint64_t n_free;     /* blocks freed, ever */
    uint64_t n_realloc;  /* realloc calls on an existing block, ever */
};

void core_mem_stats_get(struct core_mem_stats *out);
/* Of those, the calls alone: n_alloc + n_realloc in *allocs, n_free in *frees. */
void core_mem_calls(uint64_t *allocs, uint64_t *frees);
uint64_t core_mem_used(void);
/* Resets peak_bytes to the current used_bytes (CONFIG RESETSTAT / MEMORY ... semantics). */
void core_mem_peak_reset(void);

/*
 * OOM injection for tests: the nth allocating call from now (1 = the next one) fails; 0
 * disables. Only allocations (alloc, calloc, realloc growth) count.
 */
void core_mem_fail_after(uint64_t nth);

#endif /* TERSE_CORE_MEM_H */
