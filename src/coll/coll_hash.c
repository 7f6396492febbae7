/*
 * coll_hash: hashes and sets as chunked containers (coll_hash.h): their life, the bulk build,
 * lookups, and the helpers the engine's other files share (coll_hash_internal.h).
 *
 * Bulk build (coll_hash_from_form): one pass over the form records (h, offset, bytes) of every
 * element in one array, heapsorted by (h, offset); equal neighbours in h are compared, so a
 * field given twice is found in O(n log n) without store_hash_check's table; then the sorted
 * entries are cut greedily into pieces of at most 3/4 of chunk_bytes (an element bigger than
 * that alone; never between two entries of equal h), each written into the env's build buffer
 * and appended to the tree.
 */
#include "coll/coll_hash_internal.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#include <assert.h>

/* ---- helpers ----------------------------------------------------------------------------- */

int coll_hash_corrupt(struct coll_env *env)
{
    coll_env_count_corrupt(env);
    return TERSE_ECORRUPT;
}

void coll_hash_seek(const struct coll *c, uint64_t h, struct coll_it *it)
{
    bool found = coll_tree_seek_k(&c->tree, h, false, it);

    (void)found;
    assert(found);
}

bool coll_hash_range_end(const struct coll_it *it, uint64_t *end)
{
    struct coll_it n = *it;

    coll_tree_next(&n);
    if (!coll_it_valid(&n)) {
        return false;
    }
    *end = coll_tree_desc(&n)->key.k;
    return true;
}

int coll_hash_chunk_open(struct coll_env *env, const struct coll_desc *d, const uint8_t **form,
                         size_t *len, struct store_hash_it *fit)
{
    uint64_t n;
    int st = coll_chunk_read(env, d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    if (*len != d->raw_len || store_hash_open(*form, *len, fit, &n) != TERSE_OK ||
        n != d->count || n == 0) {
        return coll_hash_corrupt(env);
    }
    return TERSE_OK;
}

static bool ent_less(const struct coll_hash_ent *a, const struct coll_hash_ent *b)
{
    return a->h < b->h || (a->h == b->h && a->off < b->off);
}

static void sift_down(struct coll_hash_ent *e, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        struct coll_hash_ent t;

        if (child >= n) {
            return;
        }
        if (child + 1 < n && ent_less(&e[child], &e[child + 1])) {
            child++;
        }
        if (!ent_less(&e[root], &e[child])) {
            return;
        }
        t = e[root];
        e[root] = e[child];
        e[child] = t;
        root = child;
    }
}

void coll_hash_ents_sort(struct coll_hash_ent *e, size_t n)
{
    if (n < 2) {
        return;
    }
    for (size_t i = n / 2; i-- > 0;) {
        sift_down(e, i, n);
    }
    for (size_t end = n - 1; end > 0; end--) {
        struct coll_hash_ent t = e[0];
        e[0] = e[end];
        e[end] = t;
        sift_down(e, 0, end);
    }
}

size_t coll_hash_piece_size(const struct coll_hash_ent *e, size_t a, size_t b)
{
    size_t n = codec_varint_len(b - a);

    for (size_t i = a; i < b; i++) {
        n += e[i].len;
    }
    return n;
}

size_t coll_hash_piece_write(uint8_t *out, const uint8_t *src, const struct coll_hash_ent *e,
                             size_t a, size_t b)
{
    uint8_t *w = out + codec_varint_put(out, b - a);

    for (size_t i = a; i < b; i++) {
        memcpy(w, src + e[i].off, e[i].len);
        w += e[i].len;
    }
    return (size_t)(w - out);
}

/* ---- life -------------------------------------------------------------------------------- */

int coll_hash_create(struct coll_env *env, enum coll_type type,
                     const struct coll_hash_shape *shape, struct coll **out)
{
    int st;

    *out = NULL;
    if ((type != COLL_HASH && type != COLL_SET) || shape == NULL || shape->chunk_bytes == 0) {
        return TERSE_EINVAL;
    }
    st = coll_create(env, type, shape->chunk_bytes, out);
    if (st == TERSE_OK) {
        (*out)->merge_next = coll_hash_merge_next;
    }
    return st;
}

/* The field of a record already read once (its lengths are known good). */
static void rec_field(const uint8_t *src, const struct coll_hash_ent *e, const uint8_t **f,
                      size_t *flen)
{
    const uint8_t *p = src + e->off;
    uint64_t n = 0;

    (void)store_varint_read(&p, src + e->off + e->len, &n);
    *f = p;
    *flen = (size_t)n;
}

/* Reads every record of form into ents (n of them), placed by seed: TERSE_OK or
 * TERSE_ECORRUPT. */
static int ents_read(uint64_t seed, bool set, const uint8_t *form, size_t len,
                     struct coll_hash_ent *ents, uint64_t n)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t i = 0, cnt;
    int rc;

    (void)store_hash_open(form, len, &it, &cnt);
    for (;;) {
        const uint8_t *at = it.p;

        rc = store_hash_next(&it, &kv);
        if (rc != 1) {
            break;
        }
        if (set && kv.vlen != 0) {
            return TERSE_ECORRUPT;
        }
        ents[i].h = coll_hash_seeded(seed, kv.f, kv.flen);
        ents[i].off = (uint32_t)(at - form);
        ents[i].len = (uint32_t)(it.p - at);
        i++;
    }
    return rc == 0 && i == n ? TERSE_OK : TERSE_ECORRUPT;
}

/* Sorted entries: TERSE_ECORRUPT when a field is there twice (equal fields have equal h, so
 * they are in one run of equal h; such runs are of one entry but for 64-bit collisions). */
static int ents_unique(const uint8_t *form, const struct coll_hash_ent *e, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        for (size_t j = i; j-- > 0 && e[j].h == e[i].h;) {
            const uint8_t *fa, *fb;
            size_t la, lb;

            rec_field(form, &e[i], &fa, &la);
            rec_field(form, &e[j], &fb, &lb);
            if (la == lb && (la == 0 || memcmp(fa, fb, la) == 0)) {
                return TERSE_ECORRUPT;
            }
        }
    }
    return TERSE_OK;
}

int coll_hash_ents_cut(struct coll_env *env, struct coll *c, const uint8_t *form,
                    const struct coll_hash_ent *e, size_t n)
{
    size_t target = (size_t)c->chunk_max * 3 / 4, a = 0;

    while (a < n) {
        size_t b = a + 1, bytes = e[a].len, plen;
        struct coll_it at = {NULL, 0};
        struct coll_desc d;
        struct coll_chunk *ch;
        uint8_t *buf;
        int st;

        while (b < n && (e[b].h == e[b - 1].h ||
                         codec_varint_len(b + 1 - a) + bytes + e[b].len <= target)) {
            bytes += e[b].len;
            b++;
        }
        plen = codec_varint_len(b - a) + bytes;
        buf = coll_env_build_buf(env, plen);
        if (buf == NULL) {
            return TERSE_ENOMEM;
        }
        (void)coll_hash_piece_write(buf, form, e, a, b);
        st = coll_chunk_put(env, c, buf, plen, &ch);
        if (st != TERSE_OK) {
            return st;
        }
        d.chunk = ch;
        d.count = (uint32_t)(b - a);
        d.raw_len = (uint32_t)plen;
        d.key.k = a == 0 ? 0 : e[a].h;
        d.key.aux = 0;
        st = coll_tree_insert(&c->tree, &at, &d);
        if (st != TERSE_OK) {
            coll_chunk_drop(env, c, ch);
            return st;
        }
        c->count += b - a;
        a = b;
    }
    return TERSE_OK;
}

int coll_hash_from_form(struct coll_env *env, enum coll_type type, const uint8_t *form,
                        size_t len, const struct coll_hash_shape *shape, struct coll **out)
{
    struct coll_hash_ent *ents = NULL;
    struct store_hash_it it;
    uint64_t n;
    int st;

    *out = NULL;
    if ((type != COLL_HASH && type != COLL_SET) || shape == NULL || shape->chunk_bytes == 0) {
        return TERSE_EINVAL;
    }
    if (len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    /* A record takes two bytes at least: a count past len / 2 is a lie, refused before the
     * array is allocated for it. */
    if (store_hash_open(form, len, &it, &n) != TERSE_OK || n == 0 || n > len / 2) {
        return TERSE_ECORRUPT;
    }
    ents = core_alloc((size_t)n * sizeof(*ents));
    if (ents == NULL) {
        return TERSE_ENOMEM;
    }
    st = ents_read(coll_env_seed(env), type == COLL_SET, form, len, ents, n);
    if (st == TERSE_OK) {
        coll_hash_ents_sort(ents, (size_t)n);
        st = ents_unique(form, ents, (size_t)n);
    }
    if (st == TERSE_OK) {
        st = coll_hash_create(env, type, shape, out);
    }
    if (st == TERSE_OK) {
        st = coll_hash_ents_cut(env, *out, form, ents, (size_t)n);
        if (st != TERSE_OK) {
            coll_destroy(env, *out);
            *out = NULL;
        }
    }
    core_free(ents);
    return st;
}

/* ---- lookups ----------------------------------------------------------------------------- */

/* The lookup of coll_hash_get and coll_hash_get_at: the place found goes in *at (NULL: kept
 * nowhere). */
static int lookup(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const uint8_t **val, size_t *vlen, struct coll_hash_at *at)
{
    struct store_hash_it fit;
    struct store_hash_kv kv;
    struct coll_it it;
    const uint8_t *form, *rec;
    size_t len;
    int st, rc;

    if (c->tree.n_chunks == 0) {
        return 0;
    }
    coll_hash_seek(c, coll_hash_of(c, field, flen), &it);
    st = coll_hash_chunk_open(env, coll_tree_desc(&it), &form, &len, &fit);
    if (st != TERSE_OK) {
        return st;
    }
    rc = store_hash_it_find(&fit, field, flen, &kv, &rec);
    if (rc < 0) {
        return coll_hash_corrupt(env);
    }
    if (at != NULL) {
        at->it = it;
        at->found = rc == 1;
        at->rs = at->found ? (size_t)(rec - form) : len;
        at->re = at->found ? (size_t)(kv.v + kv.vlen - form) : len;
        at->edits = c->tree.edits;
        at->set = true;
    }
    if (rc == 1) {
        if (val != NULL) {
            *val = kv.v;
        }
        if (vlen != NULL) {
            *vlen = kv.vlen;
        }
    }
    return rc;
}

int coll_hash_get(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                  const uint8_t **val, size_t *vlen)
{
    return lookup(env, c, field, flen, val, vlen, NULL);
}

int coll_hash_get_at(struct coll_env *env, struct coll *c, const uint8_t *field, size_t flen,
                     const uint8_t **val, size_t *vlen, struct coll_hash_at *at)
{
    at->set = false;
    return lookup(env, c, field, flen, val, vlen, at);
}
