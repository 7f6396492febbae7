/*
 * store: shard lifecycle, lookup, set, delete, expiry changes and accounting.
 *
 * Invariants kept by every function here:
 *   - shard counters (n_keys, entry_bytes, value_bytes) equal the sums over the entries;
 *   - db.n_expires is the number of entries carrying STORE_META_EXPIRE;
 *   - a failed write (TERSE_ENOMEM) changes nothing visible: the new entry is allocated and
 *     the index made ready before the old entry is touched;
 *   - lookups never allocate: they may do a rehash step (which only frees) and delete the key
 *     they were asked for if it has expired.
 */
#include "store/store.h"

#include <string.h>
#include <sys/random.h>

#include "core/core_mem.h"
#include "store/store_internal.h"
#include "terse/status.h"

struct store_db *store_db_get(struct store_shard *s, int db)
{
    if (s == NULL || db < 0 || db >= s->n_db) {
        return NULL;
    }
    return &s->db[db];
}

static void db_init(struct store_db *d)
{
    memset(d, 0, sizeof(*d));
    d->rehash_idx = -1;
}

int store_shard_create(struct store_shard **out, int n_db)
{
    struct store_shard *s;
    uint64_t seed = 0;

    if (out == NULL || n_db < 1 || n_db > STORE_DB_MAX) {
        return TERSE_EINVAL;
    }
    *out = NULL;
    s = core_calloc(1, sizeof(*s));
    if (s == NULL) {
        return TERSE_ENOMEM;
    }
    s->db = core_calloc((size_t)n_db, sizeof(*s->db));
    if (s->db == NULL) {
        core_free(s);
        return TERSE_ENOMEM;
    }
    for (int i = 0; i < n_db; i++) {
        db_init(&s->db[i]);
    }
    s->n_db = n_db;
    /* A secret seed keeps crafted keys from piling into one bucket; the shard's address is a
     * weak fallback if the kernel will not give entropy. */
    if (getentropy(&seed, sizeof(seed)) != 0) {
        seed = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL;
    }
    s->seed = seed;
    s->rng = seed | 1;
    *out = s;
    return TERSE_OK;
}

void store_db_clear(struct store_shard *s, struct store_db *d)
{
    for (int t = 0; t < 2; t++) {
        for (uint64_t b = 0; b < d->tab[t].size; b++) {
            struct store_entry *e = d->tab[t].slot[b];
            while (e != NULL) {
                struct store_entry *next = e->next;
                s->entry_bytes -= core_mem_usable(e);
                if (store_entry_enc(e) == STORE_ENC_STR) {
                    s->value_bytes -= e->vlen;
                }
                core_free(e);
                e = next;
            }
        }
    }
    s->n_keys -= d->n_keys;
    store_index_release(s, d);
    db_init(d);
}

void store_shard_destroy(struct store_shard **pp)
{
    struct store_shard *s;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    s = *pp;
    for (int i = 0; i < s->n_db; i++) {
        store_db_clear(s, &s->db[i]);
    }
    core_free(s->db);
    core_free(s);
    *pp = NULL;
}

int store_shard_n_db(const struct store_shard *s)
{
    return s->n_db;
}

/* ---- accounting ---- */

void store_account_add(struct store_shard *s, struct store_db *d, const struct store_entry *e)
{
    d->n_keys++;
    s->n_keys++;
    s->entry_bytes += core_mem_usable(e);
    if (store_entry_enc(e) == STORE_ENC_STR) {
        s->value_bytes += e->vlen;
    }
    if (e->meta & STORE_META_EXPIRE) {
        d->n_expires++;
    }
}

static void account_sub(struct store_shard *s, struct store_db *d, const struct store_entry *e)
{
    d->n_keys--;
    s->n_keys--;
    s->entry_bytes -= core_mem_usable(e);
    if (store_entry_enc(e) == STORE_ENC_STR) {
        s->value_bytes -= e->vlen;
    }
    if (e->meta & STORE_META_EXPIRE) {
        d->n_expires--;
    }
}

void store_unlink_free(struct store_shard *s, struct store_db *d, struct store_entry **link)
{
    struct store_entry *e = *link;

    *link = e->next;
    account_sub(s, d, e);
    core_free(e);
}

struct store_entry **store_find_live(struct store_shard *s, struct store_db *d, const void *key,
                                     size_t klen, int64_t now_ms)
{
    struct store_entry **link = store_index_find(s, d, key, klen);

    if (link != NULL && store_entry_expired(*link, now_ms)) {
        store_unlink_free(s, d, link);
        s->expired_keys++;
        return NULL;
    }
    return link;
}

/* ---- lookup ---- */

struct store_entry *store_lookup(struct store_shard *s, int db, const void *key, size_t klen,
                                 int64_t now_ms, int flags)
{
    struct store_db *d = store_db_get(s, db);
    struct store_entry **link;

    if (d == NULL) {
        return NULL;
    }
    store_index_rehash_step(s, d);
    link = store_find_live(s, d, key, klen, now_ms);
    if (link == NULL) {
        return NULL;
    }
    if (flags & STORE_LOOKUP_TOUCH) {
        store_entry_touch(s, *link, now_ms);
    }
    return *link;
}

/* ---- set ---- */

static int store_set(struct store_shard *s, int db, const void *key, size_t klen,
                     enum store_enc enc, const void *val, size_t vlen, int64_t expire_ms,
                     int64_t now_ms, unsigned flags)
{
    struct store_db *d = store_db_get(s, db);
    struct store_entry **link;
    struct store_entry *old;
    struct store_entry *e;
    size_t need;

    if (d == NULL || (key == NULL && klen > 0) || expire_ms < STORE_KEEP_TTL) {
        return TERSE_EINVAL;
    }
    if (klen > STORE_LEN_MAX || vlen > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
    }
    store_index_rehash_step(s, d);
    link = store_find_live(s, d, key, klen, now_ms);
    old = link != NULL ? *link : NULL;
    if (expire_ms == STORE_KEEP_TTL) {
        expire_ms = old != NULL ? store_entry_expire(old) : STORE_NO_EXPIRE;
    }
    need = store_entry_size(klen, vlen, expire_ms >= 0);
    if (old != NULL) {
        size_t have = core_mem_usable(old);
        /* Reuse the block when it fits without wasting much: a warm overwrite loop then
         * allocates nothing. */
        if (need <= have && have - need <= need / 4 + 16) {
            account_sub(s, d, old);
            store_entry_rewrite(old, enc, val, (uint32_t)vlen, expire_ms);
            if (flags & STORE_SET_RAW) {
                old->meta |= STORE_META_RAW;
            }
            store_account_add(s, d, old);
            old->clock = (old->clock & ~STORE_LRU_MAX) | store_clock_lru(now_ms);
            return TERSE_OK;
        }
    }
    e = store_entry_make(key, (uint32_t)klen, enc, val, (uint32_t)vlen, expire_ms, now_ms);
    if (e == NULL) {
        return TERSE_ENOMEM;
    }
    if (flags & STORE_SET_RAW) {
        e->meta |= STORE_META_RAW;
    }
    if (old != NULL) {
        /* An overwrite keeps the LFU history (as Redis does) and counts as an access. */
        e->clock = (old->clock & ~STORE_LRU_MAX) | store_clock_lru(now_ms);
        e->ldt = old->ldt;
        e->next = old->next;
        *link = e;
        account_sub(s, d, old);
        core_free(old);
        store_account_add(s, d, e);
        return TERSE_OK;
    }
    if (store_index_reserve(s, d) != TERSE_OK) {
        core_free(e);
        return TERSE_ENOMEM;
    }
    store_index_link(s, d, e);
    store_account_add(s, d, e);
    return TERSE_OK;
}

int store_set_str_flags(struct store_shard *s, int db, const void *key, size_t klen,
                        const void *stored, size_t stored_len, int64_t expire_ms, int64_t now_ms,
                        unsigned flags)
{
    if (stored == NULL && stored_len > 0) {
        return TERSE_EINVAL;
    }
    return store_set(s, db, key, klen, STORE_ENC_STR, stored, stored_len, expire_ms, now_ms,
                     flags);
}

int store_set_str(struct store_shard *s, int db, const void *key, size_t klen, const void *stored,
                  size_t stored_len, int64_t expire_ms, int64_t now_ms)
{
    return store_set_str_flags(s, db, key, klen, stored, stored_len, expire_ms, now_ms, 0);
}

int store_entry_is_raw(const struct store_entry *e)
{
    return (e->meta & STORE_META_RAW) != 0;
}

int store_set_int(struct store_shard *s, int db, const void *key, size_t klen, int64_t v,
                  int64_t expire_ms, int64_t now_ms)
{
    return store_set(s, db, key, klen, STORE_ENC_INT, &v, sizeof(v), expire_ms, now_ms, 0);
}

/* ---- delete and expiry ---- */

int store_delete(struct store_shard *s, int db, const void *key, size_t klen, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    struct store_entry **link;

    if (d == NULL) {
        return 0;
    }
    store_index_rehash_step(s, d);
    link = store_find_live(s, d, key, klen, now_ms);
    if (link != NULL) {
        store_unlink_free(s, d, link);
    }
    store_index_maybe_shrink(s, d);
    return link != NULL;
}

int store_expire_set(struct store_shard *s, int db, const void *key, size_t klen, int64_t when_ms,
                     int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    struct store_entry **link;
    struct store_entry *e;
    bool had;

    if (d == NULL || (when_ms < 0 && when_ms != STORE_NO_EXPIRE)) {
        return TERSE_EINVAL;
    }
    store_index_rehash_step(s, d);
    link = store_find_live(s, d, key, klen, now_ms);
    if (link == NULL) {
        return 0;
    }
    e = *link;
    had = (e->meta & STORE_META_EXPIRE) != 0;
    if (when_ms >= 0 && !had && store_entry_size(e->klen, e->vlen, true) > core_mem_usable(e)) {
        size_t old_bytes = core_mem_usable(e);
        struct store_entry *ne = core_realloc(e, store_entry_size(e->klen, e->vlen, true));
        if (ne == NULL) {
            return TERSE_ENOMEM;
        }
        s->entry_bytes = s->entry_bytes - old_bytes + core_mem_usable(ne);
        *link = ne; /* the link lives in a bucket or in another entry, neither moved */
        e = ne;
    }
    store_entry_expire_put(e, when_ms);
    if (when_ms >= 0 && !had) {
        d->n_expires++;
    } else if (when_ms < 0 && had) {
        d->n_expires--;
    }
    return 1;
}

/* ---- flush and swap ---- */

void store_flushdb(struct store_shard *s, int db)
{
    struct store_db *d = store_db_get(s, db);

    if (d != NULL) {
        store_db_clear(s, d);
    }
}

void store_flushall(struct store_shard *s)
{
    for (int i = 0; i < s->n_db; i++) {
        store_db_clear(s, &s->db[i]);
    }
}

void store_swapdb(struct store_shard *s, int a, int b)
{
    struct store_db *da = store_db_get(s, a);
    struct store_db *db = store_db_get(s, b);
    struct store_db tmp;

    if (da == NULL || db == NULL || da == db) {
        return;
    }
    tmp = *da;
    *da = *db;
    *db = tmp;
}

/* ---- maintenance and stats ---- */

void store_rehash_step(struct store_shard *s, int n)
{
    for (int i = 0; i < s->n_db; i++) {
        struct store_db *d = &s->db[i];
        store_index_maybe_shrink(s, d);
        for (int k = 0; k < n && d->rehash_idx >= 0; k++) {
            store_index_rehash_step(s, d);
        }
    }
}

void store_stats_get(const struct store_shard *s, struct store_stats *out)
{
    out->expired_keys = s->expired_keys;
    out->n_keys = s->n_keys;
    out->entry_bytes = s->entry_bytes;
    out->index_bytes = s->index_bytes;
    out->value_bytes = s->value_bytes;
    out->evicted_keys = s->evicted_keys;
}

size_t store_dbsize(const struct store_shard *s, int db)
{
    if (db < 0 || db >= s->n_db) {
        return 0;
    }
    return s->db[db].n_keys;
}

size_t store_db_n_expires(const struct store_shard *s, int db)
{
    if (db < 0 || db >= s->n_db) {
        return 0;
    }
    return s->db[db].n_expires;
}
