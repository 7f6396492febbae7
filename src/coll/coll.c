/*
 * coll: containers, their chunks, background compression and lazy free (coll.h).
 *
 * Pending list: a container with chunks awaiting compression is linked in env->pending
 * (doubly, through pend_prev/pend_next) until a pass finds none left in it. A pass resumes
 * at c->cursor (an element rank, which stays meaningful however the tree changed) and walks
 * chunks in order; a hot chunk (written or read since the last pass) loses its mark and is
 * left for the next pass, so a chunk being written again and again is not compressed between
 * each write. A released container leaves the pending list for the lazy-free queue (the same
 * links), which coll_free_step empties a few chunks at a time.
 *
 * Chunks themselves (their blocks, reads and rewrites) are in coll_chunk.c.
 *
 * A container may own a chain of others through c->aux: a sorted set's member map (a hash), a
 * chunked stream's groups' PELs (one per group). Each is on the pending list by itself (the
 * compressor passes over it as over any container), and every lifetime call on c does the same
 * to the chain: destroy, release (the chain leaves the pending list and is freed on the lazy
 * queue after c's chunks, as part of c), copy, corrupt; coll_mem adds its bytes. n_colls
 * counts each.
 */
#include "coll/coll.h"

#include <stdbool.h>
#include <string.h>

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "terse/status.h"
#include "coll/coll_env_internal.h"

void *coll_mem_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return core_alloc(n);
}

void coll_mem_free(void *opaque, void *p)
{
    (void)opaque;
    core_free(p);
}

static const struct coll_alloc tree_mem = {coll_mem_alloc, coll_mem_free, NULL};

int coll_env_create(struct coll_env **out)
{
    struct coll_env *env = core_calloc(1, sizeof(*env));

    if (env != NULL) {
        env->fp_mask = UINT64_MAX;
    }
    *out = env;
    return env != NULL ? TERSE_OK : TERSE_ENOMEM;
}

void coll_env_set_codec(struct coll_env *env, struct codec_ctx *codec)
{
    env->codec = codec;
}

struct codec_ctx *coll_env_codec(const struct coll_env *env)
{
    return env->codec;
}

void coll_env_set_seed(struct coll_env *env, uint64_t seed)
{
    env->seed = seed;
}

uint64_t coll_env_seed(const struct coll_env *env)
{
    return env->seed;
}

void coll_env_set_fp_bits(struct coll_env *env, unsigned bits)
{
    env->fp_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
}

uint64_t coll_env_fp_mask(const struct coll_env *env)
{
    return env->fp_mask;
}

void coll_env_stats_get(const struct coll_env *env, struct coll_env_stats *out)
{
    *out = env->st;
}

void coll_env_trim(struct coll_env *env, size_t keep)
{
    for (int i = 0; i < 2; i++) {
        if (env->dcap[i] > keep) {
            core_free(env->dbuf[i]);
            env->dbuf[i] = NULL;
            env->dcap[i] = 0;
            env->dch[i] = NULL;
        }
    }
    if (env->build_cap > keep) {
        core_free(env->build);
        env->build = NULL;
        env->build_cap = 0;
    }
    if (env->side_cap > keep) {
        core_free(env->side);
        env->side = NULL;
        env->side_cap = 0;
    }
    coll_spares_free(env, keep);
}

void coll_env_count_corrupt(struct coll_env *env)
{
    env->st.n_corrupt++;
}

/* ---- lists of containers --------------------------------------------------------------------- */

static void list_unlink(struct coll **head, struct coll *c)
{
    if (c->pend_prev != NULL) {
        c->pend_prev->pend_next = c->pend_next;
    } else {
        *head = c->pend_next;
    }
    if (c->pend_next != NULL) {
        c->pend_next->pend_prev = c->pend_prev;
    }
    c->pend_prev = c->pend_next = NULL;
}

static void list_push(struct coll **head, struct coll *c)
{
    c->pend_prev = NULL;
    c->pend_next = *head;
    if (*head != NULL) {
        (*head)->pend_prev = c;
    }
    *head = c;
}

void coll_pending_note(struct coll_env *env, struct coll *c)
{
    if (!c->listed) {
        c->listed = 1;
        list_push(&env->pending, c);
    }
}

/* ---- containers ---------------------------------------------------------------------------- */

int coll_create(struct coll_env *env, enum coll_type type, uint32_t chunk_max, struct coll **out)
{
    struct coll *c = core_calloc(1, sizeof(*c));

    *out = c;
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    c->type = (uint8_t)type;
    c->chunk_max = chunk_max;
    c->keep_raw = 1;
    c->seed = env->seed;
    coll_tree_init(&c->tree, &tree_mem);
    c->bytes = core_mem_usable(c);
    env->st.n_colls++;
    return TERSE_OK;
}

static void open_free(struct coll *c, struct coll_open *o)
{
    if (o->p != NULL) {
        c->bytes -= core_mem_usable(o->p);
        core_free(o->p);
    }
    memset(o, 0, sizeof(*o));
}

/* Frees up to budget bytes of c's chunks (0: all), from the front; 1 when c is now empty of
 * chunks and open buffers. */
static int free_some(struct coll_env *env, struct coll *c, size_t budget, size_t *freed)
{
    while (c->tree.n_chunks > 0) {
        struct coll_it it = coll_tree_begin(&c->tree);
        struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        uint64_t before = c->bytes + c->tree.bytes;

        coll_tree_remove(&c->tree, &it);
        coll_chunk_drop(env, c, ch);
        *freed += before - (c->bytes + c->tree.bytes);
        if (budget != 0 && *freed >= budget) {
            return 0;
        }
    }
    open_free(c, &c->head);
    open_free(c, &c->tail);
    coll_chunk_drop(env, c, c->meta);
    c->meta = NULL;
    return 1;
}

/* Frees the header and tree of c, whose chunks and open ends are gone (and its aux chain's). */
static void header_free(struct coll_env *env, struct coll *c)
{
    while (c != NULL) {
        struct coll *next = c->aux;
        coll_tree_deinit(&c->tree);
        env->st.n_colls--;
        core_free(c);
        c = next;
    }
}

/* free_some over c, then over its aux chain (a sorted set's member map, a stream's PELs): 1
 * when all are empty. */
static int free_some_both(struct coll_env *env, struct coll *c, size_t budget, size_t *freed)
{
    for (struct coll *a = c; a != NULL; a = a->aux) {
        if (a != c && budget != 0 && *freed >= budget) {
            return 0; /* the next one's turn comes with the next step */
        }
        if (!free_some(env, a, budget, freed)) {
            return 0;
        }
    }
    return 1;
}

/* Takes c's aux chain off the env's pending list (the compressor must not see it). */
static void aux_unlist(struct coll_env *env, struct coll *c)
{
    for (struct coll *a = c->aux; a != NULL; a = a->aux) {
        if (a->listed) {
            list_unlink(&env->pending, a);
            a->listed = 0;
        }
    }
}

void coll_destroy(struct coll_env *env, struct coll *c)
{
    size_t freed = 0;

    if (c == NULL) {
        return;
    }
    if (c->listed) {
        list_unlink(&env->pending, c);
    }
    aux_unlist(env, c);
    (void)free_some_both(env, c, 0, &freed);
    header_free(env, c);
}

void coll_release(struct coll_env *env, struct coll *c)
{
    if (c == NULL) {
        return;
    }
    if (coll_mem(c) <= COLL_FREE_NOW_MAX) {
        coll_destroy(env, c);
        return;
    }
    if (c->listed) {
        list_unlink(&env->pending, c);
        c->listed = 0;
    }
    /* The aux chain rides along with c on the lazy-free queue. */
    aux_unlist(env, c);
    env->st.n_lazy++;
    env->st.lazy_bytes += coll_mem(c);
    list_push(&env->lazy, c);
}

size_t coll_free_step(struct coll_env *env, size_t budget)
{
    size_t freed = 0;

    while (env->lazy != NULL && (budget == 0 || freed < budget)) {
        struct coll *c = env->lazy;
        uint64_t before = coll_mem(c);
        size_t got = 0;
        int done = free_some_both(env, c, budget == 0 ? 0 : budget - freed, &got);

        freed += got;
        env->st.lazy_bytes -= before - coll_mem(c);
        if (!done) {
            break;
        }
        list_unlink(&env->lazy, c);
        env->st.n_lazy--;
        env->st.n_lazy_freed++;
        env->st.lazy_bytes -= coll_mem(c);
        freed += coll_mem(c);
        header_free(env, c);
    }
    return freed;
}

void coll_env_destroy(struct coll_env **pp)
{
    struct coll_env *env;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    env = *pp;
    (void)coll_free_step(env, 0);
    while (env->pending != NULL) {
        struct coll *c = env->pending;
        list_unlink(&env->pending, c);
        c->listed = 0; /* owned by keys: the store frees them; just forget the list */
    }
    core_free(env->dbuf[0]);
    core_free(env->dbuf[1]);
    core_free(env->build);
    core_free(env->side);
    coll_spares_free(env, 0);
    coll_slabs_free(&env->slabs);
    core_free(env);
    *pp = NULL;
}

static int open_copy(struct coll *dst, struct coll_open *d, const struct coll_open *s)
{
    *d = *s;
    d->p = NULL;
    if (s->p == NULL) {
        return TERSE_OK;
    }
    d->p = core_alloc(s->cap);
    if (d->p == NULL) {
        return TERSE_ENOMEM;
    }
    memcpy(d->p, s->p, s->len);
    dst->bytes += core_mem_usable(d->p);
    return TERSE_OK;
}

/* A copy of src as held, in an exact block of the heap's, counted in d (its pending mark is
 * the caller's to count). NULL when out of memory. */
static struct coll_chunk *chunk_dup(struct coll *d, const struct coll_chunk *src)
{
    struct coll_chunk *ch = core_alloc(sizeof(*ch) + src->len);

    if (ch != NULL) {
        memcpy(ch, src, sizeof(*ch) + src->len);
        ch->cap = src->len;
        ch->flags &= (uint8_t)~COLL_CHUNK_SLAB;
        d->raw += ch->raw;
        d->bytes += core_mem_usable(ch);
    }
    return ch;
}

int coll_copy(struct coll_env *env, const struct coll *c, struct coll **out)
{
    struct coll *d;
    struct coll_it it;

    if (coll_create(env, (enum coll_type)c->type, c->chunk_max, &d) != TERSE_OK) {
        *out = NULL;
        return TERSE_ENOMEM;
    }
    if (c->aux != NULL && coll_copy(env, c->aux, &d->aux) != TERSE_OK) {
        goto fail; /* d->aux is NULL: coll_copy of the map freed what it made */
    }
    d->keep_raw = c->keep_raw;
    d->merge_next = c->merge_next;
    d->seed = c->seed;
    d->chunk_n = c->chunk_n;
    d->count = c->count;
    if (open_copy(d, &d->head, &c->head) != TERSE_OK ||
        open_copy(d, &d->tail, &c->tail) != TERSE_OK) {
        goto fail;
    }
    if (c->meta != NULL && (d->meta = chunk_dup(d, c->meta)) == NULL) {
        goto fail;
    }
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *sd = coll_tree_desc(&it);
        struct coll_desc nd = *sd;
        struct coll_it at = {NULL, 0};
        struct coll_chunk *ch = chunk_dup(d, sd->chunk);

        if (ch == NULL) {
            goto fail;
        }
        if (ch->flags & COLL_CHUNK_PENDING) {
            d->n_pending++;
            env->st.n_pending++;
            coll_pending_note(env, d);
        }
        nd.chunk = ch;
        if (coll_tree_insert(&d->tree, &at, &nd) != TERSE_OK) {
            coll_chunk_drop(env, d, ch);
            goto fail;
        }
    }
    *out = d;
    return TERSE_OK;
fail:
    coll_destroy(env, d);
    *out = NULL;
    return TERSE_ENOMEM;
}

void coll_corrupt(struct coll *c)
{
    struct coll_it it;

    if (c->aux != NULL) {
        coll_corrupt(c->aux);
    }
    if (c->meta != NULL) {
        codec_value_corrupt(c->meta->data, c->meta->len);
    }

    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        codec_value_corrupt(ch->data, ch->len);
    }
    /* Open ends: the last byte of every element's bytes (its checksum then fails). */
    for (int e = 0; e < 2; e++) {
        struct coll_open *o = e == 0 ? &c->head : &c->tail;
        size_t at = 0;
        while (at + 12 <= o->len) {
            uint32_t n;
            memcpy(&n, o->p + at, 4);
            if (n > 0 && at + 12 + n <= o->len) {
                o->p[at + 4 + n - 1] ^= 0x5a;
            } else if (n == 0 && at + 12 <= o->len) {
                o->p[at + 4] ^= 0x5a; /* an empty element: damage its checksum instead */
            }
            at += 12 + (size_t)n;
        }
    }
}

/* ---- background compression ----------------------------------------------------------------- */

/* Compresses the chunk at it when it saves space; returns the bytes saved. The compressed
 * form is built in the env's build buffer, then copied into a block of its exact size. A chunk
 * that stays RAW (too short, incompressible, or corrupt: the next read reports it) is no
 * longer pending, and leaves its slab for an exact block (slabs hold pending chunks). */
static size_t compress_one(struct coll_env *env, struct coll *c, struct coll_it *it)
{
    struct coll_desc *d = coll_tree_desc(it);
    struct coll_chunk *ch = d->chunk, *nc;
    uint8_t *buf = coll_env_build_buf(env, ch->len);
    size_t out = 0;
    uint64_t before = coll_chunk_usable(ch), after;
    const uint8_t *src;
    bool raw;

    if (buf == NULL) {
        return 0;
    }
    raw = codec_value_recompress(env->codec, ch->data, ch->len, buf, ch->len, &out) != TERSE_OK ||
          out == 0 || out >= ch->len;
    if (raw) {
        coll_chunk_unpend(env, c, ch);
        if (!(ch->flags & COLL_CHUNK_SLAB)) {
            return 0;
        }
        out = ch->len;
    }
    src = raw ? ch->data : buf;
    nc = core_alloc(sizeof(*nc) + out);
    if (nc == NULL) {
        return 0;
    }
    memcpy(nc->data, src, out);
    nc->len = nc->cap = (uint32_t)out;
    nc->flags = 0;
    memset(nc->pad, 0, sizeof(nc->pad));
    nc->raw = ch->raw;
    c->raw += nc->raw;
    c->bytes += core_mem_usable(nc);
    coll_chunk_drop(env, c, ch);
    d->chunk = nc;
    after = core_mem_usable(nc);
    return before > after ? (size_t)(before - after) : 0;
}

/* 1 when the chunk at it is one of the keep_raw chunks at either end of a list's tree. */
static int near_list_end(const struct coll *c, const struct coll_it *it)
{
    struct coll_it a = coll_tree_begin(&c->tree), b = coll_tree_end(&c->tree);

    for (int k = 0; k < c->keep_raw && coll_it_valid(&a); k++) {
        if ((a.leaf == it->leaf && a.slot == it->slot) ||
            (b.leaf == it->leaf && b.slot == it->slot)) {
            return 1;
        }
        coll_tree_next(&a);
        coll_tree_prev(&b);
    }
    return 0;
}

/* Before a hash's, set's or sorted set's chunk is compressed: merged with the cold chunks
 * after it while they fit in 3/4 of chunk_max (writes cut at coll_hot_bytes), so a settled
 * container holds big chunks. *it is on the merged chunk after. */
static void merge_cold(struct coll_env *env, struct coll *c, struct coll_it *it)
{
    uint64_t rank = coll_tree_rank_of(it), within;

    while (c->merge_next(env, c, it) == 1) {
        bool ok = coll_tree_seek_rank(&c->tree, rank, it, &within);

        (void)ok; /* the merged chunk starts at rank, as the first did */
    }
    coll_tree_desc(it)->chunk->flags &= (uint8_t)~COLL_CHUNK_HOT; /* the merge's rewrite */
}

/* Moves c from the front of the pending list to its back. */
static void rotate(struct coll_env *env, struct coll *c)
{
    struct coll *t;

    list_unlink(&env->pending, c);
    if (env->pending == NULL) {
        list_push(&env->pending, c);
        return;
    }
    for (t = env->pending; t->pend_next != NULL; t = t->pend_next) {
    }
    t->pend_next = c;
    c->pend_prev = t;
    c->pend_next = NULL;
}

/* Descriptors a lap passes over between two looks at the clock. */
#define COMPRESS_CLOCK_EVERY 256u

size_t coll_compress_step(struct coll_env *env, uint64_t budget_us,
                          uint64_t (*now_us)(void *arg), void *arg, size_t want_bytes)
{
    uint64_t start = now_us != NULL ? now_us(arg) : 0;
    size_t saved = 0;
    size_t idle_laps = 0; /* containers passed over in a row with nothing done */
    unsigned steps = 0;

    while (env->pending != NULL && env->codec != NULL) {
        struct coll *c = env->pending;
        struct coll_it it;
        uint64_t within, rank, skipped = UINT64_MAX; /* the first pending chunk left for later */
        int worked = 0;

        if (c->n_pending == 0) {
            list_unlink(&env->pending, c);
            c->listed = 0;
            c->cursor = 0;
            continue;
        }
        if (!coll_tree_seek_rank(&c->tree, c->cursor, &it, &within)) {
            it.leaf = NULL;
        }
        rank = c->cursor - (coll_it_valid(&it) ? within : 0);
        for (; coll_it_valid(&it); coll_tree_next(&it), rank = c->cursor) {
            struct coll_desc *d = coll_tree_desc(&it);

            if (now_us != NULL && ++steps % COMPRESS_CLOCK_EVERY == 0 &&
                now_us(arg) - start >= budget_us) {
                c->cursor = rank; /* this chunk first, next time */
                return saved;
            }
            c->cursor = rank + d->count;
            if (!(d->chunk->flags & COLL_CHUNK_PENDING)) {
                continue;
            }
            if (c->keep_raw > 0 && c->type == COLL_LIST && near_list_end(c, &it)) {
                skipped = skipped < rank ? skipped : rank;
                continue;
            }
            worked = 1;
            if (d->chunk->flags & COLL_CHUNK_HOT) {
                d->chunk->flags &= (uint8_t)~COLL_CHUNK_HOT; /* its next chance: next lap */
                skipped = skipped < rank ? skipped : rank;
                continue;
            }
            if (c->merge_next != NULL) {
                merge_cold(env, c, &it);
                c->cursor = coll_tree_rank_of(&it) + coll_tree_desc(&it)->count;
            }
            saved += compress_one(env, c, &it);
            if ((want_bytes != 0 && saved >= want_bytes) ||
                (now_us != NULL && now_us(arg) - start >= budget_us)) {
                return saved;
            }
        }
        /* A lap over c is done. The next starts at 0, but for a stream: at the first pending
         * chunk this lap left or a write marked since (coll_stream.c keeps pend_from), so the
         * laps over a stream whose only pending chunk is its tail touch the tail alone. */
        if (c->type == COLL_STREAM) {
            uint64_t next = skipped < c->pend_from ? skipped : c->pend_from;
            c->cursor = next == UINT64_MAX ? 0 : next;
            c->pend_from = UINT64_MAX;
        } else {
            c->cursor = 0;
        }
        idle_laps = worked ? 0 : idle_laps + 1;
        rotate(env, c);
        if (idle_laps > 2 * env->st.n_colls + 1 ||
            (now_us != NULL && now_us(arg) - start >= budget_us)) {
            break; /* what is left waits: kept raw at a list's end, or nothing to do */
        }
    }
    return saved;
}
