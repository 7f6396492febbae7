/*
 * coll_zset_read: walks by rank both ways, the whole form, and the full verification
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
};

/* The chunk of d, its form copied into buf after the previous member (the map's lookups read
 * chunks into the env's decode buffer, where d's form may be). */
static int verify_chunk(struct coll_env *env, const struct coll *c, const struct coll_desc *d,
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
        const uint8_t *v = NULL;
        size_t vlen = 0;

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
        rc = coll_hash_get(env, c->aux, e.m, e.mlen, &v, &vlen);
        if (rc != 1 || vlen != STORE_ZSET_SCORE_LEN ||
            memcmp(v, kv.v, STORE_ZSET_SCORE_LEN) != 0) {
            return rc == TERSE_ENOMEM ? rc : TERSE_ECORRUPT;
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
    struct prev_el pv = {0, 0, false};
    struct coll_it it;
    uint64_t total = 0, raw = 0;

    if (c->type != COLL_ZSET || c->aux == NULL || c->aux->type != COLL_HASH ||
        coll_hash_verify(env, c->aux) != TERSE_OK ||
        coll_tree_verify(&c->tree, key_order) != TERSE_OK ||
        coll_tree_total(&c->tree) != c->count || coll_count(c->aux) != c->count) {
        return TERSE_ECORRUPT;
    }
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        int st = verify_chunk(env, c, d, &pv);

        if (st != TERSE_OK) {
            return st;
        }
        total += d->count;
        raw += d->raw_len;
    }
    return total == c->count && raw == c->raw ? TERSE_OK : TERSE_ECORRUPT;
}
