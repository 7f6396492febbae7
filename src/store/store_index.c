/*
 * store_index: the per-db hash index. Chained buckets in power-of-two tables, resized by
 * incremental rehashing, scanned with Redis's reverse-binary cursor.
 *
 * Resize policy:
 *   grow    before an insert that would take the load past 1 (n_keys + 1 > buckets), to twice
 *           the buckets; a failed grow is ignored until the load reaches STORE_FORCE_GROW_RATIO.
 *   shrink  when n_keys * STORE_SHRINK_RATIO < buckets (and the table is above
 *           STORE_TABLE_MIN), to the smallest power of two >= n_keys; only on write paths and
 *           in the cron-like calls (store_rehash_step, store_active_expire), never on lookup.
 *   rehash  one step moves one non-empty tab[0] bucket to tab[1], skipping at most
 *           STORE_REHASH_EMPTY_VISITS empty buckets; every write and lookup on the db does one
 *           step, store_rehash_step does more. A resize never starts while one is running.
 *
 * SCAN cursor: the bucket index is incremented from its most significant bit down (reverse
 * binary), so the buckets visited before the cursor are, for any power-of-two size, exactly
 * the buckets whose low bits reverse-sort below it. When the table doubles, bucket b splits
 * into b and b + size, both of which reverse-sort at the same place; when it halves, two
 * buckets merge into one that is visited at most once more. So a key present for the whole
 * iteration is returned at least once (perhaps twice after a shrink). During a rehash the
 * cursor visits the bucket of the smaller table and every bucket of the larger table that
 * expands from it, which covers entries on either side of the move.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <string.h>
#include <xxhash.h>

#include "core/core_mem.h"
#include "terse/status.h"

uint64_t store_hash(const struct store_shard *s, const void *key, size_t klen)
{
    return XXH3_64bits_withSeed(key, klen, s->seed);
}

static bool db_rehashing(const struct store_db *d)
{
    return d->rehash_idx >= 0;
}

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = STORE_TABLE_MIN;
    while (p < n && p < ((uint64_t)1 << 62)) {
        p <<= 1;
    }
    return p;
}

static const unsigned char *entry_keyp(const struct store_entry *e)
{
    return e->data + ((e->meta & STORE_META_EXPIRE) ? sizeof(int64_t) : 0);
}

struct key_ref {
    const void *key;
    size_t klen;
};

static bool key_eq(const struct store_entry *e, void *arg)
{
    const struct key_ref *r = arg;
    return e->klen == r->klen && (r->klen == 0 || memcmp(entry_keyp(e), r->key, r->klen) == 0);
}

struct store_entry **store_index_find_h(struct store_db *d, uint64_t h,
                                        bool (*eq)(const struct store_entry *e, void *arg),
                                        void *arg)
{
    if (d->n_keys == 0) {
        return NULL;
    }
    for (int t = 0; t <= (db_rehashing(d) ? 1 : 0); t++) {
        uint64_t b = h & (d->tab[t].size - 1);
        if (t == 0 && db_rehashing(d) && b < (uint64_t)d->rehash_idx) {
            continue; /* already moved to tab[1] */
        }
        for (struct store_entry **link = &d->tab[t].slot[b]; *link != NULL;
             link = &(*link)->next) {
            if (eq(*link, arg)) {
                return link;
            }
        }
    }
    return NULL;
}

struct store_entry **store_index_find(const struct store_shard *s, struct store_db *d,
                                      const void *key, size_t klen)
{
    struct key_ref r = {key, klen};

    if (d->n_keys == 0) {
        return NULL;
    }
    return store_index_find_h(d, store_hash(s, key, klen), key_eq, &r);
}

size_t store_index_sample(struct store_shard *s, struct store_db *d, struct store_entry **out,
                          size_t n, bool volatile_only, size_t max_buckets)
{
    uint64_t lo = db_rehashing(d) ? (uint64_t)d->rehash_idx : 0;
    uint64_t span = d->tab[0].size + d->tab[1].size - lo;
    uint64_t i;
    size_t got = 0;

    if (d->n_keys == 0 || span == 0 || (volatile_only && d->n_expires == 0)) {
        return 0;
    }
    i = store_rng_next(s) % span;
    for (uint64_t v = 0; v < span && v < max_buckets && got < n; v++, i = (i + 1) % span) {
        uint64_t b = lo + i;
        struct store_entry *e =
            b < d->tab[0].size ? d->tab[0].slot[b] : d->tab[1].slot[b - d->tab[0].size];
        for (; e != NULL && got < n; e = e->next) {
            if (!volatile_only || (e->meta & STORE_META_EXPIRE)) {
                out[got++] = e;
            }
        }
    }
    return got;
}

void store_index_link(const struct store_shard *s, struct store_db *d, struct store_entry *e)
{
    struct store_table *t = &d->tab[db_rehashing(d) ? 1 : 0];
    uint64_t b = store_hash(s, entry_keyp(e), e->klen) & (t->size - 1);

    assert(t->size > 0);
    e->next = t->slot[b];
    t->slot[b] = e;
}

static int table_alloc(struct store_shard *s, struct store_table *t, uint64_t size)
{
    if (size > SIZE_MAX / sizeof(struct store_entry *)) {
        return TERSE_ENOMEM;
    }
    t->slot = core_calloc((size_t)size, sizeof(struct store_entry *));
    if (t->slot == NULL) {
        return TERSE_ENOMEM;
    }
    t->size = size;
    s->index_bytes += core_mem_usable(t->slot);
    return TERSE_OK;
}

static void table_free(struct store_shard *s, struct store_table *t)
{
    if (t->slot != NULL) {
        s->index_bytes -= core_mem_usable(t->slot);
        core_free(t->slot);
    }
    t->slot = NULL;
    t->size = 0;
}

/* Starts moving the db to a table of `size` buckets (or just installs it if the db is empty). */
static int index_resize(struct store_shard *s, struct store_db *d, uint64_t size)
{
    struct store_table nt;

    assert(!db_rehashing(d));
    if (size == d->tab[0].size) {
        return TERSE_OK;
    }
    if (table_alloc(s, &nt, size) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (d->n_keys == 0) {
        table_free(s, &d->tab[0]);
        d->tab[0] = nt;
        return TERSE_OK;
    }
    d->tab[1] = nt;
    d->rehash_idx = 0;
    return TERSE_OK;
}

int store_index_reserve(struct store_shard *s, struct store_db *d)
{
    uint64_t size = d->tab[0].size;

    if (db_rehashing(d)) {
        return TERSE_OK; /* tab[1] is at least twice the keys it was sized for */
    }
    if (size == 0) {
        return index_resize(s, d, STORE_TABLE_MIN);
    }
    if ((uint64_t)d->n_keys + 1 <= size) {
        return TERSE_OK;
    }
    if (index_resize(s, d, size * 2) == TERSE_OK) {
        return TERSE_OK;
    }
    /* Chains get longer but stay correct; refuse only when they would get absurd. */
    return (uint64_t)d->n_keys < size * STORE_FORCE_GROW_RATIO ? TERSE_OK : TERSE_ENOMEM;
}

void store_index_maybe_shrink(struct store_shard *s, struct store_db *d)
{
    uint64_t size = d->tab[0].size;

    if (d->n_keys == 0) {
        store_index_release(s, d); /* nothing to move: drop both tables at once */
        return;
    }
    if (db_rehashing(d) || size == 0) {
        return;
    }
    if (size > STORE_TABLE_MIN && (uint64_t)d->n_keys * STORE_SHRINK_RATIO < size) {
        (void)index_resize(s, d, pow2_at_least(d->n_keys));
    }
}

void store_index_rehash_step(struct store_shard *s, struct store_db *d)
{
    struct store_table *t0 = &d->tab[0];
    struct store_table *t1 = &d->tab[1];
    int empty_left = STORE_REHASH_EMPTY_VISITS;

    if (!db_rehashing(d)) {
        return;
    }
    while ((uint64_t)d->rehash_idx < t0->size && t0->slot[d->rehash_idx] == NULL) {
        d->rehash_idx++;
        if (--empty_left == 0) {
            break;
        }
    }
    if ((uint64_t)d->rehash_idx < t0->size && t0->slot[d->rehash_idx] != NULL) {
        struct store_entry *e = t0->slot[d->rehash_idx];
        while (e != NULL) {
            struct store_entry *next = e->next;
            uint64_t b = store_hash(s, entry_keyp(e), e->klen) & (t1->size - 1);
            e->next = t1->slot[b];
            t1->slot[b] = e;
            e = next;
        }
        t0->slot[d->rehash_idx] = NULL;
        d->rehash_idx++;
    }
    if ((uint64_t)d->rehash_idx >= t0->size) {
        table_free(s, t0);
        *t0 = *t1;
        t1->slot = NULL;
        t1->size = 0;
        d->rehash_idx = -1;
    }
}

void store_index_release(struct store_shard *s, struct store_db *d)
{
    table_free(s, &d->tab[0]);
    table_free(s, &d->tab[1]);
    d->rehash_idx = -1;
}

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
    const struct store_table *small;
    const struct store_table *large;
    uint64_t m0;
    uint64_t m1;

    if (!db_rehashing(d)) {
        if (d->tab[0].size == 0) {
            return 0;
        }
        m0 = d->tab[0].size - 1;
        fn(arg, &d->tab[0].slot[cursor & m0]);
        return cursor_next(cursor, m0);
    }
    small = &d->tab[0];
    large = &d->tab[1];
    if (small->size > large->size) {
        const struct store_table *tmp = small;
        small = large;
        large = tmp;
    }
    m0 = small->size - 1;
    m1 = large->size - 1;
    fn(arg, &small->slot[cursor & m0]);
    do {
        fn(arg, &large->slot[cursor & m1]);
        cursor = cursor_next(cursor, m1);
    } while (cursor & (m0 ^ m1));
    return cursor;
}
