/*
 * store_stream_edit: the edits of a stream model (store_stream.h): entries appended and
 * removed, groups, consumers and pending entries found, inserted and removed, the consumers'
 * pending counts kept as they go.
 */
#include "store/form/store_stream.h"
#include "store/form/store_stream_internal.h"

#include <string.h>

#include "terse/status.h"

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

    if (store_stream_arr_grow(s, (void **)&s->ents, &s->cap_ents, s->n_ents + 1, sizeof(*s->ents)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (store_stream_node_full(last, e, max_entries, max_bytes)) {
        if (store_stream_arr_grow(s, (void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof(*s->nodes)) !=
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

    if (store_stream_arr_grow(s, (void **)&s->groups, &s->cap_groups, s->n_groups + 1, sizeof(*s->groups)) !=
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
    store_stream_arr_free(s, s->groups[at].cons);
    store_stream_arr_free(s, s->groups[at].pel);
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
    if (store_stream_arr_grow(s, (void **)&g->cons, &g->cap_cons, g->n_cons + 1, sizeof(*g->cons)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memmove(&g->cons[at + 1], &g->cons[at], (g->n_cons - at) * sizeof(*g->cons));
    g->n_cons++;
    g->cons[at].name = name;
    g->cons[at].name_len = len;
    g->cons[at].seen_ms = seen_ms;
    g->cons[at].n_pending = 0;
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

    *n_pending = (size_t)g->cons[at].n_pending;
    for (size_t i = 0; i < g->n_pel; i++) {
        if (g->pel[i].consumer == at) {
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
    if (store_stream_arr_grow(s, (void **)&g->pel, &g->cap_pel, g->n_pel + 1, sizeof(*g->pel)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memmove(&g->pel[at + 1], &g->pel[at], (g->n_pel - at) * sizeof(*g->pel));
    g->n_pel++;
    g->pel[at] = *p;
    g->cons[p->consumer].n_pending++;
    return TERSE_OK;
}

void store_stream_pel_set(struct store_stream_group *g, size_t at,
                          const struct store_stream_pending *p)
{
    g->cons[g->pel[at].consumer].n_pending--;
    g->pel[at] = *p;
    g->cons[p->consumer].n_pending++;
}

void store_stream_pel_remove(struct store_stream_group *g, size_t at)
{
    g->cons[g->pel[at].consumer].n_pending--;
    memmove(&g->pel[at], &g->pel[at + 1], (g->n_pel - at - 1) * sizeof(*g->pel));
    g->n_pel--;
}

size_t store_stream_consumer_pending(const struct store_stream_group *g, size_t ci)
{
    return (size_t)g->cons[ci].n_pending;
}
