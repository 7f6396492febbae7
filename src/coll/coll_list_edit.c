/*
 * coll_list_edit: a list changed by index (LSET, LINSERT), trimmed at either end (LTRIM, pops
 * of many) or filtered (LREM). A change inside the tree rewrites the one chunk it touches,
 * cut in two when it grows past two chunks.
 */
#include "coll/coll_list_internal.h"

#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* The chunk holding tree rank i: its first element's rank *r0, the element's index inside it,
 * and its verified form. */
static int locate(struct coll_env *env, struct coll *c, uint64_t i, uint64_t *r0, uint64_t *within,
                  const uint8_t **form, size_t *flen, uint64_t *n)
{
    struct coll_it it;

    if (!coll_tree_seek_rank(&c->tree, i, &it, within)) {
        return TERSE_EINVAL;
    }
    *r0 = i - *within;
    return coll_list_chunk_form(env, coll_tree_desc(&it), form, flen, n);
}

/* Replaces (del 1) or inserts before (del 0) element within of the chunk at tree rank r0. */
static int tree_edit(struct coll_env *env, struct coll *c, uint64_t r0, uint64_t within,
                     const uint8_t *form, size_t flen, uint64_t n, uint64_t del,
                     const uint8_t *el, size_t len)
{
    struct store_list_el ins = {el, len};
    struct coll_list_piece f[2];
    size_t cap = flen + store_list_el_size(len) + STORE_LIST_COUNT_MAX, out_len = 0;
    uint8_t *buf = coll_list_rewrite_buf(env, flen, store_list_el_size(len));
    int st, nf;

    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    st = store_list_splice(form, flen, within, del, &ins, 1, buf, cap, &out_len);
    if (st != TERSE_OK) {
        return st == TERSE_ECORRUPT ? coll_list_corrupt(env) : st;
    }
    st = coll_list_cut_pieces(env, c, buf, out_len, n - del + 1, f, &nf);
    return st == TERSE_OK ? coll_list_tree_rewrite(env, c, r0, f, nf) : st;
}

int coll_list_set(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t *el,
                  size_t len)
{
    uint64_t nt = coll_tree_total(&c->tree), r0, within, n;
    const uint8_t *form;
    size_t s, e, flen;
    int st;

    if (i >= c->count) {
        return TERSE_EINVAL;
    }
    if (i < c->head.n) {
        st = coll_rec_from_end(env, &c->head, i, &s, &e);
        return st == TERSE_OK ? coll_open_splice(c, &c->head, s, e, el, len, true) : st;
    }
    i -= c->head.n;
    if (i >= nt) {
        st = coll_rec_from_start(env, &c->tail, i - nt, &s, &e);
        return st == TERSE_OK ? coll_open_splice(c, &c->tail, s, e, el, len, true) : st;
    }
    st = locate(env, c, i, &r0, &within, &form, &flen, &n);
    return st == TERSE_OK ? tree_edit(env, c, r0, within, form, flen, n, 1, el, len) : st;
}

int coll_list_insert(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t *el,
                     size_t len)
{
    uint64_t nt = coll_tree_total(&c->tree), r0, within, n;
    const uint8_t *form;
    size_t s, e, flen;
    int st;

    if (i > c->count) {
        return TERSE_EINVAL;
    }
    if (i == 0 || i == c->count) {
        return coll_list_push(env, c, i == 0, el, len);
    }
    if (i <= c->head.n) {
        /* Before logical i in the reversed head: right after the record of element i. */
        if (i == c->head.n) {
            s = 0;
        } else {
            st = coll_rec_from_end(env, &c->head, i, &s, &e);
            if (st != TERSE_OK) {
                return st;
            }
            s = e;
        }
        st = coll_open_splice(c, &c->head, s, s, el, len, true);
        if (st == TERSE_OK) {
            c->head.n++;
            c->count++;
            if (coll_list_end_long(c, &c->head)) {
                (void)coll_list_seal(env, c, true);
            }
        }
        return st;
    }
    i -= c->head.n;
    if (i >= nt) {
        st = coll_rec_from_start(env, &c->tail, i - nt, &s, &e);
        if (st == TERSE_OK) {
            st = coll_open_splice(c, &c->tail, s, s, el, len, true);
        }
        if (st == TERSE_OK) {
            c->tail.n++;
            c->count++;
            if (coll_list_end_long(c, &c->tail)) {
                (void)coll_list_seal(env, c, false);
            }
        }
        return st;
    }
    st = locate(env, c, i, &r0, &within, &form, &flen, &n);
    if (st == TERSE_OK) {
        st = tree_edit(env, c, r0, within, form, flen, n, 0, el, len);
    }
    if (st == TERSE_OK) {
        c->count++;
    }
    return st;
}

/* ---- trimming ---------------------------------------------------------------------------- */

/* Drops k records of o from its physical end (from_end) or start. */
static int open_drop(struct coll_env *env, struct coll_open *o, uint64_t k, bool from_end)
{
    size_t s, e;
    int st;

    if (k == 0) {
        return TERSE_OK;
    }
    if (from_end) {
        st = coll_rec_from_end(env, o, k - 1, &s, &e);
        if (st == TERSE_OK) {
            o->len = (uint32_t)s;
        }
    } else {
        st = coll_rec_from_start(env, o, k - 1, &s, &e);
        if (st == TERSE_OK) {
            memmove(o->p, o->p + e, o->len - e);
            o->len -= (uint32_t)e;
        }
    }
    if (st == TERSE_OK) {
        o->n -= (uint32_t)k;
    }
    return st;
}

int coll_list_trim(struct coll_env *env, struct coll *c, bool front, uint64_t n)
{
    struct coll_open *near = front ? &c->head : &c->tail;
    struct coll_open *far = front ? &c->tail : &c->head;
    uint64_t k;
    int st;

    if (n > c->count) {
        return TERSE_EINVAL;
    }
    /* The near end: the head's front is its physical end, the tail's back too. */
    k = n < near->n ? n : near->n;
    st = open_drop(env, near, k, true);
    if (st != TERSE_OK) {
        return st;
    }
    c->count -= k;
    n -= k;
    while (n > 0 && c->tree.n_chunks > 0) {
        struct coll_it it = front ? coll_tree_begin(&c->tree) : coll_tree_end(&c->tree);
        struct coll_desc *d = coll_tree_desc(&it);

        if (d->count <= n) {
            struct coll_chunk *ch = d->chunk;
            n -= d->count;
            c->count -= d->count;
            coll_tree_remove(&c->tree, &it);
            coll_chunk_drop(env, c, ch);
        } else {
            const uint8_t *form;
            size_t flen, out_len = 0;
            uint64_t cnt, r0 = front ? 0 : coll_tree_total(&c->tree) - d->count;
            uint8_t *buf;
            struct coll_list_piece f;

            st = coll_list_chunk_form(env, d, &form, &flen, &cnt);
            if (st != TERSE_OK) {
                return st;
            }
            buf = coll_env_build_buf(env, flen + STORE_LIST_COUNT_MAX);
            if (buf == NULL) {
                return TERSE_ENOMEM;
            }
            st = store_list_range(form, flen, front ? n : 0, cnt - n, buf,
                                  flen + STORE_LIST_COUNT_MAX, &out_len);
            if (st != TERSE_OK) {
                return coll_list_corrupt(env);
            }
            f = (struct coll_list_piece){buf, out_len, cnt - n};
            st = coll_list_tree_rewrite(env, c, r0, &f, 1);
            if (st != TERSE_OK) {
                return st;
            }
            c->count -= n;
            n = 0;
        }
    }
    /* What is left comes off the far end: its front, physically its start. */
    st = open_drop(env, far, n, false);
    if (st == TERSE_OK) {
        c->count -= n;
    }
    return st;
}

/* ---- LREM ---------------------------------------------------------------------------------- */

/* Removes from o (its elements in logical order: backwards for the head) the matches past
 * *skip, up to *max; compacts in place. */
static int open_remove(struct coll_env *env, struct coll *c, struct coll_open *o, bool reversed,
                       const uint8_t *match, size_t mlen, uint64_t *skip, uint64_t *max,
                       uint64_t *removed)
{
    uint8_t *buf;
    size_t kept = 0;
    int st;

    if (o->n == 0 || *max == 0) {
        return TERSE_OK;
    }
    buf = coll_env_build_buf(env, o->len);
    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    /* Kept records are copied into buf in physical order: walking the head logically means
     * backwards, so they are written from buf's end. */
    {
        size_t at = reversed ? o->len : 0, pos = reversed ? o->len : 0;
        uint64_t nk = 0;
        for (uint32_t i = 0; i < o->n; i++) {
            const uint8_t *el;
            size_t len, s, e;
            if (reversed) {
                st = coll_rec_before(env, o, pos, &s, &el, &len);
                e = pos;
                pos = s;
            } else {
                st = coll_rec_at(env, o, pos, &e, &el, &len);
                s = pos;
                pos = e;
            }
            if (st != TERSE_OK) {
                return st;
            }
            if (len == mlen && (len == 0 || memcmp(el, match, len) == 0)) {
                if (*skip > 0) {
                    (*skip)--;
                } else if (*max > 0) {
                    (*max)--;
                    (*removed)++;
                    continue;
                }
            }
            nk++;
            if (reversed) {
                at -= e - s;
                memcpy(buf + at, o->p + s, e - s);
            } else {
                memcpy(buf + at, o->p + s, e - s);
                at += e - s;
            }
            kept += e - s;
        }
        memcpy(o->p, reversed ? buf + at : buf, kept);
        c->count -= o->n - nk;
        o->n = (uint32_t)nk;
        o->len = (uint32_t)kept;
    }
    return TERSE_OK;
}

int coll_list_remove(struct coll_env *env, struct coll *c, const uint8_t *el, size_t el_len,
                     uint64_t skip, uint64_t max, uint64_t *removed)
{
    uint64_t rank = 0;
    int st;

    *removed = 0;
    st = open_remove(env, c, &c->head, true, el, el_len, &skip, &max, removed);
    while (st == TERSE_OK && max > 0 && rank < coll_tree_total(&c->tree)) {
        struct coll_it it;
        uint64_t within, n, matches = 0, got = 0;
        const uint8_t *form;
        size_t flen, out_len = 0;

        (void)coll_list_tree_at_rank(c, rank, &it, &within);
        st = coll_list_chunk_form(env, coll_tree_desc(&it), &form, &flen, &n);
        if (st == TERSE_OK && store_list_count(form, flen, el, el_len, &matches) != TERSE_OK) {
            st = coll_list_corrupt(env);
        }
        if (st != TERSE_OK) {
            break;
        }
        if (matches <= skip) {
            skip -= matches;
            rank += n;
            continue;
        }
        {
            uint8_t *buf = coll_env_build_buf(env, flen + STORE_LIST_COUNT_MAX);
            struct coll_list_piece f;
            if (buf == NULL) {
                st = TERSE_ENOMEM;
                break;
            }
            st = store_list_remove(form, flen, el, el_len, skip, max, buf,
                                   flen + STORE_LIST_COUNT_MAX, &out_len, &got);
            if (st != TERSE_OK) {
                st = coll_list_corrupt(env);
                break;
            }
            f = (struct coll_list_piece){buf, out_len, n - got};
            st = coll_list_tree_rewrite(env, c, rank, &f, n - got > 0 ? 1 : 0);
            if (st != TERSE_OK) {
                break;
            }
            skip = 0;
            max -= got;
            *removed += got;
            c->count -= got;
            rank += n - got;
        }
    }
    if (st == TERSE_OK) {
        st = open_remove(env, c, &c->tail, false, el, el_len, &skip, &max, removed);
    }
    return st;
}
