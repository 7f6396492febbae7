/*
 * persist_rdb_rsort: sets and sorted sets read from RDB, gathered then sorted.
 *
 * Members are gathered in w->elems (bytes) and w->arr (records holding offsets into
 * w->elems, turned into pointers once w->elems stops growing), then sorted with
 * store_zset_sort (heapsort, no allocation): a set whose members are all integers in
 * ascending order (as an intset answers, and as terse keeps such a set: cmd_set_store.c),
 * other sets in the payload's order; a sorted set by score then member. The form is written
 * into w->out by the store's own writers. A big set or sorted set of an RDB file's load or of
 * RESTORE goes into its chunked container instead once its members pass a batch
 * (persist_rdb_rcoll.c).
 */
#include "persist/persist_rdb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "store/form/store_set.h"
#include "store/form/store_zset.h"
#include "terse/status.h"

static int read_blob(struct rdb_r *r, struct rdb_str *b)
{
    return rdb_r_string(r, b, &r->w->blob);
}

/* ---- sets and sorted sets: gathered, then sorted ------------------------------------------- */

/* Copies n bytes into w->elems; *off gets where they start. */
static int keep(struct rdb_r *r, const uint8_t *p, size_t n, size_t *off)
{
    int st;

    *off = r->w->elems.len;
    /* room for one more byte: elems.p is never NULL once a member, even an empty one, is kept */
    st = rdb_buf_reserve(&r->w->alloc, &r->w->elems, r->w->elems.len + 1);
    if (st == TERSE_OK) {
        st = rdb_buf_put(&r->w->alloc, &r->w->elems, p, n);
    }
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

static int add_rec(struct rdb_r *r, const void *rec, size_t size)
{
    int st = rdb_buf_put(&r->w->alloc, &r->w->arr, rec, size);
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

static int cmp_num(const void *a, const void *b)
{
    const struct store_set_num *x = a, *y = b;
    return x->v < y->v ? -1 : x->v > y->v;
}

static int cmp_zel(const void *a, const void *b)
{
    return store_zset_cmp(a, b);
}

/* The members gathered so far (records of size bytes in w->arr, over w->elems) into a new
 * container (persist_rdb_rcoll.c), each by put: the set's or sorted set's bytes passed the
 * batch. */
static int gathered_to_coll(struct rdb_r *r, size_t size,
                            int (*put)(struct rdb_r *r, const uint8_t *rec))
{
    if (rdb_coll_start(r) != TERSE_OK) {
        return r->st;
    }
    for (size_t at = 0; at + size <= r->w->arr.len; at += size) {
        if (put(r, r->w->arr.p + at) != TERSE_OK) {
            return r->st;
        }
    }
    r->w->elems.len = 0;
    r->w->arr.len = 0;
    return TERSE_OK;
}

static int set_rec_put(struct rdb_r *r, const uint8_t *rec)
{
    struct store_set_num m;

    memcpy(&m, rec, sizeof(m));
    return rdb_coll_put(r, r->w->elems.p + (uintptr_t)m.kv.f, m.kv.flen, NULL, 0);
}

/* One member: kept with its integer value when it is one, or put in the container. */
static int set_member(struct rdb_r *r, const uint8_t *p, size_t n, bool *all_int)
{
    struct store_set_num m = {.kv = {.flen = n}};
    size_t off;

    if (r->co != NULL) {
        return rdb_coll_put(r, p, n, NULL, 0);
    }
    if (*all_int && !rdb_parse_ll(p, n, &m.v)) {
        *all_int = false;
    }
    if (keep(r, p, n, &off) != TERSE_OK) {
        return r->st;
    }
    m.kv.f = (const uint8_t *)(uintptr_t)off; /* an offset until elems stops growing */
    if (add_rec(r, &m, sizeof(m)) != TERSE_OK) {
        return r->st;
    }
    return r->co_kind != 0 && r->w->elems.len >= r->co_batch
               ? gathered_to_coll(r, sizeof(m), set_rec_put)
               : TERSE_OK;
}

int rdb_read_set(struct rdb_r *r, int type, uint64_t *count)
{
    struct store_set_num *a;
    struct store_hash_kv *kv;
    bool all_int = true;
    struct rdb_str s;
    size_t n, size;
    int rc;

    if (type == RDB_TYPE_SET) {
        if (rdb_r_count(r, count, 1) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t i = 0; i < *count; i++) {
            if (rdb_r_string(r, &s, &r->w->str) != TERSE_OK ||
                set_member(r, s.p, s.len, &all_int) != TERSE_OK) {
                return r->st;
            }
        }
    } else {
        struct rdb_blob_it it;
        struct rdb_elem e;

        if (read_blob(r, &s) != TERSE_OK) {
            return r->st;
        }
        if (rdb_blob_open(&it, RDB_BLOB_INTSET, s.p, s.len) != TERSE_OK) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "an intset's header is wrong");
        }
        while ((rc = rdb_blob_next(&it, &e)) == 1) {
            char num[24];
            const uint8_t *p;
            size_t len;
            rdb_elem_bytes(&e, num, &p, &len);
            if (set_member(r, p, len, &all_int) != TERSE_OK) {
                return r->st;
            }
        }
        if (rc < 0) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "an intset is corrupt");
        }
    }
    if (r->co != NULL) {
        *count = coll_count(r->co);
        return TERSE_OK;
    }
    a = (struct store_set_num *)(void *)r->w->arr.p;
    n = r->w->arr.len / sizeof(*a);
    *count = n;
    for (size_t i = 0; i < n; i++) {
        a[i].kv.f = r->w->elems.p + (uintptr_t)a[i].kv.f;
        a[i].kv.v = NULL;
        a[i].kv.vlen = 0;
    }
    if (all_int) {
        store_zset_sort(a, n, sizeof(*a), cmp_num);
    }
    /* The members as an array of store_hash_kv, in place: each kv is the head of its
     * store_set_num, so a compacting copy front to back never overwrites one unread. */
    kv = (struct store_hash_kv *)(void *)a;
    for (size_t i = 0; i < n; i++) {
        struct store_hash_kv m = a[i].kv;
        kv[i] = m;
    }
    size = store_set_form_size(kv, n);
    r->w->out.len = 0;
    if (size > CODEC_VALUE_MAX) {
        return rdb_r_fail(r, TERSE_ETOOBIG, "value too large");
    }
    if (rdb_buf_reserve(&r->w->alloc, &r->w->out, size) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    if (store_set_form_write(kv, n, r->w->out.p, r->w->out.cap, &r->w->out.len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a set that cannot be written");
    }
    return TERSE_OK;
}

/* A score written as a string (RDB_TYPE_ZSET, ziplist and listpack members). */
static int parse_score(const uint8_t *p, size_t n, double *d)
{
    char buf[128];
    char *end;

    if (n == 0 || n >= sizeof(buf)) {
        return TERSE_ECORRUPT;
    }
    memcpy(buf, p, n);
    buf[n] = '\0';
    *d = strtod(buf, &end);
    return end == buf + n ? TERSE_OK : TERSE_ECORRUPT;
}

static int zset_rec_put(struct rdb_r *r, const uint8_t *rec)
{
    struct store_zset_el el;

    memcpy(&el, rec, sizeof(el));
    return rdb_coll_zadd(r, r->w->elems.p + (uintptr_t)el.m, el.mlen, el.score);
}

static int zset_member(struct rdb_r *r, const uint8_t *p, size_t n, double score)
{
    struct store_zset_el el = {.mlen = n, .score = score};
    size_t off;

    if (isnan(score)) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a NaN score");
    }
    if (r->co != NULL) {
        return rdb_coll_zadd(r, p, n, score);
    }
    if (keep(r, p, n, &off) != TERSE_OK) {
        return r->st;
    }
    el.m = (const uint8_t *)(uintptr_t)off; /* an offset until elems stops growing */
    if (add_rec(r, &el, sizeof(el)) != TERSE_OK) {
        return r->st;
    }
    return r->co_kind != 0 && r->w->elems.len >= r->co_batch
               ? gathered_to_coll(r, sizeof(el), zset_rec_put)
               : TERSE_OK;
}

static int zset_plain(struct rdb_r *r, int type)
{
    uint64_t n;

    if (rdb_r_count(r, &n, type == RDB_TYPE_ZSET_2 ? 9 : 2) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str s;
        const uint8_t *p;
        double d;
        uint8_t b;

        if (rdb_r_string(r, &s, &r->w->str) != TERSE_OK) {
            return r->st;
        }
        if (type == RDB_TYPE_ZSET_2) {
            uint64_t u;
            if (rdb_r_raw(r, &p, 8) != TERSE_OK) {
                return r->st;
            }
            u = rdb_get_le(p, 8);
            memcpy(&d, &u, sizeof(d));
        } else {
            /* 253 NaN, 254 +inf, 255 -inf, else the length of its spelling */
            if (rdb_r_byte(r, &b) != TERSE_OK) {
                return r->st;
            }
            if (b == 253) {
                d = NAN;
            } else if (b >= 254) {
                d = b == 254 ? INFINITY : -INFINITY;
            } else if (rdb_r_raw(r, &p, b) != TERSE_OK) {
                return r->st;
            } else if (parse_score(p, b, &d) != TERSE_OK) {
                return rdb_r_fail(r, TERSE_ECORRUPT, "a score that is no number");
            }
        }
        if (zset_member(r, s.p, s.len, d) != TERSE_OK) {
            return r->st;
        }
    }
    return TERSE_OK;
}

static int zset_blob(struct rdb_r *r, int type)
{
    struct rdb_blob_it it;
    struct rdb_elem m, sc;
    struct rdb_str b;
    int rc;

    if (read_blob(r, &b) != TERSE_OK) {
        return r->st;
    }
    if (rdb_blob_open(&it, type == RDB_TYPE_ZSET_ZIPLIST ? RDB_BLOB_ZIPLIST : RDB_BLOB_LISTPACK,
                      b.p, b.len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a compact encoding's header is wrong");
    }
    while ((rc = rdb_blob_next(&it, &m)) == 1) {
        char num[24];
        const uint8_t *p;
        size_t n;
        double d;

        if (rdb_blob_next(&it, &sc) != 1) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a member without its score");
        }
        if (sc.is_int) {
            d = (double)sc.v;
        } else if (parse_score(sc.p, sc.len, &d) != TERSE_OK) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a score that is no number");
        }
        rdb_elem_bytes(&m, num, &p, &n);
        if (zset_member(r, p, n, d) != TERSE_OK) {
            return r->st;
        }
    }
    return rc < 0 ? rdb_r_fail(r, TERSE_ECORRUPT, "a compact encoding is corrupt") : TERSE_OK;
}

int rdb_read_zset(struct rdb_r *r, int type, uint64_t *count)
{
    struct store_zset_el *a;
    size_t n, size;
    int st = type == RDB_TYPE_ZSET || type == RDB_TYPE_ZSET_2 ? zset_plain(r, type)
                                                             : zset_blob(r, type);

    if (st != TERSE_OK) {
        return st;
    }
    if (r->co != NULL) {
        *count = coll_count(r->co);
        return TERSE_OK;
    }
    a = (struct store_zset_el *)(void *)r->w->arr.p;
    n = r->w->arr.len / sizeof(*a);
    *count = n;
    for (size_t i = 0; i < n; i++) {
        a[i].m = r->w->elems.p + (uintptr_t)a[i].m;
    }
    store_zset_sort(a, n, sizeof(*a), cmp_zel);
    size = store_zset_form_size(a, n);
    r->w->out.len = 0;
    if (size > CODEC_VALUE_MAX) {
        return rdb_r_fail(r, TERSE_ETOOBIG, "value too large");
    }
    if (rdb_buf_reserve(&r->w->alloc, &r->w->out, size) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    if (store_zset_form_write(a, n, r->w->out.p, r->w->out.cap, &r->w->out.len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a sorted set that cannot be written");
    }
    return TERSE_OK;
}
