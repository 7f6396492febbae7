/*
 * Unit tests of background compression in the store (store_compress.c): values written with
 * STORE_SET_PENDING are counted and marked; store_compress_step compresses them into smaller
 * entries that read back identical, leaves incompressible ones raw, and clears the mark
 * either way; overwrites, deletes, expiry, RENAME/COPY/MOVE/EXPIRE and compaction keep the
 * counts exact (store_verify checks them against the entries); SCAN is unaffected by steps
 * between its calls; a warm step allocates nothing; budgets (time, bytes) bound a step; an
 * allocation failure leaves the value pending.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define T0 1700000040000LL
#define N 3000
#define VAL_CAP 4096

struct fx {
    struct store_shard *s;
    struct codec_ctx *c;
    uint8_t raw[CODEC_VALUE_BOUND(VAL_CAP)];
    uint8_t out[VAL_CAP];
};

static size_t key_of(char *buf, int i)
{
    return (size_t)snprintf(buf, 33, "key:%028d", i);
}

/* Value i, version ver: text (compressible) unless i % 5 == 0 (noise); a few are short. */
static size_t val_of(uint8_t *buf, int i, int ver)
{
    static const char words[] = "session token=abc123 user=alice cart=[1,2,3] ttl=3600; ";
    uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)ver * 40503u + 1;
    size_t len = i % 11 == 0 ? 40 + (x >> 8) % 80 : 128 + (x >> 8) % 3000;

    for (size_t k = 0; k < len; k++) {
        if (i % 5 == 0) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            buf[k] = (uint8_t)x;
        } else {
            buf[k] = (uint8_t)words[(k + (size_t)ver) % (sizeof(words) - 1)];
        }
    }
    return len;
}

/* Writes value (i, ver) the way the server's background mode does. */
static void put(struct fx *f, int i, int ver)
{
    char k[40];
    uint8_t v[VAL_CAP];
    size_t kl = key_of(k, i), vl = val_of(v, i, ver), sl;
    unsigned flags = vl >= CODEC_RAW_MAX ? STORE_SET_PENDING : 0;

    if (vl >= CODEC_RAW_MAX) {
        assert_int_equal(codec_value_encode_raw(v, vl, f->raw, sizeof(f->raw), &sl), TERSE_OK);
    } else {
        assert_int_equal(codec_value_encode(f->c, v, vl, f->raw, sizeof(f->raw), &sl), TERSE_OK);
    }
    assert_int_equal(store_set_str_flags(f->s, 0, k, kl, f->raw, sl, STORE_NO_EXPIRE, T0, flags),
                     TERSE_OK);
}

static struct store_entry *get(struct fx *f, int i)
{
    char k[40];
    size_t kl = key_of(k, i);

    return store_lookup(f->s, 0, k, kl, T0, 0);
}

static void check(struct fx *f, int i, int ver)
{
    uint8_t v[VAL_CAP];
    size_t vl = val_of(v, i, ver), n, got;
    struct store_entry *e = get(f, i);
    const uint8_t *p;

    assert_non_null(e);
    p = store_entry_val(e, &n);
    assert_int_equal(codec_value_decode(f->c, p, n, f->out, sizeof(f->out), &got), TERSE_OK);
    assert_int_equal(got, vl);
    assert_memory_equal(f->out, v, vl);
}

static struct store_stats stats(struct fx *f)
{
    struct store_stats st;

    store_stats_get(f->s, &st);
    return st;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_int_equal(store_shard_create(&f->s, 4), TERSE_OK);
    assert_int_equal(codec_ctx_create(&f->c, NULL), TERSE_OK);
    assert_int_equal(codec_ctx_level_set(f->c, 4), TERSE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    store_shard_destroy(&f->s);
    codec_ctx_destroy(&f->c);
    free(f);
    return 0;
}

static void test_pending_then_compressed(void **state)
{
    struct fx *f = *state;
    struct store_stats st;
    uint64_t n_big = 0, raw_bytes = 0, before;
    size_t saved = 0, n;

    for (int i = 0; i < N; i++) {
        uint8_t v[VAL_CAP];
        size_t vl = val_of(v, i, 0);
        put(f, i, 0);
        if (vl >= CODEC_RAW_MAX) {
            n_big++;
            raw_bytes += codec_value_bound(vl);
        }
        assert_int_equal(store_entry_is_pending(get(f, i)), vl >= CODEC_RAW_MAX);
    }
    st = stats(f);
    assert_int_equal(st.n_pending, n_big);
    assert_int_equal(st.pending_bytes, raw_bytes);
    assert_int_equal(store_pending_count(f->s), n_big);
    assert_int_equal(store_verify(f->s), TERSE_OK);
    for (int i = 0; i < N; i += 13) {
        check(f, i, 0); /* readable while pending */
    }
    before = st.value_bytes;
    n = store_compress_step(f->s, f->c, NULL, &saved);
    assert_int_equal(n, n_big);
    st = stats(f);
    assert_int_equal(st.n_pending, 0);
    assert_int_equal(st.pending_bytes, 0);
    assert_int_equal(before - st.value_bytes, saved);
    assert_true(st.value_bytes * 2 < before); /* text compresses well beyond 2x */
    assert_int_equal(store_verify(f->s), TERSE_OK);
    for (int i = 0; i < N; i++) {
        struct codec_value_info info;
        const uint8_t *p = store_entry_val(get(f, i), &n);
        assert_false(store_entry_is_pending(get(f, i)));
        assert_int_equal(codec_value_info(p, n, &info), TERSE_OK);
        /* Text compressed, noise and short values raw. */
        assert_int_equal(info.kind, i % 5 != 0 && i % 11 != 0 ? CODEC_LZ4 : CODEC_RAW);
        check(f, i, 0);
    }
    /* Nothing left: a step does nothing and costs nothing. */
    assert_int_equal(store_compress_step(f->s, f->c, NULL, &saved), 0);
    assert_int_equal(saved, 0);
}

static void test_overwrite_delete_expire(void **state)
{
    struct fx *f = *state;
    char k[40], k2[40];
    size_t kl, kl2;

    for (int i = 0; i < 400; i++) {
        put(f, i, 0);
    }
    /* Overwrites while pending (in place or not), with pending or compressed values. */
    for (int i = 0; i < 400; i += 3) {
        put(f, i, 1);
    }
    assert_int_equal(store_verify(f->s), TERSE_OK);
    (void)store_compress_step(f->s, f->c, NULL, NULL);
    for (int i = 1; i < 400; i += 3) {
        put(f, i, 2); /* compressed -> pending again */
    }
    assert_int_equal(store_verify(f->s), TERSE_OK);
    /* Deletes of pending keys. */
    for (int i = 1; i < 400; i += 6) {
        kl = key_of(k, i);
        assert_int_equal(store_delete(f->s, 0, k, kl, T0), 1);
    }
    assert_int_equal(store_verify(f->s), TERSE_OK);
    /* A first expiry (the entry grows: a copy), rename, copy, move: the mark follows. */
    kl = key_of(k, 4);
    assert_true(store_entry_is_pending(get(f, 4)));
    assert_int_equal(store_expire_set(f->s, 0, k, kl, T0 + 1000, T0), 1);
    assert_true(store_entry_is_pending(get(f, 4)));
    kl2 = key_of(k2, 10000);
    assert_int_equal(store_rename(f->s, 0, k, kl, k2, kl2, T0), TERSE_OK);
    assert_true(store_entry_is_pending(store_lookup(f->s, 0, k2, kl2, T0, 0)));
    kl = key_of(k, 8);
    assert_int_equal(store_copy(f->s, 0, k, kl, 1, k, kl, 0, T0), TERSE_OK);
    kl = key_of(k, 14);
    assert_int_equal(store_move(f->s, 0, 2, k, kl, T0), TERSE_OK);
    assert_int_equal(store_verify(f->s), TERSE_OK);
    /* Expiry: the renamed key (pending) expires; lazily deleted on lookup. */
    assert_null(store_lookup(f->s, 0, k2, kl2, T0 + 2000, 0));
    assert_int_equal(store_verify(f->s), TERSE_OK);
    (void)store_compress_step(f->s, f->c, NULL, NULL);
    assert_int_equal(stats(f).n_pending, 0);
    assert_int_equal(store_verify(f->s), TERSE_OK);
    for (int i = 0; i < 400; i++) {
        if (i == 4 || i == 14 || (i % 6 == 1)) {
            continue;
        }
        check(f, i, i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 0);
    }
    /* The copy in db 1 and the moved key in db 2 were compressed too. */
    kl = key_of(k, 8);
    assert_false(store_entry_is_pending(store_lookup(f->s, 1, k, kl, T0, 0)));
    kl = key_of(k, 14);
    assert_false(store_entry_is_pending(store_lookup(f->s, 2, k, kl, T0, 0)));
    /* FLUSHALL with pending values. */
    for (int i = 0; i < 100; i++) {
        put(f, i, 3);
    }
    store_flushall(f->s);
    assert_int_equal(stats(f).n_pending, 0);
    assert_int_equal(stats(f).pending_bytes, 0);
    assert_int_equal(store_verify(f->s), TERSE_OK);
}

struct scan_hits {
    uint8_t hits[N];
};

static void scan_fn(void *arg, const struct store_entry *e)
{
    struct scan_hits *h = arg;
    size_t kl;
    const uint8_t *k = store_entry_key(e, &kl);

    h->hits[atoi((const char *)k + 4)]++;
}

static void test_scan_unaffected(void **state)
{
    struct fx *f = *state;
    struct scan_hits *h = calloc(1, sizeof(*h));
    struct store_compress_budget b = {0, NULL, NULL, 2000, NULL, 0};
    uint64_t cursor = 0;

    for (int i = 0; i < N; i++) {
        put(f, i, 0);
    }
    do {
        cursor = store_scan(f->s, 0, cursor, 10, T0, scan_fn, h);
        (void)store_compress_step(f->s, f->c, &b, NULL); /* entries move between calls */
    } while (cursor != 0);
    for (int i = 0; i < N; i++) {
        if (h->hits[i] == 0) {
            fail_msg("key %d never returned by SCAN", i);
        }
    }
    assert_int_equal(store_verify(f->s), TERSE_OK);
    free(h);
}

static uint64_t tick;
static uint64_t fake_us(void *arg)
{
    (void)arg;
    return tick += 10;
}

static void test_budgets(void **state)
{
    struct fx *f = *state;
    struct store_compress_budget by_bytes = {0, NULL, NULL, 10000, NULL, 0};
    struct store_compress_budget by_time = {100, fake_us, NULL, 0, NULL, 0};
    size_t saved = 0, n;

    for (int i = 0; i < N; i++) {
        put(f, i, 0);
    }
    n = store_compress_step(f->s, f->c, &by_bytes, &saved);
    assert_true(n > 0 && saved >= 10000 && saved < 10000 + VAL_CAP);
    /* The fake clock moves 10 us a read: a 100 us budget stops within about 10 values. */
    n = store_compress_step(f->s, f->c, &by_time, &saved);
    assert_true(n >= 1 && n <= 12);
    assert_true(stats(f).n_pending > 0);
    assert_int_equal(store_verify(f->s), TERSE_OK);
}

static uint64_t n_alloc(void)
{
    struct core_mem_stats ms;

    core_mem_stats_get(&ms);
    return ms.n_alloc;
}

/* Keys of the warm test: values that share spans (an entry bigger than half a span gets a
 * block of its own on every write, compressed or not). */
static bool warm_key(int i)
{
    uint8_t v[VAL_CAP];

    return val_of(v, i, 0) <= 1500;
}

static void warm_round(struct fx *f)
{
    for (int i = 0; i < 300; i++) {
        if (warm_key(i)) {
            put(f, i, 0);
        }
    }
    (void)store_compress_step(f->s, f->c, NULL, NULL);
}

static void test_warm_step_no_alloc(void **state)
{
    struct fx *f = *state;
    uint64_t allocs, n_values = 0;

    /* Warm: the same overwrite (compressed -> raw, pending) + step cycle again and again.
     * The compression buffer is reused (no allocation per value); what is left is the arena
     * taking spans for the entries it moves, amortised over a span's worth of entries and
     * mostly served by its cache of emptied spans. */
    for (int round = 0; round < 4; round++) {
        warm_round(f);
    }
    for (int i = 0; i < 300; i++) {
        n_values += warm_key(i);
    }
    allocs = n_alloc();
    for (int round = 0; round < 5; round++) {
        warm_round(f);
    }
    assert_true((n_alloc() - allocs) * 8 < 5 * n_values);
    assert_int_equal(store_verify(f->s), TERSE_OK);
}

/* The current span is rewound when everything in it is deleted: the walk's offset into it
 * must not survive as a position in the records written after. */
static void test_rewound_span(void **state)
{
    struct fx *f = *state;
    struct store_compress_budget one = {0, fake_us, NULL, 0, NULL, 0};
    char k[40];

    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 6; i++) {
            put(f, i * 5 + 1, round);
        }
        (void)store_compress_step(f->s, f->c, &one, NULL); /* walk part of the span */
        for (int i = 0; i < 6; i++) {
            size_t kl = key_of(k, i * 5 + 1);
            (void)store_delete(f->s, 0, k, kl, T0);
        }
        assert_int_equal(store_verify(f->s), TERSE_OK);
        /* Short (never pending) values of other sizes first, so the old offset falls
         * inside one of them, then pending ones after it. */
        for (int i = 0; i < 8; i++) {
            put(f, i * 11, round);
        }
        for (int i = 0; i < 6; i++) {
            put(f, i * 5 + 2, round);
        }
        assert_int_equal(store_verify(f->s), TERSE_OK);
        (void)store_compress_step(f->s, f->c, NULL, NULL);
        assert_int_equal(stats(f).n_pending, 0);
        assert_int_equal(store_verify(f->s), TERSE_OK);
        store_flushall(f->s); /* everything goes: the current span rewinds again */
    }
}

static void test_oom_keeps_pending(void **state)
{
    struct fx *f = *state;
    size_t n = 0;

    for (int i = 0; i < 50; i++) {
        put(f, i, 0);
    }
    store_arena_seal(f->s); /* the next entry needs a new span */
    core_mem_fail_after(1);
    n = store_compress_step(f->s, f->c, NULL, NULL);
    core_mem_fail_after(0);
    assert_int_equal(n, 0);
    assert_true(stats(f).n_pending > 0);
    assert_int_equal(store_verify(f->s), TERSE_OK);
    (void)store_compress_step(f->s, f->c, NULL, NULL);
    assert_int_equal(stats(f).n_pending, 0);
    for (int i = 0; i < 50; i++) {
        check(f, i, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pending_then_compressed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overwrite_delete_expire, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_unaffected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budgets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warm_step_no_alloc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rewound_span, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom_keeps_pending, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
