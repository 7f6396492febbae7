/*
 * Unit tests of editing the hash field-list form (store_hash.c, store_hash_edit.c): building
 * from nothing, setting new and existing fields (order kept, values replaced), a field given
 * twice in one call, deleting some or all fields, find and iteration, the output capacity at
 * the exact size and one byte short (nothing written past it), binary, empty fields and empty
 * values, and the per-pair overhead. store_hash_check's refusals are in
 * test_store_hash_check.c, the 100000-field hash and the random edits against a model in
 * test_store_hash_model.c; the form helpers all three share in store_hash_fixture.c.
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

static void test_build_from_empty(void **state)
{
    const struct store_hash_kv set[] = {KV("a", "1"), KV("bb", ""), KV("c", "three")};
    const uint8_t want[] = "\x03\x01" "a\x01" "1\x02" "bb\x00\x01" "c\x05" "three";
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = store_hash_fixture_edit(NULL, 0, set, 3, NULL, 0, &len, &added, &removed);
    assert_int_equal(len, sizeof(want) - 1);
    assert_memory_equal(f, want, len);
    assert_int_equal(added, 3);
    assert_int_equal(removed, 0);
    store_hash_fixture_expect(f, len, set, 3);
    free(f);

    /* Nothing to set on nothing: no form. */
    f = store_hash_fixture_edit(NULL, 0, NULL, 0, NULL, 0, &len, &added, &removed);
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
    size_t flen = store_hash_fixture_form(form, 3, old, 3);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = store_hash_fixture_edit(form, flen, set, 3, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 1);
    assert_int_equal(removed, 0);
    store_hash_fixture_expect(f, len, want, 4);
    free(f);

    /* Setting the same values again changes nothing. */
    f = store_hash_fixture_edit(form, flen, old, 3, NULL, 0, &len, &added, &removed);
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
    size_t flen = store_hash_fixture_form(form, 2, old, 2);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = store_hash_fixture_edit(NULL, 0, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 2);
    store_hash_fixture_expect(f, len, want, 2);
    free(f);

    f = store_hash_fixture_edit(form, flen, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 1); /* g; f was there */
    store_hash_fixture_expect(f, len, want_old, 3);
    free(f);
}

static void test_delete(void **state)
{
    const struct store_hash_kv old[] = {KV("a", "1"), KV("b", "2"), KV("c", "3")};
    const struct store_hash_kv del_some[] = {FIELD("b"), FIELD("zz"), FIELD("b")};
    const struct store_hash_kv del_all[] = {FIELD("c"), FIELD("a"), FIELD("b"), FIELD("a")};
    const struct store_hash_kv want[] = {KV("a", "1"), KV("c", "3")};
    uint8_t form[64];
    size_t flen = store_hash_fixture_form(form, 3, old, 3);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = store_hash_fixture_edit(form, flen, NULL, 0, del_some, 3, &len, &added, &removed);
    assert_int_equal(removed, 1); /* HDEL h b zz b answers 1 */
    assert_int_equal(added, 0);
    store_hash_fixture_expect(f, len, want, 2);
    free(f);

    f = store_hash_fixture_edit(form, flen, NULL, 0, del_all, 4, &len, &added, &removed);
    assert_null(f);
    assert_int_equal(len, 0);
    assert_int_equal(removed, 3);

    /* Deleting from nothing, and deleting nothing. */
    f = store_hash_fixture_edit(NULL, 0, NULL, 0, del_all, 4, &len, &added, &removed);
    assert_null(f);
    assert_int_equal(removed, 0);
    f = store_hash_fixture_edit(form, flen, NULL, 0, NULL, 0, &len, &added, &removed);
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
    size_t flen = store_hash_fixture_form(form, 2, old, 2);
    size_t len, added, removed;
    uint8_t *f;

    (void)state;
    f = store_hash_fixture_edit(form, flen, set, 3, del, 2, &len, &added, &removed);
    assert_int_equal(added, 1);   /* k; n was set and deleted: never there */
    assert_int_equal(removed, 1); /* a */
    store_hash_fixture_expect(f, len, want, 2);
    free(f);
}

static void test_find_and_iterate(void **state)
{
    const struct store_hash_kv kv[] = {KV("one", "1"), KV("two", "22"), KV("", "empty name"),
                                       KV("four", "")};
    uint8_t form[128];
    size_t flen = store_hash_fixture_form(form, 4, kv, 4);
    struct store_hash_kv got;

    (void)state;
    assert_int_equal(store_hash_check(form, flen), TERSE_OK);
    store_hash_fixture_expect(form, flen, kv, 4);
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
    f127 = store_hash_fixture_edit(NULL, 0, set, 200, NULL, 0, &len127, &added, &removed);
    assert_int_equal(added, 127);
    assert_int_equal(f127[0], 127);

    snprintf(names[199], sizeof(names[199]), "new");
    set[199].flen = 3;
    f128 = store_hash_fixture_edit(f127, len127, &set[199], 1, NULL, 0, &len128, &added, &removed);
    assert_int_equal(added, 1);
    assert_int_equal(len128, len127 + 1 + 6);
    assert_memory_equal(f128, "\x80\x01", 2);

    f = store_hash_fixture_edit(f128, len128, NULL, 0, &del, 1, &len, &added, &removed);
    assert_int_equal(removed, 1);
    assert_int_equal(f[0], 127);
    assert_int_equal(len, len128 - 1 - 7);
    free(f);
    free(f127);
    free(f128);
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
    f = store_hash_fixture_edit(NULL, 0, set, 5, NULL, 0, &len, &added, &removed);
    assert_int_equal(added, 5);
    store_hash_fixture_expect(f, len, set, 5);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a\0c", 3, &got), 1);
    assert_memory_equal(got.v, "x\0", 2);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a\0d", 3, &got), 0);
    assert_int_equal(store_hash_find(f, len, (const uint8_t *)"a", 1, &got), 1);
    assert_int_equal(got.vlen, 3);

    f2 = store_hash_fixture_edit(f, len, set2, 1, del, 1, &len2, &added, &removed);
    assert_int_equal(added, 0);
    assert_int_equal(removed, 1);
    store_hash_fixture_expect(f2, len2, want, 4);
    free(f);
    free(f2);
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
        cmocka_unit_test(test_binary_and_empty),
        cmocka_unit_test(test_pair_overhead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
