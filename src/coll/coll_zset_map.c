/*
 * coll_zset_map: a sorted set's member map (coll_zset.h), member -> score, holding each
 * member's fingerprint instead of its bytes where it can.
 *
 * The map is a COLL_HASH container (c->aux) whose fields are 8-byte fingerprints
 *
 *   fp(m) = XXH3_64bits_withSeed(m, c->aux->seed) & the env's fp mask     (LE, 8 bytes)
 *
 * and whose values are one of:
 *
 *   short:  score (8 bytes)                      the one member of fingerprint fp, which the
 *                                                order confirms: (score, m) is there or m is not
 *   list:   flags (1: bit 0 "has a short") | [score (8)] |
 *           (score (8) | mlen varint | member) * k, k >= 1
 *                                                full entries, each naming its member, and at
 *                                                most one short entry for one other member
 *
 * Member bytes are kept once, in the order's chunks, for every member of a run of fewer than
 * COLL_ZSET_RUN_FULL elements of one score: its entry is short, 18 bytes of the map's form. A
 * member gets a full entry when its run is that long (the run rule), or when its fingerprint is
 * another member's already (a collision: that one keeps the short). The run rule is what keeps
 * a short entry cheap to resolve by its score: ZSCAN reads the map, and a short (fp, score)
 * names one element of a run of fewer than COLL_ZSET_RUN_FULL elements of that score
 * (coll_zset_scan: one descent and a walk of that run comparing fingerprints), never a walk of
 * a long run (an all-zero set of a million members). An insert that makes a run that long
 * makes the entries of the run's elements full first (coll_zset_edit.c), so the rule holds
 * after every write; coll_zset_verify checks it.
 *
 * Costs: a lookup is one map descent and one chunk; a short entry's confirmation one ordered
 * descent and one chunk (coll_zset_map_find, which hands the place it found and what the map
 * holds there to the write after it). A write of an entry reads the value and writes it
 * (coll_hash_put or coll_hash_del), but a short entry written where the lookup found nothing
 * or the member's own short entry alone is written without the read.
 *
 * Buffers: a value is staged in the env's side buffer (coll_env_side_buf), since the map's put
 * builds its chunk in the build buffer and a read's views live in the decode buffer; the bulk
 * build's entry array and records are core_alloc'd and freed before it returns.
 */
#include "coll/coll_zset_internal.h"

#include <math.h>
#include <xxhash.h>

#include "coll/coll_hash_internal.h"
#include "core/core_mem.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#define ZV_HAS_SHORT 0x1u

uint64_t coll_zset_fp(struct coll_env *env, const struct coll *c, const uint8_t *m,
                      size_t mlen)
{
    return coll_hash_seeded(c->aux->seed, m, mlen) & coll_env_fp_mask(env);
}

/* A value parsed: views into its bytes. */
struct zval {
    bool has_short;
    const uint8_t *short_at; /* its 8 score bytes */
    const uint8_t *full;     /* the full entries */
    const uint8_t *end;
};

/* TERSE_OK or TERSE_ECORRUPT (counted): a value as the top says. */
static int zval_parse(struct coll_env *env, const uint8_t *v, size_t vlen, struct zval *z)
{
    z->end = v + vlen;
    if (vlen == STORE_ZSET_SCORE_LEN) {
        z->has_short = true;
        z->short_at = v;
        z->full = z->end;
        return isnan(store_zset_score(v)) ? coll_zset_corrupt(env) : TERSE_OK;
    }
    if (vlen < 1 + STORE_ZSET_SCORE_LEN + 1 || (v[0] & ~ZV_HAS_SHORT) != 0) {
        return coll_zset_corrupt(env);
    }
    z->has_short = (v[0] & ZV_HAS_SHORT) != 0;
    z->short_at = v + 1;
    z->full = v + 1 + (z->has_short ? STORE_ZSET_SCORE_LEN : 0);
    if (z->full >= z->end || (z->has_short && isnan(store_zset_score(z->short_at)))) {
        return coll_zset_corrupt(env);
    }
    return TERSE_OK;
}

/* The next full entry at *p (< z->end): 1 with *el (a view), TERSE_ECORRUPT (counted). */
static int zval_next(struct coll_env *env, const struct zval *z, const uint8_t **p,
                     struct store_zset_el *el)
{
    const uint8_t *q = *p + STORE_ZSET_SCORE_LEN;
    uint64_t mlen;

    if ((size_t)(z->end - *p) < STORE_ZSET_SCORE_LEN + 1 ||
        store_varint_read(&q, z->end, &mlen) != TERSE_OK || mlen > (uint64_t)(z->end - q)) {
        return coll_zset_corrupt(env);
    }
    el->score = store_zset_score(*p);
    el->m = q;
    el->mlen = (size_t)mlen;
    *p = q + mlen;
    return isnan(el->score) ? coll_zset_corrupt(env) : 1;
}

static bool same_member(const struct store_zset_el *e, const uint8_t *m, size_t mlen)
{
    return e->mlen == mlen && (mlen == 0 || memcmp(e->m, m, mlen) == 0);
}

/* Bytes of a full entry. */
static size_t full_size(size_t mlen)
{
    return STORE_ZSET_SCORE_LEN + codec_varint_len(mlen) + mlen;
}

/* The value at m's fingerprint (a view), parsed: 1, or 0 when there is none. at (NULL: not
 * wanted) remembers the place for the write that follows. */
static int zval_get(struct coll_env *env, struct coll *c, const uint8_t fp8[8], struct zval *z,
                    struct coll_hash_at *at)
{
    const uint8_t *v = NULL;
    size_t vlen = 0;
    int rc = at != NULL ? coll_hash_get_at(env, c->aux, fp8, 8, &v, &vlen, at)
                        : coll_hash_get(env, c->aux, fp8, 8, &v, &vlen);

    if (rc != 1) {
        return rc;
    }
    rc = zval_parse(env, v, vlen, z);
    return rc == TERSE_OK ? 1 : rc;
}

/* m's full entry in z: 1 with *score, 0 none. */
static int zval_find_full(struct coll_env *env, const struct zval *z, const uint8_t *m,
                          size_t mlen, double *score)
{
    const uint8_t *p = z->full;

    while (p < z->end) {
        struct store_zset_el e;
        int rc = zval_next(env, z, &p, &e);

        if (rc != 1) {
            return rc;
        }
        if (same_member(&e, m, mlen)) {
            *score = e.score;
            return 1;
        }
    }
    return 0;
}

int coll_zset_order_has(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                        struct coll_zset_hint *h)
{
    struct store_hash_it fit;
    struct store_zset_el e;
    const uint8_t *form;
    size_t len;
    int rc;

    if (c->tree.n_chunks == 0) {
        return 0;
    }
    rc = coll_zset_locate(env, c, el, &h->it);
    if (rc == TERSE_OK) {
        rc = coll_zset_chunk_open(env, coll_tree_desc(&h->it), false, &form, &len, &fit);
    }
    if (rc != TERSE_OK) {
        return rc;
    }
    for (uint64_t i = 0; (h->rs = (size_t)(fit.p - form), rc = coll_zset_next(env, &fit, &e)) == 1;
         i++) {
        int cmp = store_zset_cmp(&e, el);

        if (cmp == 0) {
            h->idx = i;
            h->re = (size_t)(fit.p - form);
            return coll_zset_same_bits(e.score, el->score) ? 1 : coll_zset_corrupt(env);
        }
        if (cmp > 0) {
            return 0;
        }
    }
    return rc;
}

int coll_zset_map_score(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                        double *score)
{
    struct coll_zset_hint h;

    return coll_zset_map_find(env, c, m, mlen, score, &h);
}

int coll_zset_map_find(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       double *score, struct coll_zset_hint *h)
{
    uint8_t fp8[8];
    struct zval z;
    struct store_zset_el el = {m, mlen, 0};
    int rc;

    h->located = false;
    h->map = COLL_ZSET_MAP_UNKNOWN;
    h->map_at.set = false;
    coll_zset_fp_put(fp8, coll_zset_fp(env, c, m, mlen));
    rc = zval_get(env, c, fp8, &z, &h->map_at);
    if (rc == 1) {
        rc = zval_find_full(env, &z, m, mlen, score);
    } else {
        h->map = rc == 0 ? COLL_ZSET_MAP_VACANT : COLL_ZSET_MAP_UNKNOWN;
        return rc;
    }
    if (rc != 0 || !z.has_short) {
        return rc;
    }
    /* The short entry is m's when the order holds (its score, m). */
    el.score = store_zset_score(z.short_at);
    rc = coll_zset_order_has(env, c, &el, h);
    if (rc == 1) {
        *score = el.score;
        h->located = true;
        h->map = z.full == z.end ? COLL_ZSET_MAP_ALONE : COLL_ZSET_MAP_UNKNOWN;
    }
    return rc;
}

/*
 * m's entry made (score, full or short as asked: a short one only when no other member holds
 * the short of fp(m), else full) or, del, removed. present: m has an entry now (so a short
 * entry with no full one for m is m's). TERSE_OK, TERSE_ECORRUPT (present but no entry of m's),
 * TERSE_ENOMEM; on failure the map is as it was.
 */
static int map_write(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                     double score, bool full, bool present, bool del)
{
    uint8_t fp8[8], *out, *body, *w;
    struct zval z = {false, NULL, NULL, NULL};
    struct coll_hash_at place;
    enum coll_hash_result res;
    bool has_short, mine_full = false;
    const uint8_t *p;
    size_t vlen;
    uint64_t n_full = 0;
    int rc;

    coll_zset_fp_put(fp8, coll_zset_fp(env, c, m, mlen));
    rc = zval_get(env, c, fp8, &z, &place);
    if (rc < 0) {
        return rc;
    }
    has_short = rc == 1 && z.has_short;
    out = coll_env_side_buf(env, 1 + STORE_ZSET_SCORE_LEN + (size_t)(z.end - z.full) +
                                     full_size(mlen));
    if (out == NULL) {
        return TERSE_ENOMEM;
    }
    /* out: flags | short score | full entries; the full entries but m's copied first. */
    body = w = out + 1 + STORE_ZSET_SCORE_LEN;
    for (p = z.full; p != NULL && p < z.end;) {
        const uint8_t *at = p;
        struct store_zset_el e;

        rc = zval_next(env, &z, &p, &e);
        if (rc != 1) {
            return rc;
        }
        if (same_member(&e, m, mlen)) {
            mine_full = true;
            continue;
        }
        memcpy(w, at, (size_t)(p - at));
        w += p - at;
        n_full++;
    }
    if (has_short) {
        memcpy(out + 1, z.short_at, STORE_ZSET_SCORE_LEN);
    }
    if (present && !mine_full) {
        if (!has_short) {
            return coll_zset_corrupt(env); /* m has no entry: the map disagrees with the order */
        }
        has_short = false; /* the short one was m's */
    }
    if (!del && (full || has_short)) {
        store_zset_score_put(w, score);
        w += STORE_ZSET_SCORE_LEN;
        w += codec_varint_put(w, mlen);
        if (mlen > 0) {
            memcpy(w, m, mlen);
        }
        w += mlen;
        n_full++;
    } else if (!del) {
        has_short = true;
        store_zset_score_put(out + 1, score);
    }
    if (n_full == 0 && !has_short) {
        rc = coll_hash_del_at(env, c->aux, fp8, 8, &place);
        return rc == 1 ? TERSE_OK : rc < 0 ? rc : coll_zset_corrupt(env);
    }
    if (n_full == 0) {
        p = out + 1; /* a short entry alone: its 8 bytes */
        vlen = STORE_ZSET_SCORE_LEN;
    } else if (has_short) {
        out[0] = ZV_HAS_SHORT;
        p = out;
        vlen = (size_t)(w - out);
    } else {
        body[-1] = 0; /* the flags, just before the full entries */
        p = body - 1;
        vlen = (size_t)(w - p);
    }
    return coll_hash_put_at(env, c->aux, fp8, 8, p, vlen, 0, &res, &place);
}

int coll_zset_map_set(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                      double score, bool full, bool present, uint8_t known,
                      const struct coll_hash_at *at)
{
    /* A short entry written where the map holds nothing, or only m's short entry: no read. */
    if (!full && known == (present ? COLL_ZSET_MAP_ALONE : COLL_ZSET_MAP_VACANT)) {
        uint8_t fp8[8], v[STORE_ZSET_SCORE_LEN];
        enum coll_hash_result res;
        int st;

        coll_zset_fp_put(fp8, coll_zset_fp(env, c, m, mlen));
        store_zset_score_put(v, score);
        st = coll_hash_put_at(env, c->aux, fp8, 8, v, sizeof(v),
                              present ? COLL_HASH_XX : COLL_HASH_NX, &res, at);
        return st != TERSE_OK ? st : res != COLL_HASH_UNTOUCHED ? TERSE_OK : coll_zset_corrupt(env);
    }
    return map_write(env, c, m, mlen, score, full, present, false);
}

int coll_zset_map_unset(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                        uint8_t known, const struct coll_hash_at *at)
{
    if (known == COLL_ZSET_MAP_ALONE) {
        uint8_t fp8[8];
        int rc;

        coll_zset_fp_put(fp8, coll_zset_fp(env, c, m, mlen));
        rc = coll_hash_del_at(env, c->aux, fp8, 8, at);
        return rc == 1 ? TERSE_OK : rc < 0 ? rc : coll_zset_corrupt(env);
    }
    return map_write(env, c, m, mlen, 0, false, true, true);
}

int coll_zset_map_make_full(struct coll_env *env, struct coll *c, const uint8_t *m,
                            size_t mlen, double score)
{
    uint8_t fp8[8];
    struct zval z;
    double s;
    int rc;

    coll_zset_fp_put(fp8, coll_zset_fp(env, c, m, mlen));
    rc = zval_get(env, c, fp8, &z, NULL);
    if (rc == 1) {
        rc = zval_find_full(env, &z, m, mlen, &s);
    } else {
        return rc < 0 ? rc : coll_zset_corrupt(env);
    }
    if (rc != 0) {
        return rc < 0 ? rc : TERSE_OK; /* already full */
    }
    return map_write(env, c, m, mlen, score, true, true, false);
}

/* ---- the bulk build ---------------------------------------------------------------------- */

/* A bulk build's entry: len's top bit says the record is in a long run (a full entry). */
#define ENT_TIE 0x80000000u

/* The form record of a bulk build's entry. */
static void ent_kv(const uint8_t *form, const struct coll_hash_ent *e, struct store_hash_kv *kv)
{
    struct store_hash_it it = {form + e->off, form + e->off + (e->len & ~ENT_TIE), 1};

    (void)store_hash_next(&it, kv);
}

/* The record (fp8 | value) of the group of form records e[a, b) (one fingerprint). */
static uint8_t *group_put(uint8_t *w, const uint8_t *form, const struct coll_hash_ent *e,
                          size_t a, size_t b)
{
    struct store_hash_kv kv;
    uint8_t fp8[8];
    size_t vlen = 0;

    coll_zset_fp_put(fp8, e[a].h);
    if (b - a == 1 && !(e[a].len & ENT_TIE)) {
        ent_kv(form, &e[a], &kv);
        return coll_hash_rec_put(w, fp8, 8, kv.v, STORE_ZSET_SCORE_LEN);
    }
    for (size_t i = a; i < b; i++) {
        ent_kv(form, &e[i], &kv);
        vlen += full_size(kv.flen);
    }
    w += codec_varint_put(w, 8);
    memcpy(w, fp8, 8);
    w += 8;
    w += codec_varint_put(w, 1 + vlen);
    *w++ = 0;
    for (size_t i = a; i < b; i++) {
        ent_kv(form, &e[i], &kv);
        memcpy(w, kv.v, STORE_ZSET_SCORE_LEN);
        w += STORE_ZSET_SCORE_LEN;
        w += codec_varint_put(w, kv.flen);
        if (kv.flen > 0) {
            memcpy(w, kv.f, kv.flen);
        }
        w += kv.flen;
    }
    return w;
}

int coll_zset_map_build(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len,
                        uint64_t n)
{
    struct coll_hash_ent *e = core_alloc((size_t)n * sizeof(*e));
    uint8_t *recs = NULL, *w;
    struct store_hash_it it;
    struct store_hash_kv kv;
    size_t bytes = 0, a, groups = 0;
    double prev = 0;
    uint64_t cnt, i = 0;
    int st = TERSE_ENOMEM;

    if (e == NULL) {
        goto out;
    }
    /* Every record's fingerprint, and whether it is in a run of COLL_ZSET_RUN_FULL elements
     * or more of one score (the run rule: full entries). */
    (void)store_hash_open(form, len, &it, &cnt);
    for (uint64_t run = 0; i <= n; i++) {
        const uint8_t *at = it.p;
        double sc = 0;

        if (i < n) {
            if (store_hash_next(&it, &kv) != 1) {
                st = TERSE_ECORRUPT;
                goto out;
            }
            e[i].h = coll_zset_fp(env, c, kv.f, kv.flen);
            e[i].off = (uint32_t)(at - form);
            e[i].len = (uint32_t)(it.p - at);
            sc = store_zset_score(kv.v);
        }
        if (i > 0 && (i == n || sc != prev)) {
            for (uint64_t j = run; i - run >= COLL_ZSET_RUN_FULL && j < i; j++) {
                e[j].len |= ENT_TIE;
            }
            run = i;
        }
        prev = sc;
    }
    coll_hash_ents_sort(e, (size_t)n);
    /* One map record per fingerprint: its bytes at most 19 + the full entries' bytes. */
    for (a = 0; a < n;) {
        size_t b = a + 1;

        while (b < n && e[b].h == e[a].h) {
            b++;
        }
        for (size_t j = a; j < b; j++) {
            struct store_hash_kv x, y;

            ent_kv(form, &e[j], &x);
            for (size_t k = a; k < j; k++) {
                ent_kv(form, &e[k], &y);
                if (x.flen == y.flen && (x.flen == 0 || memcmp(x.f, y.f, x.flen) == 0)) {
                    st = TERSE_ECORRUPT; /* a member twice, under two scores */
                    goto out;
                }
            }
            bytes += full_size(e[j].len & ~ENT_TIE) + 1;
        }
        bytes += 20;
        a = b;
    }
    recs = core_alloc(bytes);
    if (recs == NULL) {
        goto out;
    }
    w = recs;
    for (a = 0; a < n;) {
        size_t b = a + 1;
        uint8_t *at = w;

        while (b < n && e[b].h == e[a].h) {
            b++;
        }
        w = group_put(w, form, e, a, b);
        e[groups].off = (uint32_t)(at - recs);
        e[groups].len = (uint32_t)(w - at);
        groups++;
        a = b;
    }
    /* The records placed in the map's hash space and cut into its chunks. */
    for (size_t g = 0; g < groups; g++) {
        e[g].h = coll_hash_seeded(c->aux->seed, recs + e[g].off + 1, 8);
    }
    coll_hash_ents_sort(e, groups);
    st = coll_hash_ents_cut(env, c->aux, recs, e, groups);
out:
    core_free(recs);
    core_free(e);
    return st;
}

int coll_zset_map_entries(struct coll_env *env, const uint8_t *v, size_t vlen,
                          coll_zset_each_fn *fn, void *arg)
{
    struct zval z;
    const uint8_t *p;
    int rc = zval_parse(env, v, vlen, &z);

    if (rc != TERSE_OK) {
        return rc;
    }
    if (z.has_short) {
        struct store_zset_el el = {NULL, 0, store_zset_score(z.short_at)};

        if ((rc = fn(arg, &el)) != 0) {
            return rc;
        }
    }
    for (p = z.full; p < z.end;) {
        struct store_zset_el el;

        rc = zval_next(env, &z, &p, &el);
        if (rc != 1) {
            return rc;
        }
        if ((rc = fn(arg, &el)) != 0) {
            return rc;
        }
    }
    return TERSE_OK;
}

/* ---- verification ------------------------------------------------------------------------ */

int coll_zset_map_claim(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                        bool *is_short)
{
    uint8_t fp8[8];
    struct zval z;
    double s;
    int rc;

    coll_zset_fp_put(fp8, coll_zset_fp(env, c, el->m, el->mlen));
    rc = zval_get(env, c, fp8, &z, NULL);
    if (rc != 1) {
        return rc < 0 ? rc : TERSE_ECORRUPT;
    }
    rc = zval_find_full(env, &z, el->m, el->mlen, &s);
    if (rc < 0) {
        return rc;
    }
    *is_short = rc == 0;
    if (rc == 0) {
        if (!z.has_short) {
            return TERSE_ECORRUPT;
        }
        s = store_zset_score(z.short_at);
    }
    return coll_zset_same_bits(s, el->score) ? TERSE_OK : TERSE_ECORRUPT;
}

struct check_ctx {
    struct coll_env *env;
    const struct coll *c;
    uint64_t fp, n;
};

static int check_one(void *arg, const struct store_zset_el *el)
{
    struct check_ctx *k = arg;

    k->n++;
    return el->m == NULL || coll_zset_fp(k->env, k->c, el->m, el->mlen) == k->fp
               ? 0
               : TERSE_ECORRUPT;
}

int coll_zset_map_check(struct coll_env *env, struct coll *c, uint64_t *entries)
{
    struct check_ctx k = {env, c, 0, 0};
    struct coll_hash_it it;
    struct store_hash_kv kv;
    int rc = coll_hash_it_init(env, c->aux, &it);

    while (rc == TERSE_OK && (rc = coll_hash_it_next(env, &it, &kv)) == 1) {
        if (kv.flen != 8) {
            return TERSE_ECORRUPT;
        }
        k.fp = coll_zset_fp_get(kv.f);
        rc = coll_zset_map_entries(env, kv.v, kv.vlen, check_one, &k);
    }
    *entries = k.n;
    return rc;
}

int coll_zset_map_has_full(struct coll_env *env, const uint8_t *v, size_t vlen,
                           const uint8_t *m, size_t mlen)
{
    struct zval z;
    double s;
    int rc = zval_parse(env, v, vlen, &z);

    return rc == TERSE_OK ? zval_find_full(env, &z, m, mlen, &s) : rc;
}
