/*
 * coll_hash_fixture: the model and checks of the coll_hash tests (coll_hash_fixture.h).
 */
#include "coll_hash_fixture.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_hash.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rs = 88172645463325252ULL;
uint64_t hfx_rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

int hfx_setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->mem0 = core_mem_used();
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    assert_int_equal(coll_env_create(&f->env), TERSE_OK);
    coll_env_set_codec(f->env, f->codec);
    coll_env_set_seed(f->env, 0x5eed5eed1234ULL);
    *state = f;
    return 0;
}

int hfx_teardown(void **state)
{
    struct fix *f = *state;

    for (size_t i = 0; i < f->m.cap; i++) {
        free(f->m.e[i].v);
    }
    free(f->m.e);
    coll_env_destroy(&f->env);
    codec_ctx_destroy(&f->codec);
    assert_int_equal(core_mem_used(), f->mem0); /* nothing leaked */
    free(f);
    return 0;
}

/* ---- the model ----------------------------------------------------------------------------- */

void hfx_reset(struct model *m)
{
    m->n = 0;
}

long hfx_find(const struct model *m, const uint8_t *f, size_t flen)
{
    for (size_t i = 0; i < m->n; i++) {
        if (m->e[i].flen == flen && memcmp(m->e[i].f, f, flen) == 0) {
            return (long)i;
        }
    }
    return -1;
}

void hfx_put(struct model *m, const uint8_t *f, size_t flen, const uint8_t *v, size_t vlen)
{
    long i = hfx_find(m, f, flen);

    if (i < 0) {
        if (m->n == m->cap) {
            size_t nc = m->cap ? 2 * m->cap : 256;
            m->e = realloc(m->e, nc * sizeof(*m->e));
            assert_non_null(m->e);
            for (size_t k = m->cap; k < nc; k++) {
                m->e[k].v = malloc(VMAX);
                assert_non_null(m->e[k].v);
            }
            m->cap = nc;
        }
        i = (long)m->n++;
        memcpy(m->e[i].f, f, flen);
        m->e[i].flen = flen;
    }
    if (vlen > 0) {
        memcpy(m->e[i].v, v, vlen);
    }
    m->e[i].vlen = vlen;
}

void hfx_del(struct model *m, long i)
{
    uint8_t *v = m->e[i].v;

    m->e[i] = m->e[m->n - 1];
    m->e[m->n - 1].v = v;
    m->n--;
}

/* A field of 0..FMAX bytes, mostly short, from a small alphabet (so chunks compress). */
size_t hfx_field(uint8_t *b, uint64_t id)
{
    uint64_t x = id * 0x9E3779B97F4A7C15ULL + 7;
    unsigned k = (unsigned)(x % 10);
    size_t n = id == 0 ? 0 : k < 6 ? 1 + (x >> 8) % 16 : k < 9 ? (x >> 8) % 80 : (x >> 8) % 301;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = i < 8 ? (uint8_t)(id >> (8 * i)) : (uint8_t)('a' + x % 4);
    }
    return n;
}

size_t hfx_value(uint8_t *b, bool set)
{
    unsigned k = (unsigned)(hfx_rnd() % 100);
    size_t n = set      ? 0
               : k < 80 ? hfx_rnd() % 41
               : k < 96 ? hfx_rnd() % 301
                        : 1000 + hfx_rnd() % (VMAX - 999);
    uint8_t c = (uint8_t)hfx_rnd();

    for (size_t i = 0; i < n; i++) {
        b[i] = hfx_rnd() % 3 == 0 ? (uint8_t)hfx_rnd() : c;
    }
    return n;
}

/* ---- checks --------------------------------------------------------------------------------- */

void hfx_expect_get(struct fix *f, struct coll *c, const struct el *e)
{
    const uint8_t *v = NULL;
    size_t vlen = 0;

    assert_int_equal(coll_hash_get(f->env, c, e->f, e->flen, &v, &vlen), 1);
    assert_int_equal(vlen, e->vlen);
    if (vlen > 0) {
        assert_memory_equal(v, e->v, vlen);
    }
}

long hfx_expect_in(const struct model *m, const struct store_hash_kv *kv)
{
    long i = hfx_find(m, kv->f, kv->flen);

    assert_true(i >= 0);
    assert_int_equal(kv->vlen, m->e[i].vlen);
    if (kv->vlen > 0) {
        assert_memory_equal(kv->v, m->e[i].v, kv->vlen);
    }
    return i;
}

/* Every element of c is in the model once and the model has no other: by a walk, by rank. */
void hfx_check_walks(struct fix *f, struct coll *c)
{
    struct model *m = &f->m;
    uint8_t *seen = calloc(m->n + 1, 1), *seen2 = calloc(m->n + 1, 1);
    struct coll_hash_it it;
    struct store_hash_kv kv;
    size_t k = 0;
    int rc;

    assert_non_null(seen);
    assert_non_null(seen2);
    assert_int_equal(coll_hash_it_init(f->env, c, &it), TERSE_OK);
    while ((rc = coll_hash_it_next(f->env, &it, &kv)) == 1) {
        long i = hfx_expect_in(m, &kv);
        assert_int_equal(seen[i], 0);
        seen[i] = 1;
        k++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(k, m->n);
    for (uint64_t r = 0; r < m->n; r++) {
        assert_int_equal(coll_hash_at(f->env, c, r, &kv), TERSE_OK);
        long i = hfx_expect_in(m, &kv);
        assert_int_equal(seen2[i], 0);
        seen2[i] = 1;
    }
    assert_int_equal(coll_hash_at(f->env, c, m->n, &kv), TERSE_EINVAL);
    free(seen);
    free(seen2);
}

static void check_form(struct fix *f, struct coll *c, const struct coll_hash_shape *sh)
{
    struct model *m = &f->m;
    size_t cap = coll_hash_form_size(c), len = 0, k = 0;
    uint8_t *form = malloc(cap + 1);
    struct store_hash_it it;
    struct store_hash_kv kv;
    struct coll *d;
    uint64_t n;

    assert_non_null(form);
    assert_int_equal(coll_hash_to_form(f->env, c, form, cap, &len), TERSE_OK);
    if (m->n == 0) {
        assert_int_equal(len, 0);
        free(form);
        return;
    }
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    assert_int_equal(store_hash_open(form, len, &it, &n), TERSE_OK);
    assert_int_equal(n, m->n);
    while (store_hash_next(&it, &kv) == 1) {
        (void)hfx_expect_in(m, &kv);
        k++;
    }
    assert_int_equal(k, m->n);
    if (len > 1) {
        assert_int_equal(coll_hash_to_form(f->env, c, form, len - 1, &k), TERSE_ETOOBIG);
    }
    assert_int_equal(coll_hash_from_form(f->env, (enum coll_type)c->type, form, len, sh, &d),
                     TERSE_OK);
    assert_int_equal(coll_hash_verify(f->env, d), TERSE_OK);
    assert_int_equal(coll_count(d), m->n);
    for (size_t i = 0; i < m->n; i++) {
        hfx_expect_get(f, d, &m->e[i]);
    }
    coll_destroy(f->env, d);
    free(form);
}

void hfx_check_all(struct fix *f, struct coll *c, const struct coll_hash_shape *sh)
{
    assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_count(c), f->m.n);
    for (size_t i = 0; i < f->m.n; i++) {
        hfx_expect_get(f, c, &f->m.e[i]);
    }
    hfx_check_walks(f, c);
    check_form(f, c, sh);
}

/* 1 when some chunk of c is held compressed. */
int hfx_some_compressed(const struct coll *c)
{
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        struct codec_value_info info;
        const struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        if (codec_value_info(ch->data, ch->len, &info) == TERSE_OK && info.kind != CODEC_RAW) {
            return 1;
        }
    }
    return 0;
}


/* A hash of n elements, chunk bytes chunk, built by puts; the model holds it. */
struct coll *hfx_build(struct fix *f, enum coll_type type, uint32_t chunk, size_t n)
{
    struct coll_hash_shape sh = {chunk};
    enum coll_hash_result res;
    uint8_t fb[FMAX], vb[VMAX];
    struct coll *c;

    hfx_reset(&f->m);
    assert_int_equal(coll_hash_create(f->env, type, &sh, &c), TERSE_OK);
    for (size_t i = 0; i < n; i++) {
        size_t fl = hfx_field(fb, i + 1), vl = hfx_value(vb, type == COLL_SET);
        assert_int_equal(coll_hash_put(f->env, c, fb, fl, vb, vl, 0, &res), TERSE_OK);
        hfx_put(&f->m, fb, fl, vb, vl);
    }
    return c;
}

