/*
 * coll_zset_stage: the staged edits of the order (coll_zset_internal.h) that make a write of
 * both containers atomic, a chunk's next form, splits and merges.
 *
 * Failure atomicity across two containers. A write changes the order (c) and the map (c->aux);
 * the map's own calls (coll_hash_put, coll_hash_del) are atomic but cannot be undone without
 * allocating. So every write (coll_zset_edit.c) runs as:
 *
 *   1. stage the order's edits: each builds a chunk's next form in the env's build buffer and
 *      puts it into NEW chunks (split at the byte middle, again while a piece is past
 *      coll_hot_bytes), then installs them: the first piece takes the chunk's descriptor, the
 *      others are inserted after it. The old chunk is kept, and an undo record remembers its
 *      descriptor and its first rank. A chunk that loses its only element is not touched yet
 *      (a "vanish": removing a descriptor is free, putting one back is not). Any failure here
 *      undoes the edits staged before.
 *   2. the map's one call, the last step that can fail: on failure the staged edits are undone
 *      (pieces' descriptors removed, the old descriptor restored: no allocation, no read).
 *   3. commit: the kept chunks are freed, vanished descriptors removed (no allocation).
 *   4. best effort afterwards: a chunk left under coll_hot_bytes / 4 merges with a neighbour
 *      when the two fit in 3/4 of coll_hot_bytes (a failed merge changes nothing).
 *
 * So a failed write leaves both containers with exactly their elements, scores and chunks (an
 * undone edit puts the very same chunk back). The price: a write always takes a new chunk
 * block instead of rewriting in place (one allocation and one copy of a chunk, next to the
 * checksum pass it costs anyway).
 *
 * The build area of a split, after the new form in the build buffer (offsets 8-aligned):
 *
 *   | form (len) | off: (n + 1) x u32 | pieces: n x piece | made: n x chunk * | scratch (len) |
 */
#include "coll/coll_zset_internal.h"

#include <math.h>

#include "codec/codec_value.h"
#include "terse/status.h"

#include <assert.h>

/* ---- staged edits ------------------------------------------------------------------------ */

struct piece {
    size_t a, b; /* records [a, b) */
};

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static size_t split_need(size_t len, uint64_t n)
{
    return align8(((size_t)n + 1) * sizeof(uint32_t)) +
           (size_t)n * (sizeof(struct piece) + sizeof(struct coll_chunk *)) + len;
}

/* The build buffer for a new form of len bytes and n elements (with room to split it). */
static uint8_t *edit_buf(struct coll_env *env, const struct coll *c, size_t len, uint64_t n)
{
    bool cuts = len > coll_hot_bytes(c) && n > 1;

    return coll_env_build_buf(env, align8(len) + (cuts ? split_need(len, n) : 0));
}

static void seek_rank(const struct coll *c, uint64_t rank, struct coll_it *it)
{
    uint64_t within;
    bool ok = coll_tree_seek_rank(&c->tree, rank, it, &within);

    (void)ok;
    assert(ok && within == 0);
}

/* The score of the record at p (a well-formed record of a form ending at end). */
double coll_zset_rec_score(const uint8_t *p, const uint8_t *end)
{
    struct store_hash_it fit = {p, end, 1};
    struct store_hash_kv kv;
    int rc = store_hash_next(&fit, &kv);

    (void)rc;
    assert(rc == 1 && kv.vlen == STORE_ZSET_SCORE_LEN);
    return store_zset_score(kv.v);
}

/* Cuts records [a, b) at their byte middle while a piece is over coll_hot_bytes and has two. */
static void cut(const struct coll *c, const uint32_t *off, size_t a, size_t b, struct piece *p,
                size_t *k)
{
    if (b - a > 1 && codec_varint_len(b - a) + off[b] - off[a] > coll_hot_bytes(c)) {
        uint32_t half = off[a] + (off[b] - off[a]) / 2;
        size_t m = a + 1;

        while (m < b - 1 && off[m] < half) {
            m++;
        }
        cut(c, off, a, m, p, k);
        cut(c, off, m, b, p, k);
        return;
    }
    p[(*k)++] = (struct piece){a, b};
}

/* Inserts the descriptors of made[1..k) after the one at *it. TERSE_OK or TERSE_ENOMEM (those
 * inserted removed again). */
static int insert_pieces(struct coll *c, const struct coll_zset_undo *u, const uint8_t *form,
                         size_t len, const uint32_t *off, const struct piece *p,
                         struct coll_chunk **made, size_t k, const struct coll_it *it)
{
    struct coll_it at = *it;

    coll_tree_next(&at);
    for (size_t j = 1; j < k; j++) {
        double first = coll_zset_rec_score(form + off[p[j].a], form + len);
        struct coll_desc nd = {made[j], (uint32_t)(p[j].b - p[j].a), made[j]->raw,
                               coll_zset_key_of(first)};
        int st = coll_tree_insert(&c->tree, &at, &nd);

        if (st != TERSE_OK) {
            /* coll_tree_remove leaves its iterator invalid: each is sought by rank. */
            for (size_t i = 1; i < j; i++) {
                seek_rank(c, u->rank0 + u->old.count, &at);
                assert(coll_tree_desc(&at)->chunk == made[i]);
                coll_tree_remove(&c->tree, &at);
            }
            return st;
        }
        coll_tree_next(&at);
    }
    return TERSE_OK;
}

/*
 * Stages the form (len bytes, n >= 1 elements, in buf at the build buffer's start; area: the
 * split's room when it may be cut) as the chunk at it: new chunks made and installed, the old
 * one kept, an undo record pushed on t. TERSE_OK, TERSE_ENOMEM, TERSE_ETOOBIG (nothing changed).
 */
static int stage(struct coll_env *env, struct coll *c, struct coll_zset_txn *t,
                 const struct coll_it *at, const uint8_t *buf, size_t len, uint64_t n,
                 uint8_t *area)
{
    struct coll_zset_undo *u = &t->u[t->n];
    struct coll_chunk *one, **made = &one;
    struct piece whole = {0, (size_t)n}, *p = &whole;
    uint32_t two[2], *off = two;
    struct coll_it it = *at;
    struct coll_desc *d;
    size_t k = 1;
    int st;

    u->rank0 = coll_tree_rank_of(&it);
    u->old = *coll_tree_desc(&it);
    u->n_more = 0;
    u->vanish = false;
    if (len <= coll_hot_bytes(c) || n == 1) {
        struct store_hash_it fit;
        uint64_t cnt;

        (void)store_hash_open(buf, len, &fit, &cnt);
        off[0] = (uint32_t)(fit.p - buf);
        st = coll_chunk_put(env, c, buf, len, &one);
        if (st != TERSE_OK) {
            return st;
        }
    } else {
        struct store_hash_it fit;
        uint8_t *scratch;
        uint64_t cnt;

        off = (uint32_t *)(void *)area;
        p = (struct piece *)(void *)(area + align8(((size_t)n + 1) * sizeof(uint32_t)));
        made = (struct coll_chunk **)(void *)(p + n);
        scratch = (uint8_t *)(made + n);
        (void)store_hash_open(buf, len, &fit, &cnt);
        for (uint64_t i = 0; i < n; i++) {
            struct store_hash_kv kv;

            off[i] = (uint32_t)(fit.p - buf);
            (void)store_hash_next(&fit, &kv);
        }
        off[n] = (uint32_t)len;
        k = 0;
        cut(c, off, 0, (size_t)n, p, &k);
        for (size_t j = 0; j < k; j++) {
            size_t w = codec_varint_put(scratch, p[j].b - p[j].a);

            memcpy(scratch + w, buf + off[p[j].a], off[p[j].b] - off[p[j].a]);
            st = coll_chunk_put(env, c, scratch, w + off[p[j].b] - off[p[j].a], &made[j]);
            if (st != TERSE_OK) {
                while (j-- > 0) {
                    coll_chunk_drop(env, c, made[j]);
                }
                return st;
            }
        }
        st = insert_pieces(c, u, buf, len, off, p, made, k, &it);
        if (st != TERSE_OK) {
            for (size_t j = 0; j < k; j++) {
                coll_chunk_drop(env, c, made[j]);
            }
            return st;
        }
        seek_rank(c, u->rank0, &it); /* the inserts may have moved its descriptor */
        u->n_more = k - 1;
    }
    d = coll_tree_desc(&it);
    d->chunk = made[0];
    d->raw_len = made[0]->raw;
    coll_tree_set_count(&c->tree, &it, (uint32_t)(p[0].b - p[0].a));
    {
        struct coll_key key = coll_zset_key_of(coll_zset_rec_score(buf + off[0], buf + len));
        coll_tree_set_key(&c->tree, &it, &key);
    }
    t->n++;
    return TERSE_OK;
}

/* Stages the chunk at it losing its only element. */
static void stage_vanish(struct coll_zset_txn *t, const struct coll_it *it)
{
    struct coll_zset_undo *u = &t->u[t->n++];

    u->rank0 = coll_tree_rank_of(it);
    u->old = *coll_tree_desc(it);
    u->n_more = 0;
    u->vanish = true;
}

void coll_zset_txn_undo(struct coll_env *env, struct coll *c, struct coll_zset_txn *t)
{
    while (t->n > 0) {
        struct coll_zset_undo *u = &t->u[--t->n];
        struct coll_it it, nx;
        struct coll_desc *d;

        if (u->vanish) {
            continue;
        }
        seek_rank(c, u->rank0, &it);
        /* coll_tree_remove leaves its iterator invalid: each piece is sought by rank. */
        for (size_t j = 0; j < u->n_more; j++) {
            seek_rank(c, u->rank0 + coll_tree_desc(&it)->count, &nx);
            coll_chunk_drop(env, c, coll_tree_desc(&nx)->chunk);
            coll_tree_remove(&c->tree, &nx);
            seek_rank(c, u->rank0, &it);
        }
        seek_rank(c, u->rank0, &it);
        d = coll_tree_desc(&it);
        coll_chunk_drop(env, c, d->chunk);
        d->chunk = u->old.chunk;
        d->raw_len = u->old.raw_len;
        coll_tree_set_count(&c->tree, &it, u->old.count);
        coll_tree_set_key(&c->tree, &it, &u->old.key);
    }
}

void coll_zset_txn_commit(struct coll_env *env, struct coll *c, struct coll_zset_txn *t)
{
    for (size_t i = 0; i < t->n; i++) {
        if (!t->u[i].vanish) {
            coll_chunk_drop(env, c, t->u[i].old.chunk);
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct coll_zset_undo *u = &t->u[i];
        struct coll_it it;

        if (u->vanish) {
            seek_rank(c, u->rank0 + (t->has_ins && t->ins_rank <= u->rank0 ? 1 : 0), &it);
            assert(coll_tree_desc(&it)->chunk == u->old.chunk);
            coll_tree_remove(&c->tree, &it);
            coll_chunk_drop(env, c, u->old.chunk);
        }
    }
    t->n = 0;
}

/* ---- a chunk's next form ----------------------------------------------------------------- */


/* Scans the chunk of d for del's record (NULL: none wanted) and ins's place (NULL: none).
 * TERSE_OK, TERSE_ECORRUPT (ins already there: the map disagrees), TERSE_ENOMEM. */
int coll_zset_spot_scan(struct coll_env *env, const struct coll_desc *d,
                     const struct store_zset_el *del, const struct store_zset_el *ins,
                     struct coll_zset_spot *s)
{
    struct store_hash_it fit;
    struct store_zset_el e;
    bool ins_done = ins == NULL, del_done = del == NULL;
    int rc = coll_zset_chunk_open(env, d, false, &s->form, &s->len, &fit);

    if (rc != TERSE_OK) {
        return rc;
    }
    s->n = d->count;
    s->body = (size_t)(fit.p - s->form);
    s->found = false;
    s->rs = s->re = s->ins_at = s->lt_at = s->len;
    s->ins_idx = s->n;
    s->run_before = 0;
    s->run_at_start = false;
    for (uint64_t i = 0; !(ins_done && del_done); i++) {
        size_t at = (size_t)(fit.p - s->form);

        rc = coll_zset_next(env, &fit, &e);
        if (rc != 1) {
            break;
        }
        bool is_del = false;

        if (!del_done) {
            int cmp = store_zset_cmp(&e, del);
            if (cmp == 0) {
                s->found = is_del = true;
                s->rs = at;
                s->re = (size_t)(fit.p - s->form);
            }
            del_done = cmp >= 0;
        }
        if (!ins_done) {
            int cmp = store_zset_cmp(&e, ins);
            if (cmp == 0) {
                return coll_zset_corrupt(env);
            }
            if (cmp > 0) {
                s->ins_at = at;
                s->ins_idx = i;
                ins_done = true;
            } else if (!is_del) {
                if (e.score != ins->score) {
                    s->run_before = 0;
                    s->run_at_start = false;
                } else if (s->run_before++ == 0) {
                    s->run_at_start = s->lt_at == s->len;
                }
                s->lt_at = at;
            }
        }
    }
    return rc < 0 ? rc : TERSE_OK;
}

int coll_zset_spot_known(struct coll_env *env, const struct coll_zset_hint *h,
                         struct coll_zset_spot *s)
{
    const struct coll_desc *d = coll_tree_desc(&h->it);
    struct store_hash_it fit;
    int rc = coll_zset_chunk_open(env, d, false, &s->form, &s->len, &fit);

    if (rc != TERSE_OK) {
        return rc;
    }
    s->n = d->count;
    s->body = (size_t)(fit.p - s->form);
    if (h->rs < s->body || h->rs >= h->re || h->re > s->len) {
        return coll_zset_corrupt(env); /* not a record of this chunk: the hint is stale */
    }
    s->found = true;
    s->rs = h->rs;
    s->re = h->re;
    s->ins_at = s->lt_at = s->len;
    s->ins_idx = s->n;
    s->run_before = 0;
    s->run_at_start = false;
    return TERSE_OK;
}

static uint8_t *span(uint8_t *w, const uint8_t *f, size_t a, size_t b)
{
    memcpy(w, f + a, b - a);
    return w + (b - a);
}

/* Writes into out (count n) s's form without [rs, re) and with ins's record at ins_at (ins
 * NULL: none); returns its length. */
static size_t splice(uint8_t *out, const struct coll_zset_spot *s, uint64_t n,
                     const struct store_zset_el *ins)
{
    const uint8_t *f = s->form;
    uint8_t *w = out + codec_varint_put(out, n);
    size_t at = ins != NULL ? s->ins_at : s->rs;

    if (at <= s->rs) {
        w = span(w, f, s->body, at);
        if (ins != NULL) {
            w = coll_zset_rec_put(w, ins->m, ins->mlen, ins->score);
        }
        w = span(w, f, at, s->rs);
        w = span(w, f, s->re, s->len);
    } else {
        w = span(w, f, s->body, s->rs);
        w = span(w, f, s->re, at);
        w = coll_zset_rec_put(w, ins->m, ins->mlen, ins->score);
        w = span(w, f, at, s->len);
    }
    return (size_t)(w - out);
}

/* Stages s's chunk (at it) without its del record and/or with ins (one of them at least);
 * a chunk losing its only element vanishes. */
int coll_zset_stage_spot(struct coll_env *env, struct coll *c, struct coll_zset_txn *t,
                      const struct coll_it *it, const struct coll_zset_spot *s,
                      const struct store_zset_el *ins)
{
    uint64_t n = s->n - (s->found ? 1 : 0) + (ins != NULL ? 1 : 0);
    size_t len = codec_varint_len(n) + (s->len - s->body) - (s->re - s->rs) +
                 (ins != NULL ? coll_zset_rec_size(ins->mlen) : 0);
    uint8_t *buf;

    if (n == 0) {
        stage_vanish(t, it);
        return TERSE_OK;
    }
    if (len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    buf = edit_buf(env, c, len, n);
    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    (void)splice(buf, s, n, ins);
    return stage(env, c, t, it, buf, len, n, buf + align8(len));
}

/* ---- merges ------------------------------------------------------------------------------ */

/* The chunks at lo and hi (neighbours, lo first) made one of mlen bytes in lo's chunk. 1 when
 * done, 0 when a chunk failed to read or memory ran out (nothing changed). */
static int merge_pair(struct coll_env *env, struct coll *c, struct coll_it *lo,
                      struct coll_it *hi, size_t mlen)
{
    struct coll_desc *ld = coll_tree_desc(lo), *hd = coll_tree_desc(hi);
    uint64_t total = (uint64_t)ld->count + hd->count;
    struct coll_chunk *gone;
    uint8_t *buf = coll_env_build_buf(env, mlen);
    size_t w;

    if (buf == NULL) {
        return 0;
    }
    w = codec_varint_put(buf, total);
    for (int side = 0; side < 2; side++) {
        const struct coll_desc *d = side == 0 ? ld : hd;
        struct store_hash_it fit;
        const uint8_t *form;
        size_t len, body;

        if (coll_zset_chunk_open(env, d, false, &form, &len, &fit) != TERSE_OK) {
            return 0;
        }
        body = len - (size_t)(fit.p - form);
        memcpy(buf + w, fit.p, body);
        w += body;
    }
    gone = hd->chunk;
    if (coll_chunk_rewrite(env, c, &ld->chunk, buf, w) != TERSE_OK) {
        return 0;
    }
    ld->raw_len = (uint32_t)w;
    coll_tree_set_count(&c->tree, lo, (uint32_t)total);
    coll_tree_remove(&c->tree, hi);
    coll_chunk_drop(env, c, gone);
    return 1;
}

/* The chunk holding rank, under coll_hot_bytes / 4, merged with the neighbour that makes the
 * smaller chunk within 3/4 of coll_hot_bytes. Best effort: any failure changes nothing. */
void coll_zset_merge(struct coll_env *env, struct coll *c, uint64_t rank)
{
    size_t lim = (size_t)coll_hot_bytes(c) * 3 / 4, best = SIZE_MAX;
    struct coll_it it, nb;
    uint64_t within;
    bool nb_prev = false;

    if (!coll_tree_seek_rank(&c->tree, rank, &it, &within) ||
        coll_tree_desc(&it)->raw_len >= coll_hot_bytes(c) / 4) {
        return;
    }
    for (int side = 0; side < 2; side++) {
        struct coll_it o = it;
        size_t m;

        if (side == 0) {
            coll_tree_prev(&o);
        } else {
            coll_tree_next(&o);
        }
        if (!coll_it_valid(&o)) {
            continue;
        }
        m = coll_chunk_merged_len(coll_tree_desc(&it), coll_tree_desc(&o));
        if (m <= lim && m < best) {
            best = m;
            nb = o;
            nb_prev = side == 0;
        }
    }
    if (best != SIZE_MAX) {
        (void)merge_pair(env, c, nb_prev ? &nb : &it, nb_prev ? &it : &nb, best);
    }
}

int coll_zset_merge_next(struct coll_env *env, struct coll *c, struct coll_it *it)
{
    struct coll_it nb;
    size_t m;

    return coll_chunk_cold_next(c, it, &nb, &m) ? merge_pair(env, c, it, &nb, m) : 0;
}

