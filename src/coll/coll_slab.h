/*
 * coll_slab: the blocks of the RAW chunks commands write (coll_chunk_put), in slabs of
 * COLL_SLAB_BYTES by size class. Not for use outside coll/.
 *
 * Why: a hash, set or sorted set is written in chunks of about a KiB (coll_hot_bytes), and the
 * background compressor later replaces each by a compressed block. With every block from the
 * heap, the RAW blocks freed by the compressor were KiB-sized holes scattered among the
 * compressed blocks that replaced them, so the heap stayed as large as at its peak (300,000
 * corpus fields: RSS 0.75x redis-server's with used_memory at 0.48x). In slabs, the RAW blocks
 * of a load live together and leave together: a slab whose last block goes is freed whole,
 * a hole of 32 KiB the heap reuses or gives back (malloc_trim).
 *
 *   slab: | struct coll_slab | slot | slot | ... |       (one core_alloc of COLL_SLAB_BYTES)
 *   slot: | struct coll_slab * (its slab) | block: the class's bytes |
 *
 * A free slot's block holds the next free slot of its slab. A slab with a free slot is on its
 * class's list; one with none is on no list; an empty one is freed at once (a rewrite takes
 * its new block before it gives the old, so one chunk rewritten again and again does not
 * allocate a slab each time). The blocks' bytes count in used_memory as the slab's whole
 * allocation; a container counts its blocks by class size (coll_slab_usable).
 */
#ifndef TERSE_COLL_SLAB_H
#define TERSE_COLL_SLAB_H

#include <stddef.h>
#include <stdint.h>

#define COLL_SLAB_BYTES (32u * 1024)
#define COLL_SLAB_CLASSES 32
#define COLL_SLAB_MAX 4608u /* bigger blocks come from the heap */

struct coll_slab;

struct coll_slabs {
    struct coll_slab *part[COLL_SLAB_CLASSES]; /* per class: slabs with a free slot */
    struct coll_slab *all;                      /* every slab (coll_slabs_free) */
    uint64_t n_slabs;                           /* slabs allocated */
};

/* A block of at least need bytes (<= COLL_SLAB_MAX): its usable bytes in *usable. NULL when
 * no memory. */
void *coll_slab_take(struct coll_slabs *s, size_t need, size_t *usable);
/* Gives back a block coll_slab_take returned. */
void coll_slab_give(struct coll_slabs *s, void *block);
/* The usable bytes of a block coll_slab_take returned (its class's). */
size_t coll_slab_usable(const void *block);
/* Frees every slab, in use or not (coll_env_destroy, after the containers). */
void coll_slabs_free(struct coll_slabs *s);

#endif /* TERSE_COLL_SLAB_H */
