/*
 * coll_list_rec: the records of a list's open ends ([len u32][bytes][h32 u32][len u32], read
 * either way and verified one by one) and rewrites of the tree's chunks (a chunk replaced by
 * one or two, all made before the tree changes, so a failure changes nothing).
 */
#include "coll/coll_list_internal.h"

#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

int coll_list_corrupt(struct coll_env *env)
{
    coll_env_count_corrupt(env);
    return TERSE_ECORRUPT;
}

/* ---- open buffers ---------------------------------------------------------------------------- */

/* Room for n more bytes at the end of o. */
int coll_open_room(struct coll *c, struct coll_open *o, size_t n)
{
    size_t want = (size_t)o->len + n, cap, before, bound;
    uint8_t *p;

    if (want <= o->cap) {
        return TERSE_OK;
    }
    if (want > UINT32_MAX / 2) {
        return TERSE_ETOOBIG;
    }
    /* Doubling from 256 bytes, but never past what an end of these records holds before it is
     * sealed (coll_list_end_long: its form bytes past one and a half chunks; and the record
     * that crosses the line): a full end carries no slack. The cap stays when a seal empties
     * part of the end, so a queue turning over grows it once. */
    cap = o->cap != 0 ? o->cap : 256;
    while (cap < want) {
        cap *= 2;
    }
    bound = COLL_END_MAX(c) + 256 + ((size_t)o->n + 1) * (REC_OVER - 1);
    if (cap > want && cap > bound) {
        cap = want > bound ? want : bound;
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

void coll_rec_write(uint8_t *at, const uint8_t *el, size_t len)
{
    wr32(at, (uint32_t)len);
    if (len > 0) {
        memcpy(at + 4, el, len);
    }
    wr32(at + 4 + len, el_h32(el, len));
    wr32(at + 8 + len, (uint32_t)len);
}

/* The record that ends at end, verified: *start, and its element. */
int coll_rec_before(struct coll_env *env, const struct coll_open *o, size_t end, size_t *start,
                      const uint8_t **el, size_t *len)
{
    uint32_t n;
    size_t s;

    if (end < REC_OVER || end > o->len) {
        return coll_list_corrupt(env);
    }
    n = rd32(o->p + end - 4);
    if (n > end - REC_OVER) {
        return coll_list_corrupt(env);
    }
    s = end - REC_OVER - n;
    if (rd32(o->p + s) != n || rd32(o->p + s + 4 + n) != el_h32(o->p + s + 4, n)) {
        return coll_list_corrupt(env);
    }
    *start = s;
    *el = o->p + s + 4;
    *len = n;
    return TERSE_OK;
}

/* The record that starts at off, verified: *next, and its element. */
int coll_rec_at(struct coll_env *env, const struct coll_open *o, size_t off, size_t *next,
                  const uint8_t **el, size_t *len)
{
    uint32_t n;

    if (off > o->len || o->len - off < REC_OVER) {
        return coll_list_corrupt(env);
    }
    n = rd32(o->p + off);
    if (n > o->len - off - REC_OVER) {
        return coll_list_corrupt(env);
    }
    if (rd32(o->p + off + 8 + n) != n || rd32(o->p + off + 4 + n) != el_h32(o->p + off + 4, n)) {
        return coll_list_corrupt(env);
    }
    *next = off + REC_OVER + n;
    *el = o->p + off + 4;
    *len = n;
    return TERSE_OK;
}

/* Offsets of the record holding the k-th element counted from the physical end (k = 0: the
 * last record): [*s, *e). */
int coll_rec_from_end(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                        size_t *e)
{
    size_t end = o->len, start = 0, len;
    const uint8_t *el;

    for (uint64_t i = 0; i <= k; i++) {
        int st = coll_rec_before(env, o, end, &start, &el, &len);
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
int coll_rec_from_start(struct coll_env *env, const struct coll_open *o, uint64_t k, size_t *s,
                          size_t *e)
{
    size_t off = 0, next = 0, len;
    const uint8_t *el;

    for (uint64_t i = 0; i <= k; i++) {
        int st = coll_rec_at(env, o, off, &next, &el, &len);
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
int coll_open_splice(struct coll *c, struct coll_open *o, size_t s, size_t e, const uint8_t *el,
                       size_t len, bool ins)
{
    size_t add = ins ? len + REC_OVER : 0, old = e - s;
    int st;

    if (add > old) {
        st = coll_open_room(c, o, add - old);
        if (st != TERSE_OK) {
            return st;
        }
    }
    memmove(o->p + s + add, o->p + e, o->len - e);
    if (ins) {
        coll_rec_write(o->p + s, el, len);
    }
    o->len = (uint32_t)(o->len + add - old);
    return TERSE_OK;
}


/* ---- the tree's chunks -------------------------------------------------------------------------- */

int coll_list_chunk_form(struct coll_env *env, struct coll_desc *d, const uint8_t **form, size_t *len,
                      uint64_t *n)
{
    struct store_list_it it;
    int st = coll_chunk_read(env, d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    if (store_list_open(*form, *len, &it, n) != TERSE_OK || *n != d->count) {
        return coll_list_corrupt(env);
    }
    return TERSE_OK;
}

/* A chunk of form (flen bytes, n elements) put into the tree before *at (at invalid: at the
 * end). */
int coll_list_tree_put(struct coll_env *env, struct coll *c, struct coll_it *at, const uint8_t *form,
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
int coll_list_tree_at_rank(struct coll *c, uint64_t rank, struct coll_it *it, uint64_t *within)
{
    return coll_tree_seek_rank(&c->tree, rank, it, within) ? TERSE_OK : TERSE_EINVAL;
}

/*
 * The chunk whose first element is at tree rank r becomes the chunks of forms f[0..nf) (each
 * with its count), in order; nf 0 removes it. New chunks are made before anything changes,
 * so a failure leaves the list as it was.
 */

int coll_list_tree_rewrite(struct coll_env *env, struct coll *c, uint64_t r, const struct coll_list_piece *f,
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

        (void)coll_list_tree_at_rank(c, r, &it, &within);
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
        (void)coll_list_tree_at_rank(c, r, &it, &within);
        cur = coll_tree_desc(&it);
        coll_chunk_drop(env, c, cur->chunk);
        cur->chunk = made[0];
        cur->raw_len = (uint32_t)f[0].len;
        coll_tree_set_count(&c->tree, &it, (uint32_t)f[0].n);
        return TERSE_OK;
    }
    (void)coll_list_tree_at_rank(c, r, &it, &within);
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

/* out's form, cut in two when it is over two chunks (bytes or elements), at about half its
 * bytes (or elements): the pieces for tree_rewrite (in a second build area). */
int coll_list_cut_pieces(struct coll_env *env, struct coll *c, uint8_t *out, size_t len, uint64_t n,
                      struct coll_list_piece *f, int *nf)
{
    struct store_list_it li;
    uint64_t k = 0, cnt;
    size_t l1 = 0, l2 = 0;
    uint8_t *b1, *b2;
    int st;

    f[0] = (struct coll_list_piece){out, len, n};
    *nf = n == 0 ? 0 : 1;
    bool by_n = c->chunk_n != 0 && n > 2 * (uint64_t)c->chunk_n;

    if ((len <= 2 * (size_t)c->chunk_max && !by_n) || n < 2) {
        return TERSE_OK;
    }
    (void)store_list_open(out, len, &li, &cnt);
    while (k + 1 < n) {
        const uint8_t *el;
        size_t el_len;
        if (store_list_next(&li, &el, &el_len) != 1) {
            return coll_list_corrupt(env);
        }
        k++;
        if (by_n ? k >= n / 2 : (size_t)(li.p - out) >= len / 2) {
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
    f[0] = (struct coll_list_piece){b1, l1, k};
    f[1] = (struct coll_list_piece){b2, l2, n - k};
    *nf = 2;
    return TERSE_OK;
}

/* Build room for a rewrite of a chunk of len bytes growing by extra: the new form and, if it
 * must be cut, its two halves. */
uint8_t *coll_list_rewrite_buf(struct coll_env *env, size_t len, size_t extra)
{
    size_t n = len + extra + STORE_LIST_COUNT_MAX;
    return coll_env_build_buf(env, 3 * n + 2 * STORE_LIST_COUNT_MAX);
}
