/*
 * coll_list: lists as chunked containers (coll_list.h).
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
#include "coll/coll_list.h"

#include <string.h>
#include <xxhash.h>

#include "codec/codec_varint.h"
#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#define REC_OVER 12u

enum { R_HEAD = 0, R_TREE = 1, R_TAIL = 2, R_DONE = 3 };

static uint32_t el_h32(const uint8_t *p, size_t n)
{
    return (uint32_t)XXH3_64bits(n != 0 ? (const void *)p : (const void *)"", n);
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

static int corrupt(struct coll_env *env)
{
    coll_env_count_corrupt(env);
    return TERSE_ECORRUPT;
}

/* ---- open buffers ---------------------------------------------------------------------------- */

/* Room for n more bytes at the end of o. */
static int open_room(struct coll *c, struct coll_open *o, size_t n)
{
    size_t want = (size_t)o->len + n, cap, before;
    uint8_t *p;

    if (want <= o->cap) {
        return TERSE_OK;
    }
    if (want > UINT32_MAX / 2) {
        return TERSE_ETOOBIG;
    }
    cap = o->cap != 0 ? o->cap : 256;
    while (cap < want) {
        cap *= 2;
    }
    before = o->p != NULL ? core_mem_usable(o->p) : 0;
    p = core_realloc(o->p, cap);
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    c->bytes += core_mem_usable(p) - before;
    o->p = p;
    o->cap = (uint32_t)cap;
    return TERSE_OK;
}

static void rec_write(uint8_t *at, const uint8_t *el, size_t len)
{
    wr32(at, (uint32_t)len);
    if (len > 0) {
        memcpy(at + 4, el, len);
    }
    wr32(at + 4 + len, el_h32(el, len));
    wr32(at + 8 + len, (uint32_t)len);
}

/* The record that ends at end, verified: *start, and its element. */
static int rec_before(struct coll_env *env, const struct coll_open *o, size_t end, size_t *start,
                      const uint8_t **el, size_t *len)
{
    uint32_t n;
    size_t s;

    if (end < REC_OVER || end > o->len) {
        return corrupt(env);
    }
    n = rd32(o->p + end - 4);
    if (n > end - REC_OVER) {
        return corrupt(env);
    }
    s = end - REC_OVER - n;
    if (rd32(o->p + s) != n || rd32(o->p + s + 4 + n) != el_h32(o->p + s + 4, n)) {
        return corrupt(env);
    }
    *start = s;
    *el = o->p + s + 4;
    *len = n;
    return TERSE_OK;
}

/* The record that starts at off, verified: *next, and its element. */
static int rec_at(struct coll_env *env, const struct coll_open *o, size_t off, size_t *next,
                  const uint8_t **el, size_t *len)
{
    uint32_t n;

    if (off > o->len || o->len - off < REC_OVER) {
        return corrupt(env);
    }
    n = rd32(o->p + off);
    if (n > o->len - off - REC_OVER) {
        return corrupt(env);
    }
    if (rd32(o->p + off + 8 + n) != n || rd32(o->p + off + 4 + n) != el_h32(o->p + off + 4, n)) {
        return corrupt(env);
    }
    *next = off + REC_OVER + n;
    *el = o->p + off + 4;
    *len = n;
    return TERSE_OK;
}

/* Offsets of the record holding the k-th element counted from the physical end (k = 0: the
 * last record): [*s, *e). */
static int rec_from_end(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                        size_t *e)
{
    size_t end = o->len, start = 0, len;
    const uint8_t *el;

    for (uint64_t i = 0; i <= k; i++) {
        int st = rec_before(env, o, end, &start, &el, &len);
        if (st != TERSE_OK) {
            return st;
        }
        if (i < k) {
            end = start;
        }
    }
    *s = start;
    *e = end;
    return TERSE_OK;
}

/* The same from the physical start (k = 0: the first record). */
static int rec_from_start(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                          size_t *e)
{
    size_t off = 0, next = 0, len;
    const uint8_t *el;

    for (uint64_t i = 0; i <= k; i++) {
        int st = rec_at(env, o, off, &next, &el, &len);
        if (st != TERSE_OK) {
            return st;
        }
        if (i < k) {
            off = next;
        }
    }
    *s = off;
    *e = next;
    return TERSE_OK;
}

/* Replaces o's bytes [s, e) by a record of el (or by nothing when el is NULL and ins 0). */
static int open_splice(struct coll *c, struct coll_open *o, size_t s, size_t e, const uint8_t *el,
                       size_t len, bool ins)
{
    size_t add = ins ? len + REC_OVER : 0, old = e - s;
    int st;

    if (add > old) {
        st = open_room(c, o, add - old);
        if (st != TERSE_OK) {
            return st;
        }
    }
    memmove(o->p + s + add, o->p + e, o->len - e);
    if (ins) {
        rec_write(o->p + s, el, len);
    }
    o->len = (uint32_t)(o->len + add - old);
    return TERSE_OK;
}

static size_t el_form_size(size_t len)
{
    return codec_varint_len((uint64_t)len) + len;
}

/* ---- the tree's chunks -------------------------------------------------------------------------- */

static int chunk_form(struct coll_env *env, struct coll_desc *d, const uint8_t **form, size_t *len,
                      uint64_t *n)
{
    struct store_list_it it;
    int st = coll_chunk_read(env, d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    if (store_list_open(*form, *len, &it, n) != TERSE_OK || *n != d->count) {
        return corrupt(env);
    }
    return TERSE_OK;
}

/* A chunk of form (flen bytes, n elements) put into the tree before *at (at invalid: at the
 * end). */
static int tree_put(struct coll_env *env, struct coll *c, struct coll_it *at, const uint8_t *form,
                    size_t flen, uint64_t n)
{
    struct coll_chunk *ch;
    struct coll_desc d;
    int st = coll_chunk_put(env, c, form, flen, &ch);

    if (st != TERSE_OK) {
        return st;
    }
    d.chunk = ch;
    d.count = (uint32_t)n;
    d.raw_len = (uint32_t)flen;
    d.key.k = d.key.aux = 0;
    st = coll_tree_insert(&c->tree, at, &d);
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, ch);
    }
    return st;
}

/* Element count and form size of a chunk's elements [from, from + k), for building. */
static int tree_at_rank(struct coll *c, uint64_t rank, struct coll_it *it, uint64_t *within)
{
    return coll_tree_seek_rank(&c->tree, rank, it, within) ? TERSE_OK : TERSE_EINVAL;
}

/*
 * The chunk whose first element is at tree rank r becomes the chunks of forms f[0..nf) (each
 * with its count), in order; nf 0 removes it. New chunks are made before anything changes,
 * so a failure leaves the list as it was.
 */
struct piece {
    const uint8_t *form;
    size_t len;
    uint64_t n;
};

static int tree_rewrite(struct coll_env *env, struct coll *c, uint64_t r, const struct piece *f,
                        int nf)
{
    struct coll_chunk *made[2] = {NULL, NULL};
    struct coll_it it;
    uint64_t within;
    int st = TERSE_OK;

    for (int i = 0; i < nf; i++) {
        st = coll_chunk_put(env, c, f[i].form, f[i].len, &made[i]);
        if (st != TERSE_OK) {
            for (int j = 0; j < i; j++) {
                coll_chunk_drop(env, c, made[j]);
            }
            return st;
        }
    }
    if (nf == 2) {
        /* The second piece goes after the chunk: rank r + its count is the next chunk. */
        struct coll_desc d = {made[1], (uint32_t)f[1].n, (uint32_t)f[1].len, {0, 0}};
        struct coll_desc *cur;
        uint64_t cur_n;

        (void)tree_at_rank(c, r, &it, &within);
        cur_n = coll_tree_desc(&it)->count;
        if (!coll_tree_seek_rank(&c->tree, r + cur_n, &it, &within)) {
            it.leaf = NULL;
        }
        st = coll_tree_insert(&c->tree, &it, &d);
        if (st != TERSE_OK) {
            coll_chunk_drop(env, c, made[0]);
            coll_chunk_drop(env, c, made[1]);
            return st;
        }
        (void)tree_at_rank(c, r, &it, &within);
        cur = coll_tree_desc(&it);
        coll_chunk_drop(env, c, cur->chunk);
        cur->chunk = made[0];
        cur->raw_len = (uint32_t)f[0].len;
        coll_tree_set_count(&c->tree, &it, (uint32_t)f[0].n);
        return TERSE_OK;
    }
    (void)tree_at_rank(c, r, &it, &within);
    if (nf == 0) {
        struct coll_chunk *old = coll_tree_desc(&it)->chunk;
        coll_tree_remove(&c->tree, &it);
        coll_chunk_drop(env, c, old);
        return TERSE_OK;
    }
    coll_chunk_drop(env, c, coll_tree_desc(&it)->chunk);
    coll_tree_desc(&it)->chunk = made[0];
    coll_tree_desc(&it)->raw_len = (uint32_t)f[0].len;
    coll_tree_set_count(&c->tree, &it, (uint32_t)f[0].n);
    return TERSE_OK;
}

/* out's form, cut in two at about half its bytes when it is over 2 * chunk_max: the pieces
 * for tree_rewrite (in a second build area). */
static int cut_pieces(struct coll_env *env, struct coll *c, uint8_t *out, size_t len, uint64_t n,
                      struct piece *f, int *nf)
{
    struct store_list_it li;
    uint64_t k = 0, cnt;
    size_t l1 = 0, l2 = 0;
    uint8_t *b1, *b2;
    int st;

    f[0] = (struct piece){out, len, n};
    *nf = n == 0 ? 0 : 1;
    if (len <= 2 * (size_t)c->chunk_max || n < 2) {
        return TERSE_OK;
    }
    (void)store_list_open(out, len, &li, &cnt);
    while (k + 1 < n) {
        const uint8_t *el;
        size_t el_len;
        if (store_list_next(&li, &el, &el_len) != 1) {
            return corrupt(env);
        }
        k++;
        if ((size_t)(li.p - out) >= len / 2) {
            break;
        }
    }
    /* The two halves go after out in the same build buffer (its caller sized it 3x). */
    b1 = out + len;
    b2 = b1 + len + STORE_LIST_COUNT_MAX;
    st = store_list_range(out, len, 0, k, b1, len + STORE_LIST_COUNT_MAX, &l1);
    if (st == TERSE_OK) {
        st = store_list_range(out, len, k, n - k, b2, len + STORE_LIST_COUNT_MAX, &l2);
    }
    if (st != TERSE_OK) {
        return st;
    }
    f[0] = (struct piece){b1, l1, k};
    f[1] = (struct piece){b2, l2, n - k};
    *nf = 2;
    return TERSE_OK;
}

/* Build room for a rewrite of a chunk of len bytes growing by extra: the new form and, if it
 * must be cut, its two halves. */
static uint8_t *rewrite_buf(struct coll_env *env, size_t len, size_t extra)
{
    size_t n = len + extra + STORE_LIST_COUNT_MAX;
    return coll_env_build_buf(env, 3 * n + 2 * STORE_LIST_COUNT_MAX);
}

/* ---- sealing and refilling the ends ---------------------------------------------------------- */

/*
 * Seals the inner chunk_max bytes of the end's records (the physically first ones: the head's
 * last elements, the tail's first) into a chunk at that end of the tree.
 */
static int seal(struct coll_env *env, struct coll *c, bool left)
{
    struct coll_open *o = left ? &c->head : &c->tail;
    size_t off = 0, next, len, flen = 0, at, hdr;
    uint64_t k = 0;
    const uint8_t *el;
    uint8_t *form;
    struct coll_it it;
    int st;

    while (off < o->len && (k == 0 || flen < c->chunk_max)) {
        st = rec_at(env, o, off, &next, &el, &len);
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
        (void)rec_at(env, o, p, &next, &el, &len);
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
    st = tree_put(env, c, &it, form, hdr + flen, k);
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

        st = chunk_form(env, d, &form, &flen, &n);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        while ((st = store_list_next(&li, &el, &len)) == 1) {
            need += len + REC_OVER;
        }
        if (st < 0) {
            return corrupt(env);
        }
        st = open_room(c, o, need);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        at = left ? need : 0;
        while (store_list_next(&li, &el, &len) == 1) {
            if (left) {
                at -= len + REC_OVER;
                rec_write(o->p + at, el, len);
            } else {
                rec_write(o->p + at, el, len);
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
    st = open_room(c, o, other->len);
    if (st != TERSE_OK) {
        return st;
    }
    at = other->len;
    for (size_t p = 0; p < other->len;) {
        const uint8_t *el;
        size_t len, next;
        st = rec_at(env, other, p, &next, &el, &len);
        if (st != TERSE_OK) {
            return st;
        }
        at -= len + REC_OVER;
        rec_write(o->p + at, el, len);
        p = next;
    }
    o->len = other->len;
    o->n = other->n;
    other->len = 0;
    other->n = 0;
    return TERSE_OK;
}

/* ---- life ------------------------------------------------------------------------------------ */

int coll_list_create(struct coll_env *env, uint32_t chunk_max, int keep_raw, struct coll **out)
{
    int st = coll_create(env, COLL_LIST, chunk_max, out);

    if (st == TERSE_OK) {
        (*out)->keep_raw = keep_raw > 0 ? keep_raw : 0;
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
    st = open_room(c, o, len + REC_OVER);
    if (st != TERSE_OK) {
        return st;
    }
    rec_write(o->p + o->len, el, len);
    o->len += (uint32_t)(len + REC_OVER);
    o->n++;
    c->count++;
    if (o->len > 2 * c->chunk_max && o->n > 1) {
        /* Sealing can only fail for memory: the element is in, the end just stays long. */
        (void)seal(env, c, left);
    }
    return TERSE_OK;
}

int coll_list_from_form(struct coll_env *env, const uint8_t *form, size_t len,
                        uint32_t chunk_max, int keep_raw, struct coll **out)
{
    struct store_list_it li;
    const uint8_t *el;
    size_t el_len;
    uint64_t n;
    int st;

    *out = NULL;
    if (store_list_open(form, len, &li, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    st = coll_list_create(env, chunk_max, keep_raw, out);
    while (st == TERSE_OK && (st = store_list_next(&li, &el, &el_len)) == 1) {
        st = coll_list_push(env, *out, false, el, el_len);
    }
    if (st < 0) {
        coll_destroy(env, *out);
        *out = NULL;
        return st;
    }
    return TERSE_OK;
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
            return corrupt(env); /* count said there was one */
        }
    }
    st = rec_before(env, o, o->len, &start, el, len);
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
        st = rec_from_end(env, &c->head, i, &s, &e);
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

        (void)tree_at_rank(c, i, &it, &within);
        st = chunk_form(env, coll_tree_desc(&it), &form, &flen, &n);
        if (st != TERSE_OK) {
            return st;
        }
        (void)store_list_open(form, flen, &li, &n);
        if (store_list_skip(&li, within) != TERSE_OK || store_list_next(&li, el, len) != 1) {
            return corrupt(env);
        }
        return TERSE_OK;
    }
    i -= nt;
    st = rec_from_start(env, &c->tail, i, &s, &e);
    if (st == TERSE_OK) {
        *el = c->tail.p + s + 4;
        *len = e - s - REC_OVER;
    }
    return st;
}

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
    return chunk_form(env, coll_tree_desc(&it), form, flen, n);
}

/* Replaces (del 1) or inserts before (del 0) element within of the chunk at tree rank r0. */
static int tree_edit(struct coll_env *env, struct coll *c, uint64_t r0, uint64_t within,
                     const uint8_t *form, size_t flen, uint64_t n, uint64_t del,
                     const uint8_t *el, size_t len)
{
    struct store_list_el ins = {el, len};
    struct piece f[2];
    size_t cap = flen + store_list_el_size(len) + STORE_LIST_COUNT_MAX, out_len = 0;
    uint8_t *buf = rewrite_buf(env, flen, store_list_el_size(len));
    int st, nf;

    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    st = store_list_splice(form, flen, within, del, &ins, 1, buf, cap, &out_len);
    if (st != TERSE_OK) {
        return st == TERSE_ECORRUPT ? corrupt(env) : st;
    }
    st = cut_pieces(env, c, buf, out_len, n - del + 1, f, &nf);
    return st == TERSE_OK ? tree_rewrite(env, c, r0, f, nf) : st;
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
        st = rec_from_end(env, &c->head, i, &s, &e);
        return st == TERSE_OK ? open_splice(c, &c->head, s, e, el, len, true) : st;
    }
    i -= c->head.n;
    if (i >= nt) {
        st = rec_from_start(env, &c->tail, i - nt, &s, &e);
        return st == TERSE_OK ? open_splice(c, &c->tail, s, e, el, len, true) : st;
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
            st = rec_from_end(env, &c->head, i, &s, &e);
            if (st != TERSE_OK) {
                return st;
            }
            s = e;
        }
        st = open_splice(c, &c->head, s, s, el, len, true);
        if (st == TERSE_OK) {
            c->head.n++;
            c->count++;
            if (c->head.len > 2 * c->chunk_max) {
                (void)seal(env, c, true);
            }
        }
        return st;
    }
    i -= c->head.n;
    if (i >= nt) {
        st = rec_from_start(env, &c->tail, i - nt, &s, &e);
        if (st == TERSE_OK) {
            st = open_splice(c, &c->tail, s, s, el, len, true);
        }
        if (st == TERSE_OK) {
            c->tail.n++;
            c->count++;
            if (c->tail.len > 2 * c->chunk_max) {
                (void)seal(env, c, false);
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
        st = rec_from_end(env, o, k - 1, &s, &e);
        if (st == TERSE_OK) {
            o->len = (uint32_t)s;
        }
    } else {
        st = rec_from_start(env, o, k - 1, &s, &e);
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
            struct piece f;

            st = chunk_form(env, d, &form, &flen, &cnt);
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
                return corrupt(env);
            }
            f = (struct piece){buf, out_len, cnt - n};
            st = tree_rewrite(env, c, r0, &f, 1);
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
                st = rec_before(env, o, pos, &s, &el, &len);
                e = pos;
                pos = s;
            } else {
                st = rec_at(env, o, pos, &e, &el, &len);
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

        (void)tree_at_rank(c, rank, &it, &within);
        st = chunk_form(env, coll_tree_desc(&it), &form, &flen, &n);
        if (st == TERSE_OK && store_list_count(form, flen, el, el_len, &matches) != TERSE_OK) {
            st = corrupt(env);
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
            struct piece f;
            if (buf == NULL) {
                st = TERSE_ENOMEM;
                break;
            }
            st = store_list_remove(form, flen, el, el_len, skip, max, buf,
                                   flen + STORE_LIST_COUNT_MAX, &out_len, &got);
            if (st != TERSE_OK) {
                st = corrupt(env);
                break;
            }
            f = (struct piece){buf, out_len, n - got};
            st = tree_rewrite(env, c, rank, &f, n - got > 0 ? 1 : 0);
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

/* ---- conversion back ------------------------------------------------------------------------- */

size_t coll_list_form_size(const struct coll *c)
{
    size_t sz = codec_varint_len(c->count);
    struct coll_it it;

    /* Open records: REC_OVER bytes of framing each, a varint instead in the form. */
    for (int e = 0; e < 2; e++) {
        const struct coll_open *o = e == 0 ? &c->head : &c->tail;
        sz += o->len - (size_t)o->n * REC_OVER + (size_t)o->n * 5;
    }
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        sz += coll_tree_desc(&it)->raw_len;
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

/* ---- iteration ------------------------------------------------------------------------------- */

/* Loads the chunk at it->tit, positioned at element in_chunk. */
static int it_load(struct coll_env *env, struct coll_list_it *it)
{
    struct store_list_it li;
    uint64_t n;
    int st = chunk_form(env, coll_tree_desc(&it->tit), &it->form, &it->form_len, &n);

    if (st != TERSE_OK) {
        return st;
    }
    it->chunk_n = n;
    (void)store_list_open(it->form, it->form_len, &li, &n);
    if (!it->reverse) {
        if (store_list_skip(&li, it->in_chunk) != TERSE_OK) {
            return corrupt(env);
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
        st = rec_from_end(env, &c->head, i, &s, &e);
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
        (void)tree_at_rank(c, i, &it->tit, &within);
        it->in_chunk = within;
        return it_load(env, it);
    }
    i -= nt;
    st = rec_from_start(env, &c->tail, i, &s, &e);
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
        return corrupt(env);
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
                    st = rec_at(env, &c->head, it->off, &e, el, len);
                    it->off = e;
                } else {
                    st = rec_before(env, &c->head, it->off, &s, el, len);
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
                    return corrupt(env);
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
                st = rec_before(env, &c->tail, it->off, &s, el, len);
                it->off = s;
            } else {
                st = rec_at(env, &c->tail, it->off, &e, el, len);
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
            if (rec_at(env, o, off, &next, &el, &len) != TERSE_OK) {
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
        if (chunk_form(env, d, &form, &flen, &n) != TERSE_OK || flen != d->raw_len ||
            store_list_check(form, flen) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        total += n;
    }
    return total == c->count ? TERSE_OK : TERSE_ECORRUPT;
}
