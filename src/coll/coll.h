/*
 * coll: the chunked container engine (the contract the store and the command families use).
 *
 * A hash, list, set, sorted set or stream too big for one value is a struct coll: its
 * elements cut into chunks of a few KiB under a counted B+tree (coll_tree.h). A chunk is one
 * allocation holding the type's small form of its elements (store_list.h, store_hash.h, ...)
 * in codec stored form: written RAW (a copy and its XXH3-64 checksum), compressed to LZ4 in
 * the background, verified by every read. A list keeps its two ends out of the tree, in open
 * buffers where a push or a pop is O(element), each element with its own 32-bit checksum
 * (coll_list.h). So a command costs its own elements plus a bounded number of chunks, never
 * the container.
 *
 *   store entry (enc COLL) --> struct coll --+-- head open buffer (lists)
 *                                            +-- tree --> desc --> chunk [codec stored form]
 *                                            |            desc --> chunk ...
 *                                            +-- tail open buffer (lists)
 *
 * The environment (struct coll_env, one per shard) holds what all containers share: the codec
 * context, a decode buffer, the list of containers with chunks awaiting compression, the
 * queue of detached containers freed in bounded steps (lazy free), and byte counters.
 *
 * Memory: every allocation is core_alloc's, so used_memory sees it; coll_mem(c) is a
 * container's exact usable bytes (header, tree nodes, chunks, open buffers). Integrity: no
 * byte is returned before its checksum matched; a mismatch is TERSE_ECORRUPT, and a write
 * never re-encodes a chunk it could not verify. One thread only (the shard's).
 */
#ifndef TERSE_COLL_H
#define TERSE_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll_tree.h"

struct codec_ctx;

enum coll_type {
    COLL_LIST = 0,
    COLL_HASH = 1,
    COLL_SET = 2,
    COLL_ZSET = 3,
    COLL_STREAM = 4,
    COLL_PEL = 5 /* a chunked stream's group's pending entries (coll_pel.h) */
};

/* A chunk: its allocation is sizeof(struct coll_chunk) + cap bytes. */
struct coll_chunk {
    uint32_t len;   /* bytes of data: the codec stored form */
    uint32_t cap;   /* bytes allocated for data */
    uint8_t flags;  /* COLL_CHUNK_* */
    uint8_t pad[3];
    uint32_t raw;   /* bytes of the form it holds (decoded) */
    uint8_t data[]; /* the codec stored form of the type's chunk form */
};
#define COLL_CHUNK_PENDING 0x01u /* RAW, to be compressed by coll_compress_step */
#define COLL_CHUNK_HOT 0x02u     /* written or read since the compressor last passed by */
#define COLL_CHUNK_SLAB 0x04u    /* its block is a slab's (coll_slab.h), not the heap's */

struct coll_env;

/* A list's open end (coll_list.c): records [len u32][bytes][h32 u32][len u32]. */
struct coll_open {
    uint8_t *p;   /* owned (core_alloc), NULL when cap is 0 */
    uint32_t len; /* bytes used */
    uint32_t cap; /* bytes allocated */
    uint32_t n;   /* elements */
};

struct coll {
    uint8_t type;           /* enum coll_type */
    uint8_t listed;         /* 1 while on the env's pending list */
    uint16_t pad;
    uint32_t chunk_max;     /* raw bytes a chunk may hold before it is cut (lists: the open ends too) */
    uint32_t chunk_n;       /* elements a chunk may hold (0: no limit; Redis's positive
                               list-max-listpack-size) */
    uint64_t count;         /* elements */
    uint64_t bytes;         /* usable bytes of its header, chunks and open ends (not the tree's
                               nodes, which the tree counts: coll_mem adds both) */
    uint64_t raw;           /* decoded bytes of all its chunks' forms */
    uint64_t n_pending;     /* chunks awaiting compression */
    uint64_t cursor;        /* the compressor's place: the rank of the next chunk to look at */
    uint64_t pend_from;     /* streams: the lowest rank a write marked pending since the
                               compressor's last lap over c (UINT64_MAX: none), where its next
                               lap starts (coll_stream.c keeps it); unused by other types */
    struct coll_tree tree;
    struct coll *pend_prev, *pend_next; /* the env's pending list, or its lazy-free queue */
    struct coll_open head, tail;        /* lists: the two ends (head stored reversed) */
    int keep_raw;                       /* lists: chunks at each end left uncompressed */
    uint64_t seed;                      /* hashes and sets: the seed placing their elements
                                           (coll_hash.h); the env's when made, a copy's or a
                                           loaded snapshot's own */
    /* The compressor's merge of the chunk at an iterator with the next one (coll_hot_bytes):
     * coll_hash_merge_next for hashes, sets and sorted sets' maps, coll_zset_merge_next for
     * sorted sets' orders, set by their constructors; NULL for lists. */
    int (*merge_next)(struct coll_env *env, struct coll *c, struct coll_it *it);
    struct coll *aux;                   /* a chain of containers of the same env owned by c and
                                           freed, released, copied, measured and corrupted with
                                           it: a sorted set's member map (a COLL_HASH,
                                           coll_zset.h); a chunked stream's groups' PELs
                                           (COLL_PEL, coll_stream.h), one per group in the
                                           meta's order, each the next's aux; NULL for every
                                           other type */
    struct coll_chunk *meta;            /* streams: the chunk of the stream's IDs, counters and
                                           groups (coll_stream.h), outside the tree, never
                                           pending; freed, copied and corrupted with c; NULL
                                           for every other type */
};

/* ---- the environment -------------------------------------------------------------------- */

struct coll_env_stats {
    uint64_t n_colls;      /* containers alive (attached or awaiting lazy free); a sorted set
                              counts two, its order and its member map (c->aux) */
    uint64_t n_pending;    /* chunks awaiting compression */
    uint64_t n_lazy;       /* containers awaiting lazy free (lazyfree_pending_objects) */
    uint64_t lazy_bytes;   /* their bytes */
    uint64_t n_lazy_freed; /* containers lazy free has finished (lazyfreed_objects) */
    uint64_t n_corrupt;    /* chunks and elements that failed their checksum */
};

/* Creates an environment (core_alloc'd, *out). TERSE_OK or TERSE_ENOMEM. */
int coll_env_create(struct coll_env **out);
/* Frees everything, including containers awaiting lazy free; *pp = NULL. NULL-safe. */
void coll_env_destroy(struct coll_env **pp);
/* The codec context chunks are decoded and compressed with (borrowed, kept until replaced). */
void coll_env_set_codec(struct coll_env *env, struct codec_ctx *codec);
struct codec_ctx *coll_env_codec(const struct coll_env *env);
/* The seed of the hash that places hash fields and set members in chunks (coll_hash.h): the
 * one every hash or set made from now on keeps (struct coll's seed), so those of a shard are
 * cut by the same ranges but for copies and loads of others. Set before any hash or set is
 * made (0 until then). */
void coll_env_set_seed(struct coll_env *env, uint64_t seed);
uint64_t coll_env_seed(const struct coll_env *env);
/* Tests and fuzzers: sorted sets' member fingerprints (coll_zset.h) keep only their low bits
 * bits (1..64; 64 by default), so members collide and the paths that tell them apart run. */
void coll_env_set_fp_bits(struct coll_env *env, unsigned bits);
uint64_t coll_env_fp_mask(const struct coll_env *env);
void coll_env_stats_get(const struct coll_env *env, struct coll_env_stats *out);
/* Frees the env's decode and build buffers, and the spare chunk blocks it keeps for reuse,
 * when they are larger than keep bytes (cron: one huge chunk does not pin its buffer). */
void coll_env_trim(struct coll_env *env, size_t keep);

/*
 * A command's turn: between begin and end, a RAW chunk whose checksum matched (or that this
 * turn wrote) is read again without checking it again; a compressed chunk is still decoded
 * and verified every time, and outside any turn every read verifies. cmd_run brackets every
 * command (nested for EXEC's and a script's); a turn lasts one command.
 */
void coll_env_turn_begin(struct coll_env *env);
void coll_env_turn_end(struct coll_env *env);

/* ---- a container's life -------------------------------------------------------------------- */

/* A new empty container of type, chunk_max raw bytes per chunk (> 0). TERSE_OK, ENOMEM. */
int coll_create(struct coll_env *env, enum coll_type type, uint32_t chunk_max, struct coll **out);
/* Frees c now (and every chunk, and c->aux with its chunks). NULL-safe. */
void coll_destroy(struct coll_env *env, struct coll *c);
/* Detaches c from its key: freed now when small, else queued and freed by coll_free_step in
 * bounded steps (Redis's lazyfree); either way c must not be used after. NULL-safe. */
void coll_release(struct coll_env *env, struct coll *c);
/* Frees queued containers for up to budget bytes (0: all of them). Returns bytes freed. */
size_t coll_free_step(struct coll_env *env, size_t budget);
/* Bytes freed by coll_release right away at most (larger containers are queued). */
#define COLL_FREE_NOW_MAX (64u * 1024)

/* A deep copy (COPY): chunks copied as held, no decode; c->aux copied too. TERSE_OK or
 * TERSE_ENOMEM. */
int coll_copy(struct coll_env *env, const struct coll *c, struct coll **out);

/* Usable bytes c holds (MEMORY USAGE): header, chunks, open ends, and the tree's nodes, and
 * those of c->aux (a sorted set's member map). */
static inline uint64_t coll_mem(const struct coll *c)
{
    uint64_t n = c->bytes + c->tree.bytes;

    for (const struct coll *a = c->aux; a != NULL; a = a->aux) {
        n += a->bytes + a->tree.bytes;
    }
    return n;
}
static inline uint64_t coll_count(const struct coll *c)
{
    return c->count;
}
/* Raw bytes a chunk of c holds at most (about). */
static inline uint32_t coll_chunk_bytes(const struct coll *c)
{
    return c->chunk_max;
}
/* Hashes, sets and sorted sets: raw bytes a chunk a command writes may reach before the write
 * cuts it, an eighth of chunk_max, so a write's verify, scan and checksum cost an eighth of a
 * chunk (docs/design.md says why an eighth); the background compressor merges cold neighbours up to 3/4 of chunk_max before it
 * compresses them (coll_hash_merge_next, coll_zset_merge_next), so a settled container holds
 * big chunks. */
static inline uint32_t coll_hot_bytes(const struct coll *c)
{
    return c->chunk_max >= 8 ? c->chunk_max / 8 : 1;
}

/* DEBUG CORRUPT-VALUE: damages every chunk and open end (c->aux's too) so that any read of it
 * fails. */
void coll_corrupt(struct coll *c);

/*
 * Background compression: compresses chunks awaiting it (coll_chunk_put marked them), a
 * container at a time, skipping chunks touched since the last pass (hot: they stay RAW one
 * more pass), for at most budget_us on now_us (NULL: no limit) or until want_bytes were saved
 * (0: no goal). Returns the bytes saved (the drop of the containers' bytes). Allocates the
 * compressed chunk (the RAW one is freed); a failure leaves the chunk RAW.
 */
size_t coll_compress_step(struct coll_env *env, uint64_t budget_us,
                          uint64_t (*now_us)(void *arg), void *arg, size_t want_bytes);

/* ---- chunks, for the type engines (coll_list.c, coll_hash.c, ...) ------------------------- */

/*
 * A new chunk holding form (the type's chunk form, len bytes) RAW, marked pending and hot.
 * Counted in c->bytes. TERSE_OK or TERSE_ENOMEM.
 */
int coll_chunk_put(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len,
                   struct coll_chunk **out);
/*
 * A chunk loaded as it was held (a snapshot's CHUNKED record): stored (len bytes, a codec
 * stored form whose header parses; its bytes are verified on first read, as a string's are)
 * copied into a new chunk appended at the tree's end with count elements and key; c->count
 * grows by count. A RAW chunk is marked pending, for the background to compress. TERSE_OK,
 * TERSE_ECORRUPT (the header does not parse or count is 0), TERSE_ENOMEM.
 */
int coll_adopt_chunk(struct coll_env *env, struct coll *c, const uint8_t *stored, size_t len,
                     uint32_t count, const struct coll_key *key);

/* Frees a chunk of c. */
void coll_chunk_drop(struct coll_env *env, struct coll *c, struct coll_chunk *ch);

/*
 * *chp (a chunk of c) now holds form (len bytes, not pointing into the chunk) RAW, marked
 * pending and hot: rewritten in place when its block has room (no allocation: a chunk
 * written again and again costs a copy and a checksum), else a new chunk replaces it (*chp
 * changes; the caller's descriptor must take it). TERSE_OK, or TERSE_ENOMEM (*chp as it
 * was).
 */
int coll_chunk_rewrite(struct coll_env *env, struct coll *c, struct coll_chunk **chp,
                       const uint8_t *form, size_t len);

/* coll_chunk_rewrite of the chunk at it (a descriptor of c's tree) holding count elements,
 * its first element's key key: the descriptor's raw_len, count (and c->count) and key follow
 * (the engines keyed by stream IDs: a stream's nodes, a PEL's chunks). TERSE_OK, or
 * TERSE_ENOMEM with nothing changed. */
int coll_desc_rewrite(struct coll_env *env, struct coll *c, const struct coll_it *it,
                      const uint8_t *form, size_t len, uint32_t count,
                      const struct coll_key *key);

/*
 * The chunk's form, verified: a view into the chunk when RAW, else decoded into the env's
 * buffer (valid until the next coll_chunk_read or coll_chunk_put of any container). Marks
 * the chunk hot. TERSE_OK, TERSE_ECORRUPT (counted), TERSE_ENOMEM (the buffer could not grow).
 */
int coll_chunk_read(struct coll_env *env, struct coll_chunk *ch, const uint8_t **form,
                    size_t *len);

/* A count of the env's decode buffers' turns (a decode into one, or a read that makes the other
 * the next decode's). A view coll_chunk_read returned into one of them holds while this has
 * grown by at most 1 since; a view into a RAW chunk holds until that chunk is written. */
uint64_t coll_env_decodes(const struct coll_env *env);

/* coll_chunk_read without the hot mark: writes nothing to the chunk, for a forked child's
 * walk (an RDB file), whose every touched page would be copied. */
int coll_chunk_peek(struct coll_env *env, const struct coll_chunk *ch, const uint8_t **form,
                    size_t *len);

/* Bytes of the form two chunks of a and b make merged, for forms that are a count varint and
 * records (hashes, sets, sorted sets). */
size_t coll_chunk_merged_len(const struct coll_desc *a, const struct coll_desc *b);

/* For the compressor's merges (struct coll's merge_next) of such forms: true with *nb on the
 * chunk after it and *mlen coll_chunk_merged_len of the two, when that chunk is not hot and
 * the merge fits in 3/4 of chunk_max. */
bool coll_chunk_cold_next(const struct coll *c, const struct coll_it *it, struct coll_it *nb,
                          size_t *mlen);

/* A second buffer of the env, for building a chunk's new form (at least n bytes; valid until
 * the next call). NULL when it cannot grow. */
uint8_t *coll_env_build_buf(struct coll_env *env, size_t n);

/* A third buffer of the env (at least n bytes, its bytes kept when it grows; valid until the
 * next call that grows it), for what an engine stages while the decode and build buffers are
 * in use: a sorted set's map values and members (coll_zset_map.c). NULL when it cannot grow. */
uint8_t *coll_env_side_buf(struct coll_env *env, size_t n);

/* Puts c on the env's pending list (it has chunks awaiting compression). */
void coll_pending_note(struct coll_env *env, struct coll *c);

/* Counts a checksum failure met by a type engine (an open buffer's element). */
void coll_env_count_corrupt(struct coll_env *env);

#endif /* TERSE_COLL_H */
