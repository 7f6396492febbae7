/*
 * store_set: writes the byte form of store_hash.h for a set: fields whose values are all empty,
 * in an order the caller chose (a set whose members are all integers is kept in ascending
 * numeric order, as Redis's intset answers; see cmd_set_store.c). It writes the same form
 * store_hash_edit does, without looking for repeats: the caller vouches that the members are
 * distinct (they come from a form, which has none), so a rewrite costs O(n) whatever n.
 *
 * Pure functions over caller-owned buffers: nothing here allocates.
 */
#ifndef TERSE_STORE_SET_H
#define TERSE_STORE_SET_H

#include <stddef.h>
#include <stdint.h>

#include "store/form/store_hash.h"

/* Bytes store_set_form_write needs for these n members, exactly. */
size_t store_set_form_size(const struct store_hash_kv *m, size_t n);

/*
 * Writes into out (cap bytes) the form of the n members m[i].f (m[i].v is ignored: every value
 * is empty), in that order; *out_len gets its length (0 for n == 0: an empty set has no form).
 * The members must be distinct (not checked; a repeat makes a form store_hash_check refuses).
 * m must not point into out. TERSE_OK, or TERSE_ETOOBIG when cap is below
 * store_set_form_size (nothing is written past cap).
 */
int store_set_form_write(const struct store_hash_kv *m, size_t n, uint8_t *out, size_t cap,
                         size_t *out_len);

/* A member and its integer value, for a set whose members are all integers. */
struct store_set_num {
    struct store_hash_kv kv; /* the member (kv.v is ignored) */
    long long v;             /* its value, as Redis's string2ll reads the member */
};

/*
 * Orders the n members a[0..n) by value, ascending (values distinct, as a set's are), and
 * writes their form into out (cap bytes) as store_set_form_write does. a[n..2n) is room the
 * merge uses: the caller provides 2n items. The longest ascending prefix stays as it is, the
 * rest is heapsorted and merged with it: O(n + k log k) for k members out of order, no
 * allocation. a's members must not point into out. TERSE_OK or TERSE_ETOOBIG (cap below
 * store_set_form_size; nothing is written past cap). a's contents are unspecified after.
 */
int store_set_form_sorted(struct store_set_num *a, size_t n, uint8_t *out, size_t cap,
                          size_t *out_len);

#endif /* TERSE_STORE_SET_H */
