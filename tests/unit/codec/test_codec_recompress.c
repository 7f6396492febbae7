/*
 * test_codec_recompress: cmocka tests of background compression in the value codec
 * (codec_value_encode_raw, codec_ctx_level_set, codec_value_recompress).
 *
 * A value written raw and recompressed decodes to the same bytes at every level; short,
 * incompressible and already-compressed values stay as they are; damage done to the raw bytes
 * before recompression still fails verification afterwards (the checksum is carried over);
 * the LZ4HC state is allocated once by codec_ctx_level_set and never by recompression; an
 * allocation failure leaves the level unchanged and leaks nothing.
 */
#include "codec/codec_value.h"

#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_fixture.h"

#define BIG 20000

/* Text-like bytes: compressible. */
static void fill_text(uint8_t *p, size_t n)
{
    static const char words[] = "user:1234 name=alice role=admin last_seen=2024-01-01 ";

    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)words[(i * 7 + i / 61) % (sizeof(words) - 1)];
    }
}

static void fill_random(uint8_t *p, size_t n, uint64_t x)
{
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

struct fx {
    struct codec_ctx *c;
    struct count_alloc ca;
    terse_allocator alloc;
    uint8_t src[BIG], raw[CODEC_VALUE_BOUND(BIG)], z[CODEC_VALUE_BOUND(BIG)], out[BIG];
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    f->alloc = (terse_allocator){count_alloc_fn, count_free_fn, &f->ca};
    assert_int_equal(codec_ctx_create(&f->c, &f->alloc), TERSE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    codec_ctx_destroy(&f->c);
    assert_int_equal(f->ca.n_live, 0);
    free(f);
    return 0;
}

static void test_round_trip_levels(void **state)
{
    static const size_t sizes[] = {CODEC_RAW_MAX, CODEC_RAW_MAX + 1, 1000, BIG};
    static const int levels[] = {CODEC_LEVEL_FAST, 1, 4, 9, CODEC_LEVEL_MAX};
    struct fx *f = *state;

    fill_text(f->src, BIG);
    for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
        assert_int_equal(codec_ctx_level_set(f->c, levels[li]), TERSE_OK);
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t n = sizes[si], raw_len, z_len, out_len;
            struct codec_value_info info;

            assert_int_equal(codec_value_encode_raw(f->src, n, f->raw, sizeof(f->raw), &raw_len),
                             TERSE_OK);
            assert_int_equal(codec_value_info(f->raw, raw_len, &info), TERSE_OK);
            assert_int_equal(info.kind, CODEC_RAW);
            assert_int_equal(raw_len, codec_value_bound(n));
            /* dst_cap == stored_len is always enough. */
            assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, raw_len, &z_len),
                             TERSE_OK);
            assert_true(z_len > 0 && z_len < raw_len);
            assert_int_equal(codec_value_info(f->z, z_len, &info), TERSE_OK);
            assert_int_equal(info.kind, CODEC_LZ4);
            assert_int_equal(codec_value_decode(f->c, f->z, z_len, f->out, sizeof(f->out),
                                                &out_len),
                             TERSE_OK);
            assert_int_equal(out_len, n);
            assert_memory_equal(f->out, f->src, n);
        }
    }
}

static void test_hc_smaller_than_fast(void **state)
{
    struct fx *f = *state;
    size_t raw_len, fast_len, hc_len;

    fill_text(f->src, BIG);
    assert_int_equal(codec_value_encode_raw(f->src, BIG, f->raw, sizeof(f->raw), &raw_len),
                     TERSE_OK);
    assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z), &fast_len),
                     TERSE_OK);
    assert_int_equal(codec_ctx_level_set(f->c, 9), TERSE_OK);
    assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z), &hc_len),
                     TERSE_OK);
    assert_true(hc_len > 0 && hc_len <= fast_len);
}

static void test_stays(void **state)
{
    struct fx *f = *state;
    struct codec_stats st0, st1;
    size_t raw_len, z_len = 99, enc_len;

    codec_ctx_stats(f->c, &st0);
    /* Short. */
    fill_text(f->src, BIG);
    assert_int_equal(codec_value_encode_raw(f->src, CODEC_RAW_MAX - 1, f->raw, sizeof(f->raw),
                                            &raw_len),
                     TERSE_OK);
    assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z), &z_len),
                     TERSE_OK);
    assert_int_equal(z_len, 0);
    /* Incompressible. */
    fill_random(f->src, BIG, 42);
    assert_int_equal(codec_value_encode_raw(f->src, BIG, f->raw, sizeof(f->raw), &raw_len),
                     TERSE_OK);
    z_len = 99;
    assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z), &z_len),
                     TERSE_OK);
    assert_int_equal(z_len, 0);
    codec_ctx_stats(f->c, &st1);
    assert_int_equal(st1.n_encoded[CODEC_RAW] - st0.n_encoded[CODEC_RAW], 2);
    /* Already compressed: nothing done, nothing counted. */
    fill_text(f->src, BIG);
    assert_int_equal(codec_value_encode(f->c, f->src, BIG, f->raw, sizeof(f->raw), &enc_len),
                     TERSE_OK);
    codec_ctx_stats(f->c, &st0);
    z_len = 99;
    assert_int_equal(codec_value_recompress(f->c, f->raw, enc_len, f->z, sizeof(f->z), &z_len),
                     TERSE_OK);
    assert_int_equal(z_len, 0);
    codec_ctx_stats(f->c, &st1);
    assert_memory_equal(&st0, &st1, sizeof(st0));
    /* Unparsable. */
    assert_int_equal(codec_value_recompress(f->c, "\xff\x01", 2, f->z, sizeof(f->z), &z_len),
                     TERSE_ECORRUPT);
    assert_int_equal(codec_value_recompress(NULL, f->raw, raw_len, f->z, sizeof(f->z), &z_len),
                     TERSE_EINVAL);
}

static void test_damage_carried_over(void **state)
{
    struct fx *f = *state;
    size_t raw_len, z_len, out_len;

    fill_text(f->src, 4096);
    assert_int_equal(codec_value_encode_raw(f->src, 4096, f->raw, sizeof(f->raw), &raw_len),
                     TERSE_OK);
    codec_value_corrupt(f->raw, raw_len); /* a raw payload byte */
    assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z), &z_len),
                     TERSE_OK);
    assert_true(z_len > 0);
    assert_int_equal(codec_value_decode(f->c, f->z, z_len, f->out, sizeof(f->out), &out_len),
                     TERSE_ECORRUPT);
}

static void test_raw_args(void **state)
{
    struct fx *f = *state;
    size_t n;

    (void)f;
    assert_int_equal(codec_value_encode_raw(NULL, 0, f->raw, sizeof(f->raw), &n), TERSE_OK);
    assert_int_equal(n, codec_value_bound(0));
    assert_int_equal(codec_value_encode_raw(NULL, 3, f->raw, sizeof(f->raw), &n), TERSE_EINVAL);
    assert_int_equal(codec_value_encode_raw(f->src, 300, f->raw, codec_value_bound(300) - 1, &n),
                     TERSE_EDSTSIZE);
    assert_int_equal(codec_value_encode_raw(f->src, CODEC_VALUE_MAX + 1, f->raw, sizeof(f->raw),
                                            &n),
                     TERSE_ETOOBIG);
}

static void test_level_alloc_once(void **state)
{
    struct fx *f = *state;
    size_t raw_len, z_len;
    int calls;

    assert_int_equal(codec_ctx_level_set(f->c, -1), TERSE_EINVAL);
    assert_int_equal(codec_ctx_level_set(f->c, CODEC_LEVEL_MAX + 1), TERSE_EINVAL);
    assert_int_equal(codec_ctx_level_set(NULL, 1), TERSE_EINVAL);
    /* The HC state's allocation fails: the level stays FAST, nothing leaks. */
    f->ca.fail_at = f->ca.n_calls + 1;
    assert_int_equal(codec_ctx_level_set(f->c, 4), TERSE_ENOMEM);
    f->ca.fail_at = 0;
    assert_int_equal(codec_ctx_level_set(f->c, 4), TERSE_OK);
    calls = f->ca.n_calls;
    assert_int_equal(codec_ctx_level_set(f->c, 9), TERSE_OK);
    assert_int_equal(codec_ctx_level_set(f->c, CODEC_LEVEL_FAST), TERSE_OK);
    assert_int_equal(codec_ctx_level_set(f->c, 4), TERSE_OK);
    fill_text(f->src, BIG);
    assert_int_equal(codec_value_encode_raw(f->src, BIG, f->raw, sizeof(f->raw), &raw_len),
                     TERSE_OK);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(codec_value_recompress(f->c, f->raw, raw_len, f->z, sizeof(f->z),
                                                &z_len),
                         TERSE_OK);
    }
    assert_int_equal(f->ca.n_calls, calls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hc_smaller_than_fast, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damage_carried_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_raw_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_level_alloc_once, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
