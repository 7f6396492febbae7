/*
 * coll_list: a list as a chunked container (struct coll of type COLL_LIST).
 *
 * The list's elements are, in order: the head's open buffer (the first elements, stored
 * reversed so that LPUSH and LPOP work at the buffer's end), the sealed chunks of the tree
 * (store_list.h form each, codec stored form, about chunk_max raw bytes), and the tail's open
 * buffer (the last elements, in order). An open record is
 *
 *   [len u32][bytes][h32 u32][len u32]     h32: the low 32 bits of XXH3_64(bytes)
 *
 * so a push appends one record and a pop takes the last one, both O(element); an open buffer
 * past one and a half chunks (bytes or elements) seals its inner chunk's worth of records
 * into a chunk of the tree, and an empty end is refilled from the nearest chunk (one decode for a chunk's worth
 * of pops) or, with no chunk left, from the other end. Reads verify every element they return
 * (open records by h32, chunks by their XXH3-64); a mismatch is TERSE_ECORRUPT and nothing of
 * the element is returned.
 *
 * Element views (const uint8_t *, length) stay valid until the next call on any container of
 * the same env (a decode reuses the env's buffer) or the next change to this list.
 */
#ifndef TERSE_COLL_LIST_H
#define TERSE_COLL_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

/* How a list is cut (Redis's list-max-listpack-size and list-compress-depth). */
struct coll_list_shape {
    uint32_t chunk_bytes; /* raw bytes a chunk holds at most (about: the element that crosses
                             the line stays in), > 0 */
    uint32_t chunk_n;     /* elements a chunk holds at most, 0: no limit */
    int keep_raw;         /* chunks at each end of the tree left uncompressed */
};

/* A new empty list cut as shape says. TERSE_OK or TERSE_ENOMEM. */
int coll_list_create(struct coll_env *env, const struct coll_list_shape *shape,
                     struct coll **out);

/* The list of the elements of a store_list form (a small list growing past its size, a list
 * loaded or restored), cut straight into chunks: its ends start empty. TERSE_OK,
 * TERSE_ECORRUPT (the form), TERSE_ENOMEM (nothing kept). */
int coll_list_from_form(struct coll_env *env, const uint8_t *form, size_t len,
                        const struct coll_list_shape *shape, struct coll **out);

/*
 * A list being built (its ends empty: one from coll_list_create or this call) gets the elements
 * of run (n bytes of store_list element records, a form without its count; borrowed) at its
 * end, cut into chunks as coll_list_from_form cuts them, so a list fed in any number of runs
 * is chunked as if it came whole. final false: the elements after the last full chunk are
 * left, and *used says how many bytes of run were taken (the caller keeps the rest in front
 * of its next run); final: every element is taken. c->count grows by the elements taken.
 * TERSE_OK, TERSE_ECORRUPT (a record past the bytes: the chunks made so far stay, *used says
 * where), TERSE_ENOMEM. An RDB load builds a big list with it (persist_rdb_rcoll.c).
 */
int coll_list_append_run(struct coll_env *env, struct coll *c, const uint8_t *run, size_t n,
                         bool final, size_t *used);

/* Raw bytes the list's elements take in store_list form (what coll_list_to_form writes):
 * decides a conversion back to one value. */
size_t coll_list_form_size(const struct coll *c);
/* Writes the list in store_list form into out (cap >= coll_list_form_size). TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ETOOBIG. */
int coll_list_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len);

/* LPUSH (left) or RPUSH of one element (len bytes, borrowed). TERSE_OK or TERSE_ENOMEM (the
 * list unchanged). */
int coll_list_push(struct coll_env *env, struct coll *c, bool left, const uint8_t *el, size_t len);

/* LPOP (left) or RPOP: 1 with the element's view, 0 when empty, TERSE_ECORRUPT (the element
 * stays), TERSE_ENOMEM (a refill could not allocate; nothing changed). */
int coll_list_pop(struct coll_env *env, struct coll *c, bool left, const uint8_t **el,
                  size_t *len);

/* The elements of the head (left) or tail open end as a store_list form, each verified: *form
 * in the env's build buffer (valid until the next call on the env), *len 0 and *n 0 when the
 * end is empty. With the tree's chunks between them, what a snapshot writes (it loads them
 * all as chunks). TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_list_end_form(struct coll_env *env, struct coll *c, bool left, const uint8_t **form,
                       size_t *len, uint64_t *n);

/* LINDEX: the element at i (0 <= i < count). TERSE_OK, TERSE_ECORRUPT, TERSE_EINVAL (i out
 * of range), TERSE_ENOMEM. */
int coll_list_index(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t **el,
                    size_t *len);

/* LSET: replaces the element at i. TERSE_OK, TERSE_EINVAL, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_list_set(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t *el,
                  size_t len);

/* LINSERT: inserts el before the element at i (i == count: at the end). Statuses as set. */
int coll_list_insert(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t *el,
                     size_t len);

/* Removes n elements from the front (or the back): LTRIM, and pops of many. TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ENOMEM. n <= count. */
int coll_list_trim(struct coll_env *env, struct coll *c, bool front, uint64_t n);

/*
 * LREM: removes the elements equal to el (el_len bytes), head to tail, but for the first skip
 * of them, at most max of them (UINT64_MAX: all). *removed gets how many went. TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ENOMEM (some may have gone: *removed says how many).
 */
int coll_list_remove(struct coll_env *env, struct coll *c, const uint8_t *el, size_t el_len,
                     uint64_t skip, uint64_t max, uint64_t *removed);

/* A cursor over the elements, forward or backward, from index start. */
struct coll_list_it {
    struct coll *c;
    bool reverse;
    int region;           /* 0 head, 1 tree, 2 tail, 3 done */
    size_t off;           /* head/tail: byte offset of the next record (see coll_list.c) */
    struct coll_it tit;   /* tree: the chunk */
    const uint8_t *form;  /* tree: the chunk's verified form */
    size_t form_len;
    uint64_t in_chunk;    /* tree: index of the next element inside the chunk */
    uint64_t chunk_n;     /* tree: elements in the chunk */
    const uint8_t *pos;   /* tree, forward: where the next element's length is */
    uint64_t left;        /* elements not yet returned */
};
/* TERSE_OK (start < count, or it is at the end), TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_list_it_init(struct coll_env *env, struct coll *c, uint64_t start, bool reverse,
                      struct coll_list_it *it);
/* 1 with the next element, 0 at the end, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_list_it_next(struct coll_env *env, struct coll_list_it *it, const uint8_t **el,
                      size_t *len);

/* Checks the list's structure and every checksum (tests, fuzzers, DEBUG): counts agree,
 * records and chunks verify, the tree verifies. TERSE_OK or TERSE_ECORRUPT. O(n). */
int coll_list_verify(struct coll_env *env, struct coll *c);

#endif /* TERSE_COLL_LIST_H */
