/*
 * store_keyspace: operations over keys as a whole: RENAME, MOVE, COPY, SCAN, RANDOMKEY.
 *
 * A link returned by store_index_find points into a bucket or into the entry before the key
 * in its chain, so it goes stale as soon as any other entry of the db is freed (including
 * a lazily expired one: its span may be freed with it). Functions here therefore look keys
 * up again after every deletion instead of keeping links across it. Arena allocation never
 * moves an entry or a bucket, so links survive it.
 */
#include "store/store.h"

#include <string.h>

#include "coll/coll.h"
#include "core/core_mem.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define STORE_RANDOM_PICKS 64      /* random buckets tried before a linear search */
#define STORE_SCAN_BUCKETS_PER_COUNT 10 /* bucket visits per requested entry, at most */

static bool same_key(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* Unlinks and frees key's entry if present (no expiry check): a destination replaced. */
static void remove_key(struct store_shard *s, struct store_db *d, const void *key, size_t klen)
{
    uint8_t *link = store_index_find(s, d, key, klen);
    if (link != NULL) {
        store_unlink_replaced(s, d, link);
    }
}

/* Unlinks and frees key's entry, but not its container: the caller moved that to a copy of
 * the entry (RENAME). */
static void remove_key_keep_coll(struct store_shard *s, struct store_db *d, const void *key,
                                 size_t klen)
{
    uint8_t *link = store_index_find(s, d, key, klen);

    if (link == NULL) {
        return;
    }
    store_unlink_keep(s, d, link, STORE_CHANGE_WRITE);
}

/* A copy of the entry at link under key dst (expiry given); *r names it. */
static int clone_at(struct store_shard *s, const uint8_t *link, const void *dst, size_t dst_len,
                    store_ref *r, struct store_entry **ne)
{
    struct store_entry *e = store_link_entry(s, link);
    int64_t exp = store_entry_expire(e);
    size_t vlen;

    (void)store_entry_val_mut(e, &vlen);
    if (store_arena_alloc(s, store_entry_size(dst_len, vlen, exp >= 0), r, ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    store_entry_copy(*ne, e, dst, (uint32_t)dst_len, exp);
    return TERSE_OK;
}

int store_rename(struct store_shard *s, int db, const void *src, size_t src_len, const void *dst,
                 size_t dst_len, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link;
    struct store_entry *ne;
    store_ref r;

    if (d == NULL) {
        return TERSE_EINVAL;
    }
    if (dst_len > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
    }
    (void)store_find_live(s, d, dst, dst_len, now_ms); /* drop an expired dst first */
    link = store_find_live(s, d, src, src_len, now_ms);
    if (link == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (same_key(src, src_len, dst, dst_len)) {
        return TERSE_OK;
    }
    if (clone_at(s, link, dst, dst_len, &r, &ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    remove_key(s, d, dst, dst_len);
    remove_key_keep_coll(s, d, src, src_len);
    /* One key out, one in: the table needs no room it did not have. */
    store_index_link(s, d, r);
    store_account_add(s, d, ne);
    store_pending_add(s, r, ne);
    store_changed(s, d, dst, dst_len, STORE_CHANGE_ADDED); /* src: told by its removal */
    return TERSE_OK;
}

int store_move(struct store_shard *s, int src_db, int dst_db, const void *key, size_t klen,
               int64_t now_ms)
{
    struct store_db *sd = store_db_get(s, src_db);
    struct store_db *dd = store_db_get(s, dst_db);
    uint8_t *link;
    struct store_entry *e;
    store_ref r;

    if (sd == NULL || dd == NULL) {
        return TERSE_EINVAL;
    }
    link = store_find_live(s, sd, key, klen, now_ms);
    if (link == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (sd == dd) {
        return TERSE_EINVAL;
    }
    if (store_find_live(s, dd, key, klen, now_ms) != NULL) {
        return TERSE_EINVAL;
    }
    if (store_index_reserve(s, dd) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    /* link is still good: dst's lazy deletion freed an entry of dd (a span is only freed
     * with nothing live in it), and the reserve split buckets of dd only. */
    r = store_link_get(link);
    e = store_arena_ptr(&s->arena, r);
    /* The entry itself moves: same hash seed, no copy. */
    store_link_put(link, store_entry_next(e));
    store_account_sub(s, sd, e);
    store_index_link(s, dd, r);
    store_account_add(s, dd, e);
    store_index_maybe_shrink(s, sd, 1);
    store_changed(s, sd, key, klen, STORE_CHANGE_WRITE);
    store_changed(s, dd, key, klen, STORE_CHANGE_ADDED);
    return TERSE_OK;
}

int store_copy(struct store_shard *s, int src_db, const void *src, size_t src_len, int dst_db,
               const void *dst, size_t dst_len, int replace, int64_t now_ms)
{
    struct store_db *sd = store_db_get(s, src_db);
    struct store_db *dd = store_db_get(s, dst_db);
    uint8_t *link;
    struct store_entry *ne;
    store_ref r;

    if (sd == NULL || dd == NULL) {
        return TERSE_EINVAL;
    }
    if (dst_len > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
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
    if (clone_at(s, store_index_find(s, sd, src, src_len), dst, dst_len, &r, &ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    /* The copy is a new object: fresh access history, as in Redis; a container is copied. */
    store_entry_set_access(ne, store_access_new(s, now_ms));
    if (store_entry_enc(ne) == STORE_ENC_COLL) {
        struct coll *cc;
        if (coll_copy(s->colls, store_entry_coll(ne), &cc) != TERSE_OK) {
            ne->meta &= (uint8_t)~STORE_META_PENDING;
            store_arena_release(s, r, store_entry_mem(ne));
            return TERSE_ENOMEM;
        }
        store_entry_put_coll(ne, cc);
        s->n_coll_keys++;
    }
    link = store_index_find(s, dd, dst, dst_len);
    if (link != NULL) {
        struct store_entry *old = store_link_entry(s, link);
        store_link_put(store_entry_link(ne), store_entry_next(old));
        store_account_sub(s, dd, old);
        if (store_entry_enc(old) == STORE_ENC_COLL) {
            s->n_coll_keys--;
            if (s->lazy & STORE_LAZY_SERVER) {
                coll_release(s->colls, store_entry_coll(old));
            } else {
                coll_destroy(s->colls, store_entry_coll(old));
            }
        }
        store_arena_release(s, store_link_get(link), store_entry_mem(old));
        store_link_put(link, r);
    } else {
        if (store_index_reserve(s, dd) != TERSE_OK) {
            ne->meta &= (uint8_t)~STORE_META_PENDING; /* never counted */
            if (store_entry_enc(ne) == STORE_ENC_COLL) {
                s->n_coll_keys--;
                coll_destroy(s->colls, store_entry_coll(ne));
            }
            store_arena_release(s, r, store_entry_mem(ne));
            return TERSE_ENOMEM;
        }
        store_index_link(s, dd, r);
    }
    store_account_add(s, dd, ne);
    store_pending_add(s, r, ne);
    store_changed(s, dd, dst, dst_len, STORE_CHANGE_ADDED);
    return TERSE_OK;
}

/* ---- SCAN ---- */

struct scan_ctx {
    struct store_shard *s;
    struct store_db *d;
    void (*fn)(void *arg, const struct store_entry *e);
    void *arg;
    int64_t now_ms;
    size_t n_emitted;
    bool reap;  /* expired entries met are deleted (SCAN), else only skipped */
};

static void scan_bucket(void *arg, uint8_t *head)
{
    struct scan_ctx *c = arg;
    uint8_t *link = head;

    while (store_link_get(link) != STORE_REF_NONE) {
        struct store_entry *e = store_link_entry(c->s, link);
        if (!store_entry_expired(e, c->now_ms)) {
            c->fn(c->arg, e);
            c->n_emitted++;
        } else if (c->reap) {
            store_unlink_free(c->s, c->d, link, STORE_CHANGE_EXPIRED);
            c->s->expired_keys++;
            continue;
        }
        link = store_entry_link(e);
    }
}

static uint64_t scan(struct store_shard *s, int db, uint64_t cursor, size_t count,
                     int64_t now_ms, void (*fn)(void *arg, const struct store_entry *e),
                     void *arg, bool reap)
{
    struct store_db *d = store_db_get(s, db);
    struct scan_ctx c = {s, d, fn, arg, now_ms, 0, reap};
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

uint64_t store_scan(struct store_shard *s, int db, uint64_t cursor, size_t count, int64_t now_ms,
                    void (*fn)(void *arg, const struct store_entry *e), void *arg)
{
    return scan(s, db, cursor, count, now_ms, fn, arg, false);
}

uint64_t store_scan_reap(struct store_shard *s, int db, uint64_t cursor, size_t count,
                         int64_t now_ms, void (*fn)(void *arg, const struct store_entry *e),
                         void *arg)
{
    return scan(s, db, cursor, count, now_ms, fn, arg, true);
}

/* ---- RANDOMKEY ---- */

static uint64_t chain_len(const struct store_shard *s, const uint8_t *head)
{
    uint64_t n = 0;
    for (store_ref r = store_link_get(head); r != STORE_REF_NONE;
         r = store_entry_next(store_arena_ptr(&s->arena, r))) {
        n++;
    }
    return n;
}

static uint8_t *link_after(const struct store_shard *s, uint8_t *link, uint64_t k)
{
    for (; k > 0; k--) {
        link = store_entry_link(store_link_entry(s, link));
    }
    return link;
}

/*
 * A random entry's link: a random non-empty bucket, then a random entry of its chain. On a
 * sparse table (STORE_RANDOM_PICKS misses) it falls back to the k-th entry of a walk, which
 * is exactly uniform and costs what the search would have anyway.
 */
static uint8_t *random_link(struct store_shard *s, struct store_db *d)
{
    uint64_t k;

    for (int i = 0; i < STORE_RANDOM_PICKS; i++) {
        uint8_t *head = store_index_bucket(d, store_rng_next(s) % d->n_buckets);
        uint64_t len = chain_len(s, head);
        if (len > 0) {
            return link_after(s, head, store_rng_next(s) % len);
        }
    }
    k = store_rng_next(s) % d->n_keys;
    for (uint64_t b = 0; b < d->n_buckets; b++) {
        uint8_t *head = store_index_bucket(d, b);
        uint64_t len = chain_len(s, head);
        if (k < len) {
            return link_after(s, head, k);
        }
        k -= len;
    }
    return NULL; /* not reached: n_keys entries are in the table */
}

struct store_entry *store_random(struct store_shard *s, int db, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);

    if (d == NULL) {
        return NULL;
    }
    for (int n_expired = 0; d->n_keys > 0 && n_expired < STORE_RANDOM_MAX_EXPIRED;) {
        uint8_t *link = random_link(s, d);
        struct store_entry *e = store_link_entry(s, link);
        if (!store_entry_expired(e, now_ms)) {
            return e;
        }
        store_unlink_free(s, d, link, STORE_CHANGE_EXPIRED);
        s->expired_keys++;
        n_expired++;
    }
    return NULL;
}
