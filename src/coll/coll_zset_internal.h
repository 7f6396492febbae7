/*
 * coll_zset_internal: what the files of the sorted-set engine share (coll_zset.c: the design,
 * life, the searches of the order; coll_zset_read.c: walks, ranks, the whole form;
 * coll_zset_map.c: the member map's entries; coll_zset_find.c: lookups by member, the bulk
 * build, ZSCAN, verification; coll_zset_edit.c: ZADD, ZREM, remove_range and the run rule;
 * coll_zset_stage.c: the staged edits that make a write of both containers atomic, splits and
 * merges). Not for use outside coll/.
 *
 * A record of a chunk's form (store_zset.h): mlen varint | member | 0x08 | score (8 bytes LE).
 */
#ifndef TERSE_COLL_ZSET_INTERNAL_H
#define TERSE_COLL_ZSET_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "codec/codec_varint.h"
#include "coll/coll_hash.h"
#include "coll/coll_zset.h"

/* Bytes of the record of a member of mlen bytes. */
static inline size_t coll_zset_rec_size(size_t mlen)
{
    return codec_varint_len(mlen) + mlen + 1 + STORE_ZSET_SCORE_LEN;
}

/* A member fingerprint's 8 bytes, as the map's fields hold it (LE). */
static inline void coll_zset_fp_put(uint8_t out[8], uint64_t fp)
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(fp >> (8 * i));
    }
}

static inline uint64_t coll_zset_fp_get(const uint8_t *p)
{
    uint64_t fp = 0;

    for (int i = 0; i < 8; i++) {
        fp |= (uint64_t)p[i] << (8 * i);
    }
    return fp;
}

/* Writes the record of (m, score) at w; returns the byte after it. */
static inline uint8_t *coll_zset_rec_put(uint8_t *w, const uint8_t *m, size_t mlen, double score)
{
    w += codec_varint_put(w, mlen);
    if (mlen > 0) {
        memcpy(w, m, mlen);
    }
    w += mlen;
    *w++ = STORE_ZSET_SCORE_LEN;
    store_zset_score_put(w, score);
    return w + STORE_ZSET_SCORE_LEN;
}

static inline bool coll_zset_shape_ok(const struct coll_zset_shape *shape)
{
    return shape != NULL && shape->chunk_bytes != 0;
}

static inline bool coll_zset_same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Counts a structural failure met in a verified chunk and returns TERSE_ECORRUPT. */
int coll_zset_corrupt(struct coll_env *env);

/* coll_zset_next's general case: store_hash_next's checks of every length. */
int coll_zset_next_slow(struct coll_env *env, struct store_hash_it *fit,
                        struct store_zset_el *el);

/* The next element of a cursor over a chunk's form: 1 with *el (a view), 0 at the end,
 * TERSE_ECORRUPT (counted) on a bad length, a score not 8 bytes, or NaN. Inline, with the
 * common record (a member under 128 bytes: both lengths one byte, so minimal) read here with
 * the same bounds store_hash_next checks: the scans of a write walk a few dozen a command. */
static inline int coll_zset_next(struct coll_env *env, struct store_hash_it *fit,
                                 struct store_zset_el *el)
{
    const uint8_t *p = fit->p;
    size_t room = (size_t)(fit->end - p);

    if (fit->left > 0 && room >= 2 + STORE_ZSET_SCORE_LEN && p[0] < 0x80 &&
        room - (2 + STORE_ZSET_SCORE_LEN) >= p[0] && p[1 + p[0]] == STORE_ZSET_SCORE_LEN) {
        el->m = p + 1;
        el->mlen = p[0];
        el->score = store_zset_score(p + 2 + p[0]);
        fit->p = p + 2 + STORE_ZSET_SCORE_LEN + p[0];
        fit->left--;
        return isnan(el->score) ? coll_zset_corrupt(env) : 1;
    }
    return coll_zset_next_slow(env, fit, el);
}

/*
 * The verified form of the chunk of d (*form, *len: a view, as coll_chunk_read's; peek: without
 * the hot mark) and a cursor on its first record; its bytes and count match d's, count >= 1.
 * TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM.
 */
int coll_zset_chunk_open(struct coll_env *env, const struct coll_desc *d, bool peek,
                         const uint8_t **form, size_t *len, struct store_hash_it *fit);

/* The key of a chunk whose first element has score. */
static inline struct coll_key coll_zset_key_of(double score)
{
    struct coll_key k = {coll_zset_score_key(score), 0};

    return k;
}

/*
 * The chunk where el is or would go (c not empty): the last whose first element is <= el in
 * Redis's order, or the first chunk when el comes before every element. O(log chunks) tree
 * descents and chunk reads (coll_zset.c's top). TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM.
 */
int coll_zset_locate(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                     struct coll_it *it);

/* (el's score, el's member) in the order: 1 with h->it its chunk, h->idx its index there and
 * [h->rs, h->re) its record in the chunk's form, 0 absent, TERSE_ECORRUPT, TERSE_ENOMEM. One
 * locate and one chunk. */
int coll_zset_order_has(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                        struct coll_zset_hint *h);

/* ---- the member map (coll_zset_map.c) ---------------------------------------------------- */

/* The run rule: the elements of a run of this many elements of one score or more have full map
 * entries, so a short entry is resolved by a walk of fewer elements (coll_zset_map.c's top). */
#define COLL_ZSET_RUN_FULL 16

/* m's fingerprint: the map's field for it. */
uint64_t coll_zset_fp(struct coll_env *env, const struct coll *c, const uint8_t *m,
                      size_t mlen);

/* m's score: 1 with *score (a short entry confirmed by the order), 0 absent, TERSE_ECORRUPT,
 * TERSE_ENOMEM. */
int coll_zset_map_score(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                        double *score);
/* coll_zset_map_score, filling *h: when it confirmed a short entry, located with m's chunk in
 * the order (as coll_zset_locate gives it) and its index there, so a caller need not locate m
 * again; and what the map holds at m's fingerprint, so its write need not read it again. */
int coll_zset_map_find(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       double *score, struct coll_zset_hint *h);

/* m's entry set to score: full when asked (the run rule) or when another member holds the
 * short entry of m's fingerprint, else short. present: m has an entry now (it is replaced).
 * known: what a lookup of m just found there (COLL_ZSET_MAP_*; UNKNOWN reads it), at where it
 * found it (NULL: none; coll_hash_put_at checks it still holds). TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM, TERSE_ETOOBIG; on failure the map is as it was. */
int coll_zset_map_set(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                      double score, bool full, bool present, uint8_t known,
                      const struct coll_hash_at *at);

/* m's entry removed (m has one; known and at as coll_zset_map_set's). TERSE_OK, TERSE_ECORRUPT,
 * TERSE_ENOMEM; on failure nothing changed. */
int coll_zset_map_unset(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                        uint8_t known, const struct coll_hash_at *at);

/* m's entry made full (at score, its score), if short: an element of the order about to get a
 * neighbour of its own score. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM, TERSE_ETOOBIG. */
int coll_zset_map_make_full(struct coll_env *env, struct coll *c, const uint8_t *m,
                            size_t mlen, double score);

/* The map of c (empty) built for the n records of a checked store_zset form in order: the tie
 * rule from neighbours in the form, collisions grouped. O(n log n); TERSE_OK, TERSE_ECORRUPT
 * (a member twice), TERSE_ENOMEM. */
int coll_zset_map_build(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len,
                        uint64_t n);

/* Verification: el's entry in the map has el's score (the same 8 bytes): TERSE_OK with
 * *is_short (a short entry, not a full one of el's member), TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_zset_map_claim(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                        bool *is_short);
/* Verification: every map field is 8 bytes, every value well formed, every full entry under
 * its member's fingerprint; *entries their number. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_zset_map_check(struct coll_env *env, struct coll *c, uint64_t *entries);

/* Whether the map value v (vlen bytes) has a full entry for m: 1, 0, TERSE_ECORRUPT. */
int coll_zset_map_has_full(struct coll_env *env, const uint8_t *v, size_t vlen,
                           const uint8_t *m, size_t mlen);

/* The entries of one map value (coll_zset_map.c's top), for verification and scans: calls fn
 * with each full entry (a view) and, when the value has one, the short entry (el->m NULL).
 * TERSE_OK, TERSE_ECORRUPT (a malformed value), or fn's non-zero return. */
int coll_zset_map_entries(struct coll_env *env, const uint8_t *v, size_t vlen,
                          coll_zset_each_fn *fn, void *arg);

/* ---- staged edits (coll_zset_stage.c) ---------------------------------------------------- */

struct coll_zset_undo {
    uint64_t rank0;       /* the first rank of the edited chunk (before and after the edit) */
    struct coll_desc old; /* its descriptor before; old.chunk kept until commit */
    size_t n_more;        /* descriptors inserted after it (a split's other pieces) */
    bool vanish;          /* it loses its only element: its descriptor goes at commit */
};

struct coll_zset_txn {
    struct coll_zset_undo u[2];
    size_t n;
    bool has_ins;      /* an element was inserted, at ins_rank (for a vanish's rank) */
    uint64_t ins_rank;
};

/* Where elements are in a chunk's verified form. */
struct coll_zset_spot {
    const uint8_t *form;  /* a view */
    size_t len, body;     /* its bytes; the offset of its first record */
    uint64_t n;           /* its elements */
    bool found;           /* del's record is [rs, re), index del_idx */
    size_t rs, re;
    size_t ins_at;        /* the offset ins goes at (before the first record after it) */
    uint64_t ins_idx;     /* records before ins_at */
    size_t lt_at;         /* the last record before ins_at but del's (len: none) */
    uint64_t run_before;  /* records but del's just before ins_at with ins's score */
    bool run_at_start;    /* those start at the chunk's first record but del's */
};

/* The score of the record at p (a well-formed record of a form ending at end). */
double coll_zset_rec_score(const uint8_t *p, const uint8_t *end);

/* Scans the chunk of d for del's record (NULL: none wanted; s->found) and ins's place (NULL:
 * none). TERSE_OK, TERSE_ECORRUPT (ins already there: the map disagrees), TERSE_ENOMEM. */
int coll_zset_spot_scan(struct coll_env *env, const struct coll_desc *d,
                        const struct store_zset_el *del, const struct store_zset_el *ins,
                        struct coll_zset_spot *s);
/* coll_zset_spot_scan's removal alone where a lookup has just found the record (h located,
 * the order unchanged since): no walk. */
int coll_zset_spot_known(struct coll_env *env, const struct coll_zset_hint *h,
                         struct coll_zset_spot *s);

/* Stages s's chunk (at it) without its del record (when found) and/or with ins, on t (at most
 * two stages per txn). TERSE_OK, TERSE_ENOMEM, TERSE_ETOOBIG: nothing changed (earlier stages
 * of t stay staged). */
int coll_zset_stage_spot(struct coll_env *env, struct coll *c, struct coll_zset_txn *t,
                         const struct coll_it *it, const struct coll_zset_spot *s,
                         const struct store_zset_el *ins);

/* Undoes every stage of t, last first (no allocation, no read). */
void coll_zset_txn_undo(struct coll_env *env, struct coll *c, struct coll_zset_txn *t);
/* Makes t's stages final: kept chunks freed, vanished descriptors removed. */
void coll_zset_txn_commit(struct coll_env *env, struct coll *c, struct coll_zset_txn *t);

/* The chunk holding rank, if under coll_hot_bytes / 4, merged with the neighbour making the
 * smaller chunk within 3/4 of coll_hot_bytes. Best effort: a failure changes nothing. */
void coll_zset_merge(struct coll_env *env, struct coll *c, uint64_t rank);
/* The background compressor's merge of the order (coll_hot_bytes): the chunk at it with the
 * next one when that one is not hot (RAW or compressed) and the two fit in 3/4 of chunk_max.
 * 1 merged (it may no longer be valid: seek again by rank), 0 nothing done. */
int coll_zset_merge_next(struct coll_env *env, struct coll *c, struct coll_it *it);

#endif /* TERSE_COLL_ZSET_INTERNAL_H */
