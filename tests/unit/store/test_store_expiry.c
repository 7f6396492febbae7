/*
 * Unit tests for store/'s expiry: lazy expiry on lookup and delete, store_expire_set adding,
 * changing and removing a TTL, KEEP_TTL on overwrites, and active expiry under a fake clock
 * (budgets reached deterministically, repeated cycles converging to the live set). The shard
 * fixture is store_fixture.c's.
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

static void test_lazy_expiry(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_stats st;

    store_fixture_put_str(s, 0, "t", "v", T0 + 1000);
    assert_int_equal(store_db_n_expires(s, 0), 1);
    assert_non_null(store_fixture_get(s, 0, "t", T0 + 999));
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "t", T0)), T0 + 1000);
    assert_null(store_fixture_get(s, 0, "t", T0 + 1000)); /* expiry <= now: gone */
    assert_int_equal(store_dbsize(s, 0), 0);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, 1);

    /* delete of an expired key reports 0 and counts it as expired. */
    store_fixture_put_str(s, 0, "t", "v", T0 + 1000);
    assert_int_equal(store_delete(s, 0, "t", 1, T0 + 5000), 0);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, 2);

    /* expire_set: add, change, remove; missing and expired keys give 0. */
    store_fixture_put_str(s, 0, "p", "v", STORE_NO_EXPIRE);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 50, T0), 1);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "p", T0)), T0 + 50);
    store_fixture_assert_val(store_fixture_get(s, 0, "p", T0), "v");
    assert_int_equal(store_db_n_expires(s, 0), 1);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 70, T0), 1);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "p", T0)), T0 + 70);
    assert_int_equal(store_expire_set(s, 0, "p", 1, STORE_NO_EXPIRE, T0), 1);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "p", T0)), STORE_NO_EXPIRE);
    store_fixture_assert_val(store_fixture_get(s, 0, "p", T0), "v");
    assert_int_equal(store_db_n_expires(s, 0), 0);
    assert_int_equal(store_expire_set(s, 0, "nope", 4, T0 + 50, T0), 0);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0, T0), 1); /* stored as given */
    assert_null(store_fixture_get(s, 0, "p", T0));
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 50, T0), 0);
    assert_int_equal(store_expire_set(s, 0, "p", 1, -5, T0), TERSE_EINVAL);
    store_fixture_check_stats(s);
}

static void test_keep_ttl(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;

    store_fixture_put_str(s, 0, "k", "one", T0 + 10000);
    store_fixture_put_str(s, 0, "k", "two", STORE_KEEP_TTL);
    store_fixture_assert_val(store_fixture_get(s, 0, "k", T0), "two");
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "k", T0)), T0 + 10000);
    /* Replacing without KEEP_TTL clears the expiry. */
    store_fixture_put_str(s, 0, "k", "three", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "k", T0)), STORE_NO_EXPIRE);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    /* KEEP_TTL on a new key means no expiry. */
    store_fixture_put_str(s, 0, "new", "x", STORE_KEEP_TTL);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "new", T0)), STORE_NO_EXPIRE);
    /* KEEP_TTL over an expired key does not resurrect its expiry. */
    assert_int_equal(store_set_str(s, 0, "e", 1, "a", 1, T0 + 5, T0), TERSE_OK);
    assert_int_equal(store_set_str(s, 0, "e", 1, "b", 1, STORE_KEEP_TTL, T0 + 10), TERSE_OK);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "e", T0 + 10)), STORE_NO_EXPIRE);
    /* Replacing with a new expiry sets it. */
    store_fixture_put_str(s, 0, "k", "four", T0 + 20000);
    assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "k", T0)), T0 + 20000);
    assert_int_equal(store_db_n_expires(s, 0), 1);
    store_fixture_check_stats(s);
}

/* The clock callback takes no argument, so the fake clock's state has to be file scope. */
static uint64_t fake_us;
static uint64_t fake_clock(void)
{
    /* Each read advances the clock by 10 us, so budgets are reached deterministically. */
    fake_us += 10;
    return fake_us;
}

static void test_active_expiry(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    enum { N = 20000 };
    char k[32];
    size_t total = 0;
    struct store_stats st;

    for (int i = 0; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "vol", i);
        /* 3/4 expire at T0 + 1000, 1/4 later, plus persistent keys in between. */
        int64_t exp = (i % 4 == 0) ? T0 + 1000000 : T0 + 1000;
        assert_int_equal(store_set_int(s, 2, k, kl, i, exp, T0), TERSE_OK);
        kl = store_fixture_key(k, sizeof(k), "per", i);
        assert_int_equal(store_set_int(s, 2, k, kl, i, STORE_NO_EXPIRE, T0), TERSE_OK);
    }
    assert_int_equal(store_db_n_expires(s, 2), N);
    /* Nothing is due yet: a call deletes nothing. */
    assert_int_equal(store_active_expire(s, T0, 1000000, fake_clock), 0);
    /* With no clock, one bounded sample per db. */
    total = store_active_expire(s, T0 + 2000, 0, NULL);
    assert_true(total <= 20 * 20);
    /* With a generous budget, repeated calls converge to the live set. */
    for (int round = 0; round < 10000 && store_db_n_expires(s, 2) > N / 4; round++) {
        total += store_active_expire(s, T0 + 2000, 1000000, fake_clock);
    }
    assert_int_equal(store_db_n_expires(s, 2), N / 4);
    assert_int_equal(store_dbsize(s, 2), N + N / 4);
    assert_int_equal(total, N - N / 4);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, total);
    store_fixture_check_stats(s);

    /* A tiny budget stops the cycle early. */
    for (int i = 0; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "vol", i);
        assert_int_equal(store_set_int(s, 2, k, kl, i, T0 + 3000, T0), TERSE_OK);
    }
    total = store_active_expire(s, T0 + 4000, 100, fake_clock);
    assert_true(total > 0);
    assert_true(total < N);
    store_fixture_check_stats(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_FIXTURE_TEST(test_lazy_expiry),
        STORE_FIXTURE_TEST(test_keep_ttl),
        STORE_FIXTURE_TEST(test_active_expiry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
