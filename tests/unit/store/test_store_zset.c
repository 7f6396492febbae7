/*
 * Unit tests of the sorted-set form (store_zset.c): Redis's order (score, then member bytes,
 * a prefix first; -0 equal to 0), a written form decodes to the same elements and passes
 * store_zset_check, binary and empty members and inf/-inf/-0 round-trip bit for bit, the size
 * is exact and one byte short is refused with nothing written past cap; decode refuses a
 * NaN score, a score of another width, elements out of order or given twice, a count that
 * lies, bytes left over, and every truncation of a good form; store_zset_check also refuses a
 * member repeated under two scores (in order, so decode alone cannot see it); the lower bound
 * and the heapsort agree with a plain scan and with qsort.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "store/form/store_zset.h"
#include "terse/status.h"

#define GUARD 64 /* bytes past cap that must stay untouched */

static size_t write_form(const struct store_zset_el *a, size_t n, uint8_t *out, size_t cap)
{
    size_t len = 0;

    assert_int_equal(store_zset_form_write(a, n, out, cap, &len), TERSE_OK);
    assert_int_equal(len, store_zset_form_size(a, n));
    return len;
}

static void test_order(void **state)
{
    struct store_zset_el a = {(const uint8_t *)"b", 1, 1.0};
    struct store_zset_el b = {(const uint8_t *)"a", 1, 2.0};
    struct store_zset_el c = {(const uint8_t *)"ab", 2, 1.0};
    struct store_zset_el z = {(const uint8_t *)"a", 1, 0.0};
    struct store_zset_el nz = {(const uint8_t *)"b", 1, -0.0};

    (void)state;
    assert_true(store_zset_cmp(&a, &b) < 0);  /* score first */
    assert_true(store_zset_cmp(&c, &a) < 0);  /* "ab" < "b" */
    assert_true(store_zset_cmp(&a, &a) == 0);
    assert_true(store_zset_cmp(&z, &nz) < 0); /* -0 == 0: member decides */
    assert_true(store_zset_member_cmp((const uint8_t *)"a", 1, (const uint8_t *)"ab", 2) < 0);
    assert_true(store_zset_member_cmp((const uint8_t *)"\xff", 1, (const uint8_t *)"a", 1) > 0);
    assert_true(store_zset_member_cmp(NULL, 0, NULL, 0) == 0);
}

static void test_round_trip(void **state)
{
    static const uint8_t bin[] = {0, 1, 0xff, 0, '\r', '\n'};
    struct store_zset_el a[] = {
        {(const uint8_t *)"x", 1, -INFINITY}, {(const uint8_t *)"", 0, -1.5},
        {bin, sizeof(bin), -0.0},             {(const uint8_t *)"a", 1, 0.0},
        {(const uint8_t *)"b", 1, 4.9e-324},  {(const uint8_t *)"y", 1, INFINITY},
    };
    size_t n = sizeof(a) / sizeof(a[0]), got_n = 0, len;
    struct store_zset_el got[8];
    uint8_t out[256];
    uint64_t count;

    (void)state;
    len = write_form(a, n, out, sizeof(out));
    assert_int_equal(store_zset_check(out, len), TERSE_OK);
    assert_int_equal(store_zset_count(out, len, &count), TERSE_OK);
    assert_int_equal(count, n);
    assert_int_equal(store_zset_decode(out, len, got, 8, &got_n), TERSE_OK);
    assert_int_equal(got_n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].mlen, a[i].mlen);
        assert_memory_equal(got[i].m, a[i].m, a[i].mlen);
        assert_memory_equal(&got[i].score, &a[i].score, sizeof(double)); /* -0 keeps its sign */
    }
    /* Too small an array: the count comes back so the caller can grow. */
    assert_int_equal(store_zset_decode(out, len, got, 2, &got_n), TERSE_ETOOBIG);
    assert_int_equal(got_n, n);
    /* The empty zset: no form. */
    assert_int_equal(store_zset_form_write(a, 0, out, sizeof(out), &len), TERSE_OK);
    assert_int_equal(len, 0);
    assert_int_equal(store_zset_decode(NULL, 0, got, 8, &got_n), TERSE_OK);
    assert_int_equal(got_n, 0);
    assert_int_equal(store_zset_check(NULL, 0), TERSE_ECORRUPT);
}

static void test_cap_exact_and_one_short(void **state)
{
    struct store_zset_el a[3] = {{(const uint8_t *)"one", 3, 1}, {(const uint8_t *)"two", 3, 2},
                                 {(const uint8_t *)"three", 5, 3}};
    size_t size = store_zset_form_size(a, 3), len = 0;
    uint8_t out[128 + GUARD];

    (void)state;
    memset(out, 0xAA, sizeof(out));
    assert_int_equal(store_zset_form_write(a, 3, out, size - 1, &len), TERSE_ETOOBIG);
    for (size_t i = size - 1; i < sizeof(out); i++) {
        assert_int_equal(out[i], 0xAA);
    }
    assert_int_equal(store_zset_form_write(a, 3, out, size, &len), TERSE_OK);
    assert_int_equal(len, size);
    assert_int_equal(out[size], 0xAA);
}

/* A hand-written form: count, then (member, value bytes) pairs. */
static size_t raw_form(uint8_t *out, size_t n, const char *const *m, const uint8_t (*v)[9],
                       const size_t *vlen)
{
    size_t at = 0;

    out[at++] = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        size_t ml = strlen(m[i]);
        out[at++] = (uint8_t)ml;
        memcpy(out + at, m[i], ml);
        at += ml;
        out[at++] = (uint8_t)vlen[i];
        memcpy(out + at, v[i], vlen[i]);
        at += vlen[i];
    }
    return at;
}

static void put_score(uint8_t *p, double d)
{
    uint64_t bits;

    memcpy(&bits, &d, sizeof(bits));
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(bits >> (8 * i));
    }
}

static void test_bad_forms(void **state)
{
    const char *m2[] = {"a", "b"};
    const char *dup[] = {"a", "a"};
    uint8_t v[2][9];
    size_t vl[2] = {8, 8}, len, n;
    uint8_t form[64];
    struct store_zset_el got[4];

    (void)state;
    /* good: a 1, b 2 */
    put_score(v[0], 1);
    put_score(v[1], 2);
    len = raw_form(form, 2, m2, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_OK);
    assert_int_equal(store_zset_check(form, len), TERSE_OK);
    /* every truncation, and a byte left over */
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(store_zset_decode(form, cut, got, 4, &n),
                         cut == 0 ? TERSE_OK : TERSE_ECORRUPT);
        assert_int_equal(store_zset_check(form, cut), TERSE_ECORRUPT);
    }
    form[len] = 0;
    assert_int_equal(store_zset_decode(form, len + 1, got, 4, &n), TERSE_ECORRUPT);
    /* out of order: b 2 before... a 3 */
    put_score(v[1], 0.5);
    len = raw_form(form, 2, m2, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    assert_int_equal(store_zset_check(form, len), TERSE_ECORRUPT);
    /* NaN */
    put_score(v[1], NAN);
    len = raw_form(form, 2, m2, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    assert_int_equal(store_zset_check(form, len), TERSE_ECORRUPT);
    /* a score 7 bytes wide */
    put_score(v[1], 2);
    vl[1] = 7;
    len = raw_form(form, 2, m2, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    vl[1] = 8;
    /* the same pair twice: decode's order check sees it */
    put_score(v[1], 1);
    len = raw_form(form, 2, dup, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    /* one member under two scores, in order: only check sees it */
    put_score(v[1], 2);
    len = raw_form(form, 2, dup, v, vl);
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_OK);
    assert_int_equal(store_zset_check(form, len), TERSE_ECORRUPT);
    /* a count that lies: more than there are, and a count of 0 */
    len = raw_form(form, 2, m2, v, vl);
    form[0] = 3;
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    form[0] = 0;
    assert_int_equal(store_zset_decode(form, len, got, 4, &n), TERSE_ECORRUPT);
    assert_int_equal(store_zset_check(form, len), TERSE_ECORRUPT);
}

static int el_cmp(const void *a, const void *b)
{
    return store_zset_cmp(a, b);
}

static void test_sort_and_lower_bound(void **state)
{
    enum { N = 300 };
    static char names[N][8];
    struct store_zset_el a[N], b[N];

    (void)state;
    srand(7);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "m%zu", i);
        a[i] = (struct store_zset_el){(const uint8_t *)names[i], strlen(names[i]),
                                      (double)(rand() % 17) - 8.0};
    }
    memcpy(b, a, sizeof(a));
    store_zset_sort(a, N, sizeof(a[0]), el_cmp);
    qsort(b, N, sizeof(b[0]), el_cmp);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(store_zset_cmp(&a[i], &b[i]), 0);
    }
    for (double s = -9; s <= 9; s += 0.5) {
        struct store_zset_el probe = {(const uint8_t *)"m15", 3, s};
        size_t want = 0;
        while (want < N && store_zset_cmp(&a[want], &probe) < 0) {
            want++;
        }
        assert_int_equal(store_zset_lower_bound(a, N, &probe), want);
    }
    store_zset_sort(a, 0, sizeof(a[0]), el_cmp); /* nothing to do, nothing touched */
    store_zset_sort(a, 1, sizeof(a[0]), el_cmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_cap_exact_and_one_short),
        cmocka_unit_test(test_bad_forms),
        cmocka_unit_test(test_sort_and_lower_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
