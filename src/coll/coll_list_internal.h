/*
 * coll_list_internal: what the files of the list engine share (coll_list.c: the ends, pushes
 * and pops; coll_list_edit.c: changes by index, trims and LREM; coll_list_read.c: walks,
 * conversion back and verification; coll_list_rec.c: open records and chunk rewrites). Not
 * for use outside coll/.
 */
#ifndef TERSE_COLL_LIST_INTERNAL_H
#define TERSE_COLL_LIST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "codec/codec_varint.h"
#include "coll/coll_list.h"

/* Bytes of framing around an element in an open buffer: [len u32][bytes][h32 u32][len u32]. */
#define REC_OVER 12u

/* A chunk of k elements taking bytes raw is full: no element more goes in. */
static inline bool coll_list_chunk_full(const struct coll *c, size_t bytes, uint64_t k)
{
    return bytes >= c->chunk_max || (c->chunk_n != 0 && k >= c->chunk_n);
}

/* Form bytes an open end holds at most: one and a half chunks. */
#define COLL_END_MAX(c) ((size_t)(c)->chunk_max + (c)->chunk_max / 2)

/* An end this long after a push seals its inner chunk's worth into a chunk, keeping about
 * half a chunk open: pushes and pops at a chunk boundary cannot thrash. Its length is
 * measured as the chunk form its elements would take (a record's REC_OVER bytes become a
 * length varint of one byte or more: never more than the form), so that when this says long,
 * the seal finds a full chunk's worth (with record bytes, an end of small elements would be
 * long long before it held a chunk, and every push would walk it for nothing). */
static inline bool coll_list_end_long(const struct coll *c, const struct coll_open *o)
{
    size_t form_min = o->len - (size_t)o->n * (REC_OVER - 1);

    return o->n > 1 && (form_min > COLL_END_MAX(c) ||
                        (c->chunk_n != 0 && o->n > c->chunk_n + (c->chunk_n + 1) / 2));
}

static inline uint32_t el_h32(const uint8_t *p, size_t n)
{
    return (uint32_t)XXH3_64bits(n != 0 ? (const void *)p : (const void *)"", n);
}

static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

static inline size_t el_form_size(size_t len)
{
    return codec_varint_len((uint64_t)len) + len;
}

/* A piece of a chunk rewrite: a form and its element count. */
struct coll_list_piece {
    const uint8_t *form;
    size_t len;
    uint64_t n;
};

int coll_list_corrupt(struct coll_env *env);
int coll_open_room(struct coll *c, struct coll_open *o, size_t n);
void coll_rec_write(uint8_t *at, const uint8_t *el, size_t len);
int coll_rec_before(struct coll_env *env, const struct coll_open *o, size_t end, size_t *start,
                    const uint8_t **el, size_t *len);
int coll_rec_at(struct coll_env *env, const struct coll_open *o, size_t off, size_t *next,
                const uint8_t **el, size_t *len);
int coll_rec_from_end(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                      size_t *e);
int coll_rec_from_start(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                        size_t *e);
int coll_open_splice(struct coll *c, struct coll_open *o, size_t s, size_t e, const uint8_t *el,
                     size_t len, bool ins);
int coll_list_chunk_form(struct coll_env *env, struct coll_desc *d, const uint8_t **form,
                         size_t *len, uint64_t *n);
int coll_list_tree_put(struct coll_env *env, struct coll *c, struct coll_it *at,
                       const uint8_t *form, size_t flen, uint64_t n);
int coll_list_tree_at_rank(struct coll *c, uint64_t rank, struct coll_it *it, uint64_t *within);
int coll_list_tree_rewrite(struct coll_env *env, struct coll *c, uint64_t r,
                           const struct coll_list_piece *f, int nf);
int coll_list_cut_pieces(struct coll_env *env, struct coll *c, uint8_t *out, size_t len,
                         uint64_t n, struct coll_list_piece *f, int *nf);
/* Build room for a rewrite of a chunk of len bytes growing by extra (the form and its halves). */
uint8_t *coll_list_rewrite_buf(struct coll_env *env, size_t len, size_t extra);
/* Seals the inner chunk's worth of an end into a chunk of the tree (coll_list.c). */
int coll_list_seal(struct coll_env *env, struct coll *c, bool left);

#endif /* TERSE_COLL_LIST_INTERNAL_H */
