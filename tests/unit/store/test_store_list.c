/*
 * Unit tests of the list element form (store_list.c): the reader (open, next, skip, check)
 * refusing every kind of corruption; the writer (a count hint right, too small, too large:
 * the slide at finish) bounded by its cap; splice (pushes at both ends, pops, LSET, inserts),
 * range, count and remove against hand-made forms, each run at the bound, at the exact result
 * length and one byte short (nothing written past cap); corrupt old forms refused by every
 * edit whatever its arguments; empty and binary elements; a 100000-element list; random edits
 * against a plain model (an array of byte strings).
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

#include "codec/codec_varint.h"
#include "store/form/store_list.h"
#include "terse/status.h"

#define EL(s) {(const uint8_t *)(s), sizeof(s) - 1}
#define GUARD 64 /* bytes past cap that must stay untouched */

/* A plain form writer, independent of store_list_w, for hand-made (and broken) forms. */
static size_t form_make(uint8_t *out, uint64_t count, const struct store_list_el *el, size_t n)
{
    size_t len = codec_varint_put(out, count);

    for (size_t i = 0; i < n; i++) {
        len += codec_varint_put(out + len, el[i].len);
        if (el[i].len != 0) {
            memcpy(out + len, el[i].p, el[i].len);
        }
        len += el[i].len;
    }
    return len;
}

/* Asserts that form holds exactly the n elements of want, in order. */
static void assert_form(const uint8_t *form, size_t len, const struct store_list_el *want,
                        size_t n)
{
    struct store_list_it it;
    const uint8_t *p;
    size_t plen;
    uint64_t count;

    if (n == 0) {
        assert_int_equal(len, 0);
        return;
    }
    assert_int_equal(store_list_check(form, len), TERSE_OK);
    assert_int_equal(store_list_open(form, len, &it, &count), TERSE_OK);
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_list_next(&it, &p, &plen), 1);
        assert_int_equal(plen, want[i].len);
        assert_true(plen == 0 || memcmp(p, want[i].p, plen) == 0);
    }
    assert_int_equal(store_list_next(&it, &p, &plen), 0);
    assert_int_equal(store_list_next(&it, &p, &plen), 0);
}

/* A buffer of cap bytes followed by a guard of GUARD bytes of 0xA5. */
static uint8_t *guarded(size_t cap)
{
    uint8_t *b = malloc(cap + GUARD);

    assert_non_null(b);
    memset(b, 0xA5, cap + GUARD);
    return b;
}

static void assert_guard(const uint8_t *b, size_t cap)
{
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(b[cap + i], 0xA5);
    }
}

static size_t splice_bound(size_t len, const struct store_list_el *ins, size_t n_ins)
{
    size_t b = len + STORE_LIST_COUNT_MAX;

    for (size_t i = 0; i < n_ins; i++) {
        b += store_list_el_size(ins[i].len);
    }
    return b;
}

/* Splices at the bound, at the exact result length (same bytes) and one byte short
 * (TERSE_ETOOBIG, guard intact), and checks the result against want. */
static void splice_ok(const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                      const struct store_list_el *ins, size_t n_ins,
                      const struct store_list_el *want, size_t n_want)
{
    size_t cap = splice_bound(len, ins, n_ins), out_len, len2;
    uint8_t *a = guarded(cap), *b;

    assert_int_equal(store_list_splice(form, len, at, n_del, ins, n_ins, a, cap, &out_len),
                     TERSE_OK);
    assert_guard(a, cap);
    assert_form(a, out_len, want, n_want);
    b = guarded(out_len);
    assert_int_equal(store_list_splice(form, len, at, n_del, ins, n_ins, b, out_len, &len2),
                     TERSE_OK);
    assert_int_equal(len2, out_len);
    assert_memory_equal(a, b, out_len);
    assert_guard(b, out_len);
    free(b);
    if (out_len > 0) {
        b = guarded(out_len - 1);
        assert_int_equal(
            store_list_splice(form, len, at, n_del, ins, n_ins, b, out_len - 1, &len2),
            TERSE_ETOOBIG);
        assert_guard(b, out_len - 1);
        free(b);
    }
    free(a);
}

static void test_reader_basics(void **state)
{
    struct store_list_el el[] = {EL("a"), EL(""), EL("ccc")};
    uint8_t form[64];
    size_t len = form_make(form, 3, el, 3);
    struct store_list_it it;
    const uint8_t *p;
    size_t plen;
    uint64_t n;

    (void)state;
    assert_form(form, len, el, 3);
    assert_int_equal(store_list_open(form, len, &it, &n), TERSE_OK);
    assert_int_equal(store_list_skip(&it, 2), TERSE_OK);
    assert_int_equal(store_list_next(&it, &p, &plen), 1);
    assert_int_equal(plen, 3);
    assert_int_equal(store_list_open(form, len, &it, &n), TERSE_OK);
    assert_int_equal(store_list_skip(&it, 4), TERSE_ECORRUPT); /* fewer left */
    assert_int_equal(store_list_open(form, len, &it, &n), TERSE_OK);
    assert_int_equal(store_list_skip(&it, 3), TERSE_OK);
    assert_int_equal(store_list_next(&it, &p, &plen), 0);
}

static void test_check_refuses(void **state)
{
    struct store_list_el el[] = {EL("ab"), EL("c")};
    uint8_t form[64];
    size_t len = form_make(form, 2, el, 2);
    struct store_list_it it;
    uint64_t n;

    (void)state;
    assert_int_equal(store_list_check(form, len), TERSE_OK);
    /* truncated at every length, and one byte too many */
    for (size_t l = 0; l < len; l++) {
        assert_int_equal(store_list_check(form, l), TERSE_ECORRUPT);
    }
    form[len] = 0;
    assert_int_equal(store_list_check(form, len + 1), TERSE_ECORRUPT);
    /* a count of 0, the count one more or one less than the elements */
    form[0] = 0;
    assert_int_equal(store_list_check(form, 1), TERSE_ECORRUPT);
    assert_int_equal(store_list_open(form, 1, &it, &n), TERSE_ECORRUPT);
    form[0] = 3;
    assert_int_equal(store_list_check(form, len), TERSE_ECORRUPT);
    form[0] = 1;
    assert_int_equal(store_list_check(form, len), TERSE_ECORRUPT);
    form[0] = 2;
    /* an element length past the end */
    form[1] = 9;
    assert_int_equal(store_list_check(form, len), TERSE_ECORRUPT);
    form[1] = 2;
    assert_int_equal(store_list_check(form, len), TERSE_OK);
    /* NULL and the empty string */
    assert_int_equal(store_list_check(NULL, 0), TERSE_ECORRUPT);
    assert_int_equal(store_list_check(form, 0), TERSE_ECORRUPT);
}

static void test_check_refuses_bad_varints(void **state)
{
    /* count 1 spelled in two bytes; a length 0 spelled in two bytes; an 11-byte varint */
    const uint8_t long_count[] = {0x81, 0x00, 0x01, 'x'};
    const uint8_t long_len[] = {0x01, 0x80, 0x00};
    uint8_t huge[16];

    (void)state;
    assert_int_equal(store_list_check(long_count, sizeof(long_count)), TERSE_ECORRUPT);
    assert_int_equal(store_list_check(long_len, sizeof(long_len)), TERSE_ECORRUPT);
    memset(huge, 0xff, 11);
    huge[11] = 0x01;
    assert_int_equal(store_list_check(huge, 12), TERSE_ECORRUPT);
    /* a count of 2^63 (ten bytes) with one element: too few elements */
    memset(huge, 0x80, 9);
    huge[9] = 0x01;
    huge[10] = 0x00;
    assert_int_equal(store_list_check(huge, 11), TERSE_ECORRUPT);
}

static void test_push_pop_set_insert(void **state)
{
    struct store_list_el abc[] = {EL("a"), EL("b"), EL("c")};
    struct store_list_el x[] = {EL("x"), EL("y")};
    uint8_t form[64];
    size_t len = form_make(form, 3, abc, 3);

    (void)state;
    /* from nothing */
    splice_ok(NULL, 0, 0, 0, abc, 3, abc, 3);
    splice_ok(NULL, 0, 0, 0, NULL, 0, NULL, 0);
    /* pushes at either end */
    splice_ok(form, len, 0, 0, x, 2,
              (struct store_list_el[]){EL("x"), EL("y"), EL("a"), EL("b"), EL("c")}, 5);
    splice_ok(form, len, 3, 0, x, 2,
              (struct store_list_el[]){EL("a"), EL("b"), EL("c"), EL("x"), EL("y")}, 5);
    /* pops */
    splice_ok(form, len, 0, 1, NULL, 0, (struct store_list_el[]){EL("b"), EL("c")}, 2);
    splice_ok(form, len, 2, 1, NULL, 0, (struct store_list_el[]){EL("a"), EL("b")}, 2);
    splice_ok(form, len, 0, 3, NULL, 0, NULL, 0);
    /* LSET, LINSERT */
    splice_ok(form, len, 1, 1, x, 1, (struct store_list_el[]){EL("a"), EL("x"), EL("c")}, 3);
    splice_ok(form, len, 1, 0, x + 1, 1,
              (struct store_list_el[]){EL("a"), EL("y"), EL("b"), EL("c")}, 4);
    /* the arguments past the end */
    {
        uint8_t out[64];
        size_t out_len = 99;

        assert_int_equal(store_list_splice(form, len, 4, 0, NULL, 0, out, sizeof(out), &out_len),
                         TERSE_EINVAL);
        assert_int_equal(out_len, 0);
        assert_int_equal(store_list_splice(form, len, 2, 2, NULL, 0, out, sizeof(out), &out_len),
                         TERSE_EINVAL);
        assert_int_equal(store_list_splice(NULL, 0, 0, 1, NULL, 0, out, sizeof(out), &out_len),
                         TERSE_EINVAL);
        assert_int_equal(store_list_splice(form, len, 0, UINT64_MAX, NULL, 0, out, sizeof(out),
                                           &out_len),
                         TERSE_EINVAL);
    }
}

/* Lists crossing a power of 128 elements: the count's width changes, the cap stays exact. */
static void test_count_width_changes(void **state)
{
    struct store_list_el el[300];
    uint8_t *form = malloc(4096);
    size_t len;

    (void)state;
    assert_non_null(form);
    for (size_t i = 0; i < 300; i++) {
        el[i] = (struct store_list_el){(const uint8_t *)"e", i % 2};
    }
    len = form_make(form, 127, el, 127);
    splice_ok(form, len, 127, 0, el + 127, 1, el, 128); /* 127 -> 128: one more byte of count */
    len = form_make(form, 128, el, 128);
    splice_ok(form, len, 0, 1, NULL, 0, el + 1, 127); /* 128 -> 127: one less */
    assert_int_equal(store_list_range(form, len, 1, 127, form + 2048, 2048, &len), TERSE_OK);
    assert_form(form + 2048, len, el + 1, 127);
    len = form_make(form, 128, el, 128);
    splice_ok(form, len, 0, 128, el, 300 - 128 > 0 ? 172 : 0, el, 172);
    free(form);
}

static void test_writer_hints(void **state)
{
    uint8_t out[4096];
    struct store_list_w w;
    size_t out_len;

    (void)state;
    /* hint 0 (1 byte), 200 elements (2 bytes): slides up */
    store_list_w_init(&w, out, sizeof(out), 0);
    for (int i = 0; i < 200; i++) {
        store_list_w_push(&w, (const uint8_t *)"ab", 2);
    }
    assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_OK);
    assert_int_equal(out_len, 2 + 200 * 3);
    assert_int_equal(store_list_check(out, out_len), TERSE_OK);
    /* hint 2^40 (6 bytes), one element: slides down */
    store_list_w_init(&w, out, sizeof(out), (uint64_t)1 << 40);
    store_list_w_push(&w, (const uint8_t *)"xyz", 3);
    assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_OK);
    assert_int_equal(out_len, 5);
    assert_memory_equal(out, "\x01\x03xyz", 5);
    /* nothing written: no form */
    store_list_w_init(&w, out, sizeof(out), 5);
    assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_OK);
    assert_int_equal(out_len, 0);
    /* a wrong hint needs room to slide up: exactly one byte more here */
    {
        uint8_t *b = guarded(2 + 200 * 3 - 1);
        store_list_w_init(&w, b, 2 + 200 * 3 - 1, 0);
        for (int i = 0; i < 200; i++) {
            store_list_w_push(&w, (const uint8_t *)"ab", 2);
        }
        assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_ETOOBIG);
        assert_int_equal(out_len, 0);
        assert_guard(b, 2 + 200 * 3 - 1);
        free(b);
    }
    /* sticky: a push that does not fit ends the form, later ones write nothing */
    {
        uint8_t *b = guarded(4);
        store_list_w_init(&w, b, 4, 2);
        store_list_w_push(&w, (const uint8_t *)"abcd", 4);
        store_list_w_push(&w, (const uint8_t *)"a", 1);
        assert_int_equal(w.st, TERSE_ETOOBIG);
        assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_ETOOBIG);
        assert_guard(b, 4);
        free(b);
    }
    /* cap 0, NULL out: fine for no element, too small for one */
    store_list_w_init(&w, NULL, 0, 0);
    assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_OK);
    assert_int_equal(out_len, 0);
    store_list_w_init(&w, NULL, 0, 0);
    store_list_w_push(&w, NULL, 0);
    assert_int_equal(store_list_w_finish(&w, &out_len), TERSE_ETOOBIG);
}

static void test_range_count_remove(void **state)
{
    struct store_list_el el[] = {EL("a"), EL("b"), EL("a"), EL(""), EL("a"), EL("c")};
    uint8_t form[64], out[64];
    size_t len = form_make(form, 6, el, 6), out_len;
    uint64_t count, removed;

    (void)state;
    assert_int_equal(store_list_range(form, len, 1, 3, out, sizeof(out), &out_len), TERSE_OK);
    assert_form(out, out_len, el + 1, 3);
    assert_int_equal(store_list_range(form, len, 0, 6, out, len, &out_len), TERSE_OK);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, form, len);
    assert_int_equal(store_list_range(form, len, 6, 0, out, sizeof(out), &out_len), TERSE_OK);
    assert_int_equal(out_len, 0);
    assert_int_equal(store_list_range(form, len, 5, 2, out, sizeof(out), &out_len),
                     TERSE_EINVAL);
    assert_int_equal(store_list_range(form, len, 1, 3, out, 1 + 2 + 2 + 1 - 1, &out_len),
                     TERSE_ETOOBIG);

    assert_int_equal(store_list_count(form, len, (const uint8_t *)"a", 1, &count), TERSE_OK);
    assert_int_equal(count, 3);
    assert_int_equal(store_list_count(form, len, NULL, 0, &count), TERSE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(store_list_count(form, len, (const uint8_t *)"z", 1, &count), TERSE_OK);
    assert_int_equal(count, 0);

    /* all "a"; the first one kept (skip 1); at most one; the empty element; none there */
    assert_int_equal(store_list_remove(form, len, (const uint8_t *)"a", 1, 0, UINT64_MAX, out,
                                       len, &out_len, &removed),
                     TERSE_OK);
    assert_int_equal(removed, 3);
    assert_form(out, out_len, (struct store_list_el[]){EL("b"), EL(""), EL("c")}, 3);
    assert_int_equal(store_list_remove(form, len, (const uint8_t *)"a", 1, 1, UINT64_MAX, out,
                                       len, &out_len, &removed),
                     TERSE_OK);
    assert_int_equal(removed, 2);
    assert_form(out, out_len, (struct store_list_el[]){EL("a"), EL("b"), EL(""), EL("c")}, 4);
    assert_int_equal(store_list_remove(form, len, (const uint8_t *)"a", 1, 1, 1, out, len,
                                       &out_len, &removed),
                     TERSE_OK);
    assert_int_equal(removed, 1);
    assert_form(out, out_len,
                (struct store_list_el[]){EL("a"), EL("b"), EL(""), EL("a"), EL("c")}, 5);
    assert_int_equal(store_list_remove(form, len, NULL, 0, 0, UINT64_MAX, out, len, &out_len,
                                       &removed),
                     TERSE_OK);
    assert_int_equal(removed, 1);
    assert_int_equal(store_list_remove(form, len, (const uint8_t *)"z", 1, 0, UINT64_MAX, out,
                                       len, &out_len, &removed),
                     TERSE_OK);
    assert_int_equal(removed, 0);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, form, len);
    /* 128 elements to 127 at a cap of exactly the result: the count's room shrinks */
    {
        struct store_list_el many[128];
        uint8_t big[512], *b;
        size_t l2;

        for (size_t i = 0; i < 128; i++) {
            many[i] = i == 5 ? (struct store_list_el)EL("gone") : (struct store_list_el)EL("k");
        }
        l2 = form_make(big, 128, many, 128);
        b = guarded(l2 - 6);
        assert_int_equal(store_list_remove(big, l2, (const uint8_t *)"gone", 4, 0, UINT64_MAX, b,
                                           l2 - 6, &out_len, &removed),
                         TERSE_OK);
        assert_int_equal(removed, 1);
        assert_int_equal(out_len, l2 - 6);
        assert_guard(b, l2 - 6);
        assert_int_equal(store_list_check(b, out_len), TERSE_OK);
        free(b);
        b = guarded(l2 - 7);
        assert_int_equal(store_list_remove(big, l2, (const uint8_t *)"gone", 4, 0, UINT64_MAX, b,
                                           l2 - 7, &out_len, &removed),
                         TERSE_ETOOBIG);
        assert_guard(b, l2 - 7);
        free(b);
    }
    /* everything */
    {
        struct store_list_el same[] = {EL("q"), EL("q")};
        size_t l2 = form_make(form, 2, same, 2);
        assert_int_equal(store_list_remove(form, l2, (const uint8_t *)"q", 1, 0, UINT64_MAX,
                                           out, l2, &out_len, &removed),
                         TERSE_OK);
        assert_int_equal(removed, 2);
        assert_int_equal(out_len, 0);
    }
}

/* Every edit refuses a corrupt old form, whatever its other arguments. */
static void test_edits_refuse_corrupt(void **state)
{
    struct store_list_el el[] = {EL("ab"), EL("c"), EL("d")};
    uint8_t form[64], out[128];
    size_t len = form_make(form, 3, el, 3), out_len;
    uint64_t count, removed;

    (void)state;
    for (size_t l = 0; l < len; l++) {
        const uint8_t *f = l == 0 ? NULL : form;
        if (l == 0) {
            continue; /* NULL, 0 is the empty list for splice */
        }
        assert_int_equal(store_list_splice(f, l, 0, 0, el, 1, out, sizeof(out), &out_len),
                         TERSE_ECORRUPT);
        assert_int_equal(store_list_splice(f, l, 9, 9, el, 1, out, sizeof(out), &out_len),
                         TERSE_ECORRUPT);
        assert_int_equal(store_list_range(f, l, 0, 1, out, sizeof(out), &out_len),
                         TERSE_ECORRUPT);
        assert_int_equal(store_list_count(f, l, el[0].p, 2, &count), TERSE_ECORRUPT);
        assert_int_equal(store_list_remove(f, l, el[0].p, 2, 0, UINT64_MAX, out, sizeof(out),
                                           &out_len, &removed),
                         TERSE_ECORRUPT);
    }
    form[len] = 7; /* a byte left over */
    assert_int_equal(store_list_splice(form, len + 1, 0, 1, NULL, 0, out, sizeof(out), &out_len),
                     TERSE_ECORRUPT);
    assert_int_equal(store_list_range(form, len + 1, 0, 1, out, sizeof(out), &out_len),
                     TERSE_ECORRUPT);
    assert_int_equal(store_list_remove(form, len + 1, el[0].p, 2, 0, UINT64_MAX, out,
                                       sizeof(out), &out_len, &removed),
                     TERSE_ECORRUPT);
    assert_int_equal(store_list_count(form, len + 1, el[0].p, 2, &count), TERSE_ECORRUPT);
}

static void test_binary_and_big_elements(void **state)
{
    size_t big_len = 100000, out_len;
    uint8_t *big = malloc(big_len), *out;
    struct store_list_el el[3];

    (void)state;
    assert_non_null(big);
    for (size_t i = 0; i < big_len; i++) {
        big[i] = (uint8_t)(i * 7);
    }
    el[0] = (struct store_list_el){(const uint8_t *)"\0\r\n\xff", 4};
    el[1] = (struct store_list_el){big, big_len};
    el[2] = (struct store_list_el){NULL, 0};
    splice_ok(NULL, 0, 0, 0, el, 3, el, 3);
    out = malloc(big_len + 64);
    assert_non_null(out);
    assert_int_equal(store_list_splice(NULL, 0, 0, 0, el, 3, out, big_len + 64, &out_len),
                     TERSE_OK);
    assert_int_equal(out_len, 1 + 5 + 3 + big_len + 1);
    free(out);
    free(big);
}

static void test_hundred_thousand_elements(void **state)
{
    size_t n = 100000, cap = n * 8 + 16, len, out_len;
    uint8_t *form = malloc(cap), *out = malloc(cap);
    struct store_list_w w;
    struct store_list_it it;
    const uint8_t *p;
    size_t plen;
    uint64_t count;
    char buf[16];

    (void)state;
    assert_non_null(form);
    assert_non_null(out);
    store_list_w_init(&w, form, cap, n);
    for (size_t i = 0; i < n; i++) {
        int l = snprintf(buf, sizeof(buf), "%zu", i);
        store_list_w_push(&w, (const uint8_t *)buf, (size_t)l);
    }
    assert_int_equal(store_list_w_finish(&w, &len), TERSE_OK);
    assert_int_equal(store_list_check(form, len), TERSE_OK);
    /* pop the head, keep the middle, remove one in the middle */
    assert_int_equal(store_list_splice(form, len, 0, 1, NULL, 0, out, cap, &out_len), TERSE_OK);
    assert_int_equal(store_list_open(out, out_len, &it, &count), TERSE_OK);
    assert_int_equal(count, n - 1);
    assert_int_equal(store_list_next(&it, &p, &plen), 1);
    assert_memory_equal(p, "1", 1);
    assert_int_equal(store_list_range(form, len, 50000, 10, out, cap, &out_len), TERSE_OK);
    assert_int_equal(store_list_open(out, out_len, &it, &count), TERSE_OK);
    assert_int_equal(count, 10);
    assert_int_equal(store_list_next(&it, &p, &plen), 1);
    assert_int_equal(plen, 5);
    assert_memory_equal(p, "50000", 5);
    assert_int_equal(store_list_remove(form, len, (const uint8_t *)"77777", 5, 0, UINT64_MAX,
                                       out, len, &out_len, &count),
                     TERSE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(out_len, len - 6);
    free(form);
    free(out);
}

/* ---- random edits against a model ---------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define POOL 8
static const char *const pool[POOL] = {"", "a", "b", "ab", "0123456789", "\r\n", "x", "yy"};

static void test_random_edits_match_model(void **state)
{
    uint64_t s = 42;
    struct store_list_el model[600], next[600], ins[20];
    size_t n = 0, cap = 600 * 16 + 64, len = 0, out_len;
    uint8_t *form = malloc(cap), *out = malloc(cap);

    (void)state;
    assert_non_null(form);
    assert_non_null(out);
    for (int round = 0; round < 3000; round++) {
        unsigned op = (unsigned)(rng_next(&s) % 4);
        size_t k = 0, m = 0;
        uint64_t at = 0, removed;

        if (op == 0 || n == 0) { /* splice */
            at = n == 0 ? 0 : rng_next(&s) % (n + 1);
            m = (size_t)(rng_next(&s) % (n - at + 1));
            m = m > 5 ? 5 : m;
            k = (size_t)(rng_next(&s) % (n > 500 ? 2 : 20));
            for (size_t i = 0; i < k; i++) {
                const char *e = pool[rng_next(&s) % POOL];
                ins[i] = (struct store_list_el){(const uint8_t *)e, strlen(e)};
            }
            assert_int_equal(store_list_splice(len != 0 ? form : NULL, len, at, m, ins, k, out,
                                               cap, &out_len),
                             TERSE_OK);
            size_t nn = 0;
            for (size_t i = 0; i < at; i++) {
                next[nn++] = model[i];
            }
            for (size_t i = 0; i < k; i++) {
                next[nn++] = ins[i];
            }
            for (size_t i = at + m; i < n; i++) {
                next[nn++] = model[i];
            }
            memcpy(model, next, nn * sizeof(*model));
            n = nn;
        } else if (op == 1) { /* range */
            at = rng_next(&s) % (n + 1);
            m = (size_t)(rng_next(&s) % (n - at + 1));
            if (m == 0 && rng_next(&s) % 4 != 0) {
                continue; /* emptying the list often would keep it short */
            }
            assert_int_equal(store_list_range(form, len, at, m, out, cap, &out_len), TERSE_OK);
            memmove(model, model + at, m * sizeof(*model));
            n = m;
        } else { /* remove */
            const char *e = pool[rng_next(&s) % POOL];
            size_t el = strlen(e), nn = 0;
            uint64_t skip = rng_next(&s) % 3, max = rng_next(&s) % 4;
            uint64_t seen = 0, gone = 0;

            max = max == 3 ? UINT64_MAX : max;
            assert_int_equal(store_list_remove(form, len, (const uint8_t *)e, el, skip, max, out,
                                               len, &out_len, &removed),
                             TERSE_OK);
            for (size_t i = 0; i < n; i++) {
                bool eq = model[i].len == el && memcmp(model[i].p, e, el) == 0;
                if (eq && gone < max && seen++ >= skip) {
                    gone++;
                    continue;
                }
                next[nn++] = model[i];
            }
            assert_int_equal(removed, gone);
            memcpy(model, next, nn * sizeof(*model));
            n = nn;
        }
        /* the model points into the pool (inserted) or into form (kept): re-point it */
        assert_form(out, out_len, model, n);
        memcpy(form, out, out_len);
        len = out_len;
        {
            struct store_list_it it;
            uint64_t count;
            if (n > 0) {
                assert_int_equal(store_list_open(form, len, &it, &count), TERSE_OK);
                for (size_t i = 0; i < n; i++) {
                    assert_int_equal(store_list_next(&it, &model[i].p, &model[i].len), 1);
                }
            }
        }
    }
    free(form);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_basics),
        cmocka_unit_test(test_check_refuses),
        cmocka_unit_test(test_check_refuses_bad_varints),
        cmocka_unit_test(test_push_pop_set_insert),
        cmocka_unit_test(test_count_width_changes),
        cmocka_unit_test(test_writer_hints),
        cmocka_unit_test(test_range_count_remove),
        cmocka_unit_test(test_edits_refuse_corrupt),
        cmocka_unit_test(test_binary_and_big_elements),
        cmocka_unit_test(test_hundred_thousand_elements),
        cmocka_unit_test(test_random_edits_match_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
