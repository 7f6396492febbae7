/*
 * Unit tests of the set form writer (store_set.c): its bytes equal store_hash_edit's for the
 * same members in the same order (empty values, shortest varints, a count crossing a power of
 * 128), the empty set writes nothing, the size is exact, one byte short is refused with
 * nothing written past cap, and binary and empty members round-trip through store_hash_next;
 * store_set_form_sorted orders members by value whatever part of them is already in order
 * (none, a prefix, all), at the type's extremes, against qsort.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/form/store_hash.h"
#include "store/form/store_set.h"
#include "terse/status.h"

#define GUARD 64 /* bytes past cap that must stay untouched */

static const uint8_t empty[1] = {0};

/* n members "m0".."m<n-1>" with names in names (16 bytes each). */
static struct store_hash_kv *members(size_t n, char (*names)[16])
{
    struct store_hash_kv *m = calloc(n ? n : 1, sizeof(*m));

    assert_non_null(m);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 16, "m%zu", i * 7919 % 100003);
        m[i] = (struct store_hash_kv){(const uint8_t *)names[i], strlen(names[i]), empty, 0};
    }
    return m;
}

static void check_same_as_edit(size_t n)
{
    char (*names)[16] = calloc(n ? n : 1, 16);
    struct store_hash_kv *m = members(n, names);
    size_t cap = 16 + n * 24, a_len, b_len, added, removed;
    uint8_t *a = malloc(cap), *b = malloc(cap);

    assert_non_null(names);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(store_hash_edit(NULL, 0, m, n, NULL, 0, a, cap, &a_len, &added, &removed),
                     TERSE_OK);
    assert_int_equal(store_set_form_write(m, n, b, cap, &b_len), TERSE_OK);
    assert_int_equal(b_len, a_len);
    assert_int_equal(store_set_form_size(m, n), b_len);
    assert_memory_equal(a, b, a_len);
    if (n > 0) {
        assert_int_equal(store_hash_check(b, b_len), TERSE_OK);
    }
    free(a);
    free(b);
    free(m);
    free(names);
}

static void test_same_bytes_as_edit(void **state)
{
    (void)state;
    for (size_t n = 0; n < 300; n++) {
        check_same_as_edit(n);
    }
    check_same_as_edit(16383);
    check_same_as_edit(16384);
    check_same_as_edit(20000);
}

static void test_empty_set_writes_nothing(void **state)
{
    uint8_t out[4] = {0xaa, 0xaa, 0xaa, 0xaa};
    size_t len = 99;

    (void)state;
    assert_int_equal(store_set_form_write(NULL, 0, out, 0, &len), TERSE_OK);
    assert_int_equal(len, 0);
    assert_int_equal(store_set_form_size(NULL, 0), 0);
    assert_int_equal(out[0], 0xaa);
}

static void test_cap_exact_and_one_short(void **state)
{
    char names[40][16];
    struct store_hash_kv *m = members(40, names);
    size_t need = store_set_form_size(m, 40), len = 0;
    uint8_t buf[1024 + GUARD];

    (void)state;
    assert_true(need + GUARD <= sizeof(buf));
    memset(buf, 0x5c, sizeof(buf));
    assert_int_equal(store_set_form_write(m, 40, buf, need - 1, &len), TERSE_ETOOBIG);
    for (size_t i = need - 1; i < need - 1 + GUARD; i++) {
        assert_int_equal(buf[i], 0x5c);
    }
    assert_int_equal(store_set_form_write(m, 40, buf, need, &len), TERSE_OK);
    assert_int_equal(len, need);
    assert_int_equal(buf[need], 0x5c);
    free(m);
}

static void test_binary_and_empty_members_round_trip(void **state)
{
    static const uint8_t bin[] = {0, '\r', '\n', 0xff, 0};
    uint8_t big[300];
    struct store_hash_kv m[3] = {{bin, sizeof(bin), empty, 0}, {empty, 0, empty, 0},
                                 {big, sizeof(big), empty, 0}};
    uint8_t out[512];
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    size_t len;

    (void)state;
    memset(big, 'x', sizeof(big));
    assert_int_equal(store_set_form_write(m, 3, out, sizeof(out), &len), TERSE_OK);
    assert_int_equal(store_hash_check(out, len), TERSE_OK);
    assert_int_equal(store_hash_open(out, len, &it, &n), TERSE_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(store_hash_next(&it, &kv), 1);
        assert_int_equal(kv.flen, m[i].flen);
        assert_memory_equal(kv.f, m[i].f, kv.flen ? kv.flen : 0);
        assert_int_equal(kv.vlen, 0);
    }
    assert_int_equal(store_hash_next(&it, &kv), 0);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;

    return (a > b) - (a < b);
}

/* n distinct values, the first `prefix` of them ascending, the rest in random order. */
static void check_sorted(size_t n, size_t prefix, unsigned seed)
{
    long long *v = calloc(n + 1, sizeof(*v)), *want = calloc(n + 1, sizeof(*v));
    char (*names)[24] = calloc(n + 1, 24);
    struct store_set_num *a = calloc(2 * n + 1, sizeof(*a));
    size_t cap = 16 + n * 26, len;
    uint8_t *out = malloc(cap);
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t count;

    assert_non_null(v);
    assert_non_null(want);
    assert_non_null(names);
    assert_non_null(a);
    assert_non_null(out);
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        /* distinct: i in the high bits, noise below; extremes at both ends */
        v[i] = (long long)((i * 2654435761u) % 1000003) * 1000 - 500001000LL;
        if (i == 0) {
            v[i] = INT64_MIN;
        } else if (i == 1) {
            v[i] = INT64_MAX;
        }
    }
    qsort(v, prefix, sizeof(*v), cmp_ll);
    for (size_t i = prefix; i + 1 < n; i++) {
        size_t j = i + (size_t)rand() % (n - i);
        long long t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 24, "%lld", v[i]);
        a[i].kv = (struct store_hash_kv){(const uint8_t *)names[i], strlen(names[i]), empty, 0};
        a[i].v = v[i];
        want[i] = v[i];
    }
    qsort(want, n, sizeof(*want), cmp_ll);
    assert_int_equal(store_set_form_sorted(a, n, out, cap, &len), TERSE_OK);
    if (n == 0) {
        assert_int_equal(len, 0);
    } else {
        assert_int_equal(store_hash_check(out, len), TERSE_OK);
        assert_int_equal(store_hash_open(out, len, &it, &count), TERSE_OK);
        assert_int_equal(count, n);
        for (size_t i = 0; i < n; i++) {
            char buf[24];
            assert_int_equal(store_hash_next(&it, &kv), 1);
            snprintf(buf, sizeof(buf), "%lld", want[i]);
            assert_int_equal(kv.flen, strlen(buf));
            assert_memory_equal(kv.f, buf, kv.flen);
        }
    }
    free(v);
    free(want);
    free(names);
    free(a);
    free(out);
}

static void test_sorted_form(void **state)
{
    (void)state;
    for (size_t n = 0; n < 70; n++) {
        for (size_t prefix = 0; prefix <= n; prefix += (n / 7) + 1) {
            check_sorted(n, prefix, (unsigned)(n * 131 + prefix));
        }
        check_sorted(n, n, 7);
    }
    check_sorted(20000, 0, 1);
    check_sorted(20000, 19990, 2);
    check_sorted(20000, 20000, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_as_edit),
        cmocka_unit_test(test_empty_set_writes_nothing),
        cmocka_unit_test(test_cap_exact_and_one_short),
        cmocka_unit_test(test_binary_and_empty_members_round_trip),
        cmocka_unit_test(test_sorted_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
