/*
 * persist_save_internal: the snapshot writer's state and block helpers, shared by
 * persist_save.c (records, blocks, the file) and persist_save_coll.c (CHUNKED records).
 */
#ifndef TERSE_PERSIST_SAVE_INTERNAL_H
#define TERSE_PERSIST_SAVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value: no malloc behind our back */
#include <xxhash.h>

#include "persist/persist.h"
#include "persist/persist_internal.h"

/* Room past PERSIST_BLOCK_TARGET for the record that crosses it: a record of at most this
 * many bytes is appended to the buffer; a larger one gets a streamed block of its own. */
#define SAVE_SMALL_RECORD_MAX ((size_t)64 * 1024)
#define SAVE_BUF_CAP                                                                             \
    (PERSIST_BLOCK_HEADER_LEN + PERSIST_BLOCK_TARGET + SAVE_SMALL_RECORD_MAX +                   \
     PERSIST_BLOCK_TRAILER_LEN)
/* Bytes of a record before its key and before its value: flags, varints, expiry. */
#define SAVE_PREFIX_MAX (1 + PERSIST_VARINT_MAX)
#define SAVE_MIDDLE_MAX (8 + 2 * PERSIST_VARINT_MAX)

struct dedup_slot {
    uint64_t hash;     /* xxh3_64 of the stored bytes; slot empty when p == NULL */
    uint64_t off;      /* file offset of the first copy's bytes */
    const uint8_t *p;  /* borrowed: the first copy in the store (frozen during the save) */
    size_t len;        /* its length */
};

struct writer {
    int fd;
    const terse_allocator *alloc;
    uint8_t *buf;                /* the block being built: header, then records */
    size_t len;                  /* bytes of buf filled (header included) */
    uint32_t n_records;          /* records in the block being built */
    int db;                      /* db of the block being built */
    uint32_t seq;                /* blocks written so far */
    uint64_t off;                /* file offset of buf[0] */
    uint64_t n_keys;
    uint64_t n_dedup;
    XXH3_state_t file_hash;      /* every byte written */
    struct dedup_slot *slots;    /* NULL: no deduplication */
    size_t n_slots, n_used;      /* n_slots is a power of two */
    int64_t now_ms;
    int status;                  /* sticky: first failure */
    struct persist_error *err;
    struct store_shard *shard;
    uint8_t *form, *form2;       /* a chunked list's two ends in RAW stored form
                                    (persist_save_coll.c): grown as needed, freed at the end */
    size_t form_cap, form2_cap;
};

static inline void *w_alloc(const terse_allocator *a, size_t n)
{
    return a != NULL ? a->alloc(a->opaque, n) : malloc(n);
}

static inline void w_free(const terse_allocator *a, void *p)
{
    if (a != NULL) {
        a->free(a->opaque, p);
    } else {
        free(p);
    }
}

void persist_w_fail(struct writer *w, int status, const char *what);
/* Writes n bytes at the end of the file and feeds the whole-file hash. */
void persist_w_out(struct writer *w, const void *p, size_t n);
void persist_w_block_header(uint8_t *h, enum persist_block_type type, uint32_t seq, int db,
                            uint32_t n_records, uint64_t payload_len);
/* Closes the block being built (if it holds records) and writes it. */
void persist_w_flush(struct writer *w);

#endif /* TERSE_PERSIST_SAVE_INTERNAL_H */
