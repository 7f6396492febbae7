/*
 * coll_hash_edit: puts and deletes (coll_hash.h). Each finds its field's chunk (one descent,
 * one verified read), builds the chunk's next form in the env's build buffer (the record
 * replaced in place, a new one appended, or one cut out), then:
 *
 *   - fits (or cannot be split): coll_chunk_rewrite, in place when the block has room;
 *   - put past coll_hot_bytes: split around a median h, again while the piece holding the
 *     written element is still over (cut); the pieces' chunks are all made first, then the
 *     first takes the old descriptor and the others are inserted after it (an insert that
 *     fails removes those already in), so a failure leaves the container as it was;
 *   - delete under coll_hot_bytes / 4: merged with the smaller neighbour range that fits in
 *     3/4 of coll_hot_bytes (the lower range's descriptor keeps the merged chunk, the upper
 *     one goes);
 *   - delete of the last element: the descriptor goes (the next one's low bound becomes 0 if
 *     it was the first).
 *
 * The split's build area, after the new form in the same buffer (offsets 8-aligned):
 *
 *   | form (len) | ents: n x coll_hash_ent | pieces: n x piece | made: n x chunk * | scratch |
 *
 * (scratch: len bytes, room for any one piece's form).
 */
#include "coll/coll_hash_internal.h"

#include "codec/codec_value.h"
#include "terse/status.h"

#include <assert.h>

/* Where a field is (or would go) in its chunk's form. */
struct spot {
    const uint8_t *form;     /* the chunk's verified form (a view) */
    size_t len;              /* its bytes */
    size_t body;             /* offset of its first record */
    uint64_t n;              /* its elements */
    size_t rs, re;           /* the field's record [rs, re); both len when absent */
    struct store_hash_kv kv; /* the field's record, when found */
    bool found;
};

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static int find(struct coll_env *env, const struct coll_desc *d, const uint8_t *field,
                size_t flen, struct spot *s)
{
    struct store_hash_it fit;
    const uint8_t *at;
    int st = coll_hash_chunk_open(env, d, &s->form, &s->len, &fit), rc;

    if (st != TERSE_OK) {
        return st;
    }
    s->n = d->count;
    s->body = (size_t)(fit.p - s->form);
    s->rs = s->re = s->len;
    /* The rest of the form past the field is copied into the chunk's next one unread: a chunk
     * is well formed when its checksum holds (written here, or verified whole at load). */
    rc = store_hash_it_find(&fit, field, flen, &s->kv, &at);
    s->found = rc == 1;
    if (s->found) {
        s->rs = (size_t)(at - s->form);
        s->re = (size_t)(s->kv.v + s->kv.vlen - s->form);
    }
    return rc >= 0 ? TERSE_OK : coll_hash_corrupt(env);
}

/* The chunk of field and its spot there: from at when it still holds (the chunk opened, the
 * record at its place checked to be field's), else by a descent and a find. */
static int locate(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const struct coll_hash_at *at, struct coll_it *it, struct spot *s)
{
    struct store_hash_it fit;
    int st;

    if (at == NULL || !at->set || at->edits != c->tree.edits) {
        coll_hash_seek(c, coll_hash_of(c, field, flen), it);
        return find(env, coll_tree_desc(it), field, flen, s);
    }
    *it = at->it;
    st = coll_hash_chunk_open(env, coll_tree_desc(it), &s->form, &s->len, &fit);
    if (st != TERSE_OK) {
        return st;
    }
    s->n = coll_tree_desc(it)->count;
    s->body = (size_t)(fit.p - s->form);
    s->found = at->found;
    s->rs = s->re = s->len;
    if (at->found) {
        struct store_hash_it one = {s->form + at->rs, s->form + s->len, 1};

        if (at->rs < s->body || at->re > s->len || store_hash_next(&one, &s->kv) != 1 ||
            one.p != s->form + at->re || s->kv.flen != flen ||
            (flen > 0 && memcmp(s->kv.f, field, flen) != 0)) {
            return coll_hash_corrupt(env); /* not the record the lookup found */
        }
        s->rs = at->rs;
        s->re = at->re;
    }
    return TERSE_OK;
}

/* Writes the chunk's next form into out: count n, the field's record replaced by (f, v) when
 * put, else cut out; returns its length. */
static size_t form_splice(uint8_t *out, const struct spot *s, uint64_t n, const uint8_t *f,
                          size_t flen, const uint8_t *v, size_t vlen, bool put)
{
    uint8_t *w = out + codec_varint_put(out, n);

    memcpy(w, s->form + s->body, s->rs - s->body);
    w += s->rs - s->body;
    if (put) {
        w = coll_hash_rec_put(w, f, flen, v, vlen);
    }
    memcpy(w, s->form + s->re, s->len - s->re);
    w += s->len - s->re;
    return (size_t)(w - out);
}

/* ---- splits ------------------------------------------------------------------------------ */

static size_t split_need(size_t len, uint64_t n)
{
    return (size_t)n * (sizeof(struct coll_hash_ent) + sizeof(struct coll_hash_piece) +
                        sizeof(struct coll_chunk *)) +
           len;
}

/* Moves the entries of [a, b) with h below pivot (at or below it: incl) to its front; returns
 * where the others start, their least h in *lo_r. */
static size_t part(struct coll_hash_ent *e, size_t a, size_t b, uint64_t pivot, bool incl,
                   uint64_t *lo_r)
{
    uint64_t lo = UINT64_MAX;
    size_t m = a;

    for (size_t i = a; i < b; i++) {
        if (e[i].h < pivot || (incl && e[i].h == pivot)) {
            struct coll_hash_ent t = e[i];
            e[i] = e[m];
            e[m++] = t;
        } else if (e[i].h < lo) {
            lo = e[i].h;
        }
    }
    *lo_r = lo;
    return m;
}

/* Splits [a, b) (two entries at least, in no order) in two ranges of h around the median of
 * three of their h: the lower range first, the upper one from the returned place, its least h
 * in *lo_r. When the pivot is their least h, the entries of that h make the lower range. b:
 * every entry has one h (no cut can tell them apart). */
static size_t halve(struct coll_hash_ent *e, size_t a, size_t b, uint64_t *lo_r)
{
    uint64_t x = e[a].h, y = e[a + (b - a) / 2].h, z = e[b - 1].h, pivot;
    size_t m;

    pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    m = part(e, a, b, pivot, false, lo_r);
    return m > a ? m : part(e, a, b, pivot, true, lo_r);
}

/* Cuts [a, b) (low bound lo) in two while the range holding the written element (of h eh) is
 * over lim bytes (coll_hot_bytes, or a load's 3/4 of chunk_bytes) and can be cut; the other range of each cut is a piece as it stands
 * (a subset of the old chunk's elements, so within chunk_bytes). Pieces go into p in hash
 * order. Partitions instead of a sort, and only the written side: the next write that lands
 * near eh finds a small chunk, and a write into a big cold chunk costs O(n) moves, not a sort
 * and a cut of every piece. */
static void cut(size_t lim, struct coll_hash_ent *e, size_t a, size_t b, uint64_t lo,
                uint64_t eh, struct coll_hash_piece *p, size_t *k)
{
    uint64_t lo_r;
    size_t m;

    if (b - a > 1 && coll_hash_piece_size(e, a, b) > lim &&
        (m = halve(e, a, b, &lo_r)) < b) {
        if (eh < lo_r) {
            cut(lim, e, a, m, lo, eh, p, k);
            p[(*k)++] = (struct coll_hash_piece){m, b, lo_r};
        } else {
            p[(*k)++] = (struct coll_hash_piece){a, m, lo};
            cut(lim, e, m, b, lo_r, eh, p, k);
        }
        return;
    }
    p[(*k)++] = (struct coll_hash_piece){a, b, lo};
}

/* The chunks made[0..k) of the pieces replace the chunk at it: made[0] takes its descriptor
 * (and its low bound), the others are inserted after it. TERSE_OK or TERSE_ENOMEM (nothing
 * changed, the made chunks freed). */
static int tree_replace(struct coll_env *env, struct coll *c, struct coll_it *it,
                        const struct coll_hash_piece *p, struct coll_chunk **made, size_t k)
{
    uint64_t lo0 = coll_tree_desc(it)->key.k;
    struct coll_it at = *it;
    struct coll_desc *d;

    coll_tree_next(&at);
    for (size_t j = 1; j < k; j++) {
        struct coll_desc nd = {made[j], (uint32_t)(p[j].b - p[j].a), made[j]->raw,
                               {p[j].lo, 0}};
        int st = coll_tree_insert(&c->tree, &at, &nd);

        if (st != TERSE_OK) {
            for (size_t i = 1; i < j; i++) {
                coll_hash_seek(c, p[i].lo, &at);
                assert(coll_tree_desc(&at)->chunk == made[i]);
                coll_tree_remove(&c->tree, &at);
            }
            for (size_t i = 0; i < k; i++) {
                coll_chunk_drop(env, c, made[i]);
            }
            return st;
        }
        coll_tree_next(&at);
    }
    coll_hash_seek(c, lo0, it); /* the inserts may have moved its descriptor */
    d = coll_tree_desc(it);
    coll_chunk_drop(env, c, d->chunk);
    d->chunk = made[0];
    d->raw_len = made[0]->raw;
    coll_tree_set_count(&c->tree, it, (uint32_t)(p[0].b - p[0].a));
    return TERSE_OK;
}

/*
 * The form (len bytes, n >= 2 elements, the written element's h eh) that is to become the chunk
 * at it, split (cut, past lim bytes) into pieces (area: split_need bytes, 8-aligned). 1 when done, 0 when every
 * element has one h (it cannot be split: the caller writes it whole), < 0 a status (nothing
 * changed).
 */
static int split(struct coll_env *env, struct coll *c, struct coll_it *it, const uint8_t *form,
                 size_t len, uint64_t n, uint64_t eh, size_t lim, uint8_t *area)
{
    struct coll_hash_ent *e = (struct coll_hash_ent *)(void *)area;
    struct coll_hash_piece *p = (struct coll_hash_piece *)(void *)(e + n);
    struct coll_chunk **made = (struct coll_chunk **)(void *)(p + n);
    uint8_t *scratch = (uint8_t *)(made + n);
    uint64_t lo = coll_tree_desc(it)->key.k, hmin = UINT64_MAX, hmax = 0;
    struct store_hash_it fit;
    struct store_hash_kv kv;
    struct coll_it nx = *it;
    uint64_t cnt;
    size_t k = 0;
    int st;

    (void)store_hash_open(form, len, &fit, &cnt);
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *at = fit.p;

        if (store_hash_next(&fit, &kv) != 1) {
            return coll_hash_corrupt(env); /* nothing changed yet */
        }
        e[i].h = coll_hash_of(c, kv.f, kv.flen);
        e[i].off = (uint32_t)(at - form);
        e[i].len = (uint32_t)(fit.p - at);
        hmin = e[i].h < hmin ? e[i].h : hmin;
        hmax = e[i].h > hmax ? e[i].h : hmax;
    }
    if (fit.p != form + len) {
        return coll_hash_corrupt(env); /* records past its count: a crafted chunk's lie */
    }
    /* Every element in the chunk's range, or the pieces' low bounds would break the
     * directory's order: a chunk of a crafted snapshot (its checksum valid) may hold
     * anything. */
    coll_tree_next(&nx);
    if (hmin < lo || (coll_it_valid(&nx) && hmax >= coll_tree_desc(&nx)->key.k)) {
        return coll_hash_corrupt(env);
    }
    if (hmin == hmax) {
        return 0;
    }
    cut(lim, e, 0, (size_t)n, lo, eh, p, &k);
    assert(k >= 2);
    for (size_t j = 0; j < k; j++) {
        size_t plen = coll_hash_piece_write(scratch, form, e, p[j].a, p[j].b);

        st = coll_chunk_put(env, c, scratch, plen, &made[j]);
        if (st != TERSE_OK) {
            while (j-- > 0) {
                coll_chunk_drop(env, c, made[j]);
            }
            return st;
        }
    }
    st = tree_replace(env, c, it, p, made, k);
    return st == TERSE_OK ? 1 : st;
}

/* ---- puts -------------------------------------------------------------------------------- */

/* The first element of an empty container: its one chunk. */
static int put_first(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const uint8_t *val, size_t vlen, size_t rec)
{
    size_t len = 1 + rec;
    uint8_t *buf = coll_env_build_buf(env, len);
    struct coll_it at = {NULL, 0};
    struct coll_chunk *ch;
    struct coll_desc d;
    int st;

    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    buf[0] = 1;
    (void)coll_hash_rec_put(buf + 1, field, flen, val, vlen);
    st = coll_chunk_put(env, c, buf, len, &ch);
    if (st != TERSE_OK) {
        return st;
    }
    d = (struct coll_desc){ch, 1, (uint32_t)len, {0, 0}};
    st = coll_tree_insert(&c->tree, &at, &d);
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, ch);
        return st;
    }
    c->count = 1;
    return TERSE_OK;
}

int coll_hash_put(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const uint8_t *val, size_t vlen, unsigned flags, enum coll_hash_result *result)
{
    return coll_hash_put_at(env, c, field, flen, val, vlen, flags, result, NULL);
}

int coll_hash_put_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const uint8_t *val, size_t vlen, unsigned flags, enum coll_hash_result *result,
                     const struct coll_hash_at *at)
{
    struct coll_it it;
    struct coll_desc *d;
    struct spot s;
    size_t rec, len, need, lim;
    uint64_t n;
    uint8_t *buf;
    bool cuts;
    int st;

    *result = COLL_HASH_UNTOUCHED;
    if ((flags & ~(COLL_HASH_NX | COLL_HASH_XX | COLL_HASH_BULK)) != 0 ||
        (flags & (COLL_HASH_NX | COLL_HASH_XX)) == (COLL_HASH_NX | COLL_HASH_XX) ||
        (c->type == COLL_SET && vlen != 0)) {
        return TERSE_EINVAL;
    }
    if (flen > CODEC_VALUE_MAX || vlen > CODEC_VALUE_MAX ||
        (rec = coll_hash_rec_size(flen, vlen)) > CODEC_VALUE_MAX - 10) {
        return TERSE_ETOOBIG;
    }
    if (c->tree.n_chunks == 0) {
        if (flags & COLL_HASH_XX) {
            return TERSE_OK;
        }
        st = put_first(env, c, field, flen, val, vlen, rec);
        *result = st == TERSE_OK ? COLL_HASH_ADDED : COLL_HASH_UNTOUCHED;
        return st;
    }
    st = locate(env, c, field, flen, at, &it, &s);
    if (st != TERSE_OK) {
        return st;
    }
    d = coll_tree_desc(&it);
    if (s.found ? (flags & COLL_HASH_NX) != 0 : (flags & COLL_HASH_XX) != 0) {
        return TERSE_OK;
    }
    if (s.found && s.kv.vlen == vlen && (vlen == 0 || memcmp(s.kv.v, val, vlen) == 0)) {
        *result = COLL_HASH_UPDATED; /* the same value: nothing to write */
        return TERSE_OK;
    }
    n = s.n + (s.found ? 0 : 1);
    len = codec_varint_len(n) + (s.rs - s.body) + rec + (s.len - s.re);
    if (len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    lim = (flags & COLL_HASH_BULK) ? (size_t)c->chunk_max * 3 / 4 : coll_hot_bytes(c);
    cuts = len > lim && n > 1;
    need = cuts ? align8(len) + split_need(len, n) : len;
    buf = coll_env_build_buf(env, need);
    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    (void)form_splice(buf, &s, n, field, flen, val, vlen, true);
    st = cuts ? split(env, c, &it, buf, len, n, coll_hash_of(c, field, flen), lim,
                      buf + align8(len))
              : 0;
    if (st == 0) {
        st = coll_chunk_rewrite(env, c, &d->chunk, buf, len);
        if (st == TERSE_OK) {
            d->raw_len = (uint32_t)len;
            coll_tree_set_count(&c->tree, &it, (uint32_t)n);
        }
    } else if (st == 1) {
        st = TERSE_OK;
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (!s.found) {
        c->count++;
    }
    *result = s.found ? COLL_HASH_UPDATED : COLL_HASH_ADDED;
    return TERSE_OK;
}

/* ---- deletes ----------------------------------------------------------------------------- */

/* The chunk at it (emptied) leaves the tree; the next one takes the range's low bound 0 when
 * it was the first. */
static void chunk_remove(struct coll_env *env, struct coll *c, struct coll_it *it)
{
    struct coll_chunk *ch = coll_tree_desc(it)->chunk;
    struct coll_it prev = *it;

    coll_tree_prev(&prev);
    coll_tree_remove(&c->tree, it);
    coll_chunk_drop(env, c, ch);
    if (!coll_it_valid(&prev) && c->tree.n_chunks > 0) {
        struct coll_it b = coll_tree_begin(&c->tree);
        struct coll_key zero = {0, 0};

        coll_tree_set_key(&c->tree, &b, &zero);
    }
}

/* The neighbour of the chunk at it (to hold len bytes of n elements) whose merge with it is
 * the smallest within 3/4 of coll_hot_bytes: *nb, *prev (it comes before), *mlen. */
static bool merge_pick(const struct coll *c, const struct coll_it *it, size_t len, uint64_t n,
                       struct coll_it *nb, bool *prev, size_t *mlen)
{
    size_t best = SIZE_MAX, lim = (size_t)coll_hot_bytes(c) * 3 / 4;

    for (int side = 0; side < 2; side++) {
        struct coll_it o = *it;
        const struct coll_desc *od;
        size_t m;

        if (side == 0) {
            coll_tree_prev(&o);
        } else {
            coll_tree_next(&o);
        }
        if (!coll_it_valid(&o)) {
            continue;
        }
        od = coll_tree_desc(&o);
        m = codec_varint_len(n + od->count) + (len - codec_varint_len(n)) +
            (od->raw_len - codec_varint_len(od->count));
        if (m <= lim && m < best) {
            best = m;
            *nb = o;
            *prev = side == 0;
        }
    }
    *mlen = best;
    return best != SIZE_MAX;
}

/* The chunk at it, to hold cur (len bytes, n elements), merged with its neighbour at nb into
 * out (room from merge_pick): the lower range keeps the merged chunk, the other descriptor
 * goes. 1 when done, < 0 a status (nothing changed: the neighbour failed, or no memory). */
static int merge(struct coll_env *env, struct coll *c, struct coll_it *it, struct coll_it *nb,
                 bool nb_prev, const uint8_t *cur, size_t len, uint64_t n, uint8_t *out)
{
    struct coll_desc *nd = coll_tree_desc(nb), *kd;
    struct coll_it *keep = nb_prev ? nb : it, *gone = nb_prev ? it : nb;
    struct coll_chunk *gch = coll_tree_desc(gone)->chunk;
    const uint8_t *nform, *cbody = cur + codec_varint_len(n), *lo, *hi;
    struct store_hash_it fit;
    size_t nlen, cb, nbl, lol, hil, mlen;
    uint64_t total = n + nd->count;
    uint8_t *w;
    int st = coll_hash_chunk_open(env, nd, &nform, &nlen, &fit);

    if (st != TERSE_OK) {
        return st;
    }
    cb = len - (size_t)(cbody - cur);
    nbl = nlen - (size_t)(fit.p - nform);
    lo = nb_prev ? fit.p : cbody;
    lol = nb_prev ? nbl : cb;
    hi = nb_prev ? cbody : fit.p;
    hil = nb_prev ? cb : nbl;
    w = out + codec_varint_put(out, total);
    memcpy(w, lo, lol);
    memcpy(w + lol, hi, hil);
    mlen = (size_t)(w - out) + lol + hil;
    kd = coll_tree_desc(keep);
    st = coll_chunk_rewrite(env, c, &kd->chunk, out, mlen);
    if (st != TERSE_OK) {
        return st;
    }
    kd->raw_len = (uint32_t)mlen;
    coll_tree_set_count(&c->tree, keep, (uint32_t)total);
    coll_tree_remove(&c->tree, gone);
    coll_chunk_drop(env, c, gch);
    return 1;
}

int coll_hash_del(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen)
{
    return coll_hash_del_at(env, c, field, flen, NULL);
}

int coll_hash_del_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const struct coll_hash_at *at)
{
    struct coll_it it, nb;
    struct coll_desc *d;
    struct spot s;
    size_t len, mlen = 0;
    uint64_t n;
    uint8_t *buf;
    bool merges = false, nb_prev = false;
    int st;

    if (c->tree.n_chunks == 0) {
        return 0;
    }
    st = locate(env, c, field, flen, at, &it, &s);
    if (st != TERSE_OK || !s.found) {
        return st;
    }
    d = coll_tree_desc(&it);
    if (s.n == 1) {
        chunk_remove(env, c, &it);
        c->count--;
        return 1;
    }
    n = s.n - 1;
    len = codec_varint_len(n) + (s.rs - s.body) + (s.len - s.re);
    if (len < coll_hot_bytes(c) / 4) {
        merges = merge_pick(c, &it, len, n, &nb, &nb_prev, &mlen);
    }
    buf = coll_env_build_buf(env, len + (merges ? mlen : 0));
    if (buf == NULL && merges) {
        merges = false;
        buf = coll_env_build_buf(env, len);
    }
    if (buf == NULL) {
        return TERSE_ENOMEM;
    }
    (void)form_splice(buf, &s, n, NULL, 0, NULL, 0, false);
    /* A merge that fails (the neighbour's chunk, or memory) leaves the plain delete. */
    if (!merges || merge(env, c, &it, &nb, nb_prev, buf, len, n, buf + len) != 1) {
        st = coll_chunk_rewrite(env, c, &d->chunk, buf, len);
        if (st != TERSE_OK) {
            return st;
        }
        d->raw_len = (uint32_t)len;
        coll_tree_set_count(&c->tree, &it, (uint32_t)n);
    }
    c->count--;
    return 1;
}

int coll_hash_merge_next(struct coll_env *env, struct coll *c, struct coll_it *it)
{
    struct coll_desc *d = coll_tree_desc(it);
    struct coll_it nb;
    struct store_hash_it fit;
    const uint8_t *form;
    size_t len, m;
    uint8_t *out;
    int st;

    if (!coll_chunk_cold_next(c, it, &nb, &m)) {
        return 0;
    }
    st = coll_hash_chunk_open(env, d, &form, &len, &fit);
    if (st != TERSE_OK) {
        return st;
    }
    /* form is a view into d's RAW chunk, or the env's decode buffer: never the build one. */
    out = coll_env_build_buf(env, m);
    if (out == NULL) {
        return TERSE_ENOMEM;
    }
    return merge(env, c, it, &nb, false, form, len, d->count, out);
}
