/*
 * coll_list_read: walks over a list either way (LRANGE, LPOS, the RDB writer), the list back
 * in one store_list form, and the full verification.
 */
#include "coll/coll_list_internal.h"

#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

enum { R_HEAD = 0, R_TREE = 1, R_TAIL = 2, R_DONE = 3 };

/* ---- conversion back ------------------------------------------------------------------------- */

size_t coll_list_form_size(const struct coll *c)
{
    size_t sz = codec_varint_len(c->count) + (size_t)c->raw;

    /* Open records: REC_OVER bytes of framing each, a varint instead in the form. */
    for (int e = 0; e < 2; e++) {
        const struct coll_open *o = e == 0 ? &c->head : &c->tail;
        sz += o->len - (size_t)o->n * REC_OVER + (size_t)o->n * 5;
    }
    return sz;
}

int coll_list_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    struct coll_list_it it;
    struct store_list_w w;
    const uint8_t *el;
    size_t len;
    int st = coll_list_it_init(env, c, 0, false, &it);

    store_list_w_init(&w, out, cap, c->count);
    while (st == TERSE_OK && (st = coll_list_it_next(env, &it, &el, &len)) == 1) {
        store_list_w_push(&w, el, len);
        st = TERSE_OK;
    }
    if (st < 0) {
        return st;
    }
    return store_list_w_finish(&w, out_len);
}

int coll_list_end_form(struct coll_env *env, struct coll *c, bool left, const uint8_t **form,
                       size_t *len, uint64_t *n)
{
    const struct coll_open *o = left ? &c->head : &c->tail;
    size_t cap = o->len - (size_t)o->n * REC_OVER + (size_t)o->n * 5 + STORE_LIST_COUNT_MAX;
    struct store_list_w w;
    uint8_t *out;

    *form = NULL;
    *len = 0;
    *n = o->n;
    if (o->n == 0) {
        return TERSE_OK;
    }
    out = coll_env_build_buf(env, cap);
    if (out == NULL) {
        return TERSE_ENOMEM;
    }
    store_list_w_init(&w, out, cap, o->n);
    /* The head is stored reversed: its last record is the list's first element. */
    for (size_t at = left ? o->len : 0, k = 0; k < o->n; k++) {
        const uint8_t *el;
        size_t el_len, next;
        int st = left ? coll_rec_before(env, o, at, &next, &el, &el_len)
                      : coll_rec_at(env, o, at, &next, &el, &el_len);
        if (st != TERSE_OK) {
            return st;
        }
        store_list_w_push(&w, el, el_len);
        at = next;
    }
    *form = out;
    return store_list_w_finish(&w, len);
}

/* ---- iteration ------------------------------------------------------------------------------- */

/* Loads the chunk at it->tit, positioned at element in_chunk. */
static int it_load(struct coll_env *env, struct coll_list_it *it)
{
    struct store_list_it li;
    uint64_t n;
    int st = coll_list_chunk_form(env, coll_tree_desc(&it->tit), &it->form, &it->form_len, &n);

    if (st != TERSE_OK) {
        return st;
    }
    it->chunk_n = n;
    (void)store_list_open(it->form, it->form_len, &li, &n);
    if (!it->reverse) {
        if (store_list_skip(&li, it->in_chunk) != TERSE_OK) {
            return coll_list_corrupt(env);
        }
        it->pos = li.p;
    }
    return TERSE_OK;
}

int coll_list_it_init(struct coll_env *env, struct coll *c, uint64_t start, bool reverse,
                      struct coll_list_it *it)
{
    uint64_t nt = coll_tree_total(&c->tree), i = start, within;
    size_t s, e;
    int st;

    memset(it, 0, sizeof(*it));
    it->c = c;
    it->reverse = reverse;
    it->region = R_DONE;
    if (start >= c->count) {
        return TERSE_OK;
    }
    it->left = reverse ? start + 1 : c->count - start;
    if (i < c->head.n) {
        /* Forward walks the head backwards from the end of its record i. */
        st = coll_rec_from_end(env, &c->head, i, &s, &e);
        if (st != TERSE_OK) {
            return st;
        }
        it->region = R_HEAD;
        it->off = reverse ? s : e;
        return TERSE_OK;
    }
    i -= c->head.n;
    if (i < nt) {
        it->region = R_TREE;
        (void)coll_list_tree_at_rank(c, i, &it->tit, &within);
        it->in_chunk = within;
        return it_load(env, it);
    }
    i -= nt;
    st = coll_rec_from_start(env, &c->tail, i, &s, &e);
    if (st != TERSE_OK) {
        return st;
    }
    it->region = R_TAIL;
    it->off = reverse ? e : s;
    return TERSE_OK;
}

/* The element at index k of a chunk form (reverse walks). */
static int form_at(struct coll_env *env, const uint8_t *form, size_t flen, uint64_t k,
                   const uint8_t **el, size_t *len)
{
    struct store_list_it li;
    uint64_t n;

    (void)store_list_open(form, flen, &li, &n);
    if (store_list_skip(&li, k) != TERSE_OK || store_list_next(&li, el, len) != 1) {
        return coll_list_corrupt(env);
    }
    return TERSE_OK;
}

int coll_list_it_next(struct coll_env *env, struct coll_list_it *it, const uint8_t **el,
                      size_t *len)
{
    struct coll *c = it->c;
    size_t s, e;
    int st;

    for (;;) {
        if (it->left == 0 || it->region == R_DONE) {
            it->region = R_DONE;
            return 0;
        }
        if (it->region == R_HEAD) {
            bool in = it->reverse ? it->off < c->head.len : it->off > 0;
            if (in) {
                if (it->reverse) {
                    st = coll_rec_at(env, &c->head, it->off, &e, el, len);
                    it->off = e;
                } else {
                    st = coll_rec_before(env, &c->head, it->off, &s, el, len);
                    it->off = s;
                }
                if (st != TERSE_OK) {
                    return st;
                }
                it->left--;
                return 1;
            }
            if (it->reverse) {
                it->region = R_DONE;
                continue;
            }
            it->region = R_TREE;
            it->tit = coll_tree_begin(&c->tree);
            it->in_chunk = 0;
            if (coll_it_valid(&it->tit) && (st = it_load(env, it)) != TERSE_OK) {
                return st;
            }
            continue;
        }
        if (it->region == R_TREE) {
            if (!coll_it_valid(&it->tit)) {
                it->region = it->reverse ? R_HEAD : R_TAIL;
                it->off = it->reverse ? 0 : 0;
                continue;
            }
            if (!it->reverse && it->in_chunk < it->chunk_n) {
                const uint8_t *p = it->pos, *end = it->form + it->form_len;
                uint64_t v = 0;
                if (store_varint_read(&p, end, &v) != 0 || v > (uint64_t)(end - p)) {
                    return coll_list_corrupt(env);
                }
                *el = p;
                *len = (size_t)v;
                it->pos = p + (size_t)v;
                it->in_chunk++;
                it->left--;
                return 1;
            }
            if (it->reverse && it->in_chunk < it->chunk_n) {
                st = form_at(env, it->form, it->form_len, it->in_chunk, el, len);
                if (st != TERSE_OK) {
                    return st;
                }
                if (it->in_chunk == 0) {
                    it->in_chunk = it->chunk_n; /* this chunk is done */
                } else {
                    it->in_chunk--;
                }
                it->left--;
                return 1;
            }
            if (it->reverse) {
                coll_tree_prev(&it->tit);
                if (coll_it_valid(&it->tit)) {
                    it->in_chunk = coll_tree_desc(&it->tit)->count - 1u;
                    if ((st = it_load(env, it)) != TERSE_OK) {
                        return st;
                    }
                }
            } else {
                coll_tree_next(&it->tit);
                it->in_chunk = 0;
                if (coll_it_valid(&it->tit) && (st = it_load(env, it)) != TERSE_OK) {
                    return st;
                }
            }
            continue;
        }
        /* R_TAIL */
        {
            bool in = it->reverse ? it->off > 0 : it->off < c->tail.len;
            if (!in) {
                if (!it->reverse) {
                    it->region = R_DONE;
                    continue;
                }
                it->region = R_TREE;
                it->tit = coll_tree_end(&c->tree);
                if (coll_it_valid(&it->tit)) {
                    it->in_chunk = coll_tree_desc(&it->tit)->count - 1u;
                    if ((st = it_load(env, it)) != TERSE_OK) {
                        return st;
                    }
                }
                continue;
            }
            if (it->reverse) {
                st = coll_rec_before(env, &c->tail, it->off, &s, el, len);
                it->off = s;
            } else {
                st = coll_rec_at(env, &c->tail, it->off, &e, el, len);
                it->off = e;
            }
            if (st != TERSE_OK) {
                return st;
            }
            it->left--;
            return 1;
        }
    }
}

/* ---- verification --------------------------------------------------------------------------- */

int coll_list_verify(struct coll_env *env, struct coll *c)
{
    struct coll_it it;
    uint64_t total = 0;

    if (coll_tree_verify(&c->tree, NULL) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    for (int e = 0; e < 2; e++) {
        const struct coll_open *o = e == 0 ? &c->head : &c->tail;
        size_t off = 0, next, len;
        uint32_t n = 0;
        const uint8_t *el;
        while (off < o->len) {
            if (coll_rec_at(env, o, off, &next, &el, &len) != TERSE_OK) {
                return TERSE_ECORRUPT;
            }
            off = next;
            n++;
        }
        if (n != o->n || o->len > o->cap) {
            return TERSE_ECORRUPT;
        }
        total += n;
    }
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        struct coll_desc *d = coll_tree_desc(&it);
        const uint8_t *form;
        size_t flen;
        uint64_t n;
        if (coll_list_chunk_form(env, d, &form, &flen, &n) != TERSE_OK || flen != d->raw_len ||
            store_list_check(form, flen) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        total += n;
    }
    return total == c->count ? TERSE_OK : TERSE_ECORRUPT;
}
