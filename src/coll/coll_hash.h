/*
 * coll_hash: a hash or a set as a chunked container (struct coll of type COLL_HASH or COLL_SET).
 *
 * Every element (a hash's field and its value, a set's member with an empty value) is placed by
 *
 *   h = XXH3_64bits_withSeed(field, flen, c->seed)
 *
 * and the 64-bit hash space is cut into contiguous ranges, one per chunk, in the tree's order:
 *
 *   desc:   key.k = lo_0 = 0    key.k = lo_1          key.k = lo_2   ...   key.k = lo_last
 *   range:  [0, lo_1)           [lo_1, lo_2)          [lo_2, lo_3)  ...   [lo_last, 2^64)
 *   chunk:  store_hash form     store_hash form       ...
 *           n varint | (flen varint | field | vlen varint | value) * n
 *
 * An element lives in the last chunk whose low bound is <= h, so a lookup is one descent of the
 * tree by key and one chunk, scanned linearly (inside a chunk the order is the one its last
 * rewrite left: insertion order, a split's partition order, or hash order after a bulk
 * build). Low bounds strictly increase and the first is 0; every chunk holds at least one
 * element; each descriptor's count and raw_len are its chunk's elements and form bytes;
 * c->count is the sum.
 *
 * Sizes (chunk_bytes = c->chunk_max, hot = coll_hot_bytes(c), an eighth of it): a write that
 * takes a chunk's form past hot splits it around a median of its elements' hashes, and again
 * the half holding the written element while that one is still over (so the chunk a write
 * leaves its element in holds at most hot raw bytes, but for one element bigger than that,
 * which lives alone, or elements that share one h, which cannot be told apart by range; the
 * other pieces are parts of the chunk as it was, RAW until the compressor merges them again).
 * A delete that leaves a chunk under hot / 4 merges it with the neighbouring range (the
 * smaller that fits) when the two fit in 3/4 of hot; a chunk left empty leaves the tree (the
 * next one's low bound becomes 0 if it was the first). The background compressor merges cold
 * neighbours up to 3/4 of chunk_bytes before it compresses them (coll_hash_merge_next), and a
 * bulk build (coll_hash_from_form) cuts chunks at 3/4 of chunk_bytes: a write pays for a small
 * chunk, a settled container holds big ones. No chunk of two elements or more passes
 * chunk_bytes.
 *
 * Integrity: every read goes through coll_chunk_read (the chunk's XXH3-64, checked once per
 * command turn for a RAW chunk: coll_env_turn_begin) and cross-checks the
 * form's count with the descriptor's; a mismatch is TERSE_ECORRUPT and no byte of that chunk is
 * returned. A write decodes and verifies the chunk it rewrites first, so a flipped bit is never
 * re-checksummed into validity.
 *
 * Views (struct store_hash_kv, or a value pointer and length) point into a chunk or into the
 * env's decode buffer: valid until the next call on any container of the same env, or the next
 * change to this one. Borrowed arguments (fields, values, forms) must not be such views of the
 * same env: copy first.
 *
 * Memory and time: read paths allocate nothing (but the env's decode buffer, grown once to the
 * largest chunk); a write allocates only when a chunk grows past its block, splits or merges
 * (and when the env's build buffer must grow). Every call is O(log chunks + one chunk) (a
 * split sorts the k elements of its chunk: O(k log k)), but to_form and verify (O(n)),
 * from_form (O(n log n)) and a whole walk (O(n), each chunk decoded once). One thread only
 * (the env's).
 */
#ifndef TERSE_COLL_HASH_H
#define TERSE_COLL_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "store/form/store_hash.h"

/* How a hash or set is cut. */
struct coll_hash_shape {
    uint32_t chunk_bytes; /* raw bytes a chunk holds before it is split, > 0 (the server: 4096) */
};

/* A new empty hash (type COLL_HASH) or set (COLL_SET) cut as shape says. TERSE_OK,
 * TERSE_EINVAL (another type, chunk_bytes 0), TERSE_ENOMEM. */
int coll_hash_create(struct coll_env *env, enum coll_type type,
                     const struct coll_hash_shape *shape, struct coll **out);

/*
 * The hash or set of the elements of a store_hash form (form, len bytes, borrowed: a small hash
 * or set growing past its size, one loaded or restored), built in bulk: each element's h is
 * computed, the elements sorted by h and cut into chunks at about 3/4 of chunk_bytes, with no
 * per-element tree update. O(n log n); one array of n entries from core_alloc, freed before
 * return. TERSE_OK (*out), TERSE_ECORRUPT (form is not a valid store_hash form: bad lengths,
 * bytes left over, a count of 0, a field twice, or for a set a non-empty value), TERSE_ETOOBIG
 * (form over CODEC_VALUE_MAX), TERSE_EINVAL (type, shape), TERSE_ENOMEM. On failure nothing
 * is kept and *out is NULL.
 */
int coll_hash_from_form(struct coll_env *env, enum coll_type type, const uint8_t *form,
                        size_t len, const struct coll_hash_shape *shape, struct coll **out);

/*
 * HGET, HEXISTS, SISMEMBER: looks field (flen bytes, borrowed) up. 1 with *val, *vlen the
 * value's view (either may be NULL when not wanted; a set's values are empty), 0 when absent,
 * TERSE_ECORRUPT (the chunk failed its checksum or its structure), TERSE_ENOMEM (the decode
 * buffer could not grow). One tree descent, one chunk read, a scan of that chunk.
 */
int coll_hash_get(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const uint8_t **val, size_t *vlen);

/* Flags of coll_hash_put. */
#define COLL_HASH_NX 0x1u /* only if the field is absent (HSETNX, SADD) */
#define COLL_HASH_XX 0x2u /* only if the field is present */
/* A load's put (an RDB file, RESTORE): the chunk it writes is cut past 3/4 of chunk_bytes
 * instead of past hot, so a container built by puts is held in chunks of a bulk build's size
 * (coll_hash_from_form) from the start, not in hot ones the compressor must merge first. */
#define COLL_HASH_BULK 0x4u

/* What coll_hash_put did. */
enum coll_hash_result {
    COLL_HASH_UNTOUCHED = 0, /* NX and present, or XX and absent: nothing changed */
    COLL_HASH_ADDED = 1,     /* the field is new */
    COLL_HASH_UPDATED = 2    /* the field was there and now has val (which may equal its old
                                value: then nothing was rewritten) */
};

/*
 * HSET, HSETNX, SADD...: sets field (flen bytes) to val (vlen bytes; a set takes vlen 0), both
 * borrowed, under flags (0, COLL_HASH_NX or COLL_HASH_XX, either with COLL_HASH_BULK). *result
 * says what happened. The new chunk form is built in the env's build buffer and written with
 * coll_chunk_rewrite (in place when the block has room); a chunk past hot (3/4 of chunk_bytes
 * with COLL_HASH_BULK) is split (see the top). TERSE_OK,
 * TERSE_EINVAL (both flags, a value for a set), TERSE_ETOOBIG (the element cannot fit a chunk:
 * a form over CODEC_VALUE_MAX), TERSE_ECORRUPT (the chunk it goes to failed verification:
 * nothing written), TERSE_ENOMEM. On any failure the container is exactly as it was: every new
 * chunk is made before the tree changes.
 */
int coll_hash_put(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const uint8_t *val, size_t vlen, unsigned flags, enum coll_hash_result *result);

/*
 * HDEL, SREM: removes field (flen bytes, borrowed). 1 removed, 0 absent, TERSE_ECORRUPT (its
 * chunk failed verification: nothing changed), TERSE_ENOMEM (the smaller chunk needed a new
 * block and none came: nothing changed). A chunk left under hot / 4 merges with a
 * neighbour (see the top; a neighbour that fails verification is left alone, the delete still
 * happens); an emptied chunk leaves the tree. c->count is the elements left: 0 means the key
 * should go (the caller releases c).
 */
int coll_hash_del(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen);

/*
 * A lookup that remembers where it found the field, or where it would go, so the write of the
 * same field that follows (the sorted set's member map reads a value, then writes it) takes
 * the place instead of seeking and scanning the chunk again. The place holds while the
 * container is unchanged (c->tree.edits, which every chunk or tree change counts); the writes
 * check that and seek afresh otherwise.
 */
struct coll_hash_at {
    struct coll_it it; /* the chunk */
    size_t rs, re;     /* the field's record in its form (found), else both its length */
    uint64_t edits;    /* c->tree.edits when taken */
    bool found;
    bool set;          /* false: nothing remembered (an empty container) */
};
/* coll_hash_get, filling *at with the place it found (the field's record, or its chunk's end). */
int coll_hash_get_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const uint8_t **val, size_t *vlen, struct coll_hash_at *at);
/* coll_hash_put and coll_hash_del at the place at remembered (NULL, or no longer good: as
 * those). */
int coll_hash_put_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const uint8_t *val, size_t vlen, unsigned flags, enum coll_hash_result *result,
                     const struct coll_hash_at *at);
int coll_hash_del_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const struct coll_hash_at *at);

/* Bytes coll_hash_to_form needs at most (an upper bound from c->raw; O(1)). */
size_t coll_hash_form_size(const struct coll *c);

/*
 * The whole container as one store_hash form (DUMP, conversion back to a small hash or set,
 * SORT), in hash order, into out (cap bytes): *out_len its length, 0 for an empty container
 * (an empty hash has no form). TERSE_OK, TERSE_ECORRUPT (a chunk failed verification),
 * TERSE_ETOOBIG (cap too small: coll_hash_form_size always suffices), TERSE_ENOMEM. Nothing is
 * written past cap; out's bytes are unspecified on error. O(n).
 */
int coll_hash_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len);

/* A walk over every element in hash order (HGETALL, HKEYS, HVALS, SMEMBERS): each chunk is
 * decoded once. The container must not change during the walk, and no other container of the
 * env may be read between two calls (its decode would reuse the buffer the walk reads). */
struct coll_hash_it {
    struct coll *c;           /* borrowed */
    struct coll_it tit;       /* the chunk being walked; invalid past the last */
    struct store_hash_it fit; /* inside its verified form, when loaded */
    bool loaded;              /* fit holds tit's chunk */
};
/* Starts a walk of c. TERSE_OK (reads nothing yet). */
int coll_hash_it_init(struct coll_env *env, struct coll *c, struct coll_hash_it *it);
/* 1 with the next element's views in *kv, 0 at the end, TERSE_ECORRUPT (the next chunk failed
 * verification: none of its bytes are given), TERSE_ENOMEM. */
int coll_hash_it_next(struct coll_env *env, struct coll_hash_it *it, struct store_hash_kv *kv);

/* Called by coll_hash_scan with each element's views (valid for the call; fn must not call
 * into the env). A non-zero return (a negative status) stops the scan and is returned. */
typedef int coll_hash_scan_fn(void *arg, const struct store_hash_kv *kv);

/*
 * HSCAN, SSCAN: one step of a scan from cursor (a hash value; 0 starts). Gives fn the elements
 * with h >= cursor of the chunk whose range holds cursor, then whole following chunks until at
 * least count elements were given (count 0 counts as 1); *next is the low bound of the chunk
 * after the last one given, or 0 when the walk reached the end. So each step gives every
 * element with h in [cursor, *next), and the steps of one scan cover the hash space once,
 * in disjoint intervals: an element present for the whole scan is given exactly once (Redis
 * promises at least once), whatever splits and merges happen between steps, since an element's
 * h never moves; one added or removed meanwhile is given at most once. TERSE_OK, TERSE_ECORRUPT (a
 * chunk failed: elements of earlier chunks of this step may have been given, none of its own),
 * TERSE_ENOMEM, or fn's non-zero return. O(log chunks + the chunks given).
 */
int coll_hash_scan(struct coll_env *env, struct coll *c, uint64_t cursor, size_t count,
                   coll_hash_scan_fn *fn, void *arg, uint64_t *next);

/*
 * The element at rank (0 <= rank < count) in hash order (the order of iteration): what uniform
 * random picks (HRANDFIELD, SRANDMEMBER, SPOP) draw from. TERSE_OK with *kv, TERSE_EINVAL (rank
 * out of range), TERSE_ECORRUPT, TERSE_ENOMEM. O(log chunks) + one chunk.
 */
int coll_hash_at(struct coll_env *env, struct coll *c, uint64_t rank, struct store_hash_kv *kv);

/*
 * Checks everything (tests, fuzzers, DEBUG): the tree verifies with increasing low bounds, the
 * first 0; every chunk verifies, holds a valid form (store_hash_check: no field twice) whose
 * count and bytes match its descriptor, and no more than chunk_bytes unless it cannot be split
 * (one element, or one h); every element's h lies in its chunk's range; a set's values are
 * empty; c->count and c->raw add up. TERSE_OK or TERSE_ECORRUPT. O(n); no allocation.
 */
int coll_hash_verify(struct coll_env *env, struct coll *c);

#endif /* TERSE_COLL_HASH_H */
