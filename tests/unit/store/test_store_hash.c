/*
 * Unit tests of the hash field-list form (store_hash.c): building from nothing, setting new and
 * existing fields (order kept, values replaced), a field given twice in one call, deleting
 * some or all fields, find and iteration, the output capacity at the exact size and one byte
 * short (nothing written past it), store_hash_check refusing every kind of corruption, binary,
 * empty fields and empty values, a 100000-field hash, and random edits of every size class
 * (linear, one table, blocks) against a plain model.
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
#include "store/store_hash.h"
#include "terse/status.h"

#define KV(f, v) {(const uint8_t *)(f), sizeof(f) - 1, (const uint8_t *)(v), sizeof(v) - 1}
#define FIELD(f) {(const uint8_t *)(f), sizeof(f) - 1, NULL, 0}
#define GUARD 64 /* bytes past cap that must stay untouched */

/* A plain form writer, independent of store_hash_edit, for hand-made (and broken) forms. */
static size_t form_make(uint8_t *out, uint64_t count, const struct store_hash_kv *kv, size_t n)
{
    size_t len = codec_varint_put(out, count);

    for (size_t i = 0; i < n; i++) {
        len += codec_varint_put(out + len, kv[i].flen);
        memcpy(out + len, kv[i].f, kv[i].flen);
        len += kv[i].flen;
        len += codec_varint_put(out + len, kv[i].vlen);
        memcpy(out + len, kv[i].v, kv[i].vlen);
        len += kv[i].vlen;
    }
    return len;
}

static size_t edit_bound(size_t len, const struct store_hash_kv *set, size_t n)
{
    size_t b = len + 10;

    for (size_t i = 0; i < n; i++) {
        b += store_hash_pair_overhead(set[i].flen, set[i].vlen) + set[i].flen + set[i].vlen;
    }
    return b;
}

/*
 * Runs an edit into a buffer of exactly the bound, then again at exactly the result's length
 * (same bytes) and one byte short (TERSE_ETOOBIG), each followed by a guard area that must
 * stay untouched. Returns the result (heap, *out_len bytes; NULL when empty).
 */
static uint8_t *edit_ok(const uint8_t *form, size_t len, const struct store_hash_kv *set,
                        size_t n, const struct store_hash_kv *del, size_t m, size_t *out_len,
                        size_t *added, size_t *removed)
{
    size_t cap = edit_bound(len, set, n);
    uint8_t *out = malloc(cap + GUARD);
    uint8_t *again;
    size_t len2, a2, r2;

    assert_non_null(out);
    memset(out + cap, 0xa5, GUARD);
    assert_int_equal(
        store_hash_edit(form, len, set, n, del, m, out, cap, out_len, added, removed),
        TERSE_OK);
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(out[cap + i], 0xa5);
    }
    assert_true(*out_len <= cap);
    for (size_t c = *out_len; c + 2 > *out_len && c != SIZE_MAX; c--) {
        again = malloc(c + GUARD);
        assert_non_null(again);
        memset(again + c, 0x5a, GUARD);
        if (c == *out_len) {
            assert_int_equal(
                store_hash_edit(form, len, set, n, del, m, again, c, &len2, &a2, &r2), TERSE_OK);
            assert_int_equal(len2, *out_len);
            assert_int_equal(a2, *added);
            assert_int_equal(r2, *removed);
            if (len2 != 0) {
                assert_memory_equal(again, out, len2);
            }
        } else {
            assert_int_equal(
                store_hash_edit(form, len, set, n, del, m, again, c, &len2, &a2, &r2),
                TERSE_ETOOBIG);
        }
        for (size_t i = 0; i < GUARD; i++) {
            assert_int_equal(again[c + i], 0x5a);
        }
        free(again);
    }
    if (*out_len == 0) {
        free(out);
        return NULL;
    }
    assert_int_equal(store_hash_check(out, *out_len), TERSE_OK);
    return out;
}

/* The form holds exactly kv[0..n) in that order. */
static void expect_fields(const uint8_t *form, size_t len, const struct store_hash_kv *kv,
                          size_t n)
{
    struct store_hash_it it;
    struct store_hash_kv got;
    uint64_t count;

    assert_int_equal(store_hash_open(form, len, &it, &count), TERSE_OK);
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_hash_next(&it, &got), 1);
        assert_int_equal(got.flen, kv[i].flen);
        assert_int_equal(got.vlen, kv[i].vlen);
        if (got.flen != 0) {
            assert_memory_equal(got.f, kv[i].f, got.flen);
        }
        if (got.vlen != 0) {
            assert_memory_equal(got.v, kv[i].v, got.vlen);
        }
    }
    assert_int_equal(store_hash_next(&it, &got), 0);
    assert_int_equal(store_hash_next(&it, &got), 0);
}

static void test_build_from_empty(void **state)
{
    const struct store_hash_kv set[] = {KV("a", "1"), KV("bb", ""), KV("c", "three")};
    const uint8_t want[] = "\x03\x01" "a\x01" "1\x02" "bb\x00\x01" "c\x05" "three";
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = edit_ok(NULL, 0, set, 3, NULL, 0, &len, &added, &removed);
    assert_int_equal(len, sizeof(want) - 1);
    assert_memory_equal(f, want, len);
    assert_int_equal(added, 3);
    assert_int_equal(removed, 0);
    expect_fields(f, len, set, 3);
    free(f);

    /* Nothing to set on nothing: no form. */
    f = edit_ok(NULL, 0, NULL, 0, NULL, 0, &len, &added, &removed);
    assert_null(f);
    assert_int_equal(len, 0);
    assert_int_equal(added, 0);
}

static void test_set_keeps_order(void **state)
{
    const struct store_hash_kv old[] = {KV("a", "1"), KV("b", "2"), KV("c", "3")};
    const struct store_hash_kv set[] = {KV("d", "4"), KV("b", "two, longer"), KV("a", "")};
    const struct store_hash_kv want[] = {KV("a", ""), KV("b", "two, longer"), KV("c", "3"),
                                         KV("d", "4")};
    uint8_t form[64];
    size_t flen = form_make(form, 3, old, 3);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = edit_ok(form, flen, set, 3, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 1);
    assert_int_equal(removed, 0);
    expect_fields(f, len, want, 4);
    free(f);

    /* Setting the same values again changes nothing. */
    f = edit_ok(form, flen, old, 3, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 0);
    assert_int_equal(len, flen);
    assert_memory_equal(f, form, flen);
    free(f);
}

static void test_set_twice_in_one_call(void **state)
{
    const struct store_hash_kv set[] = {KV("f", "1"), KV("g", "2"), KV("f", "3"), KV("g", "4"),
                                        KV("f", "5")};
    const struct store_hash_kv want[] = {KV("f", "5"), KV("g", "4")};
    const struct store_hash_kv old[] = {KV("x", "0"), KV("f", "0")};
    const struct store_hash_kv want_old[] = {KV("x", "0"), KV("f", "5"), KV("g", "4")};
    uint8_t form[64];
    size_t flen = form_make(form, 2, old, 2);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = edit_ok(NULL, 0, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 2);
    expect_fields(f, len, want, 2);
    free(f);

    f = edit_ok(form, flen, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 1); /* g; f was there */
    expect_fields(f, len, want_old, 3);
    free(f);
}

static void test_delete(void **state)
{
    const struct store_hash_kv old[] = {KV("a", "1"), KV("b", "2"), KV("c", "3")};
    const struct store_hash_kv del_some[] = {FIELD("b"), FIELD("zz"), FIELD("b")};
    const struct store_hash_kv del_all[] = {FIELD("c"), FIELD("a"), FIELD("b"), FIELD("a")};
    const struct store_hash_kv want[] = {KV("a", "1"), KV("c", "3")};
    uint8_t form[64];
    size_t flen = form_make(form, 3, old, 3);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = edit_ok(form, flen, NULL, 0, del_some, 3, &len, &added, &removed);
    assert_int_equal(removed, 1); /* HDEL h b zz b answers 1 */
    assert_int_equal(added, 0);
    expect_fields(f, len, want, 2);
    free(f);

    f = edit_ok(form, flen, NULL, 0, del_all, 4, &len, &added, &removed);
    assert_null(f);
    assert_int_equal(len, 0);
    assert_int_equal(removed, 3);

    /* Deleting from nothing, and deleting nothing. */
    f = edit_ok(NULL, 0, NULL, 0, del_all, 4, &len, &added, &removed);
    assert_null(f);
    assert_int_equal(removed, 0);
    f = edit_ok(form, flen, NULL, 0, NULL, 0, &len, &added, &removed);
    assert_int_equal(len, flen);
    assert_memory_equal(f, form, flen);
    free(f);
}

/* The documented overlap: the sets apply, then the deletions. */
static void test_set_and_del_overlap(void **state)
{
    const struct store_hash_kv old[] = {KV("a", "1"), KV("b", "2")};
    const struct store_hash_kv set[] = {KV("a", "9"), KV("n", "new"), KV("k", "kept")};
    const struct store_hash_kv del[] = {FIELD("a"), FIELD("n")};
    const struct store_hash_kv want[] = {KV("b", "2"), KV("k", "kept")};
    uint8_t form[64];
    size_t flen = form_make(form, 2, old, 2);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = edit_ok(form, flen, set, 3, del, 2, &len, &added, &removed);
    assert_int_equal(added, 1);   /* k; n was set and deleted: never there */
    assert_int_equal(removed, 1); /* a */
    expect_fields(f, len, want, 2);
    free(f);
}

static void test_find_and_iterate(void **state)
{
    const struct store_hash_kv kv[] = {KV("one", "1"), KV("two", "22"), KV("", "empty name"),
                                       KV("four", "")};
    uint8_t form[128];
    size_t flen = form_make(form, 4, kv, 4);
    struct store_hash_kv got;

    (void)state;
    assert_int_equal(store_hash_check(form, flen), TERSE_OK);
    expect_fields(form, flen, kv, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(store_hash_find(form, flen, kv[i].f, kv[i].flen, &got), 1);
        assert_int_equal(got.vlen, kv[i].vlen);
        assert_memory_equal(got.v, kv[i].v, got.vlen);
        assert_true(got.f >= form && got.v + got.vlen <= form + flen); /* a view into form */
    }
    assert_int_equal(store_hash_find(form, flen, (const uint8_t *)"on", 2, &got), 0);
    assert_int_equal(store_hash_find(form, flen, (const uint8_t *)"one!", 4, &got), 0);
    assert_int_equal(store_hash_find(form, flen, NULL, 0, &got), 1);
    assert_int_equal(got.vlen, 10);
    /* A corrupt tail is reported when the search reaches it, not before. */
    assert_int_equal(store_hash_find(form, flen - 1, (const uint8_t *)"one", 3, &got), 1);
    assert_int_equal(store_hash_find(form, flen - 1, (const uint8_t *)"nope", 4, &got),
                     TERSE_ECORRUPT);
    assert_int_equal(store_hash_find(form, flen + 0, (const uint8_t *)"nope", 4, &got), 0);
    assert_int_equal(store_hash_find(NULL, 0, (const uint8_t *)"one", 3, &got), TERSE_ECORRUPT);
}

/* The count changes width (127 <-> 128 fields): exact caps still fit, one less does not. */
static void test_cap_exact_across_count_width(void **state)
{
    struct store_hash_kv set[200];
    char names[200][8];
    struct store_hash_kv del = FIELD("f000");
    uint8_t *f127, *f128, *f;
    size_t len127, len128, len, added, removed;

    (void)state;
    for (int i = 0; i < 200; i++) {
        snprintf(names[i], sizeof(names[i]), "f%03d", i % 127);
        set[i] = (struct store_hash_kv){(const uint8_t *)names[i], 4, (const uint8_t *)"v", 1};
    }
    /* 200 pairs naming 127 fields: the count takes 1 byte, though 200 would take 2. */
    f127 = edit_ok(NULL, 0, set, 200, NULL, 0, &len127, &added, &removed);
    assert_int_equal(added, 127);
    assert_int_equal(f127[0], 127);

    snprintf(names[199], sizeof(names[199]), "new");
    set[199].flen = 3;
    f128 = edit_ok(f127, len127, &set[199], 1, NULL, 0, &len128, &added, &removed);
    assert_int_equal(added, 1);
    assert_int_equal(len128, len127 + 1 + 6);
    assert_memory_equal(f128, "\x80\x01", 2);

    f = edit_ok(f128, len128, NULL, 0, &del, 1, &len, &added, &removed);
    assert_int_equal(removed, 1);
    assert_int_equal(f[0], 127);
    assert_int_equal(len, len128 - 1 - 7);
    free(f);
    free(f127);
    free(f128);
}

static void test_check_truncated_everywhere(void **state)
{
    const struct store_hash_kv kv[] = {KV("field", "value"), KV("", ""), KV("x", "yy")};
    uint8_t form[64];
    size_t flen = form_make(form, 3, kv, 3);

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
    len = form_make(form, 3, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    /* Count mismatch, both ways. */
    len = form_make(form, 4, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_ECORRUPT);
    len = form_make(form, 2, kv, 3);
    assert_int_equal(store_hash_check(form, len), TERSE_ECORRUPT);
    /* A trailing byte. */
    len = form_make(form, 3, kv, 3);
    form[len] = 0;
    assert_int_equal(store_hash_check(form, len + 1), TERSE_ECORRUPT);
    /* A duplicate field. */
    len = form_make(form, 3, dup, 3);
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

static void test_binary_and_empty(void **state)
{
    const struct store_hash_kv set[] = {
        {(const uint8_t *)"a\0b", 3, (const uint8_t *)"\0\0", 2},
        {(const uint8_t *)"a\0c", 3, (const uint8_t *)"x\0", 2},
        {NULL, 0, NULL, 0},                      /* empty field, empty value */
        {(const uint8_t *)"\0", 1, NULL, 0},
        {(const uint8_t *)"a", 1, (const uint8_t *)"\xff\x00\x80", 3},
    };
    const struct store_hash_kv set2[] = {{(const uint8_t *)"", 0, (const uint8_t *)"now", 3}};
    const struct store_hash_kv del[] = {{(const uint8_t *)"a\0b", 3, NULL, 0}};
    const struct store_hash_kv want[] = {set[1], set2[0], set[3], set[4]};
    size_t len, len2, added, removed;
    struct store_hash_kv got;
    uint8_t *f, *f2;

    (void)state;
    f = edit_ok(NULL, 0, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 5);
    expect_fields(f, len, set, 5);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a\0c", 3, &got), 1);
    assert_memory_equal(got.v, "x\0", 2);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a\0d", 3, &got), 0);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a", 1, &got), 1);
    assert_int_equal(got.vlen, 3);

    f2 = edit_ok(f, len, set2, 1, del, 1, &len2, &added, &removed);
    assert_int_equal(added, 0);
    assert_int_equal(removed, 1);
    expect_fields(f2, len2, want, 4);
    free(f);
    free(f2);
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
    assert_int_equal(store_hash_check(form, form_make(form, N, kv, N)), TERSE_OK);
    for (size_t t = 0; t < sizeof(pairs) / sizeof(pairs[0]); t++) {
        struct store_hash_kv keep = kv[pairs[t][1]];

        kv[pairs[t][1]].f = kv[pairs[t][0]].f;
        kv[pairs[t][1]].flen = kv[pairs[t][0]].flen;
        assert_int_equal(store_hash_check(form, form_make(form, N, kv, N)), TERSE_ECORRUPT);
        kv[pairs[t][1]] = keep;
    }
    /* 16 and 17 fields: the last pairwise size and the first hashed one. */
    for (uint64_t n = 16; n <= 17; n++) {
        assert_int_equal(store_hash_check(form, form_make(form, n, kv, n)), TERSE_OK);
        kv[n - 1].f = kv[0].f;
        kv[n - 1].flen = kv[0].flen;
        assert_int_equal(store_hash_check(form, form_make(form, n, kv, n)), TERSE_ECORRUPT);
        kv[n - 1].f = (const uint8_t *)names[n - 1];
        kv[n - 1].flen = strlen(names[n - 1]);
    }
    free(kv);
    free(names);
    free(form);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_hundred_thousand_fields(void **state)
{
    enum { N = 100000 };
    struct store_hash_kv *kv = malloc(N * sizeof(*kv));
    char(*names)[16] = malloc(N * sizeof(*names));
    struct store_hash_kv more[] = {KV("k7", "seven"), KV("brand new", "x"), KV("k99999", "")};
    struct store_hash_kv *del = malloc(5000 * sizeof(*del));
    size_t cap, len, len2, added, removed;
    struct store_hash_kv got;
    uint8_t *form, *form2;
    double t0, t_edit, t_check, t_more;

    (void)state;
    for (int i = 0; i < N; i++) {
        kv[i].flen = (size_t)snprintf(names[i], sizeof(names[i]), "k%d", i);
        kv[i].f = (const uint8_t *)names[i];
        kv[i].v = kv[i].f;
        kv[i].vlen = kv[i].flen;
    }
    cap = edit_bound(0, kv, N);
    form = malloc(cap);
    t0 = now_s();
    assert_int_equal(store_hash_edit(NULL, 0, kv, N, NULL, 0, form, cap, &len, &added, &removed),
                     TERSE_OK);
    t_edit = now_s() - t0;
    assert_int_equal(added, N);
    t0 = now_s();
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    t_check = now_s() - t0;
    expect_fields(form, len, kv, N);

    /* A few sets on the big hash, then 5000 deletions (blocks over old fields and `del`). */
    t0 = now_s();
    cap = edit_bound(len, more, 3);
    form2 = malloc(cap);
    assert_int_equal(store_hash_edit(form, len, more, 3, NULL, 0, form2, cap, &len2, &added,
                                     &removed),
                     TERSE_OK);
    assert_int_equal(added, 1);
    assert_int_equal(store_hash_find(form2, len2, (const uint8_t *)"k7", 2, &got), 1);
    assert_memory_equal(got.v, "seven", 5);
    for (int i = 0; i < 5000; i++) {
        del[i] = kv[i * 20];
    }
    free(form);
    form = malloc(len2);
    assert_int_equal(store_hash_edit(form2, len2, NULL, 0, del, 5000, form, len2, &len,
                                     &added, &removed),
                     TERSE_OK);
    t_more = now_s() - t0;
    assert_int_equal(removed, 5000);
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    assert_int_equal(store_hash_find(form, len, (const uint8_t *)"k20", 3, &got), 0);
    assert_int_equal(store_hash_find(form, len, (const uint8_t *)"k21", 3, &got), 1);
    print_message("# 100000 fields: edit %.1f ms, check %.1f ms, then set 3 + del 5000 %.1f ms\n",
                  t_edit * 1e3, t_check * 1e3, t_more * 1e3);
    free(kv);
    free(names);
    free(del);
    free(form);
    free(form2);
}

/* ---- random edits against a model ------------------------------------------------------- */

#define ID_MAX 40000

struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* Field names of ids: "" for 0, NUL bytes for 1 and 2, decimal text otherwise. */
static size_t field_of(uint32_t id, uint8_t *buf)
{
    if (id < 3) {
        memset(buf, 0, id);
        return id;
    }
    return (size_t)snprintf((char *)buf, 12, "%u", id);
}

/* Values of value ids: 0 to 199 bytes (some take a 2-byte length). */
static size_t value_of(uint32_t vid, uint8_t *buf)
{
    size_t len = vid % 200;

    for (size_t k = 0; k < len; k++) {
        buf[k] = (uint8_t)(vid + k * 31);
    }
    return len;
}

struct model {
    int64_t val[ID_MAX]; /* value id, -1: absent */
    uint32_t order[ID_MAX];
    size_t n;
};

struct args {
    struct store_hash_kv *kv;
    uint32_t *id;
    uint32_t *vid;
    uint8_t *pool;
};

static void args_make(struct args *a, struct rng *r, size_t n, uint32_t id_range, bool values)
{
    uint8_t *p;

    a->kv = malloc((n + 1) * sizeof(*a->kv));
    a->id = malloc((n + 1) * sizeof(*a->id));
    a->vid = malloc((n + 1) * sizeof(*a->vid));
    a->pool = malloc((n + 1) * 216);
    p = a->pool;
    for (size_t i = 0; i < n; i++) {
        a->id[i] = (uint32_t)(rng_next(r) % id_range);
        a->vid[i] = (uint32_t)rng_next(r);
        a->kv[i].f = p;
        a->kv[i].flen = field_of(a->id[i], p);
        p += a->kv[i].flen;
        a->kv[i].v = values ? p : NULL;
        a->kv[i].vlen = values ? value_of(a->vid[i], p) : 0;
        p += a->kv[i].vlen;
    }
}

static void args_free(struct args *a)
{
    free(a->kv);
    free(a->id);
    free(a->vid);
    free(a->pool);
}

/* The form holds the model's fields, in its order, with its values. */
static void expect_model(const uint8_t *form, size_t len, const struct model *md)
{
    struct store_hash_it it;
    struct store_hash_kv got;
    uint8_t f[16], v[256];
    uint64_t count;

    if (md->n == 0) {
        assert_int_equal(len, 0);
        return;
    }
    assert_int_equal(store_hash_open(form, len, &it, &count), TERSE_OK);
    assert_int_equal(count, md->n);
    for (size_t i = 0; i < md->n; i++) {
        uint32_t id = md->order[i];
        size_t fl = field_of(id, f), vl = value_of((uint32_t)md->val[id], v);

        assert_int_equal(store_hash_next(&it, &got), 1);
        assert_int_equal(got.flen, fl);
        assert_int_equal(got.vlen, vl);
        assert_memory_equal(got.f, f, fl);
        assert_memory_equal(got.v, v, vl);
    }
    assert_int_equal(store_hash_next(&it, &got), 0);
}

/* Sets, then deletions, in the model; the counts store_hash_edit must give. */
static void model_apply(struct model *md, const struct args *set, size_t n,
                        const struct args *del, size_t m, size_t *added, size_t *removed)
{
    bool *was = calloc(ID_MAX, sizeof(*was));
    size_t w = 0;

    assert_non_null(was);
    for (size_t i = 0; i < md->n; i++) {
        was[md->order[i]] = true;
    }
    *added = 0;
    *removed = 0;
    for (size_t i = 0; i < n; i++) {
        if (md->val[set->id[i]] < 0) {
            md->order[md->n++] = set->id[i];
        }
        md->val[set->id[i]] = set->vid[i];
    }
    for (size_t d = 0; d < m; d++) {
        if (md->val[del->id[d]] >= 0) {
            *removed += was[del->id[d]];
            md->val[del->id[d]] = -1;
        }
    }
    for (size_t i = 0; i < md->n; i++) {
        uint32_t id = md->order[i];

        if (md->val[id] >= 0) {
            md->order[w++] = id;
            *added += !was[id];
        }
    }
    free(was);
    md->n = w;
}

/* One random edit of sizes (n, m) over ids below id_range, on the model's hash. */
static void random_edit(struct rng *r, struct model *md, uint8_t **form, size_t *len, size_t n,
                        size_t m, uint32_t id_range)
{
    struct args set, del;
    size_t out_len, added, removed, want_added, want_removed;
    uint8_t *out;

    args_make(&set, r, n, id_range, true);
    args_make(&del, r, m, id_range, false);
    out = edit_ok(*form, *len, set.kv, n, del.kv, m, &out_len, &added, &removed);
    model_apply(md, &set, n, &del, m, &want_added, &want_removed);
    assert_int_equal(added, want_added);
    assert_int_equal(removed, want_removed);
    expect_model(out, out_len, md);
    free(*form);
    *form = out;
    *len = out_len;
    args_free(&set);
    args_free(&del);
}

static void test_random_edits_match_model(void **state)
{
    /* (n, m, id range): linear, one table, blocks (old and `set`, with and without the
     * in-old bitmap, many deletions), each a few times on a hash that carries over. */
    static const size_t sizes[][3] = {
        {3, 0, 8},        {5, 3, 12},       {0, 8, 12},     {8, 0, 16},    {2, 2, 4},
        {40, 10, 64},     {300, 50, 500},   {2000, 0, 3000}, {1000, 1560, 2000},
        {3000, 0, 4000},  {2000, 1000, 5000}, {9000, 100, 12000}, {10, 3000, 12000},
        {6000, 10, 20000}, {1, 1, 20000},   {9, 0, 20000},
    };
    struct model *md = malloc(sizeof(*md));
    struct rng r = {0x9e3779b97f4a7c15ull};
    uint8_t *form = NULL;
    size_t len = 0;

    (void)state;
    for (size_t i = 0; i < ID_MAX; i++) {
        md->val[i] = -1;
    }
    md->n = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            random_edit(&r, md, &form, &len, sizes[i][0], sizes[i][1], (uint32_t)sizes[i][2]);
        }
    }
    free(form);
    free(md);
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

static void test_pair_overhead(void **state)
{
    (void)state;
    assert_int_equal(store_hash_pair_overhead(0, 0), 2);
    assert_int_equal(store_hash_pair_overhead(127, 127), 2);
    assert_int_equal(store_hash_pair_overhead(128, 0), 3);
    assert_int_equal(store_hash_pair_overhead(16384, 128), 5);
    assert_int_equal(store_hash_pair_overhead(SIZE_MAX, SIZE_MAX), 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_from_empty),
        cmocka_unit_test(test_set_keeps_order),
        cmocka_unit_test(test_set_twice_in_one_call),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_set_and_del_overlap),
        cmocka_unit_test(test_find_and_iterate),
        cmocka_unit_test(test_cap_exact_across_count_width),
        cmocka_unit_test(test_check_truncated_everywhere),
        cmocka_unit_test(test_check_refuses),
        cmocka_unit_test(test_check_refuses_bad_varints),
        cmocka_unit_test(test_binary_and_empty),
        cmocka_unit_test(test_check_duplicates_large),
        cmocka_unit_test(test_hundred_thousand_fields),
        cmocka_unit_test(test_random_edits_match_model),
        cmocka_unit_test(test_edit_refuses_corrupt_old),
        cmocka_unit_test(test_pair_overhead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
