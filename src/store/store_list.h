/*
 * store_list: the byte form of a list's elements, the string the codec stores (compressed and
 * checksummed like any value) for a key of type list.
 *
 *   elements = n varint | (len varint | bytes) * n
 *
 * LEB128 varints (minimal spelling), head first. A list is one such string: a read decodes it
 * whole and a write builds the next one whole (see cmd_list.c for what that costs). n >= 1:
 * an empty list is no key.
 *
 * Pure functions over caller-owned buffers: nothing here allocates. Every reader bounds every
 * length by the bytes it was given, so a corrupt form is reported, never read past.
 */
#ifndef TERSE_STORE_LIST_H
#define TERSE_STORE_LIST_H

#include <stddef.h>
#include <stdint.h>

/* A cursor over a form. */
struct store_list_it {
    const uint8_t *p;
    const uint8_t *end;
    uint64_t left; /* elements not yet returned */
};

/* Checks the whole form: count >= 1, every length within the bytes, nothing left over.
 * TERSE_OK or TERSE_ECORRUPT. */
int store_list_check(const uint8_t *form, size_t len);

/* Opens a cursor; *n gets the element count. TERSE_OK or TERSE_ECORRUPT. */
int store_list_open(const uint8_t *form, size_t len, struct store_list_it *it, uint64_t *n);

/* The next element (*el, *el_len point into the form): 1, 0 at the end, TERSE_ECORRUPT
 * (negative) on a length past the bytes or bytes left over after the last element. */
int store_list_next(struct store_list_it *it, const uint8_t **el, size_t *el_len);

#endif /* TERSE_STORE_LIST_H */
