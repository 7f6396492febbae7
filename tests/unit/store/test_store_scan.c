/*
 * Unit tests for store_scan: a key present for the whole iteration is returned at least once
 * while the table grows, shrinks and rehashes between (and during) steps; expired keys are
 * not reported; a stable table yields every key exactly once; the accounting equals the sum
 * over a full scan.
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
#define N_STABLE 3000   /* keys present for the whole iteration */
#define N_CHURN 40000   /* keys inserted or deleted mid-iteration */

struct seen {
    unsigned stable[N_STABLE]; /* times each "s:<i>" key was reported */
    size_t n_reported;
    uint64_t mem_sum;   /* sum of store_entry_mem over reported entries */
    uint64_t value_sum; /* sum of stored lengths of ENC_STR entries */
};

static void on_entry(void *arg, const struct store_entry *e)
{
    struct seen *sn = arg;
    size_t klen;
    const uint8_t *k = store_entry_key(e, &klen);
    char buf[32];

    sn->n_reported++;
    sn->mem_sum += store_entry_mem(e);
    if (store_entry_enc(e) == STORE_ENC_STR) {
        size_t vlen;
        (void)store_entry_val(e, &vlen);
        sn->value_sum += vlen;
    }
    if (klen > 2 && klen < sizeof(buf) && k[0] == 's' && k[1] == ':') {
        memcpy(buf, k + 2, klen - 2);
        buf[klen - 2] = '\0';
        sn->stable[atoi(buf)]++;
    }
}

static size_t key_of(char *buf, size_t cap, const char *prefix, int i)
{
    return (size_t)snprintf(buf, cap, "%s:%d", prefix, i);
}

static void put(struct store_shard *s, const char *prefix, int i)
{
    char k[32];
    size_t kl = key_of(k, sizeof(k), prefix, i);
    assert_int_equal(store_set_str(s, 0, k, kl, "value", 5, STORE_NO_EXPIRE, T0), TERSE_OK);
}

static void del(struct store_shard *s, const char *prefix, int i)
{
    char k[32];
    size_t kl = key_of(k, sizeof(k), prefix, i);
    assert_int_equal(store_delete(s, 0, k, kl, T0), 1);
}

static void assert_all_stable_seen(const struct seen *sn)
{
    for (int i = 0; i < N_STABLE; i++) {
        if (sn->stable[i] == 0) {
            fail_msg("s:%d was present throughout but never returned", i);
        }
    }
}

static void test_scan_stable_exactly_once(void **state)
{
    struct store_shard *s = NULL;
    struct seen *sn = calloc(1, sizeof(*sn));
    struct store_stats st;
    uint64_t cursor = 0;

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    assert_int_equal(store_scan(s, 0, 0, 10, T0, on_entry, sn), 0); /* empty db */
    for (int i = 0; i < N_STABLE; i++) {
        put(s, "s", i);
    }
    assert_int_equal(store_set_int(s, 0, "int", 3, 5, STORE_NO_EXPIRE, T0), TERSE_OK);
    store_rehash_step(s, 1 << 20);
    do {
        cursor = store_scan(s, 0, cursor, 7, T0, on_entry, sn);
    } while (cursor != 0);
    for (int i = 0; i < N_STABLE; i++) {
        assert_int_equal(sn->stable[i], 1);
    }
    assert_int_equal(sn->n_reported, N_STABLE + 1);
    /* Accounting equals the sums over every entry. */
    store_stats_get(s, &st);
    assert_int_equal(st.entry_bytes, sn->mem_sum);
    assert_int_equal(st.value_bytes, sn->value_sum);
    assert_int_equal(st.n_keys, N_STABLE + 1);
    store_shard_destroy(&s);
    free(sn);
}

static void test_scan_skips_expired(void **state)
{
    struct store_shard *s = NULL;
    struct seen *sn = calloc(1, sizeof(*sn));
    uint64_t cursor = 0;
    char k[32];

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    for (int i = 0; i < 100; i++) {
        size_t kl = key_of(k, sizeof(k), "s", i);
        int64_t exp = i % 2 ? T0 + 10 : STORE_NO_EXPIRE;
        assert_int_equal(store_set_int(s, 0, k, kl, i, exp, T0), TERSE_OK);
    }
    do {
        cursor = store_scan(s, 0, cursor, 1000, T0 + 10, on_entry, sn);
    } while (cursor != 0);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(sn->stable[i], i % 2 ? 0u : 1u);
    }
    store_shard_destroy(&s);
    free(sn);
}

/* Churn applied between scan steps; `phase` says which. */
static void churn(struct store_shard *s, int phase, int *n_churn_live, unsigned *rng)
{
    int batch;

    *rng = *rng * 1103515245u + 12345u;
    batch = 200 + (int)((*rng >> 8) % 1800);
    if (phase == 0) { /* grow: insert a batch */
        for (int i = 0; i < batch && *n_churn_live < N_CHURN; i++) {
            put(s, "c", (*n_churn_live)++);
        }
    } else { /* shrink: delete a batch */
        for (int i = 0; i < batch && *n_churn_live > 0; i++) {
            del(s, "c", --(*n_churn_live));
        }
    }
    /* Sometimes finish the rehash, sometimes leave it half done for the next scan step. */
    if ((*rng >> 20) % 3 == 0) {
        store_rehash_step(s, 1 << 20);
    }
}

static void run_guarantee(unsigned seed, size_t count)
{
    struct store_shard *s = NULL;
    struct seen *sn = calloc(1, sizeof(*sn));
    uint64_t cursor = 0;
    int n_churn_live = 0;
    int steps = 0;
    int saw_rehash = 0;
    unsigned rng = seed;
    uint64_t size_start;
    uint64_t max_size = 0;

    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    for (int i = 0; i < N_STABLE; i++) {
        put(s, "s", i);
    }
    store_rehash_step(s, 1 << 20);
    size_start = s->db[0].n_buckets;
    do {
        struct store_db *d = &s->db[0];
        cursor = store_scan(s, 0, cursor, count, T0, on_entry, sn);
        steps++;
        /* First half of the iteration: grow to ~14x; then delete everything added. */
        churn(s, n_churn_live < N_CHURN && steps < 40 ? 0 : 1, &n_churn_live, &rng);
        /* A table part way between two powers of two: some buckets split, some not. */
        saw_rehash |= (d->n_buckets & (d->n_buckets - 1)) != 0;
        max_size = d->n_buckets > max_size ? d->n_buckets : max_size;
    } while (cursor != 0);
    assert_all_stable_seen(sn);
    assert_true(saw_rehash);
    /* The iteration really spanned growth past 8x and a shrink back. */
    assert_true(max_size >= 8 * size_start);
    store_rehash_step(s, 1 << 20);
    store_rehash_step(s, 1 << 20);
    assert_true(s->db[0].n_buckets < max_size);
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
    free(sn);
}

static void test_scan_guarantee_across_resizes(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 12; seed++) {
        run_guarantee(seed, 1 + seed * 3);
    }
}

/* The table shrinks mid-iteration, several times, while the cursor is deep in it. */
static void test_scan_guarantee_shrink(void **state)
{
    struct store_shard *s = NULL;
    struct seen *sn = calloc(1, sizeof(*sn));
    uint64_t cursor = 0;
    int n = N_CHURN;
    int steps = 0;
    uint64_t size_start;

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    for (int i = 0; i < N_STABLE; i++) {
        put(s, "s", i);
    }
    for (int i = 0; i < N_CHURN; i++) {
        put(s, "c", i);
    }
    store_rehash_step(s, 1 << 20);
    size_start = s->db[0].n_buckets;
    do {
        cursor = store_scan(s, 0, cursor, 50, T0, on_entry, sn);
        if (++steps % 5 == 0) {
            for (int i = 0; i < 4000 && n > 0; i++) {
                del(s, "c", --n);
            }
        }
        if (steps % 7 == 0) {
            store_rehash_step(s, 1 << 20);
        }
    } while (cursor != 0);
    assert_all_stable_seen(sn);
    store_rehash_step(s, 1 << 20);
    assert_true(s->db[0].n_buckets < size_start);
    store_shard_destroy(&s);
    free(sn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_stable_exactly_once),
        cmocka_unit_test(test_scan_skips_expired),
        cmocka_unit_test(test_scan_guarantee_across_resizes),
        cmocka_unit_test(test_scan_guarantee_shrink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
