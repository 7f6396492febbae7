/*
 * coll_hash_read: the whole container in one form, walks, scans, picks by rank, and the full
 * verification (coll_hash.h). Each reads chunks through coll_hash_chunk_open, which verifies
 * the checksum and cross-checks the count and bytes with the descriptor before any element is
 * given.
 *
 * Scan: a step from cursor x gives the elements of [x, next) where next is a chunk's low bound,
 * so the steps of a scan partition the hash space in increasing intervals; an element's h never
 * changes, and a split or a merge only moves range boundaries, so an element present all along
 * falls in exactly one step's interval and its chunk at that step is read whole from x on.
 */
#include "coll/coll_hash_internal.h"

#include "coll/coll_form.h"

#include "terse/status.h"

/* ---- the whole form ---------------------------------------------------------------------- */

size_t coll_hash_form_size(const struct coll *c)
{
    /* Each chunk's form holds its count (one byte at least) and its records; the whole form
     * holds one count of at most 10 bytes. */
    return (size_t)c->raw + 10;
}

int coll_hash_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    return coll_join_forms(env, c, coll_hash_chunk_open, out, cap, out_len);
}

/* ---- walks ------------------------------------------------------------------------------- */

int coll_hash_it_init(struct coll_env *env, struct coll *c, struct coll_hash_it *it)
{
    (void)env;
    it->c = c;
    it->tit = coll_tree_begin(&c->tree);
    it->loaded = false;
    return TERSE_OK;
}

int coll_hash_it_next(struct coll_env *env, struct coll_hash_it *it, struct store_hash_kv *kv)
{
    while (coll_it_valid(&it->tit)) {
        int rc;

        if (!it->loaded) {
            const uint8_t *form;
            size_t len;
            int st = coll_hash_chunk_open(env, coll_tree_desc(&it->tit), &form, &len, &it->fit);

            if (st != TERSE_OK) {
                return st;
            }
            it->loaded = true;
        }
        rc = store_hash_next(&it->fit, kv);
        if (rc == 1) {
            return 1;
        }
        if (rc < 0) {
            return coll_hash_corrupt(env);
        }
        coll_tree_next(&it->tit);
        it->loaded = false;
    }
    return 0;
}

/* ---- scans and ranks --------------------------------------------------------------------- */

int coll_hash_scan(struct coll_env *env, struct coll *c, uint64_t cursor, size_t count,
                   coll_hash_scan_fn *fn, void *arg, uint64_t *next)
{
    struct coll_it it;
    size_t given = 0;
    bool first = true;

    *next = 0;
    if (c->tree.n_chunks == 0) {
        return TERSE_OK;
    }
    if (count == 0) {
        count = 1;
    }
    coll_hash_seek(c, cursor, &it);
    while (coll_it_valid(&it) && given < count) {
        const struct coll_desc *d = coll_tree_desc(&it);
        /* The chunk holding the cursor gives only what lies at or after it (a merge may have
         * put it inside a range); later chunks lie wholly after it. */
        bool filter = first && cursor > d->key.k;
        struct store_hash_it fit;
        struct store_hash_kv kv;
        const uint8_t *form;
        size_t len;
        int rc, st = coll_hash_chunk_open(env, d, &form, &len, &fit);

        if (st != TERSE_OK) {
            return st;
        }
        while ((rc = store_hash_next(&fit, &kv)) == 1) {
            if (filter && coll_hash_of(c, kv.f, kv.flen) < cursor) {
                continue;
            }
            st = fn(arg, &kv);
            if (st != 0) {
                return st;
            }
            given++;
        }
        if (rc < 0) {
            return coll_hash_corrupt(env);
        }
        first = false;
        coll_tree_next(&it);
    }
    *next = coll_it_valid(&it) ? coll_tree_desc(&it)->key.k : 0;
    return TERSE_OK;
}

int coll_hash_at(struct coll_env *env, struct coll *c, uint64_t rank, struct store_hash_kv *kv)
{
    struct store_hash_it fit;
    struct coll_it it;
    const uint8_t *form;
    uint64_t within;
    size_t len;
    int st;

    if (!coll_tree_seek_rank(&c->tree, rank, &it, &within)) {
        return TERSE_EINVAL;
    }
    st = coll_hash_chunk_open(env, coll_tree_desc(&it), &form, &len, &fit);
    if (st != TERSE_OK) {
        return st;
    }
    for (uint64_t i = 0; i <= within; i++) {
        if (store_hash_next(&fit, kv) != 1) {
            return coll_hash_corrupt(env);
        }
    }
    return TERSE_OK;
}

/* ---- verification ------------------------------------------------------------------------ */

static int key_order(const struct coll_key *a, const struct coll_key *b)
{
    return a->k < b->k ? -1 : a->k > b->k ? 1 : 0;
}

/* The chunk at it: its form, its elements' places, its size. */
static int verify_chunk(struct coll_env *env, const struct coll *c, const struct coll_it *it)
{
    const struct coll_desc *d = coll_tree_desc(it);
    struct store_hash_it fit;
    struct store_hash_kv kv;
    const uint8_t *form;
    uint64_t end = 0, h0 = 0;
    bool bounded = coll_hash_range_end(it, &end), one_h = true;
    size_t len;
    int rc;

    if (bounded && end <= d->key.k) {
        return TERSE_ECORRUPT;
    }
    if (coll_hash_chunk_open(env, d, &form, &len, &fit) != TERSE_OK || len != d->chunk->raw ||
        store_hash_check(form, len) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    for (uint64_t i = 0; (rc = store_hash_next(&fit, &kv)) == 1; i++) {
        uint64_t h = coll_hash_of(c, kv.f, kv.flen);

        if (h < d->key.k || (bounded && h >= end) || (c->type == COLL_SET && kv.vlen != 0)) {
            return TERSE_ECORRUPT;
        }
        if (i == 0) {
            h0 = h;
        }
        one_h = one_h && h == h0;
    }
    if (rc != 0 || (len > c->chunk_max && d->count > 1 && !one_h)) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}

int coll_hash_verify(struct coll_env *env, struct coll *c)
{
    struct coll_it it = coll_tree_begin(&c->tree);
    uint64_t total = 0, raw = 0;

    if ((c->type != COLL_HASH && c->type != COLL_SET) ||
        coll_tree_verify(&c->tree, key_order) != TERSE_OK ||
        coll_tree_total(&c->tree) != c->count) {
        return TERSE_ECORRUPT;
    }
    if (coll_it_valid(&it) && coll_tree_desc(&it)->key.k != 0) {
        return TERSE_ECORRUPT;
    }
    for (; coll_it_valid(&it); coll_tree_next(&it)) {
        if (verify_chunk(env, c, &it) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        total += coll_tree_desc(&it)->count;
        raw += coll_tree_desc(&it)->raw_len;
    }
    return total == c->count && raw == c->raw ? TERSE_OK : TERSE_ECORRUPT;
}
