/*
 * store_arena: the spans entries live in, named by 32-bit refs (layout in store_internal.h).
 *
 * Allocation bumps the current span; an entry that does not fit starts a new one, an entry
 * bigger than half a span gets a span of its own. Span sizes grow with the arena (about
 * 1/STORE_SPAN_FRACTION of it, from STORE_SPAN_MIN to 1 MiB), so memory is returned in steps
 * of a few percent however small the shard. Every request is a size the allocator hands out
 * without rounding up: heap chunks of n*16 + 8 bytes below 128 KiB, whole pages minus
 * glibc's header from there (the shard pins glibc's mmap threshold, see store_shard_create,
 * so those spans are always mmapped and their pages go back to the kernel when freed).
 *
 * Freeing an entry only marks it dead and lowers its span's live count; a span whose live
 * count reaches zero is freed at once (the current one is rewound instead), or kept in a
 * small cache of empty shared spans (STORE_SPAN_CACHE_MAX spans, STORE_SPAN_CACHE_BYTES or
 * one span, so it hides little from the memory budget) that the next span_open reuses:
 * a workload that churns spans (overwrites that do not fit in place, background compression
 * moving values, eviction compacting) then allocates nothing in steady state and takes no
 * page faults on fresh spans (store_arena_grow_cost still charges a new span: the span size
 * may change before the write opens one). The cron frees a cache that went unused for a
 * period (store_arena_cache_trim). Compaction, which moves entries and so repoints the index,
 * is store_compact.c's, one module up.
 *
 * The arena also keeps the pending counters (store_pending_add/sub: the raw values awaiting
 * store_compress.c, with each span's pend_off), as every record it frees or moves is
 * uncounted or counted again there.
 */
#include "store/store_internal.h"

#include <assert.h>

#include "core/core_mem.h"
#include "terse/status.h"

#define STORE_SPAN_SLOTS_MIN 8u

struct store_entry *store_arena_ptr(const struct store_arena *a, store_ref r)
{
    assert(r != STORE_REF_NONE && store_ref_span(r) < a->n_slot &&
           a->span[store_ref_span(r)].base != NULL);
    return (struct store_entry *)(void *)(a->span[store_ref_span(r)].base + store_ref_off(r));
}

static void cache_flush(struct store_arena *a)
{
    while (a->n_cache > 0) {
        uint8_t *base = a->cache[--a->n_cache];
        a->cache_bytes -= core_mem_usable(base);
        core_free(base);
    }
}

/* A heap request the allocator does not round up: n*16 + 8 bytes. */
static size_t heap_exact(size_t n)
{
    return ((n + 7) & ~(size_t)15) + 8;
}

static int slot_take(struct store_shard *s, uint32_t *id)
{
    struct store_arena *a = &s->arena;

    for (uint32_t i = 1; i < a->n_slot; i++) {
        if (a->span[i].base == NULL) {
            *id = i;
            return TERSE_OK;
        }
    }
    if (a->n_slot > STORE_SPAN_MAX_ID) {
        return TERSE_ENOMEM; /* the ref space (8 GiB) is full */
    }
    if (a->n_slot == a->cap_slot) {
        uint32_t cap = a->cap_slot < STORE_SPAN_SLOTS_MIN ? STORE_SPAN_SLOTS_MIN : a->cap_slot * 2;
        size_t old = core_mem_usable(a->span);
        struct store_span *ns = core_realloc(a->span, (size_t)cap * sizeof(*ns));
        if (ns == NULL) {
            return TERSE_ENOMEM;
        }
        a->table_bytes = a->table_bytes - old + core_mem_usable(ns);
        memset(ns + a->cap_slot, 0, (size_t)(cap - a->cap_slot) * sizeof(*ns));
        a->span = ns;
        a->cap_slot = cap;
        if (a->n_slot == 0) {
            a->n_slot = 1; /* slot 0 is never a span: ref 0 means none */
        }
    }
    *id = a->n_slot;
    return TERSE_OK;
}

/* The request for the next shared span: about 1/STORE_SPAN_FRACTION of the arena (so memory
 * comes and goes in small steps at any size), a power of two between STORE_SPAN_MIN and
 * 1 MiB, minus what makes the allocator hand out exactly that much. */
static size_t span_request(const struct store_arena *a)
{
    size_t p = STORE_SPAN_MIN;

    while (p < a->span_bytes / STORE_SPAN_FRACTION && p < STORE_SPAN_CAP_MAX) {
        p <<= 1;
    }
    /* glibc: a block from 128 KiB up is mmapped, whole pages with a 16-byte header counted
     * in; below it a heap chunk of n*16 + 8 bytes is handed out as is. */
    return p >= 128u * 1024 ? p - 24 : p - 8;
}

/* Allocates a span into a free slot: a shared one of span_request() bytes, or one of its own
 * for a record of own_size bytes (0: shared). */
static int span_open(struct store_shard *s, size_t own_size, uint32_t *id)
{
    struct store_arena *a = &s->arena;
    size_t req = own_size != 0 ? heap_exact(own_size) : span_request(a);
    uint8_t *base;
    size_t usable;

    if (slot_take(s, id) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (own_size == 0 && a->n_cache > 0 && a->cache_req != req) {
        cache_flush(a); /* the span size moved on: the cached ones do not fit */
    }
    if (own_size == 0 && a->n_cache > 0) {
        base = a->cache[--a->n_cache];
        a->cache_bytes -= core_mem_usable(base);
        a->cache_taken++;
    } else {
        base = core_alloc(req);
    }
    if (base == NULL) {
        return TERSE_ENOMEM;
    }
    usable = core_mem_usable(base);
    a->span[*id].base = base;
    /* A shared span never exceeds what a ref's offset can name. */
    a->span[*id].cap =
        (uint32_t)(own_size == 0 && usable > STORE_SPAN_CAP_MAX ? STORE_SPAN_CAP_MAX : usable);
    a->span[*id].used = 0;
    a->span[*id].live = 0;
    a->span[*id].pend_off = UINT32_MAX;
    a->span_bytes += usable;
    if (*id == a->n_slot) {
        a->n_slot++;
    }
    return TERSE_OK;
}

static void span_close(struct store_shard *s, uint32_t id)
{
    struct store_arena *a = &s->arena;
    size_t usable = core_mem_usable(a->span[id].base);

    a->span_bytes -= usable;
    a->dead_bytes -= a->span[id].used - a->span[id].live;
    /* A shared span has the request of its time: cache it if that is today's. */
    if (a->n_cache < STORE_SPAN_CACHE_MAX &&
        (a->n_cache == 0 || a->cache_req == span_request(a))) {
        size_t req = span_request(a);
        if (usable >= req && usable <= req + 16 &&
            (a->n_cache == 0 || a->cache_bytes + usable <= STORE_SPAN_CACHE_BYTES)) {
            a->cache_req = req;
            a->cache[a->n_cache++] = a->span[id].base;
            a->cache_bytes += usable;
            a->span[id].base = NULL;
        }
    }
    core_free(a->span[id].base);
    memset(&a->span[id], 0, sizeof(a->span[id]));
    if (a->cur == id) {
        a->cur = 0;
    }
    if (a->victim == id) {
        a->victim = 0;
    }
}

int store_arena_alloc(struct store_shard *s, size_t size, store_ref *r, struct store_entry **e)
{
    struct store_arena *a = &s->arena;
    uint32_t old = a->cur;
    struct store_span *sp;
    uint32_t id;

    assert(size % STORE_ARENA_ALIGN == 0 && size > 0);
    if (old != 0 && a->span[old].cap - a->span[old].used >= size) {
        id = old;
    } else if (size > span_request(a) / 2) {
        if (span_open(s, size, &id) != TERSE_OK) {
            return TERSE_ENOMEM; /* an entry of its own */
        }
    } else {
        if (span_open(s, 0, &id) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
        /* span_open may have moved the span table: index it afresh. */
        if (old != 0 && a->span[old].live == 0) {
            span_close(s, old);
        }
        a->cur = id;
    }
    sp = &a->span[id];
    *r = store_ref_make(id, sp->used);
    *e = (struct store_entry *)(void *)(sp->base + sp->used);
    sp->used += (uint32_t)size;
    sp->live += (uint32_t)size;
    return TERSE_OK;
}

void store_arena_release(struct store_shard *s, store_ref r, size_t size)
{
    struct store_arena *a = &s->arena;
    uint32_t id = store_ref_span(r);
    struct store_span *sp = &a->span[id];

    store_pending_sub(s, store_arena_ptr(a, r));
    store_arena_ptr(a, r)->meta |= STORE_META_DEAD;
    assert(sp->live >= size);
    sp->live -= (uint32_t)size;
    a->dead_bytes += size;
    if (sp->live == 0) {
        if (id == a->cur) {
            a->dead_bytes -= sp->used;
            sp->used = 0; /* nothing live: rewind instead of freeing */
            sp->pend_off = UINT32_MAX; /* an offset of the old records is no boundary now */
        } else {
            span_close(s, id);
        }
    }
}

/* ---- pending counters (store_compress.c compresses what they count) ---- */

void store_pending_add(struct store_shard *s, store_ref r, const struct store_entry *e)
{
    struct store_span *sp;
    struct store_elens l;

    if (!(e->meta & STORE_META_PENDING)) {
        return;
    }
    store_entry_lens(e, &l);
    s->n_pending++;
    s->pending_bytes += l.vlen;
    sp = &s->arena.span[store_ref_span(r)];
    if (store_ref_off(r) < sp->pend_off) {
        sp->pend_off = store_ref_off(r);
    }
}

void store_pending_sub(struct store_shard *s, struct store_entry *e)
{
    struct store_elens l;

    if (!(e->meta & STORE_META_PENDING)) {
        return;
    }
    store_entry_lens(e, &l);
    assert(s->n_pending > 0 && s->pending_bytes >= l.vlen);
    s->n_pending--;
    s->pending_bytes -= l.vlen;
    e->meta &= (uint8_t)~STORE_META_PENDING;
}

static void fill_write(uint8_t *p, size_t len)
{
    assert(len >= 2 && len % 2 == 0 && len < (1u << 24));
    if (len == 2) {
        p[0] = STORE_FILL_2;
        return;
    }
    p[0] = STORE_FILL_N;
    p[1] = (uint8_t)len;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)(len >> 16);
}

void store_arena_shrink(struct store_shard *s, store_ref r, size_t size, size_t keep)
{
    struct store_span *sp = &s->arena.span[store_ref_span(r)];

    assert(keep < size && sp->live >= size - keep);
    fill_write(sp->base + store_ref_off(r) + keep, size - keep);
    sp->live -= (uint32_t)(size - keep);
    s->arena.dead_bytes += size - keep;
}

size_t store_arena_record_size(const uint8_t *p)
{
    struct store_elens l;

    if (p[0] == STORE_FILL_2) {
        return 2;
    }
    if (p[0] == STORE_FILL_N) {
        return (size_t)p[1] | (size_t)p[2] << 8 | (size_t)p[3] << 16;
    }
    store_entry_lens((const struct store_entry *)(const void *)p, &l);
    return l.size;
}

/* Dead bytes outside the current span (which is never evacuated). */
uint64_t store_arena_dead(const struct store_arena *a)
{
    uint64_t cur_dead = a->cur != 0 ? a->span[a->cur].used - a->span[a->cur].live : 0;
    return a->dead_bytes - cur_dead;
}

void store_arena_cache_trim(struct store_shard *s)
{
    if (s->arena.cache_taken == 0) {
        cache_flush(&s->arena);
    }
    s->arena.cache_taken = 0;
}

void store_arena_clear(struct store_shard *s)
{
    struct store_arena *a = &s->arena;

    for (uint32_t i = 1; i < a->n_slot; i++) {
        if (a->span[i].base != NULL) {
            span_close(s, i);
        }
    }
    cache_flush(a);
    a->table_bytes -= core_mem_usable(a->span);
    core_free(a->span);
    memset(a, 0, sizeof(*a));
}

void store_arena_seal(struct store_shard *s)
{
    struct store_arena *a = &s->arena;

    if (a->cur != 0 && a->span[a->cur].live == 0) {
        span_close(s, a->cur);
    }
    a->cur = 0;
}

size_t store_arena_grow_cost(const struct store_shard *s, size_t size)
{
    const struct store_arena *a = &s->arena;
    size_t cost;

    if (a->cur != 0 && a->span[a->cur].cap - a->span[a->cur].used >= size) {
        return 0;
    }
    /* A block's usable size exceeds its request by at most 16 bytes (mmapped: 8). */
    cost = (size > span_request(a) / 2 ? heap_exact(size) : span_request(a)) + 16;
    if (a->n_slot == a->cap_slot) {
        size_t cap = a->cap_slot < STORE_SPAN_SLOTS_MIN ? STORE_SPAN_SLOTS_MIN : a->cap_slot * 2;
        cost += (size_t)(cap - a->cap_slot) * sizeof(struct store_span) + 16;
    }
    return cost;
}
