/*
 * store_zset: the byte form of a sorted set, the string the codec stores (compressed and
 * checksummed like any value) for a key of type zset. It is store_hash.h's form with every
 * value exactly 8 bytes, the member's score:
 *
 *   zset = n varint | (mlen varint | member | 8 varint | score: IEEE 754 double, LE) * n
 *
 * The members are unique, their scores never NaN, and the pairs in Redis's order: ascending
 * score, then ascending member bytes (memcmp, a shorter prefix first), so a rank is an index
 * and ZRANGE a slice. -0 and 0 are equal scores (ordered by member) and each keeps its sign,
 * as Redis keeps it. Being a hash form, store_hash_check finds repeated members and the
 * digest walker reads it; a zset is one such string: a read decodes it whole and a write
 * writes the next one whole, as Redis's listpack encoding does.
 *
 * Pure functions over caller-owned buffers: nothing here allocates. Every reader bounds every
 * length by the bytes it was given, so a corrupt form is reported, never read past.
 */
#ifndef TERSE_STORE_ZSET_H
#define TERSE_STORE_ZSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/form/store_hash.h"

/* Bytes of a score in the form. */
#define STORE_ZSET_SCORE_LEN 8

/* One member and its score; m points into a form or a request (borrowed). */
struct store_zset_el {
    const uint8_t *m;
    size_t mlen;
    double score;
};

/* The score a form holds in its 8 value bytes at v (inline: every walk of a chunk reads one
 * per record). */
static inline double store_zset_score(const uint8_t *v)
{
    uint64_t bits = 0;
    double d;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&bits, v, sizeof(bits)); /* the form's order: one load */
#else
    for (int i = 7; i >= 0; i--) {
        bits = (bits << 8) | v[i];
    }
#endif
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* Writes d as the 8 bytes a form holds a score in (its bits, LE). */
void store_zset_score_put(uint8_t *p, double d);

/* Member bytes alone, in the same byte order (for ZRANGEBYLEX and the set operations). */
int store_zset_member_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* Redis's order: score, then member bytes (memcmp over the shorter length, then the
 * length). <0, 0, >0. Scores must not be NaN. Inline: a scan compares every record it passes
 * and the scores alone decide all but equal ones. */
static inline int store_zset_cmp(const struct store_zset_el *a, const struct store_zset_el *b)
{
    if (a->score < b->score) {
        return -1;
    }
    if (a->score > b->score) {
        return 1;
    }
    return store_zset_member_cmp(a->m, a->mlen, b->m, b->mlen);
}

/*
 * Decodes the whole form (len bytes) into a (cap elements), pointing into form; *n gets the
 * count. Checks every length, the score width, NaN, and that each pair comes strictly after
 * the one before (so no pair twice); not that members with different scores differ, which
 * store_zset_check does. TERSE_OK, TERSE_ECORRUPT, TERSE_ETOOBIG (more than cap elements;
 * n still gets the count the form claims, so the caller can grow a and call again).
 * len 0 (no form: a missing key) decodes to n = 0.
 */
int store_zset_decode(const uint8_t *form, size_t len, struct store_zset_el *a, size_t cap,
                      size_t *n);

/* The element count a form claims (its first varint), read without walking it: TERSE_OK or
 * TERSE_ECORRUPT. */
int store_zset_count(const uint8_t *form, size_t len, uint64_t *n);

/* Checks the whole form as store_zset_decode does, plus member uniqueness (store_hash_check),
 * with no array: TERSE_OK or TERSE_ECORRUPT. The empty form and a count of 0 are refused (an
 * empty zset has no form). Bounded stack, no allocation. */
int store_zset_check(const uint8_t *form, size_t len);

/* Bytes store_zset_form_write needs for these n elements, exactly. */
size_t store_zset_form_size(const struct store_zset_el *a, size_t n);

/*
 * Writes the form of a[0..n) into out (cap bytes); *out_len gets its length (0 for n == 0).
 * a must be in store_zset_cmp order with distinct members and no NaN (not checked: such a
 * form is one store_zset_check refuses). a must not point into out. TERSE_OK, or
 * TERSE_ETOOBIG when cap is below store_zset_form_size (nothing is written past cap).
 */
int store_zset_form_write(const struct store_zset_el *a, size_t n, uint8_t *out, size_t cap,
                          size_t *out_len);

/* The index at which el goes in a[0..n) (store_zset_cmp order): the first element not
 * before it. Binary search. */
size_t store_zset_lower_bound(const struct store_zset_el *a, size_t n,
                              const struct store_zset_el *el);

/*
 * Sorts base[0..n) (items of size bytes, at most STORE_ZSET_SORT_ITEM_MAX) by cmp, in place:
 * heapsort, O(n log n), bounded stack and no allocation (qsort may allocate). Not stable:
 * callers that need ties in a given order make the order part of cmp.
 */
#define STORE_ZSET_SORT_ITEM_MAX 64
void store_zset_sort(void *base, size_t n, size_t size,
                     int (*cmp)(const void *a, const void *b));

#endif /* TERSE_STORE_ZSET_H */
