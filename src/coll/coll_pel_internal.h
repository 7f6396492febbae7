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

static inline int pel_id_cmp(const struct store_stream_id *a, const struct store_stream_id *b)
{
    if (a->ms != b->ms) {
        return a->ms < b->ms ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

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

/* The descriptor of the chunk where id belongs: the last whose first ID is <= id, or the
 * first. false when c has no chunk. */
bool pel_seek_chunk(const struct coll *c, const struct store_stream_id *id, struct coll_it *it);

/* In an opened chunk, the first record whose ID is >= id: *idx, its offset *at in the body,
 * the offset just past it *at_end, and *eq when its ID is id (*idx == v->n and *at the body's
 * length when none). */
void pel_find(const struct pel_view *v, const struct store_stream_id *id, uint32_t *idx,
              size_t *at, size_t *at_end, bool *eq);

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
