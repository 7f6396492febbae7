/*
 * coll_zset: a sorted set as a chunked container (struct coll of type COLL_ZSET), in Redis's
 * order (ascending score, then member bytes: store_zset_cmp).
 *
 * Two containers of one env make a sorted set:
 *
 *   c (COLL_ZSET): the ordered chunks. Each chunk is a store_zset.h form of a run of
 *                  consecutive elements in Redis's order; descriptor key.k is the order-
 *                  preserving image of the chunk's first score (coll_zset_score_key), key.aux 0.
 *                  Counts in the tree give ranks: O(log chunks) to find rank r.
 *   c->aux (COLL_HASH, coll_hash.h): the member map, keyed by each member's 64-bit
 *                  fingerprint: its score (8 bytes, IEEE 754 LE as in a store_zset form) for
 *                  most members, whose bytes are then kept only in the order; the member
 *                  itself too for members of long runs of one score and fingerprint
 *                  collisions (coll_zset_map.c). ZSCORE and the first step of ZADD, ZREM and
 *                  ZRANK are one lookup here (and one ordered descent to confirm a member
 *                  known by its fingerprint).
 *
 * An element is found in the ordered part by its (score, member): a descent of the tree by
 * key.k to the last chunk whose first score is <= the score, then, when the scores tie at
 * chunk boundaries (runs of one score crossing chunks), by a binary search over the ranks of
 * that run reading the first element of each probed chunk: O(log n) chunk reads, never a walk
 * of the run (coll_zset.c's top). A chunk a write makes holds at most hot = coll_hot_bytes(c)
 * raw bytes, an eighth of chunk_bytes (but for one element bigger than that, alone): split at
 * its middle when a write takes it past hot; one left under hot / 4 merges with a neighbour
 * when the two fit in 3/4 of hot; an emptied chunk leaves the tree. The background compressor
 * merges cold neighbours up to 3/4 of chunk_bytes (coll_zset_merge_next), and a bulk build
 * cuts at 3/4 of chunk_bytes; no chunk of two elements or more passes chunk_bytes.
 *
 * Integrity: every read goes through coll_chunk_read (the chunk's XXH3-64, once per command
 * turn for a RAW chunk) and checks the form
 * against its descriptor's count; a mismatch is TERSE_ECORRUPT and no byte of that chunk is
 * returned. A write verifies what it rewrites first. The map and the order agree on every
 * member and score; an operation that fails part way leaves both as they were.
 *
 * Lifetime: coll_destroy, coll_release (lazy free), coll_copy, coll_mem, coll_corrupt and the
 * background compressor handle c->aux with c (coll.c): a caller holds only c. coll_count(c) is
 * the number of members.
 *
 * Views (struct store_zset_el's m) point into a chunk or into the env's buffers: valid until the
 * next call on any container of the env. Borrowed arguments must not be such views (copy first).
 *
 * Cost: every call is O(log chunks + a bounded number of chunks), but remove_range (O(log n +
 * M)), to_form and verify (O(n)) and from_form (O(n)). One thread only (the env's).
 */
#ifndef TERSE_COLL_ZSET_H
#define TERSE_COLL_ZSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "coll/coll_hash.h"
#include "store/form/store_zset.h"

struct coll_zset_shape {
    uint32_t chunk_bytes; /* raw bytes a chunk holds before it is split, > 0 (the server: 4096) */
};

/* The order-preserving image of a score (not NaN): a < b as doubles iff key(a) < key(b) as
 * unsigned integers, -0 and 0 giving one key. */
uint64_t coll_zset_score_key(double score);

/* A new empty sorted set. TERSE_OK, TERSE_EINVAL (chunk_bytes 0), TERSE_ENOMEM. */
int coll_zset_create(struct coll_env *env, const struct coll_zset_shape *shape,
                     struct coll **out);

/* The sorted set of a store_zset form (borrowed; store_zset_decode's checks: sorted, no pair
 * twice, no NaN; and no member twice under different scores), built in bulk in O(n).
 * TERSE_OK (*out), TERSE_ECORRUPT, TERSE_ETOOBIG (over CODEC_VALUE_MAX), TERSE_EINVAL,
 * TERSE_ENOMEM; on failure nothing is kept. */
int coll_zset_from_form(struct coll_env *env, const uint8_t *form, size_t len,
                        const struct coll_zset_shape *shape, struct coll **out);

/* ZSCORE: 1 with *score, 0 absent, TERSE_ECORRUPT, TERSE_ENOMEM. One map lookup, and for a
 * member held by its fingerprint one ordered descent to confirm it. */
int coll_zset_score(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                    double *score);

/* Where a lookup found a member in the order, for the write that follows it (ZADD's
 * COLL_ZSET_KNOWN_AT): valid until c next changes. */
struct coll_zset_hint {
    struct coll_it it; /* the member's chunk, when located */
    uint64_t idx;      /* its index there */
    size_t rs, re;     /* its record's bytes in the chunk's form */
    bool located;
    uint8_t map;       /* what the map holds at its fingerprint: COLL_ZSET_MAP_* */
    struct coll_hash_at map_at; /* where the map's lookup left the fingerprint (its write's) */
};
#define COLL_ZSET_MAP_UNKNOWN 0 /* anything: read it */
#define COLL_ZSET_MAP_VACANT 1  /* nothing */
#define COLL_ZSET_MAP_ALONE 2   /* the member's short entry alone */
/* coll_zset_score, filling *hint. */
int coll_zset_score_hint(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                         double *score, struct coll_zset_hint *hint);

/* What coll_zset_add did. */
enum coll_zset_result {
    COLL_ZSET_UNTOUCHED = 0, /* present with that score, or refused by a flag */
    COLL_ZSET_ADDED = 1,
    COLL_ZSET_UPDATED = 2 /* present, its score changed */
};
#define COLL_ZSET_NX 0x1u /* only add new members */
#define COLL_ZSET_XX 0x2u /* only update existing ones */
#define COLL_ZSET_GT 0x4u /* update only to a greater score (new members are still added) */
#define COLL_ZSET_LT 0x8u /* update only to a lesser score */
/* The caller has just looked the member up (coll_zset_score), so the map is not read again:
 * KNOWN_ABSENT, or KNOWN_AT with *old its score on entry. One of the two at most. */
#define COLL_ZSET_KNOWN_ABSENT 0x10u
#define COLL_ZSET_KNOWN_AT 0x20u

/* ZADD of one member at score (not NaN) under flags: *result, and *old the previous score when
 * the member was present (left alone otherwise). Moving a member is a remove and an insert of
 * the ordered part and one map write. TERSE_OK, TERSE_EINVAL (NaN, NX with XX/GT/LT, GT with
 * LT), TERSE_ETOOBIG, TERSE_ECORRUPT (nothing changed), TERSE_ENOMEM (nothing changed). */
int coll_zset_add(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                  double score, unsigned flags, enum coll_zset_result *result, double *old);
/* coll_zset_add with KNOWN_AT and the hint of the lookup that found the member (NULL: none),
 * so a move need not locate it again. */
int coll_zset_add_hint(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       double score, unsigned flags, enum coll_zset_result *result, double *old,
                       const struct coll_zset_hint *hint);

/* ZREM of one member: 1 removed, 0 absent, TERSE_ECORRUPT, TERSE_ENOMEM (nothing changed). */
int coll_zset_rem(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen);

/* ZRANK: 1 with *rank (0-based, ascending) and *score, 0 absent, TERSE_ECORRUPT,
 * TERSE_ENOMEM. */
int coll_zset_rank(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                   uint64_t *rank, double *score);

/* The first rank whose score is >= score (> when exclusive); coll_count(c) when none.
 * TERSE_OK, TERSE_EINVAL (NaN), TERSE_ECORRUPT, TERSE_ENOMEM. score may be +-inf. */
int coll_zset_seek_score(struct coll_env *env, struct coll *c, double score, bool exclusive,
                         uint64_t *rank);

/* The first rank whose member is >= m (> when exclusive) in member order; meaningful when every
 * score is equal (ZRANGEBYLEX's premise, as in Redis). coll_count(c) when none. TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_zset_seek_lex(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       bool exclusive, uint64_t *rank);

/* A walk by rank from rank `from`, ascending or (reverse) descending; each chunk decoded once.
 * The container must not change during the walk, and no other container of the env may be read
 * between two calls. */
struct coll_zset_it {
    struct coll *c;                /* borrowed */
    struct coll_it tit;            /* the chunk being walked */
    struct store_hash_it fit;      /* forward: the cursor in its form, when loaded */
    const uint8_t *form;           /* its verified form (a view), when loaded */
    size_t form_len;
    uint64_t idx;                  /* the next element's index inside the chunk */
    uint64_t left;                 /* elements left in the walk */
    bool reverse, loaded;
    struct store_zset_el buf[64];  /* a reverse walk's decoded window (no allocation): the
                                      chunk's elements idx + 1 - buf_at .. idx are buf[0..buf_at) */
    size_t buf_n, buf_at;
};
/* Starts at rank from (>= coll_count: an empty walk). TERSE_OK. */
int coll_zset_it_init(struct coll_env *env, struct coll *c, uint64_t from, bool reverse,
                      struct coll_zset_it *it);
/* 1 with the next element in *el, 0 at the end, TERSE_ECORRUPT, TERSE_ENOMEM. */
int coll_zset_it_next(struct coll_env *env, struct coll_zset_it *it, struct store_zset_el *el);

/* Called by coll_zset_remove_range with each element before it goes (views valid for the call;
 * fn must not call into the env). A non-zero return stops before that element and is returned. */
typedef int coll_zset_each_fn(void *arg, const struct store_zset_el *el);

/* ZREMRANGEBYRANK/SCORE/LEX, ZPOPMIN/MAX, ZMPOP: removes ranks [start, start + n) (clipped to
 * the count), from the map too, calling fn (may be NULL) on each in ascending order before it
 * goes. Whole chunks inside the range leave the tree without being rewritten (read once, for fn
 * and the map); the two boundary chunks are rewritten. *removed gets the number removed, on
 * every return. Not atomic as a whole: on any failure the first *removed elements of the range
 * are gone from both containers and the others are in both, as they were. TERSE_OK,
 * TERSE_ECORRUPT (a chunk failed: the elements before it are removed, fn saw exactly those;
 * or the map failed on an element, which fn saw and which stays), TERSE_ENOMEM (likewise: the
 * chunk could not be copied, or the map's delete of an element fn saw failed), or fn's
 * return. */
int coll_zset_remove_range(struct coll_env *env, struct coll *c, uint64_t start, uint64_t n,
                           coll_zset_each_fn *fn, void *arg, uint64_t *removed);

/*
 * ZSCAN: one step of a scan from cursor (0 starts) over the member map's hash ranges, as
 * coll_hash_scan's over a hash (its guarantees: the steps of one scan give every member present
 * for the whole scan exactly once, whatever moves meanwhile, since a member's place is its
 * fingerprint's): fn gets each member with its score (views valid for the call; fn must not
 * call into the env), *next the cursor after (0 at the end). A short entry is resolved by one
 * descent of the order by its score. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM, or fn's non-zero
 * return. O(log n + the map chunks given, each entry a descent).
 */
int coll_zset_scan(struct coll_env *env, struct coll *c, uint64_t cursor, size_t count,
                   coll_zset_each_fn *fn, void *arg, uint64_t *next);

/* The element at rank (0 <= rank < count; ZRANDMEMBER's uniform picks): TERSE_OK with *el (a
 * view), TERSE_EINVAL (rank out of range), TERSE_ECORRUPT, TERSE_ENOMEM. O(log chunks) + one
 * chunk. */
int coll_zset_at(struct coll_env *env, struct coll *c, uint64_t rank, struct store_zset_el *el);

/* Bytes coll_zset_to_form needs at most (O(1)). */
size_t coll_zset_form_size(const struct coll *c);

/* The whole sorted set as one store_zset form (DUMP, SORT, the algebra, conversion back to one
 * value) into out (cap bytes), in order: TERSE_OK with *out_len (0 when empty), TERSE_ECORRUPT,
 * TERSE_ETOOBIG (cap too small), TERSE_ENOMEM. O(n). */
int coll_zset_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len);

/* The form of the member map's chunks (coll_zset_map.c: fingerprints, full entries where
 * needed), as snapshots name it in their map chunks' aux; 0 names the map of members with
 * their scores that terse wrote before, which a load rebuilds (coll_zset_map_rebuild). */
#define COLL_ZSET_MAP_FORM 1

/* The member map of c, empty (a snapshot's old map left out), built from its order: O(n log n),
 * one form of the whole set and one array of n entries allocated and freed. TERSE_OK,
 * TERSE_ECORRUPT (a member twice), TERSE_ENOMEM. */
int coll_zset_map_rebuild(struct coll_env *env, struct coll *c);

/* Checks everything (tests, fuzzers): both containers verify (coll_hash_verify for the map),
 * every chunk's form is sorted, the chunks in order with key.k the image of their first
 * score, no chunk over chunk_bytes unless it holds one element, counts and raw bytes add up,
 * and the map holds exactly the members with their scores (the same 8 bytes). TERSE_OK,
 * TERSE_ECORRUPT, or TERSE_ENOMEM (the env's build buffer, where each chunk's form is copied
 * while the map is read, could not grow). O(n). */
int coll_zset_verify(struct coll_env *env, struct coll *c);

#endif /* TERSE_COLL_ZSET_H */
