/*
 * coll_zset_edit: ZADD, ZREM and remove_range (coll_zset.h), each a staged edit of the order,
 * then the map's one call, then a commit or an undo (coll_zset_stage.c).
 *
 * A move (ZADD of a present member to a new score) is one edit when the new place is in the
 * member's chunk, else a removal from its chunk then an insert where the new place is (found
 * again after the removal); both are undone if the map's write fails.
 *
 * remove_range goes a chunk at a time: the chunk is read once and copied into a reserve chunk
 * (its form must outlive the map's reads, which reuse the env's decode buffer; the reserve is
 * also the block its remainder is written into, so that write needs no allocation); fn and the
 * map's delete run for each element in order; then a chunk emptied leaves the tree (not
 * rewritten), a chunk cut is rewritten in the reserve's block. A failure stops with the
 * elements already removed gone from both, the others in both.
 */
#include "coll/coll_zset_internal.h"

#include <math.h>

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <assert.h>

/* ---- ZADD -------------------------------------------------------------------------------- */

/* An element's member copied out of its chunk (its views do not outlive the map's writes):
 * in place when small, else core_alloc'd and freed here. Its entry made full. */
static int make_full(struct coll_env *env, struct coll *c, const struct store_zset_el *e)
{
    uint8_t small[128], *m = e->mlen <= sizeof(small) ? small : core_alloc(e->mlen);
    int st;

    if (m == NULL) {
        return TERSE_ENOMEM;
    }
    if (e->mlen > 0) {
        memcpy(m, e->m, e->mlen);
    }
    st = coll_zset_map_make_full(env, c, m, e->mlen, e->score);
    if (m != small) {
        core_free(m);
    }
    return st;
}

/*
 * The run rule (coll_zset_map.c's top) before ins goes at the spot s of the chunk at it (del's
 * record, when s found it, disregarded: it is moving away). *full: ins's run will have
 * COLL_ZSET_RUN_FULL elements or more (its entry must be full); when it gets there with this
 * insert, the entries of the run's other elements are made full first. One pass over the
 * chunk finds ins's neighbours and the run's elements there; only a run that crosses into
 * another chunk is measured by two descents. *redo: other chunks were read or the map written,
 * so s's views are stale (scan again; the tree is as it was). A failure leaves the map valid
 * (full entries are valid anywhere).
 */
static int run_prepare(struct coll_env *env, struct coll *c, const struct coll_it *it,
                       const struct coll_zset_spot *s, const struct store_zset_el *ins,
                       bool *full, bool *redo)
{
    size_t rt_at = s->found && s->ins_at == s->rs ? s->re : s->ins_at;
    uint64_t first, lo, hi, run = s->run_before;
    bool tie = s->run_before > 0, to_end = true, cross, next_s, have_lo = false;
    struct store_zset_el e;
    struct coll_it nx = *it;
    int st = TERSE_OK;

    *full = *redo = false;
    /* The run after ins's place in this chunk (del's record, when there, skipped). */
    if (rt_at < s->len) {
        uint64_t left = s->n - s->ins_idx - (rt_at != s->ins_at ? 1 : 0);
        struct store_hash_it f = {s->form + rt_at, s->form + s->len, left};
        for (;;) {
            size_t at = (size_t)(f.p - s->form);
            int rc = coll_zset_next(env, &f, &e);
            if (rc != 1) {
                if (rc < 0) {
                    return rc;
                }
                break;
            }
            if (s->found && at == s->rs) {
                continue;
            }
            if (e.score != ins->score) {
                to_end = false;
                break;
            }
            run++;
        }
    }
    tie = tie || run > s->run_before;
    coll_tree_next(&nx);
    next_s = coll_it_valid(&nx) && coll_tree_desc(&nx)->key.k == coll_zset_score_key(ins->score);
    /* The run may go on in the chunks before (it starts this chunk, or nothing of this chunk
     * comes before ins's place) and after (it ends this chunk, the next one's key is its
     * score). */
    cross = next_s && to_end;
    if ((s->lt_at == s->len || (s->run_before > 0 && s->run_at_start)) &&
        (first = coll_tree_rank_of(it)) > 0) {
        *redo = true;
        st = coll_zset_at(env, c, first - 1, &e);
        if (st != TERSE_OK) {
            return st;
        }
        if (e.score == ins->score) {
            tie = cross = true;
        }
    }
    tie = tie || cross;
    if (!tie) {
        return TERSE_OK;
    }
    if (cross) {
        *redo = true;
        st = coll_zset_seek_score(env, c, ins->score, false, &lo);
        if (st == TERSE_OK) {
            st = coll_zset_seek_score(env, c, ins->score, true, &hi);
        }
        if (st != TERSE_OK) {
            return st;
        }
        run = hi - lo;
        have_lo = true;
    }
    if (run + 1 < COLL_ZSET_RUN_FULL) {
        return TERSE_OK;
    }
    *full = true;
    if (run + 1 > COLL_ZSET_RUN_FULL) {
        return TERSE_OK; /* every element of the run has a full entry already */
    }
    *redo = true;
    if (!have_lo) {
        st = coll_zset_seek_score(env, c, ins->score, false, &lo);
    }
    for (uint64_t k = lo; k < lo + run && st == TERSE_OK; k++) {
        st = coll_zset_at(env, c, k, &e);
        if (st == TERSE_OK) {
            st = make_full(env, c, &e);
        }
    }
    return st;
}

/* The first element of an empty set. */
static int add_first(struct coll_env *env, struct coll *c, const struct store_zset_el *el)
{
    size_t len = 1 + coll_zset_rec_size(el->mlen);
    uint8_t *buf = coll_env_build_buf(env, len);
    struct coll_it at = {NULL, 0};
    struct coll_chunk *ch;
    struct coll_desc d;
    int st;

    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    buf[0] = 1;
    (void)coll_zset_rec_put(buf + 1, el->m, el->mlen, el->score);
    st = coll_chunk_put(env, c, buf, len, &ch);
    if (st != TERSE_OK) {
        return st;
    }
    d = (struct coll_desc){ch, 1, (uint32_t)len, coll_zset_key_of(el->score)};
    st = coll_tree_insert(&c->tree, &at, &d);
    if (st == TERSE_OK) {
        st = coll_zset_map_set(env, c, el->m, el->mlen, el->score, false, false,
                               COLL_ZSET_MAP_UNKNOWN, NULL);
        if (st != TERSE_OK) {
            at = coll_tree_begin(&c->tree);
            coll_tree_remove(&c->tree, &at);
        }
    }
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, ch);
        return st;
    }
    c->count = 1;
    return TERSE_OK;
}

static int add_new(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                   uint8_t known, const struct coll_hash_at *at)
{
    struct coll_zset_txn t = {.n = 0};
    struct coll_it it;
    struct coll_zset_spot s;
    bool tie = false, redo = false;
    int st;

    if (c->tree.n_chunks == 0) {
        return add_first(env, c, el);
    }
    st = coll_zset_locate(env, c, el, &it);
    if (st == TERSE_OK) {
        st = coll_zset_spot_scan(env, coll_tree_desc(&it), NULL, el, &s);
    }
    if (st == TERSE_OK) {
        st = run_prepare(env, c, &it, &s, el, &tie, &redo);
    }
    if (st == TERSE_OK && redo) {
        st = coll_zset_spot_scan(env, coll_tree_desc(&it), NULL, el, &s);
    }
    if (st == TERSE_OK) {
        st = coll_zset_stage_spot(env, c, &t, &it, &s, el);
    }
    if (st == TERSE_OK) {
        st = coll_zset_map_set(env, c, el->m, el->mlen, el->score, tie, false, known, at);
        if (st != TERSE_OK) {
            coll_zset_txn_undo(env, c, &t);
        }
    }
    if (st != TERSE_OK) {
        return st;
    }
    coll_zset_txn_commit(env, c, &t);
    c->count++;
    return TERSE_OK;
}

static bool same_it(const struct coll_it *a, const struct coll_it *b)
{
    return a->leaf == b->leaf && a->slot == b->slot;
}

/* Moves a present member from oe to ne (scores differ). */
static int add_move(struct coll_env *env, struct coll *c, const struct store_zset_el *oe,
                    const struct store_zset_el *ne, const struct coll_zset_hint *h)
{
    uint8_t known = h->map;
    struct coll_zset_txn t = {.n = 0};
    struct coll_it a, tt;
    struct coll_zset_spot s;
    uint64_t rank_a;
    bool vanish = false, tie = false, redo = false;
    int st = TERSE_OK;

    if (c->tree.n_chunks == 0) {
        return coll_zset_corrupt(env);
    }
    if (h->located) {
        a = h->it;
    } else {
        st = coll_zset_locate(env, c, oe, &a);
    }
    if (st == TERSE_OK) {
        st = coll_zset_locate(env, c, ne, &tt);
    }
    if (st != TERSE_OK) {
        return st;
    }
    rank_a = coll_tree_rank_of(&a);
    if (same_it(&a, &tt)) {
        st = coll_zset_spot_scan(env, coll_tree_desc(&a), oe, ne, &s);
        if (st == TERSE_OK && !s.found) {
            st = coll_zset_corrupt(env);
        }
        if (st == TERSE_OK) {
            st = run_prepare(env, c, &a, &s, ne, &tie, &redo);
        }
        if (st == TERSE_OK && redo) {
            st = coll_zset_spot_scan(env, coll_tree_desc(&a), oe, ne, &s);
        }
        if (st == TERSE_OK) {
            st = coll_zset_stage_spot(env, c, &t, &a, &s, ne);
        }
    } else {
        st = h->located ? coll_zset_spot_known(env, h, &s)
                        : coll_zset_spot_scan(env, coll_tree_desc(&a), oe, NULL, &s);
        if (st == TERSE_OK && !s.found) {
            st = coll_zset_corrupt(env);
        }
        if (st == TERSE_OK) {
            vanish = s.n == 1;
            st = coll_zset_stage_spot(env, c, &t, &a, &s, NULL);
        }
        /* After a staged removal the tree changed: the new place is found again. */
        if (st == TERSE_OK && !vanish) {
            st = coll_zset_locate(env, c, ne, &tt);
        }
        if (st == TERSE_OK) {
            st = coll_zset_spot_scan(env, coll_tree_desc(&tt), NULL, ne, &s);
        }
        if (st == TERSE_OK) {
            st = run_prepare(env, c, &tt, &s, ne, &tie, &redo);
        }
        if (st == TERSE_OK && redo) {
            st = coll_zset_spot_scan(env, coll_tree_desc(&tt), NULL, ne, &s);
        }
        if (st == TERSE_OK) {
            t.has_ins = true;
            t.ins_rank = coll_tree_rank_of(&tt) + s.ins_idx;
            st = coll_zset_stage_spot(env, c, &t, &tt, &s, ne);
        }
    }
    if (st == TERSE_OK) {
        st = coll_zset_map_set(env, c, ne->m, ne->mlen, ne->score, tie, true, known,
                               &h->map_at);
    }
    if (st != TERSE_OK) {
        coll_zset_txn_undo(env, c, &t);
        return st;
    }
    coll_zset_txn_commit(env, c, &t);
    if (!vanish) {
        coll_zset_merge(env, c, rank_a);
    }
    return TERSE_OK;
}

int coll_zset_add(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                  double score, unsigned flags, enum coll_zset_result *result, double *old)
{
    return coll_zset_add_hint(env, c, m, mlen, score, flags, result, old, NULL);
}

int coll_zset_add_hint(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       double score, unsigned flags, enum coll_zset_result *result, double *old,
                       const struct coll_zset_hint *hint)
{
    struct store_zset_el ne = {m, mlen, score}, oe = {m, mlen, 0};
    struct coll_zset_hint h = {.located = false, .map = COLL_ZSET_MAP_UNKNOWN};
    int rc, st;

    *result = COLL_ZSET_UNTOUCHED;
    if ((flags & ~(COLL_ZSET_NX | COLL_ZSET_XX | COLL_ZSET_GT | COLL_ZSET_LT |
                   COLL_ZSET_KNOWN_ABSENT | COLL_ZSET_KNOWN_AT)) != 0 ||
        ((flags & COLL_ZSET_NX) && (flags & (COLL_ZSET_XX | COLL_ZSET_GT | COLL_ZSET_LT))) ||
        ((flags & COLL_ZSET_GT) && (flags & COLL_ZSET_LT)) ||
        ((flags & COLL_ZSET_KNOWN_ABSENT) && (flags & COLL_ZSET_KNOWN_AT)) || isnan(score)) {
        return TERSE_EINVAL;
    }
    if (mlen > CODEC_VALUE_MAX || coll_zset_rec_size(mlen) + 10 > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    if (flags & (COLL_ZSET_KNOWN_ABSENT | COLL_ZSET_KNOWN_AT)) {
        rc = (flags & COLL_ZSET_KNOWN_AT) != 0;
        oe.score = *old;
        if (hint != NULL) {
            h = *hint;
        }
    } else {
        rc = coll_zset_map_find(env, c, m, mlen, &oe.score, &h);
    }
    if (rc < 0) {
        return rc;
    }
    if (rc == 0) {
        if (flags & COLL_ZSET_XX) {
            return TERSE_OK;
        }
        st = add_new(env, c, &ne, h.map, &h.map_at);
        if (st == TERSE_OK) {
            *result = COLL_ZSET_ADDED;
        }
        return st;
    }
    *old = oe.score;
    if ((flags & COLL_ZSET_NX) || ((flags & COLL_ZSET_GT) && !(score > oe.score)) ||
        ((flags & COLL_ZSET_LT) && !(score < oe.score)) || score == oe.score) {
        return TERSE_OK;
    }
    st = add_move(env, c, &oe, &ne, &h);
    if (st == TERSE_OK) {
        *result = COLL_ZSET_UPDATED;
    }
    return st;
}

/* ---- ZREM -------------------------------------------------------------------------------- */

int coll_zset_rem(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen)
{
    struct store_zset_el el = {m, mlen, 0};
    struct coll_zset_txn t = {.n = 0};
    struct coll_it a;
    struct coll_zset_spot s;
    uint64_t rank_a;
    struct coll_zset_hint h;
    int rc = coll_zset_map_find(env, c, m, mlen, &el.score, &h), st = TERSE_OK;

    if (rc != 1) {
        return rc;
    }
    if (c->tree.n_chunks == 0) {
        return coll_zset_corrupt(env);
    }
    if (h.located) {
        a = h.it;
    } else {
        st = coll_zset_locate(env, c, &el, &a);
    }
    if (st == TERSE_OK) {
        st = h.located ? coll_zset_spot_known(env, &h, &s)
                       : coll_zset_spot_scan(env, coll_tree_desc(&a), &el, NULL, &s);
    }
    if (st == TERSE_OK && !s.found) {
        st = coll_zset_corrupt(env);
    }
    if (st != TERSE_OK) {
        return st;
    }
    rank_a = coll_tree_rank_of(&a);
    st = coll_zset_stage_spot(env, c, &t, &a, &s, NULL);
    if (st != TERSE_OK) {
        return st;
    }
    st = coll_zset_map_unset(env, c, m, mlen, h.map, &h.map_at);
    if (st != TERSE_OK) {
        coll_zset_txn_undo(env, c, &t);
        return st;
    }
    coll_zset_txn_commit(env, c, &t);
    c->count--;
    if (s.n > 1) {
        coll_zset_merge(env, c, rank_a);
    }
    return 1;
}

/* ---- remove_range ------------------------------------------------------------------------ */

/* Removes from the chunk at it (read: form, len, its cursor fit) up to `take` elements from
 * index w on: fn and the map for each, then the order. *got: how many went. */
static int range_chunk(struct coll_env *env, struct coll *c, struct coll_it *it, uint64_t w,
                       uint64_t take, coll_zset_each_fn *fn, void *arg, uint64_t *got)
{
    struct coll_desc *d = coll_tree_desc(it);
    struct coll_chunk *res;
    struct store_hash_it fit;
    struct store_zset_el e;
    const uint8_t *form, *rs = NULL, *re = NULL;
    size_t len;
    int st = coll_zset_chunk_open(env, d, false, &form, &len, &fit), rc = 0;

    *got = 0;
    if (st != TERSE_OK) {
        return st;
    }
    /* The reserve: a copy the map's reads cannot clobber, and the block of the remainder. */
    if (coll_env_build_buf(env, len) == NULL) {
        return TERSE_ENOMEM;
    }
    st = coll_chunk_put(env, c, form, len, &res);
    if (st != TERSE_OK) {
        return st;
    }
    st = coll_zset_chunk_open(env, &(struct coll_desc){res, d->count, (uint32_t)len, d->key},
                              false, &form, &len, &fit);
    assert(st == TERSE_OK);
    for (uint64_t i = 0; i < w + take; i++) {
        const uint8_t *at = fit.p;

        st = coll_zset_next(env, &fit, &e);
        if (st != 1) {
            st = st < 0 ? st : coll_zset_corrupt(env);
            break;
        }
        st = TERSE_OK;
        if (i < w) {
            continue;
        }
        if (fn != NULL && (rc = fn(arg, &e)) != 0) {
            break;
        }
        rc = coll_zset_map_unset(env, c, e.m, e.mlen, COLL_ZSET_MAP_UNKNOWN, NULL);
        if (rc != TERSE_OK) {
            break;
        }
        if (rs == NULL) {
            rs = at;
        }
        re = fit.p;
        (*got)++;
    }
    if (*got == d->count) {
        struct coll_chunk *ch = d->chunk;

        coll_tree_remove(&c->tree, it);
        coll_chunk_drop(env, c, ch);
        coll_chunk_drop(env, c, res);
    } else if (*got == 0) {
        coll_chunk_drop(env, c, res);
    } else {
        uint64_t n = d->count - *got;
        uint8_t *buf = coll_env_build_buf(env, len); /* grown to len above: cannot fail */
        struct store_hash_it f0;
        uint64_t cnt;
        size_t nlen;
        int wst;

        assert(buf != NULL);
        (void)store_hash_open(form, len, &f0, &cnt);
        nlen = codec_varint_put(buf, n);
        memcpy(buf + nlen, f0.p, (size_t)(rs - f0.p));
        nlen += (size_t)(rs - f0.p);
        memcpy(buf + nlen, re, (size_t)(form + len - re));
        nlen += (size_t)(form + len - re);
        wst = coll_chunk_rewrite(env, c, &res, buf, nlen); /* in place: it is smaller */
        (void)wst;
        assert(wst == TERSE_OK);
        coll_chunk_drop(env, c, d->chunk);
        d->chunk = res;
        d->raw_len = (uint32_t)nlen;
        coll_tree_set_count(&c->tree, it, (uint32_t)n);
        if (w == 0) {
            struct coll_key key = coll_zset_key_of(coll_zset_rec_score(buf + codec_varint_len(n),
                                                             buf + nlen));
            coll_tree_set_key(&c->tree, it, &key);
        }
    }
    c->count -= *got;
    return st != TERSE_OK ? st : rc;
}

int coll_zset_remove_range(struct coll_env *env, struct coll *c, uint64_t start, uint64_t n,
                           coll_zset_each_fn *fn, void *arg, uint64_t *removed)
{
    uint64_t want, done = 0;
    int st = TERSE_OK;

    *removed = 0;
    if (start >= c->count || n == 0) {
        return TERSE_OK;
    }
    want = n < c->count - start ? n : c->count - start;
    while (done < want) {
        struct coll_it it;
        uint64_t within, got;

        if (!coll_tree_seek_rank(&c->tree, start, &it, &within)) {
            st = coll_zset_corrupt(env);
            break;
        }
        {
            uint64_t room = coll_tree_desc(&it)->count - within;
            st = range_chunk(env, c, &it, within, room < want - done ? room : want - done, fn,
                             arg, &got);
        }
        done += got;
        if (st != TERSE_OK) {
            break;
        }
    }
    *removed = done;
    /* The two chunks the cut left side by side, if small. */
    if (start < c->count) {
        coll_zset_merge(env, c, start);
    }
    if (start > 0 && start - 1 < c->count) {
        coll_zset_merge(env, c, start - 1);
    }
    return st;
}
