/*
 * coll_stream: a stream as a chunked container (struct coll of type COLL_STREAM).
 *
 * One chunk is one of Redis's stream nodes (store_stream.h: the boundaries Redis's listpacks
 * would have, by stream-node-max-bytes and stream-node-max-entries), in the tree in ID order,
 * each descriptor keyed by its first entry's ID (ms, seq) and counting its live entries. A
 * node's form is
 *
 *   live varint (>= 1) | slots varint (>= live) | lp varint | entry * live
 *
 * with the entries as the stream form writes them (store_stream_entry_put), IDs strictly
 * increasing. Everything else a stream has (last ID, entries added, max deleted ID, the
 * groups with their consumers and pending entries) is the stream form of the stream with no
 * entry and no node, in c->meta: one chunk outside the tree, rewritten by a command that
 * changes it (so a write to a group costs the groups' size, not the entries').
 *
 * An XADD rewrites the last node or starts one (O(node)); a read seeks its first ID in
 * O(log n) and decodes the nodes it returns entries from; an XDEL or a trim rewrites the
 * nodes it takes entries from and drops those it empties, whole. Reads verify every chunk
 * they use (coll_chunk_read). Views of entries point into a chunk or the env's decode buffer:
 * valid until the next call on any container of the env.
 */
#ifndef TERSE_COLL_STREAM_H
#define TERSE_COLL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "store/form/store_stream.h"

/* A new stream of the model s's entries, nodes and the rest (one chunk per node, the rest in
 * its meta chunk). chunk_max: the raw bytes the compressor's steps assume. TERSE_OK,
 * TERSE_ENOMEM, TERSE_ETOOBIG (a node past a chunk's 4 GiB). */
int coll_stream_from_model(struct coll_env *env, const struct store_stream *s,
                           uint32_t chunk_max, struct coll **out);
/* The meta form, verified (*form: a view valid until the next call on the env). TERSE_OK,
 * TERSE_ECORRUPT. */
int coll_stream_meta(struct coll_env *env, struct coll *c, const uint8_t **form, size_t *len);
/* A snapshot's meta chunk as it was held (stored: a codec stored form, len bytes, verified on
 * first read), for an empty stream made by coll_stream_create. TERSE_OK, TERSE_ECORRUPT (the
 * header does not parse, or c has a meta), TERSE_ENOMEM. */
int coll_stream_adopt_meta(struct coll_env *env, struct coll *c, const uint8_t *stored,
                           size_t len);
/* A new stream with no meta and no node (for a load that adopts them). */
int coll_stream_create(struct coll_env *env, uint32_t chunk_max, struct coll **out);

/* Replaces the meta form (a stream form with no entry and no node). TERSE_OK, TERSE_ENOMEM. */
int coll_stream_set_meta(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len);

/* Appends e (its ID above every entry's) to the last node or a new one, by
 * store_stream_node_full. TERSE_OK, TERSE_ECORRUPT (the last node), TERSE_ENOMEM (nothing
 * changed). */
int coll_stream_append(struct coll_env *env, struct coll *c, const struct store_stream_entry *e,
                       size_t max_entries, uint64_t max_bytes);

/* The rank of the first entry whose ID is >= id (coll_count when none): *rank. TERSE_OK or a
 * status. */
int coll_stream_seek(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                     uint64_t *rank);

/* The node holding entry rank (< count) read: its header, the rank of its first entry, and
 * its entries decoded into *ents (grown as needed, *cap entries; owned by the caller, who
 * frees it with coll_stream_ents_free), their pairs borrowed from the chunk's view. */
struct coll_stream_node {
    struct store_stream_node nd;
    uint64_t first_rank;
    size_t n; /* entries in *ents: nd.live */
};
int coll_stream_read_node(struct coll_env *env, struct coll *c, uint64_t rank,
                          struct coll_stream_node *out, struct store_stream_entry **ents,
                          size_t *cap);

/* Frees an entry array coll_stream_read_node grew. NULL-safe. */
void coll_stream_ents_free(struct store_stream_entry *ents);

/* Removes the n entries from rank on (rank + n <= count): a node left with none goes, the
 * others keep their slots and lp (Redis marks entries deleted in place). TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ENOMEM (the entries before the failing node are gone). */
int coll_stream_remove(struct coll_env *env, struct coll *c, uint64_t rank, uint64_t n);

/* The whole stream form (DUMP, DEBUG DIGEST, RDB files): its size, and the form written
 * into out (cap >= the size). TERSE_OK, TERSE_ECORRUPT, TERSE_ETOOBIG. */
size_t coll_stream_form_size(const struct coll *c);
int coll_stream_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                        size_t *out_len);

/* Checks every chunk and the meta: forms decode, counts, keys and ID order agree, the last
 * entry is not above the last ID. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM. O(n). */
int coll_stream_verify(struct coll_env *env, struct coll *c);

#endif /* TERSE_COLL_STREAM_H */
