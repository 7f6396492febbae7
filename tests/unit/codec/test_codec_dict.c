/*
 * test_codec_dict: the value codec's zstd-with-dictionary kind (CODEC_ZSTD): training,
 * registration, round trips through reused contexts, fallbacks, unknown and removed
 * dictionaries, corruption, header rules, limits, OOM injection and zero allocation in steady
 * state.
 */
#include "codec/codec_value.h"

#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_fixture.h"

#define N_SAMPLES 600
#define DICT_CAP (16 * 1024)

/* A JSON user record, the kind of family a dictionary is trained for. */
static size_t
record(char *p, size_t cap, unsigned i)
{
    static const char *const roles[] = { "admin", "reader", "writer", "owner", "guest" };
    static const char *const langs[] = { "en-GB", "de-DE", "ja-JP", "fr-FR", "pt-BR" };
    int n = snprintf(p, cap,
                     "{\"id\":%u,\"login\":\"user%u\",\"email\":\"user%u@example.org\","
                     "\"role\":\"%s\",\"lang\":\"%s\","
                     "\"created_at\":\"2024-%02u-%02uT1%u:0%u:00Z\","
                     "\"settings\":{\"theme\":\"%s\",\"notifications\":%s,\"page_size\":%u},"
                     "\"tags\":[\"t%u\",\"t%u\"]}",
                     i, i * 37 % 1000, i, roles[i % 5], langs[(i / 5) % 5], 1 + i % 12,
                     1 + i % 28, i % 10, i % 10, i % 2 ? "dark" : "light",
                     i % 3 ? "true" : "false", 10 + i % 90, i % 17, i % 23);

    assert_true(n > 0 && (size_t)n < cap);
    return (size_t)n;
}

struct fixture {
    struct count_alloc ca;
    terse_allocator a;
    struct codec_ctx *ctx;
    uint8_t dict[DICT_CAP];
    size_t dict_len;
};

static int
setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    size_t *lens = calloc(N_SAMPLES, sizeof(size_t)), at = 0;
    char *samples = malloc(N_SAMPLES * 512);

    assert_true(f != NULL && lens != NULL && samples != NULL);
    for (unsigned i = 0; i < N_SAMPLES; i++) {
        lens[i] = record(samples + at, 512, 100000 + i);
        at += lens[i];
    }
    assert_int_equal(codec_dict_train(samples, lens, N_SAMPLES, f->dict, sizeof(f->dict),
                                      &f->dict_len),
                     TERSE_OK);
    assert_true(f->dict_len > 0 && f->dict_len <= sizeof(f->dict));
    free(lens);
    free(samples);
    f->a = (terse_allocator){ count_alloc_fn, count_free_fn, &f->ca };
    assert_int_equal(codec_ctx_create(&f->ctx, &f->a), TERSE_OK);
    assert_int_equal(codec_ctx_dict_add(f->ctx, 7, f->dict, f->dict_len, 0), TERSE_OK);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;

    codec_ctx_destroy(&f->ctx);
    assert_int_equal(f->ca.n_live, 0);
    free(f);
    return 0;
}

/* Encodes with dictionary id, checks kind, decodes into an exactly sized buffer. */
static void
dict_round_trip(struct codec_ctx *c, uint32_t id, const uint8_t *src, size_t n, int want_kind)
{
    size_t cap = codec_value_bound(n), st_len = 0, out_len = 0;
    uint8_t *st = malloc(cap), *out = malloc(n + 1);
    struct codec_value_info info;

    assert_true(st != NULL && out != NULL);
    assert_int_equal(codec_value_encode_dict(c, id, src, n, st, cap, &st_len), TERSE_OK);
    assert_true(st_len <= cap && cap <= CODEC_VALUE_BOUND(n));
    assert_int_equal(codec_value_info(st, st_len, &info), TERSE_OK);
    assert_int_equal(info.kind, want_kind);
    assert_int_equal(info.orig_len, n);
    assert_int_equal(info.dict_id, want_kind == CODEC_ZSTD ? id : 0);
    assert_int_equal(info.header_len + info.payload_len, st_len);
    assert_int_equal(codec_value_decode(c, st, st_len, out, n, &out_len), TERSE_OK);
    assert_int_equal(out_len, n);
    assert_memory_equal(out, src, n);
    free(st);
    free(out);
}

static void
test_round_trips(void **state)
{
    struct fixture *f = *state;
    char rec[512];
    uint8_t big[8192], rnd[4096];
    size_t n, at = 0;

    for (unsigned i = 0; i < 50; i++) { /* records never seen in training */
        n = record(rec, sizeof(rec), i);
        dict_round_trip(f->ctx, 7, (const uint8_t *)rec, n, CODEC_ZSTD);
    }
    /* Short values stay RAW even with a dictionary. */
    dict_round_trip(f->ctx, 7, (const uint8_t *)rec, CODEC_RAW_MAX - 1, CODEC_RAW);
    dict_round_trip(f->ctx, 7, (const uint8_t *)rec, 0, CODEC_RAW);
    /* Several records back to back. */
    while (at + 512 < sizeof(big)) {
        at += record((char *)big + at, 512, (unsigned)at);
    }
    dict_round_trip(f->ctx, 7, big, at, CODEC_ZSTD);
    /* Incompressible: zstd is not kept, neither is LZ4. */
    for (size_t i = 0; i < sizeof(rnd); i++) {
        rnd[i] = (uint8_t)((i * 2654435761u) >> 13 ^ (i * 40503u) >> 7);
    }
    dict_round_trip(f->ctx, 7, rnd, sizeof(rnd), CODEC_RAW);
    /* Beyond CODEC_ZSTD_RATIO_MAX: falls back to LZ4 (at most 255x). */
    {
        uint8_t *zeros = calloc(1, 1 << 20);

        assert_non_null(zeros);
        dict_round_trip(f->ctx, 7, zeros, 1 << 20, CODEC_LZ4);
        free(zeros);
    }
    /* Dictionary 0 is the plain codec. */
    dict_round_trip(f->ctx, 0, big, at, CODEC_LZ4);
}

static void
test_unknown_and_removed(void **state)
{
    struct fixture *f = *state;
    char rec[512];
    size_t n = record(rec, sizeof(rec), 11), st_len = 0, out_len = 0;
    uint8_t st[CODEC_VALUE_BOUND(512)], out[512];
    struct codec_stats before, after;

    assert_int_equal(codec_value_encode_dict(f->ctx, 8, rec, n, st, sizeof(st), &st_len),
                     TERSE_ENOTFOUND);
    assert_int_equal(codec_value_encode_dict(f->ctx, 7, rec, n, st, sizeof(st), &st_len),
                     TERSE_OK);
    assert_int_equal(codec_ctx_dict_remove(f->ctx, 7), TERSE_OK);
    assert_int_equal(codec_ctx_dict_remove(f->ctx, 7), TERSE_ENOTFOUND);
    assert_int_equal(codec_ctx_dict_remove(f->ctx, 0), TERSE_ENOTFOUND);
    codec_ctx_stats(f->ctx, &before);
    assert_int_equal(codec_value_decode(f->ctx, st, st_len, out, n, &out_len), TERSE_ENOTFOUND);
    codec_ctx_stats(f->ctx, &after);
    assert_true(after.n_corrupt == before.n_corrupt); /* missing dictionary is not corruption */
    /* Re-registered under the same id (contexts kept): decodes again. */
    assert_int_equal(codec_ctx_dict_add(f->ctx, 7, f->dict, f->dict_len, 0), TERSE_OK);
    assert_int_equal(codec_value_decode(f->ctx, st, st_len, out, n, &out_len), TERSE_OK);
    assert_memory_equal(out, rec, n);
    /* A value decodes through another context holding the same dictionary id. */
    {
        struct codec_ctx *c2 = NULL;

        assert_int_equal(codec_ctx_create(&c2, NULL), TERSE_OK);
        assert_int_equal(codec_ctx_dict_add(c2, 7, f->dict, f->dict_len, 19), TERSE_OK);
        assert_int_equal(codec_value_decode(c2, st, st_len, out, n, &out_len), TERSE_OK);
        codec_ctx_destroy(&c2);
    }
}

static void
test_corruption(void **state)
{
    struct fixture *f = *state;
    char rec[512];
    size_t n = record(rec, sizeof(rec), 21), st_len = 0, out_len = 0;
    uint8_t st[CODEC_VALUE_BOUND(512)], out[512];
    struct codec_value_info info;

    assert_int_equal(codec_value_encode_dict(f->ctx, 7, rec, n, st, sizeof(st), &st_len),
                     TERSE_OK);
    assert_int_equal(codec_value_info(st, st_len, &info), TERSE_OK);
    /* Every byte flipped, one at a time: never the original value reported as another. */
    for (size_t i = 0; i < st_len; i++) {
        int rc;

        st[i] ^= 0x5a;
        rc = codec_value_decode(f->ctx, st, st_len, out, sizeof(out), &out_len);
        /* A flip in the dictionary id names an unknown dictionary; a flip elsewhere in the
         * header or payload is corruption. */
        if (i >= info.header_len - CODEC_DICT_ID_LEN && i < info.header_len) {
            assert_true(rc == TERSE_ENOTFOUND || rc == TERSE_ECORRUPT);
        } else if (rc == TERSE_OK) {
            /* A flip zstd ignores (say, a larger window): the value is the original, verified
             * by the checksum; no other data can come out. */
            assert_int_equal(out_len, n);
            assert_memory_equal(out, rec, n);
        } else if (rc != TERSE_EDSTSIZE) {
            assert_int_equal(rc, TERSE_ECORRUPT);
        }
        st[i] ^= 0x5a;
    }
    codec_value_corrupt(st, st_len);
    assert_int_equal(codec_value_decode(f->ctx, st, st_len, out, n, &out_len), TERSE_ECORRUPT);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(out[i], 0); /* unverified bytes wiped */
    }
    /* Truncation at every length. */
    codec_value_corrupt(st, st_len);
    for (size_t k = 0; k < st_len; k++) {
        int rc = codec_value_decode(f->ctx, st, k, out, sizeof(out), &out_len);

        assert_true(rc == TERSE_ECORRUPT);
    }
}

static void
test_header_rules(void **state)
{
    struct fixture *f = *state;
    struct codec_value_info info;
    uint8_t buf[64] = { 0 };

    (void)f;
    /* ZSTD, orig 200, checksum 0, dict id 0: refused. */
    buf[0] = 0x12;
    buf[1] = 0xc8;
    buf[2] = 0x01;
    assert_int_equal(codec_value_info(buf, 15 + 40, &info), TERSE_ECORRUPT);
    /* dict id 1, payload 40: fine. */
    buf[11] = 1;
    assert_int_equal(codec_value_info(buf, 15 + 40, &info), TERSE_OK);
    assert_int_equal(info.dict_id, 1);
    assert_int_equal(info.header_len, 15);
    /* orig below CODEC_RAW_MAX: refused. */
    buf[1] = 100;
    memmove(buf + 2, buf + 3, 13);
    assert_int_equal(codec_value_info(buf, 14 + 20, &info), TERSE_ECORRUPT);
    /* Ratio beyond CODEC_ZSTD_RATIO_MAX: orig 2^20 from a 1000-byte payload. */
    memset(buf, 0, sizeof(buf));
    buf[0] = 0x12;
    buf[1] = 0x80;
    buf[2] = 0x80;
    buf[3] = 0x40;
    buf[12] = 1;
    assert_int_equal(codec_value_info(buf, 16 + 1000, &info), TERSE_ECORRUPT);
    /* Payload + id beyond the keep limit: refused (200 -> at most 188 - 4). */
    memset(buf, 0, sizeof(buf));
    buf[0] = 0x12;
    buf[1] = 0xc8;
    buf[2] = 0x01;
    buf[11] = 1;
    assert_int_equal(codec_value_info(buf, 15 + 188 - CODEC_DICT_ID_LEN, &info), TERSE_OK);
    assert_int_equal(codec_value_info(buf, 15 + 189 - CODEC_DICT_ID_LEN, &info), TERSE_ECORRUPT);
}

static void
test_add_limits(void **state)
{
    struct fixture *f = *state;
    uint32_t id;

    assert_int_equal(codec_ctx_dict_add(f->ctx, 0, f->dict, f->dict_len, 0), TERSE_EINVAL);
    assert_int_equal(codec_ctx_dict_add(f->ctx, 7, f->dict, f->dict_len, 0), TERSE_EINVAL);
    assert_int_equal(codec_ctx_dict_add(f->ctx, 9, f->dict, f->dict_len, 23), TERSE_EINVAL);
    assert_int_equal(codec_ctx_dict_add(f->ctx, 9, NULL, 10, 0), TERSE_EINVAL);
    assert_int_equal(codec_ctx_dict_add(NULL, 9, f->dict, f->dict_len, 0), TERSE_EINVAL);
    for (id = 100; id < 100 + CODEC_DICT_MAX - 1; id++) {
        assert_int_equal(codec_ctx_dict_add(f->ctx, id, f->dict, f->dict_len, 1), TERSE_OK);
    }
    assert_int_equal(codec_ctx_dict_add(f->ctx, id, f->dict, f->dict_len, 1), TERSE_ETOOBIG);
    assert_int_equal(codec_ctx_dict_add(f->ctx, UINT32_MAX, f->dict, f->dict_len, 1),
                     TERSE_ETOOBIG);
    assert_int_equal(codec_ctx_dict_remove(f->ctx, 100), TERSE_OK);
    assert_int_equal(codec_ctx_dict_add(f->ctx, UINT32_MAX, f->dict, f->dict_len, 1), TERSE_OK);
    {
        char rec[512];
        size_t n = record(rec, sizeof(rec), 5);

        dict_round_trip(f->ctx, UINT32_MAX, (const uint8_t *)rec, n, CODEC_ZSTD);
    }
    /* Training refuses nonsense. */
    {
        size_t len = 0, one = 10;
        uint8_t d[2048];

        assert_int_equal(codec_dict_train("0123456789", &one, 1, d, 100, &len), TERSE_EINVAL);
        assert_int_equal(codec_dict_train("0123456789", &one, 0, d, sizeof(d), &len),
                         TERSE_EINVAL);
        assert_int_equal(codec_dict_train(NULL, &one, 1, d, sizeof(d), &len), TERSE_EINVAL);
        assert_int_equal(codec_dict_train("0123456789", &one, 1, d, sizeof(d), &len),
                         TERSE_EINVAL);
    }
}

/* Every allocation of dict_add failing in turn: ENOMEM, nothing registered, nothing leaked. */
static void
test_add_oom(void **state)
{
    struct fixture *f = *state;

    for (int n = 1;; n++) {
        struct count_alloc ca = { 0, 0, 0 };
        terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
        struct codec_ctx *c = NULL;
        char rec[512];
        size_t len = record(rec, sizeof(rec), 1), st_len;
        uint8_t st[CODEC_VALUE_BOUND(512)];
        int rc;

        assert_int_equal(codec_ctx_create(&c, &a), TERSE_OK);
        ca.fail_at = ca.n_calls + n;
        rc = codec_ctx_dict_add(c, 3, f->dict, f->dict_len, 0);
        if (rc == TERSE_OK) {
            codec_ctx_destroy(&c);
            assert_int_equal(ca.n_live, 0);
            assert_true(n > 2);
            break;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_int_equal(codec_value_encode_dict(c, 3, rec, len, st, sizeof(st), &st_len),
                         TERSE_ENOTFOUND);
        ca.fail_at = 0;
        assert_int_equal(codec_ctx_dict_add(c, 3, f->dict, f->dict_len, 0), TERSE_OK);
        codec_ctx_destroy(&c);
        assert_int_equal(ca.n_live, 0);
    }
}

/* Warm encode/decode with a dictionary allocates nothing: contexts are reused. */
static void
test_no_alloc_steady_state(void **state)
{
    struct fixture *f = *state;
    uint8_t st[CODEC_VALUE_BOUND(512)], out[512];
    char rec[512];
    size_t n, st_len, out_len;
    int calls;

    n = record(rec, sizeof(rec), 1);
    assert_int_equal(codec_value_encode_dict(f->ctx, 7, rec, n, st, sizeof(st), &st_len),
                     TERSE_OK);
    assert_int_equal(codec_value_decode(f->ctx, st, st_len, out, sizeof(out), &out_len),
                     TERSE_OK);
    calls = f->ca.n_calls;
    for (unsigned i = 0; i < 200; i++) {
        n = record(rec, sizeof(rec), i);
        assert_int_equal(codec_value_encode_dict(f->ctx, 7, rec, n, st, sizeof(st), &st_len),
                         TERSE_OK);
        assert_int_equal(codec_value_decode(f->ctx, st, st_len, out, sizeof(out), &out_len),
                         TERSE_OK);
    }
    assert_int_equal(f->ca.n_calls, calls);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corruption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_alloc_steady_state, setup, teardown),
    };

    return cmocka_run_group_tests_name("codec_dict", tests, NULL, NULL);
}
