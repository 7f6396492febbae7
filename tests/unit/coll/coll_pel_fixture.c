/*
 * coll_pel_fixture: the oracle and checks the coll_pel tests share (coll_pel_fixture.h).
 */
#include "coll_pel_fixture.h"

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rs = 88172645463325252ULL;
uint64_t pfx_rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}


int pfx_setup(void **state)
{
    struct pfx_fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->mem_before = core_mem_used();
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    assert_int_equal(coll_env_create(&f->env), TERSE_OK);
    coll_env_set_codec(f->env, f->codec);
    *state = f;
    return 0;
}

int pfx_teardown(void **state)
{
    struct pfx_fix *f = *state;

    coll_pel_recs_free(f->recs);
    coll_env_destroy(&f->env);
    codec_ctx_destroy(&f->codec);
    assert_int_equal(core_mem_used(), f->mem_before);
    free(f);
    return 0;
}

int pfx_id_cmp(const struct store_stream_id *a, const struct store_stream_id *b)
{
    if (a->ms != b->ms) {
        return a->ms < b->ms ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The model's first record whose ID is >= id. */
size_t pfx_lower(const struct pfx_model *m, const struct store_stream_id *id)
{
    size_t lo = 0, hi = m->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pfx_id_cmp(&m->r[mid].id, id) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A random record of id: a short name (from a few, so names repeat), sometimes a long one,
 * a delivery time sometimes negative (a ten-byte varint). */
void pfx_make_rec(struct pfx_rec *r, struct store_stream_id id, size_t long_name)
{
    unsigned kind = (unsigned)(pfx_rnd() % 16);

    r->id = id;
    r->nlen = kind == 0 ? long_name : pfx_rnd() % 10;
    for (size_t i = 0; i < r->nlen; i++) {
        r->name[i] = (uint8_t)('a' + (kind == 0 ? i % 26 : pfx_rnd() % 4));
    }
    r->dms = kind == 1 ? -(int64_t)(pfx_rnd() % 1000) - 1 : (int64_t)(pfx_rnd() % 2000000);
    r->dcount = kind == 2 ? pfx_rnd() : pfx_rnd() % 5;
}

struct coll_pel_rec pfx_view_of(const struct pfx_rec *r)
{
    struct coll_pel_rec v = {r->id, r->name, r->nlen, r->dms, r->dcount};

    return v;
}

void pfx_expect_rec(const struct coll_pel_rec *got, const struct pfx_rec *want)
{
    assert_int_equal(got->id.ms, want->id.ms);
    assert_int_equal(got->id.seq, want->id.seq);
    assert_int_equal(got->name_len, want->nlen);
    if (want->nlen > 0) {
        assert_memory_equal(got->name, want->name, want->nlen);
    }
    assert_true(got->delivery_ms == want->dms);
    assert_true(got->delivery_count == want->dcount);
}

/* Every chunk a write made: at most chunk_max / 2 raw bytes, or one record. */
void pfx_chunks_within(const struct coll *c)
{
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        assert_true(d->count == 1 || d->raw_len <= c->chunk_max / 2);
    }
}

/* The PEL verifies and holds the model's records, read chunk by chunk. */
void pfx_check_all(struct pfx_fix *f, struct coll *c)
{
    const struct pfx_model *m = &f->m;
    uint64_t rank = 0;

    assert_int_equal(coll_pel_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_count(c), m->n);
    pfx_chunks_within(c);
    while (rank < m->n) {
        struct coll_pel_chunk ch;
        assert_int_equal(coll_pel_read_chunk(f->env, c, rank, &ch, &f->recs, &f->cap), TERSE_OK);
        assert_int_equal(ch.first_rank, rank);
        assert_true(ch.n >= 1 && rank + ch.n <= m->n);
        for (size_t i = 0; i < ch.n; i++) {
            pfx_expect_rec(&f->recs[i], &m->r[rank + i]);
        }
        rank += ch.n;
    }
    {
        struct coll_pel_chunk ch;
        assert_int_equal(coll_pel_read_chunk(f->env, c, m->n, &ch, &f->recs, &f->cap),
                         TERSE_EINVAL);
    }
}

/* r put into the model: whether its ID was there. */
bool pfx_m_put(struct pfx_model *m, const struct pfx_rec *r)
{
    size_t i = pfx_lower(m, &r->id);
    bool exists = i < m->n && pfx_id_cmp(&m->r[i].id, &r->id) == 0;

    if (!exists) {
        assert_true(m->n < PFX_MAXN);
        memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof(m->r[0]));
        m->n++;
    }
    m->r[i] = *r;
    return exists;
}

/* id deleted from the model: whether it was there. */
bool pfx_m_del(struct pfx_model *m, const struct store_stream_id *id)
{
    size_t i = pfx_lower(m, id);
    bool exists = i < m->n && pfx_id_cmp(&m->r[i].id, id) == 0;

    if (exists) {
        memmove(&m->r[i], &m->r[i + 1], (m->n - i - 1) * sizeof(m->r[0]));
        m->n--;
    }
    return exists;
}

size_t pfx_rec_size(const struct pfx_rec *r)
{
    return codec_varint_len(r->id.ms) + codec_varint_len(r->id.seq) + codec_varint_len(r->nlen) +
           r->nlen + codec_varint_len((uint64_t)r->dms) + codec_varint_len(r->dcount);
}

/* The descriptor of the chunk holding record rank (< count). */
const struct coll_desc *pfx_desc_at(const struct coll *c, uint64_t rank, struct coll_it *it)
{
    uint64_t within;

    assert_true(coll_tree_seek_rank(&c->tree, rank, it, &within));
    return coll_tree_desc(it);
}

/* Whether the chunk next to it (prev or next) merged with n records of len form bytes fits in
 * chunk_max / 2. */
static bool fits_beside(const struct coll *c, struct coll_it it, bool prev, uint64_t n,
                        size_t len)
{
    const struct coll_desc *d;

    if (prev) {
        coll_tree_prev(&it);
    } else {
        coll_tree_next(&it);
    }
    if (!coll_it_valid(&it)) {
        return false;
    }
    d = coll_tree_desc(&it);
    return codec_varint_len(n + d->count) + len - codec_varint_len(n) + d->raw_len -
               codec_varint_len(d->count) <=
           c->chunk_max / 2;
}

/* A put of r into the PEL and the model; an append past every ID that does not fit the last
 * chunk starts a new one, an insert that does not fit splits. */
void pfx_put(struct pfx_fix *f, struct coll *c, const struct pfx_rec *r)
{
    struct coll_pel_rec v = pfx_view_of(r);
    struct pfx_model *m = &f->m;
    size_t i = pfx_lower(m, &r->id);
    bool replaced = false, insert = i == m->n || pfx_id_cmp(&m->r[i].id, &r->id) != 0;
    uint64_t chunks = c->tree.n_chunks;
    size_t grown = 0;
    struct coll_it it;

    if (insert && m->n > 0) {
        const struct coll_desc *d = pfx_desc_at(c, i > 0 ? i - 1 : 0, &it);
        grown = d->raw_len + pfx_rec_size(r) + codec_varint_len(d->count + 1) -
                codec_varint_len(d->count);
    }
    assert_int_equal(coll_pel_put(f->env, c, &v, &replaced), TERSE_OK);
    assert_int_equal(replaced, pfx_m_put(m, r));
    if (insert && (m->n == 1 || grown > c->chunk_max / 2)) {
        assert_true(c->tree.n_chunks > chunks);
        if (i == m->n - 1) { /* an append: a new last chunk of r alone */
            assert_int_equal(c->tree.n_chunks, chunks + 1);
            assert_int_equal(pfx_desc_at(c, i, &it)->count, 1);
        }
    } else if (insert) {
        assert_int_equal(c->tree.n_chunks, chunks);
    }
}

/* A delete of id from the PEL and the model; a chunk emptied leaves the tree, one left under
 * chunk_max / 8 merges with a neighbour it fits with. */
void pfx_del(struct pfx_fix *f, struct coll *c, struct store_stream_id id)
{
    struct pfx_model *m = &f->m;
    size_t i = pfx_lower(m, &id);
    bool found = false, exists = i < m->n && pfx_id_cmp(&m->r[i].id, &id) == 0, merge = false;
    uint64_t chunks = c->tree.n_chunks;

    if (exists) {
        struct coll_it it;
        const struct coll_desc *d = pfx_desc_at(c, i, &it);
        size_t left = d->raw_len - pfx_rec_size(&m->r[i]) + codec_varint_len(d->count - 1) -
                      codec_varint_len(d->count);
        merge = d->count == 1 ||
                (left < c->chunk_max / 8 && (fits_beside(c, it, true, d->count - 1, left) ||
                                             fits_beside(c, it, false, d->count - 1, left)));
    }
    assert_int_equal(coll_pel_del(f->env, c, &id, &found), TERSE_OK);
    assert_int_equal(found, pfx_m_del(m, &id));
    assert_int_equal(c->tree.n_chunks, chunks - (merge ? 1 : 0));
}

/* An ID: past every one, between two, or one the model holds. */
struct store_stream_id pfx_pick_id(const struct pfx_model *m, unsigned how)
{
    struct store_stream_id id = {pfx_rnd() % 3000, pfx_rnd() % 3};

    if (how == 0 || m->n == 0) {
        if (m->n > 0) {
            id = m->r[m->n - 1].id;
            id.ms += pfx_rnd() % 3;
            id.seq = id.ms == m->r[m->n - 1].id.ms ? id.seq + 1 : pfx_rnd() % 2;
        }
    } else if (how == 1) {
        id = m->r[pfx_rnd() % m->n].id;
    }
    return id;
}

/* A model of n records, IDs increasing from 1-0. */
void pfx_fill_model(struct pfx_model *m, size_t n)
{
    struct store_stream_id id = {1, 0};

    m->n = 0;
    for (size_t i = 0; i < n; i++) {
        pfx_make_rec(&m->r[i], id, 60);
        id.ms += 1 + pfx_rnd() % 2;
        id.seq = pfx_rnd() % 2;
    }
    m->n = n;
}

struct coll_pel_rec *pfx_model_views(const struct pfx_model *m)
{
    struct coll_pel_rec *v = malloc((m->n + 1) * sizeof(*v));

    assert_non_null(v);
    for (size_t i = 0; i < m->n; i++) {
        v[i] = pfx_view_of(&m->r[i]);
    }
    return v;
}
