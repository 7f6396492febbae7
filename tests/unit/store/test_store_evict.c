/*
 * Unit tests for store_evict and store_cost: each policy evicts the kind of key it should
 * (statistically: cold before hot for LRU and LFU, soonest expiry first for TTL), volatile
 * policies never touch persistent keys, the bytes reported equal the drop in the shard's
 * memory (and in core_mem's), limits (bytes, max_keys) hold, and the admission estimate
 * covers what an entry really costs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/core_mem.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define T0 1700000040000LL
#define N_KEYS 4000

static size_t key_of(char *buf, size_t cap, int i)
{
    return (size_t)snprintf(buf, cap, "key:%d", i);
}

/* A shard of N_KEYS keys over n_db dbs, its access fields in LFU mode when lfu. */
static struct store_shard *fill_as(int n_db, int64_t (*exp_of)(int i), bool lfu)
{
    struct store_shard *s = NULL;
    char k[32];
    char v[100];

    memset(v, 'v', sizeof(v));
    assert_int_equal(store_shard_create(&s, n_db), TERSE_OK);
    store_access_mode(s, lfu, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
    for (int i = 0; i < N_KEYS; i++) {
        size_t kl = key_of(k, sizeof(k), i);
        assert_int_equal(store_set_str(s, i % n_db, k, kl, v, 20 + (size_t)(i % 80),
                                       exp_of != NULL ? exp_of(i) : STORE_NO_EXPIRE, T0),
                         TERSE_OK);
    }
    store_rehash_step(s, 1 << 20);
    return s;
}

static struct store_shard *fill(int n_db, int64_t (*exp_of)(int i))
{
    return fill_as(n_db, exp_of, false);
}

static bool present(struct store_shard *s, int n_db, int i, int64_t now)
{
    char k[32];
    size_t kl = key_of(k, sizeof(k), i);
    return store_lookup(s, i % n_db, k, kl, now, 0) != NULL;
}

static struct store_evict_opts opts(enum store_evict_policy p, int volatile_only)
{
    struct store_evict_opts o = {p, volatile_only, 5, 10, 1};
    return o;
}

/* Evicts n keys one call at a time (so the pool carries over between calls). */
static void evict_n(struct store_shard *s, const struct store_evict_opts *o, int n, int64_t now)
{
    for (int i = 0; i < n; i++) {
        size_t n_ev = 0;
        (void)store_evict(s, o, SIZE_MAX, 1, now, &n_ev);
        assert_int_equal(n_ev, 1);
    }
}

static void test_lru_keeps_recent(void **state)
{
    struct store_shard *s = fill(1, NULL);
    struct store_evict_opts o = opts(STORE_EVICT_LRU, 0);
    int64_t now = T0 + 1000000;
    int hot_lost = 0;

    (void)state;
    /* Even keys are touched late; odd ones stay idle since T0. */
    for (int i = 0; i < N_KEYS; i += 2) {
        char k[32];
        size_t kl = key_of(k, sizeof(k), i);
        assert_non_null(store_lookup(s, 0, k, kl, now - (i % 100) * 1000, STORE_LOOKUP_TOUCH));
    }
    evict_n(s, &o, N_KEYS / 4, now);
    for (int i = 0; i < N_KEYS; i += 2) {
        hot_lost += present(s, 1, i, now) ? 0 : 1;
    }
    /* Sampling 5 keys with a 16-candidate pool: hot keys are almost never chosen (at most 2
     * of the 2000 over 2000 runs). Compaction deleting entries the pool's worst candidate
     * outranked lost up to 72, and 10 or more in over half the runs. */
    assert_true(hot_lost < 10);
    assert_int_equal(store_dbsize(s, 0), N_KEYS - N_KEYS / 4);
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
}

/* With deletes leaving spans half dead, eviction's compaction meets cold entries as it
 * evacuates them and deletes those instead of moving them: still one key at a time, the count
 * exact, and hot keys kept. */
static void test_lru_through_compaction(void **state)
{
    struct store_shard *s = fill(1, NULL);
    struct store_evict_opts o = opts(STORE_EVICT_LRU, 0);
    int64_t now = T0 + 1000000;
    int hot_lost = 0;
    size_t keys;

    (void)state;
    for (int i = 0; i < N_KEYS / 2; i += 3) { /* dead space in the older spans */
        char k[32];
        size_t kl = key_of(k, sizeof(k), i);
        assert_int_equal(store_delete(s, 0, k, kl, T0), 1);
    }
    for (int i = N_KEYS / 2; i < N_KEYS; i++) { /* the newer half is hot */
        char k[32];
        size_t kl = key_of(k, sizeof(k), i);
        assert_non_null(store_lookup(s, 0, k, kl, now, STORE_LOOKUP_TOUCH));
    }
    assert_true(store_arena_dead(&s->arena) >= s->arena.span[s->arena.cur].cap);
    keys = store_dbsize(s, 0);
    evict_n(s, &o, N_KEYS / 4, now);
    assert_int_equal(store_dbsize(s, 0), keys - N_KEYS / 4);
    for (int i = N_KEYS / 2; i < N_KEYS; i++) {
        hot_lost += present(s, 1, i, now) ? 0 : 1;
    }
    assert_true(hot_lost < N_KEYS / 4 / 20);
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
}

static void test_lfu_keeps_frequent(void **state)
{
    struct store_shard *s = fill_as(1, NULL, true);
    struct store_evict_opts o = opts(STORE_EVICT_LFU, 0);
    int freq_lost = 0;

    (void)state;
    /* Keys divisible by 3 get 50 hits; the others none. */
    for (int i = 0; i < N_KEYS; i += 3) {
        char k[32];
        size_t kl = key_of(k, sizeof(k), i);
        for (int h = 0; h < 50; h++) {
            assert_non_null(store_lookup(s, 0, k, kl, T0, STORE_LOOKUP_TOUCH));
        }
    }
    evict_n(s, &o, N_KEYS / 2, T0);
    for (int i = 0; i < N_KEYS; i += 3) {
        freq_lost += present(s, 1, i, T0) ? 0 : 1;
    }
    assert_true(freq_lost < N_KEYS / 2 / 20);
    store_shard_destroy(&s);
}

static int64_t exp_every_other(int i)
{
    /* Even keys persistent; odd keys expire later the larger i is. */
    return i % 2 == 0 ? STORE_NO_EXPIRE : T0 + 1000000 + (int64_t)i * 1000;
}

static void test_ttl_soonest_first(void **state)
{
    struct store_shard *s = fill(2, exp_every_other);
    struct store_evict_opts o = opts(STORE_EVICT_TTL, 0); /* TTL is volatile whatever */
    int late_lost = 0;

    (void)state;
    evict_n(s, &o, N_KEYS / 8, T0);
    for (int i = 0; i < N_KEYS; i++) {
        if (i % 2 == 0) {
            assert_true(present(s, 2, i, T0)); /* persistent: never a TTL candidate */
        } else if (i >= N_KEYS / 2 && !present(s, 2, i, T0)) {
            late_lost++; /* expires in the later half */
        }
    }
    /* A quarter of the volatile keys went, nearly all from the soonest-expiring half. */
    assert_true(late_lost < N_KEYS / 8 / 20);
    assert_int_equal(store_db_n_expires(s, 0) + store_db_n_expires(s, 1),
                     N_KEYS / 2 - N_KEYS / 8);
    store_shard_destroy(&s);
}

static void test_volatile_never_persistent(void **state)
{
    enum store_evict_policy pol[] = {STORE_EVICT_LRU, STORE_EVICT_LFU, STORE_EVICT_RANDOM,
                                     STORE_EVICT_TTL};

    (void)state;
    for (size_t p = 0; p < sizeof(pol) / sizeof(pol[0]); p++) {
        struct store_shard *s = fill(3, exp_every_other);
        struct store_evict_opts o = opts(pol[p], 1);
        struct store_stats st;
        size_t n_ev = 0;

        /* Ask for everything: only the volatile half can go, then candidates run out. */
        (void)store_evict(s, &o, SIZE_MAX, 0, T0, &n_ev);
        assert_int_equal(n_ev, N_KEYS / 2);
        for (int i = 0; i < N_KEYS; i++) {
            assert_int_equal(present(s, 3, i, T0), i % 2 == 0);
        }
        assert_int_equal(store_evict(s, &o, 1000, 0, T0, &n_ev), 0);
        assert_int_equal(n_ev, 0);
        store_stats_get(s, &st);
        assert_int_equal(st.evicted_keys, N_KEYS / 2);
        assert_int_equal(store_verify(s), TERSE_OK);
        store_shard_destroy(&s);
    }
}

static void test_random_bytes_exact(void **state)
{
    struct store_shard *s = fill(4, NULL);
    struct store_evict_opts o = opts(STORE_EVICT_RANDOM, 0);
    struct store_stats a;
    struct store_stats b;
    uint64_t mem0 = core_mem_used();
    size_t n_ev = 0;
    size_t rel;
    int lost[4] = {0};

    (void)state;
    store_stats_get(s, &a);
    rel = store_evict(s, &o, 50000, 0, T0, &n_ev);
    store_stats_get(s, &b);
    assert_true(rel >= 50000);
    assert_true(rel < 50000 + 200); /* stops at the first key that crosses the target */
    assert_int_equal(rel, (a.entry_bytes + a.index_bytes) - (b.entry_bytes + b.index_bytes));
    /* The allocator got it back too, but for dead space under a span outside the current
     * one, the current one's own, and emptied spans kept for reuse (at most 256 KiB). */
    assert_true(s->arena.cache_bytes <= STORE_SPAN_CACHE_BYTES);
    assert_true(mem0 - core_mem_used() + 2 * s->arena.span[s->arena.cur].cap +
                    s->arena.cache_bytes >= rel);
    assert_int_equal(n_ev, a.n_keys - b.n_keys);
    assert_int_equal(b.evicted_keys, n_ev);
    for (int i = 0; i < N_KEYS; i++) {
        lost[i % 4] += present(s, 4, i, T0) ? 0 : 1;
    }
    for (int db = 0; db < 4; db++) { /* every db gave its share */
        assert_true(lost[db] > (int)n_ev / 8);
    }
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
}

static void test_limits_and_expired(void **state)
{
    struct store_shard *s = fill(1, exp_every_other);
    struct store_evict_opts o = opts(STORE_EVICT_LRU, 0);
    struct store_stats st;
    size_t n_ev = 99;

    (void)state;
    assert_int_equal(store_evict(s, &o, 0, 0, T0, &n_ev), 0); /* nothing asked */
    assert_int_equal(n_ev, 0);
    (void)store_evict(s, &o, SIZE_MAX, 7, T0, &n_ev); /* max_keys bounds one call */
    assert_int_equal(n_ev, 7);
    assert_int_equal(store_dbsize(s, 0), N_KEYS - 7);
    /* Everything volatile has expired: such victims are counted as expired, not evicted. */
    o.volatile_only = 1;
    (void)store_evict(s, &o, SIZE_MAX, 0, T0 + 100000000, &n_ev);
    assert_int_equal(n_ev, 0);
    store_stats_get(s, &st);
    assert_int_equal(st.evicted_keys, 7);
    assert_true(st.expired_keys > 0);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    /* samples out of range is clamped, not trusted. */
    o.volatile_only = 0;
    o.samples = 0;
    (void)store_evict(s, &o, SIZE_MAX, 1, T0, &n_ev);
    assert_int_equal(n_ev, 1);
    o.samples = 1000000;
    (void)store_evict(s, &o, SIZE_MAX, 1, T0, &n_ev);
    assert_int_equal(n_ev, 1);
    /* An empty shard evicts nothing and does not loop. */
    store_flushall(s);
    assert_int_equal(store_evict(s, &o, SIZE_MAX, 0, T0, &n_ev), 0);
    assert_int_equal(n_ev, 0);
    store_shard_destroy(&s);
}

static void test_long_keys(void **state)
{
    struct store_shard *s = NULL;
    struct store_evict_opts o = opts(STORE_EVICT_LRU, 0);
    char k[300];
    size_t n_ev = 0;

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    /* Keys longer than the pool's copy that share their first STORE_EVICT_KEY_CAP bytes. */
    memset(k, 'p', sizeof(k));
    for (int i = 0; i < 200; i++) {
        snprintf(k + 250, sizeof(k) - 250, "%05d", i);
        assert_int_equal(store_set_int(s, 0, k, 255, i, STORE_NO_EXPIRE, T0), TERSE_OK);
    }
    (void)store_evict(s, &o, SIZE_MAX, 150, T0 + 5000, &n_ev);
    assert_int_equal(n_ev, 150);
    assert_int_equal(store_dbsize(s, 0), 50);
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
}

/* store_cost_now bounds what a write really adds to core_mem_used(), span openings and
 * index growth included, so an admission check with it keeps a budget exact. */
static void test_cost_now_bounds_growth(void **state)
{
    struct store_shard *s = NULL;
    static char v[70000];
    unsigned rng = 3;

    (void)state;
    assert_int_equal(store_shard_create(&s, 2), TERSE_OK);
    for (int i = 0; i < 60000; i++) {
        char k[32];
        size_t kl = (size_t)snprintf(k, sizeof(k), "n:%d", i);
        size_t n;
        uint64_t before;
        size_t c;
        rng = rng * 1103515245u + 12345u;
        n = (rng >> 8) % 64 == 0 ? (rng >> 4) % sizeof(v) : (rng >> 8) % 1500;
        before = core_mem_used();
        c = store_cost_now(s, i % 2, kl, n, i % 3 == 0);
        assert_int_equal(store_set_str(s, i % 2, k, kl, v, n, i % 3 == 0 ? T0 + 5 : -1, T0),
                         TERSE_OK);
        if (core_mem_used() > before + c) {
            fail_msg("write %d grew memory by %llu, estimate %zu", i,
                     (unsigned long long)(core_mem_used() - before), c);
        }
    }
    assert_int_equal(store_cost_now(s, 99, 1, 1, 0) <= STORE_SPAN_CAP_MAX + 4096, 1);
    store_shard_destroy(&s);
}

static void test_cost_covers_entry(void **state)
{
    struct store_shard *s = NULL;
    static char v[5000];
    struct store_stats a;
    struct store_stats b;

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    for (size_t n = 0; n < sizeof(v); n += 37) {
        char k[32];
        size_t kl = (size_t)snprintf(k, sizeof(k), "c:%zu", n);
        store_stats_get(s, &a);
        assert_int_equal(store_set_str(s, 0, k, kl, v, n, n % 2 ? T0 + 5 : STORE_NO_EXPIRE, T0),
                         TERSE_OK);
        store_stats_get(s, &b);
        assert_true(store_cost(kl, n, n % 2) >= b.entry_bytes - a.entry_bytes);
        /* An estimate, not a blank cheque: within a few words of the truth. */
        assert_true(store_cost(kl, n, n % 2) <= b.entry_bytes - a.entry_bytes + 64);
    }
    store_shard_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_keeps_recent),
        cmocka_unit_test(test_lru_through_compaction),
        cmocka_unit_test(test_lfu_keeps_frequent),
        cmocka_unit_test(test_ttl_soonest_first),
        cmocka_unit_test(test_volatile_never_persistent),
        cmocka_unit_test(test_random_bytes_exact),
        cmocka_unit_test(test_limits_and_expired),
        cmocka_unit_test(test_long_keys),
        cmocka_unit_test(test_cost_covers_entry),
        cmocka_unit_test(test_cost_now_bounds_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
