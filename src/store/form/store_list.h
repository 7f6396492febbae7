/*
 * store_list: the byte form of a list's elements, the string the codec stores (compressed and
 * checksummed like any value) for a key of type list.
 *
 *   elements = n varint | (len varint | bytes) * n
 *
 * LEB128 varints (minimal spelling), head first. A small list is one such string, decoded whole
 * by a read and built whole by a write; each chunk of a chunked list is one too (coll_list.h).
 * n >= 1: an empty list is no key.
 *
 * Pure functions over caller-owned buffers: nothing here allocates. Every reader bounds every
 * length by the bytes it was given, so a corrupt form is reported, never read past; every
 * writer is bounded by the room it was given (store_list_w, store_list_splice).
 */
#ifndef TERSE_STORE_LIST_H
#define TERSE_STORE_LIST_H

#include <stddef.h>
#include <stdint.h>

/* A cursor over a form. */
struct store_list_it {
    const uint8_t *p;   /* the next element's length varint: where a run of elements starts */
    const uint8_t *end; /* the end of the form */
    uint64_t left;      /* elements not yet returned */
};

/* Checks the whole form: count >= 1, every length within the bytes, nothing left over.
 * TERSE_OK or TERSE_ECORRUPT. */
int store_list_check(const uint8_t *form, size_t len);

/* Opens a cursor; *n gets the element count. TERSE_OK or TERSE_ECORRUPT. */
int store_list_open(const uint8_t *form, size_t len, struct store_list_it *it, uint64_t *n);

/* The element count a form starts with, 0 when it does not start with one. */
uint64_t store_list_n(const uint8_t *form, size_t len);

/* The next element (*el, *el_len point into the form): 1, 0 at the end, TERSE_ECORRUPT
 * (negative) on a length past the bytes or bytes left over after the last element. The end
 * and an error stay: later calls answer the same. */
int store_list_next(struct store_list_it *it, const uint8_t **el, size_t *el_len);

/* ---- building a form -------------------------------------------------------------------- */

/* One element to write: len bytes at p (p may be NULL when len is 0). Borrowed. */
struct store_list_el {
    const uint8_t *p;
    size_t len;
};

/* Largest count prefix, bytes (a LEB128 uint64). */
#define STORE_LIST_COUNT_MAX 10

/* Bytes one element of len bytes takes in a form: its length varint and its bytes. */
size_t store_list_el_size(size_t len);

/*
 * A form being written into a caller's buffer, front to back. The count leads the form but a
 * writer learns it only at the end: init reserves room for it at the width of a hint, and
 * finish writes it, sliding the elements once when the hint's width was wrong (an exact hint
 * slides nothing). Any cap that holds the resulting form is enough, whatever the hint. Every
 * call is bounded by cap: what does not fit sets the sticky status TERSE_ETOOBIG and writes
 * nothing more. No allocation.
 */
struct store_list_w {
    uint8_t *out;   /* output buffer, cap bytes; borrowed until finish */
    size_t cap;     /* room, bytes */
    size_t len;     /* bytes filled, the count's room (head) included */
    size_t head;    /* bytes reserved at out[0..head) for the count */
    uint64_t n;     /* elements written */
    int st;         /* TERSE_OK, or TERSE_ETOOBIG once something did not fit */
};

/* Starts a form in out (cap bytes; out may be NULL when cap is 0) whose element count is
 * expected to be n_hint (any value works; the exact count moves no byte twice). */
void store_list_w_init(struct store_list_w *w, uint8_t *out, size_t cap, uint64_t n_hint);

/* Appends one element. */
void store_list_w_push(struct store_list_w *w, const uint8_t *el, size_t len);

/* Appends n whole elements given as their bytes in a form: [from, to) must be a run of
 * elements a store_list_it walked (from: its p before the first of them, to: its p after the
 * last). Copied as bytes, not re-checked. */
void store_list_w_copy(struct store_list_w *w, const uint8_t *from, const uint8_t *to,
                       uint64_t n);

/*
 * Writes the count and ends the form: *out_len gets its length, 0 when no element was written
 * (an empty list has no form: its key goes). TERSE_OK, or TERSE_ETOOBIG when the form does not
 * fit in cap (out's bytes are then unspecified).
 */
int store_list_w_finish(struct store_list_w *w, size_t *out_len);

/* Skips k elements of a cursor: TERSE_OK, or TERSE_ECORRUPT (a bad length, or fewer than k
 * elements left). */
int store_list_skip(struct store_list_it *it, uint64_t k);

/*
 * Writes into out (cap bytes) the form of the list `form` (NULL, len 0: the empty list) with
 * its elements [at, at + n_del) replaced by the n_ins elements of ins, in order: a push at
 * either end (at 0 or n, n_del 0), a pop (n_ins 0), LSET (n_del 1, n_ins 1), an insert
 * (n_del 0). *out_len gets the form's length, 0 when no element is left.
 * Bound for cap: len + STORE_LIST_COUNT_MAX + the sum of store_list_el_size of ins.
 * The old form is read whole (every length checked, nothing left over), so a corrupt form is
 * TERSE_ECORRUPT, never copied. TERSE_OK, TERSE_ECORRUPT, TERSE_EINVAL (at + n_del past the
 * list's end), TERSE_ETOOBIG (cap too small). No allocation; time O(len + inserted bytes).
 */
int store_list_splice(const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                      const struct store_list_el *ins, size_t n_ins, uint8_t *out, size_t cap,
                      size_t *out_len);

/*
 * Writes into out (cap bytes) the form of the elements [at, at + n_keep) of `form` (LTRIM,
 * and a pop of many: the rest of the list). Bound for cap: len. *out_len 0 when n_keep is 0.
 * Statuses as store_list_splice (TERSE_EINVAL: at + n_keep past the end).
 */
int store_list_range(const uint8_t *form, size_t len, uint64_t at, uint64_t n_keep,
                     uint8_t *out, size_t cap, size_t *out_len);

/* Counts the elements of `form` equal to the len bytes at el: TERSE_OK with *count, or
 * TERSE_ECORRUPT. */
int store_list_count(const uint8_t *form, size_t len, const uint8_t *el, size_t el_len,
                     uint64_t *count);

/*
 * LREM's edit: writes into out (cap bytes) the form of `form` without the elements equal to
 * el, head to tail, but for the first `skip` of them, and at most `max` of them (UINT64_MAX:
 * no limit). *removed gets how many went (0 on error); *out_len 0 when none is left. Bound
 * for cap: len (the result is never longer). TERSE_OK, TERSE_ECORRUPT, TERSE_ETOOBIG. No
 * allocation; one pass.
 */
int store_list_remove(const uint8_t *form, size_t len, const uint8_t *el, size_t el_len,
                      uint64_t skip, uint64_t max, uint8_t *out, size_t cap, size_t *out_len,
                      uint64_t *removed);

#endif /* TERSE_STORE_LIST_H */
