/*
 * coll_zset_internal: what the files of the sorted-set engine share (coll_zset.c: the design,
 * life, bulk build, the searches and lookups; coll_zset_edit.c: staged edits, ZADD, ZREM,
 * remove_range, splits and merges; coll_zset_read.c: walks, the whole form, verification). Not
 * for use outside coll/. coll_zset_stage.c: the staged edits that make a write of both
 * containers atomic, splits and merges.
 *
 * A record of a chunk's form (store_zset.h): mlen varint | member | 0x08 | score (8 bytes LE).
 */
#ifndef TERSE_COLL_ZSET_INTERNAL_H
#define TERSE_COLL_ZSET_INTERNAL_H

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

/* The 8 bytes of a score as the forms and the map hold it (its bits as given, LE). */
static inline void coll_zset_score_put(uint8_t *p, double score)
{
    uint64_t bits;

    memcpy(&bits, &score, sizeof(bits));
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(bits >> (8 * i));
    }
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
    coll_zset_score_put(w, score);
    return w + STORE_ZSET_SCORE_LEN;
}

static inline bool coll_zset_same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* Counts a structural failure met in a verified chunk and returns TERSE_ECORRUPT. */
int coll_zset_corrupt(struct coll_env *env);

/* The next element of a cursor over a chunk's form: 1 with *el (a view), 0 at the end,
 * TERSE_ECORRUPT (counted) on a bad length, a score not 8 bytes, or NaN. */
int coll_zset_next(struct coll_env *env, struct store_hash_it *fit, struct store_zset_el *el);

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

/* The map's score of m: 1 with *score, 0 absent, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_zset_map_score(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                        double *score);

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
};

/* The score of the record at p (a well-formed record of a form ending at end). */
double coll_zset_rec_score(const uint8_t *p, const uint8_t *end);

/* Scans the chunk of d for del's record (NULL: none wanted; s->found) and ins's place (NULL:
 * none). TERSE_OK, TERSE_ECORRUPT (ins already there: the map disagrees), TERSE_ENOMEM. */
int coll_zset_spot_scan(struct coll_env *env, const struct coll_desc *d,
                        const struct store_zset_el *del, const struct store_zset_el *ins,
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
