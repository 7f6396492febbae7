/*
 * store_hash: the byte form of a hash's fields, the string the codec stores (compressed and
 * checksummed like any value) for a key of type hash.
 *
 *   fields = n varint | (flen varint | field | vlen varint | value) * n
 *
 * LEB128 varints, fields unique, in insertion order (HGETALL answers in that order, as
 * Redis's listpack encoding does). A hash is one such string: a read decodes it whole and a
 * write builds the next one whole (see cmd_hash.c for what that costs).
 *
 * Pure functions over caller-owned buffers: nothing here allocates. Every reader bounds every
 * length by the bytes it was given, so a corrupt form (a snapshot's, or one that DEBUG
 * CORRUPT-VALUE altered before the checksum caught it) is reported, never read past.
 */
#ifndef TERSE_STORE_HASH_H
#define TERSE_STORE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field and its value, both pointing into the form being read. */
struct store_hash_kv {
    const uint8_t *f;
    size_t flen;
    const uint8_t *v;
    size_t vlen;
};

/* A cursor over a form. */
struct store_hash_it {
    const uint8_t *p;
    const uint8_t *end;
    uint64_t left; /* fields not yet returned */
};

/* Checks the whole form: the count, every length within the bytes, nothing left over,
 * no field twice. TERSE_OK or TERSE_ECORRUPT. The empty string is not a valid form, nor is
 * a count of 0 (an empty hash has no form: its key does not exist), nor a varint spelled
 * longer than needed (so a hash has one form). No allocation, about 64 KiB of stack; time
 * O(n) up to 5120 fields, about n^2 / 10^4 lookups beyond (see store_hash.c). */
int store_hash_check(const uint8_t *form, size_t len);

/* Opens a cursor; *n gets the field count. TERSE_OK or TERSE_ECORRUPT. Reads the count only:
 * the lengths are checked as next reaches them (a count of 0 opens, and next gives 0). */
int store_hash_open(const uint8_t *form, size_t len, struct store_hash_it *it, uint64_t *n);

/* The next field: 1 with *kv filled, 0 at the end, TERSE_ECORRUPT (negative) on a length past
 * the bytes or bytes left over after the last field. */
int store_hash_next(struct store_hash_it *it, struct store_hash_kv *kv);

/* Looks field up: 1 with *kv filled (its first occurrence; bytes after it are not read), 0
 * when absent, TERSE_ECORRUPT. */
int store_hash_find(const uint8_t *form, size_t len, const uint8_t *f, size_t flen,
                    struct store_hash_kv *kv);

/*
 * Looks field up from it's place on: 1 with *kv filled and *at at its record's first byte (the
 * bytes after the field are not read), 0 when absent (every length to the end checked, nothing
 * left over), TERSE_ECORRUPT. One tight pass: most fields cost two one-byte lengths and a
 * length compare; equal lengths compare their last 8 bytes before the rest.
 */
int store_hash_it_find(struct store_hash_it *it, const uint8_t *f, size_t flen,
                       struct store_hash_kv *kv, const uint8_t **at);

/* Bytes a form of one field costs beyond its field and value bytes, at most. */
size_t store_hash_pair_overhead(size_t flen, size_t vlen);

/*
 * Writes into out (cap bytes) the form of `form` (NULL, len 0: an empty hash) with the n pairs
 * of `set` set (a field already there keeps its place and takes the new value; a new field
 * goes last; a field given twice takes the last value) and the m fields of `del` removed.
 * *added gets the number of fields new to the hash, *removed the number of `del` fields that
 * were there. *out_len gets the form's length, 0 when no field is left (the key goes).
 * Bound for cap: len + 10 + the sum of store_hash_pair_overhead and lengths of `set` (for a
 * form with no field twice: each copy of a repeated field would take its new value).
 * TERSE_OK, TERSE_ECORRUPT (the old form), TERSE_ETOOBIG (cap too small).
 * A field both in `set` and in `del` ends up deleted (the sets apply, then the deletions): it
 * counts in *removed if it was there, in neither count if it was not. The old form is checked
 * as store_hash_check does but for field uniqueness (a loaded form was checked, an edited one
 * is unique by construction). Nothing is written past cap; out's bytes are unspecified on
 * error. No allocation, about 65 KiB of stack (see store_hash_edit.c for time).
 */
int store_hash_edit(const uint8_t *form, size_t len, const struct store_hash_kv *set, size_t n,
                    const struct store_hash_kv *del, size_t m, uint8_t *out, size_t cap,
                    size_t *out_len, size_t *added, size_t *removed);

#endif /* TERSE_STORE_HASH_H */
