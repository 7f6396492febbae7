/*
 * coll_stream_pel: a chunked stream's groups' pending entries, held apart from its meta
 * (coll_stream.h): one COLL_PEL container (coll_pel.h) per group, in the meta's group order,
 * chained through c->aux (coll.h), and the meta's form with them written back inline (the
 * stream form's pending lists) for the paths that want it whole.
 *
 * Buffers: the model decoded here is made from core_alloc (coll_mem_alloc) and freed before
 * returning; the full meta form is written into a block core_alloc'd here and handed to the
 * caller, who frees it with core_free.
 */
#include "coll/coll_stream.h"

#include <string.h>

#include "coll/coll_env_internal.h"
#include "coll/coll_pel.h"
#include "core/core_mem.h"
#include "terse/status.h"

static const terse_allocator pel_alloc = {coll_mem_alloc, coll_mem_free, NULL};

struct coll *coll_stream_pel(struct coll *c, size_t gi)
{
    struct coll *p = c->aux;

    while (p != NULL && gi-- > 0) {
        p = p->aux;
    }
    return p;
}

size_t coll_stream_n_pels(const struct coll *c)
{
    size_t n = 0;

    for (const struct coll *p = c->aux; p != NULL; p = p->aux) {
        n++;
    }
    return n;
}

/* The link that points at the gi-th PEL (or where it would go): c->aux or a PEL's aux. */
static struct coll **pel_link(struct coll *c, size_t gi)
{
    struct coll **l = &c->aux;

    while (gi-- > 0 && *l != NULL) {
        l = &(*l)->aux;
    }
    return l;
}

int coll_stream_pel_add(struct coll_env *env, struct coll *c, size_t gi)
{
    struct coll *p;
    struct coll **l;
    int st;

    if (gi > coll_stream_n_pels(c)) {
        return TERSE_EINVAL;
    }
    st = coll_pel_create(env, c->chunk_max, &p);
    if (st != TERSE_OK) {
        return st;
    }
    l = pel_link(c, gi);
    p->aux = *l;
    *l = p;
    return TERSE_OK;
}

void coll_stream_pel_drop(struct coll_env *env, struct coll *c, size_t gi)
{
    struct coll **l = pel_link(c, gi);
    struct coll *p = *l;

    if (p == NULL) {
        return;
    }
    *l = p->aux;
    p->aux = NULL;
    coll_release(env, p); /* a big PEL goes in bounded steps (lazy free) */
}

/* ---- the meta with its pending entries inline ------------------------------------------- */

/* Fills group g's pending list (empty in a meta) from pel, its consumers' counts recounted:
 * every record's consumer must be one of g's. */
static int group_fill(struct coll_env *env, struct store_stream *s, struct store_stream_group *g,
                      struct coll *pel)
{
    struct coll_pel_rec *recs = NULL;
    size_t cap = 0;
    uint64_t rank = 0;
    int st = TERSE_OK;

    for (size_t k = 0; k < g->n_cons; k++) {
        g->cons[k].n_pending = 0;
    }
    while (st == TERSE_OK && rank < coll_count(pel)) {
        struct coll_pel_chunk ch;
        st = coll_pel_read_chunk(env, pel, rank, &ch, &recs, &cap);
        for (size_t i = 0; st == TERSE_OK && i < ch.n; i++) {
            bool found;
            size_t ci = store_stream_consumer_find(g, recs[i].name, recs[i].name_len, &found);
            struct store_stream_pending p = {recs[i].id, ci, recs[i].delivery_ms,
                                             recs[i].delivery_count};
            if (!found) {
                st = TERSE_ECORRUPT;
                break;
            }
            st = store_stream_pel_insert(s, g, g->n_pel, &p);
        }
        rank += ch.n;
    }
    coll_pel_recs_free(recs);
    return st;
}

/* The meta decoded into s (a meta's: its pending lists empty), s borrowing a copy of it that
 * s->ext holds (model_free frees both): a PEL read reuses the buffer the meta was decoded
 * into. TERSE_OK, or a status (s left empty). */
static int model_meta(struct coll_env *env, struct coll *c, struct store_stream *s)
{
    const uint8_t *m;
    size_t mlen;
    uint8_t *copy;
    int st = coll_stream_meta(env, c, &m, &mlen);

    store_stream_init(s, &pel_alloc);
    if (st != TERSE_OK) {
        return st;
    }
    copy = core_alloc(mlen + 1);
    if (copy == NULL) {
        return TERSE_ENOMEM;
    }
    memcpy(copy, m, mlen);
    st = store_stream_decode_meta(s, &pel_alloc, copy, mlen);
    if (st == TERSE_OK && (s->n_ents != 0 || s->n_nodes != 0)) {
        store_stream_deinit(s);
        st = TERSE_ECORRUPT;
    }
    if (st != TERSE_OK) {
        core_free(copy);
        return st;
    }
    s->ext = copy;
    return TERSE_OK;
}

static void model_free(struct store_stream *s)
{
    void *copy = s->ext;

    store_stream_deinit(s);
    core_free(copy);
}

/* The meta decoded with every group's pending list filled from its PEL: TERSE_OK (model_free
 * s), or a status (s left empty). The consumers' counts are checked against the PELs. */
static int model_full(struct coll_env *env, struct coll *c, struct store_stream *s)
{
    int st = model_meta(env, c, s);

    if (st == TERSE_OK && coll_stream_n_pels(c) != s->n_groups) {
        st = TERSE_ECORRUPT;
    }
    for (size_t i = 0; st == TERSE_OK && i < s->n_groups; i++) {
        struct store_stream_group *g = &s->groups[i];
        uint64_t total = 0;
        for (size_t k = 0; k < g->n_cons; k++) {
            total += g->cons[k].n_pending;
        }
        if (g->n_pel != 0 || total != coll_count(coll_stream_pel(c, i))) {
            st = TERSE_ECORRUPT;
            break;
        }
        st = group_fill(env, s, g, coll_stream_pel(c, i));
    }
    if (st != TERSE_OK) {
        model_free(s);
    }
    return st;
}


int coll_stream_meta_full(struct coll_env *env, struct coll *c, uint8_t **out, size_t *len)
{
    struct store_stream s;
    size_t need;
    uint8_t *b;
    int st = model_full(env, c, &s);

    *out = NULL;
    *len = 0;
    if (st != TERSE_OK) {
        return st;
    }
    need = store_stream_size(&s);
    b = core_alloc(need + 1);
    st = b == NULL ? TERSE_ENOMEM : store_stream_encode(&s, b, need, len);
    model_free(&s);
    if (st != TERSE_OK) {
        core_free(b);
        return st;
    }
    *out = b;
    return TERSE_OK;
}

void coll_stream_meta_full_free(uint8_t *form)
{
    core_free(form);
}

int coll_stream_pels_verify(struct coll_env *env, struct coll *c)
{
    struct store_stream s;
    int st = TERSE_OK;

    for (struct coll *p = c->aux; st == TERSE_OK && p != NULL; p = p->aux) {
        st = p->type == COLL_PEL ? coll_pel_verify(env, p) : TERSE_ECORRUPT;
    }
    if (st == TERSE_OK) {
        st = model_full(env, c, &s); /* names and counts against the meta */
    }
    if (st == TERSE_OK) {
        model_free(&s);
    }
    return st;
}

/* ---- a model's pending lists moved out ----------------------------------------------------- */

int coll_stream_adopt_pels(struct coll_env *env, struct coll *c)
{
    struct store_stream s;
    int st = c->aux != NULL ? TERSE_ECORRUPT : model_meta(env, c, &s);

    if (st != TERSE_OK) {
        return st;
    }
    st = coll_stream_pels_from_model(env, c, &s);
    if (st == TERSE_OK) {
        st = coll_stream_meta_store(env, c, &s);
    }
    model_free(&s);
    return st;
}

int coll_stream_pels_from_model(struct coll_env *env, struct coll *c, const struct store_stream *s)
{
    struct coll_pel_rec *recs = NULL;
    size_t cap = 0;
    int st = TERSE_OK;

    for (size_t i = 0; st == TERSE_OK && i < s->n_groups; i++) {
        const struct store_stream_group *g = &s->groups[i];
        struct coll *p = NULL, **l;

        if (g->n_pel > cap) {
            struct coll_pel_rec *q = core_realloc(recs, g->n_pel * sizeof(*recs));
            if (q == NULL) {
                st = TERSE_ENOMEM;
                break;
            }
            recs = q;
            cap = g->n_pel;
        }
        for (size_t k = 0; k < g->n_pel; k++) {
            const struct store_stream_pending *pe = &g->pel[k];
            const struct store_stream_consumer *who = &g->cons[pe->consumer];
            recs[k] = (struct coll_pel_rec){pe->id, who->name, who->name_len, pe->delivery_ms,
                                            pe->delivery_count};
        }
        st = coll_pel_from_recs(env, recs, g->n_pel, c->chunk_max, &p);
        if (st == TERSE_OK) {
            l = pel_link(c, coll_stream_n_pels(c));
            *l = p;
        }
    }
    core_free(recs);
    return st;
}
