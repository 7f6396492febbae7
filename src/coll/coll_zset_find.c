/*
 * coll_zset_find: what reads a sorted set's order and its member map together (coll_zset.h):
 * the lookups by member (ZSCORE, ZRANK), the bulk build, ZSCAN, the rebuild of an old
 * snapshot's map, and the full verification. The map's own entries are coll_zset_map.c's, the
 * order's searches coll_zset.c's, its walks coll_zset_read.c's.
 *
 * Buffers: forms of chunks are views (the env's decode buffers or the chunks); a ZSCAN step's
 * map records are copied into the env's side buffer, verification copies each order chunk
 * into the build buffer (the map's reads reuse the decode buffers); a rebuild's whole form is
 * core_alloc'd and freed before it returns.
 */
#include "coll/coll_zset_internal.h"

#include <math.h>

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* ---- the bulk build ---------------------------------------------------------------------- */

/*
 * coll_zset_from_form: one pass checks the form (lengths, 8-byte scores, no NaN, strictly
 * increasing pairs); the member map is built from the same records (coll_zset_map_build, which
 * also finds a member given twice in O(n log n)); then the records are cut greedily into chunks
 * of at most 3/4 of chunk_bytes (a bigger record alone), each one memcpy of a span of the form,
 * appended to the tree.
 */

/* Checks every record of a form (count n): lengths, scores, strict order. */
static int form_check(const uint8_t *form, size_t len, uint64_t n)
{
    struct store_hash_it fit;
    struct store_hash_kv kv;
    struct store_zset_el prev = {NULL, 0, 0}, el;
    uint64_t cnt, i = 0;
    int rc;

    (void)store_hash_open(form, len, &fit, &cnt);
    while ((rc = store_hash_next(&fit, &kv)) == 1) {
        if (kv.vlen != STORE_ZSET_SCORE_LEN) {
            return TERSE_ECORRUPT;
        }
        el.m = kv.f;
        el.mlen = kv.flen;
        el.score = store_zset_score(kv.v);
        if (isnan(el.score) || (i > 0 && store_zset_cmp(&prev, &el) >= 0)) {
            return TERSE_ECORRUPT;
        }
        prev = el;
        i++;
    }
    return rc == 0 && i == n ? TERSE_OK : TERSE_ECORRUPT;
}

/* The records of form cut into chunks of at most 3/4 of chunk_bytes, appended to c. */
static int form_cut(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len)
{
    size_t target = (size_t)c->chunk_max * 3 / 4;
    struct store_hash_it fit;
    struct store_zset_el el;
    uint64_t cnt;

    (void)store_hash_open(form, len, &fit, &cnt);
    while (fit.left > 0) {
        const uint8_t *a = fit.p, *b;
        struct coll_it at = {NULL, 0};
        struct coll_desc d;
        struct coll_chunk *ch;
        double first = 0;
        uint64_t n = 0;
        size_t plen;
        uint8_t *buf;
        int st;

        for (;;) {
            const uint8_t *p = fit.p;
            uint64_t left = fit.left;

            if (fit.left == 0 || coll_zset_next(env, &fit, &el) != 1) {
                break;
            }
            if (n > 0 && codec_varint_len(n + 1) + (size_t)(fit.p - a) > target) {
                fit.p = p; /* this record starts the next chunk */
                fit.left = left;
                break;
            }
            if (n == 0) {
                first = el.score;
            }
            n++;
        }
        b = fit.p;
        plen = codec_varint_len(n) + (size_t)(b - a);
        buf = coll_env_build_buf(env, plen);
        if (buf == NULL) {
            return TERSE_ENOMEM;
        }
        memcpy(buf + codec_varint_put(buf, n), a, (size_t)(b - a));
        st = coll_chunk_put(env, c, buf, plen, &ch);
        if (st != TERSE_OK) {
            return st;
        }
        d.chunk = ch;
        d.count = (uint32_t)n;
        d.raw_len = (uint32_t)plen;
        d.key = coll_zset_key_of(first);
        st = coll_tree_insert(&c->tree, &at, &d);
        if (st != TERSE_OK) {
            coll_chunk_drop(env, c, ch);
            return st;
        }
        c->count += n;
    }
    return TERSE_OK;
}

int coll_zset_from_form(struct coll_env *env, const uint8_t *form, size_t len,
                        const struct coll_zset_shape *shape, struct coll **out)
{
    struct store_hash_it fit;
    struct coll *c;
    uint64_t n;
    int st;

    *out = NULL;
    if (!coll_zset_shape_ok(shape)) {
        return TERSE_EINVAL;
    }
    if (len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    /* A record takes 10 bytes at least: a count past len / 10 is a lie. */
    if (form == NULL || store_hash_open(form, len, &fit, &n) != TERSE_OK || n == 0 ||
        n > len / 10 || form_check(form, len, n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    st = coll_zset_create(env, shape, &c);
    if (st != TERSE_OK) {
        return st;
    }
    st = coll_zset_map_build(env, c, form, len, n); /* ECORRUPT: a member twice */
    if (st == TERSE_OK) {
        st = form_cut(env, c, form, len);
    }
    if (st != TERSE_OK) {
        coll_destroy(env, c);
        return st;
    }
    *out = c;
    return TERSE_OK;
}

/* ---- lookups ----------------------------------------------------------------------------- */

int coll_zset_score(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                    double *score)
{
    return coll_zset_map_score(env, c, m, mlen, score);
}

int coll_zset_score_hint(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                         double *score, struct coll_zset_hint *hint)
{
    return coll_zset_map_find(env, c, m, mlen, score, hint);
}

int coll_zset_rank(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                   uint64_t *rank, double *score)
{
    struct store_zset_el el = {m, mlen, 0};
    struct coll_zset_hint h;
    int rc = coll_zset_map_find(env, c, m, mlen, &el.score, &h);

    if (rc != 1) {
        return rc;
    }
    rc = h.located ? 1 : coll_zset_order_has(env, c, &el, &h);
    if (rc == 1) {
        *rank = coll_tree_rank_of(&h.it) + h.idx;
        *score = el.score;
    }
    return rc == 0 ? coll_zset_corrupt(env) : rc; /* the map has a member the order has not */
}

/* ---- ZSCAN ------------------------------------------------------------------------------- */

/* A scan step's map records, copied into the side buffer as fp8 | vlen varint | value. */
struct scan_copy {
    struct coll_env *env;
    size_t used;
};

static int scan_copy_one(void *arg, const struct store_hash_kv *kv)
{
    struct scan_copy *s = arg;
    uint8_t *w;
    size_t n;

    if (kv->flen != 8) {
        return coll_zset_corrupt(s->env);
    }
    w = coll_env_side_buf(s->env, s->used + 8 + 10 + kv->vlen);
    if (w == NULL) {
        return TERSE_ENOMEM;
    }
    w += s->used;
    memcpy(w, kv->f, 8);
    n = 8 + codec_varint_put(w + 8, kv->vlen);
    memcpy(w + n, kv->v, kv->vlen);
    s->used += n + kv->vlen;
    return 0;
}

struct scan_give {
    struct coll_env *env;
    struct coll *c;
    uint64_t fp;
    const uint8_t *v; /* the record's value (in the side buffer) */
    size_t vlen;
    coll_zset_each_fn *fn;
    void *arg;
};

/* A record's entry given: a full one as it is, a short one as the element of its score and
 * fingerprint in the order, found in a run of fewer than COLL_ZSET_RUN_FULL (the run rule). */
static int scan_give_one(void *arg, const struct store_zset_el *el)
{
    struct scan_give *g = arg;
    struct coll_zset_it it;
    struct store_zset_el e;
    uint64_t rank;
    int rc;

    if (el->m != NULL) {
        return g->fn(g->arg, el);
    }
    rc = coll_zset_seek_score(g->env, g->c, el->score, false, &rank);
    if (rc == TERSE_OK) {
        rc = coll_zset_it_init(g->env, g->c, rank, false, &it);
    }
    for (int k = 0; rc == TERSE_OK && k < COLL_ZSET_RUN_FULL; k++) {
        rc = coll_zset_it_next(g->env, &it, &e);
        if (rc != 1 || e.score != el->score) {
            break;
        }
        /* The short one's member: its fingerprint, and not one of the record's full ones. */
        if (coll_zset_same_bits(e.score, el->score) &&
            coll_zset_fp(g->env, g->c, e.m, e.mlen) == g->fp) {
            rc = coll_zset_map_has_full(g->env, g->v, g->vlen, e.m, e.mlen);
            if (rc == 0) {
                return g->fn(g->arg, &e);
            }
        }
        rc = rc < 0 ? rc : TERSE_OK;
    }
    return rc < 0 ? rc : coll_zset_corrupt(g->env);
}

int coll_zset_scan(struct coll_env *env, struct coll *c, uint64_t cursor, size_t count,
                   coll_zset_each_fn *fn, void *arg, uint64_t *next)
{
    struct scan_copy cp = {env, 0};
    struct scan_give g = {env, c, 0, NULL, 0, fn, arg};
    size_t at = 0;
    int rc;

    *next = 0;
    if (c->count == 0) {
        return TERSE_OK;
    }
    rc = coll_hash_scan(env, c->aux, cursor, count, scan_copy_one, &cp, next);
    while (rc == TERSE_OK && at < cp.used) {
        const uint8_t *base = coll_env_side_buf(env, 0), *p = base + at + 8;
        uint64_t vlen = 0;

        g.fp = coll_zset_fp_get(base + at);
        (void)store_varint_read(&p, base + cp.used, &vlen);
        at = (size_t)(p - base) + (size_t)vlen;
        /* The order's reads never touch the side buffer: the copied value stays. */
        g.v = p;
        g.vlen = (size_t)vlen;
        rc = coll_zset_map_entries(env, p, (size_t)vlen, scan_give_one, &g);
    }
    return rc;
}

int coll_zset_map_rebuild(struct coll_env *env, struct coll *c)
{
    size_t cap = coll_zset_form_size(c), len = 0;
    uint8_t *form;
    int st;

    if (c->count == 0 || coll_count(c->aux) != 0) {
        return c->count == 0 && coll_count(c->aux) == 0 ? TERSE_OK : TERSE_ECORRUPT;
    }
    form = core_alloc(cap);
    if (form == NULL) {
        return TERSE_ENOMEM;
    }
    st = coll_zset_to_form(env, c, form, cap, &len);
    if (st == TERSE_OK) {
        st = coll_zset_map_build(env, c, form, len, c->count);
    }
    core_free(form);
    return st;
}

/* ---- verification ------------------------------------------------------------------------ */

static int key_order(const struct coll_key *a, const struct coll_key *b)
{
    return a->k < b->k ? -1 : a->k > b->k ? 1 : 0;
}

/* The previous chunk's last element, its member copied at the build buffer's start. */
struct prev_el {
    size_t mlen;
    double score;
    bool have;
    /* The run of its score so far: its length and the fingerprints of its short entries
     * (a run of COLL_ZSET_RUN_FULL or more has none; no two of one run share one). */
    uint64_t run;
    uint64_t fps[COLL_ZSET_RUN_FULL];
    size_t n_fps;
};

/* The chunk of d, its form copied into buf after the previous member (the map's lookups read
 * chunks into the env's decode buffer, where d's form may be). */
static int verify_chunk(struct coll_env *env, struct coll *c, const struct coll_desc *d,
                        struct prev_el *pv)
{
    struct store_hash_it fit;
    struct store_hash_kv kv;
    struct store_zset_el prev, e;
    const uint8_t *form;
    uint8_t *buf;
    size_t len;
    uint64_t i = 0, cnt;
    int rc;

    if (d->key.aux != 0 || d->raw_len != d->chunk->raw) {
        return TERSE_ECORRUPT;
    }
    buf = coll_env_build_buf(env, pv->mlen + d->raw_len);
    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    rc = coll_zset_chunk_open(env, d, true, &form, &len, &fit);
    if (rc != TERSE_OK) {
        return rc == TERSE_ENOMEM ? rc : TERSE_ECORRUPT;
    }
    memcpy(buf + pv->mlen, form, len);
    form = buf + pv->mlen;
    prev = (struct store_zset_el){buf, pv->mlen, pv->score};
    (void)store_hash_open(form, len, &fit, &cnt);
    for (;;) {
        bool tie, is_short;

        rc = store_hash_next(&fit, &kv);
        if (rc != 1) {
            break;
        }
        if (kv.vlen != STORE_ZSET_SCORE_LEN) {
            return TERSE_ECORRUPT;
        }
        e = (struct store_zset_el){kv.f, kv.flen, store_zset_score(kv.v)};
        if (e.score != e.score || ((i > 0 || pv->have) && store_zset_cmp(&prev, &e) >= 0) ||
            (i == 0 && d->key.k != coll_zset_score_key(e.score))) {
            return TERSE_ECORRUPT;
        }
        /* Its entry, and the run rule. */
        tie = (i > 0 || pv->have) && prev.score == e.score;
        pv->run = tie ? pv->run + 1 : 1;
        pv->n_fps = tie ? pv->n_fps : 0;
        rc = coll_zset_map_claim(env, c, &e, &is_short);
        if (rc != TERSE_OK) {
            return rc == TERSE_ENOMEM ? rc : TERSE_ECORRUPT;
        }
        if (is_short) {
            uint64_t fp = coll_zset_fp(env, c, e.m, e.mlen);

            for (size_t k = 0; k < pv->n_fps; k++) {
                if (pv->fps[k] == fp) {
                    return TERSE_ECORRUPT; /* two members claim one short entry */
                }
            }
            if (pv->n_fps < COLL_ZSET_RUN_FULL) {
                pv->fps[pv->n_fps++] = fp;
            }
        }
        if (pv->run >= COLL_ZSET_RUN_FULL && pv->n_fps > 0) {
            return TERSE_ECORRUPT;
        }
        prev = e;
        i++;
    }
    if (rc != 0 || i != d->count || i == 0 || (len > c->chunk_max && d->count > 1)) {
        return TERSE_ECORRUPT;
    }
    memmove(buf, prev.m, prev.mlen);
    pv->mlen = prev.mlen;
    pv->score = prev.score;
    pv->have = true;
    return TERSE_OK;
}

int coll_zset_verify(struct coll_env *env, struct coll *c)
{
    struct prev_el pv = {0};
    struct coll_it it;
    uint64_t total = 0, raw = 0, entries = 0;
    int st;

    if (c->type != COLL_ZSET || c->aux == NULL || c->aux->type != COLL_HASH ||
        coll_hash_verify(env, c->aux) != TERSE_OK ||
        coll_tree_verify(&c->tree, key_order) != TERSE_OK ||
        coll_tree_total(&c->tree) != c->count) {
        return TERSE_ECORRUPT;
    }
    /* Every element claims its own entry (a full one by its member; a short one only with no
     * neighbour of its score, so no two claim one), and there are as many entries as
     * elements: the map and the order are one set of (member, score). */
    st = coll_zset_map_check(env, c, &entries);
    if (st != TERSE_OK || entries != c->count) {
        return st == TERSE_ENOMEM ? st : TERSE_ECORRUPT;
    }
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);

        st = verify_chunk(env, c, d, &pv);
        if (st != TERSE_OK) {
            return st;
        }
        total += d->count;
        raw += d->raw_len;
    }
    return total == c->count && raw == c->raw ? TERSE_OK : TERSE_ECORRUPT;
}
