/*
 * persist_rdb_rstream: RDB_TYPE_STREAM_LISTPACKS (1) and _2 as a terse stream form
 * (store_stream.h; the RDB layout is in persist_rdb_wstream.c).
 *
 * Two phases. Phase A reads the payload: every byte a form keeps (an entry's pairs in the
 * form's (len | bytes) spelling, group and consumer names) goes to w->elems, and one record
 * per thing (listpack start and end, entry, group, PEL entry, consumer, consumer's PEL ID) to
 * w->arr, with offsets into w->elems since it may still move. Phase B, once w->elems is
 * still, builds the model (store_stream.h) from the records with real pointers: entries
 * appended node by node (a listpack is a node; its deleted entries count in its slots),
 * groups and consumers inserted by name (a name twice is corrupt), and each PEL entry given
 * the consumer whose own PEL names it (an entry no consumer or two consumers claim is
 * corrupt: terse keeps an owner for each). The model is encoded into w->out and the form
 * decoded once more, which checks every order and count, before it is returned.
 *
 * A big stream (an RDB file's load or RESTORE with r->ck: rdb_coll_begin armed it) does not
 * gather its entries: once phase A's records pass the batch with a node still to come, the
 * nodes read so far go into a chunked stream, and each node after them as soon as it is read
 * (rdb_coll_stream_nodes), so w->arr and w->elems hold a node at a time; phase B then builds a
 * model of the groups alone, checked as above, which becomes the stream's meta and PELs
 * (rdb_coll_stream_end).
 *
 * Version 1 payloads carry no entries-added, max-deleted or entries-read: entries-added is
 * the length, max-deleted 0-0, and a group's entries-read is estimated as Redis 7.0 does
 * (streamEstimateDistanceFromFirstEverEntry).
 */
#include "persist/persist_rdb_internal.h"

#include <string.h>

#include "codec/codec_varint.h"
#include "terse/status.h"

static int rec(struct rdb_r *r, const struct srec *s)
{
    int st = rdb_buf_put(&r->w->alloc, &r->w->arr, s, sizeof(*s));
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

static int keep_bytes(struct rdb_r *r, const uint8_t *p, size_t n, bool prefixed)
{
    uint8_t v[10];
    size_t k = codec_varint_put(v, n);
    /* room for one more byte: elems.p is never NULL once a name, even an empty one, is kept */
    int st = rdb_buf_reserve(&r->w->alloc, &r->w->elems, r->w->elems.len + 1);

    if (st == TERSE_OK && prefixed) {
        st = rdb_buf_put(&r->w->alloc, &r->w->elems, v, k);
    }

    if (st == TERSE_OK) {
        st = rdb_buf_put(&r->w->alloc, &r->w->elems, p, n);
    }
    return st == TERSE_OK ? TERSE_OK : rdb_r_fail(r, st, "out of memory");
}

static int lp_int(struct rdb_r *r, struct rdb_blob_it *it, long long *v)
{
    struct rdb_elem e;

    if (rdb_blob_next(it, &e) != 1 || !rdb_elem_int(&e, v)) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream listpack is corrupt");
    }
    return TERSE_OK;
}

static int lp_keep(struct rdb_r *r, const struct rdb_elem *e)
{
    char num[24];
    const uint8_t *p;
    size_t n;

    rdb_elem_bytes(e, num, &p, &n);
    return keep_bytes(r, p, n, true);
}

/* One entry after its flags: ID deltas, fields (or the master's), values, lp-count. */
static int lp_entry(struct rdb_r *r, struct rdb_blob_it *it, long long flags,
                    const struct store_stream_id *master, const struct rdb_elem *mf,
                    long long n_mf, uint64_t *deleted)
{
    struct srec s = {.kind = SREC_ENTRY, .off = r->w->elems.len};
    long long dms, dseq, nf = n_mf, lp_count;
    struct rdb_elem f, v;
    bool same = (flags & STREAM_FLAG_SAMEFIELDS) != 0;

    if (lp_int(r, it, &dms) != TERSE_OK || lp_int(r, it, &dseq) != TERSE_OK ||
        (!same && lp_int(r, it, &nf) != TERSE_OK)) {
        return r->st;
    }
    if (nf < 1 || (uint64_t)nf > (uint64_t)(it->end - it->p)) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream entry's field count is wrong");
    }
    for (long long i = 0; i < nf; i++) {
        if (!same && rdb_blob_next(it, &f) != 1) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a stream listpack is corrupt");
        }
        if (rdb_blob_next(it, &v) != 1) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a stream listpack is corrupt");
        }
        if (lp_keep(r, same ? &mf[i] : &f) != TERSE_OK || lp_keep(r, &v) != TERSE_OK) {
            return r->st;
        }
    }
    if (lp_int(r, it, &lp_count) != TERSE_OK) {
        return r->st;
    }
    if (lp_count != nf + 3 + (same ? 0 : nf + 1)) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream entry's lp-count is wrong");
    }
    if (flags & STREAM_FLAG_DELETED) {
        r->w->elems.len = s.off;
        (*deleted)++;
        return TERSE_OK;
    }
    s.id.ms = master->ms + (uint64_t)dms;
    s.id.seq = master->seq + (uint64_t)dseq;
    s.n = (uint64_t)nf;
    s.len = r->w->elems.len - s.off;
    return rec(r, &s);
}

/* One listpack node: master ID, then the listpack. */
static int read_node(struct rdb_r *r, uint64_t *n_live)
{
    struct rdb_str key, lp;
    struct rdb_blob_it it;
    struct store_stream_id master = {0, 0};
    struct rdb_elem e, *mf;
    long long count, deleted_n, n_mf, zero;
    uint64_t deleted = 0, live = 0;
    struct srec end = {.kind = SREC_NODE_END}, start = {.kind = SREC_NODE};
    int rc;

    if (rdb_r_string(r, &key, &r->w->str) != TERSE_OK) {
        return r->st;
    }
    if (key.len != 16) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream node key is not an ID");
    }
    for (int i = 0; i < 8; i++) {
        master.ms = master.ms << 8 | key.p[i];
        master.seq = master.seq << 8 | key.p[8 + i];
    }
    if (rdb_r_string(r, &lp, &r->w->blob) != TERSE_OK || rec(r, &start) != TERSE_OK) {
        return r->st;
    }
    if (rdb_blob_open(&it, RDB_BLOB_LISTPACK, lp.p, lp.len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream listpack's header is wrong");
    }
    if (lp_int(r, &it, &count) != TERSE_OK || lp_int(r, &it, &deleted_n) != TERSE_OK ||
        lp_int(r, &it, &n_mf) != TERSE_OK) {
        return r->st;
    }
    if (n_mf < 1 || (uint64_t)n_mf > lp.len) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream master entry is wrong");
    }
    /* The master fields, pointing into the listpack, in w->str (free while it is walked). */
    r->w->str.len = 0;
    if (rdb_buf_reserve(&r->w->alloc, &r->w->str, (size_t)n_mf * sizeof(*mf)) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    mf = (struct rdb_elem *)(void *)r->w->str.p;
    for (long long i = 0; i < n_mf; i++) {
        if (rdb_blob_next(&it, &mf[i]) != 1) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a stream master entry is wrong");
        }
    }
    if (lp_int(r, &it, &zero) != TERSE_OK || zero != 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream master entry is wrong");
    }
    while ((rc = rdb_blob_next(&it, &e)) == 1) {
        long long flags;
        uint64_t before = deleted;

        if (!rdb_elem_int(&e, &flags)) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a stream entry's flags are wrong");
        }
        if (lp_entry(r, &it, flags, &master, mf, n_mf, &deleted) != TERSE_OK) {
            return r->st;
        }
        live += deleted == before;
    }
    if (rc < 0 || live != (uint64_t)count || deleted != (uint64_t)deleted_n || live == 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream listpack's counts are wrong");
    }
    *n_live += live;
    end.a = deleted;
    return rec(r, &end);
}

static int read_ms(struct rdb_r *r, int64_t *ms)
{
    const uint8_t *p;

    if (rdb_r_raw(r, &p, 8) != TERSE_OK) {
        return r->st;
    }
    *ms = (int64_t)rdb_get_le(p, 8);
    return TERSE_OK;
}

static int read_raw_id(struct rdb_r *r, struct store_stream_id *id)
{
    const uint8_t *p;

    if (rdb_r_raw(r, &p, 16) != TERSE_OK) {
        return r->st;
    }
    id->ms = id->seq = 0;
    for (int i = 0; i < 8; i++) {
        id->ms = id->ms << 8 | p[i];
        id->seq = id->seq << 8 | p[8 + i];
    }
    return TERSE_OK;
}

static int read_name(struct rdb_r *r, struct srec *s)
{
    struct rdb_str name;

    if (rdb_r_string(r, &name, &r->w->str) != TERSE_OK) {
        return r->st;
    }
    s->off = r->w->elems.len;
    s->len = name.len;
    return keep_bytes(r, name.p, name.len, false);
}

/* Redis 7.0's streamEstimateDistanceFromFirstEverEntry, for version 1 payloads. */
static int64_t estimate_read(const struct store_stream *h, uint64_t length,
                             const struct store_stream_id *first, const struct store_stream_id *id)
{
    int cmp_last = store_stream_id_cmp(id, &h->last_id), cmp_first;

    if (h->entries_added == 0) {
        return 0;
    }
    if (length == 0 && cmp_last < 1) {
        return (int64_t)h->entries_added;
    }
    if (cmp_last == 0) {
        return (int64_t)h->entries_added;
    }
    if (cmp_last > 0) {
        return -1;
    }
    cmp_first = store_stream_id_cmp(id, first);
    if (cmp_first < 0) {
        return (int64_t)(h->entries_added - length);
    }
    if (cmp_first == 0) {
        return (int64_t)(h->entries_added - length + 1);
    }
    return -1;
}

static int read_groups(struct rdb_r *r, int type, const struct store_stream *h, uint64_t length,
                       const struct store_stream_id *first)
{
    uint64_t n_groups;

    if (rdb_r_count(r, &n_groups, 4) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t g = 0; g < n_groups; g++) {
        struct srec s = {.kind = SREC_GROUP};
        uint64_t er;

        if (read_name(r, &s) != TERSE_OK || rdb_r_len(r, &s.id.ms, NULL) != TERSE_OK ||
            rdb_r_len(r, &s.id.seq, NULL) != TERSE_OK) {
            return r->st;
        }
        if (type == RDB_TYPE_STREAM_LISTPACKS_2) {
            if (rdb_r_len(r, &er, NULL) != TERSE_OK) {
                return r->st;
            }
            s.x = (int64_t)er;
        } else {
            s.x = estimate_read(h, length, first, &s.id);
        }
        /* terse keeps entries-read + 1: INT64_MAX has no room (Redis never counts so far) */
        if (s.x < -1 || s.x == INT64_MAX || rdb_r_count(r, &s.n, 18) != TERSE_OK) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "a group's counters are wrong");
        }
        /* the consumers count is read after the PEL: patched into the record below */
        size_t at = r->w->arr.len;
        if (rec(r, &s) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t i = 0; i < s.n; i++) {
            struct srec p = {.kind = SREC_PEL};
            if (read_raw_id(r, &p.id) != TERSE_OK || read_ms(r, &p.x) != TERSE_OK ||
                rdb_r_len(r, &p.n, NULL) != TERSE_OK || rec(r, &p) != TERSE_OK) {
                return r->st;
            }
        }
        if (rdb_r_count(r, &s.m, 10) != TERSE_OK) {
            return r->st;
        }
        memcpy(r->w->arr.p + at, &s, sizeof(s));
        for (uint64_t c = 0; c < s.m; c++) {
            struct srec cs = {.kind = SREC_CONS};
            if (read_name(r, &cs) != TERSE_OK || read_ms(r, &cs.x) != TERSE_OK ||
                rdb_r_count(r, &cs.n, 16) != TERSE_OK || rec(r, &cs) != TERSE_OK) {
                return r->st;
            }
            for (uint64_t i = 0; i < cs.n; i++) {
                struct srec id = {.kind = SREC_CPEL};
                if (read_raw_id(r, &id.id) != TERSE_OK || rec(r, &id) != TERSE_OK) {
                    return r->st;
                }
            }
        }
    }
    return TERSE_OK;
}

/* The model's form into w->out, decoded once more: every order and count checked. */
static int encode_checked(struct rdb_r *r, const struct store_stream *s)
{
    struct store_stream check;
    size_t size = store_stream_size(s);
    int st;

    r->w->out.len = 0;
    if (size > CODEC_VALUE_MAX) {
        return rdb_r_fail(r, TERSE_ETOOBIG, "value too large");
    }
    if (rdb_buf_reserve(&r->w->alloc, &r->w->out, size) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    if (store_stream_encode(s, r->w->out.p, r->w->out.cap, &r->w->out.len) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream that cannot be written");
    }
    st = store_stream_decode(&check, &r->w->alloc, r->w->out.p, r->w->out.len);
    store_stream_deinit(&check);
    if (st != TERSE_OK) {
        return rdb_r_fail(r, st, st == TERSE_ENOMEM ? "out of memory"
                                                    : "a stream's IDs or names are out of order");
    }
    return TERSE_OK;
}

int rdb_read_stream(struct rdb_r *r, int type)
{
    struct store_stream s;
    struct store_stream_id first = {0, 0};
    uint64_t n_lp, length, n_live = 0;
    int st;

    store_stream_init(&s, &r->w->alloc);
    if (rdb_r_count(r, &n_lp, 2) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t i = 0; i < n_lp; i++) {
        if (read_node(r, &n_live) != TERSE_OK) {
            return r->st;
        }
        /* Into the container past the batch when the after-load pass would chunk the stream:
         * a node follows (one node stays a value) and its form is past ck->stream_min (the
         * entries' pairs alone, in w->elems, are less than their form). */
        if (r->co_kind == STORE_TYPE_STREAM &&
            (r->co != NULL ||
             (i + 1 < n_lp && r->w->elems.len + r->w->arr.len >= r->co_batch &&
              r->w->elems.len > r->ck->stream_min)) &&
            rdb_coll_stream_nodes(r) != TERSE_OK) {
            return r->st;
        }
    }
    if (rdb_r_len(r, &length, NULL) != TERSE_OK || rdb_r_len(r, &s.last_id.ms, NULL) != TERSE_OK ||
        rdb_r_len(r, &s.last_id.seq, NULL) != TERSE_OK) {
        return r->st;
    }
    if (type == RDB_TYPE_STREAM_LISTPACKS_2) {
        if (rdb_r_len(r, &first.ms, NULL) != TERSE_OK || rdb_r_len(r, &first.seq, NULL) != TERSE_OK ||
            rdb_r_len(r, &s.max_deleted.ms, NULL) != TERSE_OK ||
            rdb_r_len(r, &s.max_deleted.seq, NULL) != TERSE_OK ||
            rdb_r_len(r, &s.entries_added, NULL) != TERSE_OK) {
            return r->st;
        }
    } else {
        s.entries_added = length;
        if (r->co != NULL) {
            first = r->co_first;
        } else if (n_live > 0) {
            const struct srec *x = (const struct srec *)(const void *)r->w->arr.p;
            while (x->kind != SREC_ENTRY) {
                x++; /* the first entry record: there is one, n_live > 0 */
            }
            first = x->id;
        }
    }
    if (length != n_live) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a stream's length is wrong");
    }
    if (read_groups(r, type, &s, length, &first) != TERSE_OK) {
        return r->st;
    }
    /* a big stream's model holds its groups alone: checked as a whole one, then its meta */
    st = rdb_stream_build(r, &s);
    if (st == TERSE_OK) {
        st = encode_checked(r, &s);
    }
    if (st == TERSE_OK && r->co != NULL) {
        st = rdb_coll_stream_end(r, &s);
    }
    store_stream_deinit(&s);
    return st;
}
