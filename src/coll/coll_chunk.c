/*
 * coll_chunk: a container's chunks (coll.h's chunk calls): a chunk is one allocation holding a
 * codec stored form, RAW when written (a copy and its XXH3-64), compressed by the background
 * pass (coll.c). Reads verify the checksum (a RAW chunk once per command turn: the env's
 * seen list); a RAW chunk is read in place, a compressed one decoded into the env's buffer.
 * Blocks of dropped chunks are kept as spares (struct coll_env) for the next chunk written, so
 * a write that replaces a chunk calls the allocator only when no spare has the size. A RAW chunk's block up to COLL_SLAB_MAX bytes
 * comes from the env's slabs instead (coll_slab.h), which need no spares.
 */
#include "coll/coll.h"

#include <string.h>

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "core/core_mem.h"
#include "terse/status.h"
#include "coll/coll_env_internal.h"

/* ---- turns ------------------------------------------------------------------------------- */

void coll_env_turn_begin(struct coll_env *env)
{
    env->turn_depth++; /* the list is empty, or an outer turn's: still verified this command */
}

void coll_env_turn_end(struct coll_env *env)
{
    if (env->turn_depth > 0) {
        env->turn_depth--;
    }
    env->n_seen = 0;
    env->dch[0] = env->dch[1] = NULL;
}

static void seen_forget(struct coll_env *env, const struct coll_chunk *ch)
{
    for (int i = 0; i < 2; i++) {
        if (env->dch[i] == ch) {
            env->dch[i] = NULL;
        }
    }
    for (unsigned i = 0; i < env->n_seen; i++) {
        if (env->seen[i].ch == ch) {
            env->seen[i] = env->seen[--env->n_seen];
            return;
        }
    }
}

/* Remembers ch's form (verified, or written by this turn), replacing the oldest when full. */
static void seen_note(struct coll_env *env, const struct coll_chunk *ch, const uint8_t *form,
                      size_t len)
{
    unsigned at;

    if (env->turn_depth == 0) {
        return;
    }
    if (env->n_seen < COLL_SEEN_N) {
        at = env->n_seen++;
    } else {
        at = env->seen_next;
        env->seen_next = (at + 1) % COLL_SEEN_N;
    }
    env->seen[at] = (struct coll_seen){ch, form, len};
}

/* ---- chunks ------------------------------------------------------------------------------- */

/* A block of at least need usable bytes (and not more than twice that): a slab's for a small
 * one (*slab 1), else a spare, or a new allocation; *usable its bytes. NULL when none comes. */
static void *block_take(struct coll_env *env, size_t need, int *slab, size_t *usable)
{
    void *p;

    *slab = need <= COLL_SLAB_MAX;
    if (*slab) {
        return coll_slab_take(&env->slabs, need, usable);
    }
    for (size_t i = 0; i < COLL_SPARE_N; i++) {
        size_t u = env->spare[i] != NULL ? core_mem_usable(env->spare[i]) : 0;
        if (u >= need && u <= 2 * need) {
            p = env->spare[i];
            env->spare[i] = NULL;
            *usable = u;
            return p;
        }
    }
    p = core_alloc(need);
    *usable = p != NULL ? core_mem_usable(p) : 0;
    return p;
}

/* A dropped chunk's block: kept as a spare (in place of the oldest when every slot is taken,
 * so the spares follow the sizes being written), or freed when it is too big to keep. */
static void block_give(struct coll_env *env, void *p)
{
    unsigned at;

    if (core_mem_usable(p) > COLL_SPARE_MAX) {
        core_free(p);
        return;
    }
    for (size_t i = 0; i < COLL_SPARE_N; i++) {
        if (env->spare[i] == NULL) {
            env->spare[i] = p;
            return;
        }
    }
    at = env->spare_next;
    env->spare_next = (at + 1) % COLL_SPARE_N;
    core_free(env->spare[at]);
    env->spare[at] = p;
}

size_t coll_chunk_usable(const struct coll_chunk *ch)
{
    return (ch->flags & COLL_CHUNK_SLAB) ? coll_slab_usable(ch) : core_mem_usable(ch);
}

/* Gives a dropped chunk's block back: to its slab, or as a spare. */
static void chunk_block_give(struct coll_env *env, struct coll_chunk *ch)
{
    if (ch->flags & COLL_CHUNK_SLAB) {
        coll_slab_give(&env->slabs, ch);
    } else {
        block_give(env, ch);
    }
}

void coll_spares_free(struct coll_env *env, size_t keep)
{
    for (size_t i = 0; i < COLL_SPARE_N; i++) {
        if (env->spare[i] != NULL && (keep == 0 || core_mem_usable(env->spare[i]) > keep)) {
            core_free(env->spare[i]);
            env->spare[i] = NULL;
        }
    }
}

int coll_chunk_put(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len,
                   struct coll_chunk **out)
{
    size_t cap = codec_value_bound(len), usable = 0;
    int slab = 0;
    struct coll_chunk *ch = block_take(env, sizeof(*ch) + cap, &slab, &usable);
    size_t stored = 0;

    if (ch == NULL) {
        return TERSE_ENOMEM;
    }
    ch->flags = slab ? COLL_CHUNK_SLAB : 0;
    cap = usable - sizeof(*ch); /* a spare or a slab's block may be a little bigger: all of it */
    if (codec_value_encode_raw(form, len, ch->data, cap, &stored) != TERSE_OK) {
        chunk_block_give(env, ch);
        return TERSE_ETOOBIG;
    }
    seen_note(env, ch, ch->data + (stored - len), len); /* RAW: the form ends the block */
    ch->len = (uint32_t)stored;
    ch->cap = (uint32_t)cap;
    ch->flags |= COLL_CHUNK_HOT;
    memset(ch->pad, 0, sizeof(ch->pad));
    ch->raw = (uint32_t)len;
    c->raw += len;
    c->bytes += usable;
    coll_chunk_pend(env, c, ch);
    *out = ch;
    return TERSE_OK;
}

void coll_chunk_pend(struct coll_env *env, struct coll *c, struct coll_chunk *ch)
{
    if (!(ch->flags & COLL_CHUNK_PENDING)) {
        ch->flags |= COLL_CHUNK_PENDING;
        c->n_pending++;
        env->st.n_pending++;
    }
    coll_pending_note(env, c);
}

void coll_chunk_unpend(struct coll_env *env, struct coll *c, struct coll_chunk *ch)
{
    if (ch->flags & COLL_CHUNK_PENDING) {
        ch->flags &= (uint8_t)~COLL_CHUNK_PENDING;
        c->n_pending--;
        env->st.n_pending--;
    }
}

int coll_chunk_from_stored(const uint8_t *stored, size_t len, struct coll_chunk **out,
                           struct codec_value_info *info)
{
    struct coll_chunk *ch;

    *out = NULL;
    if (codec_value_info(stored, len, info) != TERSE_OK ||
        info->header_len + info->payload_len != len || info->orig_len > UINT32_MAX) {
        return TERSE_ECORRUPT;
    }
    ch = core_alloc(sizeof(*ch) + len);
    if (ch == NULL) {
        return TERSE_ENOMEM;
    }
    memcpy(ch->data, stored, len);
    ch->len = ch->cap = (uint32_t)len;
    ch->flags = 0;
    memset(ch->pad, 0, sizeof(ch->pad));
    ch->raw = (uint32_t)info->orig_len;
    *out = ch;
    return TERSE_OK;
}

int coll_adopt_chunk(struct coll_env *env, struct coll *c, const uint8_t *stored, size_t len,
                     uint32_t count, const struct coll_key *key)
{
    struct codec_value_info info;
    struct coll_chunk *ch;
    struct coll_desc d;
    struct coll_it at = {NULL, 0};
    int st = count == 0 ? TERSE_ECORRUPT : coll_chunk_from_stored(stored, len, &ch, &info);

    if (st != TERSE_OK) {
        return st;
    }
    d.chunk = ch;
    d.count = count;
    d.raw_len = (uint32_t)info.orig_len;
    d.key = *key;
    if (coll_tree_insert(&c->tree, &at, &d) != TERSE_OK) {
        core_free(ch);
        return TERSE_ENOMEM;
    }
    c->raw += info.orig_len;
    c->bytes += core_mem_usable(ch);
    c->count += count;
    if (info.kind == CODEC_RAW) {
        coll_chunk_pend(env, c, ch);
    }
    return TERSE_OK;
}

int coll_chunk_rewrite(struct coll_env *env, struct coll *c, struct coll_chunk **chp,
                       const uint8_t *form, size_t len)
{
    struct coll_chunk *ch = *chp, *nc;
    size_t stored = 0;
    int st;

    c->tree.edits++;
    seen_forget(env, ch);
    if (codec_value_bound(len) <= ch->cap &&
        codec_value_encode_raw(form, len, ch->data, ch->cap, &stored) == TERSE_OK) {
        seen_note(env, ch, ch->data + (stored - len), len);
        c->raw = c->raw - ch->raw + len;
        ch->raw = (uint32_t)len;
        ch->len = (uint32_t)stored;
        ch->flags |= COLL_CHUNK_HOT;
        coll_chunk_pend(env, c, ch);
        return TERSE_OK;
    }
    st = coll_chunk_put(env, c, form, len, &nc);
    if (st != TERSE_OK) {
        return st;
    }
    coll_chunk_drop(env, c, ch);
    *chp = nc;
    return TERSE_OK;
}

void coll_chunk_drop(struct coll_env *env, struct coll *c, struct coll_chunk *ch)
{
    if (ch == NULL) {
        return;
    }
    c->tree.edits++;
    seen_forget(env, ch);
    coll_chunk_unpend(env, c, ch);
    c->raw -= ch->raw;
    c->bytes -= coll_chunk_usable(ch);
    chunk_block_give(env, ch);
}

static int grow(uint8_t **p, size_t *cap, size_t n)
{
    uint8_t *q;
    size_t want = *cap < 4096 ? 4096 : *cap;

    if (n <= *cap) {
        return TERSE_OK;
    }
    while (want < n) {
        want *= 2;
    }
    q = core_realloc(*p, want);
    if (q == NULL) {
        return TERSE_ENOMEM;
    }
    *p = q;
    *cap = want;
    return TERSE_OK;
}

int coll_chunk_read(struct coll_env *env, struct coll_chunk *ch, const uint8_t **form,
                    size_t *len)
{
    ch->flags |= COLL_CHUNK_HOT;
    return coll_chunk_peek(env, ch, form, len);
}

int coll_chunk_peek(struct coll_env *env, const struct coll_chunk *ch, const uint8_t **form,
                    size_t *len)
{
    struct codec_value_info info;
    unsigned slot;
    int st;

    for (unsigned i = 0; i < env->n_seen; i++) {
        if (env->seen[i].ch == ch) {
            *form = env->seen[i].form;
            *len = env->seen[i].len;
            return TERSE_OK;
        }
    }
    st = codec_value_view(env->codec, ch->data, ch->len, form, len);
    if (st != TERSE_MORE) {
        if (st != TERSE_OK) {
            env->st.n_corrupt++;
        } else {
            seen_note(env, ch, *form, *len);
        }
        return st;
    }
    for (unsigned i = 0; i < 2; i++) {
        if (env->dch[i] == ch) {
            env->n_decodes += env->dlast != i; /* the other slot is the next decode's now */
            env->dlast = i;
            *form = env->dbuf[i];
            *len = env->dlen[i];
            return TERSE_OK;
        }
    }
    if (codec_value_info(ch->data, ch->len, &info) != TERSE_OK) {
        env->st.n_corrupt++;
        return TERSE_ECORRUPT;
    }
    slot = 1 - env->dlast;
    env->dch[slot] = NULL;
    if (grow(&env->dbuf[slot], &env->dcap[slot], info.orig_len + 1) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    st = codec_value_decode(env->codec, ch->data, ch->len, env->dbuf[slot], env->dcap[slot],
                            len);
    if (st != TERSE_OK) {
        env->st.n_corrupt++;
        return st == TERSE_ENOMEM ? st : TERSE_ECORRUPT;
    }
    env->dlast = slot;
    env->n_decodes++;
    env->dch[slot] = env->turn_depth > 0 ? ch : NULL;
    env->dlen[slot] = *len;
    *form = env->dbuf[slot];
    return TERSE_OK;
}

uint64_t coll_env_decodes(const struct coll_env *env)
{
    return env->n_decodes;
}

uint8_t *coll_env_build_buf(struct coll_env *env, size_t n)
{
    return grow(&env->build, &env->build_cap, n) == TERSE_OK ? env->build : NULL;
}

uint8_t *coll_env_side_buf(struct coll_env *env, size_t n)
{
    return grow(&env->side, &env->side_cap, n) == TERSE_OK ? env->side : NULL;
}

size_t coll_chunk_merged_len(const struct coll_desc *a, const struct coll_desc *b)
{
    return codec_varint_len((uint64_t)a->count + b->count) + a->raw_len + b->raw_len -
           codec_varint_len(a->count) - codec_varint_len(b->count);
}

bool coll_chunk_cold_next(const struct coll *c, const struct coll_it *it, struct coll_it *nb,
                          size_t *mlen)
{
    const struct coll_desc *d = coll_tree_desc(it), *nd;

    *nb = *it;
    coll_tree_next(nb);
    if (!coll_it_valid(nb)) {
        return false;
    }
    nd = coll_tree_desc(nb);
    if (nd->chunk->flags & COLL_CHUNK_HOT) {
        return false; /* written or read since the compressor last passed */
    }
    *mlen = coll_chunk_merged_len(d, nd);
    return *mlen <= (size_t)c->chunk_max * 3 / 4;
}

int coll_desc_rewrite(struct coll_env *env, struct coll *c, const struct coll_it *it,
                      const uint8_t *form, size_t len, uint32_t count,
                      const struct coll_key *key)
{
    struct coll_desc *d = coll_tree_desc(it);
    int st = coll_chunk_rewrite(env, c, &d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    d->raw_len = (uint32_t)len;
    c->count = c->count - d->count + count;
    coll_tree_set_count(&c->tree, it, count);
    if (key->k != d->key.k || key->aux != d->key.aux) {
        coll_tree_set_key(&c->tree, it, key);
    }
    return TERSE_OK;
}
