/*
 * Unit tests for coll_pel: a consumer group's pending entries as a chunked container.
 *
 * A model (a sorted array of records) takes the same random puts (appends past every ID,
 * inserts between IDs, replacements), deletes (present and absent), seeks and chunk reads as
 * PELs with tiny chunks (chunk_max 64 and 256, so chunks split and merge all the time) and a
 * roomier one with compression steps in between; after each step the PEL verifies, every
 * record read chunk by chunk equals the model's, and no chunk holds more than chunk_max / 2
 * raw bytes unless it holds one record. Then: bulk builds of 0, 1 and 10,000 records; bad
 * forms (wrong count, key, order, a byte left over, a flipped byte) answer TERSE_ECORRUPT to
 * every read and change nothing on a write; each allocation of a put, a delete and a bulk
 * build failing in turn leaves the PEL as it was and leaks nothing; compressed chunks read
 * and edit back the same.
 */
#include "coll/coll_pel.h"

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

#define MAXN 12000
#define NAMEMAX 200

struct mrec {
    struct store_stream_id id;
    uint8_t name[NAMEMAX];
    size_t nlen;
    int64_t dms;
    uint64_t dcount;
};

struct model {
    struct mrec r[MAXN];
    size_t n;
};

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

struct fix {
    struct coll_env *env;
    struct codec_ctx *codec;
    struct model m;
    struct coll_pel_rec *recs; /* read_chunk's array (core_realloc'd) */
    size_t cap;
    uint64_t mem_before;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->mem_before = core_mem_used();
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    assert_int_equal(coll_env_create(&f->env), TERSE_OK);
    coll_env_set_codec(f->env, f->codec);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;

    coll_pel_recs_free(f->recs);
    coll_env_destroy(&f->env);
    codec_ctx_destroy(&f->codec);
    assert_int_equal(core_mem_used(), f->mem_before);
    free(f);
    return 0;
}

static int id_cmp(const struct store_stream_id *a, const struct store_stream_id *b)
{
    if (a->ms != b->ms) {
        return a->ms < b->ms ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The model's first record whose ID is >= id. */
static size_t m_lower(const struct model *m, const struct store_stream_id *id)
{
    size_t lo = 0, hi = m->n;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (id_cmp(&m->r[mid].id, id) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A random record of id: a short name (from a few, so names repeat), sometimes a long one,
 * a delivery time sometimes negative (a ten-byte varint). */
static void make_rec(struct mrec *r, struct store_stream_id id, size_t long_name)
{
    unsigned kind = (unsigned)(rnd() % 16);

    r->id = id;
    r->nlen = kind == 0 ? long_name : rnd() % 10;
    for (size_t i = 0; i < r->nlen; i++) {
        r->name[i] = (uint8_t)('a' + (kind == 0 ? i % 26 : rnd() % 4));
    }
    r->dms = kind == 1 ? -(int64_t)(rnd() % 1000) - 1 : (int64_t)(rnd() % 2000000);
    r->dcount = kind == 2 ? rnd() : rnd() % 5;
}

static struct coll_pel_rec view_of(const struct mrec *r)
{
    struct coll_pel_rec v = {r->id, r->name, r->nlen, r->dms, r->dcount};

    return v;
}

static void expect_rec(const struct coll_pel_rec *got, const struct mrec *want)
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
static void chunks_within(const struct coll *c)
{
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        assert_true(d->count == 1 || d->raw_len <= c->chunk_max / 2);
    }
}

/* The PEL verifies and holds the model's records, read chunk by chunk. */
static void check_all(struct fix *f, struct coll *c)
{
    const struct model *m = &f->m;
    uint64_t rank = 0;

    assert_int_equal(coll_pel_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_count(c), m->n);
    chunks_within(c);
    while (rank < m->n) {
        struct coll_pel_chunk ch;
        assert_int_equal(coll_pel_read_chunk(f->env, c, rank, &ch, &f->recs, &f->cap), TERSE_OK);
        assert_int_equal(ch.first_rank, rank);
        assert_true(ch.n >= 1 && rank + ch.n <= m->n);
        for (size_t i = 0; i < ch.n; i++) {
            expect_rec(&f->recs[i], &m->r[rank + i]);
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
static bool m_put(struct model *m, const struct mrec *r)
{
    size_t i = m_lower(m, &r->id);
    bool exists = i < m->n && id_cmp(&m->r[i].id, &r->id) == 0;

    if (!exists) {
        assert_true(m->n < MAXN);
        memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof(m->r[0]));
        m->n++;
    }
    m->r[i] = *r;
    return exists;
}

/* id deleted from the model: whether it was there. */
static bool m_del(struct model *m, const struct store_stream_id *id)
{
    size_t i = m_lower(m, id);
    bool exists = i < m->n && id_cmp(&m->r[i].id, id) == 0;

    if (exists) {
        memmove(&m->r[i], &m->r[i + 1], (m->n - i - 1) * sizeof(m->r[0]));
        m->n--;
    }
    return exists;
}

static size_t rec_size(const struct mrec *r)
{
    return codec_varint_len(r->id.ms) + codec_varint_len(r->id.seq) + codec_varint_len(r->nlen) +
           r->nlen + codec_varint_len((uint64_t)r->dms) + codec_varint_len(r->dcount);
}

/* The descriptor of the chunk holding record rank (< count). */
static const struct coll_desc *desc_at(const struct coll *c, uint64_t rank, struct coll_it *it)
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
static void do_put(struct fix *f, struct coll *c, const struct mrec *r)
{
    struct coll_pel_rec v = view_of(r);
    struct model *m = &f->m;
    size_t i = m_lower(m, &r->id);
    bool replaced = false, insert = i == m->n || id_cmp(&m->r[i].id, &r->id) != 0;
    uint64_t chunks = c->tree.n_chunks;
    size_t grown = 0;
    struct coll_it it;

    if (insert && m->n > 0) {
        const struct coll_desc *d = desc_at(c, i > 0 ? i - 1 : 0, &it);
        grown = d->raw_len + rec_size(r) + codec_varint_len(d->count + 1) -
                codec_varint_len(d->count);
    }
    assert_int_equal(coll_pel_put(f->env, c, &v, &replaced), TERSE_OK);
    assert_int_equal(replaced, m_put(m, r));
    if (insert && (m->n == 1 || grown > c->chunk_max / 2)) {
        assert_true(c->tree.n_chunks > chunks);
        if (i == m->n - 1) { /* an append: a new last chunk of r alone */
            assert_int_equal(c->tree.n_chunks, chunks + 1);
            assert_int_equal(desc_at(c, i, &it)->count, 1);
        }
    } else if (insert) {
        assert_int_equal(c->tree.n_chunks, chunks);
    }
}

/* A delete of id from the PEL and the model; a chunk emptied leaves the tree, one left under
 * chunk_max / 8 merges with a neighbour it fits with. */
static void do_del(struct fix *f, struct coll *c, struct store_stream_id id)
{
    struct model *m = &f->m;
    size_t i = m_lower(m, &id);
    bool found = false, exists = i < m->n && id_cmp(&m->r[i].id, &id) == 0, merge = false;
    uint64_t chunks = c->tree.n_chunks;

    if (exists) {
        struct coll_it it;
        const struct coll_desc *d = desc_at(c, i, &it);
        size_t left = d->raw_len - rec_size(&m->r[i]) + codec_varint_len(d->count - 1) -
                      codec_varint_len(d->count);
        merge = d->count == 1 ||
                (left < c->chunk_max / 8 && (fits_beside(c, it, true, d->count - 1, left) ||
                                             fits_beside(c, it, false, d->count - 1, left)));
    }
    assert_int_equal(coll_pel_del(f->env, c, &id, &found), TERSE_OK);
    assert_int_equal(found, m_del(m, &id));
    assert_int_equal(c->tree.n_chunks, chunks - (merge ? 1 : 0));
}

/* An ID: past every one, between two, or one the model holds. */
static struct store_stream_id pick_id(const struct model *m, unsigned how)
{
    struct store_stream_id id = {rnd() % 3000, rnd() % 3};

    if (how == 0 || m->n == 0) {
        if (m->n > 0) {
            id = m->r[m->n - 1].id;
            id.ms += rnd() % 3;
            id.seq = id.ms == m->r[m->n - 1].id.ms ? id.seq + 1 : rnd() % 2;
        }
    } else if (how == 1) {
        id = m->r[rnd() % m->n].id;
    }
    return id;
}

static void random_run(struct fix *f, uint32_t chunk_max, int steps, size_t long_name,
                       bool compress)
{
    struct coll *c;
    struct model *m = &f->m;

    m->n = 0;
    assert_int_equal(coll_pel_create(f->env, chunk_max, &c), TERSE_OK);
    for (int k = 0; k < steps; k++) {
        unsigned op = (unsigned)(rnd() % 100);
        bool growing = (k / 1500) % 2 == 0; /* phases: grow (splits), then shrink (merges) */
        struct mrec r;

        if (op < (growing ? 70u : 20u)) {
            make_rec(&r, pick_id(m, (unsigned)(rnd() % 5) % 3), long_name);
            do_put(f, c, &r);
        } else if (op < 80u) {
            do_del(f, c, pick_id(m, rnd() % 4 == 0 ? 2 : 1));
        } else if (op < 90) {
            struct store_stream_id id = pick_id(m, (unsigned)(rnd() % 3));
            uint64_t rank;
            bool found;
            size_t i = m_lower(m, &id);
            assert_int_equal(coll_pel_seek(f->env, c, &id, &rank, &found), TERSE_OK);
            assert_int_equal(rank, i);
            assert_int_equal(found, i < m->n && id_cmp(&m->r[i].id, &id) == 0);
        } else if (m->n > 0) {
            uint64_t at = rnd() % m->n;
            struct coll_pel_chunk ch;
            assert_int_equal(coll_pel_read_chunk(f->env, c, at, &ch, &f->recs, &f->cap),
                             TERSE_OK);
            assert_true(ch.first_rank <= at && at < ch.first_rank + ch.n);
            for (size_t i = 0; i < ch.n; i++) {
                expect_rec(&f->recs[i], &m->r[ch.first_rank + i]);
            }
        }
        if (compress && k % 50 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        check_all(f, c);
    }
    while (m->n > 0) {
        do_del(f, c, m->r[rnd() % m->n].id);
        if (m->n % 16 == 0) {
            check_all(f, c);
        }
    }
    check_all(f, c);
    assert_int_equal(c->tree.n_chunks, 0);
    coll_destroy(f->env, c);
}

static void test_random_64(void **state)
{
    random_run(*state, 64, 10000, 40, false);
}

static void test_random_256(void **state)
{
    random_run(*state, 256, 10000, 150, false);
}

static void test_random_compressed(void **state)
{
    random_run(*state, 4096, 4000, 180, true);
}

/* A model of n records, IDs increasing from 1-0. */
static void fill_model(struct model *m, size_t n)
{
    struct store_stream_id id = {1, 0};

    m->n = 0;
    for (size_t i = 0; i < n; i++) {
        make_rec(&m->r[i], id, 60);
        id.ms += 1 + rnd() % 2;
        id.seq = rnd() % 2;
    }
    m->n = n;
}

static struct coll_pel_rec *model_views(const struct model *m)
{
    struct coll_pel_rec *v = malloc((m->n + 1) * sizeof(*v));

    assert_non_null(v);
    for (size_t i = 0; i < m->n; i++) {
        v[i] = view_of(&m->r[i]);
    }
    return v;
}

static void test_from_recs(void **state)
{
    struct fix *f = *state;
    static const size_t sizes[] = {0, 1, 10000};
    struct coll *c;

    for (size_t s = 0; s < 3; s++) {
        struct coll_pel_rec *v;
        fill_model(&f->m, sizes[s]);
        v = model_views(&f->m);
        assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 256, &c), TERSE_OK);
        check_all(f, c);
        for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it);
             coll_tree_next(&it)) {
            struct coll_it nx = it;
            coll_tree_next(&nx);
            if (coll_it_valid(&nx)) { /* filled: the next chunk's first record did not fit */
                uint64_t first = coll_tree_rank_of(&nx);
                const struct coll_desc *d = coll_tree_desc(&it);
                struct coll_pel_rec r = v[first];
                size_t rsz = codec_varint_len(r.id.ms) + codec_varint_len(r.id.seq) +
                             codec_varint_len(r.name_len) + r.name_len +
                             codec_varint_len((uint64_t)r.delivery_ms) +
                             codec_varint_len(r.delivery_count);
                assert_true(d->raw_len - codec_varint_len(d->count) +
                                codec_varint_len(d->count + 1) + rsz >
                            128);
            }
        }
        coll_destroy(f->env, c);
        if (f->m.n > 1) { /* not increasing: refused */
            v[1].id = v[0].id;
            c = (struct coll *)&c;
            assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 256, &c), TERSE_EINVAL);
            assert_null(c);
        }
        free(v);
    }
    assert_int_equal(coll_pel_from_recs(f->env, NULL, 0, 0, &c), TERSE_EINVAL);
    assert_int_equal(coll_pel_create(f->env, 0, &c), TERSE_EINVAL);
}

/* A chunk form of the model's records [a, b) into buf: its length. */
static size_t form_of(const struct model *m, size_t a, size_t b, uint8_t *buf)
{
    uint8_t *p = buf + codec_varint_put(buf, b - a);

    for (size_t i = a; i < b; i++) {
        const struct mrec *r = &m->r[i];
        p += codec_varint_put(p, r->id.ms);
        p += codec_varint_put(p, r->id.seq);
        p += codec_varint_put(p, r->nlen);
        memcpy(p, r->name, r->nlen);
        p += r->nlen;
        p += codec_varint_put(p, (uint64_t)r->dms);
        p += codec_varint_put(p, r->dcount);
    }
    return (size_t)(p - buf);
}

/* A PEL of one adopted chunk of form (len bytes), count and key as given. */
static struct coll *adopt_one(struct fix *f, const uint8_t *form, size_t len, uint32_t count,
                              struct store_stream_id key)
{
    uint8_t stored[4096];
    size_t slen;
    struct coll *c;
    struct coll_key k = {key.ms, key.seq};

    assert_int_equal(codec_value_encode_raw(form, len, stored, sizeof(stored), &slen), TERSE_OK);
    assert_int_equal(coll_pel_create(f->env, 4096, &c), TERSE_OK);
    assert_int_equal(coll_adopt_chunk(f->env, c, stored, slen, count, &k), TERSE_OK);
    return c;
}

/* Every read of c fails TERSE_ECORRUPT (counted), every write to it too, changing nothing. */
static void expect_corrupt(struct fix *f, struct coll *c, struct store_stream_id in)
{
    struct coll_env_stats before, after;
    struct coll_pel_chunk ch;
    struct coll_pel_rec r = {in, (const uint8_t *)"x", 1, 5, 1};
    uint64_t rank, count = coll_count(c), raw = c->raw;
    bool found, replaced;

    coll_env_stats_get(f->env, &before);
    assert_int_equal(coll_pel_verify(f->env, c), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_read_chunk(f->env, c, 0, &ch, &f->recs, &f->cap), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_seek(f->env, c, &in, &rank, &found), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_put(f->env, c, &r, &replaced), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_del(f->env, c, &in, &found), TERSE_ECORRUPT);
    coll_env_stats_get(f->env, &after);
    assert_true(after.n_corrupt >= before.n_corrupt + 5);
    assert_int_equal(coll_count(c), count);
    assert_int_equal(c->raw, raw);
}

static void test_bad_forms(void **state)
{
    struct fix *f = *state;
    uint8_t form[2048];
    size_t len;
    struct coll *c;
    struct store_stream_id first;

    fill_model(&f->m, 5);
    first = f->m.r[0].id;
    len = form_of(&f->m, 0, 5, form);
    c = adopt_one(f, form, len, 5, first); /* a good one: verifies */
    assert_int_equal(coll_pel_verify(f->env, c), TERSE_OK);
    coll_destroy(f->env, c);
    c = adopt_one(f, form, len, 4, first); /* count disagrees */
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    c = adopt_one(f, form, len, 5, f->m.r[1].id); /* key disagrees */
    expect_corrupt(f, c, f->m.r[1].id);
    coll_destroy(f->env, c);
    form[len] = 0; /* a byte left over */
    c = adopt_one(f, form, len + 1, 5, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    f->m.r[3].id = f->m.r[2].id; /* IDs not increasing */
    len = form_of(&f->m, 0, 5, form);
    c = adopt_one(f, form, len, 5, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    len = form_of(&f->m, 0, 2, form); /* truncated: a record cut */
    c = adopt_one(f, form, len - 1, 2, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
}

/* A flipped byte in one chunk: reads and writes of it fail and change nothing; other chunks
 * still answer; the byte flipped back, the PEL is as it was. RAW, then compressed. */
static void test_flipped_byte(void **state)
{
    struct fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;

    fill_model(&f->m, 3000);
    v = model_views(&f->m);
    assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 1024, &c), TERSE_OK);
    free(v);
    for (int round = 0; round < 2; round++) {
        struct coll_it it;
        uint64_t within, rank = f->m.n / 2, other;
        struct coll_chunk *ch;
        uint32_t at;
        struct coll_pel_chunk pc;

        if (round == 1) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        assert_true(coll_tree_seek_rank(&c->tree, rank, &it, &within));
        ch = coll_tree_desc(&it)->chunk;
        at = ch->len - 1 - (uint32_t)(rnd() % (ch->len / 2));
        ch->data[at] ^= 0x20;
        rank -= within;
        other = rank == 0 ? coll_tree_desc(&it)->count : 0;
        {
            struct coll_env_stats before, after;
            uint64_t r2;
            bool found, replaced;
            struct mrec nr;
            struct coll_pel_rec pr;
            make_rec(&nr, f->m.r[rank + 1].id, 10);
            pr = view_of(&nr);
            coll_env_stats_get(f->env, &before);
            assert_int_equal(coll_pel_read_chunk(f->env, c, rank, &pc, &f->recs, &f->cap),
                             TERSE_ECORRUPT);
            assert_int_equal(coll_pel_seek(f->env, c, &f->m.r[rank].id, &r2, &found),
                             TERSE_ECORRUPT);
            assert_int_equal(coll_pel_put(f->env, c, &pr, &replaced), TERSE_ECORRUPT);
            assert_int_equal(coll_pel_del(f->env, c, &f->m.r[rank].id, &found), TERSE_ECORRUPT);
            assert_int_equal(coll_pel_verify(f->env, c), TERSE_ECORRUPT);
            coll_env_stats_get(f->env, &after);
            assert_true(after.n_corrupt >= before.n_corrupt + 5);
            assert_int_equal(coll_pel_read_chunk(f->env, c, other, &pc, &f->recs, &f->cap),
                             TERSE_OK);
            expect_rec(&f->recs[0], &f->m.r[pc.first_rank]);
        }
        ch->data[at] ^= 0x20;
        check_all(f, c);
    }
    coll_corrupt(c);
    expect_corrupt(f, c, f->m.r[0].id);
    coll_destroy(f->env, c);
}

/* Each allocation of a put, a delete and a bulk build failing in turn: TERSE_ENOMEM, the PEL
 * as it was, nothing leaked. */
static void test_oom(void **state)
{
    struct fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;
    size_t failed = 0;

    fill_model(&f->m, 2000);
    v = model_views(&f->m);
    for (uint64_t nth = 1;; nth++) {
        uint64_t before;
        int r;
        coll_env_trim(f->env, 0);
        before = core_mem_used();
        core_mem_fail_after(nth);
        r = coll_pel_from_recs(f->env, v, f->m.n, 128, &c);
        core_mem_fail_after(0);
        if (r != TERSE_ENOMEM) {
            assert_int_equal(r, TERSE_OK);
            break;
        }
        assert_null(c);
        coll_env_trim(f->env, 0);
        assert_int_equal(core_mem_used(), before);
        failed++;
    }
    free(v);
    check_all(f, c);
    for (int k = 0; k < 400; k++) {
        unsigned op = (unsigned)(rnd() % 4);
        struct mrec nr;
        struct store_stream_id id = pick_id(&f->m, op == 3 ? 1 : op);
        struct coll_pel_rec pr;
        bool flag = false;
        int r;

        make_rec(&nr, id, 100);
        pr = view_of(&nr);
        if (k % 9 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        for (uint64_t nth = 1;; nth++) {
            flag = false;
            coll_env_trim(f->env, 0); /* no spare blocks: every block is allocated, and may fail */
            core_mem_fail_after(nth);
            r = op == 3 ? coll_pel_del(f->env, c, &id, &flag) : coll_pel_put(f->env, c, &pr, &flag);
            core_mem_fail_after(0);
            if (r != TERSE_ENOMEM) {
                assert_int_equal(r, TERSE_OK);
                break;
            }
            assert_false(flag);
            failed++;
            check_all(f, c);
        }
        assert_int_equal(flag, op == 3 ? m_del(&f->m, &id) : m_put(&f->m, &nr));
        if (k % 20 == 0) {
            check_all(f, c);
        }
    }
    check_all(f, c);
    assert_true(failed > 400);
    coll_destroy(f->env, c);
}

/* Compressed chunks: every record still reads back after a full pass; edits on them too. */
static void test_compressed(void **state)
{
    struct fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;
    struct coll_env_stats st;
    size_t compressed = 0;

    fill_model(&f->m, 5000);
    v = model_views(&f->m);
    assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 8192, &c), TERSE_OK);
    free(v);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_pending, 0);
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        struct codec_value_info info;
        const struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        assert_int_equal(codec_value_info(ch->data, ch->len, &info), TERSE_OK);
        compressed += info.kind != CODEC_RAW;
    }
    assert_true(compressed > 0);
    check_all(f, c);
    for (int k = 0; k < 500; k++) {
        struct mrec nr;
        if (k % 2 == 0) {
            make_rec(&nr, pick_id(&f->m, (unsigned)(rnd() % 3)), 100);
            do_put(f, c, &nr);
        } else {
            do_del(f, c, pick_id(&f->m, 1));
        }
        if (k % 100 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            check_all(f, c);
        }
    }
    check_all(f, c);
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_64, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_256, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_compressed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_from_recs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flipped_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compressed, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
