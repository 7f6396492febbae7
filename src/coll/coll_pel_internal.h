/*
 * coll_pel_internal: what the files of the PEL engine share (coll_pel.c: records, the verified
 * read of a chunk, life, bulk build, seeks, reads and verification; coll_pel_edit.c: puts,
 * deletes, splits and merges). Not for use outside coll/.
 *
 * A chunk read through pel_open is checked whole against its descriptor before anything of it
 * is used: the count varint equals d->count (>= 1), the form's length d->raw_len, every record
 * parses (minimal varints, the name inside the form), IDs strictly increase, the first is the
 * descriptor's key, and no byte is left over.
 */
#ifndef TERSE_COLL_PEL_INTERNAL_H
#define TERSE_COLL_PEL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec_varint.h"
#include "coll/coll_pel.h"

/* The longest varint: the room a form's count takes at most before its records. */
#define PEL_PFX 10

/* A chunk read and verified: a view of its records (into the chunk, or the env's decode
 * buffer; valid until the next chunk read or write of the env). */
struct pel_view {
    const uint8_t *body; /* the first record */
    const uint8_t *end;  /* just past the last */
    uint32_t n;          /* records, >= 1 */
    struct store_stream_id first, last;
};

/* Bytes of r's record. */
static inline size_t pel_rec_size(const struct coll_pel_rec *r)
{
    return codec_varint_len(r->id.ms) + codec_varint_len(r->id.seq) +
           codec_varint_len(r->name_len) + r->name_len +
           codec_varint_len((uint64_t)r->delivery_ms) + codec_varint_len(r->delivery_count);
}

/* Writes r's record at p (pel_rec_size bytes of room); returns the byte after it. */
uint8_t *pel_rec_put(uint8_t *p, const struct coll_pel_rec *r);

/* Reads a record at *p before end into *r (name a view): 0 with *p past it, or -1. */
int pel_rec_read(const uint8_t **p, const uint8_t *end, struct coll_pel_rec *r);

/* Reads only a record's ID and skips the rest: 0 with *p past it, or -1. */
int pel_rec_skip(const uint8_t **p, const uint8_t *end, struct store_stream_id *id);

/* The chunk of d read and verified (see above) into *v. TERSE_OK, TERSE_ECORRUPT (counted),
 * TERSE_ENOMEM. */
int pel_open(struct coll_env *env, const struct coll_desc *d, struct pel_view *v);

/* Where id is or would go: the chunk it belongs in (*it: the last whose first ID is <= id, or
 * the first; it->leaf NULL when c has no chunk, and nothing else set), opened into *a, and in
 * it the first record whose ID is >= id: a->idx, its offset a->at in the body, the offset just
 * past it a->at_end, and a->eq when its ID is id (idx == n and at the body's length when
 * none). TERSE_OK or pel_open's status. */
struct pel_place {
    struct pel_view v;
    uint32_t idx;
    size_t at, at_end;
    bool eq;
};
int pel_locate(struct coll_env *env, const struct coll *c, const struct store_stream_id *id,
               struct coll_it *it, struct pel_place *a);

/* Bytes of a form of n records whose records take body bytes. */
static inline size_t pel_form_len(uint64_t n, size_t body)
{
    return codec_varint_len(n) + body;
}

/* A chunk a write makes holds at most this many raw bytes (but for one record, alone). */
static inline size_t pel_half(const struct coll *c)
{
    return c->chunk_max / 2 > 0 ? c->chunk_max / 2 : 1;
}

#endif /* TERSE_COLL_PEL_INTERNAL_H */
