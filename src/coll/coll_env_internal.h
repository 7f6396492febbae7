/*
 * coll_env_internal: the environment's fields, for the engine's own files (coll.c,
 * coll_chunk.c); everything else sees struct coll_env through coll.h only.
 */
#ifndef TERSE_COLL_ENV_INTERNAL_H
#define TERSE_COLL_ENV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "coll/coll_slab.h"

struct codec_value_info;

#define COLL_SPARE_N 4
#define COLL_SPARE_MAX (64u * 1024 + 256) /* a bigger dropped block goes back to the allocator */
#define COLL_SEEN_N 4

/* A RAW chunk verified in the current command turn, and its form (a view into it). */
struct coll_seen {
    const struct coll_chunk *ch;
    const uint8_t *form;
    size_t len;
};

struct coll_env {
    struct codec_ctx *codec;      /* borrowed */
    struct coll *pending;         /* containers with pending chunks (head of the list) */
    struct coll *lazy;            /* released containers awaiting their free */
    /* Two decode buffers (owned), used in turn: a compressed chunk is decoded into the one
     * not read last. Within a turn each remembers the chunk it holds (dch: NULL when none), so
     * a command that reads a compressed chunk again (a sorted set's map and order, read two or
     * three times each by one ZADD) decodes it once; forgotten when the chunk is rewritten or
     * dropped (seen_forget) and when the turn ends. */
    uint8_t *dbuf[2];
    size_t dcap[2];
    const struct coll_chunk *dch[2];
    size_t dlen[2];
    unsigned dlast;               /* the slot read last */
    uint64_t n_decodes;           /* decodes into them and turns of dlast, ever
                                     (coll_env_decodes) */
    uint8_t *build;               /* build buffer (owned) */
    size_t build_cap;
    uint8_t *side;                /* side buffer (owned): what an engine stages while the two
                                     above are in use (a sorted set's map values, members) */
    size_t side_cap;
    uint64_t fp_mask;             /* coll_env_set_fp_bits: the bits a sorted set's member
                                     fingerprint keeps (all of them but in tests) */
    struct coll_env_stats st;
    uint64_t seed;                /* coll_env_set_seed */
    /* Blocks of dropped chunks kept for the next coll_chunk_put (owned; NULL when empty): a
     * write that replaces a chunk by a new one (a sorted set's staged edit, a chunk grown past
     * its block) reuses the block the last one freed instead of calling the allocator. Counted
     * in used_memory as any allocation; freed by coll_env_destroy (coll_env_trim frees those
     * over its keep). */
    void *spare[COLL_SPARE_N];
    unsigned spare_next;          /* the slot a block replaces when every slot is taken */
    struct coll_slabs slabs;      /* the blocks of RAW chunks up to COLL_SLAB_MAX (coll_slab.h) */
    /* Turns (coll_env_turn_begin): the RAW chunks verified, or written, in this command, so a
     * command that reads a chunk again (a sorted set's edit reads its order's chunk and its
     * map's chunk two or three times each) verifies it once. Emptied when a turn begins and
     * ends; a chunk leaves it when rewritten or dropped (its block may come back as another
     * chunk). Outside a turn (cron, snapshots) nothing is remembered. */
    struct coll_seen seen[COLL_SEEN_N];
    unsigned n_seen, seen_next;
    unsigned turn_depth;          /* nested turns: EXEC and scripts run commands inside one */
};

/* Frees the spare blocks larger than keep bytes (0: all of them). */
void coll_spares_free(struct coll_env *env, size_t keep);

/* The usable bytes of ch's block (a slab's class, or the heap's usable size). */
size_t coll_chunk_usable(const struct coll_chunk *ch);

/* core_alloc and core_free in the (opaque, ...) shape the tree's and a model's allocators
 * take: what every container's memory comes from. */
void *coll_mem_alloc(void *opaque, size_t n);
void coll_mem_free(void *opaque, void *p);

/* Puts ch, a chunk of c, on the compressor's work (pending: counted in c and the env, c on the
 * env's pending list), or takes it off. Either is a no-op when already so. */
void coll_chunk_pend(struct coll_env *env, struct coll *c, struct coll_chunk *ch);
void coll_chunk_unpend(struct coll_env *env, struct coll *c, struct coll_chunk *ch);

/* A heap block holding a copy of stored (a codec stored form of len bytes whose header
 * parses: what a snapshot gives), flags 0, *info its header: TERSE_OK, TERSE_ECORRUPT,
 * TERSE_ENOMEM. Not counted anywhere yet. */
int coll_chunk_from_stored(const uint8_t *stored, size_t len, struct coll_chunk **out,
                           struct codec_value_info *info);

#endif /* TERSE_COLL_ENV_INTERNAL_H */
