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
 * changes it (so a write to a group costs the groups' size, not the entries'). The groups'
 * pending entries are not in it: each group's are a COLL_PEL container (coll_pel.h), chained
 * from c->aux in the meta's group order (coll_stream_pel), and the meta keeps each consumer's
 * count of them; an XREADGROUP, XACK or XCLAIM costs the pending entries it touches, not the
 * group's. The paths that want the stream whole (coll_stream_to_form, snapshots) write them
 * back inline (coll_stream_meta_full).
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
/* After a load adopted the meta (and the nodes): the groups' pending entries, which a
 * snapshot's meta holds inline, moved into their PELs (one per group, coll_stream_pel) and the
 * meta stored without them. TERSE_OK, TERSE_ECORRUPT, TERSE_ENOMEM. O(pending entries). */
int coll_stream_adopt_pels(struct coll_env *env, struct coll *c);
/* A new stream with no meta and no node (for a load that adopts them). */
int coll_stream_create(struct coll_env *env, uint32_t chunk_max, struct coll **out);

/* Replaces the meta form (a stream form with no entry and no node). TERSE_OK, TERSE_ENOMEM. */
int coll_stream_set_meta(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len);
/* Stores the meta form of s as c's: s's form with no entry, no node and no pending entry (its
 * groups' PELs hold those; their counts stay in the consumers), built in the build buffer.
 * TERSE_OK, TERSE_ENOMEM. */
int coll_stream_meta_store(struct coll_env *env, struct coll *c, const struct store_stream *s);

/* Appends a whole node after the last (an RDB load keeps its file's node boundaries): nd's
 * live entries of ents (borrowed; nd->live >= 1, slots >= live, lp as the file's listpack
 * gives it), their IDs strictly increasing and above every entry's (the caller's to check).
 * One chunk, pending for the compressor as coll_stream_from_model's. TERSE_OK, TERSE_ENOMEM,
 * TERSE_ETOOBIG (past a chunk's 4 GiB): nothing changed on failure. */
int coll_stream_append_node(struct coll_env *env, struct coll *c,
                            const struct store_stream_node *nd,
                            const struct store_stream_entry *ents);

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
 * entry is not above the last ID, the PELs verify (coll_stream_pels_verify). TERSE_OK,
 * TERSE_ECORRUPT, TERSE_ENOMEM. O(n). */
int coll_stream_verify(struct coll_env *env, struct coll *c);

/* ---- the groups' PELs (coll_stream_pel.c) -------------------------------------------------- */

/* The PEL of the meta's group gi (NULL past the last), and how many there are. */
struct coll *coll_stream_pel(struct coll *c, size_t gi);
size_t coll_stream_n_pels(const struct coll *c);
/* A new empty PEL for a group inserted at gi (XGROUP CREATE), or the PEL of the group at gi
 * dropped (XGROUP DESTROY: released, a big one freed in bounded steps). TERSE_OK, ENOMEM. */
int coll_stream_pel_add(struct coll_env *env, struct coll *c, size_t gi);
void coll_stream_pel_drop(struct coll_env *env, struct coll *c, size_t gi);
/* The meta's form with every group's pending entries inline, as a stream form with no entry
 * (a snapshot's meta chunk, coll_stream_to_form's groups): *out the caller's, freed with
 * coll_stream_meta_full_free. TERSE_OK, TERSE_ECORRUPT (a PEL fails, names a consumer the group lacks, or the
 * counts disagree), TERSE_ENOMEM. O(pending entries). */
int coll_stream_meta_full(struct coll_env *env, struct coll *c, uint8_t **out, size_t *len);
/* Frees what coll_stream_meta_full made. NULL-safe. */
void coll_stream_meta_full_free(uint8_t *form);
/* Every PEL verified, one per group, their records' consumers the group's and the consumers'
 * counts theirs. O(pending entries). */
int coll_stream_pels_verify(struct coll_env *env, struct coll *c);
/* The PELs of s's groups built from their pending lists and chained after c's (a new stream's,
 * or a load's). TERSE_OK, TERSE_ENOMEM (those built so far stay chained). */
int coll_stream_pels_from_model(struct coll_env *env, struct coll *c,
                                const struct store_stream *s);

#endif /* TERSE_COLL_STREAM_H */
