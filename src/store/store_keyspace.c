/*
 * store_keyspace: operations over keys as a whole: RENAME, MOVE, COPY, SCAN, RANDOMKEY.
 *
 * A link returned by store_index_find points into a bucket or into the entry before the key
 * in its chain, so it goes stale as soon as any other entry of the db is freed (including
 * a lazily expired one). Functions here therefore look keys up again after every deletion
 * instead of keeping links across it.
 */
#include "store/store.h"

#include <string.h>

#include "core/core_mem.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define STORE_RANDOM_PICKS 64      /* random buckets tried before a linear search */
#define STORE_SCAN_BUCKETS_PER_COUNT 10 /* bucket visits per requested entry, at most */

static bool same_key(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* Unlinks and frees key's entry if present (no expiry check). */
static void remove_key(struct store_shard *s, struct store_db *d, const void *key, size_t klen)
{
    struct store_entry **link = store_index_find(s, d, key, klen);
    if (link != NULL) {
        store_unlink_free(s, d, link);
    }
}

int store_rename(struct store_shard *s, int db, const void *src, size_t src_len, const void *dst,
                 size_t dst_len, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    struct store_entry **link;
    struct store_entry *ne;

    if (d == NULL) {
        return TERSE_EINVAL;
    }
    if (dst_len > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
    }
    store_index_rehash_step(s, d);
    (void)store_find_live(s, d, dst, dst_len, now_ms); /* drop an expired dst first */
    link = store_find_live(s, d, src, src_len, now_ms);
    if (link == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (same_key(src, src_len, dst, dst_len)) {
        return TERSE_OK;
    }
    ne = store_entry_clone(*link, dst, (uint32_t)dst_len);
    if (ne == NULL) {
        return TERSE_ENOMEM;
    }
    remove_key(s, d, dst, dst_len);
    remove_key(s, d, src, src_len);
    /* One key out, one in: the table needs no room it did not have. */
    store_index_link(s, d, ne);
    store_account_add(s, d, ne);
    return TERSE_OK;
}

int store_move(struct store_shard *s, int src_db, int dst_db, const void *key, size_t klen,
               int64_t now_ms)
{
    struct store_db *sd = store_db_get(s, src_db);
    struct store_db *dd = store_db_get(s, dst_db);
    struct store_entry **link;
    struct store_entry *e;

    if (sd == NULL || dd == NULL) {
        return TERSE_EINVAL;
    }
    store_index_rehash_step(s, sd);
    link = store_find_live(s, sd, key, klen, now_ms);
    if (link == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (sd == dd) {
        return TERSE_EINVAL;
    }
    store_index_rehash_step(s, dd);
    if (store_find_live(s, dd, key, klen, now_ms) != NULL) {
        return TERSE_EINVAL;
    }
    if (store_index_reserve(s, dd) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    /* The entry itself moves: same hash seed, so no reallocation is needed. */
    e = *link;
    *link = e->next;
    sd->n_keys--;
    s->n_keys--;
    if (e->meta & STORE_META_EXPIRE) {
        sd->n_expires--;
    }
    store_index_link(s, dd, e);
    dd->n_keys++;
    s->n_keys++;
    if (e->meta & STORE_META_EXPIRE) {
        dd->n_expires++;
    }
    store_index_maybe_shrink(s, sd);
    return TERSE_OK;
}

int store_copy(struct store_shard *s, int src_db, const void *src, size_t src_len, int dst_db,
               const void *dst, size_t dst_len, int replace, int64_t now_ms)
{
    struct store_db *sd = store_db_get(s, src_db);
    struct store_db *dd = store_db_get(s, dst_db);
    struct store_entry **link;
    struct store_entry *ne;

    if (sd == NULL || dd == NULL) {
        return TERSE_EINVAL;
    }
    if (dst_len > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
    }
    store_index_rehash_step(s, sd);
    if (sd != dd) {
        store_index_rehash_step(s, dd);
    }
    if (store_find_live(s, sd, src, src_len, now_ms) == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (sd == dd && same_key(src, src_len, dst, dst_len)) {
        return TERSE_EINVAL;
    }
    link = store_find_live(s, dd, dst, dst_len, now_ms);
    if (link != NULL && !replace) {
        return TERSE_EINVAL;
    }
    /* dst's lazy deletion may have freed src's predecessor: look src up afresh. */
    ne = store_entry_clone(*store_index_find(s, sd, src, src_len), dst, (uint32_t)dst_len);
    if (ne == NULL) {
        return TERSE_ENOMEM;
    }
    /* The copy is a new object: fresh access history, as in Redis. */
    ne->clock = store_clock_lru(now_ms) | (STORE_LFU_INIT << STORE_LRU_BITS);
    ne->ldt = store_clock_ldt(now_ms);
    link = store_index_find(s, dd, dst, dst_len);
    if (link != NULL) {
        struct store_entry *old = *link;
        ne->next = old->next;
        store_unlink_free(s, dd, link);
        *link = ne;
    } else {
        if (store_index_reserve(s, dd) != TERSE_OK) {
            core_free(ne);
            return TERSE_ENOMEM;
        }
        store_index_link(s, dd, ne);
    }
    store_account_add(s, dd, ne);
    return TERSE_OK;
}

/* ---- SCAN ---- */

struct scan_ctx {
    void (*fn)(void *arg, const struct store_entry *e);
    void *arg;
    int64_t now_ms;
    size_t n_emitted;
};

static void scan_bucket(void *arg, struct store_entry **head)
{
    struct scan_ctx *c = arg;

    for (const struct store_entry *e = *head; e != NULL; e = e->next) {
        if (!store_entry_expired(e, c->now_ms)) {
            c->fn(c->arg, e);
            c->n_emitted++;
        }
    }
}

uint64_t store_scan(struct store_shard *s, int db, uint64_t cursor, size_t count, int64_t now_ms,
                    void (*fn)(void *arg, const struct store_entry *e), void *arg)
{
    struct store_db *d = store_db_get(s, db);
    struct scan_ctx c = {fn, arg, now_ms, 0};
    size_t max_buckets;
    size_t n_buckets = 0;

    if (d == NULL || d->n_keys == 0 || fn == NULL) {
        return 0;
    }
    if (count == 0) {
        count = 1;
    }
    max_buckets = count > SIZE_MAX / STORE_SCAN_BUCKETS_PER_COUNT
                      ? SIZE_MAX
                      : count * STORE_SCAN_BUCKETS_PER_COUNT;
    do {
        cursor = store_index_scan(d, cursor, scan_bucket, &c);
        n_buckets++;
    } while (cursor != 0 && c.n_emitted < count && n_buckets < max_buckets);
    return cursor;
}

/* ---- RANDOMKEY ---- */

/* Bucket i of the db's live range: tab[0] from rehash_idx, then tab[1]. */
static struct store_entry **bucket_at(struct store_db *d, uint64_t i)
{
    if (i < d->tab[0].size) {
        return &d->tab[0].slot[i];
    }
    return &d->tab[1].slot[i - d->tab[0].size];
}

/*
 * A random entry's link: a random non-empty bucket, then a random entry of its chain. On a
 * sparse table (STORE_RANDOM_PICKS misses) it falls back to the k-th entry of a walk, which
 * is exactly uniform and costs what the search would have anyway.
 */
static struct store_entry **random_link(struct store_shard *s, struct store_db *d)
{
    uint64_t lo = d->rehash_idx >= 0 ? (uint64_t)d->rehash_idx : 0;
    uint64_t span = d->tab[0].size + d->tab[1].size - lo;
    uint64_t k;

    for (int i = 0; i < STORE_RANDOM_PICKS; i++) {
        struct store_entry **link = bucket_at(d, lo + store_rng_next(s) % span);
        uint64_t len = 0;
        if (*link == NULL) {
            continue;
        }
        for (const struct store_entry *e = *link; e != NULL; e = e->next) {
            len++;
        }
        for (k = store_rng_next(s) % len; k > 0; k--) {
            link = &(*link)->next;
        }
        return link;
    }
    k = store_rng_next(s) % d->n_keys;
    for (uint64_t i = 0; i < span; i++) {
        for (struct store_entry **link = bucket_at(d, lo + i); *link != NULL;
             link = &(*link)->next) {
            if (k-- == 0) {
                return link;
            }
        }
    }
    return NULL; /* not reached: n_keys entries are in the live range */
}

struct store_entry *store_random(struct store_shard *s, int db, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);

    if (d == NULL) {
        return NULL;
    }
    for (int n_expired = 0; d->n_keys > 0 && n_expired < STORE_RANDOM_MAX_EXPIRED;) {
        struct store_entry **link;

        store_index_rehash_step(s, d);
        link = random_link(s, d);
        if (!store_entry_expired(*link, now_ms)) {
            return *link;
        }
        store_unlink_free(s, d, link);
        s->expired_keys++;
        n_expired++;
    }
    return NULL;
}
