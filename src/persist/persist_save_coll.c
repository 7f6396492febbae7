/*
 * persist_save_coll: a chunked container's CHUNKED record (docs/formats/snapshot.md), its
 * chunks written as held: RAW, LZ4 or zstd bytes copied from the store, nothing decoded.
 *
 *   rflags (kind CHUNKED | expiry | type) | klen varint | key | [expire_ms] |
 *   chunk_bytes varint | shape_a varint | shape_b varint | n_chunks varint |
 *   n_chunks * ( count varint | key varint | aux_len varint | aux | len varint | stored )
 *
 * shape_a and shape_b are a list's chunk_n and keep_raw, a hash's or set's seed and 0: its
 * chunks' keys are the low bounds of ranges of that seed's hash space (coll_hash.h), so the
 * load keeps the seed with them. A sorted set's are its member map's seed and chunk count: its
 * order's chunks come first (keys: their first scores' images), then the map's. A stream's
 * are 0 and 1: its meta chunk comes first (count 1, key 0), then its nodes, each keyed by its
 * first entry's ID, ms as the key and seq as the aux varint (0 for every other type). A list's open ends are written as RAW chunks of their own (built in the writer's two form
 * buffers, each at most about one and a half chunks), first and last; the load makes every
 * one a chunk of the tree. A record of more than SAVE_SMALL_RECORD_MAX bytes is a DATA block
 * of its own, streamed piece by piece with its checksum computed as it goes: the extra memory
 * is the two ends, whatever the container's size.
 */
#include "persist/persist_save_coll.h"

#include <string.h>

#include "codec/codec_value.h"
#include "coll/coll_stream.h"
#include "coll/coll_list.h"
#include "coll/coll_zset.h"
#include "persist/persist_save_internal.h"
#include "store/store.h"
#include "terse/status.h"

/* Where a record's bytes go: the block being built, or a streamed block of its own. */
struct rec_out {
    struct writer *w;
    int big;
    uint64_t payload;
    XXH3_state_t bh;
};

static void rec_begin(struct rec_out *o, struct writer *w, uint64_t payload)
{
    o->w = w;
    o->payload = payload;
    o->big = payload > SAVE_SMALL_RECORD_MAX;
    if (o->big) {
        uint8_t h[PERSIST_BLOCK_HEADER_LEN];

        persist_w_flush(w);
        XXH3_INITSTATE(&o->bh);
        XXH3_64bits_reset(&o->bh);
        persist_w_block_header(h, PERSIST_BLOCK_DATA, w->seq, w->db, 1, payload);
        XXH3_64bits_update(&o->bh, h, sizeof(h));
        persist_w_out(w, h, sizeof(h));
    }
}

static void rec_put(struct rec_out *o, const void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    if (o->big) {
        XXH3_64bits_update(&o->bh, p, n);
        persist_w_out(o->w, p, n);
    } else {
        memcpy(o->w->buf + o->w->len, p, n);
        o->w->len += n;
    }
}

static void rec_varint(struct rec_out *o, uint64_t v)
{
    uint8_t b[PERSIST_VARINT_MAX];

    rec_put(o, b, persist_put_varint(b, v));
}

static void rec_end(struct rec_out *o)
{
    struct writer *w = o->w;

    if (o->big) {
        uint8_t t[PERSIST_BLOCK_TRAILER_LEN];

        persist_put_u64(t, XXH3_64bits_digest(&o->bh));
        persist_w_out(w, t, sizeof(t));
        w->off += PERSIST_BLOCK_HEADER_LEN + o->payload + PERSIST_BLOCK_TRAILER_LEN;
        w->seq++;
    } else {
        w->n_records++;
        if (w->len - PERSIST_BLOCK_HEADER_LEN >= PERSIST_BLOCK_TARGET) {
            persist_w_flush(w);
        }
    }
}

static size_t varint_len(uint64_t v)
{
    uint8_t b[PERSIST_VARINT_MAX];

    return persist_put_varint(b, v);
}

/* One end of a list in RAW stored form in *buf (grown as needed): *len 0 when it is empty. */
static int end_stored(struct writer *w, struct coll *c, bool left, uint8_t **buf, size_t *cap,
                      size_t *len, uint64_t *n)
{
    const uint8_t *form;
    size_t flen, bound;
    int st = coll_list_end_form(store_coll_env(w->shard), c, left, &form, &flen, n);

    *len = 0;
    if (st != TERSE_OK || *n == 0) {
        return st;
    }
    bound = codec_value_bound(flen);
    if (bound > *cap) {
        w_free(w->alloc, *buf);
        *buf = w_alloc(w->alloc, bound);
        *cap = *buf != NULL ? bound : 0;
        if (*buf == NULL) {
            return TERSE_ENOMEM;
        }
    }
    return codec_value_encode_raw(form, flen, *buf, *cap, len);
}

/* A stream's meta with its groups' pending entries inline (coll_stream_meta_full: a snapshot
 * holds a PEL as the stream form's lists, loaded back into PELs), in RAW stored form in *buf. */
static int meta_stored(struct writer *w, struct coll *c, uint8_t **buf, size_t *cap,
                       size_t *len)
{
    uint8_t *form = NULL;
    size_t flen = 0, bound;
    int st = coll_stream_meta_full(store_coll_env(w->shard), c, &form, &flen);

    *len = 0;
    if (st != TERSE_OK) {
        return st;
    }
    bound = codec_value_bound(flen);
    if (bound > *cap) {
        w_free(w->alloc, *buf);
        *buf = w_alloc(w->alloc, bound);
        *cap = *buf != NULL ? bound : 0;
    }
    st = *buf == NULL ? TERSE_ENOMEM : codec_value_encode_raw(form, flen, *buf, *cap, len);
    coll_stream_meta_full_free(form);
    return st;
}

/* The bytes one chunk takes in the record. */
static uint64_t chunk_rec_len(uint64_t count, uint64_t key, uint64_t aux, size_t len)
{
    return varint_len(count) + varint_len(key) + varint_len(aux) + varint_len(len) + len;
}

static void put_chunk(struct rec_out *o, uint64_t count, uint64_t key, uint64_t aux,
                      const uint8_t *p, size_t len)
{
    rec_varint(o, count);
    rec_varint(o, key);
    rec_varint(o, aux); /* a stream node's first seq; 0 for the others */
    rec_varint(o, len);
    rec_put(o, p, len);
}

/* The aux varint of a chunk of t, c's or its map's: a stream node's first seq (its key's second
 * word), a sorted set's map chunk 1 (the fingerprint map's form: COLL_ZSET_MAP_FORM). */
static uint64_t chunk_aux(const struct coll *c, const struct coll *t, const struct coll_desc *d)
{
    return c->type == COLL_STREAM ? d->key.aux : t != c ? COLL_ZSET_MAP_FORM : 0;
}

void persist_save_coll(struct writer *w, const struct store_entry *e)
{
    struct coll *c = store_entry_coll(e);
    size_t klen, hlen = 0, tlen = 0;
    const uint8_t *key = store_entry_key(e, &klen);
    int64_t exp = store_entry_expire(e);
    uint64_t hn = 0, tn = 0, n_chunks, payload;
    uint8_t flags;
    struct rec_out o;
    struct coll_it it;
    int st;

    enum store_type type = store_entry_type(e);
    uint64_t shape_a, shape_b;
    /* A sorted set's member map is saved after its order; a stream's PELs go in its meta. */
    const struct coll *zmap = type == STORE_TYPE_ZSET ? c->aux : NULL;

    if (type == STORE_TYPE_LIST) {
        shape_a = c->chunk_n;
        shape_b = (uint64_t)c->keep_raw;
        st = end_stored(w, c, true, &w->form, &w->form_cap, &hlen, &hn);
        if (st == TERSE_OK) {
            st = end_stored(w, c, false, &w->form2, &w->form2_cap, &tlen, &tn);
        }
    } else if (type == STORE_TYPE_HASH || type == STORE_TYPE_SET) {
        shape_a = c->seed; /* the chunks' ranges are of this seed's hash space */
        shape_b = 0;
        st = TERSE_OK;
    } else if (type == STORE_TYPE_ZSET) {
        shape_a = c->aux->seed;
        shape_b = c->aux->tree.n_chunks;
        st = TERSE_OK;
    } else if (type == STORE_TYPE_STREAM && c->meta != NULL) {
        shape_a = 0;
        shape_b = 1; /* the meta chunk */
        st = meta_stored(w, c, &w->form, &w->form_cap, &hlen);
    } else {
        persist_w_fail(w, TERSE_EINVAL, "a chunked container of a type snapshots cannot hold");
        return;
    }
    if (st != TERSE_OK) {
        persist_w_fail(w, st, st == TERSE_ECORRUPT ? "a chunked value failed its checksum"
                                                   : "out of memory");
        return;
    }
    n_chunks = c->tree.n_chunks + (hn > 0) + (tn > 0) + (zmap != NULL ? zmap->tree.n_chunks : 0) +
               (c->meta != NULL);
    flags = (uint8_t)(PERSIST_REC_CHUNKED | ((unsigned)type << PERSIST_REC_TYPE_SHIFT) |
                      (exp != STORE_NO_EXPIRE ? PERSIST_REC_EXPIRE : 0u));
    payload = 1 + varint_len(klen) + klen + (exp != STORE_NO_EXPIRE ? 8 : 0) +
              varint_len(c->chunk_max) + varint_len(shape_a) + varint_len(shape_b) +
              varint_len(n_chunks);
    if (hn > 0) {
        payload += chunk_rec_len(hn, 0, 0, hlen);
    }
    if (c->meta != NULL) {
        payload += chunk_rec_len(1, 0, 0, hlen);
    }
    for (const struct coll *t = c; t != NULL; t = t == c ? zmap : NULL) {
        for (it = coll_tree_begin(&t->tree); coll_it_valid(&it); coll_tree_next(&it)) {
            const struct coll_desc *d = coll_tree_desc(&it);
            payload += chunk_rec_len(d->count, d->key.k, chunk_aux(c, t, d), d->chunk->len);
        }
    }
    if (tn > 0) {
        payload += chunk_rec_len(tn, 0, 0, tlen);
    }
    rec_begin(&o, w, payload);
    rec_put(&o, &flags, 1);
    rec_varint(&o, klen);
    rec_put(&o, key, klen);
    if (exp != STORE_NO_EXPIRE) {
        uint8_t b[8];
        persist_put_u64(b, (uint64_t)exp);
        rec_put(&o, b, 8);
    }
    rec_varint(&o, c->chunk_max);
    rec_varint(&o, shape_a);
    rec_varint(&o, shape_b);
    rec_varint(&o, n_chunks);
    if (hn > 0) {
        put_chunk(&o, hn, 0, 0, w->form, hlen);
    }
    if (c->meta != NULL) {
        put_chunk(&o, 1, 0, 0, w->form, hlen);
    }
    for (const struct coll *t = c; t != NULL; t = t == c ? zmap : NULL) {
        for (it = coll_tree_begin(&t->tree); coll_it_valid(&it); coll_tree_next(&it)) {
            const struct coll_desc *d = coll_tree_desc(&it);
            put_chunk(&o, d->count, d->key.k, chunk_aux(c, t, d), d->chunk->data, d->chunk->len);
        }
    }
    if (tn > 0) {
        put_chunk(&o, tn, 0, 0, w->form2, tlen);
    }
    rec_end(&o);
    w->n_keys++;
}
