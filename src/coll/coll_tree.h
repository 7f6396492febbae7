/*
 * coll_tree: the spine of a chunked container, a counted B+tree of chunk descriptors.
 *
 * A big hash, list, set, sorted set or stream is cut into chunks of a few KiB (coll_chunk.h);
 * the tree keeps one descriptor per chunk, in the container's order, and finds the chunk that
 * holds a position (by counts) or a key (by the type's comparison) in O(log n):
 *
 *   root (inner)     [ total | child, total, first key ] x n
 *                      /                 |                  \
 *   inner            ...                ...                 ...
 *                    /                   |                     \
 *   leaves   [desc desc ... desc] <-> [desc ... desc] <-> ... (linked both ways)
 *
 * A descriptor names its chunk and carries its element count, its decoded bytes and the
 * type's key of its first element (two 64-bit words: a hash range's low bound, an order-
 * preserving score and a pointer to a copy of the first member, a stream ID). Every inner
 * entry keeps its subtree's element total and a copy of its first descriptor's key, so a rank
 * or a key is found from the root down without visiting a leaf it does not end in.
 *
 * Nodes hold up to COLL_TREE_FAN entries and, but the root, at least COLL_TREE_FAN / 4: a
 * full leaf splits in two, one that falls under the minimum takes from or merges with a
 * neighbour. Each node is one allocation of coll_tree_node_size() bytes through the tree's
 * allocator; t->bytes counts them all.
 *
 * The tree never looks inside a chunk: counts and keys are what the caller sets. Nothing here
 * is checksummed: the tree is structural memory, like the key index, cross-checked by
 * coll_tree_verify in tests and fuzzers. One thread only.
 */
#ifndef TERSE_COLL_TREE_H
#define TERSE_COLL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COLL_TREE_FAN 32
#define COLL_TREE_MIN (COLL_TREE_FAN / 4)

struct coll_chunk;

/* The type's key of a chunk's first element. */
struct coll_key {
    uint64_t k;   /* primary order (hash range low bound, order-preserving score, stream ms) */
    uint64_t aux; /* secondary (a first member's copy, a stream seq); 0 when unused */
};

struct coll_desc {
    struct coll_chunk *chunk; /* owned by the container (coll.h), not by the tree */
    uint32_t count;           /* elements in the chunk, >= 1 */
    uint32_t raw_len;         /* bytes of the chunk's decoded form */
    struct coll_key key;
};

struct coll_node;

/* The memory a tree's nodes come from (core_mem in the server, libc in tests). */
struct coll_alloc {
    void *(*alloc)(void *opaque, size_t n);
    void (*free)(void *opaque, void *p);
    void *opaque;
};

struct coll_tree {
    struct coll_node *root;  /* NULL when empty */
    struct coll_node *first; /* leftmost leaf, NULL when empty */
    struct coll_node *last;  /* rightmost leaf */
    uint64_t n_chunks;       /* descriptors */
    uint64_t bytes;          /* allocated bytes of all nodes */
    uint64_t edits;          /* changes to the tree or to a chunk of its container, counted:
                                a place remembered at one count is good while it holds
                                (struct coll_hash_at) */
    struct coll_alloc alloc; /* retained */
};

/* A position: a descriptor of a leaf. Valid until the next change to the tree. */
struct coll_it {
    struct coll_node *leaf; /* NULL: past the end (or before the start) */
    unsigned slot;
};

/* Bytes of one node: what t->bytes grows by per node. */
size_t coll_tree_node_size(void);

/* An empty tree over alloc (retained). Allocates nothing. */
void coll_tree_init(struct coll_tree *t, const struct coll_alloc *alloc);
/* Frees every node (not the chunks: the caller frees those first, walking the leaves). */
void coll_tree_deinit(struct coll_tree *t);

/* Elements in the whole tree (the sum of all counts). */
uint64_t coll_tree_total(const struct coll_tree *t);

/* The descriptor at it (it must be valid). */
struct coll_desc *coll_tree_desc(const struct coll_it *it);

/* The first and last descriptors; an invalid it when empty. */
struct coll_it coll_tree_begin(const struct coll_tree *t);
struct coll_it coll_tree_end(const struct coll_tree *t);
/* The next and previous descriptors: it becomes invalid past either end. */
void coll_tree_next(struct coll_it *it);
void coll_tree_prev(struct coll_it *it);
static inline bool coll_it_valid(const struct coll_it *it)
{
    return it->leaf != NULL;
}

/*
 * The descriptor holding element rank (0-based, < total): *it and *within (the element's
 * index inside that chunk). false when rank >= total.
 */
bool coll_tree_seek_rank(const struct coll_tree *t, uint64_t rank, struct coll_it *it,
                         uint64_t *within);

/* Elements before the chunk at it (the rank of its first element). O(log n). */
uint64_t coll_tree_rank_of(const struct coll_it *it);

/*
 * The last descriptor whose key is <= target under cmp (cmp(arg, key) < 0 when target comes
 * before key, 0 when equal, > 0 after), or the first descriptor when target comes before
 * every key. false only when the tree is empty. Descends with the keys inner entries keep.
 */
typedef int coll_key_cmp(void *arg, const struct coll_key *key);
bool coll_tree_seek_key(const struct coll_tree *t, coll_key_cmp *cmp, void *arg,
                        struct coll_it *it);
/* The same on key.k alone, compared in place (the hash's and the sorted set's descents, a
 * few a command): the last descriptor with key.k <= k (strict: < k), or the first. */
bool coll_tree_seek_k(const struct coll_tree *t, uint64_t k, bool strict, struct coll_it *it);

/*
 * Inserts d before the descriptor at *at (at invalid: at the end; an empty tree takes any
 * at), and sets *at to the new descriptor. TERSE_OK or TERSE_ENOMEM (nothing changed).
 * Allocates a node when a leaf splits (and its parents, up to a new root).
 */
int coll_tree_insert(struct coll_tree *t, struct coll_it *at, const struct coll_desc *d);

/*
 * Removes the descriptor at *at; *at is invalid after (a caller seeks again). A leaf
 * under COLL_TREE_MIN borrows from or merges with a neighbour; freed nodes go back to the
 * allocator. Never allocates.
 */
void coll_tree_remove(struct coll_tree *t, struct coll_it *at);

/* Sets the count of the descriptor at it (and the totals above it). */
void coll_tree_set_count(struct coll_tree *t, const struct coll_it *it, uint32_t count);
/* Sets the key of the descriptor at it (and the copies above it, where it is first). */
void coll_tree_set_key(struct coll_tree *t, const struct coll_it *it, const struct coll_key *key);

/*
 * Checks the structure: counts and totals add up, keys above match the first descriptors,
 * parent and sibling links agree, every node but the root holds at least COLL_TREE_MIN
 * entries, all leaves at one depth, n_chunks and bytes right. With order (< 0, 0, > 0 as a
 * comes before, with or after b), keys never decrease. TERSE_OK or TERSE_ECORRUPT. For tests
 * and fuzzers: O(n).
 */
typedef int coll_key_order(const struct coll_key *a, const struct coll_key *b);
int coll_tree_verify(const struct coll_tree *t, coll_key_order *order);

#endif /* TERSE_COLL_TREE_H */
