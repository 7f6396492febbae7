/*
 * coll_hash_internal: what the files of the hash/set engine share (coll_hash.c: life, bulk
 * build, lookups and the helpers below; coll_hash_edit.c: puts, deletes, splits and merges;
 * coll_hash_read.c: the whole form, walks, scans, ranks and verification). Not for use outside
 * coll/.
 *
 * An entry names one record of a form being cut (a bulk build's input, a chunk being split):
 *
 *   struct coll_hash_ent: | h: the element's hash | off: the record's offset in the form |
 *                         | len: the record's bytes (flen varint | field | vlen varint | value)
 *
 * Entries sorted by (h, off) are cut into pieces [a, b); a piece's low bound is the h of its
 * first entry (but the first piece of a range takes the range's own low bound), so pieces never
 * share an h: elements of equal h always stay in one chunk.
 */
#ifndef TERSE_COLL_HASH_INTERNAL_H
#define TERSE_COLL_HASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "codec/codec_varint.h"
#include "coll/coll_hash.h"

struct coll_hash_ent {
    uint64_t h;   /* XXH3_64bits_withSeed of the field */
    uint32_t off; /* the record's offset in its form */
    uint32_t len; /* the record's bytes */
};

/* A piece of a cut: entries [a, b), their range's low bound lo. */
struct coll_hash_piece {
    size_t a, b;
    uint64_t lo;
};

/* An element's place in the hash space of the seed. */
static inline uint64_t coll_hash_seeded(uint64_t seed, const uint8_t *f, size_t flen)
{
    return XXH3_64bits_withSeed(flen != 0 ? (const void *)f : (const void *)"", flen, seed);
}

/* The element's place in c's hash space. */
static inline uint64_t coll_hash_of(const struct coll *c, const uint8_t *f, size_t flen)
{
    return coll_hash_seeded(c->seed, f, flen);
}

/* Bytes of a record of a field and a value. */
static inline size_t coll_hash_rec_size(size_t flen, size_t vlen)
{
    return codec_varint_len(flen) + flen + codec_varint_len(vlen) + vlen;
}

/* Writes a record at w; returns the byte after it. */
static inline uint8_t *coll_hash_rec_put(uint8_t *w, const uint8_t *f, size_t flen,
                                         const uint8_t *v, size_t vlen)
{
    w += codec_varint_put(w, flen);
    if (flen > 0) {
        memcpy(w, f, flen);
    }
    w += flen;
    w += codec_varint_put(w, vlen);
    if (vlen > 0) {
        memcpy(w, v, vlen);
    }
    return w + vlen;
}

/* Counts a structural failure met in a verified chunk and returns TERSE_ECORRUPT. */
int coll_hash_corrupt(struct coll_env *env);

/* The chunk whose range holds h (c not empty). */
void coll_hash_seek(const struct coll *c, uint64_t h, struct coll_it *it);

/* The upper bound of the range of the chunk at it: false when it is the last (2^64). */
bool coll_hash_range_end(const struct coll_it *it, uint64_t *end);

/*
 * The verified form of the chunk of d (*form, *len: a view, as coll_chunk_read's) and a cursor
 * on its first record; its count and bytes match d's. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM.
 */
int coll_hash_chunk_open(struct coll_env *env, const struct coll_desc *d, const uint8_t **form,
                         size_t *len, struct store_hash_it *fit);

/* Entries sorted by (h, off) over the records of src (no field twice), cut greedily into
 * chunks of at most 3/4 of chunk_bytes and appended to c (empty, or ending before the first
 * entry's h): a bulk build's last step. TERSE_OK, TERSE_ENOMEM (the chunks made stay in c). */
int coll_hash_ents_cut(struct coll_env *env, struct coll *c, const uint8_t *src,
                       const struct coll_hash_ent *e, size_t n);

/* Sorts entries by (h, off): heapsort, in place, no allocation (qsort may allocate). */
void coll_hash_ents_sort(struct coll_hash_ent *e, size_t n);

/* Bytes of the form of entries [a, b): their count and records. */
size_t coll_hash_piece_size(const struct coll_hash_ent *e, size_t a, size_t b);

/* Writes the form of entries [a, b) of src into out (coll_hash_piece_size bytes); returns its
 * length. */
size_t coll_hash_piece_write(uint8_t *out, const uint8_t *src, const struct coll_hash_ent *e,
                             size_t a, size_t b);

/* The background compressor's merge (coll_hot_bytes): the chunk at it with the next one
 * when that one is not hot (RAW or compressed) and the two fit in 3/4 of chunk_max. 1 merged
 * (it's chunk holds both; it may no longer be valid: seek again by rank), 0 nothing to do, or
 * a status (nothing changed). */
int coll_hash_merge_next(struct coll_env *env, struct coll *c, struct coll_it *it);

#endif /* TERSE_COLL_HASH_INTERNAL_H */
