/*
 * coll_zset_read: walks by rank both ways, the element at a rank, and the whole form
 * (coll_zset.h). Every chunk is read through coll_zset_chunk_open (checksum, then bytes and
 * count against the descriptor) before any of its elements is given.
 *
 * A reverse walk cannot parse a chunk backwards (records start with varints), so it decodes a
 * window of up to 64 elements ending at the next one into the iterator (buf), by one forward
 * pass over the chunk's verified form (decoded once, when the walk enters the chunk), and
 * gives them from the back; the next window is another pass. No allocation.
 */
#include "coll/coll_zset_internal.h"

#include "coll/coll_form.h"

#include "codec/codec_value.h"
#include "terse/status.h"

/* ---- walks ------------------------------------------------------------------------------- */

int coll_zset_it_init(struct coll_env *env, struct coll *c, uint64_t from, bool reverse,
                      struct coll_zset_it *it)
{
    uint64_t within = 0;

    (void)env;
    memset(it, 0, sizeof(*it));
    it->c = c;
    it->reverse = reverse;
    if (from >= c->count || !coll_tree_seek_rank(&c->tree, from, &it->tit, &within)) {
        it->left = 0;
        return TERSE_OK;
    }
    it->idx = within;
    it->left = reverse ? from + 1 : c->count - from;
    return TERSE_OK;
}

/* Loads the chunk at it->tit. */
static int it_load(struct coll_env *env, struct coll_zset_it *it)
{
    const struct coll_desc *d = coll_tree_desc(&it->tit);
    int st = coll_zset_chunk_open(env, d, false, &it->form, &it->form_len, &it->fit);

    if (st != TERSE_OK) {
        return st;
    }
    if (it->idx >= d->count) {
        return coll_zset_corrupt(env);
    }
    if (!it->reverse) {
        for (uint64_t i = 0; i < it->idx; i++) {
            struct store_zset_el e;
            int rc = coll_zset_next(env, &it->fit, &e);

            if (rc != 1) {
                return rc < 0 ? rc : coll_zset_corrupt(env);
            }
        }
    }
    it->buf_n = it->buf_at = 0;
    it->loaded = true;
    return TERSE_OK;
}

/* Decodes the window of elements ending at it->idx into it->buf. */
static int it_window(struct coll_env *env, struct coll_zset_it *it)
{
    uint64_t n = it->idx + 1 < 64 ? it->idx + 1 : 64, lo = it->idx + 1 - n, cnt;
    struct store_hash_it fit;
    struct store_zset_el e;

    (void)store_hash_open(it->form, it->form_len, &fit, &cnt);
    for (uint64_t i = 0; i <= it->idx; i++) {
        int rc = coll_zset_next(env, &fit, &e);

        if (rc != 1) {
            return rc < 0 ? rc : coll_zset_corrupt(env);
        }
        if (i >= lo) {
            it->buf[i - lo] = e;
        }
    }
    it->buf_n = it->buf_at = (size_t)n;
    return TERSE_OK;
}

int coll_zset_it_next(struct coll_env *env, struct coll_zset_it *it, struct store_zset_el *el)
{
    int st;

    if (it->left == 0 || !coll_it_valid(&it->tit)) {
        return 0;
    }
    if (!it->loaded && (st = it_load(env, it)) != TERSE_OK) {
        return st;
    }
    if (!it->reverse) {
        int rc = coll_zset_next(env, &it->fit, el);

        if (rc != 1) {
            return rc < 0 ? rc : coll_zset_corrupt(env);
        }
        it->left--;
        if (++it->idx == coll_tree_desc(&it->tit)->count) {
            coll_tree_next(&it->tit);
            it->idx = 0;
            it->loaded = false;
        }
        return 1;
    }
    if (it->buf_at == 0 && (st = it_window(env, it)) != TERSE_OK) {
        return st;
    }
    *el = it->buf[--it->buf_at];
    it->left--;
    if (it->idx == 0) {
        coll_tree_prev(&it->tit);
        it->loaded = false;
        if (coll_it_valid(&it->tit)) {
            it->idx = coll_tree_desc(&it->tit)->count - 1;
        }
    } else {
        it->idx--;
    }
    return 1;
}

/* ---- the whole form ---------------------------------------------------------------------- */

size_t coll_zset_form_size(const struct coll *c)
{
    /* Each chunk's form holds its count (a byte at least) and its records; the whole form one
     * count of at most 10 bytes. */
    return (size_t)c->raw + 10;
}

/* coll_zset_chunk_open for a read (hot mark set), as coll_join_forms calls it. */
static int chunk_open(struct coll_env *env, const struct coll_desc *d, const uint8_t **form,
                      size_t *len, struct store_hash_it *fit)
{
    return coll_zset_chunk_open(env, d, false, form, len, fit);
}

int coll_zset_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    return coll_join_forms(env, c, chunk_open, out, cap, out_len);
}

int coll_zset_at(struct coll_env *env, struct coll *c, uint64_t rank, struct store_zset_el *el)
{
    struct coll_zset_it it;
    int rc;

    if (rank >= c->count) {
        return TERSE_EINVAL;
    }
    rc = coll_zset_it_init(env, c, rank, false, &it);
    if (rc == TERSE_OK) {
        rc = coll_zset_it_next(env, &it, el);
    }
    return rc == 1 ? TERSE_OK : rc < 0 ? rc : coll_zset_corrupt(env);
}
