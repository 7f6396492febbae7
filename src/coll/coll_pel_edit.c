/*
 * coll_pel_edit: a PEL's writes (coll_pel.h): puts, deletes, and the splits and merges they
 * make.
 *
 * Every write opens (reads and verifies whole, pel_open) the chunk it changes before it
 * changes anything, builds the chunk's new records in the env's build buffer (the env's; at
 * PEL_PFX bytes in, so a piece's count varint can be written just before its first record),
 * and changes the tree only once every allocation it needs has succeeded, or undoes what it
 * did (a failed split removes the pieces it inserted), so a failure leaves the container as
 * it was. A split keeps its records' offsets in the env's side buffer (the env's).
 *
 *   build buffer: | PEL_PFX room | rec rec rec ... rec |
 *                        ^ piece 0's count varint ends here; piece j's overwrites the tail of
 *                          piece j - 1, already copied into its chunk
 */
#include "coll/coll_pel.h"

#include <string.h>

#include "coll/coll_pel_internal.h"
#include "terse/status.h"

/* The chunk at it rewritten as form (len bytes, in the build buffer) of n records, first
 * ID first: count, raw_len, key and c->count follow. */
static int rewrite_at(struct coll_env *env, struct coll *c, const struct coll_it *it,
                      const uint8_t *form, size_t len, uint32_t n,
                      const struct store_stream_id *first)
{
    const struct coll_key k = {first->ms, first->seq};

    return coll_desc_rewrite(env, c, it, form, len, n, &k);
}

/* A new chunk of r alone (rs bytes of record) inserted before at (invalid: at the end). */
static int put_alone(struct coll_env *env, struct coll *c, struct coll_it *at,
                     const struct coll_pel_rec *r, size_t rs)
{
    size_t len = pel_form_len(1, rs);
    uint8_t *b = coll_env_build_buf(env, len);
    struct coll_desc d;
    int st;

    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    b[0] = 1;
    (void)pel_rec_put(b + 1, r);
    st = coll_chunk_put(env, c, b, len, &d.chunk);
    if (st != TERSE_OK) {
        return st;
    }
    d.count = 1;
    d.raw_len = (uint32_t)len;
    d.key.k = r->id.ms;
    d.key.aux = r->id.seq;
    st = coll_tree_insert(&c->tree, at, &d);
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, d.chunk);
        return st;
    }
    c->count++;
    return TERSE_OK;
}

/* ---- splits ----------------------------------------------------------------------------------- */

/* A split of the records body[off[0]..off[n]) that replace the chunk whose first record has
 * rank base (old_n records), cut into pieces of at most half bytes (or one record). */
struct pel_split {
    struct coll_env *env;
    struct coll *c;
    uint8_t *body;         /* the build buffer at PEL_PFX */
    const uint32_t *off;   /* n + 1 record offsets in body (the side buffer) */
    size_t half;
    uint64_t base;         /* the rank of the replaced chunk's first record */
    uint32_t old_n;        /* its records */
    struct coll_desc first; /* piece 0: a new chunk, swapped in for the old one at the end */
    bool have_first;
    struct coll_it at;     /* where the next piece goes (before it; invalid: the end) */
    uint64_t inserted;     /* pieces after the first in the tree */
    int st;
};

static void split_piece(struct pel_split *s, uint32_t a, uint32_t b)
{
    uint32_t n = b - a;
    size_t vl = codec_varint_len(n), len = vl + (s->off[b] - s->off[a]);
    uint8_t *form = s->body + s->off[a] - vl;
    const uint8_t *p = s->body + s->off[a];
    struct store_stream_id first = {0, 0};
    struct coll_desc d;

    (void)pel_rec_skip(&p, s->body + s->off[b], &first); /* built from verified records */
    (void)codec_varint_put(form, n);
    s->st = coll_chunk_put(s->env, s->c, form, len, &d.chunk);
    if (s->st != TERSE_OK) {
        return;
    }
    d.count = n;
    d.raw_len = (uint32_t)len;
    d.key.k = first.ms;
    d.key.aux = first.seq;
    if (!s->have_first) {
        s->first = d;
        s->have_first = true;
        return;
    }
    s->st = coll_tree_insert(&s->c->tree, &s->at, &d);
    if (s->st != TERSE_OK) {
        coll_chunk_drop(s->env, s->c, d.chunk);
        return;
    }
    s->inserted++;
    coll_tree_next(&s->at); /* the next piece goes after this one */
}

/* Cuts [a, b) at the record boundary nearest its middle byte until every piece fits. */
static void split_range(struct pel_split *s, uint32_t a, uint32_t b)
{
    uint32_t m = a + 1;
    size_t mid = s->off[a] + (s->off[b] - s->off[a]) / 2;

    if (s->st != TERSE_OK) {
        return;
    }
    if (b - a == 1 || pel_form_len(b - a, s->off[b] - s->off[a]) <= s->half) {
        split_piece(s, a, b);
        return;
    }
    while (m + 1 < b && s->off[m] < mid) {
        m++;
    }
    if (m - 1 > a && mid - s->off[m - 1] < (s->off[m] > mid ? s->off[m] - mid : 0)) {
        m--;
    }
    split_range(s, a, m);
    split_range(s, m, b);
}

/* Replaces the chunk at it (old_n records) by the n records of body (len bytes, at PEL_PFX in
 * the build buffer) cut into pieces. */
static int split_write(struct coll_env *env, struct coll *c, const struct coll_it *it,
                       uint32_t old_n, uint8_t *body, size_t len, uint32_t n)
{
    uint32_t *off = (uint32_t *)(void *)coll_env_side_buf(env, ((size_t)n + 1) * sizeof(*off));
    struct pel_split s = {env, c, body, off, pel_half(c), coll_tree_rank_of(it), old_n,
                          {NULL, 0, 0, {0, 0}}, false, *it, 0, TERSE_OK};
    const uint8_t *p = body;
    struct coll_desc *d;
    struct coll_chunk *old;
    uint64_t within;

    if (off == NULL) {
        return TERSE_ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct store_stream_id id = {0, 0};
        off[i] = (uint32_t)(p - body);
        (void)pel_rec_skip(&p, body + len, &id);
    }
    off[n] = (uint32_t)len;
    coll_tree_next(&s.at);
    split_range(&s, 0, n);
    if (s.st != TERSE_OK) {
        for (uint64_t i = 0; i < s.inserted; i++) { /* they follow the old chunk, in order */
            struct coll_it at;
            struct coll_chunk *ch;
            (void)coll_tree_seek_rank(&c->tree, s.base + old_n, &at, &within);
            ch = coll_tree_desc(&at)->chunk;
            coll_tree_remove(&c->tree, &at);
            coll_chunk_drop(env, c, ch);
        }
        if (s.have_first) {
            coll_chunk_drop(env, c, s.first.chunk);
        }
        return s.st;
    }
    (void)coll_tree_seek_rank(&c->tree, s.base, &s.at, &within); /* the old chunk again */
    d = coll_tree_desc(&s.at);
    old = d->chunk;
    d->chunk = s.first.chunk;
    d->raw_len = s.first.raw_len;
    c->count = c->count - old_n + n;
    coll_tree_set_count(&c->tree, &s.at, s.first.count);
    if (s.first.key.k != d->key.k || s.first.key.aux != d->key.aux) {
        coll_tree_set_key(&c->tree, &s.at, &s.first.key);
    }
    coll_chunk_drop(env, c, old);
    return TERSE_OK;
}

/* ---- puts ------------------------------------------------------------------------------------- */

int coll_pel_put(struct coll_env *env, struct coll *c, const struct coll_pel_rec *r,
                 bool *replaced)
{
    struct coll_it it, next;
    struct pel_place pl;
    struct pel_view v;
    uint32_t idx, nn;
    size_t rs = pel_rec_size(r), at, at_end, body_len, nbody, nlen, vl;
    bool eq, dummy;
    uint8_t *b, *q;
    struct store_stream_id first;
    int st;

    replaced = replaced != NULL ? replaced : &dummy;
    *replaced = false;
    if (rs > UINT32_MAX / 4) {
        return TERSE_ETOOBIG;
    }
    st = pel_locate(env, c, &r->id, &it, &pl);
    if (st != TERSE_OK) {
        return st;
    }
    if (!coll_it_valid(&it)) {
        return put_alone(env, c, &it, r, rs); /* an empty PEL: its first chunk */
    }
    v = pl.v;
    idx = pl.idx;
    at = pl.at;
    eq = pl.eq;
    at_end = eq ? pl.at_end : at; /* the bytes r replaces */
    body_len = (size_t)(v.end - v.body);
    nn = v.n + (eq ? 0 : 1);
    nbody = body_len - (at_end - at) + rs;
    nlen = pel_form_len(nn, nbody);
    if (nbody > UINT32_MAX / 2) {
        return TERSE_ETOOBIG;
    }
    next = it;
    coll_tree_next(&next);
    if (!eq && idx == v.n && nlen > pel_half(c) && !coll_it_valid(&next)) {
        return put_alone(env, c, &next, r, rs); /* past every ID: a new last chunk fills */
    }
    b = coll_env_build_buf(env, PEL_PFX + nbody);
    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    q = b + PEL_PFX;
    memcpy(q, v.body, at);
    q = pel_rec_put(q + at, r);
    memcpy(q, v.body + at_end, body_len - at_end);
    first = idx == 0 ? r->id : v.first;
    if (nlen > pel_half(c) && nn > 1) {
        st = split_write(env, c, &it, v.n, b + PEL_PFX, nbody, nn);
    } else {
        vl = codec_varint_len(nn);
        (void)codec_varint_put(b + PEL_PFX - vl, nn);
        st = rewrite_at(env, c, &it, b + PEL_PFX - vl, nlen, nn, &first);
    }
    if (st == TERSE_OK) {
        *replaced = eq;
    }
    return st;
}

/* ---- deletes ---------------------------------------------------------------------------------- */

/* A deleted record's chunk (at it, opened as v; the record the bytes [at, at_end) of its body)
 * merged with the neighbour nb (before it when prev) into one chunk of mlen bytes, the left
 * one's: its neighbour is read (and verified) only once this chunk's records are copied. */
static int merge_write(struct coll_env *env, struct coll *c, struct coll_it *it,
                       const struct pel_view *v, size_t at, size_t at_end,
                       const struct store_stream_id *first, struct coll_it *nb, bool prev,
                       size_t mlen)
{
    struct coll_desc *nd = coll_tree_desc(nb);
    uint32_t n = v->n - 1 + nd->count;
    size_t vl = codec_varint_len(n), body_len = (size_t)(v->end - v->body);
    size_t mine = body_len - (at_end - at), theirs = mlen - vl - mine;
    uint8_t *b = coll_env_build_buf(env, mlen), *q;
    struct store_stream_id vfirst = v->first, vlast = v->last, nfirst = *first;
    struct pel_view w;
    struct coll_it *left = prev ? nb : it, *right = prev ? it : nb;
    struct coll_chunk *gone;
    int st;

    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    (void)codec_varint_put(b, n);
    q = b + vl + (prev ? theirs : 0);
    memcpy(q, v->body, at);
    memcpy(q + at, v->body + at_end, body_len - at_end);
    st = pel_open(env, nd, &w); /* v may be gone from here on */
    if (st != TERSE_OK) {
        return st;
    }
    if ((size_t)(w.end - w.body) != theirs ||
        (prev ? store_stream_id_cmp(&w.last, &vfirst) >= 0 : store_stream_id_cmp(&vlast, &w.first) >= 0)) {
        coll_env_count_corrupt(env);
        return TERSE_ECORRUPT; /* the two chunks overlap: the tree's order is broken */
    }
    memcpy(b + vl + (prev ? 0 : mine), w.body, theirs);
    st = rewrite_at(env, c, left, b, mlen, n, prev ? &w.first : &nfirst);
    if (st != TERSE_OK) {
        return st;
    }
    gone = coll_tree_desc(right)->chunk;
    c->count -= coll_tree_desc(right)->count; /* rewrite_at counted them in the left chunk */
    coll_tree_remove(&c->tree, right);
    coll_chunk_drop(env, c, gone);
    return TERSE_OK;
}

/* The bytes of the form the chunk at it (keeping n records of body bytes) makes merged with
 * its neighbour nb (0 when nb is invalid or its descriptor is inconsistent). */
static size_t merged_len(const struct coll_it *nb, uint32_t n, size_t body)
{
    const struct coll_desc *nd;
    size_t vl;

    if (!coll_it_valid(nb)) {
        return 0;
    }
    nd = coll_tree_desc(nb);
    vl = codec_varint_len(nd->count);
    return nd->raw_len > vl ? pel_form_len((uint64_t)n + nd->count, body + nd->raw_len - vl) : 0;
}

int coll_pel_del(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                 bool *found)
{
    struct coll_it it, nb;
    struct pel_place pl;
    struct pel_view v;
    uint32_t idx;
    size_t at, at_end, body_len, nbody, nlen, vl, ml;
    bool dummy;
    uint8_t *b;
    struct store_stream_id first;
    int st;

    found = found != NULL ? found : &dummy;
    *found = false;
    st = pel_locate(env, c, id, &it, &pl);
    if (st != TERSE_OK || !coll_it_valid(&it) || !pl.eq) {
        return st;
    }
    v = pl.v;
    idx = pl.idx;
    at = pl.at;
    at_end = pl.at_end;
    if (v.n == 1) { /* emptied: the chunk leaves the tree (which never allocates to) */
        struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        coll_tree_remove(&c->tree, &it);
        coll_chunk_drop(env, c, ch);
        c->count--;
        *found = true;
        return TERSE_OK;
    }
    body_len = (size_t)(v.end - v.body);
    nbody = body_len - (at_end - at);
    nlen = pel_form_len(v.n - 1, nbody);
    first = v.first;
    if (idx == 0) {
        const uint8_t *p = v.body + at_end;
        (void)pel_rec_skip(&p, v.end, &first); /* the second record is the first now */
    }
    if (nlen < c->chunk_max / 8) {
        for (int side = 0; side < 2; side++) {
            nb = it;
            if (side == 0) {
                coll_tree_prev(&nb);
            } else {
                coll_tree_next(&nb);
            }
            ml = merged_len(&nb, v.n - 1, nbody);
            if (ml > 0 && ml <= pel_half(c)) {
                st = merge_write(env, c, &it, &v, at, at_end, &first, &nb, side == 0, ml);
                *found = st == TERSE_OK;
                return st;
            }
        }
    }
    b = coll_env_build_buf(env, PEL_PFX + nbody);
    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    vl = codec_varint_len(v.n - 1);
    (void)codec_varint_put(b, v.n - 1);
    memcpy(b + vl, v.body, at);
    memcpy(b + vl + at, v.body + at_end, body_len - at_end);
    st = rewrite_at(env, c, &it, b, nlen, v.n - 1, &first);
    *found = st == TERSE_OK;
    return st;
}
