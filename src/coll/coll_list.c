/*
 * coll_list: lists as chunked containers (coll_list.h): the ends, pushes, pops, LINDEX.
 *
 * Logical order and where elements live (n_h = head.n, n_t = tree total):
 *
 *   index:    0 .. n_h-1           n_h .. n_h+n_t-1          n_h+n_t .. count-1
 *   region:   head open buffer     tree chunks, in order      tail open buffer
 *   physical: reversed             store_list forms           in order
 *
 * Open records: [len u32][bytes][h32 u32][len u32] (REC_OVER = 12 bytes around the element),
 * host byte order (the buffers never leave the process: snapshots write elements).
 *
 * Cost: a push or pop at an end is O(element); sealing and refilling move a chunk's worth of
 * bytes once per chunk's worth of pushes or pops; an index or a range seeks by counts
 * (O(log n)) and reads one chunk; LSET, LINSERT and a partial trim rewrite one chunk; LREM
 * and LPOS read everything, as in Redis.
 */
#include "coll/coll_list_internal.h"

#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#include <assert.h>

enum { R_HEAD = 0, R_TREE = 1, R_TAIL = 2, R_DONE = 3 };

/* ---- sealing and refilling the ends ---------------------------------------------------------- */

/*
 * Seals the inner chunk's worth of the end's records (the physically first ones: the head's
 * last elements, the tail's first) into a chunk at that end of the tree.
 */
int coll_list_seal(struct coll_env *env, struct coll *c, bool left)
{
    struct coll_open *o = left ? &c->head : &c->tail;
    size_t off = 0, next, len, flen = 0, at, hdr;
    uint64_t k = 0;
    const uint8_t *el;
    uint8_t *form;
    struct coll_it it;
    int st;

    while (off < o->len && (k == 0 || !coll_list_chunk_full(c, flen, k))) {
        st = coll_rec_at(env, o, off, &next, &el, &len);
        if (st != TERSE_OK) {
            return st;
        }
        flen += el_form_size(len);
        k++;
        off = next;
    }
    if (k == o->n) {
        return TERSE_OK; /* keep at least one record open: never seal the whole end */
    }
    hdr = codec_varint_len(k);
    form = coll_env_build_buf(env, hdr + flen);
    if (form == NULL) {
        return TERSE_ENOMEM;
    }
    codec_varint_put(form, k);
    /* The tail's records are in order; the head's are reversed: fill from the back. */
    at = left ? hdr + flen : hdr;
    for (size_t p = 0; p < off;) {
        (void)coll_rec_at(env, o, p, &next, &el, &len);
        size_t es = el_form_size(len);
        uint8_t *w;
        if (left) {
            at -= es;
            w = form + at;
        } else {
            w = form + at;
            at += es;
        }
        w += codec_varint_put(w, len);
        if (len > 0) {
            memcpy(w, el, len);
        }
        p = next;
    }
    it = left ? coll_tree_begin(&c->tree) : (struct coll_it){NULL, 0};
    st = coll_list_tree_put(env, c, &it, form, hdr + flen, k);
    if (st != TERSE_OK) {
        return st;
    }
    memmove(o->p, o->p + off, o->len - off);
    o->len -= (uint32_t)off;
    o->n -= (uint32_t)k;
    return TERSE_OK;
}

/* An empty end refilled: from the tree's chunk at that end, or from the other end. */
static int refill(struct coll_env *env, struct coll *c, bool left)
{
    struct coll_open *o = left ? &c->head : &c->tail;
    struct coll_open *other = left ? &c->tail : &c->head;
    size_t need = 0, at;
    int st;

    o->len = 0;
    o->n = 0;
    if (c->tree.n_chunks > 0) {
        struct coll_it it = left ? coll_tree_begin(&c->tree) : coll_tree_end(&c->tree);
        struct coll_desc *d = coll_tree_desc(&it);
        struct store_list_it li;
        const uint8_t *form, *el;
        size_t flen, len;
        uint64_t n;
        struct coll_chunk *ch = d->chunk;

        st = coll_list_chunk_form(env, d, &form, &flen, &n);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        while ((st = store_list_next(&li, &el, &len)) == 1) {
            need += len + REC_OVER;
        }
        if (st < 0) {
            return coll_list_corrupt(env);
        }
        st = coll_open_room(c, o, need);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        at = left ? need : 0;
        while (store_list_next(&li, &el, &len) == 1) {
            if (left) {
                at -= len + REC_OVER;
                coll_rec_write(o->p + at, el, len);
            } else {
                coll_rec_write(o->p + at, el, len);
                at += len + REC_OVER;
            }
        }
        o->len = (uint32_t)need;
        o->n = (uint32_t)n;
        coll_tree_remove(&c->tree, &it);
        coll_chunk_drop(env, c, ch);
        return TERSE_OK;
    }
    if (other->n == 0) {
        return TERSE_OK;
    }
    /* Every element is at the other end: turn its records around into this one. */
    st = coll_open_room(c, o, other->len);
    if (st != TERSE_OK) {
        return st;
    }
    at = other->len;
    for (size_t p = 0; p < other->len;) {
        const uint8_t *el;
        size_t len, next;
        st = coll_rec_at(env, other, p, &next, &el, &len);
        if (st != TERSE_OK) {
            return st;
        }
        at -= len + REC_OVER;
        coll_rec_write(o->p + at, el, len);
        p = next;
    }
    o->len = other->len;
    o->n = other->n;
    other->len = 0;
    other->n = 0;
    return TERSE_OK;
}

/* A chunk of k elements whose bytes (lengths and bytes, as a form holds them) are run[0..n),
 * appended at the tree's end. */
static int append_chunk(struct coll_env *env, struct coll *c, const uint8_t *run, size_t n,
                        uint64_t k)
{
    size_t hdr = codec_varint_len(k);
    uint8_t *form = coll_env_build_buf(env, hdr + n);
    struct coll_it it = {NULL, 0};

    if (form == NULL) {
        return TERSE_ENOMEM;
    }
    codec_varint_put(form, k);
    memcpy(form + hdr, run, n);
    return coll_list_tree_put(env, c, &it, form, hdr + n, k);
}

/* ---- life ------------------------------------------------------------------------------------ */

int coll_list_create(struct coll_env *env, const struct coll_list_shape *shape,
                     struct coll **out)
{
    int st = coll_create(env, COLL_LIST, shape->chunk_bytes, out);

    if (st == TERSE_OK) {
        (*out)->keep_raw = shape->keep_raw > 0 ? shape->keep_raw : 0;
        (*out)->chunk_n = shape->chunk_n;
    }
    return st;
}

int coll_list_push(struct coll_env *env, struct coll *c, bool left, const uint8_t *el, size_t len)
{
    struct coll_open *o = left ? &c->head : &c->tail;
    int st;

    if (len > UINT32_MAX / 4) {
        return TERSE_ETOOBIG;
    }
    st = coll_open_room(c, o, len + REC_OVER);
    if (st != TERSE_OK) {
        return st;
    }
    coll_rec_write(o->p + o->len, el, len);
    o->len += (uint32_t)(len + REC_OVER);
    o->n++;
    c->count++;
    if (coll_list_end_long(c, o)) {
        /* Sealing can only fail for memory: the element is in, the end just stays long. */
        (void)coll_list_seal(env, c, left);
    }
    return TERSE_OK;
}

/*
 * The form's elements cut straight into chunks of about chunk_max bytes (a run of element
 * bytes is copied as it is, behind its own count): the ends stay empty, so a converted or
 * loaded list is all chunks, compressed in the background.
 */
int coll_list_append_run(struct coll_env *env, struct coll *c, const uint8_t *run, size_t n,
                         bool final, size_t *used)
{
    /* No count bounds the run: the iterator stops where the bytes do. */
    struct store_list_it li = {run, run + n, UINT64_MAX};
    const uint8_t *from = run, *el;
    size_t el_len;
    uint64_t k = 0;
    int st = TERSE_OK;

    assert(c->head.n == 0 && c->tail.n == 0);
    for (;;) {
        const uint8_t *at = li.p;
        int more = at == li.end ? 0 : store_list_next(&li, &el, &el_len);
        if (more < 0) {
            st = more;
            break;
        }
        if (k > 0 && ((more == 0 && final) || coll_list_chunk_full(c, (size_t)(at - from), k))) {
            st = append_chunk(env, c, from, (size_t)(at - from), k);
            if (st != TERSE_OK) {
                break;
            }
            c->count += k;
            from = at;
            k = 0;
        }
        if (more == 0) {
            break;
        }
        k++;
    }
    *used = (size_t)(from - run);
    return st;
}

int coll_list_from_form(struct coll_env *env, const uint8_t *form, size_t len,
                        const struct coll_list_shape *shape, struct coll **out)
{
    struct store_list_it li;
    uint64_t n;
    size_t used = 0;
    int st;

    *out = NULL;
    if (store_list_open(form, len, &li, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    st = coll_list_create(env, shape, out);
    if (st == TERSE_OK) {
        st = coll_list_append_run(env, *out, li.p, (size_t)(li.end - li.p), true, &used);
    }
    if (st == TERSE_OK && (*out)->count != n) {
        st = TERSE_ECORRUPT; /* the count said otherwise */
    }
    if (st != TERSE_OK) {
        coll_destroy(env, *out);
        *out = NULL;
    }
    return st;
}

int coll_list_pop(struct coll_env *env, struct coll *c, bool left, const uint8_t **el,
                  size_t *len)
{
    struct coll_open *o = left ? &c->head : &c->tail;
    size_t start;
    int st;

    if (c->count == 0) {
        return 0;
    }
    if (o->n == 0) {
        st = refill(env, c, left);
        if (st != TERSE_OK) {
            return st;
        }
        if (o->n == 0) {
            return coll_list_corrupt(env); /* count said there was one */
        }
    }
    st = coll_rec_before(env, o, o->len, &start, el, len);
    if (st != TERSE_OK) {
        return st;
    }
    o->len = (uint32_t)start;
    o->n--;
    c->count--;
    return 1;
}

/* ---- by index ------------------------------------------------------------------------------ */

int coll_list_index(struct coll_env *env, struct coll *c, uint64_t i, const uint8_t **el,
                    size_t *len)
{
    uint64_t nt = coll_tree_total(&c->tree), within;
    size_t s, e;
    int st;

    if (i >= c->count) {
        return TERSE_EINVAL;
    }
    if (i < c->head.n) {
        st = coll_rec_from_end(env, &c->head, i, &s, &e);
        if (st == TERSE_OK) {
            *el = c->head.p + s + 4;
            *len = e - s - REC_OVER;
        }
        return st;
    }
    i -= c->head.n;
    if (i < nt) {
        struct coll_it it;
        struct store_list_it li;
        const uint8_t *form;
        size_t flen;
        uint64_t n;

        (void)coll_list_tree_at_rank(c, i, &it, &within);
        st = coll_list_chunk_form(env, coll_tree_desc(&it), &form, &flen, &n);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        if (store_list_skip(&li, within) != TERSE_OK || store_list_next(&li, el, len) != 1) {
            return coll_list_corrupt(env);
        }
        return TERSE_OK;
    }
    i -= nt;
    st = coll_rec_from_start(env, &c->tail, i, &s, &e);
    if (st == TERSE_OK) {
        *el = c->tail.p + s + 4;
        *len = e - s - REC_OVER;
    }
    return st;
}
