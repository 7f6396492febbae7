/*
 * coll_zset: sorted sets as chunked containers (coll_zset.h): the design, their life, the
 * searches of the order (locate, seeks) and the helpers the engine's other files share
 * (coll_zset_internal.h).
 *
 * Finding an element among chunks whose first scores tie. A descriptor's key.k is the image of
 * its chunk's first score and key.aux is 0, so the tree alone orders chunks by score only: a
 * run of chunks whose first elements share one score (ZRANGEBYLEX's all-zero sets: 100,000
 * members at 0 make hundreds of such chunks) cannot be told apart by the keys. Within such a
 * run the chunks are still in member order, so locate (the last chunk whose first element is
 * <= el) is:
 *
 *   1. hi = the last chunk with key.k <= key(el): a descent (coll_tree_seek_key). Its key is
 *      not key(el): hi is the answer (no run to search).
 *   2. Else read hi's first element: <= el, hi is the answer (one chunk read: the common case
 *      of distinct scores, and of appends at the end of a run).
 *   3. Else the run's first chunk (a second descent, strict) and ranks r_lo = its first rank,
 *      r_hi = hi's first rank - 1; a binary search over element ranks in [r_lo, r_hi]: the
 *      chunk holding the middle rank (coll_tree_seek_rank) has its first element read (peeked:
 *      a probe does not keep a chunk hot); <= el moves lo past that chunk, else hi before it.
 *      Each probe halves the ranks left, so log2(run elements) + 1 probes at most (17 for
 *      100,000 members), each one descent and one chunk read: O(log n) chunk reads, never a
 *      walk over the run. None found: the chunk before the run, or the run's first when the
 *      run starts the set.
 *
 * seek_lex is step 3 over the whole rank range (every key is equal there). seek_score needs no
 * probe: the last chunk whose key is < key(s) (<= for exclusive) holds the answer or ends just
 * before it, so one descent and one chunk read.
 *
 * Buffers: forms of chunks are views (coll_chunk_read: the chunk itself or the env's decode
 * buffer, owned by the env); new forms are built in the env's build buffer (owned by the env);
 * chunks are owned by c (or c->aux for the map's), the map by c.
 */
#include "coll/coll_zset_internal.h"

#include <math.h>

#include "terse/status.h"

#include <assert.h>

/* ---- helpers ----------------------------------------------------------------------------- */

uint64_t coll_zset_score_key(double score)
{
    uint64_t b;

    if (score == 0) {
        score = 0.0; /* -0 and 0: one key */
    }
    memcpy(&b, &score, sizeof(b));
    return (b >> 63) != 0 ? ~b : b | ((uint64_t)1 << 63);
}

int coll_zset_corrupt(struct coll_env *env)
{
    coll_env_count_corrupt(env);
    return TERSE_ECORRUPT;
}

int coll_zset_next_slow(struct coll_env *env, struct store_hash_it *fit,
                        struct store_zset_el *el)
{
    struct store_hash_kv kv;
    int rc = store_hash_next(fit, &kv);

    if (rc == 0) {
        return 0;
    }
    if (rc != 1 || kv.vlen != STORE_ZSET_SCORE_LEN) {
        return coll_zset_corrupt(env);
    }
    el->m = kv.f;
    el->mlen = kv.flen;
    el->score = store_zset_score(kv.v);
    return isnan(el->score) ? coll_zset_corrupt(env) : 1;
}

int coll_zset_chunk_open(struct coll_env *env, const struct coll_desc *d, bool peek,
                         const uint8_t **form, size_t *len, struct store_hash_it *fit)
{
    uint64_t n;
    int st = peek ? coll_chunk_peek(env, d->chunk, form, len)
                  : coll_chunk_read(env, d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    if (*len != d->raw_len || store_hash_open(*form, *len, fit, &n) != TERSE_OK ||
        n != d->count || n == 0) {
        return coll_zset_corrupt(env);
    }
    return TERSE_OK;
}

/* The first element of the chunk of d (a view), peeked. */
static int chunk_first(struct coll_env *env, const struct coll_desc *d, struct store_zset_el *el)
{
    struct store_hash_it fit;
    const uint8_t *form;
    size_t len;
    int st = coll_zset_chunk_open(env, d, true, &form, &len, &fit);

    if (st != TERSE_OK) {
        return st;
    }
    st = coll_zset_next(env, &fit, el);
    return st == 1 ? TERSE_OK : st < 0 ? st : coll_zset_corrupt(env);
}

/* ---- searches ---------------------------------------------------------------------------- */

/* Descents by key.k: the last key <= k, or (strict) the last key < k. */
static void seek_key(const struct coll *c, uint64_t k, bool strict, struct coll_it *it)
{
    bool found = coll_tree_seek_k(&c->tree, k, strict, it);

    (void)found;
    assert(found);
}

/* A test on a chunk's first element, true for a prefix of the chunks in order. */
typedef bool first_pred(const void *arg, const struct store_zset_el *first);

/*
 * The last chunk, among those starting at ranks lo..hi (lo a chunk's first rank), whose first
 * element passes pred: *it and *found (false: none). A binary search over ranks (the top).
 */
static int rank_search(struct coll_env *env, const struct coll *c, uint64_t lo, uint64_t hi,
                       first_pred *pred, const void *arg, struct coll_it *it, bool *found)
{
    *found = false;
    while (lo <= hi) {
        uint64_t mid = lo + (hi - lo) / 2, within, start;
        struct store_zset_el f;
        struct coll_it x;
        const struct coll_desc *d;
        int st;

        if (!coll_tree_seek_rank(&c->tree, mid, &x, &within)) {
            return coll_zset_corrupt(env);
        }
        d = coll_tree_desc(&x);
        start = mid - within;
        st = chunk_first(env, d, &f);
        if (st != TERSE_OK) {
            return st;
        }
        if (pred(arg, &f)) {
            *it = x;
            *found = true;
            lo = start + d->count;
        } else {
            if (start == 0) {
                break;
            }
            hi = start - 1;
        }
    }
    return TERSE_OK;
}

static bool le_el(const void *arg, const struct store_zset_el *first)
{
    return store_zset_cmp(first, arg) <= 0;
}

int coll_zset_locate(struct coll_env *env, struct coll *c, const struct store_zset_el *el,
                     struct coll_it *it)
{
    uint64_t k = coll_zset_score_key(el->score), r_lo, r_hi;
    struct coll_it hi, lo, run;
    struct store_zset_el f;
    bool found, before;
    int st;

    seek_key(c, k, false, &hi);
    *it = hi;
    if (coll_tree_desc(&hi)->key.k != k) {
        return TERSE_OK;
    }
    st = chunk_first(env, coll_tree_desc(&hi), &f);
    if (st != TERSE_OK || store_zset_cmp(&f, el) <= 0) {
        return st;
    }
    seek_key(c, k, true, &lo);
    run = lo;
    before = coll_tree_desc(&lo)->key.k < k; /* lo is the chunk before the run */
    if (before) {
        coll_tree_next(&run);
    }
    r_lo = coll_tree_rank_of(&run);
    r_hi = coll_tree_rank_of(&hi);
    if (r_hi > r_lo) {
        st = rank_search(env, c, r_lo, r_hi - 1, le_el, el, it, &found);
        if (st != TERSE_OK || found) {
            return st;
        }
    }
    *it = before ? lo : run;
    return TERSE_OK;
}

/* ---- life -------------------------------------------------------------------------------- */

int coll_zset_create(struct coll_env *env, const struct coll_zset_shape *shape,
                     struct coll **out)
{
    struct coll_hash_shape hs;
    struct coll *c;
    int st;

    *out = NULL;
    if (!coll_zset_shape_ok(shape)) {
        return TERSE_EINVAL;
    }
    /* The map's records are 18 bytes, found by a linear scan: its chunks are half the
     * order's when those are 2 KiB or more (smaller ones would not compress). */
    hs.chunk_bytes = shape->chunk_bytes >= 2048 ? shape->chunk_bytes / 2 : shape->chunk_bytes;
    st = coll_create(env, COLL_ZSET, shape->chunk_bytes, &c);
    if (st != TERSE_OK) {
        return st;
    }
    c->merge_next = coll_zset_merge_next;
    st = coll_hash_create(env, COLL_HASH, &hs, &c->aux);
    if (st != TERSE_OK) {
        coll_destroy(env, c);
        return st;
    }
    *out = c;
    return TERSE_OK;
}

int coll_zset_seek_score(struct coll_env *env, struct coll *c, double score, bool exclusive,
                         uint64_t *rank)
{
    uint64_t k = coll_zset_score_key(score);
    struct store_hash_it fit;
    struct store_zset_el e;
    struct coll_it it;
    const uint8_t *form;
    size_t len;
    int rc;

    *rank = c->count;
    if (isnan(score)) {
        return TERSE_EINVAL;
    }
    if (c->tree.n_chunks == 0) {
        return TERSE_OK;
    }
    /* The last chunk holding a score < s (<= s when exclusive) ends at or before the answer. */
    seek_key(c, k, !exclusive, &it);
    rc = coll_zset_chunk_open(env, coll_tree_desc(&it), false, &form, &len, &fit);
    if (rc != TERSE_OK) {
        return rc;
    }
    for (uint64_t i = 0; (rc = coll_zset_next(env, &fit, &e)) == 1; i++) {
        if (exclusive ? e.score > score : e.score >= score) {
            *rank = coll_tree_rank_of(&it) + i;
            return TERSE_OK;
        }
    }
    if (rc < 0) {
        return rc;
    }
    *rank = coll_tree_rank_of(&it) + coll_tree_desc(&it)->count;
    return TERSE_OK;
}

struct lex_target {
    const uint8_t *m;
    size_t mlen;
    bool exclusive;
};

/* The member comes before the target (or is it, when exclusive). */
static bool lex_before(const void *arg, const struct store_zset_el *e)
{
    const struct lex_target *t = arg;
    int cmp = store_zset_member_cmp(e->m, e->mlen, t->m, t->mlen);

    return t->exclusive ? cmp <= 0 : cmp < 0;
}

int coll_zset_seek_lex(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen,
                       bool exclusive, uint64_t *rank)
{
    struct lex_target t = {m, mlen, exclusive};
    struct store_hash_it fit;
    struct store_zset_el e;
    struct coll_it it;
    const uint8_t *form;
    size_t len;
    bool found;
    int rc;

    *rank = 0;
    if (c->count == 0) {
        return TERSE_OK;
    }
    rc = rank_search(env, c, 0, c->count - 1, lex_before, &t, &it, &found);
    if (rc != TERSE_OK || !found) {
        return rc; /* none before: rank 0 */
    }
    rc = coll_zset_chunk_open(env, coll_tree_desc(&it), false, &form, &len, &fit);
    if (rc != TERSE_OK) {
        return rc;
    }
    for (uint64_t i = 0; (rc = coll_zset_next(env, &fit, &e)) == 1; i++) {
        if (!lex_before(&t, &e)) {
            *rank = coll_tree_rank_of(&it) + i;
            return TERSE_OK;
        }
    }
    if (rc < 0) {
        return rc;
    }
    *rank = coll_tree_rank_of(&it) + coll_tree_desc(&it)->count;
    return TERSE_OK;
}
