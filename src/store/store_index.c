/*
 * store_index: the per-db hash index. Linear hashing over 4-byte bucket heads, chained
 * through the entries' 4-byte next refs (layout in store_internal.h).
 *
 * Resize policy (never a pause: each step touches one bucket):
 *   split   before an insert, while n_keys + 1 > n_buckets * STORE_LOAD_MAX, at most
 *           STORE_SPLITS_PER_INSERT buckets; a split that cannot get memory (a new segment)
 *           is skipped, and the insert fails only past STORE_FORCE_GROW_RATIO times the load.
 *   merge   while n_keys * STORE_LOAD_MIN_DIV < n_buckets * STORE_LOAD_MAX, at most n per
 *           call, on write paths and in the cron-like calls, never on lookup. Merging only
 *           frees. An empty db frees its table at once.
 *
 * SCAN cursor: the bucket index is incremented from its most significant bit down (reverse
 * binary), so the buckets visited before the cursor are, for any power-of-two size, exactly
 * the buckets whose low bits reverse-sort below it. A linear-hashing table of n buckets,
 * 2^L <= n < 2^(L+1), is a Redis table of 2^L buckets half way through its rehash to 2^(L+1)
 * with rehash_idx = n - 2^L: bucket b < n - 2^L has been split into b and b + 2^L, the others
 * not yet. So a step visits bucket (cursor mod 2^L) when it is unsplit, else both halves, and
 * advances the cursor past both; splits and merges between steps are rehash moves and
 * resizes, under which Redis's argument holds: a key present for the whole iteration is
 * returned at least once.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <xxhash.h>

#include "core/core_mem.h"
#include "terse/status.h"

#define STORE_DIR_MIN 4u /* directory slots at first */

uint64_t store_hash(const struct store_shard *s, const void *key, size_t klen)
{
    return XXH3_64bits_withSeed(key, klen, s->seed);
}

uint64_t store_key_hash(const struct store_shard *s, const void *key, size_t klen)
{
    return store_hash(s, key, klen);
}

static uint64_t floor_pow2(uint64_t n)
{
    return (uint64_t)1 << (63 - __builtin_clzll(n));
}

uint64_t store_index_bucket_of(const struct store_db *d, uint64_t h)
{
    uint64_t low = floor_pow2(d->n_buckets);
    uint64_t b = h & (low - 1);

    return b < d->n_buckets - low ? h & (2 * low - 1) : b;
}

uint8_t *store_index_bucket(struct store_db *d, uint64_t b)
{
    assert(b < d->n_buckets);
    return (uint8_t *)(void *)&d->seg[b / STORE_SEG_BUCKETS][b % STORE_SEG_BUCKETS];
}

static struct store_entry *ref_entry(const struct store_shard *s, store_ref r)
{
    return store_arena_ptr(&s->arena, r);
}

uint8_t *store_index_find_h(struct store_shard *s, struct store_db *d, uint64_t h,
                            bool (*eq)(const struct store_entry *e, void *arg), void *arg)
{
    uint8_t *link;
    store_ref r;

    if (d->n_keys == 0) {
        return NULL;
    }
    link = store_index_bucket(d, store_index_bucket_of(d, h));
    while ((r = store_link_get(link)) != STORE_REF_NONE) {
        struct store_entry *e = ref_entry(s, r);
        if (eq(e, arg)) {
            return link;
        }
        link = store_entry_link(e);
    }
    return NULL;
}

struct key_ref {
    const void *key;
    size_t klen;
};

static bool key_eq(const struct store_entry *e, void *arg)
{
    const struct key_ref *k = arg;
    uint32_t klen;
    const uint8_t *p = store_entry_keyp(e, &klen);

    return klen == k->klen && (klen == 0 || memcmp(p, k->key, klen) == 0);
}

uint8_t *store_index_find(struct store_shard *s, struct store_db *d, const void *key,
                          size_t klen)
{
    struct key_ref k = {key, klen};

    if (d->n_keys == 0) {
        return NULL;
    }
    return store_index_find_h(s, d, store_hash(s, key, klen), key_eq, &k);
}

uint8_t *store_index_find_ref(struct store_shard *s, struct store_db *d, uint64_t h,
                              store_ref r)
{
    uint8_t *link;
    store_ref x;

    if (d->n_keys == 0) {
        return NULL;
    }
    link = store_index_bucket(d, store_index_bucket_of(d, h));
    while ((x = store_link_get(link)) != STORE_REF_NONE) {
        if (x == r) {
            return link;
        }
        link = store_entry_link(ref_entry(s, x));
    }
    return NULL;
}

uint8_t *store_index_link_of(struct store_shard *s, store_ref r, struct store_db **d)
{
    uint32_t klen;
    const uint8_t *key = store_entry_keyp(ref_entry(s, r), &klen);
    uint64_t h = store_hash(s, key, klen);

    for (int i = 0; i < s->n_db; i++) {
        uint8_t *link = store_index_find_ref(s, &s->db[i], h, r);
        if (link != NULL) {
            *d = &s->db[i];
            return link;
        }
    }
    return NULL;
}

size_t store_index_sample(struct store_shard *s, struct store_db *d, struct store_entry **out,
                          size_t n, bool volatile_only, size_t max_buckets)
{
    uint64_t nb = d->n_buckets;
    uint64_t b;
    size_t got = 0;

    if (d->n_keys == 0 || (volatile_only && d->n_expires == 0)) {
        return 0;
    }
    b = store_rng_next(s) % nb;
    for (uint64_t v = 0; v < nb && v < max_buckets && got < n; v++, b = (b + 1) % nb) {
        store_ref r = store_link_get(store_index_bucket(d, b));
        while (r != STORE_REF_NONE && got < n) {
            struct store_entry *e = ref_entry(s, r);
            if (!volatile_only || (e->meta & STORE_META_EXPIRE)) {
                out[got++] = e;
            }
            r = store_entry_next(e);
        }
    }
    return got;
}

void store_index_link(struct store_shard *s, struct store_db *d, store_ref r)
{
    struct store_entry *e = ref_entry(s, r);
    uint32_t klen;
    const uint8_t *key = store_entry_keyp(e, &klen);
    uint8_t *head = store_index_bucket(d, store_index_bucket_of(d, store_hash(s, key, klen)));

    store_link_put(store_entry_link(e), store_link_get(head));
    store_link_put(head, r);
}

/* ---- table memory ---- */

static void *mem_resize(struct store_shard *s, void *p, size_t n)
{
    size_t old = core_mem_usable(p);
    void *np = core_realloc(p, n);

    if (np != NULL) {
        s->index_bytes = s->index_bytes - old + core_mem_usable(np);
    }
    return np;
}

static void mem_free(struct store_shard *s, void *p)
{
    s->index_bytes -= core_mem_usable(p);
    core_free(p);
}

static int table_create(struct store_shard *s, struct store_db *d)
{
    uint32_t **dir = mem_resize(s, NULL, STORE_DIR_MIN * sizeof(*dir));
    uint32_t *seg0;

    if (dir == NULL) {
        return TERSE_ENOMEM;
    }
    seg0 = mem_resize(s, NULL, STORE_TABLE_MIN * sizeof(*seg0));
    if (seg0 == NULL) {
        mem_free(s, dir);
        return TERSE_ENOMEM;
    }
    memset(seg0, 0, STORE_TABLE_MIN * sizeof(*seg0));
    dir[0] = seg0;
    d->seg = dir;
    d->dir_cap = STORE_DIR_MIN;
    d->n_seg = 1;
    d->seg0_cap = STORE_TABLE_MIN;
    d->n_buckets = STORE_TABLE_MIN;
    return TERSE_OK;
}

/* Makes bucket b (== n_buckets) addressable. */
static int bucket_ensure(struct store_shard *s, struct store_db *d, uint64_t b)
{
    uint64_t si = b / STORE_SEG_BUCKETS;

    if (si == 0) {
        if (b >= d->seg0_cap) {
            /* Small steps: heads are a quarter of the per-key budget. */
            uint64_t cap = (d->seg0_cap + d->seg0_cap * STORE_SEG0_GROW_PCT / 100 + 3) & ~3ull;
            if (cap > STORE_SEG_BUCKETS) {
                cap = STORE_SEG_BUCKETS;
            }
            uint32_t *ns = mem_resize(s, d->seg[0], (size_t)cap * sizeof(*ns));
            if (ns == NULL) {
                return TERSE_ENOMEM;
            }
            memset(ns + d->seg0_cap, 0, (size_t)(cap - d->seg0_cap) * sizeof(*ns));
            d->seg[0] = ns;
            d->seg0_cap = cap;
        }
        return TERSE_OK;
    }
    if (si < d->n_seg) {
        return TERSE_OK;
    }
    assert(si == d->n_seg);
    if (d->n_seg == d->dir_cap) {
        uint32_t **nd = mem_resize(s, d->seg, (size_t)d->dir_cap * 2 * sizeof(*nd));
        if (nd == NULL) {
            return TERSE_ENOMEM;
        }
        d->seg = nd;
        d->dir_cap *= 2;
    }
    d->seg[si] = mem_resize(s, NULL, STORE_SEG_BUCKETS * sizeof(uint32_t));
    if (d->seg[si] == NULL) {
        return TERSE_ENOMEM;
    }
    memset(d->seg[si], 0, STORE_SEG_BUCKETS * sizeof(uint32_t));
    d->n_seg++;
    return TERSE_OK;
}

/* Splits bucket n_buckets - 2^L into itself and a new last bucket. */
static int bucket_split(struct store_shard *s, struct store_db *d)
{
    uint64_t nb = d->n_buckets;
    uint64_t low = floor_pow2(nb);
    uint8_t *from;
    uint8_t *to;
    store_ref r;

    if (nb >= ((uint64_t)1 << 62) || bucket_ensure(s, d, nb) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    from = store_index_bucket(d, nb - low);
    d->n_buckets = nb + 1;
    to = store_index_bucket(d, nb);
    r = store_link_get(from);
    store_link_put(from, STORE_REF_NONE);
    while (r != STORE_REF_NONE) {
        struct store_entry *e = ref_entry(s, r);
        store_ref next = store_entry_next(e);
        uint32_t klen;
        const uint8_t *key = store_entry_keyp(e, &klen);
        uint8_t *head = (store_hash(s, key, klen) & low) ? to : from;
        store_link_put(store_entry_link(e), store_link_get(head));
        store_link_put(head, r);
        r = next;
    }
    return TERSE_OK;
}

/* Merges the last bucket into the one it was split from. */
static void bucket_merge(struct store_shard *s, struct store_db *d)
{
    uint64_t t = d->n_buckets - 1;
    uint8_t *link = store_index_bucket(d, t - floor_pow2(t));
    store_ref moved = store_link_get(store_index_bucket(d, t));
    store_ref r;

    while ((r = store_link_get(link)) != STORE_REF_NONE) {
        link = store_entry_link(ref_entry(s, r));
    }
    store_link_put(link, moved);
    /* Segment 0 is kept: a later split into bucket t must find it empty. */
    store_link_put(store_index_bucket(d, t), STORE_REF_NONE);
    d->n_buckets = t;
    if (t >= STORE_SEG_BUCKETS && t % STORE_SEG_BUCKETS == 0) {
        mem_free(s, d->seg[t / STORE_SEG_BUCKETS]);
        d->n_seg--;
    }
}

int store_index_reserve(struct store_shard *s, struct store_db *d)
{
    if (d->n_buckets == 0) {
        return table_create(s, d);
    }
    for (int i = 0; i < STORE_SPLITS_PER_INSERT; i++) {
        if ((uint64_t)d->n_keys + 1 <= d->n_buckets * STORE_LOAD_MAX) {
            return TERSE_OK;
        }
        if (bucket_split(s, d) != TERSE_OK) {
            /* Chains get longer but stay correct; refuse only when they would get absurd. */
            return (uint64_t)d->n_keys <
                           d->n_buckets * STORE_LOAD_MAX * STORE_FORCE_GROW_RATIO
                       ? TERSE_OK
                       : TERSE_ENOMEM;
        }
    }
    return TERSE_OK;
}

void store_index_maybe_shrink(struct store_shard *s, struct store_db *d, int n)
{
    if (d->n_keys == 0) {
        store_index_release(s, d); /* nothing to move: drop the table at once */
        return;
    }
    for (int i = 0; i < n && d->n_buckets > STORE_TABLE_MIN &&
                    (uint64_t)d->n_keys * STORE_LOAD_MIN_DIV < d->n_buckets * STORE_LOAD_MAX;
         i++) {
        bucket_merge(s, d);
    }
}

void store_index_release(struct store_shard *s, struct store_db *d)
{
    for (uint64_t i = 0; i < d->n_seg; i++) {
        mem_free(s, d->seg[i]);
    }
    if (d->seg != NULL) {
        mem_free(s, d->seg);
    }
    d->seg = NULL;
    d->n_seg = 0;
    d->dir_cap = 0;
    d->seg0_cap = 0;
    d->n_buckets = 0;
}

/* ---- SCAN ---- */

static uint64_t rev64(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = ((v >> 8) & 0x00ff00ff00ff00ffULL) | ((v & 0x00ff00ff00ff00ffULL) << 8);
    v = ((v >> 16) & 0x0000ffff0000ffffULL) | ((v & 0x0000ffff0000ffffULL) << 16);
    return (v >> 32) | (v << 32);
}

/* Increments the cursor's bits above the mask's low bits, reading them in reverse. */
static uint64_t cursor_next(uint64_t v, uint64_t mask)
{
    v |= ~mask;
    v = rev64(v);
    v++;
    return rev64(v);
}

uint64_t store_index_scan(struct store_db *d, uint64_t cursor, store_bucket_fn fn, void *arg)
{
    uint64_t low;
    uint64_t split;
    uint64_t m0;
    uint64_t m1;

    if (d->n_buckets == 0) {
        return 0;
    }
    low = floor_pow2(d->n_buckets);
    split = d->n_buckets - low;
    m0 = low - 1;
    if (split == 0) {
        fn(arg, store_index_bucket(d, cursor & m0));
        return cursor_next(cursor, m0);
    }
    m1 = 2 * low - 1;
    if ((cursor & m0) >= split) {
        /* Unsplit: one bucket holds both halves. */
        fn(arg, store_index_bucket(d, cursor & m0));
        do {
            cursor = cursor_next(cursor, m1);
        } while (cursor & (m0 ^ m1));
        return cursor;
    }
    do {
        fn(arg, store_index_bucket(d, cursor & m1));
        cursor = cursor_next(cursor, m1);
    } while (cursor & (m0 ^ m1));
    return cursor;
}

size_t store_index_grow_cost(const struct store_db *d)
{
    uint64_t nb = d->n_buckets;
    size_t cost = 0;

    if (nb == 0) {
        return (STORE_DIR_MIN * sizeof(uint32_t *) + 16) + (STORE_TABLE_MIN * sizeof(uint32_t) + 16);
    }
    /* Up to STORE_SPLITS_PER_INSERT splits: segment 0 may grow, or a new segment start. */
    if (nb < STORE_SEG_BUCKETS) {
        cost = (size_t)(d->seg0_cap * STORE_SEG0_GROW_PCT / 100 + 4) * sizeof(uint32_t) + 16;
    }
    if ((nb + STORE_SPLITS_PER_INSERT) / STORE_SEG_BUCKETS >= d->n_seg) {
        cost = STORE_SEG_BUCKETS * sizeof(uint32_t) + 16;
        if (d->n_seg == d->dir_cap) {
            cost += (size_t)d->dir_cap * sizeof(uint32_t *) + 16;
        }
    }
    return cost;
}
