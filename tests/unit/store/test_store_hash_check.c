/*
 * Unit tests of store_hash_check and of edits over a damaged form: a form truncated at every
 * byte, every kind of corruption (counts, lengths, bad varints), duplicate fields in a large
 * form, and store_hash_edit refusing a corrupt old form. Hand-made forms come from
 * store_hash_fixture.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "codec/codec_varint.h"
#include "store/form/store_hash.h"
#include "store_hash_fixture.h"
#include "terse/status.h"

static void test_check_truncated_everywhere(void **state)
{
    const struct store_hash_kv kv[] = {KV("field", "value"), KV("", ""), KV("x", "yy")};
    uint8_t form[64];
    size_t flen = store_hash_fixture_form(form, 3, kv, 3);

    (void)state;
    assert_int_equal(store_hash_check(form, flen), TERSE_OK);
    for (size_t cut = 0; cut < flen; cut++) {
        uint8_t *p = malloc(cut != 0 ? cut : 1); /* exact size: ASan sees any over-read */
        struct store_hash_it it;
        struct store_hash_kv got;
        uint64_t n;
        int rc;
        size_t len, added, removed;
        uint8_t out[128];

        memcpy(p, form, cut);
        assert_int_equal(store_hash_check(cut != 0 ? p : NULL, cut), TERSE_ECORRUPT);
        assert_int_equal(store_hash_check(p, cut), TERSE_ECORRUPT);
        if (store_hash_open(p, cut, &it, &n) == TERSE_OK) {
            while ((rc = store_hash_next(&it, &got)) == 1) {
            }
            assert_int_equal(rc, TERSE_ECORRUPT);
        }
        if (cut != 0) {
            assert_int_equal(store_hash_edit(p, cut, kv, 1, NULL, 0, out, sizeof(out), &len,
                                             &added, &removed),
                             TERSE_ECORRUPT);
        }
        free(p);
    }
}

static void test_check_refuses(void **state)
{
    const struct store_hash_kv kv[] = {KV("a", "1"), KV("b", "2"), KV("c", "3")};
    const struct store_hash_kv dup[] = {KV("a", "1"), KV("b", "2"), KV("a", "3")};
    uint8_t form[64];
    size_t len;

    (void)state;
    len = store_hash_fixture_form(form, 3, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    /* Count mismatch, both ways. */
    len = store_hash_fixture_form(form, 4, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_ECORRUPT);
    len = store_hash_fixture_form(form, 2, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_ECORRUPT);
    /* A trailing byte. */
    len = store_hash_fixture_form(form, 3, kv, 3);
    form[len] = 0;
    assert_int_equal(store_hash_check(form, len + 1), TERSE_ECORRUPT);
    /* A duplicate field. */
    len = store_hash_fixture_form(form, 3, dup, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_ECORRUPT);
    /* Empty input, and a count of 0 (an empty hash has no form). */
    assert_int_equal(store_hash_check(form, 0), TERSE_ECORRUPT);
    assert_int_equal(store_hash_check(NULL, 0), TERSE_ECORRUPT);
    assert_int_equal(store_hash_check((const uint8_t *)"\x00", 1), TERSE_ECORRUPT);
    /* A length past the end. */
    assert_int_equal(store_hash_check((const uint8_t *)"\x01\x05" "ab\x00", 5), TERSE_ECORRUPT);
    assert_int_equal(store_hash_check((const uint8_t *)"\x01\x01" "a\x05" "b", 5),
                     TERSE_ECORRUPT);
    assert_int_equal(store_hash_check((const uint8_t *)"\x01\x01" "a\x01" "b", 5), TERSE_OK);
}

static void test_check_refuses_bad_varints(void **state)
{
    /* Each is "1 field a:b" with one varint spelled wrong. */
    static const struct {
        const char *bytes;
        size_t len;
    } bad[] = {
        {"\x81\x00\x01" "a\x01" "b", 6},          /* count 1 in two bytes */
        {"\x01\x81\x00" "a\x01" "b", 6},          /* field length in two bytes */
        {"\x01\x01" "a\x81\x80\x00" "b", 7},      /* value length in three bytes */
        {"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11}, /* 11 bytes */
        {"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10},     /* over 64 bits */
        {"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x81\x00", 11}, /* tenth byte continues */
        {"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10},     /* 2^64-1 fields, no bytes */
        {"\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11}, /* field of 2^64-1 bytes */
        {"\x81", 1},                                          /* cut inside the count */
    };
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t *p = malloc(bad[i].len);

        memcpy(p, bad[i].bytes, bad[i].len);
        assert_int_equal(store_hash_check(p, bad[i].len), TERSE_ECORRUPT);
        if (store_hash_open(p, bad[i].len, &it, &n) == TERSE_OK) {
            assert_int_equal(store_hash_next(&it, &kv), TERSE_ECORRUPT);
        }
        assert_int_equal(store_hash_find(p, bad[i].len, (const uint8_t *)"zz", 2, &kv),
                         TERSE_ECORRUPT);
        free(p);
    }
    /* The largest count reads (and then does not match). */
    assert_int_equal(store_hash_open((const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                                     10, &it, &n),
                     TERSE_OK);
    assert_int_equal(n, UINT64_MAX);
}

/* Enough fields to need blocks in check, and a duplicate in each place a block can put it. */
static void test_check_duplicates_large(void **state)
{
    enum { N = 20000 };
    struct store_hash_kv *kv = malloc(N * sizeof(*kv));
    char(*names)[12] = malloc(N * sizeof(*names));
    uint8_t *form = malloc(N * 16 + 16);
    const size_t pairs[][2] = {{0, 1}, {0, N - 1}, {17, 4000}, {5119, 5120}, {6000, 19999},
                               {N - 2, N - 1}, {100, 15000}};

    (void)state;
    for (int i = 0; i < N; i++) {
        kv[i].flen = (size_t)snprintf(names[i], sizeof(names[i]), "k%d", i);
        kv[i].f = (const uint8_t *)names[i];
        kv[i].v = (const uint8_t *)"v";
        kv[i].vlen = 1;
    }
    assert_int_equal(store_hash_check(form, store_hash_fixture_form(form, N, kv, N)), TERSE_OK);
    for (size_t t = 0; t < sizeof(pairs) / sizeof(pairs[0]); t++) {
        struct store_hash_kv keep = kv[pairs[t][1]];

        kv[pairs[t][1]].f = kv[pairs[t][0]].f;
        kv[pairs[t][1]].flen = kv[pairs[t][0]].flen;
        assert_int_equal(store_hash_check(form, store_hash_fixture_form(form, N, kv, N)),
                         TERSE_ECORRUPT);
        kv[pairs[t][1]] = keep;
    }
    /* 16 and 17 fields: the last pairwise size and the first hashed one. */
    for (uint64_t n = 16; n <= 17; n++) {
        assert_int_equal(store_hash_check(form, store_hash_fixture_form(form, n, kv, n)), TERSE_OK);
        kv[n - 1].f = kv[0].f;
        kv[n - 1].flen = kv[0].flen;
        assert_int_equal(store_hash_check(form, store_hash_fixture_form(form, n, kv, n)),
                         TERSE_ECORRUPT);
        kv[n - 1].f = (const uint8_t *)names[n - 1];
        kv[n - 1].flen = strlen(names[n - 1]);
    }
    free(kv);
    free(names);
    free(form);
}

static void test_edit_refuses_corrupt_old(void **state)
{
    const struct store_hash_kv set[] = {KV("a", "1")};
    uint8_t out[64];
    size_t len, added, removed;

    (void)state;
    assert_int_equal(store_hash_edit((const uint8_t *)"\x00", 1, set, 1, NULL, 0, out,
                                     sizeof(out), &len, &added, &removed),
                     TERSE_ECORRUPT);
    assert_int_equal(store_hash_edit((const uint8_t *)"\x02\x01" "a\x00", 4, set, 1, NULL, 0,
                                     out, sizeof(out), &len, &added, &removed),
                     TERSE_ECORRUPT);
    assert_int_equal(store_hash_edit((const uint8_t *)"\x01\x01" "a\x00\x00", 5, set, 1, NULL, 0,
                                     out, sizeof(out), &len, &added, &removed),
                     TERSE_ECORRUPT);
    assert_int_equal(store_hash_edit(NULL, 3, set, 1, NULL, 0, out, sizeof(out), &len, &added,
                                     &removed),
                     TERSE_ECORRUPT);
    assert_int_equal(len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_truncated_everywhere),
        cmocka_unit_test(test_check_refuses),
        cmocka_unit_test(test_check_refuses_bad_varints),
        cmocka_unit_test(test_check_duplicates_large),
        cmocka_unit_test(test_edit_refuses_corrupt_old),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
