/*
 * store_stream: a stream's byte form and its decoded model (store_stream.h).
 *
 * Invariants the decoder enforces and every edit keeps: entries strictly increasing by ID,
 * nodes of at least one entry whose live counts sum to the entry count, each node's slots at
 * least its live count,
 * groups and each group's consumers strictly increasing by name, each group's pending entries
 * strictly increasing by ID, every pending entry's consumer index below the group's consumer
 * count, every entry with one field/value pair at least. The encoder writes what the decoder
 * reads, so decode(encode(m)) == m for any model the edits built.
 */
#include "store/form/store_stream.h"
#include "store/form/store_stream_internal.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_varint.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* Fewest bytes each record can take in a form: what bounds a count before it is allocated. */
#define MIN_ENTRY 5    /* ms, seq, n_pairs, two empty lengths */
#define MIN_GROUP 6    /* name length, ms, seq, entries_read, two counts */
#define MIN_CONSUMER 2 /* name length, seen (and pending from version 3) */
#define MIN_PENDING 5  /* ms, seq, consumer, delivery, count */
#define MIN_NODE 2     /* live, slots (and lp from version 2) */

static void *libc_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return malloc(n);
}

static void libc_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

void store_stream_init(struct store_stream *s, const terse_allocator *alloc)
{
    memset(s, 0, sizeof(*s));
    if (alloc != NULL && alloc->alloc != NULL) {
        s->alloc = *alloc;
    } else {
        s->alloc.alloc = libc_alloc;
        s->alloc.free = libc_free;
    }
}

void store_stream_arr_free(struct store_stream *s, void *p)
{
    if (p != NULL) {
        s->alloc.free(s->alloc.opaque, p);
    }
}

void store_stream_deinit(struct store_stream *s)
{
    for (size_t i = 0; i < s->n_groups; i++) {
        store_stream_arr_free(s, s->groups[i].cons);
        store_stream_arr_free(s, s->groups[i].pel);
    }
    store_stream_arr_free(s, s->groups);
    store_stream_arr_free(s, s->nodes);
    store_stream_arr_free(s, s->ents);
    store_stream_init(s, &s->alloc);
}

/* Makes room for need elements of size sz in *arr (capacity *cap), doubling. */
int store_stream_arr_grow(struct store_stream *s, void **arr, size_t *cap, size_t need, size_t sz)
{
    size_t ncap;
    void *p;

    if (need <= *cap) {
        return TERSE_OK;
    }
    ncap = *cap < 4 ? 4 : *cap * 2;
    if (ncap < need) {
        ncap = need;
    }
    if (ncap > SIZE_MAX / sz) {
        return TERSE_ENOMEM;
    }
    p = s->alloc.alloc(s->alloc.opaque, ncap * sz);
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    if (*cap != 0) {
        memcpy(p, *arr, *cap * sz);
    }
    store_stream_arr_free(s, *arr);
    *arr = p;
    *cap = ncap;
    return TERSE_OK;
}

/* ---- decoding ----------------------------------------------------------------------------- */

struct rd {
    const uint8_t *p, *end;
};

static int rd_u64(struct rd *r, uint64_t *v)
{
    return store_varint_read(&r->p, r->end, v) == 0 ? TERSE_OK : TERSE_ECORRUPT;
}

static int rd_id(struct rd *r, struct store_stream_id *id)
{
    int st = rd_u64(r, &id->ms);

    return st == TERSE_OK ? rd_u64(r, &id->seq) : st;
}

static int rd_bytes(struct rd *r, const uint8_t **p, size_t *len)
{
    uint64_t n;

    if (rd_u64(r, &n) != TERSE_OK || n > (uint64_t)(r->end - r->p)) {
        return TERSE_ECORRUPT;
    }
    *p = r->p;
    *len = (size_t)n;
    r->p += n;
    return TERSE_OK;
}

int store_stream_pair_next(const uint8_t **p, const uint8_t *end, const uint8_t **b,
                           size_t *len)
{
    struct rd r = {*p, end};

    if (rd_bytes(&r, b, len) != TERSE_OK) {
        *b = NULL;
        *len = 0;
        return TERSE_ECORRUPT;
    }
    *p = r.p;
    return TERSE_OK;
}

/* A count of records of at least min bytes each: bounded by the bytes left. */
static int rd_count(struct rd *r, size_t min, size_t *n)
{
    uint64_t v;

    if (rd_u64(r, &v) != TERSE_OK || v > (uint64_t)(r->end - r->p) / min) {
        return TERSE_ECORRUPT;
    }
    *n = (size_t)v;
    return TERSE_OK;
}

static int rd_entry(struct rd *r, struct store_stream_entry *e)
{
    const uint8_t *b;
    size_t blen;
    int st = rd_id(r, &e->id);

    if (st == TERSE_OK) {
        st = rd_u64(r, &e->n_pairs);
    }
    if (st != TERSE_OK || e->n_pairs == 0 || e->n_pairs > (uint64_t)(r->end - r->p) / 2) {
        return TERSE_ECORRUPT;
    }
    e->pairs = r->p;
    for (uint64_t i = 0; i < e->n_pairs * 2; i++) {
        if (rd_bytes(r, &b, &blen) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
    }
    e->pairs_len = (size_t)(r->p - e->pairs);
    return TERSE_OK;
}

int store_stream_entry_read(const uint8_t **p, const uint8_t *end, struct store_stream_entry *e)
{
    struct rd r = {*p, end};
    int st = rd_entry(&r, e);

    if (st == TERSE_OK) {
        *p = r.p;
    }
    return st;
}

/* rd_group's last step: the consumers' pending counts counted from the list (before version
 * 3), or checked against it. */
static int pending_counts(struct store_stream_group *g, int version, bool meta)
{
    if (version < 3) {
        for (size_t i = 0; i < g->n_pel; i++) {
            g->cons[g->pel[i].consumer].n_pending++;
        }
        return TERSE_OK;
    }
    if (meta && g->n_pel == 0) {
        return TERSE_OK; /* held apart: coll_stream_verify checks them against it */
    }
    for (size_t i = 0; i < g->n_pel; i++) {
        struct store_stream_consumer *c = &g->cons[g->pel[i].consumer];
        if (c->n_pending == 0) {
            return TERSE_ECORRUPT;
        }
        c->n_pending--;
    }
    for (size_t i = 0; i < g->n_cons; i++) {
        if (g->cons[i].n_pending != 0) {
            return TERSE_ECORRUPT;
        }
    }
    for (size_t i = 0; i < g->n_pel; i++) {
        g->cons[g->pel[i].consumer].n_pending++;
    }
    return TERSE_OK;
}

/* A group. From version 3 a consumer carries its pending count: equal to its entries in the
 * group's inline pending list, unless meta (a chunked stream's meta, whose pending entries are
 * held apart: coll_pel.h) and the list is empty; before version 3 counted from the list. */
static int rd_group(struct store_stream *s, struct rd *r, struct store_stream_group *g,
                    int version, bool meta)
{
    uint64_t er, u;
    size_t n;

    if (rd_bytes(r, &g->name, &g->name_len) != TERSE_OK || rd_id(r, &g->last_id) != TERSE_OK ||
        rd_u64(r, &er) != TERSE_OK || er > (uint64_t)INT64_MAX) {
        return TERSE_ECORRUPT;
    }
    g->entries_read = (int64_t)er - 1;
    if (rd_count(r, MIN_CONSUMER, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_arr_grow(s, (void **)&g->cons, &g->cap_cons, n, sizeof(*g->cons)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        struct store_stream_consumer *c = &g->cons[i];
        if (rd_bytes(r, &c->name, &c->name_len) != TERSE_OK || rd_u64(r, &u) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        c->seen_ms = (int64_t)u;
        c->n_pending = 0;
        if (version >= 3 && rd_u64(r, &c->n_pending) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        if (i > 0 && store_stream_name_cmp(c[-1].name, c[-1].name_len, c->name,
                                           c->name_len) >= 0) {
            return TERSE_ECORRUPT;
        }
        g->n_cons = i + 1;
    }
    if (rd_count(r, MIN_PENDING, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_arr_grow(s, (void **)&g->pel, &g->cap_pel, n, sizeof(*g->pel)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        struct store_stream_pending *p = &g->pel[i];
        uint64_t ci, dt;
        if (rd_id(r, &p->id) != TERSE_OK || rd_u64(r, &ci) != TERSE_OK ||
            rd_u64(r, &dt) != TERSE_OK || rd_u64(r, &p->delivery_count) != TERSE_OK ||
            ci >= g->n_cons || (i > 0 && store_stream_id_cmp(&p[-1].id, &p->id) >= 0)) {
            return TERSE_ECORRUPT;
        }
        p->consumer = (size_t)ci;
        p->delivery_ms = (int64_t)dt;
        g->n_pel = i + 1;
    }
    return pending_counts(g, version, meta);
}

/* The nodes: each of one entry at least, slots >= live, the live counts summing to n_ents. */
static int rd_nodes(struct store_stream *s, struct rd *r, int version)
{
    size_t n, total = 0;

    if (rd_count(r, MIN_NODE, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_arr_grow(s, (void **)&s->nodes, &s->cap_nodes, n, sizeof(*s->nodes)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t live, slots, lp = 0;
        if (rd_u64(r, &live) != TERSE_OK || rd_u64(r, &slots) != TERSE_OK || live == 0 ||
            slots < live || live > s->n_ents - total ||
            (version > 1 && rd_u64(r, &lp) != TERSE_OK)) {
            return TERSE_ECORRUPT;
        }
        if (version == 1) {
            /* No size kept: counted from the node's live entries. */
            for (size_t k = total; k < total + (size_t)live; k++) {
                lp += store_stream_lp_add(k == total ? NULL : &s->ents[total], &s->ents[k]);
            }
        }
        total += (size_t)live;
        s->nodes[i].live = (size_t)live;
        s->nodes[i].slots = (size_t)slots;
        s->nodes[i].lp = lp;
        s->n_nodes = i + 1;
    }
    return total == s->n_ents ? TERSE_OK : TERSE_ECORRUPT;
}

static int decode_body(struct store_stream *s, struct rd *r, bool meta)
{
    size_t n;
    int st, version;

    if (r->p == r->end || *r->p < 1 || *r->p > STORE_STREAM_VERSION) {
        return TERSE_ECORRUPT;
    }
    version = *r->p++;
    if (rd_id(r, &s->last_id) != TERSE_OK || rd_u64(r, &s->entries_added) != TERSE_OK ||
        rd_id(r, &s->max_deleted) != TERSE_OK || rd_count(r, MIN_ENTRY, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_arr_grow(s, (void **)&s->ents, &s->cap_ents, n, sizeof(*s->ents)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (rd_entry(r, &s->ents[i]) != TERSE_OK ||
            (i > 0 && store_stream_id_cmp(&s->ents[i - 1].id, &s->ents[i].id) >= 0)) {
            return TERSE_ECORRUPT;
        }
        s->n_ents = i + 1;
    }
    if (n > 0 && store_stream_id_cmp(&s->ents[n - 1].id, &s->last_id) > 0) {
        return TERSE_ECORRUPT;
    }
    st = rd_nodes(s, r, version);
    if (st != TERSE_OK) {
        return st;
    }
    if (rd_count(r, MIN_GROUP, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_arr_grow(s, (void **)&s->groups, &s->cap_groups, n, sizeof(*s->groups)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (n > 0) {
        memset(s->groups, 0, n * sizeof(*s->groups));
    }
    for (size_t i = 0; i < n; i++) {
        struct store_stream_group *g = &s->groups[i];
        s->n_groups = i + 1; /* counted first, so deinit frees a half-read group's arrays */
        st = rd_group(s, r, g, version, meta);
        if (st != TERSE_OK) {
            return st;
        }
        if (i > 0 && store_stream_name_cmp(g[-1].name, g[-1].name_len, g->name,
                                           g->name_len) >= 0) {
            return TERSE_ECORRUPT;
        }
    }
    return r->p == r->end ? TERSE_OK : TERSE_ECORRUPT;
}

static int decode(struct store_stream *s, const terse_allocator *alloc, const uint8_t *form,
                  size_t len, bool meta)
{
    struct rd r;
    int st;

    store_stream_init(s, alloc);
    if (form == NULL) {
        return TERSE_ECORRUPT;
    }
    r.p = form;
    r.end = form + len;
    st = decode_body(s, &r, meta);
    if (st != TERSE_OK) {
        store_stream_deinit(s);
    }
    return st;
}

int store_stream_decode(struct store_stream *s, const terse_allocator *alloc,
                        const uint8_t *form, size_t len)
{
    return decode(s, alloc, form, len, false);
}

int store_stream_decode_meta(struct store_stream *s, const terse_allocator *alloc,
                             const uint8_t *form, size_t len)
{
    return decode(s, alloc, form, len, true);
}

/* ---- encoding ----------------------------------------------------------------------------- */

static size_t id_size(const struct store_stream_id *id)
{
    return codec_varint_len(id->ms) + codec_varint_len(id->seq);
}

size_t store_stream_size(const struct store_stream *s)
{
    size_t n = 1 + id_size(&s->last_id) + codec_varint_len(s->entries_added) +
               id_size(&s->max_deleted) + codec_varint_len(s->n_ents) +
               codec_varint_len(s->n_groups);

    for (size_t i = 0; i < s->n_ents; i++) {
        n += store_stream_entry_size(&s->ents[i]);
    }
    n += codec_varint_len(s->n_nodes);
    for (size_t i = 0; i < s->n_nodes; i++) {
        n += codec_varint_len(s->nodes[i].live) + codec_varint_len(s->nodes[i].slots) +
             codec_varint_len(s->nodes[i].lp);
    }
    for (size_t i = 0; i < s->n_groups; i++) {
        const struct store_stream_group *g = &s->groups[i];
        n += codec_varint_len(g->name_len) + g->name_len + id_size(&g->last_id) +
             codec_varint_len((uint64_t)(g->entries_read + 1)) + codec_varint_len(g->n_cons) +
             codec_varint_len(g->n_pel);
        for (size_t k = 0; k < g->n_cons; k++) {
            n += codec_varint_len(g->cons[k].name_len) + g->cons[k].name_len +
                 codec_varint_len((uint64_t)g->cons[k].seen_ms) +
                 codec_varint_len(g->cons[k].n_pending);
        }
        for (size_t k = 0; k < g->n_pel; k++) {
            const struct store_stream_pending *p = &g->pel[k];
            n += id_size(&p->id) + codec_varint_len(p->consumer) +
                 codec_varint_len((uint64_t)p->delivery_ms) + codec_varint_len(p->delivery_count);
        }
    }
    return n;
}

static uint8_t *put_id(uint8_t *p, const struct store_stream_id *id)
{
    p += codec_varint_put(p, id->ms);
    return p + codec_varint_put(p, id->seq);
}

static uint8_t *put_bytes(uint8_t *p, const uint8_t *b, size_t len)
{
    p += codec_varint_put(p, len);
    if (len != 0) {
        memcpy(p, b, len);
    }
    return p + len;
}

static uint8_t *put_group(uint8_t *p, const struct store_stream_group *g)
{
    p = put_bytes(p, g->name, g->name_len);
    p = put_id(p, &g->last_id);
    p += codec_varint_put(p, (uint64_t)(g->entries_read + 1));
    p += codec_varint_put(p, g->n_cons);
    for (size_t k = 0; k < g->n_cons; k++) {
        p = put_bytes(p, g->cons[k].name, g->cons[k].name_len);
        p += codec_varint_put(p, (uint64_t)g->cons[k].seen_ms);
        p += codec_varint_put(p, g->cons[k].n_pending);
    }
    p += codec_varint_put(p, g->n_pel);
    for (size_t k = 0; k < g->n_pel; k++) {
        const struct store_stream_pending *pe = &g->pel[k];
        p = put_id(p, &pe->id);
        p += codec_varint_put(p, pe->consumer);
        p += codec_varint_put(p, (uint64_t)pe->delivery_ms);
        p += codec_varint_put(p, pe->delivery_count);
    }
    return p;
}

int store_stream_encode(const struct store_stream *s, uint8_t *out, size_t cap,
                        size_t *out_len)
{
    size_t need = store_stream_size(s);
    uint8_t *p = out;

    *out_len = 0;
    if (need > cap) {
        return TERSE_ETOOBIG;
    }
    *p++ = STORE_STREAM_VERSION;
    p = put_id(p, &s->last_id);
    p += codec_varint_put(p, s->entries_added);
    p = put_id(p, &s->max_deleted);
    p += codec_varint_put(p, s->n_ents);
    for (size_t i = 0; i < s->n_ents; i++) {
        p = store_stream_entry_put(p, &s->ents[i]);
    }
    p += codec_varint_put(p, s->n_nodes);
    for (size_t i = 0; i < s->n_nodes; i++) {
        p += codec_varint_put(p, s->nodes[i].live);
        p += codec_varint_put(p, s->nodes[i].slots);
        p += codec_varint_put(p, s->nodes[i].lp);
    }
    p += codec_varint_put(p, s->n_groups);
    for (size_t i = 0; i < s->n_groups; i++) {
        p = put_group(p, &s->groups[i]);
    }
    *out_len = (size_t)(p - out);
    return *out_len == need ? TERSE_OK : TERSE_ECORRUPT; /* a model the edits broke */
}
