/*
 * store_fixture: a shard under test, for the keyspace tests of tests/unit/store/ (test_store.c,
 * test_store_expiry.c, test_store_keyspace.c): cmocka setup and teardown around a 16-db shard,
 * teardown asserting that everything the shard allocated came back, and the helpers those
 * tests share to write, read and check it.
 *
 * Linked into every tests/unit/store/test_*.c by the Makefile (the *_fixture.c files of a
 * test's folder); a test that does not include this header just does not use it.
 */
#ifndef TERSE_TEST_STORE_FIXTURE_H
#define TERSE_TEST_STORE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define T0 1700000040000LL /* a fixed "now", unix ms, on a minute boundary */

struct store_fixture {
    struct store_shard *s;
    uint64_t mem_before; /* core_mem_used() before the shard existed */
};

/* cmocka setup: *state = a struct store_fixture holding a fresh 16-db shard (-1 if the shard
 * cannot be made). One static fixture: tests run one at a time. */
int store_fixture_setup(void **state);
/* cmocka teardown: destroys the shard and asserts core_mem_used() is back where it was. */
int store_fixture_teardown(void **state);
/* A cmocka test of fn run between the two. */
#define STORE_FIXTURE_TEST(fn) \
    cmocka_unit_test_setup_teardown(fn, store_fixture_setup, store_fixture_teardown)

/* Writes "prefix:i" into buf (cap bytes); returns its length. */
size_t store_fixture_key(char *buf, size_t cap, const char *prefix, int i);
/* Sets string key k to v in db (expiry exp, unix ms, or STORE_NO_EXPIRE / STORE_KEEP_TTL) at
 * T0, asserting TERSE_OK. */
void store_fixture_put_str(struct store_shard *s, int db, const char *k, const char *v,
                           int64_t exp);
/* store_lookup of k in db at now (no touch): the entry, or NULL. */
struct store_entry *store_fixture_get(struct store_shard *s, int db, const char *k, int64_t now);
/* Asserts e is a string entry holding exactly want. */
void store_fixture_assert_val(const struct store_entry *e, const char *want);
/* The shard's own consistency walk (store_verify), plus an independent recount of n_keys. */
void store_fixture_check_stats(struct store_shard *s);

#endif /* TERSE_TEST_STORE_FIXTURE_H */
