/*
 * test_codec_value: cmocka tests of the server's value codec (src/codec/codec_value*.c).
 *
 * Round trips at the sizes that move the codec choice (0, 1, 127, 128, 129, 1 KiB, 64 KiB,
 * 1 MiB) for compressible and incompressible data; every single-byte flip of a stored value
 * yields TERSE_ECORRUPT; truncation; undersized destinations; header limits; OOM injection with
 * a counting allocator that fails its Nth call and checks nothing leaks.
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

/* ---- helpers ----------------------------------------------------------------------------- */

/* Deterministic xorshift filler: incompressible bytes. */
static void
fill_random(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 2654435761u + 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

/* Text-like, compressible bytes. */
static void
fill_text(uint8_t *p, size_t n)
{
    static const char words[] = "user:1234 {\"name\":\"terse\",\"role\":\"cache\",\"ttl\":3600} ";

    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)words[(i * 7 / 5) % (sizeof(words) - 1)];
    }
}

/* Compressible but not periodic: words picked pseudo-randomly. */
static void
fill_words(uint8_t *p, size_t n, uint64_t seed)
{
    static const char *const words[] = { "alpha ", "bravo ", "charlie ", "delta ", "echo ",
                                         "foxtrot ", "golf ", "hotel ", "india ", "juliet " };
    uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
    size_t i = 0;

    while (i < n) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for (const char *w = words[(x >> 20) % 10]; *w != '\0' && i < n; w++) {
            p[i++] = (uint8_t)*w;
        }
    }
}

struct fixture {
    struct codec_ctx *ctx;
};

static int
setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    if (f == NULL || codec_ctx_create(&f->ctx, NULL) != TERSE_OK) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;

    codec_ctx_destroy(&f->ctx);
    assert_null(f->ctx);
    free(f);
    return 0;
}

/* Encodes src, checks the kind if want_kind >= 0, decodes into an exactly sized buffer. */
static void
round_trip(struct codec_ctx *c, const uint8_t *src, size_t n, int want_kind)
{
    size_t cap = codec_value_bound(n), stored_len = 0, out_len = 0;
    uint8_t *stored = malloc(cap);
    uint8_t *out = malloc(n > 0 ? n : 1);
    struct codec_value_info info;

    assert_non_null(stored);
    assert_non_null(out);
    assert_true(cap <= CODEC_VALUE_BOUND(n));
    assert_int_equal(codec_value_encode(c, src, n, stored, cap, &stored_len), TERSE_OK);
    assert_true(stored_len <= cap);
    assert_int_equal(codec_value_info(stored, stored_len, &info), TERSE_OK);
    assert_int_equal(info.orig_len, n);
    assert_int_equal(info.header_len + info.payload_len, stored_len);
    if (want_kind >= 0) {
        assert_int_equal(info.kind, want_kind);
    }
    if (info.kind == CODEC_LZ4) {
        assert_true(info.payload_len <= n - (n >> CODEC_LZ4_KEEP_SHIFT));
    }
    assert_int_equal(codec_value_decode(c, stored, stored_len, out, n, &out_len), TERSE_OK);
    assert_int_equal(out_len, n);
    if (n > 0) {
        assert_memory_equal(out, src, n);
    }
    free(stored);
    free(out);
}

static const size_t sizes[] = { 0, 1, 127, 128, 129, 1024, 65536, 1048576 };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- tests ------------------------------------------------------------------------------- */

static void
test_round_trip_text(void **state)
{
    struct fixture *f = *state;
    uint8_t *buf = malloc(sizes[N_SIZES - 1]);

    assert_non_null(buf);
    for (size_t i = 0; i < N_SIZES; i++) {
        fill_text(buf, sizes[i]);
        round_trip(f->ctx, buf, sizes[i], sizes[i] < CODEC_RAW_MAX ? CODEC_RAW : CODEC_LZ4);
    }
    free(buf);
}

static void
test_round_trip_random(void **state)
{
    struct fixture *f = *state;
    uint8_t *buf = malloc(sizes[N_SIZES - 1]);

    assert_non_null(buf);
    for (size_t i = 0; i < N_SIZES; i++) {
        fill_random(buf, sizes[i], i + 1);
        round_trip(f->ctx, buf, sizes[i], CODEC_RAW);
    }
    free(buf);
}

static void
test_round_trip_zeros_and_reuse(void **state)
{
    struct fixture *f = *state;
    uint8_t *buf = calloc(1, 70000);
    struct codec_stats st;

    assert_non_null(buf);
    /* Alternate sizes and content through the same ctx: the fast reset must not leak history. */
    for (size_t n = 120; n < 70000; n = n * 3 / 2 + 1) {
        memset(buf, 0, n);
        round_trip(f->ctx, buf, n, n < CODEC_RAW_MAX ? CODEC_RAW : CODEC_LZ4);
        fill_random(buf, n, n);
        round_trip(f->ctx, buf, n, CODEC_RAW);
        fill_text(buf, n);
        round_trip(f->ctx, buf, n, -1);
    }
    codec_ctx_stats(f->ctx, &st);
    assert_true(st.n_encoded[CODEC_LZ4] > 0);
    assert_true(st.n_encoded[CODEC_RAW] > 0);
    assert_int_equal(st.n_encoded[CODEC_ZSTD], 0);
    assert_int_equal(st.n_corrupt, 0);
    assert_int_equal(st.n_decoded, st.n_encoded[CODEC_RAW] + st.n_encoded[CODEC_LZ4]);
    free(buf);
}

/*
 * Flips every byte of a stored value with several masks. Each flip must yield TERSE_ECORRUPT,
 * with one exception that is not "other data": inside an LZ4 block a flip can turn the block
 * into another valid block with the same output (e.g. a match offset moved to an identical
 * earlier copy). Then decode may return TERSE_OK, but only with the original bytes, verified
 * by the checksum. Header bytes and RAW payloads allow no exception. Returns the aliases seen.
 */
static size_t
flip_all(struct codec_ctx *c, const uint8_t *src, size_t n)
{
    static const uint8_t masks[] = { 0x01, 0x80, 0xff };
    size_t cap = codec_value_bound(n), stored_len = 0, out_len = 0, n_alias = 0;
    size_t out_cap = n + 64;
    /* Room for any length a corrupted header can claim (an LZ4 header may claim up to 255x its
     * block), used when the first decode says EDSTSIZE, so that cannot mask ECORRUPT. */
    size_t big_cap = 255 * cap + CODEC_RAW_MAX;
    uint8_t *stored = malloc(cap), *out = malloc(out_cap), *big = calloc(1, big_cap);
    struct codec_value_info info;

    assert_non_null(stored);
    assert_non_null(out);
    assert_non_null(big);
    assert_int_equal(codec_value_encode(c, src, n, stored, cap, &stored_len), TERSE_OK);
    assert_int_equal(codec_value_info(stored, stored_len, &info), TERSE_OK);
    for (size_t i = 0; i < stored_len; i++) {
        for (size_t m = 0; m < sizeof(masks); m++) {
            int rc;

            stored[i] ^= masks[m];
            memset(out, 0xaa, out_cap);
            rc = codec_value_decode(c, stored, stored_len, out, out_cap, &out_len);
            if (rc == TERSE_EDSTSIZE) {
                assert_int_equal(codec_value_decode(c, stored, stored_len, big, big_cap,
                                                    &out_len),
                                 TERSE_ECORRUPT);
                for (size_t k = 0; k < big_cap; k++) {
                    if (big[k] != 0) {
                        fail_msg("unverified byte left at %zu after flip at %zu", k, i);
                    }
                }
                stored[i] ^= masks[m];
                continue;
            }
            if (rc == TERSE_OK && info.kind == CODEC_LZ4 && i >= info.header_len &&
                out_len == n && memcmp(out, src, n) == 0) {
                n_alias++;
            } else if (rc != TERSE_ECORRUPT) {
                fail_msg("flip 0x%02x at %zu of %zu (n=%zu): %d", masks[m], i, stored_len, n,
                         rc);
            } else {
                /* Whatever the decoder wrote was wiped: no unverified bytes survive. */
                for (size_t k = 0; k < out_cap; k++) {
                    if (out[k] != 0 && out[k] != 0xaa) {
                        fail_msg("unverified byte left at %zu after flip at %zu", k, i);
                    }
                }
            }
            stored[i] ^= masks[m];
        }
    }
    assert_int_equal(codec_value_decode(c, stored, stored_len, out, out_cap, &out_len), TERSE_OK);
    free(stored);
    free(out);
    free(big);
    return n_alias;
}

static void
test_every_byte_flip(void **state)
{
    struct fixture *f = *state;
    static const size_t flip_sizes[] = { 0, 1, 127, 128, 200, 1024, 4096 };
    uint8_t buf[4096];

    size_t n_alias = 0;

    for (size_t i = 0; i < sizeof(flip_sizes) / sizeof(flip_sizes[0]); i++) {
        fill_text(buf, flip_sizes[i]);
        n_alias += flip_all(f->ctx, buf, flip_sizes[i]);
        fill_words(buf, flip_sizes[i], 5);
        n_alias += flip_all(f->ctx, buf, flip_sizes[i]);
        fill_random(buf, flip_sizes[i], 7);
        assert_int_equal(flip_all(f->ctx, buf, flip_sizes[i]), 0); /* RAW: strict */
    }
    print_message("# %zu LZ4 flips decoded to the identical, verified value\n", n_alias);
}

static void
test_truncation(void **state)
{
    struct fixture *f = *state;
    static const size_t tr_sizes[] = { 0, 5, 300, 2000 };
    uint8_t src[2000], stored[CODEC_VALUE_BOUND(2000)], out[2000];
    size_t stored_len, out_len;

    for (size_t s = 0; s < sizeof(tr_sizes) / sizeof(tr_sizes[0]); s++) {
        fill_text(src, tr_sizes[s]);
        assert_int_equal(codec_value_encode(f->ctx, src, tr_sizes[s], stored, sizeof(stored),
                                            &stored_len),
                         TERSE_OK);
        for (size_t cut = 0; cut < stored_len; cut++) {
            assert_int_equal(codec_value_decode(f->ctx, stored, cut, out, sizeof(out), &out_len),
                             TERSE_ECORRUPT);
        }
        /* A trailing byte is corruption too: the stored length is part of the value. */
        stored[stored_len] = 0;
        assert_int_equal(codec_value_decode(f->ctx, stored, stored_len + 1, out, sizeof(out),
                                            &out_len),
                         TERSE_ECORRUPT);
    }
}

static void
test_dst_too_small(void **state)
{
    struct fixture *f = *state;
    uint8_t src[1024], stored[CODEC_VALUE_BOUND(1024)], out[1024];
    size_t stored_len = 0, out_len = 99, bound;

    /* Decode side: one byte short, both codecs. */
    fill_text(src, sizeof(src));
    assert_int_equal(codec_value_encode(f->ctx, src, sizeof(src), stored, sizeof(stored),
                                        &stored_len),
                     TERSE_OK);
    memset(out, 0x5a, sizeof(out));
    assert_int_equal(codec_value_decode(f->ctx, stored, stored_len, out, sizeof(out) - 1,
                                        &out_len),
                     TERSE_EDSTSIZE);
    assert_int_equal(out_len, 99);
    assert_int_equal(out[0], 0x5a); /* nothing written */
    assert_int_equal(codec_value_decode(f->ctx, stored, stored_len, NULL, 0, &out_len),
                     TERSE_EDSTSIZE);
    fill_random(src, sizeof(src), 3);
    assert_int_equal(codec_value_encode(f->ctx, src, sizeof(src), stored, sizeof(stored),
                                        &stored_len),
                     TERSE_OK);
    assert_int_equal(codec_value_decode(f->ctx, stored, stored_len, out, 1, &out_len),
                     TERSE_EDSTSIZE);

    /* Encode side: every capacity below the bound either fits or says EDSTSIZE, and never
     * writes past the capacity (the guard byte stays). */
    bound = codec_value_bound(sizeof(src));
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            fill_random(src, sizeof(src), 11);
        } else {
            fill_text(src, sizeof(src));
        }
        for (size_t cap = 0; cap < bound; cap++) {
            int rc;

            memset(stored, 0xee, sizeof(stored));
            rc = codec_value_encode(f->ctx, src, sizeof(src), stored, cap, &stored_len);
            assert_true(rc == TERSE_OK || rc == TERSE_EDSTSIZE);
            assert_int_equal(stored[cap], 0xee);
            if (rc == TERSE_OK) {
                assert_true(stored_len <= cap);
                assert_int_equal(codec_value_decode(f->ctx, stored, stored_len, out,
                                                    sizeof(out), &out_len),
                                 TERSE_OK);
                assert_memory_equal(out, src, sizeof(src));
            }
        }
    }
}

static void
test_corrupt_then_decode_fails(void **state)
{
    struct fixture *f = *state;
    static const size_t c_sizes[] = { 0, 1, 127, 128, 1024, 65536 };
    uint8_t *src = malloc(65536), *stored = malloc(CODEC_VALUE_BOUND(65536)),
            *out = malloc(65536);
    size_t stored_len, out_len;
    struct codec_stats before, after;

    assert_true(src != NULL && stored != NULL && out != NULL);
    for (size_t i = 0; i < sizeof(c_sizes) / sizeof(c_sizes[0]); i++) {
        fill_text(src, c_sizes[i]);
        assert_int_equal(codec_value_encode(f->ctx, src, c_sizes[i], stored,
                                            CODEC_VALUE_BOUND(65536), &stored_len),
                         TERSE_OK);
        codec_value_corrupt(stored, stored_len);
        codec_ctx_stats(f->ctx, &before);
        assert_int_equal(codec_value_decode(f->ctx, stored, stored_len, out, 65536, &out_len),
                         TERSE_ECORRUPT);
        codec_ctx_stats(f->ctx, &after);
        assert_int_equal(after.n_corrupt, before.n_corrupt + 1);
    }
    codec_value_corrupt(NULL, 0); /* no-op */
    free(src);
    free(stored);
    free(out);
}

static void
test_header_limits(void **state)
{
    struct fixture *f = *state;
    struct codec_value_info info;
    uint8_t buf[32], out[16];
    size_t out_len;
    uint8_t dummy = 0;

    /* Bad version, a ZSTD header cut before its dictionary id, unknown kind. */
    static const uint8_t bad_first[] = { 0x00, 0x20, 0x12, 0x13, 0x1f, 0xf0 };
    for (size_t i = 0; i < sizeof(bad_first); i++) {
        memset(buf, 0, sizeof(buf));
        buf[0] = bad_first[i];
        assert_int_equal(codec_value_info(buf, 10, &info), TERSE_ECORRUPT);
    }
    /* Length at the cap + 1 (512 MiB + 1 = 0x20000001) as a 5-byte varint. */
    memset(buf, 0, sizeof(buf));
    buf[0] = 0x11;
    buf[1] = 0x81;
    buf[2] = 0x80;
    buf[3] = 0x80;
    buf[4] = 0x80;
    buf[5] = 0x02;
    assert_int_equal(codec_value_info(buf, 30, &info), TERSE_ECORRUPT);
    /* A 6-byte varint and a non-minimal one are refused. */
    buf[5] = 0x80;
    buf[6] = 0x01;
    assert_int_equal(codec_value_info(buf, 30, &info), TERSE_ECORRUPT);
    memset(buf, 0, sizeof(buf));
    buf[0] = 0x10;
    buf[1] = 0x80; /* 0 spelled in two bytes */
    buf[2] = 0x00;
    assert_int_equal(codec_value_info(buf, 11, &info), TERSE_ECORRUPT);
    /* LZ4 claiming more than 255x its payload. */
    memset(buf, 0, sizeof(buf));
    buf[0] = 0x11;
    buf[1] = 0x80; /* 0x2000 = 8192 */
    buf[2] = 0x40;
    assert_int_equal(codec_value_info(buf, 11 + 10, &info), TERSE_ECORRUPT);
    /* Empty and NULL input; NULL arguments. */
    assert_int_equal(codec_value_info(buf, 0, &info), TERSE_ECORRUPT);
    assert_int_equal(codec_value_info(NULL, 5, &info), TERSE_ECORRUPT);
    assert_int_equal(codec_value_info(buf, 5, NULL), TERSE_EINVAL);
    assert_int_equal(codec_value_decode(f->ctx, NULL, 0, out, sizeof(out), &out_len),
                     TERSE_ECORRUPT);
    assert_int_equal(codec_value_decode(NULL, buf, 10, out, sizeof(out), &out_len),
                     TERSE_EINVAL);
    assert_int_equal(codec_value_encode(f->ctx, NULL, 3, buf, sizeof(buf), &out_len),
                     TERSE_EINVAL);
    assert_int_equal(codec_value_encode(f->ctx, &dummy, CODEC_VALUE_MAX + 1, buf, sizeof(buf),
                                        &out_len),
                     TERSE_ETOOBIG);
    assert_int_equal(codec_value_encode(f->ctx, NULL, 0, buf, sizeof(buf), &out_len), TERSE_OK);
    assert_int_equal(out_len, 10);
    assert_true(codec_value_bound(CODEC_VALUE_MAX) == CODEC_VALUE_BOUND(CODEC_VALUE_MAX));
    assert_true(codec_value_bound(SIZE_MAX) == CODEC_VALUE_BOUND(CODEC_VALUE_MAX));
}

static void
test_ctx_create_oom(void **state)
{
    struct codec_ctx *c;
    int n_fail = 0;

    (void)state;
    for (int n = 1;; n++) {
        struct count_alloc ca = { 0, n, 0 };
        terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
        int rc;

        c = (struct codec_ctx *)(uintptr_t)0x1; /* must stay untouched on failure */
        rc = codec_ctx_create(&c, &a);
        if (rc == TERSE_OK) {
            assert_true(ca.n_live > 0);
            codec_ctx_destroy(&c);
            assert_null(c);
            assert_int_equal(ca.n_live, 0);
            break;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_int_equal(ca.n_live, 0);
        assert_true(c == (struct codec_ctx *)(uintptr_t)0x1);
        n_fail++;
    }
    assert_true(n_fail >= 2); /* ctx and LZ4 state are separate allocations */
    codec_ctx_destroy(NULL);
    c = NULL;
    codec_ctx_destroy(&c);
    assert_int_equal(codec_ctx_create(NULL, NULL), TERSE_EINVAL);
}

static void
test_encode_decode_no_alloc(void **state)
{
    struct count_alloc ca = { 0, 0, 0 };
    terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
    struct codec_ctx *c = NULL;
    uint8_t src[4096], stored[CODEC_VALUE_BOUND(4096)], out[4096];
    size_t stored_len, out_len;
    int calls;

    (void)state;
    assert_int_equal(codec_ctx_create(&c, &a), TERSE_OK);
    calls = ca.n_calls;
    for (int i = 0; i < 50; i++) {
        fill_text(src, sizeof(src));
        assert_int_equal(codec_value_encode(c, src, sizeof(src), stored, sizeof(stored),
                                            &stored_len),
                         TERSE_OK);
        assert_int_equal(codec_value_decode(c, stored, stored_len, out, sizeof(out), &out_len),
                         TERSE_OK);
    }
    assert_int_equal(ca.n_calls, calls);
    codec_ctx_destroy(&c);
    assert_int_equal(ca.n_live, 0);
}

static void
test_strerror(void **state)
{
    (void)state;
    for (int s = -64; s <= 64; s++) {
        assert_non_null(terse_strerror(s));
    }
    assert_non_null(terse_strerror(INT32_MIN));
    assert_non_null(terse_strerror(INT32_MAX));
    for (int s = TERSE_EEXHAUSTED; s <= TERSE_MORE; s++) {
        assert_string_not_equal(terse_strerror(s), "unknown status");
    }
    assert_string_equal(terse_strerror(-1000), "unknown status");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_zeros_and_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_byte_flip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dst_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_then_decode_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_limits, setup, teardown),
        cmocka_unit_test(test_ctx_create_oom),
        cmocka_unit_test(test_encode_decode_no_alloc),
        cmocka_unit_test(test_strerror),
    };

    return cmocka_run_group_tests_name("codec_value", tests, NULL, NULL);
}
