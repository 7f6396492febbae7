/*
 * Unit tests for store/'s whole-key operations (store_keyspace.c and store.c): RENAME, MOVE,
 * COPY, SWAPDB, FLUSHDB/FLUSHALL and random keys, with expiries carried and the memory
 * accounting checked after each. The shard fixture is store_fixture.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core_mem.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "terse/status.h"

static void test_rename(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;

    store_fixture_put_str(s, 0, "a", "va", T0 + 5000);
    store_fixture_put_str(s, 0, "b", "vb", STORE_NO_EXPIRE);
    assert_int_equal(store_rename(s, 0, "a", 1, "b", 1, T0), TERSE_OK);
    assert_null(store_fixture_get(s, 0, "a", T0));
    store_fixture_assert_val(store_fixture_get(s, 0, "b", T0), "va");
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "b", T0)), T0 + 5000);
    assert_int_equal(store_dbsize(s, 0), 1);
    assert_int_equal(store_rename(s, 0, "a", 1, "c", 1, T0), TERSE_ENOTFOUND);
    assert_int_equal(store_rename(s, 0, "b", 1, "b", 1, T0), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 0, "b", T0), "va");
    assert_int_equal(store_rename(s, 0, "b", 1, "a-longer-name", 13, T0), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 0, "a-longer-name", T0), "va");
    /* An expired source is not found. */
    assert_int_equal(store_rename(s, 0, "a-longer-name", 13, "z", 1, T0 + 5000), TERSE_ENOTFOUND);
    assert_int_equal(store_dbsize(s, 0), 0);
    store_fixture_check_stats(s);
}

static void test_move(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;

    store_fixture_put_str(s, 0, "m", "vm", T0 + 5000);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_OK);
    assert_null(store_fixture_get(s, 0, "m", T0));
    store_fixture_assert_val(store_fixture_get(s, 1, "m", T0), "vm");
    assert_int_equal(store_entry_expire(store_fixture_get(s, 1, "m", T0)), T0 + 5000);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    assert_int_equal(store_db_n_expires(s, 1), 1);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_ENOTFOUND);
    store_fixture_put_str(s, 0, "m", "other", STORE_NO_EXPIRE);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_EINVAL);
    store_fixture_assert_val(store_fixture_get(s, 0, "m", T0), "other");
    assert_int_equal(store_move(s, 0, 0, "m", 1, T0), TERSE_EINVAL);
    assert_int_equal(store_move(s, 0, 16, "m", 1, T0), TERSE_EINVAL);
    /* An expired key in dst does not block the move. */
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0 + 6000), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 1, "m", T0 + 6000), "other");
    store_fixture_check_stats(s);
}

static void test_copy(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;

    store_fixture_put_str(s, 0, "src", "payload", T0 + 5000);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 0, T0), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 0, "src", T0), "payload");
    store_fixture_assert_val(store_fixture_get(s, 0, "dst", T0), "payload");
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "dst", T0)), T0 + 5000);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 0, T0), TERSE_EINVAL);
    store_fixture_put_str(s, 0, "src", "changed", STORE_NO_EXPIRE);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 1, T0), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 0, "dst", T0), "changed");
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "dst", T0)), STORE_NO_EXPIRE);
    assert_int_equal(store_copy(s, 0, "src", 3, 5, "src", 3, 0, T0), TERSE_OK);
    store_fixture_assert_val(store_fixture_get(s, 5, "src", T0), "changed");
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "src", 3, 1, T0), TERSE_EINVAL);
    assert_int_equal(store_copy(s, 0, "nope", 4, 0, "x", 1, 1, T0), TERSE_ENOTFOUND);
    assert_int_equal(store_set_int(s, 0, "i", 1, 77, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_copy(s, 0, "i", 1, 1, "j", 1, 0, T0), TERSE_OK);
    assert_int_equal(store_entry_int(store_fixture_get(s, 1, "j", T0)), 77);
    store_fixture_check_stats(s);
}

static void test_swapdb_flush(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    char k[32];

    for (int i = 0; i < 100; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "x", i);
        assert_int_equal(store_set_int(s, 0, k, kl, i, T0 + 100, T0), TERSE_OK);
    }
    store_fixture_put_str(s, 1, "only-in-1", "v", STORE_NO_EXPIRE);
    store_swapdb(s, 0, 1);
    assert_int_equal(store_dbsize(s, 0), 1);
    assert_int_equal(store_dbsize(s, 1), 100);
    assert_int_equal(store_db_n_expires(s, 1), 100);
    assert_non_null(store_fixture_get(s, 0, "only-in-1", T0));
    assert_non_null(store_fixture_get(s, 1, "x:5", T0));
    store_swapdb(s, 0, 99); /* invalid: no-op */
    store_swapdb(s, 1, 1);
    assert_int_equal(store_dbsize(s, 1), 100);
    store_fixture_check_stats(s);
    store_flushdb(s, 1);
    assert_int_equal(store_dbsize(s, 1), 0);
    assert_int_equal(store_db_n_expires(s, 1), 0);
    assert_int_equal(store_dbsize(s, 0), 1);
    store_fixture_check_stats(s);
    store_flushall(s);
    assert_int_equal(store_dbsize(s, 0), 0);
    store_fixture_check_stats(s);
    /* Flushed dbs are usable again. */
    store_fixture_put_str(s, 1, "again", "v", STORE_NO_EXPIRE);
    assert_non_null(store_fixture_get(s, 1, "again", T0));
}

static void test_random(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    char k[32];
    int seen[4] = {0};
    struct store_entry *e;

    assert_null(store_random(s, 0, T0));
    /* A sparse table: 4096 keys inserted, all but 4 deleted without shrinking (lazily
     * expired keys are deleted by lookups, which never resize). */
    for (int i = 0; i < 4096; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "r", i);
        int64_t exp = i < 4 ? STORE_NO_EXPIRE : T0 + 10;
        assert_int_equal(store_set_int(s, 0, k, kl, i, exp, T0), TERSE_OK);
    }
    for (int i = 4; i < 4096; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "r", i);
        assert_null(store_lookup(s, 0, k, kl, T0 + 10, 0));
    }
    assert_int_equal(store_dbsize(s, 0), 4);
    assert_true(s->db[0].n_buckets * STORE_LOAD_MAX >= 4096);
    for (int i = 0; i < 400; i++) {
        e = store_random(s, 0, T0 + 10);
        assert_non_null(e);
        seen[store_entry_int(e)]++;
    }
    for (int i = 0; i < 4; i++) {
        assert_true(seen[i] > 30); /* fair-ish */
    }
    /* Only expired keys: NULL, and they get cleaned up along the way. */
    store_flushdb(s, 0);
    for (int i = 0; i < 50; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "r", i);
        assert_int_equal(store_set_int(s, 0, k, kl, i, T0 + 10, T0), TERSE_OK);
    }
    assert_null(store_random(s, 0, T0 + 10));
    assert_int_equal(store_dbsize(s, 0), 0);
    store_fixture_check_stats(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_FIXTURE_TEST(test_rename),
        STORE_FIXTURE_TEST(test_move),
        STORE_FIXTURE_TEST(test_copy),
        STORE_FIXTURE_TEST(test_swapdb_flush),
        STORE_FIXTURE_TEST(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
