/*
 * store: shard lifecycle, lookup, set, delete and expiry changes, keeping the shard's counters
 * (store_account_add/sub in store_entry.c count an entry in or out).
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

#include <malloc.h>
#include <string.h>
#include <sys/random.h>

#include "coll/coll.h"
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
    if (coll_env_create(&s->colls) != TERSE_OK) {
        core_free(s->db);
        core_free(s);
        return TERSE_ENOMEM;
    }
    s->n_db = n_db;
    store_access_mode(s, false, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
    /* A secret seed keeps crafted keys from piling into one bucket; the shard's address is a
     * weak fallback if the kernel will not give entropy. */
    if (getentropy(&seed, sizeof(seed)) != 0) {
        seed = (uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL;
    }
    s->seed = seed;
    s->rng = seed | 1;
    /* Chunked hashes and sets are cut by a hash of their own (a field is not a key). */
    coll_env_set_seed(s->colls, seed ^ 0x6a09e667f3bcc909ULL);
    /* glibc raises its mmap threshold to the size of any mmapped block freed, after which
     * 1 MiB spans would come from the heap and a freed one would stay resident. Pinning the
     * threshold (at glibc's own default) keeps every span of STORE_SPAN_MAX mmapped. */
    (void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    *out = s;
    return TERSE_OK;
}

uint64_t store_rand(struct store_shard *s)
{
    return store_rng_next(s);
}

struct store_entry *store_link_entry(const struct store_shard *s, const uint8_t *link)
{
    return store_arena_ptr(&s->arena, store_link_get(link));
}

/* The container an entry holds, or NULL. */
static struct coll *entry_coll(const struct store_entry *e)
{
    return store_entry_enc(e) == STORE_ENC_COLL ? store_entry_coll(e) : NULL;
}

/* A key's container goes with its value (deleted, overwritten, expired, evicted): queued
 * for lazy free when the shard frees containers lazily for that cause (store_set_lazy). */
static void drop_coll(struct store_shard *s, struct coll *c, unsigned cause)
{
    if (c != NULL) {
        s->n_coll_keys--;
        if (s->lazy & cause) {
            coll_release(s->colls, c);
        } else {
            coll_destroy(s->colls, c);
        }
    }
}

void store_edited(struct store_shard *s, int db, const void *key, size_t klen)
{
    struct store_db *d = store_db_get(s, db);

    if (d != NULL) {
        store_changed(s, d, key, klen, STORE_CHANGE_WRITE);
    }
}

void store_set_lazy(struct store_shard *s, unsigned mask)
{
    s->lazy = mask;
}

unsigned store_lazy(const struct store_shard *s)
{
    return s->lazy;
}

static unsigned cause_of(enum store_change why)
{
    return why == STORE_CHANGE_EXPIRED   ? STORE_LAZY_EXPIRE
           : why == STORE_CHANGE_EVICTED ? STORE_LAZY_EVICT
                                         : STORE_LAZY_USER;
}

void store_db_release_colls(struct store_shard *s, struct store_db *d)
{
    for (uint64_t b = 0; b < d->n_buckets; b++) {
        store_ref r = store_link_get(store_index_bucket(d, b));
        while (r != STORE_REF_NONE) {
            struct store_entry *e = store_arena_ptr(&s->arena, r);
            drop_coll(s, entry_coll(e), STORE_LAZY_USER);
            r = store_entry_next(e);
        }
    }
}

struct coll_env *store_coll_env(struct store_shard *s)
{
    return s->colls;
}

void store_db_clear(struct store_shard *s, struct store_db *d)
{
    for (uint64_t b = 0; b < d->n_buckets; b++) {
        uint8_t *head = store_index_bucket(d, b);
        while (store_link_get(head) != STORE_REF_NONE) {
            store_unlink_free(s, d, head, STORE_CHANGE_WRITE);
        }
    }
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
    for (int i = 0; i < s->n_db && s->n_coll_keys > 0; i++) {
        store_db_release_colls(s, &s->db[i]);
    }
    coll_env_destroy(&s->colls);
    for (int i = 0; i < s->n_db; i++) {
        store_index_release(s, &s->db[i]);
    }
    store_arena_clear(s);
    core_free(s->zbuf);
    core_free(s->db);
    core_free(s);
    *pp = NULL;
}

int store_shard_n_db(const struct store_shard *s)
{
    return s->n_db;
}

static void unlink_free(struct store_shard *s, struct store_db *d, uint8_t *link,
                        enum store_change why, bool keep_coll, unsigned cause)
{
    store_ref r = store_link_get(link);
    struct store_entry *e = store_arena_ptr(&s->arena, r);
    size_t size = store_entry_mem(e);

    store_link_put(link, store_entry_next(e));
    store_account_sub(s, d, e);
    if (!keep_coll) {
        drop_coll(s, entry_coll(e), cause);
    }
    if (s->on_change != NULL) {
        /* Before the release: the key bytes are still the entry's. */
        uint32_t klen;
        const uint8_t *key = store_entry_keyp(e, &klen);
        store_changed(s, d, key, klen, why);
    }
    store_arena_release(s, r, size);
}

void store_unlink_free(struct store_shard *s, struct store_db *d, uint8_t *link,
                       enum store_change why)
{
    unlink_free(s, d, link, why, false, cause_of(why));
}

void store_unlink_replaced(struct store_shard *s, struct store_db *d, uint8_t *link)
{
    unlink_free(s, d, link, STORE_CHANGE_WRITE, false, STORE_LAZY_SERVER);
}

void store_unlink_keep(struct store_shard *s, struct store_db *d, uint8_t *link,
                       enum store_change why)
{
    unlink_free(s, d, link, why, true, 0);
}

void store_watch_changes(struct store_shard *s, store_change_fn *fn, void *arg)
{
    s->on_change = fn;
    s->on_change_arg = arg;
}

struct store_entry *store_peek(struct store_shard *s, int db, const void *key, size_t klen)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link = d != NULL ? store_index_find(s, d, key, klen) : NULL;

    return link != NULL ? store_link_entry(s, link) : NULL;
}

void store_access_set(struct store_shard *s, int db, const void *key, size_t klen,
                      long long freq, long long idle_s, int64_t now_ms)
{
    struct store_entry *e = store_peek(s, db, key, klen);

    if (e != NULL) {
        store_entry_access_restore(s, e, freq, idle_s, now_ms);
    }
}

uint8_t *store_find_live(struct store_shard *s, struct store_db *d, const void *key,
                         size_t klen, int64_t now_ms)
{
    uint8_t *link = store_index_find(s, d, key, klen);

    if (link != NULL && store_entry_expired(store_link_entry(s, link), now_ms)) {
        store_unlink_free(s, d, link, STORE_CHANGE_EXPIRED);
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
    uint8_t *link;
    struct store_entry *e;

    if (d == NULL) {
        return NULL;
    }
    link = store_find_live(s, d, key, klen, now_ms);
    if (link == NULL) {
        return NULL;
    }
    e = store_link_entry(s, link);
    if (flags & STORE_LOOKUP_TOUCH) {
        store_entry_touch(s, e, now_ms);
    }
    return e;
}

/* ---- set ---- */

/* Rewrites old (named by link) in place when the new value fits its footprint without
 * wasting much: a warm overwrite loop then allocates nothing. */
static bool set_in_place(struct store_shard *s, struct store_db *d, uint8_t *link,
                         enum store_type type, enum store_enc enc, const void *val, size_t vlen,
                         int64_t expire_ms, int64_t now_ms, unsigned flags)
{
    struct store_entry *old = store_link_entry(s, link);
    size_t have = store_entry_mem(old);
    size_t need;
    uint32_t klen;

    (void)store_entry_keyp(old, &klen);
    need = store_entry_size(klen, vlen, expire_ms >= 0);
    if (need > have || have - need > need / 4 + 16) {
        return false;
    }
    store_account_sub(s, d, old);
    store_pending_sub(s, old);
    store_entry_rewrite(old, enc, val, (uint32_t)vlen, expire_ms);
    store_entry_set_type(old, type);
    if (need < have) {
        store_arena_shrink(s, store_link_get(link), have, need);
    }
    if (flags & STORE_SET_RAW) {
        old->meta |= STORE_META_RAW;
    }
    if (flags & STORE_SET_PENDING) {
        old->meta |= STORE_META_PENDING;
        store_pending_add(s, store_link_get(link), old);
    }
    store_account_add(s, d, old);
    store_entry_set_access(old, store_access_overwrite(s, old, now_ms));
    return true;
}

/* Marks a freshly linked entry pending when the write asked for it. */
static void set_pending(struct store_shard *s, store_ref r, struct store_entry *e, unsigned flags)
{
    if (flags & STORE_SET_PENDING) {
        e->meta |= STORE_META_PENDING;
        store_pending_add(s, r, e);
    }
}

static int store_set(struct store_shard *s, int db, const void *key, size_t klen,
                     enum store_type type, enum store_enc enc, const void *val, size_t vlen,
                     int64_t expire_ms, int64_t now_ms, unsigned flags)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link;
    struct store_entry *old = NULL;
    struct store_entry *e;
    struct coll *old_coll;
    bool counted = false;
    store_ref r;
    size_t need;

    if (d == NULL || (key == NULL && klen > 0) || expire_ms < STORE_KEEP_TTL) {
        return TERSE_EINVAL;
    }
    if (klen > STORE_LEN_MAX || vlen > STORE_LEN_MAX) {
        return TERSE_ETOOBIG;
    }
    link = store_find_live(s, d, key, klen, now_ms);
    if (link != NULL) {
        old = store_link_entry(s, link);
    }
    if (expire_ms == STORE_KEEP_TTL) {
        expire_ms = old != NULL ? store_entry_expire(old) : STORE_NO_EXPIRE;
    }
    old_coll = old != NULL ? entry_coll(old) : NULL;
    if (old_coll != NULL && enc == STORE_ENC_COLL && vlen == sizeof(old_coll) &&
        memcmp(val, &old_coll, sizeof(old_coll)) == 0) {
        old_coll = NULL; /* the same container again: still the key's */
    } else if (enc == STORE_ENC_COLL) {
        s->n_coll_keys++;
        counted = true;
    }
    if (old != NULL &&
        set_in_place(s, d, link, type, enc, val, vlen, expire_ms, now_ms, flags)) {
        drop_coll(s, old_coll, STORE_LAZY_SERVER);
        store_changed(s, d, key, klen, STORE_CHANGE_WRITE);
        return TERSE_OK;
    }
    need = store_entry_size(klen, vlen, expire_ms >= 0);
    if (store_arena_alloc(s, need, &r, &e) != TERSE_OK) {
        if (counted) {
            s->n_coll_keys--; /* the caller keeps its container, the key its old value */
        }
        return TERSE_ENOMEM;
    }
    /* Links and entries never move on allocation: old and link are still good. */
    store_entry_fill(e, key, (uint32_t)klen, enc, val, (uint32_t)vlen, expire_ms,
                     old != NULL ? store_access_overwrite(s, old, now_ms)
                                 : store_access_new(s, now_ms));
    store_entry_set_type(e, type);
    if (flags & STORE_SET_RAW) {
        e->meta |= STORE_META_RAW;
    }
    if (old != NULL) {
        store_ref old_r = store_link_get(link);
        size_t old_size = store_entry_mem(old);
        store_link_put(store_entry_link(e), store_entry_next(old));
        store_link_put(link, r);
        store_account_sub(s, d, old);
        store_arena_release(s, old_r, old_size);
        store_account_add(s, d, e);
        set_pending(s, r, e, flags);
        drop_coll(s, old_coll, STORE_LAZY_SERVER);
        store_changed(s, d, key, klen, STORE_CHANGE_WRITE);
        return TERSE_OK;
    }
    if (store_index_reserve(s, d) != TERSE_OK) {
        store_arena_release(s, r, need);
        if (counted) {
            s->n_coll_keys--;
        }
        return TERSE_ENOMEM;
    }
    store_index_link(s, d, r);
    store_account_add(s, d, e);
    set_pending(s, r, e, flags);
    store_changed(s, d, key, klen, STORE_CHANGE_ADDED);
    return TERSE_OK;
}

int store_set_value(struct store_shard *s, int db, const void *key, size_t klen,
                    enum store_type type, const void *stored, size_t stored_len,
                    int64_t expire_ms, int64_t now_ms, unsigned flags)
{
    if ((stored == NULL && stored_len > 0) || (unsigned)type > STORE_TYPE_MAX ||
        (type != STORE_TYPE_STRING && (flags & STORE_SET_PENDING))) {
        return TERSE_EINVAL;
    }
    return store_set(s, db, key, klen, type, STORE_ENC_STR, stored, stored_len, expire_ms,
                     now_ms, flags);
}

int store_set_coll(struct store_shard *s, int db, const void *key, size_t klen, struct coll *c,
                   int64_t expire_ms, int64_t now_ms)
{
    if (c == NULL) {
        return TERSE_EINVAL;
    }
    return store_set(s, db, key, klen, STORE_TYPE_STRING, STORE_ENC_COLL, &c, sizeof(c),
                     expire_ms, now_ms, 0);
}

int store_set_str_flags(struct store_shard *s, int db, const void *key, size_t klen,
                        const void *stored, size_t stored_len, int64_t expire_ms, int64_t now_ms,
                        unsigned flags)
{
    return store_set_value(s, db, key, klen, STORE_TYPE_STRING, stored, stored_len, expire_ms,
                           now_ms, flags);
}

int store_set_str(struct store_shard *s, int db, const void *key, size_t klen, const void *stored,
                  size_t stored_len, int64_t expire_ms, int64_t now_ms)
{
    return store_set_str_flags(s, db, key, klen, stored, stored_len, expire_ms, now_ms, 0);
}

void store_mark_raw(struct store_shard *s, int db, const void *key, size_t klen, int on)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link = d != NULL ? store_index_find(s, d, key, klen) : NULL;
    struct store_entry *e;

    if (link == NULL) {
        return;
    }
    e = store_link_entry(s, link);
    if (on) {
        e->meta |= STORE_META_RAW;
    } else {
        e->meta &= (uint8_t)~STORE_META_RAW;
    }
}

int store_entry_is_raw(const struct store_entry *e)
{
    return (e->meta & STORE_META_RAW) != 0;
}

int store_entry_is_pending(const struct store_entry *e)
{
    return (e->meta & STORE_META_PENDING) != 0;
}

int store_set_int(struct store_shard *s, int db, const void *key, size_t klen, int64_t v,
                  int64_t expire_ms, int64_t now_ms)
{
    return store_set(s, db, key, klen, STORE_TYPE_STRING, STORE_ENC_INT, &v, sizeof(v),
                     expire_ms, now_ms, 0);
}

/* ---- delete and expiry ---- */

int store_delete(struct store_shard *s, int db, const void *key, size_t klen, int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link;

    if (d == NULL) {
        return 0;
    }
    link = store_find_live(s, d, key, klen, now_ms);
    if (link != NULL) {
        store_unlink_free(s, d, link, STORE_CHANGE_WRITE);
    }
    store_index_maybe_shrink(s, d, 1);
    return link != NULL;
}

/* Gives the entry at link its first expiry: a copy 8 bytes longer replaces it. */
static int expire_add(struct store_shard *s, uint8_t *link, int64_t when_ms)
{
    struct store_entry *e = store_link_entry(s, link);
    store_ref old_r = store_link_get(link);
    size_t old_size = store_entry_mem(e);
    struct store_elens l;
    struct store_entry *ne;
    store_ref r;

    store_entry_lens(e, &l);
    if (store_arena_alloc(s, store_entry_size(l.klen, l.vlen, true), &r, &ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    store_entry_copy(ne, e, store_eb(e) + l.key_off, l.klen, when_ms);
    store_link_put(store_entry_link(ne), store_entry_next(e));
    store_link_put(link, r);
    store_pending_add(s, r, ne);
    s->entry_bytes = s->entry_bytes - old_size + store_entry_mem(ne);
    store_arena_release(s, old_r, old_size);
    return TERSE_OK;
}

int store_expire_set(struct store_shard *s, int db, const void *key, size_t klen, int64_t when_ms,
                     int64_t now_ms)
{
    struct store_db *d = store_db_get(s, db);
    uint8_t *link;
    struct store_entry *e;
    bool had;

    if (d == NULL || (when_ms < 0 && when_ms != STORE_NO_EXPIRE)) {
        return TERSE_EINVAL;
    }
    link = store_find_live(s, d, key, klen, now_ms);
    if (link == NULL) {
        return 0;
    }
    e = store_link_entry(s, link);
    had = (e->meta & STORE_META_EXPIRE) != 0;
    if (when_ms >= 0 && had) {
        struct store_elens l;
        store_entry_lens(e, &l);
        memcpy(store_eb(e) + l.key_off - sizeof(int64_t), &when_ms, sizeof(when_ms));
    } else if (when_ms >= 0) {
        if (expire_add(s, link, when_ms) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
        d->n_expires++;
    } else if (had) {
        size_t size = store_entry_mem(e);
        store_entry_drop_expire(e);
        store_arena_shrink(s, store_link_get(link), size, store_entry_mem(e));
        s->entry_bytes -= size - store_entry_mem(e);
        d->n_expires--;
    }
    if (when_ms >= 0 || had) {
        store_changed(s, d, key, klen, STORE_CHANGE_WRITE);
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
    store_arena_cache_trim(s);
    for (int i = 0; i < s->n_db; i++) {
        store_index_maybe_shrink(s, &s->db[i], n);
    }
    (void)store_arena_compact(s, (size_t)(n > 0 ? n : 0) * STORE_COMPACT_BYTES_PER_STEP, false,
                              NULL, NULL);
}

size_t store_maintain(struct store_shard *s, size_t max_bytes)
{
    return store_arena_compact(s, max_bytes, false, NULL, NULL);
}

size_t store_reclaim(struct store_shard *s, size_t max_bytes)
{
    return store_arena_compact(s, max_bytes, true, NULL, NULL);
}

void store_stats_get(const struct store_shard *s, struct store_stats *out)
{
    out->expired_keys = s->expired_keys;
    out->n_keys = s->n_keys;
    out->entry_bytes = s->entry_bytes;
    out->index_bytes = s->index_bytes;
    out->value_bytes = s->value_bytes;
    out->evicted_keys = s->evicted_keys;
    out->arena_bytes = s->arena.span_bytes + s->arena.table_bytes + s->arena.cache_bytes;
    out->n_pending = s->n_pending;
    out->pending_bytes = s->pending_bytes;
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
