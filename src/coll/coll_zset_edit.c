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
#include "terse/status.h"

#include <assert.h>

/* ---- ZADD -------------------------------------------------------------------------------- */

static int map_put(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                   double score, enum coll_hash_result want)
{
    enum coll_hash_result res;
    uint8_t v[STORE_ZSET_SCORE_LEN];
    int st;

    coll_zset_score_put(v, score);
    st = coll_hash_put(env, c->aux, m, mlen, v, sizeof(v), 0, &res);
    return st != TERSE_OK ? st : res == want ? TERSE_OK : coll_zset_corrupt(env);
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
        st = map_put(env, c, el->m, el->mlen, el->score, COLL_HASH_ADDED);
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

static int add_new(struct coll_env *env, struct coll *c, const struct store_zset_el *el)
{
    struct coll_zset_txn t = {.n = 0};
    struct coll_it it;
    struct coll_zset_spot s;
    int st;

    if (c->tree.n_chunks == 0) {
        return add_first(env, c, el);
    }
    st = coll_zset_locate(env, c, el, &it);
    if (st == TERSE_OK) {
        st = coll_zset_spot_scan(env, coll_tree_desc(&it), NULL, el, &s);
    }
    if (st == TERSE_OK) {
        st = coll_zset_stage_spot(env, c, &t, &it, &s, el);
    }
    if (st == TERSE_OK) {
        st = map_put(env, c, el->m, el->mlen, el->score, COLL_HASH_ADDED);
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
                    const struct store_zset_el *ne)
{
    struct coll_zset_txn t = {.n = 0};
    struct coll_it a, tt;
    struct coll_zset_spot s;
    uint64_t rank_a;
    bool vanish = false;
    int st;

    if (c->tree.n_chunks == 0) {
        return coll_zset_corrupt(env);
    }
    st = coll_zset_locate(env, c, oe, &a);
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
            st = coll_zset_stage_spot(env, c, &t, &a, &s, ne);
        }
    } else {
        st = coll_zset_spot_scan(env, coll_tree_desc(&a), oe, NULL, &s);
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
            t.has_ins = true;
            t.ins_rank = coll_tree_rank_of(&tt) + s.ins_idx;
            st = coll_zset_stage_spot(env, c, &t, &tt, &s, ne);
        }
    }
    if (st == TERSE_OK) {
        st = map_put(env, c, ne->m, ne->mlen, ne->score, COLL_HASH_UPDATED);
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
    struct store_zset_el ne = {m, mlen, score}, oe = {m, mlen, 0};
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
    } else {
        rc = coll_zset_map_score(env, c, m, mlen, &oe.score);
    }
    if (rc < 0) {
        return rc;
    }
    if (rc == 0) {
        if (flags & COLL_ZSET_XX) {
            return TERSE_OK;
        }
        st = add_new(env, c, &ne);
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
    st = add_move(env, c, &oe, &ne);
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
    int rc = coll_zset_map_score(env, c, m, mlen, &el.score), st;

    if (rc != 1) {
        return rc;
    }
    if (c->tree.n_chunks == 0) {
        return coll_zset_corrupt(env);
    }
    st = coll_zset_locate(env, c, &el, &a);
    if (st == TERSE_OK) {
        st = coll_zset_spot_scan(env, coll_tree_desc(&a), &el, NULL, &s);
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
    rc = coll_hash_del(env, c->aux, m, mlen);
    if (rc != 1) {
        coll_zset_txn_undo(env, c, &t);
        return rc < 0 ? rc : coll_zset_corrupt(env);
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
        rc = coll_hash_del(env, c->aux, e.m, e.mlen);
        if (rc != 1) {
            rc = rc < 0 ? rc : coll_zset_corrupt(env);
            break;
        }
        rc = 0;
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
