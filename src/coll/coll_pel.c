/*
 * coll_pel: a consumer group's pending entries as a chunked container (coll_pel.h): records,
 * the verified read of a chunk, life, the bulk build, seeks, chunk reads and verification.
 * Puts, deletes, splits and merges are coll_pel_edit.c's.
 *
 * Buffers: a new form is built in the env's build buffer (coll_env_build_buf, the env's) and
 * copied into its chunk; reads return views into the chunk or the env's decode buffer (the
 * env's, valid until the next chunk read or write); the record arrays coll_pel_read_chunk fills
 * are the caller's (core_realloc'd, freed with coll_pel_recs_free).
 */
#include "coll/coll_pel.h"

#include <string.h>

#include "coll/coll_pel_internal.h"
#include "core/core_mem.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* ---- records ---------------------------------------------------------------------------- */

uint8_t *pel_rec_put(uint8_t *p, const struct coll_pel_rec *r)
{
    p += codec_varint_put(p, r->id.ms);
    p += codec_varint_put(p, r->id.seq);
    p += codec_varint_put(p, r->name_len);
    if (r->name_len > 0) {
        memcpy(p, r->name, r->name_len);
    }
    p += r->name_len;
    p += codec_varint_put(p, (uint64_t)r->delivery_ms);
    return p + codec_varint_put(p, r->delivery_count);
}

int pel_rec_read(const uint8_t **p, const uint8_t *end, struct coll_pel_rec *r)
{
    uint64_t nlen, dms;

    if (store_varint_read(p, end, &r->id.ms) != 0 || store_varint_read(p, end, &r->id.seq) != 0 ||
        store_varint_read(p, end, &nlen) != 0 || nlen > (uint64_t)(end - *p)) {
        return -1;
    }
    r->name = *p;
    r->name_len = (size_t)nlen;
    *p += nlen;
    if (store_varint_read(p, end, &dms) != 0 ||
        store_varint_read(p, end, &r->delivery_count) != 0) {
        return -1;
    }
    r->delivery_ms = (int64_t)dms;
    return 0;
}

int pel_rec_skip(const uint8_t **p, const uint8_t *end, struct store_stream_id *id)
{
    struct coll_pel_rec r;

    if (pel_rec_read(p, end, &r) != 0) {
        return -1;
    }
    *id = r.id;
    return 0;
}

/* ---- a chunk, verified ------------------------------------------------------------------ */

static int pel_bad(struct coll_env *env)
{
    coll_env_count_corrupt(env);
    return TERSE_ECORRUPT;
}

int pel_open(struct coll_env *env, const struct coll_desc *d, struct pel_view *v)
{
    const uint8_t *form, *p;
    size_t len;
    uint64_t n;
    int st = coll_chunk_read(env, d->chunk, &form, &len); /* counts its own failures */

    if (st != TERSE_OK) {
        return st;
    }
    p = form;
    if (len != d->raw_len || store_varint_read(&p, form + len, &n) != 0 || n == 0 ||
        n != d->count) {
        return pel_bad(env);
    }
    v->body = p;
    v->end = form + len;
    v->n = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++) {
        struct store_stream_id id;
        if (pel_rec_skip(&p, v->end, &id) != 0) {
            return pel_bad(env);
        }
        if (i == 0) {
            if (id.ms != d->key.k || id.seq != d->key.aux) {
                return pel_bad(env);
            }
            v->first = id;
        } else if (store_stream_id_cmp(&v->last, &id) >= 0) {
            return pel_bad(env);
        }
        v->last = id;
    }
    return p == v->end ? TERSE_OK : pel_bad(env);
}

/* In the opened chunk a->v, the first record whose ID is >= id (pel_locate's). */
static void find_in(struct pel_place *a, const struct store_stream_id *id)
{
    const uint8_t *p = a->v.body;

    a->eq = false;
    for (uint32_t i = 0; i < a->v.n; i++) {
        const uint8_t *start = p;
        struct store_stream_id rid = {0, 0};
        int cmp;

        if (pel_rec_skip(&p, a->v.end, &rid) != 0) {
            break; /* never: pel_open parsed every record */
        }
        cmp = store_stream_id_cmp(&rid, id);
        if (cmp >= 0) {
            a->idx = i;
            a->at = (size_t)(start - a->v.body);
            a->at_end = (size_t)(p - a->v.body);
            a->eq = cmp == 0;
            return;
        }
    }
    a->idx = a->v.n;
    a->at = a->at_end = (size_t)(a->v.end - a->v.body);
}

/* Orders a target ID against a descriptor's key (its chunk's first ID). */
static int pel_key_cmp(void *arg, const struct coll_key *key)
{
    const struct store_stream_id k = {key->k, key->aux};

    return store_stream_id_cmp((const struct store_stream_id *)arg, &k);
}

int pel_locate(struct coll_env *env, const struct coll *c, const struct store_stream_id *id,
               struct coll_it *it, struct pel_place *a)
{
    struct store_stream_id target = *id; /* the seek's comparison takes a mutable arg */
    int st;

    if (!coll_tree_seek_key(&c->tree, pel_key_cmp, &target, it)) {
        it->leaf = NULL;
        return TERSE_OK;
    }
    st = pel_open(env, coll_tree_desc(it), &a->v);
    if (st == TERSE_OK) {
        find_in(a, id);
    }
    return st;
}

/* ---- life and bulk build ------------------------------------------------------------------ */

int coll_pel_create(struct coll_env *env, uint32_t chunk_max, struct coll **out)
{
    *out = NULL;
    if (chunk_max == 0) {
        return TERSE_EINVAL;
    }
    return coll_create(env, COLL_PEL, chunk_max, out);
}

/* Appends a chunk of recs[0..n) (form len bytes) at c's end. */
static int bulk_piece(struct coll_env *env, struct coll *c, const struct coll_pel_rec *recs,
                      size_t n, size_t len)
{
    uint8_t *b = coll_env_build_buf(env, len), *p;
    struct coll_desc d;
    struct coll_it end = {NULL, 0};
    int st;

    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    p = b + codec_varint_put(b, n);
    for (size_t i = 0; i < n; i++) {
        p = pel_rec_put(p, &recs[i]);
    }
    st = coll_chunk_put(env, c, b, len, &d.chunk);
    if (st != TERSE_OK) {
        return st;
    }
    d.count = (uint32_t)n;
    d.raw_len = (uint32_t)len;
    d.key.k = recs[0].id.ms;
    d.key.aux = recs[0].id.seq;
    st = coll_tree_insert(&c->tree, &end, &d);
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, d.chunk);
        return st;
    }
    c->count += n;
    return TERSE_OK;
}

int coll_pel_from_recs(struct coll_env *env, const struct coll_pel_rec *recs, size_t n,
                       uint32_t chunk_max, struct coll **out)
{
    struct coll *c;
    size_t from = 0, body = 0;
    int st;

    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        if ((i > 0 && store_stream_id_cmp(&recs[i - 1].id, &recs[i].id) >= 0) ||
            pel_rec_size(&recs[i]) > UINT32_MAX / 4) {
            return TERSE_EINVAL;
        }
    }
    st = coll_pel_create(env, chunk_max, &c);
    if (st != TERSE_OK) {
        return st;
    }
    for (size_t i = 0; i < n && st == TERSE_OK; i++) {
        size_t rs = pel_rec_size(&recs[i]);
        if (i > from && pel_form_len(i + 1 - from, body + rs) > pel_half(c)) {
            st = bulk_piece(env, c, recs + from, i - from, pel_form_len(i - from, body));
            from = i;
            body = 0;
        }
        body += rs;
    }
    if (st == TERSE_OK && n > from) {
        st = bulk_piece(env, c, recs + from, n - from, pel_form_len(n - from, body));
    }
    if (st != TERSE_OK) {
        coll_destroy(env, c);
        return st;
    }
    *out = c;
    return TERSE_OK;
}

/* ---- reads ----------------------------------------------------------------------------------- */

int coll_pel_seek(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                  uint64_t *rank, bool *found)
{
    struct coll_it it;
    struct pel_place a;
    int st = pel_locate(env, c, id, &it, &a);

    *rank = c->count;
    *found = false;
    if (st != TERSE_OK || !coll_it_valid(&it)) {
        return st;
    }
    /* idx == n: the next chunk's first record (its key is past id), or the end */
    *rank = coll_tree_rank_of(&it) + a.idx;
    *found = a.eq;
    return TERSE_OK;
}

int coll_pel_read_chunk(struct coll_env *env, struct coll *c, uint64_t rank,
                        struct coll_pel_chunk *out, struct coll_pel_rec **recs, size_t *cap)
{
    struct coll_it it;
    uint64_t within;
    struct pel_view v;
    const uint8_t *p;
    int st;

    out->first_rank = 0;
    out->n = 0;
    if (!coll_tree_seek_rank(&c->tree, rank, &it, &within)) {
        return TERSE_EINVAL;
    }
    st = pel_open(env, coll_tree_desc(&it), &v);
    if (st != TERSE_OK) {
        return st;
    }
    if (v.n > *cap) {
        struct coll_pel_rec *q = core_realloc(*recs, v.n * sizeof(**recs));
        if (q == NULL) {
            return TERSE_ENOMEM;
        }
        *recs = q;
        *cap = v.n;
    }
    p = v.body;
    for (uint32_t i = 0; i < v.n; i++) {
        (void)pel_rec_read(&p, v.end, &(*recs)[i]); /* pel_open parsed every record */
    }
    out->first_rank = rank - within;
    out->n = v.n;
    return TERSE_OK;
}

void coll_pel_recs_free(struct coll_pel_rec *recs)
{
    core_free(recs);
}

static int pel_key_order(const struct coll_key *a, const struct coll_key *b)
{
    const struct store_stream_id x = {a->k, a->aux}, y = {b->k, b->aux};

    return store_stream_id_cmp(&x, &y);
}

int coll_pel_verify(struct coll_env *env, struct coll *c)
{
    struct store_stream_id last = {0, 0};
    uint64_t total = 0, raw = 0;
    bool any = false;

    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        struct pel_view v;
        int st = pel_open(env, d, &v);

        if (st != TERSE_OK) {
            return st;
        }
        if (any && store_stream_id_cmp(&last, &v.first) >= 0) {
            return TERSE_ECORRUPT;
        }
        last = v.last;
        any = true;
        total += d->count;
        raw += d->raw_len;
    }
    if (total != c->count || raw != c->raw || c->type != COLL_PEL) {
        return TERSE_ECORRUPT;
    }
    return coll_tree_verify(&c->tree, pel_key_order);
}
