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

#include <stdlib.h>
#include <string.h>

#include "codec/codec_varint.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* Fewest bytes each record can take in a form: what bounds a count before it is allocated. */
#define MIN_ENTRY 5    /* ms, seq, n_pairs, two empty lengths */
#define MIN_GROUP 6    /* name length, ms, seq, entries_read, two counts */
#define MIN_CONSUMER 2 /* name length, seen */
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

static void arr_free(struct store_stream *s, void *p)
{
    if (p != NULL) {
        s->alloc.free(s->alloc.opaque, p);
    }
}

void store_stream_deinit(struct store_stream *s)
{
    for (size_t i = 0; i < s->n_groups; i++) {
        arr_free(s, s->groups[i].cons);
        arr_free(s, s->groups[i].pel);
    }
    arr_free(s, s->groups);
    arr_free(s, s->nodes);
    arr_free(s, s->ents);
    store_stream_init(s, &s->alloc);
}

/* Makes room for need elements of size sz in *arr (capacity *cap), doubling. */
static int arr_grow(struct store_stream *s, void **arr, size_t *cap, size_t need, size_t sz)
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
    arr_free(s, *arr);
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

static int rd_group(struct store_stream *s, struct rd *r, struct store_stream_group *g)
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
    if (arr_grow(s, (void **)&g->cons, &g->cap_cons, n, sizeof(*g->cons)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        struct store_stream_consumer *c = &g->cons[i];
        if (rd_bytes(r, &c->name, &c->name_len) != TERSE_OK || rd_u64(r, &u) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        c->seen_ms = (int64_t)u;
        if (i > 0 && store_stream_name_cmp(c[-1].name, c[-1].name_len, c->name,
                                           c->name_len) >= 0) {
            return TERSE_ECORRUPT;
        }
        g->n_cons = i + 1;
    }
    if (rd_count(r, MIN_PENDING, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (arr_grow(s, (void **)&g->pel, &g->cap_pel, n, sizeof(*g->pel)) != TERSE_OK) {
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
    return TERSE_OK;
}

/* The nodes: each of one entry at least, slots >= live, the live counts summing to n_ents. */
static int rd_nodes(struct store_stream *s, struct rd *r, int version)
{
    size_t n, total = 0;

    if (rd_count(r, MIN_NODE, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (arr_grow(s, (void **)&s->nodes, &s->cap_nodes, n, sizeof(*s->nodes)) != TERSE_OK) {
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

static int decode_body(struct store_stream *s, struct rd *r)
{
    size_t n;
    int st, version;

    if (r->p == r->end || (*r->p != 1 && *r->p != STORE_STREAM_VERSION)) {
        return TERSE_ECORRUPT;
    }
    version = *r->p++;
    if (rd_id(r, &s->last_id) != TERSE_OK || rd_u64(r, &s->entries_added) != TERSE_OK ||
        rd_id(r, &s->max_deleted) != TERSE_OK || rd_count(r, MIN_ENTRY, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (arr_grow(s, (void **)&s->ents, &s->cap_ents, n, sizeof(*s->ents)) != TERSE_OK) {
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
    if (arr_grow(s, (void **)&s->groups, &s->cap_groups, n, sizeof(*s->groups)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (n > 0) {
        memset(s->groups, 0, n * sizeof(*s->groups));
    }
    for (size_t i = 0; i < n; i++) {
        struct store_stream_group *g = &s->groups[i];
        s->n_groups = i + 1; /* counted first, so deinit frees a half-read group's arrays */
        st = rd_group(s, r, g);
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

int store_stream_decode(struct store_stream *s, const terse_allocator *alloc,
                        const uint8_t *form, size_t len)
{
    struct rd r;
    int st;

    store_stream_init(s, alloc);
    if (form == NULL) {
        return TERSE_ECORRUPT;
    }
    r.p = form;
    r.end = form + len;
    st = decode_body(s, &r);
    if (st != TERSE_OK) {
        store_stream_deinit(s);
    }
    return st;
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
                 codec_varint_len((uint64_t)g->cons[k].seen_ms);
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

/* ---- edits -------------------------------------------------------------------------------- */

/* Compares element i of arr with key: below 0, 0, above 0. */
typedef int (*cmp_at_fn)(const void *arr, size_t i, const void *key);

/* Binary search of the n sorted elements of arr: the index of the element equal to key with
 * *found, else (*found false) where key would go: the first element above it. */
static size_t search(const void *arr, size_t n, cmp_at_fn cmp, const void *key, bool *found)
{
    size_t lo = 0, hi = n;

    *found = false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp(arr, mid, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* A name to look for. */
struct name_key {
    const uint8_t *p;
    size_t len;
};

static int entry_cmp(const void *arr, size_t i, const void *key)
{
    return store_stream_id_cmp(&((const struct store_stream_entry *)arr)[i].id, key);
}

static int pending_cmp(const void *arr, size_t i, const void *key)
{
    return store_stream_id_cmp(&((const struct store_stream_pending *)arr)[i].id, key);
}

static int group_cmp(const void *arr, size_t i, const void *key)
{
    const struct store_stream_group *g = &((const struct store_stream_group *)arr)[i];
    const struct name_key *k = key;

    return store_stream_name_cmp(g->name, g->name_len, k->p, k->len);
}

static int consumer_cmp(const void *arr, size_t i, const void *key)
{
    const struct store_stream_consumer *c = &((const struct store_stream_consumer *)arr)[i];
    const struct name_key *k = key;

    return store_stream_name_cmp(c->name, c->name_len, k->p, k->len);
}

size_t store_stream_seek(const struct store_stream *s, const struct store_stream_id *id)
{
    bool found;

    return search(s->ents, s->n_ents, entry_cmp, id, &found);
}

int store_stream_append(struct store_stream *s, const struct store_stream_entry *e,
                        size_t max_entries, uint64_t max_bytes)
{
    struct store_stream_node *last = s->n_nodes > 0 ? &s->nodes[s->n_nodes - 1] : NULL;

    if (arr_grow(s, (void **)&s->ents, &s->cap_ents, s->n_ents + 1, sizeof(*s->ents)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (store_stream_node_full(last, e, max_entries, max_bytes)) {
        if (arr_grow(s, (void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof(*s->nodes)) !=
            TERSE_OK) {
            return TERSE_ENOMEM;
        }
        last = &s->nodes[s->n_nodes++];
        last->live = 0;
        last->slots = 0;
        last->lp = store_stream_lp_add(NULL, e);
    } else {
        last->lp += store_stream_lp_add(&s->ents[s->n_ents - last->live], e);
    }
    last->live++;
    last->slots++;
    s->ents[s->n_ents++] = *e;
    return TERSE_OK;
}

void store_stream_remove(struct store_stream *s, size_t at, size_t n)
{
    size_t off = 0, k = 0;

    if (n == 0) {
        return; /* the arrays may be NULL: no pointer arithmetic on them */
    }
    memmove(&s->ents[at], &s->ents[at + n], (s->n_ents - at - n) * sizeof(*s->ents));
    s->n_ents -= n;
    for (size_t i = 0; i < s->n_nodes; i++) {
        struct store_stream_node nd = s->nodes[i];
        size_t lo = at > off ? at : off, hi = at + n < off + nd.live ? at + n : off + nd.live;
        off += nd.live;
        if (lo < hi) {
            nd.live -= hi - lo;
        }
        if (nd.live > 0) {
            s->nodes[k++] = nd;
        }
    }
    s->n_nodes = k;
}

size_t store_stream_group_find(const struct store_stream *s, const uint8_t *name, size_t len,
                               bool *found)
{
    struct name_key k = {name, len};

    return search(s->groups, s->n_groups, group_cmp, &k, found);
}

int store_stream_group_insert(struct store_stream *s, size_t at, const uint8_t *name,
                              size_t len, struct store_stream_id last_id, int64_t entries_read)
{
    struct store_stream_group *g;

    if (arr_grow(s, (void **)&s->groups, &s->cap_groups, s->n_groups + 1, sizeof(*s->groups)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memmove(&s->groups[at + 1], &s->groups[at], (s->n_groups - at) * sizeof(*s->groups));
    s->n_groups++;
    g = &s->groups[at];
    memset(g, 0, sizeof(*g));
    g->name = name;
    g->name_len = len;
    g->last_id = last_id;
    g->entries_read = entries_read;
    return TERSE_OK;
}

void store_stream_group_remove(struct store_stream *s, size_t at)
{
    arr_free(s, s->groups[at].cons);
    arr_free(s, s->groups[at].pel);
    memmove(&s->groups[at], &s->groups[at + 1], (s->n_groups - at - 1) * sizeof(*s->groups));
    s->n_groups--;
}

size_t store_stream_consumer_find(const struct store_stream_group *g, const uint8_t *name,
                                  size_t len, bool *found)
{
    struct name_key k = {name, len};

    return search(g->cons, g->n_cons, consumer_cmp, &k, found);
}

int store_stream_consumer_insert(struct store_stream *s, struct store_stream_group *g,
                                 size_t at, const uint8_t *name, size_t len, int64_t seen_ms)
{
    if (arr_grow(s, (void **)&g->cons, &g->cap_cons, g->n_cons + 1, sizeof(*g->cons)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memmove(&g->cons[at + 1], &g->cons[at], (g->n_cons - at) * sizeof(*g->cons));
    g->n_cons++;
    g->cons[at].name = name;
    g->cons[at].name_len = len;
    g->cons[at].seen_ms = seen_ms;
    for (size_t i = 0; i < g->n_pel; i++) {
        if (g->pel[i].consumer >= at) {
            g->pel[i].consumer++;
        }
    }
    return TERSE_OK;
}

void store_stream_consumer_remove(struct store_stream_group *g, size_t at, size_t *n_pending)
{
    size_t k = 0;

    *n_pending = 0;
    for (size_t i = 0; i < g->n_pel; i++) {
        if (g->pel[i].consumer == at) {
            (*n_pending)++;
            continue;
        }
        g->pel[k] = g->pel[i];
        if (g->pel[k].consumer > at) {
            g->pel[k].consumer--;
        }
        k++;
    }
    g->n_pel = k;
    memmove(&g->cons[at], &g->cons[at + 1], (g->n_cons - at - 1) * sizeof(*g->cons));
    g->n_cons--;
}

size_t store_stream_pel_find(const struct store_stream_group *g, const struct store_stream_id *id,
                             bool *found)
{
    return search(g->pel, g->n_pel, pending_cmp, id, found);
}

int store_stream_pel_insert(struct store_stream *s, struct store_stream_group *g, size_t at,
                            const struct store_stream_pending *p)
{
    if (arr_grow(s, (void **)&g->pel, &g->cap_pel, g->n_pel + 1, sizeof(*g->pel)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memmove(&g->pel[at + 1], &g->pel[at], (g->n_pel - at) * sizeof(*g->pel));
    g->n_pel++;
    g->pel[at] = *p;
    return TERSE_OK;
}

void store_stream_pel_remove(struct store_stream_group *g, size_t at)
{
    memmove(&g->pel[at], &g->pel[at + 1], (g->n_pel - at - 1) * sizeof(*g->pel));
    g->n_pel--;
}

size_t store_stream_consumer_pending(const struct store_stream_group *g, size_t ci)
{
    size_t n = 0;

    for (size_t i = 0; i < g->n_pel; i++) {
        n += g->pel[i].consumer == ci;
    }
    return n;
}
