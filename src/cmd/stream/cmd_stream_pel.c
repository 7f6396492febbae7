/*
 * cmd_stream_pel: a group's pending entries whichever way the stream is held (cmd_stream.h): in
 * the group's array of the model (one value), or in the group's PEL of a chunked stream
 * (coll/coll_stream.h, coll/coll_pel.h), reached by rank as the entries are. Either way the
 * consumers' pending counts in the model follow every edit, so the meta stored after a command
 * agrees with its PELs.
 *
 * A chunked PEL's chunk is read once and its records converted into the state's pends array
 * (copies: consumers as the group's indexes, found by name), so what a command holds does not
 * point into a buffer a later read reuses. A read that fails sets the state's bad status
 * (cmd_stream_failed replies it) and answers a stand-in; a write that fails leaves the PEL and
 * the counts as they were and returns the status.
 */
#include "cmd/stream/cmd_stream.h"
#include "cmd/stream/cmd_stream_big.h"

#include <string.h>

#include "terse/status.h"

static struct cmd_stream_big *big_of(const struct store_stream *s)
{
    return (struct cmd_stream_big *)s->ext;
}

/* The PEL of g (NULL when the chain lacks it: the state's bad status is then set). */
static struct coll *pel_of(const struct store_stream *s, const struct store_stream_group *g)
{
    struct cmd_stream_big *b = big_of(s);
    size_t gi = (size_t)(g - s->groups);

    if (b->pel == NULL || b->pel_gi != gi) {
        b->pel = coll_stream_pel(b->co, gi);
        b->pel_gi = gi;
        b->pcached = false;
        if (b->pel == NULL && b->bad == 0) {
            b->bad = TERSE_ECORRUPT;
        }
    }
    return b->pel;
}

size_t cmd_stream_pel_len(const struct store_stream *s, const struct store_stream_group *g)
{
    struct coll *p;

    if (big_of(s) == NULL) {
        return g->n_pel;
    }
    p = pel_of(s, g);
    return p != NULL ? (size_t)coll_count(p) : 0;
}

size_t cmd_stream_pel_find(const struct store_stream *s, const struct store_stream_group *g,
                           const struct store_stream_id *id, bool *found)
{
    struct cmd_stream_big *b = big_of(s);
    struct coll *p;
    uint64_t rank = 0;
    int st;

    if (b == NULL) {
        return store_stream_pel_find(g, id, found);
    }
    *found = false;
    p = pel_of(s, g);
    if (p == NULL) {
        return 0;
    }
    st = b->bad == 0 ? coll_pel_seek(b->env, p, id, &rank, found) : b->bad;
    if (st != TERSE_OK) {
        b->bad = st;
        *found = false;
        return (size_t)coll_count(p);
    }
    return (size_t)rank;
}

/* Reads the chunk of p holding rank k into the state's pends. TERSE_OK or a status. */
static int pel_load(struct cmd_stream_big *b, const struct store_stream_group *g, struct coll *p,
                    size_t k)
{
    struct coll_pel_chunk ch;
    int st = coll_pel_read_chunk(b->env, p, k, &ch, &b->recs, &b->rcap);

    b->pcached = false;
    if (st != TERSE_OK) {
        return st;
    }
    if (ch.n > b->pcap) {
        struct store_stream_pending *q = b->alloc.alloc(b->alloc.opaque, ch.n * sizeof(*q));
        if (q == NULL) {
            return TERSE_ENOMEM;
        }
        if (b->pends != NULL) {
            b->alloc.free(b->alloc.opaque, b->pends);
        }
        b->pends = q;
        b->pcap = ch.n;
    }
    for (size_t i = 0; i < ch.n; i++) {
        const struct coll_pel_rec *r = &b->recs[i];
        bool found;
        size_t ci = store_stream_consumer_find(g, r->name, r->name_len, &found);
        if (!found) {
            return TERSE_ECORRUPT; /* a consumer the group does not have */
        }
        b->pends[i] = (struct store_stream_pending){r->id, ci, r->delivery_ms, r->delivery_count};
    }
    b->pfirst = ch.first_rank;
    b->pn = ch.n;
    b->pcached = true;
    return TERSE_OK;
}

struct store_stream_pending cmd_stream_pel_at(const struct store_stream *s,
                                              const struct store_stream_group *g, size_t k)
{
    static const struct store_stream_pending none = {{0, 0}, 0, 0, 0};
    struct cmd_stream_big *b = big_of(s);
    struct coll *p;
    int st;

    if (b == NULL) {
        return g->pel[k];
    }
    p = pel_of(s, g);
    if (p == NULL) {
        return none;
    }
    if (b->pcached && k >= b->pfirst && k - b->pfirst < b->pn) {
        return b->pends[k - b->pfirst];
    }
    st = b->bad == 0 ? pel_load(b, g, p, k) : b->bad;
    if (st != TERSE_OK) {
        b->bad = st;
        return none; /* the reply is replaced by the error (cmd_stream_failed) */
    }
    return b->pends[k - b->pfirst];
}

void cmd_stream_pel_forget(const struct store_stream *s)
{
    if (big_of(s) != NULL) {
        big_of(s)->pcached = false;
    }
}

int cmd_stream_pel_put(struct store_stream *s, struct store_stream_group *g, size_t at,
                       bool there, const struct store_stream_pending *pe)
{
    struct cmd_stream_big *b = big_of(s);
    const struct store_stream_consumer *who = &g->cons[pe->consumer];
    struct coll_pel_rec r = {pe->id, who->name, who->name_len, pe->delivery_ms,
                             pe->delivery_count};
    size_t was = 0;
    struct coll *p;
    int st;

    if (b == NULL) {
        if (there) {
            store_stream_pel_set(g, at, pe);
            return TERSE_OK;
        }
        return store_stream_pel_insert(s, g, at, pe);
    }
    if (there) {
        was = cmd_stream_pel_at(s, g, at).consumer;
    }
    p = pel_of(s, g);
    if (b->bad != 0 || p == NULL) {
        return b->bad != 0 ? b->bad : TERSE_ECORRUPT;
    }
    b->pcached = false;
    st = coll_pel_put(b->env, p, &r, NULL);
    if (st != TERSE_OK) {
        return st;
    }
    if (there) {
        g->cons[was].n_pending--;
    }
    g->cons[pe->consumer].n_pending++;
    return TERSE_OK;
}

int cmd_stream_pel_remove(struct store_stream *s, struct store_stream_group *g, size_t at)
{
    struct cmd_stream_big *b = big_of(s);
    struct store_stream_pending pe;
    struct coll *p;
    bool found = false;
    int st;

    if (b == NULL) {
        store_stream_pel_remove(g, at);
        return TERSE_OK;
    }
    pe = cmd_stream_pel_at(s, g, at);
    p = pel_of(s, g);
    if (b->bad != 0 || p == NULL) {
        return b->bad != 0 ? b->bad : TERSE_ECORRUPT;
    }
    b->pcached = false;
    st = coll_pel_del(b->env, p, &pe.id, &found);
    if (st == TERSE_OK && !found) {
        st = TERSE_ECORRUPT; /* the record the rank named is not there */
    }
    if (st == TERSE_OK) {
        g->cons[pe.consumer].n_pending--;
    }
    return st;
}

int cmd_stream_consumer_del(struct store_stream *s, struct store_stream_group *g, size_t ci,
                            size_t *n_pending)
{
    struct cmd_stream_big *b = big_of(s);
    struct store_stream_id *ids = NULL;
    size_t n = 0, len;
    int st = TERSE_OK;

    *n_pending = 0;
    if (b != NULL && g->cons[ci].n_pending > 0) {
        /* Its entries by a walk of the group's PEL (Redis walks the consumer's own: O(its
         * entries)), then taken out one by one. */
        len = cmd_stream_pel_len(s, g);
        ids = b->alloc.alloc(b->alloc.opaque, (size_t)g->cons[ci].n_pending * sizeof(*ids));
        if (ids == NULL) {
            return TERSE_ENOMEM;
        }
        for (size_t k = 0; k < len && n < g->cons[ci].n_pending && b->bad == 0; k++) {
            struct store_stream_pending pe = cmd_stream_pel_at(s, g, k);
            if (pe.consumer == ci) {
                ids[n++] = pe.id;
            }
        }
        st = b->bad != 0 ? b->bad : n != g->cons[ci].n_pending ? TERSE_ECORRUPT : TERSE_OK;
        for (size_t i = 0; st == TERSE_OK && i < n; i++) {
            bool found = false;
            b->pcached = false;
            st = coll_pel_del(b->env, b->pel, &ids[i], &found);
            if (st == TERSE_OK && !found) {
                st = TERSE_ECORRUPT;
            }
            if (st == TERSE_OK) {
                g->cons[ci].n_pending--;
                (*n_pending)++;
            }
        }
        b->alloc.free(b->alloc.opaque, ids);
        if (st != TERSE_OK) {
            return st;
        }
    }
    {
        size_t gone = 0;
        store_stream_consumer_remove(g, ci, &gone);
        *n_pending += gone;
    }
    return TERSE_OK;
}

int cmd_stream_group_add(struct store_stream *s, size_t at, const uint8_t *name, size_t len,
                         struct store_stream_id last_id, int64_t entries_read)
{
    struct cmd_stream_big *b = big_of(s);
    int st = store_stream_group_insert(s, at, name, len, last_id, entries_read);

    if (st != TERSE_OK || b == NULL) {
        return st;
    }
    b->pel = NULL; /* the groups after it moved */
    st = coll_stream_pel_add(b->env, b->co, at);
    if (st != TERSE_OK) {
        store_stream_group_remove(s, at);
    }
    return st;
}

void cmd_stream_group_del(struct store_stream *s, size_t at)
{
    struct cmd_stream_big *b = big_of(s);

    if (b != NULL) {
        b->pel = NULL;
        coll_stream_pel_drop(b->env, b->co, at);
    }
    store_stream_group_remove(s, at);
}
