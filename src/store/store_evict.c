/*
 * store_evict: maxmemory eviction and the admission estimate, after Redis's
 * performEvictions / evictionPoolPopulate.
 *
 * A round samples up to `samples` keys from every non-empty db (consecutive buckets from a
 * random one, at most STORE_EVICT_BUCKETS_PER_SAMPLE buckets per wanted key, doubled after
 * each round that found no victim, up to STORE_EVICT_EMPTY_ROUNDS rounds) and offers each
 * to the shard's pool of STORE_EVICT_POOL best candidates, sorted by score (higher = evict
 * first):
 *
 *     LRU     idle seconds
 *     LFU     255 - the LFU counter decayed with the caller's lfu-decay-time
 *     TTL     UINT64_MAX - expiry (volatile keys only, whatever volatile_only says)
 *     RANDOM  no pool: one sampled key of the next non-empty db
 *
 * Then the best candidate is popped and looked up again by its copied key (a candidate holds
 * no pointer: entries are freed and moved between calls). A candidate whose key is gone,
 * or no longer volatile under a volatile policy, is dropped and the next one tried. A key
 * found expired is deleted as expired (counted in expired_keys, not evicted_keys), and its
 * bytes count as released.
 *
 * The pool survives across calls, so candidates found by earlier samples compete with new
 * ones: the approximation gets better the more a workload evicts, as in Redis. It is emptied
 * when the policy changes (its scores would rank nothing).
 *
 * Released bytes are the decrease of the shard's entry_bytes + index_bytes, exact by
 * construction; eviction never resizes the index (the cron does). Deleting an entry only
 * marks it dead in its arena span, and memory goes back to the allocator when a span empties;
 * so whenever a span's worth of bytes is dead, eviction compacts (store_arena_compact,
 * forced) to free spans, which keeps the allocator's figure within about a span of the
 * entries' (a span is at most 1 MiB and about 1/32 of the arena). That compaction is also
 * where victims come cheapest: an entry of the span being evacuated that the policy would
 * evict anyway is deleted there rather than copied (drop_cold), which on a corpus load at
 * maxmemory took write throughput from about 0.3x Redis's to about 0.55x.
 */
#include "store/store.h"

#include <string.h>

#include "core/core_mem.h"
#include "store/store_internal.h"

#define STORE_EVICT_SAMPLES_MAX 64        /* maxmemory-samples above this is clamped */
#define STORE_EVICT_BUCKETS_PER_SAMPLE 64 /* bucket visits per wanted sample, at most */
#define STORE_EVICT_EMPTY_ROUNDS 12       /* rounds without a victim before giving up */

struct evict_run {
    struct store_shard *s;
    const struct store_evict_opts *o;
    int64_t now_ms;
    bool volatile_only;
    int samples;
    int misses;       /* rounds in a row without a victim: widens the sample walk */
    uint64_t start;   /* store_logical at the start of the call */
    size_t bytes;     /* what the call is to release */
    size_t max_keys;  /* most keys the call deletes (0: no limit) */
    size_t n_deleted; /* keys deleted (evicted or expired) by the call */
    size_t n_ev;      /* of which evicted */
};

static uint64_t cand_score(const struct evict_run *r, const struct store_entry *e)
{
    switch (r->o->policy) {
    case STORE_EVICT_LRU:
        return store_entry_idle_s(e, r->now_ms);
    case STORE_EVICT_LFU:
        return 255u - store_entry_lfu_at(e, r->now_ms, r->o->lfu_decay_time);
    case STORE_EVICT_TTL:
        return UINT64_MAX - (uint64_t)store_entry_expire(e);
    case STORE_EVICT_RANDOM:
        break;
    }
    return 0;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Offers e (in db) to the pool, keeping it sorted ascending by score. */
static void pool_offer(struct store_shard *s, int db, uint64_t score, const struct store_entry *e)
{
    struct store_evict_cand *pool = s->pool;
    size_t klen;
    const uint8_t *key = store_entry_key(e, &klen);
    uint64_t h = store_hash(s, key, klen);
    int k = 0;

    for (int i = 0; i < s->n_pool; i++) {
        if (pool[i].hash == h && pool[i].db == db && pool[i].klen == klen) {
            return; /* already a candidate */
        }
    }
    if (s->n_pool == STORE_EVICT_POOL && score <= pool[0].score) {
        return;
    }
    while (k < s->n_pool && pool[k].score < score) {
        k++;
    }
    if (s->n_pool == STORE_EVICT_POOL) {
        /* Drop the worst (pool[0]) and insert just below position k. */
        memmove(&pool[0], &pool[1], (size_t)(k - 1) * sizeof(pool[0]));
        k--;
    } else {
        memmove(&pool[k + 1], &pool[k], (size_t)(s->n_pool - k) * sizeof(pool[0]));
        s->n_pool++;
    }
    pool[k].score = score;
    pool[k].hash = h;
    pool[k].klen = (uint32_t)klen;
    pool[k].db = db;
    memcpy(pool[k].key, key, min_size(klen, STORE_EVICT_KEY_CAP));
}

struct cand_match {
    const struct store_shard *s;
    const struct store_evict_cand *c;
};

static bool cand_eq(const struct store_entry *e, void *arg)
{
    const struct cand_match *m = arg;
    size_t klen;
    const uint8_t *key = store_entry_key(e, &klen);

    if (klen != m->c->klen || memcmp(key, m->c->key, min_size(klen, STORE_EVICT_KEY_CAP)) != 0) {
        return false;
    }
    return klen <= STORE_EVICT_KEY_CAP || store_hash(m->s, key, klen) == m->c->hash;
}

/* Deletes the entry at link (expired or evicted); returns 1 when it counts as evicted. */
static int victim_delete(struct evict_run *r, struct store_db *d, uint8_t *link)
{
    bool expired = store_entry_expired(store_link_entry(r->s, link), r->now_ms);

    store_unlink_free(r->s, d, link, expired ? STORE_CHANGE_EXPIRED : STORE_CHANGE_EVICTED);
    if (expired) {
        r->s->expired_keys++;
        return 0;
    }
    r->s->evicted_keys++;
    return 1;
}

static void pool_populate(struct evict_run *r)
{
    struct store_entry *got[STORE_EVICT_SAMPLES_MAX];
    /* Each fruitless round doubles the walk, so keys that are rare among the sampled ones
     * (a few volatile keys among many persistent) are still found, in bounded work. */
    size_t max_buckets = ((size_t)r->samples * STORE_EVICT_BUCKETS_PER_SAMPLE) << r->misses;

    for (int db = 0; db < r->s->n_db; db++) {
        struct store_db *d = &r->s->db[db];
        size_t n = store_index_sample(r->s, d, got, (size_t)r->samples, r->volatile_only,
                                      max_buckets);
        for (size_t i = 0; i < n; i++) {
            pool_offer(r->s, db, cand_score(r, got[i]), got[i]);
        }
    }
}

/* One victim from the pool; returns 1 if a key was deleted (evicted or expired), else 0. */
static int evict_pooled(struct evict_run *r, size_t *n_evicted)
{
    struct store_shard *s = r->s;

    pool_populate(r);
    while (s->n_pool > 0) {
        struct store_evict_cand c = s->pool[--s->n_pool];
        struct store_db *d = &s->db[c.db];
        struct cand_match m = {s, &c};
        uint8_t *link = store_index_find_h(s, d, c.hash, cand_eq, &m);

        if (link == NULL ||
            (r->volatile_only && store_entry_expire(store_link_entry(s, link)) < 0)) {
            continue; /* deleted, replaced or made persistent since it was sampled */
        }
        *n_evicted += (size_t)victim_delete(r, d, link);
        return 1;
    }
    return 0;
}

static int evict_random(struct evict_run *r, size_t *n_evicted)
{
    struct store_shard *s = r->s;

    for (int i = 0; i < s->n_db; i++) {
        int db = (s->evict_db_next + i) % s->n_db;
        struct store_db *d = &s->db[db];
        struct store_entry *e;
        uint8_t *link;
        size_t klen;
        const uint8_t *key;

        if (store_index_sample(s, d, &e, 1, r->volatile_only,
                               (size_t)STORE_EVICT_BUCKETS_PER_SAMPLE << r->misses) == 0) {
            continue;
        }
        s->evict_db_next = (db + 1) % s->n_db;
        key = store_entry_key(e, &klen);
        link = store_index_find(s, d, key, klen);
        *n_evicted += (size_t)victim_delete(r, d, link);
        return 1;
    }
    return 0;
}

/* The store's bytes as store_stats reports them: live entries and index. */
static uint64_t store_logical(const struct store_shard *s)
{
    return s->entry_bytes + s->index_bytes;
}

static uint64_t span_quantum(const struct store_shard *s)
{
    const struct store_arena *a = &s->arena;
    return a->cur != 0 ? a->span[a->cur].cap : STORE_SPAN_MIN;
}

/* Whether the call has released what it was asked to, or deleted all it may. */
static bool run_done(const struct evict_run *r)
{
    return r->start - store_logical(r->s) >= r->bytes ||
           (r->max_keys != 0 && r->n_deleted >= r->max_keys);
}

/*
 * Eviction's compaction offers each live entry of the span it evacuates (store_drop_fn).
 * An entry that scores at least as high as the pool's best candidate, so that it would go
 * next (LRU and LFU clocks are coarse, so the oldest entries tie with it), any entry under
 * allkeys-random, or an expired one, is a victim found for free: it is deleted, one key of
 * the call's count, instead of copied. The bar is the best candidate, not the worst: a pool
 * drained by earlier pops can hold only recently used keys, and measured against its worst,
 * hot keys went (up to 72 of test_lru_keeps_recent's 2000). Once the call has released what
 * it was asked to, the step stops in front of the next entry rather than moving it: the next
 * call's eviction starts there.
 */
static enum store_drop drop_cold(void *arg, struct store_db *d, uint8_t *link)
{
    struct evict_run *r = arg;
    const struct store_entry *e = store_link_entry(r->s, link);

    if (run_done(r)) {
        return STORE_DROP_STOP;
    }
    if (!store_entry_expired(e, r->now_ms)) {
        if (r->volatile_only && !(e->meta & STORE_META_EXPIRE)) {
            return STORE_DROP_KEEP;
        }
        if (r->o->policy != STORE_EVICT_RANDOM) {
            uint64_t score = cand_score(r, e);
            /* A key used within the LRU clock's current second ties with every other such key:
             * the tie says nothing of coldness, and a burst of writes would lose its newest
             * keys a span at a time. Those go only one by one, through the pool. */
            if (r->s->n_pool == 0 || score < r->s->pool[r->s->n_pool - 1].score ||
                (r->o->policy == STORE_EVICT_LRU && score == 0)) {
                return STORE_DROP_KEEP;
            }
        }
    }
    r->n_ev += (size_t)victim_delete(r, d, link);
    r->n_deleted++;
    return STORE_DROP_DONE;
}

size_t store_evict(struct store_shard *s, const struct store_evict_opts *o, size_t bytes,
                   size_t max_keys, int64_t now_ms, size_t *n_evicted)
{
    struct evict_run r = {s, o, now_ms, o->volatile_only != 0 || o->policy == STORE_EVICT_TTL,
                          o->samples, 0, store_logical(s), bytes, max_keys, 0, 0};
    uint64_t start = r.start;

    if (s->pool_policy != (int)o->policy) {
        s->n_pool = 0; /* scores of another policy rank nothing (CONFIG SET maxmemory-policy) */
        s->pool_policy = (int)o->policy;
    }
    if (r.samples < 1) {
        r.samples = 1;
    } else if (r.samples > STORE_EVICT_SAMPLES_MAX) {
        r.samples = STORE_EVICT_SAMPLES_MAX;
    }
    for (;;) {
        int got;
        /* Deleting only marks entries dead: memory goes back when a span empties. Once a
         * span's worth is dead, compacting frees spans; this keeps the allocator's figure
         * within about a span of the entries'. */
        if (store_arena_dead(&s->arena) >= span_quantum(s)) {
            /* drop_cold's bar is the pool's best: sample first, as evict_pooled does,
             * or a pool drained of cold keys sets it (volatile-ttl lost long-lived keys
             * in 4.6% of test_volatile_spares_persistent's runs, against 1.7% without
             * drop_cold and none with this). */
            if (o->policy != STORE_EVICT_RANDOM) {
                pool_populate(&r);
            }
            if (store_arena_compact(s, STORE_SPAN_CAP_MAX, true, drop_cold, &r) > 0) {
                continue;
            }
        }
        if (run_done(&r) || s->n_keys == 0 || r.misses >= STORE_EVICT_EMPTY_ROUNDS) {
            break;
        }
        got = o->policy == STORE_EVICT_RANDOM ? evict_random(&r, &r.n_ev)
                                              : evict_pooled(&r, &r.n_ev);
        r.n_deleted += (size_t)got;
        r.misses = got ? 0 : r.misses + 1;
    }
    if (n_evicted != NULL) {
        *n_evicted = r.n_ev;
    }
    return (size_t)(start - store_logical(s));
}

size_t store_cost(size_t klen, size_t vlen, int has_expire)
{
    /* The entry's footprint plus its share of bucket heads at the lowest load. */
    return store_entry_size(klen, vlen, has_expire != 0) +
           sizeof(uint32_t) * STORE_LOAD_MIN_DIV / STORE_LOAD_MAX + 1;
}

size_t store_cost_now(const struct store_shard *s, int db, size_t klen, size_t vlen,
                      int has_expire)
{
    size_t cost = store_arena_grow_cost(s, store_entry_size(klen, vlen, has_expire != 0));

    if (db >= 0 && db < s->n_db) {
        cost += store_index_grow_cost(&s->db[db]);
    }
    return cost;
}
