/*
 * persist_rdb_rcoll: a big list, hash, set, sorted set or stream of an RDB file or a RESTORE
 * built into its chunked container (coll/) while it is read, so a load needs a batch of its
 * form beside the container instead of the whole form, its copies and the after-load pass's
 * conversion.
 *
 * The reader starts every such value as a form in w->out (persist_rdb_read.c; a set's or sorted
 * set's members in w->elems: persist_rdb_rsort.c). Once that form passes a batch
 * (RDB_COLL_BATCH or ck->batch, and two chunks at least), the value is one the after-load pass
 * would chunk anyway (a list past a chunk; a hash, set or sorted set past terse-chunk-bytes,
 * which that pass keeps chunked when Redis would hold a table and makes one value again when it
 * would not: unchunk_one), so the container is made and the form so far goes into it:
 *
 *   list  runs of element records appended as chunks (coll_list_append_run), cut exactly where
 *         coll_list_from_form cuts the whole form; what is left of a run waits for the next
 *   hash  each pair put as HSET puts it (coll_hash_put, NX: a field twice is TERSE_ECORRUPT;
 *         BULK: chunks cut at a bulk build's size, not the hot size)
 *   set   each member put likewise (SADD)
 *   zset  each member added as ZADD NX adds it (coll_zset_add: its order and member map)
 *
 *   stream  (persist_rdb_rstream.c: its nodes' records gathered past the batch, with a node
 *         still to come, so two at least) each of the file's nodes appended whole as one
 *         chunk (coll_stream_append_node), its live, slots and lp as the form's node would
 *         have them, and every node after it as soon as it is read; at the end the groups,
 *         consumers and pending entries (a model of them alone, far smaller than the entries)
 *         become the meta and the groups' PELs
 *
 * The form bytes moved are counted, so a value past CODEC_VALUE_MAX is still TERSE_ETOOBIG, as
 * its form would be. On any failure the caller frees the container (rdb_coll_abort): a value
 * read is whole or nothing.
 */
#include "persist/persist_rdb_internal.h"

#include <string.h>

#include "codec/codec_varint.h"
#include "coll/coll.h"
#include "coll/coll_stream.h"
#include "coll/coll_zset.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* Form bytes gathered before a container is made, and moved into a list's at a time. A value
 * under it loads as a form and is cut by the after-load pass's bulk build, which is 2-3x
 * faster than puts one by one (RESTORE of a 20,000-field hash: 6 ms against 15 ms) and leaves
 * the chunks compact; a bigger value costs a batch beside its container, never its whole form
 * (a 1M-field hash's form is 46 MB). */
#define RDB_COLL_BATCH ((size_t)1024 * 1024)

void rdb_coll_begin(struct rdb_r *r, enum store_type t)
{
    uint32_t chunk;
    size_t batch;

    r->co_kind = 0;
    r->co_form = 0;
    r->co_pend = 0;
    r->co_nodes = 0;
    if (r->ck == NULL || r->ck->env == NULL ||
        (t != STORE_TYPE_LIST && t != STORE_TYPE_HASH && t != STORE_TYPE_SET &&
         t != STORE_TYPE_ZSET && t != STORE_TYPE_STREAM)) {
        return;
    }
    chunk = t == STORE_TYPE_LIST ? r->ck->list.chunk_bytes : r->ck->elems.chunk_bytes;
    r->co_kind = (int)t;
    batch = r->ck->batch != 0 ? r->ck->batch : RDB_COLL_BATCH;
    /* past two chunks: the after-load pass would chunk the value (or unchunk_one decides) */
    r->co_batch = batch > (size_t)chunk * 2 ? batch : (size_t)chunk * 2;
}

int rdb_coll_start(struct rdb_r *r)
{
    struct coll_zset_shape zs = {r->ck->elems.chunk_bytes}; /* as the after-load pass cuts */
    int st = r->co_kind == STORE_TYPE_LIST ? coll_list_create(r->ck->env, &r->ck->list, &r->co)
             : r->co_kind == STORE_TYPE_STREAM
                 ? coll_stream_create(r->ck->env, r->ck->elems.chunk_bytes, &r->co)
             : r->co_kind == STORE_TYPE_ZSET
                 ? coll_zset_create(r->ck->env, &zs, &r->co)
                 : coll_hash_create(r->ck->env,
                                    r->co_kind == STORE_TYPE_SET ? COLL_SET : COLL_HASH,
                                    &r->ck->elems, &r->co);
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

static int fail_put(struct rdb_r *r, int st)
{
    return rdb_r_fail(r, st,
                      st == TERSE_ECORRUPT  ? "duplicate elements or an empty collection"
                      : st == TERSE_ETOOBIG ? "value too large"
                                            : "out of memory");
}

/* The form bytes moved so far, against the limit the whole form has. */
static int count_form(struct rdb_r *r, size_t n)
{
    r->co_form += n;
    return r->co_form > CODEC_VALUE_MAX ? fail_put(r, TERSE_ETOOBIG) : TERSE_OK;
}

int rdb_coll_put(struct rdb_r *r, const uint8_t *f, size_t flen, const uint8_t *v, size_t vlen)
{
    enum coll_hash_result res = COLL_HASH_UNTOUCHED;
    int st = coll_hash_put(r->ck->env, r->co, f, flen, v, vlen, COLL_HASH_NX | COLL_HASH_BULK,
                           &res);

    if (st == TERSE_OK && res != COLL_HASH_ADDED) {
        st = TERSE_ECORRUPT; /* the field was there: a duplicate, as store_hash_check says */
    }
    if (st != TERSE_OK) {
        return fail_put(r, st);
    }
    return count_form(r, codec_varint_len(flen) + flen + codec_varint_len(vlen) + vlen);
}

int rdb_coll_zadd(struct rdb_r *r, const uint8_t *m, size_t mlen, double score)
{
    enum coll_zset_result res = COLL_ZSET_UNTOUCHED;
    double old;
    int st = coll_zset_add(r->ck->env, r->co, m, mlen, score, COLL_ZSET_NX, &res, &old);

    if (st == TERSE_OK && res != COLL_ZSET_ADDED) {
        st = TERSE_ECORRUPT; /* the member was there: a duplicate, as store_zset_check says */
    }
    if (st != TERSE_OK) {
        return fail_put(r, st);
    }
    /* its record in the zset form: the member, then its score as an 8-byte value */
    return count_form(r, codec_varint_len(mlen) + mlen + 1 + sizeof(double));
}

/* The pairs waiting in w->out (a field without its value yet stays) into the hash. */
static int put_pairs(struct rdb_r *r)
{
    struct persist_rdb_buf *o = &r->w->out;
    const uint8_t *p = o->p + RDB_FORM_HEAD, *end = o->p + o->len;

    for (; r->co_pend >= 2; r->co_pend -= 2) {
        uint64_t fl = 0, vl = 0;
        const uint8_t *f, *v;
        /* w->out holds records form_put wrote: they parse */
        (void)store_varint_read(&p, end, &fl);
        f = p;
        p += fl;
        (void)store_varint_read(&p, end, &vl);
        v = p;
        p += vl;
        if (rdb_coll_put(r, f, (size_t)fl, v, (size_t)vl) != TERSE_OK) {
            return r->st;
        }
    }
    memmove(o->p + RDB_FORM_HEAD, p, (size_t)(end - p));
    o->len = RDB_FORM_HEAD + (size_t)(end - p);
    return TERSE_OK;
}

/* The list's element records in w->out appended as chunks; final: all of them. */
static int put_run(struct rdb_r *r, bool final)
{
    struct persist_rdb_buf *o = &r->w->out;
    size_t n = o->len - RDB_FORM_HEAD, used = 0;
    int st = coll_list_append_run(r->ck->env, r->co, o->p + RDB_FORM_HEAD, n, final, &used);

    if (st != TERSE_OK) {
        return fail_put(r, st);
    }
    memmove(o->p + RDB_FORM_HEAD, o->p + RDB_FORM_HEAD + used, n - used);
    o->len -= used;
    r->co_pend = 0;
    return count_form(r, used);
}

int rdb_coll_feed(struct rdb_r *r)
{
    r->co_pend++;
    /* a hash's pairs go in as they complete; a list's elements a batch at a time */
    if (r->w->out.len - RDB_FORM_HEAD < r->co_batch &&
        (r->co == NULL || r->co_kind != STORE_TYPE_HASH)) {
        return TERSE_OK;
    }
    if (r->co == NULL && rdb_coll_start(r) != TERSE_OK) {
        return r->st;
    }
    return r->co_kind == STORE_TYPE_LIST ? put_run(r, false) : put_pairs(r);
}

int rdb_coll_end(struct rdb_r *r)
{
    if (r->co_kind == STORE_TYPE_LIST) {
        if (put_run(r, true) != TERSE_OK) {
            return r->st;
        }
    } else if (r->co_kind == STORE_TYPE_HASH && put_pairs(r) != TERSE_OK) {
        return r->st;
    }
    if (r->co_pend != 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a field without its value");
    }
    return count_form(r, codec_varint_len(coll_count(r->co)));
}

/* ---- streams --------------------------------------------------------------------------------- */

/* One whole node (nd, its entries in w->str) into the stream, counted as the form's. */
static int put_node(struct rdb_r *r, const struct store_stream_node *nd)
{
    const struct store_stream_entry *ents = (const struct store_stream_entry *)(void *)r->w->str.p;
    size_t n = codec_varint_len(nd->live) + codec_varint_len(nd->slots) + codec_varint_len(nd->lp);
    int st;

    for (size_t i = 0; i < nd->live; i++) {
        n += store_stream_entry_size(&ents[i]);
    }
    if (count_form(r, n) != TERSE_OK) {
        return r->st;
    }
    st = coll_stream_append_node(r->ck->env, r->co, nd, ents);
    r->co_nodes++;
    return st == TERSE_OK ? TERSE_OK : fail_put(r, st);
}

int rdb_coll_stream_nodes(struct rdb_r *r)
{
    const struct srec *recs = (const struct srec *)(const void *)r->w->arr.p;
    size_t n = r->w->arr.len / sizeof(*recs);
    const uint8_t *base = r->w->elems.p;
    struct persist_rdb_buf *eb = &r->w->str; /* free between strings: a node's entries */
    struct store_stream_node nd = {0, 0, 0};

    if (r->co == NULL && rdb_coll_start(r) != TERSE_OK) {
        return r->st;
    }
    for (size_t i = 0; i < n; i++) {
        const struct srec *x = &recs[i];
        struct store_stream_entry e = {x->id, x->n, base + x->off, x->len}, *ents;

        if (x->kind == SREC_NODE) {
            nd.live = 0;
            nd.lp = 0;
            eb->len = 0;
        } else if (x->kind == SREC_NODE_END) {
            nd.slots = nd.live + (size_t)x->a; /* read_node refuses a node with no entry */
            if (put_node(r, &nd) != TERSE_OK) {
                return r->st;
            }
        } else {
            if (r->co_pend > 0 && store_stream_id_cmp(&r->co_last, &e.id) >= 0) {
                return rdb_r_fail(r, TERSE_ECORRUPT, "a stream's IDs or names are out of order");
            }
            if (rdb_buf_put(&r->w->alloc, eb, &e, sizeof(e)) != TERSE_OK) {
                return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
            }
            ents = (struct store_stream_entry *)(void *)eb->p;
            /* the listpack's size as store_stream_append counts it: the first live entry is
             * the master */
            nd.lp += store_stream_lp_add(nd.live == 0 ? NULL : &ents[0], &e);
            nd.live++;
            r->co_first = r->co_pend == 0 ? e.id : r->co_first;
            r->co_last = e.id;
            r->co_pend++;
        }
    }
    r->w->arr.len = 0;
    r->w->elems.len = 0;
    return TERSE_OK;
}

int rdb_coll_stream_end(struct rdb_r *r, const struct store_stream *s)
{
    int st;

    if (store_stream_id_cmp(&r->co_last, &s->last_id) > 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream's IDs or names are out of order");
    }
    /* the rest of the whole form: its head and groups (the model's form less its two zero
     * counts) and the counts of its entries and nodes */
    if (count_form(r, store_stream_size(s) - 2 + codec_varint_len(r->co_pend) +
                          codec_varint_len(r->co_nodes)) != TERSE_OK) {
        return r->st;
    }
    st = coll_stream_meta_store(r->ck->env, r->co, s);
    if (st == TERSE_OK) {
        st = coll_stream_pels_from_model(r->ck->env, r->co, s);
    }
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

void rdb_coll_abort(struct rdb_r *r)
{
    if (r->co != NULL) {
        coll_destroy(r->ck->env, r->co);
        r->co = NULL;
    }
}
