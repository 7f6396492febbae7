/*
 * store_stream: the byte form of a stream, the string the codec stores (compressed and
 * checksummed like any value) for a key of type stream, and the decoded model commands edit.
 *
 *   form    = version (1 byte, STORE_STREAM_VERSION)
 *             last_id | entries_added varint | max_deleted_id
 *             n_entries varint | entry * n_entries          IDs strictly increasing
 *             n_nodes varint | node * n_nodes              live counts summing to n_entries
 *             n_groups varint  | group * n_groups           names strictly increasing
 *   id      = ms varint | seq varint
 *   entry   = id | n_pairs varint (>= 1) | (len varint | bytes) * 2 * n_pairs
 *   group   = name | last_delivered id | entries_read+1 varint (0: unknown, Redis's -1)
 *             n_consumers varint | consumer * n             names strictly increasing
 *             n_pending varint | pending * n                IDs strictly increasing
 *   node    = live varint (>= 1) | slots varint (>= live) | lp varint
 *   name    = len varint | bytes
 *   consumer= name | seen_ms varint (int64 as its two's complement) | pending varint (its
 *             entries in the group's pending list; from version 3)
 *   pending = id | consumer index varint (< n_consumers) | delivery_ms varint (int64 as above)
 *             | delivery_count varint
 *
 * Nodes stand for Redis's listpack nodes, whose boundaries Redis's approximate trimming
 * (MAXLEN ~, MINID ~: whole nodes only) and XINFO's radix-tree-keys show: a node holds the
 * next `live` entries; `slots` counts them with those deleted from it (XDEL, an exact trim
 * inside it), which still fill it in Redis; `lp` is the size Redis's listpack of the node
 * would have but for its two leading counts (store_stream_lp_bytes adds them). An append goes
 * to the last node unless Redis's rule opens a new one (store_stream_node_full: the listpack
 * would pass stream-node-max-bytes, or its slots reached stream-node-max-entries); a node
 * whose last entry goes is gone. A chunked stream (coll_stream.h) keeps one node per chunk.
 * Version 1 forms (no lp) load with lp counted from their live entries; versions 1 and 2 (no
 * consumer pending counts) with the counts counted from the pending lists. A chunked stream's
 * meta (coll_stream.h) holds its groups' pending entries apart (coll_pel.h): its pending lists
 * are empty and its consumers' counts are those of the entries held apart
 * (store_stream_decode_meta reads it).
 *
 * LEB128 varints, minimal spelling (store_varint.h). Names order as Redis's rax iterates:
 * bytewise, a prefix first. A stream may hold no entry (XDEL, XTRIM, XGROUP CREATE MKSTREAM):
 * the key stays.
 *
 * The model (struct store_stream) is the form decoded: arrays from the allocator it was
 * given, whose byte slices (field/value pairs, names) are borrowed from the form or from the
 * caller, so the form and anything added must outlive the model. A command on a stream held
 * as one value decodes, edits and encodes the whole model; a chunked stream's model holds no
 * entry and no node (its meta: coll/coll_stream.h), and its entries are read node by node.
 * store_stream_decode checks every length, count and ordering, so a corrupt form is
 * TERSE_ECORRUPT, never a model; counts are bounded by the bytes left before anything is
 * allocated for them.
 */
#ifndef TERSE_STORE_STREAM_H
#define TERSE_STORE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"

#define STORE_STREAM_VERSION 3

/* An entry ID: milliseconds and a sequence number. */
struct store_stream_id {
    uint64_t ms;
    uint64_t seq;
};

/* One entry: its pairs as their bytes in a form, (len varint | bytes) * 2 * n_pairs. */
struct store_stream_entry {
    struct store_stream_id id;
    uint64_t n_pairs;      /* >= 1 */
    const uint8_t *pairs;  /* borrowed; pairs_len bytes */
    size_t pairs_len;
};

/* A node: the next `live` entries of the stream (README of the form above). */
struct store_stream_node {
    size_t live;  /* entries of the stream in it, >= 1 */
    size_t slots; /* entries ever appended to it, >= live */
    uint64_t lp;  /* bytes of Redis's listpack of it, without its count and deleted fields */
};

/* A consumer of a group. */
struct store_stream_consumer {
    const uint8_t *name;   /* borrowed; name_len bytes */
    size_t name_len;
    int64_t seen_ms;       /* last time it was seen (unix ms) */
    uint64_t n_pending;    /* its pending entries in the group (the edits below keep it) */
};

/* A pending (delivered, not acknowledged) entry of a group. */
struct store_stream_pending {
    struct store_stream_id id;
    size_t consumer;       /* index into the group's consumers */
    int64_t delivery_ms;   /* last delivery (unix ms) */
    uint64_t delivery_count;
};

struct store_stream_group {
    const uint8_t *name;   /* borrowed; name_len bytes */
    size_t name_len;
    struct store_stream_id last_id; /* last delivered ID */
    int64_t entries_read;  /* -1: unknown */
    struct store_stream_consumer *cons; /* sorted by name */
    size_t n_cons, cap_cons;
    struct store_stream_pending *pel;   /* sorted by ID */
    size_t n_pel, cap_pel;
};

struct store_stream {
    struct store_stream_id last_id;     /* last generated ID */
    uint64_t entries_added;             /* entries ever added */
    struct store_stream_id max_deleted; /* highest ID deleted, 0-0 when none */
    struct store_stream_entry *ents;    /* sorted by ID */
    size_t n_ents, cap_ents;
    struct store_stream_node *nodes;    /* the entries in order: live counts sum to n_ents */
    size_t n_nodes, cap_nodes;
    struct store_stream_group *groups;  /* sorted by name */
    size_t n_groups, cap_groups;
    terse_allocator alloc;              /* where the arrays come from */
    void *ext;                          /* the caller's: cmd_stream keeps a chunked stream's
                                           state here (its entries are then not in ents);
                                           init sets it NULL, nothing here reads it */
};

/* The next field or value of an entry's pairs, from *p before end: TERSE_OK with *b, *len
 * (pointing into the pairs) and *p moved past it, or TERSE_ECORRUPT (a length past end). */
int store_stream_pair_next(const uint8_t **p, const uint8_t *end, const uint8_t **b,
                           size_t *len);

/* One entry record (id | n_pairs | pairs, as in the form) from *p before end: TERSE_OK with
 * *e (pairs borrowed) and *p past it, or TERSE_ECORRUPT. */
int store_stream_entry_read(const uint8_t **p, const uint8_t *end, struct store_stream_entry *e);
/* Bytes of e's record, and the record written at out (that many bytes): returns past it. */
size_t store_stream_entry_size(const struct store_stream_entry *e);
uint8_t *store_stream_entry_put(uint8_t *out, const struct store_stream_entry *e);

/* ---- Redis's listpack node image (store_stream_node.c) ----------------------------------- */

/* Bytes lp grows by when e is appended to a node whose first entry is first (NULL: e opens
 * the node, which then counts the listpack's header and master entry too), by Redis 7.0's
 * streamAppendItem and listpack encodings. The master is the node's first live entry: exact
 * while that entry was never deleted. */
uint64_t store_stream_lp_add(const struct store_stream_entry *first,
                             const struct store_stream_entry *e);
/* The listpack's whole size: lp and the two counts (live, slots - live). */
uint64_t store_stream_lp_bytes(const struct store_stream_node *nd);
/* Redis's rule: whether e opens a new node after nd (NULL: there is none), with
 * stream-node-max-entries max_entries (0: no limit) and stream-node-max-bytes max_bytes (0:
 * Redis's 1 GiB bound). */
bool store_stream_node_full(const struct store_stream_node *nd, const struct store_stream_entry *e,
                            size_t max_entries, uint64_t max_bytes);

/* -1, 0, 1 as a is below, equal to, above b. */
int store_stream_id_cmp(const struct store_stream_id *a, const struct store_stream_id *b);

/* Byte order of two names as Redis's rax iterates them (a prefix first). */
int store_stream_name_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* An empty model (no entry, no group, IDs 0-0) allocating from alloc (borrowed; NULL: libc). */
void store_stream_init(struct store_stream *s, const terse_allocator *alloc);

/* Frees the model's arrays (not the slices it borrows) and leaves it empty. */
void store_stream_deinit(struct store_stream *s);

/*
 * Decodes form (len bytes, retained: the model borrows its slices until deinit) into s,
 * initialised here with alloc. TERSE_OK, TERSE_ECORRUPT (any length, count or order wrong,
 * bytes left over), TERSE_ENOMEM. On error s is left empty (deinit is still safe).
 */
int store_stream_decode(struct store_stream *s, const terse_allocator *alloc,
                        const uint8_t *form, size_t len);

/* store_stream_decode of a chunked stream's meta: a group with no pending entry in the form
 * may still count some per consumer (held apart, coll_pel.h). */
int store_stream_decode_meta(struct store_stream *s, const terse_allocator *alloc,
                             const uint8_t *form, size_t len);

/* The exact length of the model's form. */
size_t store_stream_size(const struct store_stream *s);

/* Writes the model's form into out (cap bytes); *out_len gets its length. TERSE_OK, or
 * TERSE_ETOOBIG when cap is below store_stream_size (nothing past cap is written). */
int store_stream_encode(const struct store_stream *s, uint8_t *out, size_t cap,
                        size_t *out_len);

/* ---- edits (each TERSE_OK or TERSE_ENOMEM, the model unchanged on error) ------------------ */

/* The index of the first entry whose ID is >= id (n_ents when none). */
size_t store_stream_seek(const struct store_stream *s, const struct store_stream_id *id);

/* Appends an entry (its ID above every entry's; pairs borrowed) to the last node, or to a new
 * one by store_stream_node_full(max_entries, max_bytes); max_bytes UINT64_MAX: by entries
 * only (an RDB load, which gives its own boundaries). */
int store_stream_append(struct store_stream *s, const struct store_stream_entry *e,
                        size_t max_entries, uint64_t max_bytes);

/* Removes the n entries from index at; nodes left without an entry go. */
void store_stream_remove(struct store_stream *s, size_t at, size_t n);

/* The group named name: its index with *found, else where it would go. */
size_t store_stream_group_find(const struct store_stream *s, const uint8_t *name, size_t len,
                               bool *found);

/* Inserts an empty group at index at (from group_find; name borrowed). */
int store_stream_group_insert(struct store_stream *s, size_t at, const uint8_t *name,
                              size_t len, struct store_stream_id last_id, int64_t entries_read);

/* Removes the group at index at. */
void store_stream_group_remove(struct store_stream *s, size_t at);

/* The consumer named name in g: its index with *found, else where it would go. */
size_t store_stream_consumer_find(const struct store_stream_group *g, const uint8_t *name,
                                  size_t len, bool *found);

/* Inserts a consumer at index at (from consumer_find; name borrowed): pending entries'
 * consumer indexes move with it. */
int store_stream_consumer_insert(struct store_stream *s, struct store_stream_group *g,
                                 size_t at, const uint8_t *name, size_t len, int64_t seen_ms);

/* Removes the consumer at index at and its pending entries; *n_pending gets how many. */
void store_stream_consumer_remove(struct store_stream_group *g, size_t at, size_t *n_pending);

/* The pending entry of id in g: its index with *found, else where it would go. */
size_t store_stream_pel_find(const struct store_stream_group *g, const struct store_stream_id *id,
                             bool *found);

/* Inserts a pending entry at index at (from pel_find). */
int store_stream_pel_insert(struct store_stream *s, struct store_stream_group *g, size_t at,
                            const struct store_stream_pending *p);

/* Replaces the pending entry at index at with p (its ID the same; its consumer may change). */
void store_stream_pel_set(struct store_stream_group *g, size_t at,
                          const struct store_stream_pending *p);

/* Removes the pending entry at index at. */
void store_stream_pel_remove(struct store_stream_group *g, size_t at);

/* Pending entries of consumer ci in g: O(1). */
size_t store_stream_consumer_pending(const struct store_stream_group *g, size_t ci);

#endif /* TERSE_STORE_STREAM_H */
