/*
 * coll_slab: slabs of RAW chunk blocks by size class (coll_slab.h).
 *
 * Classes: 64-byte steps up to 1152 bytes (18 classes, where a KiB chunk's blocks fall), then
 * 256-byte steps up to 4736 (14 classes).
 */
#include "coll/coll_slab.h"

#include <string.h>

#include "core/core_mem.h"

/* Under AddressSanitizer a free slot's block is poisoned, so a use after its chunk was dropped
 * is caught as it would be in a heap block (the free-list link is read unpoisoned). */
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_ASAN 1
#endif
#endif
#ifdef SLAB_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct coll_slab {
    struct coll_slab *prev, *next;         /* its class's list of slabs with a free slot */
    struct coll_slab *all_prev, *all_next; /* the owner's list of every slab */
    void *free;                            /* the first free slot's block */
    uint32_t used, n;                      /* blocks in use; slots in all */
    uint32_t cls;
    uint32_t listed; /* 1 while on its class's list */
};

#define SMALL_STEP 64u
#define SMALL_N 18u
#define SMALL_MAX (SMALL_STEP * SMALL_N) /* 1152 */
#define BIG_STEP 256u

_Static_assert(SMALL_N + (COLL_SLAB_MAX - SMALL_MAX + BIG_STEP - 1) / BIG_STEP <=
                   COLL_SLAB_CLASSES,
               "every block up to COLL_SLAB_MAX has a class");

static uint32_t class_of(size_t need)
{
    if (need <= SMALL_MAX) {
        return need == 0 ? 0 : (uint32_t)((need + SMALL_STEP - 1) / SMALL_STEP - 1);
    }
    return SMALL_N + (uint32_t)((need - SMALL_MAX + BIG_STEP - 1) / BIG_STEP - 1);
}

static size_t class_size(uint32_t cls)
{
    return cls < SMALL_N ? (size_t)SMALL_STEP * (cls + 1)
                         : SMALL_MAX + (size_t)BIG_STEP * (cls - SMALL_N + 1);
}

static size_t slot_size(uint32_t cls)
{
    return sizeof(struct coll_slab *) + class_size(cls);
}

/* The block of slot i (after its slab pointer). */
static uint8_t *block_at(struct coll_slab *sl, uint32_t i)
{
    return (uint8_t *)(sl + 1) + (size_t)i * slot_size(sl->cls) + sizeof(struct coll_slab *);
}

static struct coll_slab *slab_of(const void *block)
{
    struct coll_slab *sl;

    memcpy(&sl, (const uint8_t *)block - sizeof(sl), sizeof(sl));
    return sl;
}

static void part_add(struct coll_slabs *s, struct coll_slab *sl)
{
    sl->prev = NULL;
    sl->next = s->part[sl->cls];
    if (sl->next != NULL) {
        sl->next->prev = sl;
    }
    s->part[sl->cls] = sl;
    sl->listed = 1;
}

static void part_del(struct coll_slabs *s, struct coll_slab *sl)
{
    if (sl->prev != NULL) {
        sl->prev->next = sl->next;
    } else {
        s->part[sl->cls] = sl->next;
    }
    if (sl->next != NULL) {
        sl->next->prev = sl->prev;
    }
    sl->prev = sl->next = NULL;
    sl->listed = 0;
}

/* A new slab of class cls, every slot free, on its class's list. NULL when no memory. */
static struct coll_slab *slab_new(struct coll_slabs *s, uint32_t cls)
{
    struct coll_slab *sl = core_alloc(COLL_SLAB_BYTES);
    void *next = NULL;

    if (sl == NULL) {
        return NULL;
    }
    sl->cls = cls;
    sl->used = 0;
    sl->n = (uint32_t)((COLL_SLAB_BYTES - sizeof(*sl)) / slot_size(cls));
    /* Free list in address order: the first slots are used first. */
    for (uint32_t i = sl->n; i-- > 0;) {
        uint8_t *b = block_at(sl, i);

        memcpy(b - sizeof(sl), &sl, sizeof(sl));
        memcpy(b, &next, sizeof(next));
        POISON(b, class_size(cls));
        next = b;
    }
    sl->free = next;
    sl->all_prev = NULL;
    sl->all_next = s->all;
    if (s->all != NULL) {
        s->all->all_prev = sl;
    }
    s->all = sl;
    s->n_slabs++;
    part_add(s, sl);
    return sl;
}

static void slab_free(struct coll_slabs *s, struct coll_slab *sl)
{
    if (sl->listed) {
        part_del(s, sl);
    }
    if (sl->all_prev != NULL) {
        sl->all_prev->all_next = sl->all_next;
    } else {
        s->all = sl->all_next;
    }
    if (sl->all_next != NULL) {
        sl->all_next->all_prev = sl->all_prev;
    }
    s->n_slabs--;
    UNPOISON(sl, COLL_SLAB_BYTES);
    core_free(sl);
}

void *coll_slab_take(struct coll_slabs *s, size_t need, size_t *usable)
{
    uint32_t cls = class_of(need);
    struct coll_slab *sl = s->part[cls];
    void *b;

    if (sl == NULL && (sl = slab_new(s, cls)) == NULL) {
        return NULL;
    }
    b = sl->free;
    UNPOISON(b, class_size(cls));
    memcpy(&sl->free, b, sizeof(sl->free));
    if (++sl->used == sl->n) {
        part_del(s, sl);
    }
    *usable = class_size(cls);
    return b;
}

void coll_slab_give(struct coll_slabs *s, void *block)
{
    struct coll_slab *sl = slab_of(block);

    memcpy(block, &sl->free, sizeof(sl->free));
    POISON(block, class_size(sl->cls));
    sl->free = block;
    if (--sl->used == 0) {
        slab_free(s, sl);
        return;
    }
    if (!sl->listed) {
        part_add(s, sl);
    }
}

size_t coll_slab_usable(const void *block)
{
    return class_size(slab_of(block)->cls);
}

void coll_slabs_free(struct coll_slabs *s)
{
    while (s->all != NULL) {
        slab_free(s, s->all);
    }
}
