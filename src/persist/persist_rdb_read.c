/*
 * persist_rdb_read: an RDB object (DUMP's payload) as a terse value.
 *
 * Strings come back as their bytes (an integer encoding as its decimal spelling: the command
 * layer decides what to hold as an integer, as Redis's tryObjectEncoding does). Collections are
 * rebuilt as terse byte forms in w->out:
 *
 *   list   the elements in order                          (store_list.h)
 *   hash   the pairs in the payload's order               (store_hash.h)
 *   set    members all integers: ascending, as an intset answers; else the payload's order
 *   zset   sorted by score then member                    (store_zset.h)
 *          (both gathered and sorted in persist_rdb_rsort.c)
 *   stream persist_rdb_rstream.c
 *
 * A list or hash form is built count-last: RDB_FORM_HEAD bytes are kept free for the count, which
 * is written at the end and the elements slid up to it once. The primitives (lengths, strings,
 * LZF) are in persist_rdb_rbase.c, the compact encodings' iterators in persist_rdb_blob.c.
 *
 * Every form is checked by the store's own checker before it is returned (a duplicate field,
 * member or an empty collection is TERSE_ECORRUPT), so nothing RESTORE stores can fail a later
 * read.
 *
 * An RDB file's load (persist_rdb_load.c) and RESTORE (persist_rdb_value_read_chunked) read a
 * big list, hash, set, sorted set or stream into its chunked container instead, a batch of the
 * form at a time (persist_rdb_rcoll.c): form_put (a set's and a sorted set's gathering in
 * persist_rdb_rsort.c) hands each element on, a stream's reader its nodes
 * (persist_rdb_rstream.c), and the value comes back as out->coll.
 */
#include "persist/persist_rdb_internal.h"

#include <stdio.h>
#include <string.h>

#include "codec/codec_varint.h"
#include "store/form/store_hash.h"
#include "store/form/store_list.h"
#include "store/form/store_zset.h"
#include "terse/status.h"

/* ---- forms ---------------------------------------------------------------------------------- */

static int form_start(struct rdb_r *r)
{
    static const uint8_t head[RDB_FORM_HEAD];

    r->w->out.len = 0;
    if (rdb_buf_put(&r->w->alloc, &r->w->out, head, RDB_FORM_HEAD) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    return TERSE_OK;
}

/* Appends one length-prefixed element. */
static int form_put(struct rdb_r *r, const uint8_t *p, size_t n)
{
    uint8_t v[10];
    size_t k = codec_varint_put(v, n);
    int st = rdb_buf_put(&r->w->alloc, &r->w->out, v, k);

    if (st == TERSE_OK) {
        st = rdb_buf_put(&r->w->alloc, &r->w->out, p, n);
    }
    if (st != TERSE_OK) {
        return rdb_r_fail(r, st, st == TERSE_ENOMEM ? "out of memory" : "value too large");
    }
    return r->co_kind != 0 ? rdb_coll_feed(r) : TERSE_OK;
}

static int form_put_elem(struct rdb_r *r, const struct rdb_elem *e)
{
    char num[24];
    const uint8_t *p;
    size_t n;

    rdb_elem_bytes(e, num, &p, &n);
    return form_put(r, p, n);
}

/* Writes the count before the elements. */
static void form_finish(struct rdb_r *r, uint64_t n)
{
    struct persist_rdb_buf *o = &r->w->out;
    uint8_t v[10];
    size_t k = codec_varint_put(v, n);

    memmove(o->p + k, o->p + RDB_FORM_HEAD, o->len - RDB_FORM_HEAD);
    memcpy(o->p, v, k);
    o->len = o->len - RDB_FORM_HEAD + k;
}

/* ---- lists and hashes ---------------------------------------------------------------------- */

/* Adds every element of a blob to the form; *n counts them. */
static int blob_to_form(struct rdb_r *r, enum rdb_blob_kind kind, const struct rdb_str *b,
                        uint64_t *n)
{
    struct rdb_blob_it it;
    struct rdb_elem e;
    int rc;

    if (rdb_blob_open(&it, kind, b->p, b->len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a compact encoding's header is wrong");
    }
    while ((rc = rdb_blob_next(&it, &e)) == 1) {
        if (form_put_elem(r, &e) != TERSE_OK) {
            return r->st;
        }
        (*n)++;
    }
    return rc < 0 ? rdb_r_fail(r, TERSE_ECORRUPT, "a compact encoding is corrupt") : TERSE_OK;
}

static int read_blob(struct rdb_r *r, struct rdb_str *b)
{
    return rdb_r_string(r, b, &r->w->blob);
}

/* n strings (RDB_TYPE_LIST, RDB_TYPE_HASH: 2 per pair) into the form. */
static int plain_to_form(struct rdb_r *r, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        struct rdb_str s;
        if (rdb_r_string(r, &s, &r->w->str) != TERSE_OK || form_put(r, s.p, s.len) != TERSE_OK) {
            return r->st;
        }
    }
    return TERSE_OK;
}

static int read_list(struct rdb_r *r, int type, uint64_t *count)
{
    uint64_t n_nodes;
    struct rdb_str b;

    if (type == RDB_TYPE_LIST) {
        if (rdb_r_count(r, count, 1) != TERSE_OK) {
            return r->st;
        }
        return plain_to_form(r, *count);
    }
    if (type == RDB_TYPE_LIST_ZIPLIST) {
        return read_blob(r, &b) != TERSE_OK ? r->st : blob_to_form(r, RDB_BLOB_ZIPLIST, &b, count);
    }
    if (rdb_r_count(r, &n_nodes, 1) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t i = 0; i < n_nodes; i++) {
        uint64_t container = RDB_QUICKLIST_PACKED;

        if (type == RDB_TYPE_LIST_QUICKLIST_2 && rdb_r_len(r, &container, NULL) != TERSE_OK) {
            return r->st;
        }
        if (read_blob(r, &b) != TERSE_OK) {
            return r->st;
        }
        if (container == RDB_QUICKLIST_PLAIN) {
            if (form_put(r, b.p, b.len) != TERSE_OK) {
                return r->st;
            }
            (*count)++;
        } else if (container != RDB_QUICKLIST_PACKED) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "unknown quicklist container");
        } else if (blob_to_form(r, type == RDB_TYPE_LIST_QUICKLIST ? RDB_BLOB_ZIPLIST
                                                                   : RDB_BLOB_LISTPACK,
                                &b, count) != TERSE_OK) {
            return r->st;
        }
    }
    return TERSE_OK;
}

static int read_hash(struct rdb_r *r, int type, uint64_t *count)
{
    struct rdb_str b;
    uint64_t n = 0;

    if (type == RDB_TYPE_HASH) {
        if (rdb_r_count(r, count, 2) != TERSE_OK) {
            return r->st;
        }
        return plain_to_form(r, *count * 2);
    }
    if (read_blob(r, &b) != TERSE_OK ||
        blob_to_form(r, type == RDB_TYPE_HASH_ZIPMAP    ? RDB_BLOB_ZIPMAP
                        : type == RDB_TYPE_HASH_ZIPLIST ? RDB_BLOB_ZIPLIST
                                                        : RDB_BLOB_LISTPACK,
                     &b, &n) != TERSE_OK) {
        return r->st;
    }
    if (n % 2 != 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a field without its value");
    }
    *count = n / 2;
    return TERSE_OK;
}

/* ---- the object ------------------------------------------------------------------------------ */

static int read_collection(struct rdb_r *r, uint8_t type, struct persist_rdb_value *out)
{
    uint64_t n = 0;
    int st;

    r->w->elems.len = 0;
    r->w->arr.len = 0;
    switch (type) {
    case RDB_TYPE_LIST:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        out->type = STORE_TYPE_LIST;
        rdb_coll_begin(r, STORE_TYPE_LIST);
        if (form_start(r) != TERSE_OK || read_list(r, type, &n) != TERSE_OK) {
            return r->st;
        }
        if (r->co != NULL) {
            return rdb_coll_end(r);
        }
        form_finish(r, n);
        st = store_list_check(r->w->out.p, r->w->out.len);
        break;
    case RDB_TYPE_HASH:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        out->type = STORE_TYPE_HASH;
        rdb_coll_begin(r, STORE_TYPE_HASH);
        if (form_start(r) != TERSE_OK || read_hash(r, type, &n) != TERSE_OK) {
            return r->st;
        }
        if (r->co != NULL) {
            return rdb_coll_end(r);
        }
        form_finish(r, n);
        st = store_hash_check(r->w->out.p, r->w->out.len);
        break;
    case RDB_TYPE_SET:
    case RDB_TYPE_SET_INTSET:
        out->type = STORE_TYPE_SET;
        rdb_coll_begin(r, STORE_TYPE_SET);
        if (rdb_read_set(r, type, &n) != TERSE_OK) {
            return r->st;
        }
        if (r->co != NULL) {
            return rdb_coll_end(r);
        }
        st = n == 0 ? TERSE_ECORRUPT : store_hash_check(r->w->out.p, r->w->out.len);
        break;
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
        out->type = STORE_TYPE_ZSET;
        rdb_coll_begin(r, STORE_TYPE_ZSET);
        if (rdb_read_zset(r, type, &n) != TERSE_OK) {
            return r->st;
        }
        if (r->co != NULL) {
            return rdb_coll_end(r);
        }
        st = store_zset_check(r->w->out.p, r->w->out.len);
        break;
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
        out->type = STORE_TYPE_STREAM;
        rdb_coll_begin(r, STORE_TYPE_STREAM);
        return rdb_read_stream(r, type);
    default:
        return rdb_r_fail(r, TERSE_ECORRUPT, "a type terse does not hold");
    }
    if (st != TERSE_OK) {
        /* duplicate fields or members, an empty collection */
        return rdb_r_fail(r, TERSE_ECORRUPT, "duplicate elements or an empty collection");
    }
    if (r->w->out.len > CODEC_VALUE_MAX) {
        return rdb_r_fail(r, TERSE_ETOOBIG, "value too large");
    }
    return TERSE_OK;
}

int rdb_value_read(struct persist_rdb_work *w, const struct persist_rdb_chunking *ck, int type,
                   const uint8_t *base, const uint8_t *p, const uint8_t *end,
                   struct persist_rdb_value *out, struct persist_error *err)
{
    struct rdb_r r = {.start = base, .p = p, .end = end, .w = w, .st = TERSE_OK, .ck = ck};
    uint8_t t = (uint8_t)type;

    memset(out, 0, sizeof(*out));
    if (type >= 0 || rdb_r_byte(&r, &t) == TERSE_OK) {
        type = t;
        if (type == RDB_TYPE_STRING) {
            struct rdb_str s;
            out->type = STORE_TYPE_STRING;
            if (rdb_r_string(&r, &s, &w->out) == TERSE_OK) {
                if (s.p == (const uint8_t *)s.num) {
                    /* an integer encoding: its spelling must outlive s */
                    w->out.len = 0;
                    if (rdb_buf_put(&w->alloc, &w->out, s.num, s.len) != TERSE_OK) {
                        rdb_r_fail(&r, TERSE_ENOMEM, "out of memory");
                    }
                    s.p = w->out.p;
                }
                out->p = s.p;
                out->len = s.len;
            }
        } else if (read_collection(&r, type, out) == TERSE_OK && r.co != NULL) {
            out->coll = r.co;
            out->env = ck->env;
        } else if (r.st == TERSE_OK) {
            out->p = w->out.p;
            out->len = w->out.len;
        }
    }
    if (r.st != TERSE_OK) {
        rdb_coll_abort(&r);
        memset(out, 0, sizeof(*out));
        if (err != NULL) {
            err->offset = r.err_off;
            snprintf(err->reason, sizeof(err->reason), "%s", r.why);
        }
    }
    return r.st;
}

int persist_rdb_value_read(struct persist_rdb_work *w, const uint8_t *obj, size_t len,
                           struct persist_rdb_value *out, struct persist_error *err)
{
    return persist_rdb_value_read_chunked(w, NULL, obj, len, out, err);
}

int persist_rdb_value_read_chunked(struct persist_rdb_work *w,
                                   const struct persist_rdb_chunking *ck, const uint8_t *obj,
                                   size_t len, struct persist_rdb_value *out,
                                   struct persist_error *err)
{
    return rdb_value_read(w, ck, -1, obj, obj, obj + len, out, err);
}
