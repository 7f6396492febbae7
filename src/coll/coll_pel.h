/*
 * coll_pel: a consumer group's pending entries (its PEL) as a chunked container (struct coll
 * of type COLL_PEL), in ID order, for a chunked stream (coll_stream.h) whose groups would
 * otherwise rewrite every pending entry with every write.
 *
 * A chunk holds a run of consecutive pending entries:
 *
 *   form = n varint (>= 1) | rec * n                      IDs strictly increasing
 *   rec  = ms varint | seq varint | name_len varint | name | delivery_ms varint (an int64 as
 *          its two's complement) | delivery_count varint
 *
 * LEB128 varints, minimal spelling (store_varint.h). The record names its consumer by name,
 * not by an index, so a consumer added to or removed from the group renumbers nothing here.
 * Descriptor key: the chunk's first ID (key.k ms, key.aux seq); IDs strictly increase across
 * chunks too. Counts in the tree give ranks.
 *
 * Sizes: a chunk a write makes holds at most chunk_max / 2 raw bytes (but for one record
 * bigger than that, alone). An insert that takes a chunk past it splits it at its middle
 * record (the record boundary nearest its middle byte, so names of different lengths still
 * cut it in halves; a side still past the bound, as one record bigger than it makes, is cut
 * again the same way), but an append past the last ID (XREADGROUP's usual case) that would
 * take the last chunk past it starts a new chunk instead, so appended chunks fill. A delete
 * that leaves a chunk under chunk_max / 8 merges it with a neighbour (the previous one when
 * the two fit, else the next) when the two fit in chunk_max / 2; an emptied chunk leaves the
 * tree. No merge by the compressor (merge_next NULL). Chunks are written RAW and compressed in
 * the background like any other (coll_compress_step).
 *
 * Integrity: every read goes through coll_chunk_read (XXH3-64) and checks the form against
 * its descriptor (count, first ID, order, no byte left over); a mismatch is TERSE_ECORRUPT
 * (counted with coll_env_count_corrupt) and no record of that chunk is returned. A write
 * verifies the chunk it rewrites first and leaves the container as it was on any error.
 *
 * Views: a record's name points into a chunk or the env's decode buffer, valid until the next
 * call on any container of the env. A name passed in must not be such a view (copy first).
 *
 * Cost: seek, put and del are O(log chunks + one or two chunks); from_recs, verify O(n). One
 * thread only (the env's).
 */
#ifndef TERSE_COLL_PEL_H
#define TERSE_COLL_PEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "store/form/store_stream.h"

/* One pending entry. */
struct coll_pel_rec {
    struct store_stream_id id;
    const uint8_t *name; /* its consumer's name: name_len bytes (a view, see above) */
    size_t name_len;
    int64_t delivery_ms;
    uint64_t delivery_count;
};

/* A new empty PEL, chunk_max raw bytes per chunk (> 0). TERSE_OK, TERSE_EINVAL, TERSE_ENOMEM. */
int coll_pel_create(struct coll_env *env, uint32_t chunk_max, struct coll **out);

/* A PEL of n records in strictly increasing ID order (names borrowed), built in bulk in O(n),
 * chunks filled up to chunk_max / 2 raw bytes (a record bigger than that alone). TERSE_OK
 * (*out; an empty container for n 0), TERSE_EINVAL (not increasing, chunk_max 0, or a record
 * past coll_pel_put's bound), TERSE_ENOMEM; on failure nothing is kept (*out NULL). */
int coll_pel_from_recs(struct coll_env *env, const struct coll_pel_rec *recs, size_t n,
                       uint32_t chunk_max, struct coll **out);

/* The rank of the first record whose ID is >= id (coll_count when none): *rank, and *found
 * when that record's ID is id. TERSE_OK or a status. */
int coll_pel_seek(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                  uint64_t *rank, bool *found);

/* The chunk holding record rank (< count) read: the rank of its first record, and its n
 * records decoded into *recs (grown as needed with core_realloc, *cap records; owned by the
 * caller, who frees it with coll_pel_recs_free), names borrowed from the chunk's view.
 * TERSE_OK, TERSE_EINVAL (rank past the end), TERSE_ECORRUPT, TERSE_ENOMEM. */
struct coll_pel_chunk {
    uint64_t first_rank;
    size_t n;
};
int coll_pel_read_chunk(struct coll_env *env, struct coll *c, uint64_t rank,
                        struct coll_pel_chunk *out, struct coll_pel_rec **recs, size_t *cap);
void coll_pel_recs_free(struct coll_pel_rec *recs);

/* Inserts r, or replaces the record of r->id (*replaced true; may be NULL). TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ETOOBIG (a record past a chunk's bound: a chunk's lengths are 32-bit,
 * so a record over UINT32_MAX / 4 bytes; one past chunk_max / 2 is kept, alone), TERSE_ENOMEM
 * (nothing changed). */
int coll_pel_put(struct coll_env *env, struct coll *c, const struct coll_pel_rec *r,
                 bool *replaced);

/* Removes the record of id: *found says whether there was one. TERSE_OK, TERSE_ECORRUPT,
 * TERSE_ENOMEM (nothing changed). */
int coll_pel_del(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                 bool *found);

/* Checks every chunk: forms decode, counts, keys and ID order (within and across chunks)
 * agree, raw_len and c->count right, the tree's structure. TERSE_OK, TERSE_ECORRUPT,
 * TERSE_ENOMEM. O(n). */
int coll_pel_verify(struct coll_env *env, struct coll *c);

#endif /* TERSE_COLL_PEL_H */
