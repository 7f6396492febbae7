/*
 * persist_rdb_rbuild: phase B of reading a stream (persist_rdb_rstream.c): the model built from
 * the records phase A left in w->arr, once w->elems no longer moves. Entries are appended node
 * by node, groups and consumers inserted by name (a name twice is corrupt), and each PEL entry
 * given the consumer whose own PEL claims it, found by binary search in the group's PEL (in ID
 * order, checked): an entry claimed twice or by no consumer is corrupt, as terse keeps an
 * owner for each.
 */
#include "persist/persist_rdb_internal.h"

#include "terse/status.h"

/* Phase B for one group: recs[0] is its GROUP record. *used gets the records it took. */
static int build_group(struct store_stream *s, struct srec *recs, size_t n_recs,
                       const uint8_t *base, size_t *used)
{
    struct srec *gr = &recs[0], *pel = &recs[1], *c;
    struct store_stream_group *g;
    size_t gi, k;
    bool found;

    gi = store_stream_group_find(s, base + gr->off, gr->len, &found);
    if (found) {
        return TERSE_ECORRUPT;
    }
    if (store_stream_group_insert(s, gi, base + gr->off, gr->len, gr->id, gr->x) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    g = &s->groups[gi];
    k = 1 + gr->n;
    for (uint64_t i = 0; i < gr->m; i++) { /* consumers first: their indexes are then final */
        size_t ci;
        c = &recs[k];
        ci = store_stream_consumer_find(g, base + c->off, c->len, &found);
        if (found) {
            return TERSE_ECORRUPT;
        }
        if (store_stream_consumer_insert(s, g, ci, base + c->off, c->len, c->x) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
        k += 1 + c->n;
    }
    k = 1 + gr->n;
    for (uint64_t i = 0; i < gr->m; i++) {
        size_t ci;
        c = &recs[k];
        ci = store_stream_consumer_find(g, base + c->off, c->len, &found);
        for (uint64_t j = 0; j < c->n; j++) {
            /* the PEL is in ID order (checked below): binary search for the claimed ID */
            size_t lo = 0, hi = gr->n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (store_stream_id_cmp(&pel[mid].id, &recs[k + 1 + j].id) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (lo == gr->n || store_stream_id_cmp(&pel[lo].id, &recs[k + 1 + j].id) != 0 ||
                pel[lo].m != 0) {
                return TERSE_ECORRUPT;
            }
            pel[lo].m = ci + 1;
        }
        k += 1 + c->n;
    }
    for (uint64_t i = 0; i < gr->n; i++) {
        struct store_stream_pending p = {.id = pel[i].id, .delivery_ms = pel[i].x,
                                         .delivery_count = pel[i].n};
        if (pel[i].m == 0 || (i > 0 && store_stream_id_cmp(&pel[i - 1].id, &pel[i].id) >= 0)) {
            return TERSE_ECORRUPT;
        }
        p.consumer = (size_t)pel[i].m - 1;
        if (store_stream_pel_insert(s, g, g->n_pel, &p) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
    }
    *used = k;
    return k <= n_recs ? TERSE_OK : TERSE_ECORRUPT;
}

int rdb_stream_build(struct rdb_r *r, struct store_stream *s)
{
    struct srec *recs = (struct srec *)(void *)r->w->arr.p;
    size_t n = r->w->arr.len / sizeof(*recs), i = 0, used;
    const uint8_t *base = r->w->elems.p;
    bool new_node = false;
    int st;

    while (i < n) {
        struct srec *x = &recs[i];
        switch (x->kind) {
        case SREC_NODE:
            new_node = true;
            i++;
            break;
        case SREC_NODE_END:
            s->nodes[s->n_nodes - 1].slots += x->a; /* read_node refuses a node with no entry */
            i++;
            break;
        case SREC_ENTRY: {
            struct store_stream_entry e = {.id = x->id, .n_pairs = x->n, .pairs = base + x->off,
                                           .pairs_len = x->len};
            size_t node_max = new_node && s->n_nodes > 0 ? s->nodes[s->n_nodes - 1].slots : 0;
            if (store_stream_append(s, &e, node_max, UINT64_MAX) != TERSE_OK) {
                return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
            }
            new_node = false;
            i++;
            break;
        }
        case SREC_GROUP:
            st = build_group(s, x, n - i, base, &used);
            if (st != TERSE_OK) {
                return rdb_r_fail(r, st, "a consumer group is corrupt");
            }
            i += used;
            break;
        default:
            return rdb_r_fail(r, TERSE_ECORRUPT, "a consumer group is corrupt");
        }
    }
    return TERSE_OK;
}
