/*
 * store_hash_fixture: the hash field-list form helpers of the store_hash tests
 * (test_store_hash.c, test_store_hash_check.c, test_store_hash_model.c): a plain form writer
 * for hand-made and broken forms, an edit run and checked at every capacity that matters, and
 * the check that a form holds given fields in order.
 *
 * Linked into every tests/unit/store/test_*.c by the Makefile (the *_fixture.c files of a
 * test's folder); nothing here keeps state.
 */
#ifndef TERSE_TEST_STORE_HASH_FIXTURE_H
#define TERSE_TEST_STORE_HASH_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "store/form/store_hash.h"

/* A field and value, or a field alone, from string literals (the NUL not counted). */
#define KV(f, v) {(const uint8_t *)(f), sizeof(f) - 1, (const uint8_t *)(v), sizeof(v) - 1}
#define FIELD(f) {(const uint8_t *)(f), sizeof(f) - 1, NULL, 0}

/* Writes a form of count (which may lie) and kv[0..n) into out, independently of
 * store_hash_edit; returns its length. */
size_t store_hash_fixture_form(uint8_t *out, uint64_t count, const struct store_hash_kv *kv,
                               size_t n);
/* An output capacity large enough for editing a form of len bytes with set[0..n). */
size_t store_hash_fixture_bound(size_t len, const struct store_hash_kv *set, size_t n);
/* Runs store_hash_edit into a buffer of exactly the bound, then again at exactly the result's
 * length (same bytes) and one byte short (TERSE_ETOOBIG), each followed by a guard area that
 * must stay untouched, and checks the result. Returns it (malloc, *out_len bytes; NULL when
 * empty); *added and *removed as store_hash_edit gives them. */
uint8_t *store_hash_fixture_edit(const uint8_t *form, size_t len, const struct store_hash_kv *set,
                                 size_t n, const struct store_hash_kv *del, size_t m,
                                 size_t *out_len, size_t *added, size_t *removed);
/* Asserts the form holds exactly kv[0..n) in that order. */
void store_hash_fixture_expect(const uint8_t *form, size_t len, const struct store_hash_kv *kv,
                               size_t n);

#endif /* TERSE_TEST_STORE_HASH_FIXTURE_H */
