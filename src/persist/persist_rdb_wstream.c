/*
 * persist_rdb_wstream: a terse stream as RDB_TYPE_STREAM_LISTPACKS_2.
 *
 *   n_listpacks, then per terse node: its master ID (16 bytes, big endian ms and seq, as a
 *   string) and its listpack (as a string):
 *     count | deleted (0) | n master fields | master fields... | 0
 *     per entry: flags | ms - master ms | seq - master seq | [n fields] |
 *                [field] value ... | lp-count
 *   length | last ID | first ID | max deleted ID | entries added   (lengths)
 *   n_groups, per group: name | last ID | entries read (-1 as 2^64 - 1) |
 *     PEL: n, per entry ID (16 bytes) | delivery time (u64 LE ms) | delivery count
 *     consumers: n, per consumer name | seen time (u64 LE ms) | n | IDs of its PEL (16 bytes)
 *
 * The master entry takes the first entry's fields; an entry with exactly those fields is
 * written with SAMEFIELDS and its values only, as Redis's streamAppendItem does. The master ID
 * is the node's first entry's ID, so every delta is >= 0. Deleted entries are not kept by
 * terse, so "deleted" is 0.
 *
 * A stream held in chunks (coll_stream.h) is written a node at a time (rdb_write_stream_coll:
 * each node chunk read, its entries into an array of one node's size), then its meta chunk's
 * IDs and groups. A stream form is decoded into its model (store_stream.h) with the writer's
 * allocator, and a
 * group's PEL is sorted by consumer (one array of indexes, same allocator) to write each
 * consumer's own PEL; both are freed before return.
 */
#include "persist/persist_rdb_internal.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll_stream.h"
#include "terse/status.h"

/* The master entry of a node: its first entry's fields. */
struct master {
    struct store_stream_id id;
    const struct store_stream_entry *first;
};

/* A listpack's entries measured: bytes and count. */
struct lp_size {
    size_t bytes;
    size_t count;
};

/* Adds an integer entry to *size, and writes it when w is not NULL. */
static void lp_int(struct rdb_w *w, struct lp_size *size, long long v)
{
    size->bytes += rdb_lp_int_size(v);
    size->count++;
    if (w != NULL) {
        rdb_lp_put_int(w, v);
    }
}

static void lp_str(struct rdb_w *w, struct lp_size *size, const uint8_t *p, size_t n)
{
    size->bytes += rdb_lp_str_size(p, n);
    size->count++;
    if (w != NULL) {
        rdb_lp_put_str(w, p, n);
    }
}

/* 1 when e's fields are the master's, in the same order. */
static int same_fields(const struct store_stream_entry *e, const struct store_stream_entry *m)
{
    const uint8_t *a = e->pairs, *ae = e->pairs + e->pairs_len;
    const uint8_t *b = m->pairs, *be = m->pairs + m->pairs_len;

    if (e->n_pairs != m->n_pairs) {
        return 0;
    }
    for (uint64_t i = 0; i < e->n_pairs; i++) {
        const uint8_t *fa, *fb, *va, *vb;
        size_t la, lb, lva, lvb;

        if (store_stream_pair_next(&a, ae, &fa, &la) != TERSE_OK ||
            store_stream_pair_next(&b, be, &fb, &lb) != TERSE_OK ||
            store_stream_pair_next(&a, ae, &va, &lva) != TERSE_OK ||
            store_stream_pair_next(&b, be, &vb, &lvb) != TERSE_OK) {
            return 0;
        }
        if (la != lb || memcmp(fa, fb, la) != 0) {
            return 0;
        }
    }
    return 1;
}

/* Measures (w NULL) or writes a node's listpack entries: master entry, then each entry. */
static int node_entries(struct rdb_w *w, const struct store_stream_entry *ents, size_t n,
                        struct lp_size *size)
{
    const struct store_stream_entry *m = &ents[0];
    const uint8_t *p = m->pairs, *end = m->pairs + m->pairs_len, *b;
    size_t len;

    lp_int(w, size, (long long)n);
    lp_int(w, size, 0);
    lp_int(w, size, (long long)m->n_pairs);
    for (uint64_t i = 0; i < m->n_pairs; i++) {
        if (store_stream_pair_next(&p, end, &b, &len) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        lp_str(w, size, b, len);
        if (store_stream_pair_next(&p, end, &b, &len) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
    }
    lp_int(w, size, 0);
    for (size_t k = 0; k < n; k++) {
        const struct store_stream_entry *e = &ents[k];
        int same = same_fields(e, m);
        long long lp_count = (long long)e->n_pairs + 3;

        lp_int(w, size, same ? STREAM_FLAG_SAMEFIELDS : 0);
        lp_int(w, size, (long long)(e->id.ms - m->id.ms));
        lp_int(w, size, (long long)(e->id.seq - m->id.seq));
        if (!same) {
            lp_int(w, size, (long long)e->n_pairs);
            lp_count += (long long)e->n_pairs + 1;
        }
        p = e->pairs;
        end = e->pairs + e->pairs_len;
        for (uint64_t i = 0; i < 2 * e->n_pairs; i++) {
            if (store_stream_pair_next(&p, end, &b, &len) != TERSE_OK) {
                return TERSE_ECORRUPT;
            }
            if (!same || i % 2 == 1) {
                lp_str(w, size, b, len);
            }
        }
        lp_int(w, size, lp_count);
    }
    return TERSE_OK;
}

/* One node: its master ID, then its listpack (measured first: its size leads it). */
static int write_node(struct rdb_w *w, const struct store_stream_entry *ents, size_t n)
{
    struct lp_size size = {0, 0};
    size_t total;
    int st = node_entries(NULL, ents, n, &size);

    if (st != TERSE_OK) {
        return st;
    }
    total = RDB_LP_HEADER + size.bytes + 1;
    rdb_w_len(w, 16);
    rdb_w_stream_id(w, ents[0].id.ms, ents[0].id.seq);
    rdb_w_len(w, total);
    rdb_lp_put_header(w, total, size.count);
    st = node_entries(w, ents, n, &size);
    if (st == TERSE_OK) {
        rdb_w_byte(w, 0xFF);
    }
    return st;
}

static int write_nodes(struct rdb_w *w, const struct store_stream *s)
{
    size_t at = 0;

    rdb_w_len(w, s->n_nodes);
    for (size_t i = 0; i < s->n_nodes; i++) {
        const struct store_stream_node *nd = &s->nodes[i];
        int st;

        if (nd->live == 0 || at + nd->live > s->n_ents) {
            return TERSE_ECORRUPT;
        }
        st = write_node(w, &s->ents[at], nd->live);
        if (st != TERSE_OK) {
            return st;
        }
        at += nd->live;
    }
    return at == s->n_ents ? TERSE_OK : TERSE_ECORRUPT;
}

static void put_ms(struct rdb_w *w, int64_t ms)
{
    uint8_t b[8];

    rdb_put_le(b, (uint64_t)ms, 8);
    rdb_w_put(w, b, 8);
}

static void *w_alloc(const struct rdb_w *w, size_t n)
{
    return w->alloc != NULL ? w->alloc->alloc(w->alloc->opaque, n) : malloc(n);
}

static void w_free(const struct rdb_w *w, void *p)
{
    if (w->alloc != NULL) {
        w->alloc->free(w->alloc->opaque, p);
    } else {
        free(p);
    }
}

/* Writes a group: name, IDs, its PEL, then its consumers each with its own PEL. The PEL's
 * indexes are sorted by consumer first (a counting sort, stable, so each consumer's stay in
 * ID order): one array of n_pel + n_cons + 1 indexes from the writer's allocator. */
static int write_group(struct rdb_w *w, const struct store_stream_group *g)
{
    size_t *idx = NULL, *end = NULL;

    if (g->n_pel > 0) {
        idx = w_alloc(w, (g->n_pel + g->n_cons + 1) * sizeof(*idx));
        if (idx == NULL) {
            return TERSE_ENOMEM;
        }
        end = idx + g->n_pel;
        memset(end, 0, (g->n_cons + 1) * sizeof(*end));
        for (size_t i = 0; i < g->n_pel; i++) {
            end[g->pel[i].consumer + 1]++; /* < n_cons: store_stream_decode checked it */
        }
        for (size_t c = 1; c <= g->n_cons; c++) {
            end[c] += end[c - 1];
        }
        for (size_t i = 0; i < g->n_pel; i++) {
            idx[end[g->pel[i].consumer]++] = i; /* end[c] moves from c's start to its end */
        }
    }
    rdb_w_string(w, g->name, g->name_len);
    rdb_w_len(w, g->last_id.ms);
    rdb_w_len(w, g->last_id.seq);
    rdb_w_len(w, (uint64_t)g->entries_read); /* -1 (unknown) as 2^64 - 1, as Redis */
    rdb_w_len(w, g->n_pel);
    for (size_t i = 0; i < g->n_pel; i++) {
        const struct store_stream_pending *pe = &g->pel[i];
        rdb_w_stream_id(w, pe->id.ms, pe->id.seq);
        put_ms(w, pe->delivery_ms);
        rdb_w_len(w, pe->delivery_count);
    }
    rdb_w_len(w, g->n_cons);
    for (size_t c = 0; c < g->n_cons; c++) {
        size_t from = c == 0 || end == NULL ? 0 : end[c - 1], to = end == NULL ? 0 : end[c];

        rdb_w_string(w, g->cons[c].name, g->cons[c].name_len);
        put_ms(w, g->cons[c].seen_ms);
        rdb_w_len(w, to - from);
        for (size_t i = from; i < to; i++) {
            rdb_w_stream_id(w, g->pel[idx[i]].id.ms, g->pel[idx[i]].id.seq);
        }
    }
    w_free(w, idx);
    return TERSE_OK;
}

/* What follows the nodes: the counters and IDs (n entries, the first one's ID), the groups. */
static int write_rest(struct rdb_w *w, const struct store_stream *s, uint64_t n,
                      struct store_stream_id first)
{
    int st = TERSE_OK;

    rdb_w_len(w, n);
    rdb_w_len(w, s->last_id.ms);
    rdb_w_len(w, s->last_id.seq);
    rdb_w_len(w, first.ms);
    rdb_w_len(w, first.seq);
    rdb_w_len(w, s->max_deleted.ms);
    rdb_w_len(w, s->max_deleted.seq);
    rdb_w_len(w, s->entries_added);
    rdb_w_len(w, s->n_groups);
    for (size_t i = 0; i < s->n_groups && st == TERSE_OK; i++) {
        st = write_group(w, &s->groups[i]);
    }
    return st;
}

int rdb_write_stream(struct rdb_w *w, const uint8_t *form, size_t len)
{
    struct store_stream s;
    struct store_stream_id first = {0, 0};
    int st = store_stream_decode(&s, w->alloc, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    st = write_nodes(w, &s);
    if (st == TERSE_OK) {
        if (s.n_ents > 0) {
            first = s.ents[0].id;
        }
        st = write_rest(w, &s, s.n_ents, first);
    }
    store_stream_deinit(&s);
    return st;
}

int rdb_write_stream_coll(struct rdb_w *w, struct coll_env *env, struct coll *c)
{
    struct store_stream_entry *ents = NULL;
    struct store_stream_id first = {0, 0};
    struct coll_stream_node nd;
    struct store_stream s;
    uint8_t *form = NULL;
    size_t cap = 0, len, nodes = 0;
    uint64_t rank = 0;
    int st = TERSE_OK;

    rdb_w_len(w, c->tree.n_chunks);
    while (st == TERSE_OK && rank < coll_count(c)) {
        st = coll_stream_read_node(env, c, rank, &nd, &ents, &cap);
        if (st == TERSE_OK && (nd.n == 0 || nd.first_rank != rank)) {
            st = TERSE_ECORRUPT;
        }
        if (st == TERSE_OK) {
            first = rank == 0 ? ents[0].id : first;
            st = write_node(w, ents, nd.n);
            rank += nd.n;
            nodes++;
        }
    }
    coll_stream_ents_free(ents);
    if (st == TERSE_OK && (nodes != c->tree.n_chunks || rank != coll_count(c))) {
        st = TERSE_ECORRUPT;
    }
    /* The meta after the nodes, with the groups' pending entries (their PELs) inline. */
    if (st == TERSE_OK) {
        st = coll_stream_meta_full(env, c, &form, &len);
    }
    if (st != TERSE_OK) {
        return st;
    }
    st = store_stream_decode(&s, w->alloc, form, len);
    if (st == TERSE_OK) {
        st = s.n_ents == 0 ? write_rest(w, &s, coll_count(c), first) : TERSE_ECORRUPT;
        store_stream_deinit(&s);
    }
    coll_stream_meta_full_free(form);
    return st;
}
