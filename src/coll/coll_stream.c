/*
 * coll_stream: streams as chunked containers (coll_stream.h): one chunk per Redis node, the
 * stream's other state in the meta chunk.
 *
 * Buffers: a node's new form is built in the env's build buffer (coll_env_build_buf) and
 * copied into its chunk; reads return views into the chunk or the env's decode buffer. The
 * entry arrays coll_stream_read_node fills are the caller's.
 */
#include "coll/coll_stream.h"

#include <string.h>

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "coll/coll_env_internal.h"
#include "coll/coll_pel.h"
#include "core/core_mem.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

/* The meta and the open tail are never compressed (every write rewrites them), so neither is
 * pending (admission, which compresses what is pending before it refuses a write, would wait
 * on them for ever); the node an XADD closes is pending from then on, if it is RAW. */
static void closed_pend(struct coll_env *env, struct coll *c, struct coll_chunk *ch)
{
    struct codec_value_info info;

    if (codec_value_info(ch->data, ch->len, &info) == TERSE_OK && info.kind == CODEC_RAW) {
        coll_chunk_pend(env, c, ch);
    }
}

int coll_stream_set_meta(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len)
{
    int st;

    if (c->meta == NULL) {
        st = coll_chunk_put(env, c, form, len, &c->meta);
    } else {
        st = coll_chunk_rewrite(env, c, &c->meta, form, len);
    }
    if (st == TERSE_OK) {
        coll_chunk_unpend(env, c, c->meta);
    }
    return st;
}

int coll_stream_create(struct coll_env *env, uint32_t chunk_max, struct coll **out)
{
    return coll_create(env, COLL_STREAM, chunk_max, out);
}

int coll_stream_adopt_meta(struct coll_env *env, struct coll *c, const uint8_t *stored,
                           size_t len)
{
    struct codec_value_info info;
    struct coll_chunk *ch;
    int st = c->meta != NULL ? TERSE_ECORRUPT : coll_chunk_from_stored(stored, len, &ch, &info);

    (void)env;
    if (st != TERSE_OK) {
        return st;
    }
    c->raw += info.orig_len;
    c->bytes += core_mem_usable(ch);
    c->meta = ch;
    return TERSE_OK;
}

int coll_stream_meta(struct coll_env *env, struct coll *c, const uint8_t **form, size_t *len)
{
    return c->meta != NULL ? coll_chunk_read(env, c->meta, form, len) : TERSE_ECORRUPT;
}

/* ---- node forms ------------------------------------------------------------------------------ */

static size_t node_header_len(const struct store_stream_node *nd)
{
    return codec_varint_len(nd->live) + codec_varint_len(nd->slots) + codec_varint_len(nd->lp);
}

static uint8_t *node_header_put(uint8_t *p, const struct store_stream_node *nd)
{
    p += codec_varint_put(p, nd->live);
    p += codec_varint_put(p, nd->slots);
    return p + codec_varint_put(p, nd->lp);
}

/* A node form's header: *p moved past it. */
static int node_header_read(const uint8_t **p, const uint8_t *end, struct store_stream_node *nd)
{
    uint64_t live, slots, lp;

    if (store_varint_read(p, end, &live) != 0 || store_varint_read(p, end, &slots) != 0 ||
        store_varint_read(p, end, &lp) != 0 || live == 0 || slots < live) {
        return TERSE_ECORRUPT;
    }
    nd->live = (size_t)live;
    nd->slots = (size_t)slots;
    nd->lp = lp;
    return TERSE_OK;
}

/* The chunk at it read and its header parsed: *form, *len, *body (just past the header). */
static int node_open(struct coll_env *env, const struct coll_it *it, struct store_stream_node *nd,
                     const uint8_t **form, size_t *len, const uint8_t **body)
{
    const struct coll_desc *d = coll_tree_desc(it);
    int st = coll_chunk_read(env, d->chunk, form, len);

    if (st != TERSE_OK) {
        return st;
    }
    *body = *form;
    st = node_header_read(body, *form + *len, nd);
    return st == TERSE_OK && nd->live != d->count ? TERSE_ECORRUPT : st;
}

/* A new node chunk of form (len bytes) inserted before at (invalid: at the end). */
static int node_insert(struct coll_env *env, struct coll *c, struct coll_it *at,
                       const uint8_t *form, size_t len, uint32_t count,
                       const struct store_stream_id *first)
{
    struct coll_desc d;
    int st = coll_chunk_put(env, c, form, len, &d.chunk);

    if (st != TERSE_OK) {
        return st;
    }
    d.count = count;
    d.raw_len = (uint32_t)len;
    d.key.k = first->ms;
    d.key.aux = first->seq;
    st = coll_tree_insert(&c->tree, at, &d);
    if (st != TERSE_OK) {
        coll_chunk_drop(env, c, d.chunk);
        return st;
    }
    c->count += count;
    return TERSE_OK;
}

/* The node at it rewritten as form (len bytes, in the build buffer) of count entries. */
static int node_rewrite(struct coll_env *env, struct coll *c, struct coll_it *it,
                        const uint8_t *form, size_t len, uint32_t count,
                        const struct store_stream_id *first)
{
    const struct coll_key k = {first->ms, first->seq};

    return coll_desc_rewrite(env, c, it, form, len, count, &k);
}

/* ---- building ---------------------------------------------------------------------------------- */

int coll_stream_meta_store(struct coll_env *env, struct coll *c, const struct store_stream *s)
{
    struct store_stream m = *s;
    struct store_stream_group *groups = NULL;
    size_t len = 0;
    uint8_t *b;
    int st;

    m.n_ents = 0;
    m.n_nodes = 0;
    if (s->n_groups > 0) {
        groups = core_alloc(s->n_groups * sizeof(*groups));
        if (groups == NULL) {
            return TERSE_ENOMEM;
        }
        memcpy(groups, s->groups, s->n_groups * sizeof(*groups));
        for (size_t i = 0; i < s->n_groups; i++) {
            groups[i].n_pel = 0;
        }
        m.groups = groups;
    }
    b = coll_env_build_buf(env, store_stream_size(&m));
    st = b == NULL ? TERSE_ENOMEM : store_stream_encode(&m, b, store_stream_size(&m), &len);
    core_free(groups);
    return st == TERSE_OK ? coll_stream_set_meta(env, c, b, len) : st;
}

int coll_stream_append_node(struct coll_env *env, struct coll *c,
                            const struct store_stream_node *nd,
                            const struct store_stream_entry *ents)
{
    size_t len = node_header_len(nd);
    struct coll_it end = {NULL, 0};
    uint8_t *b, *p;

    for (size_t k = 0; k < nd->live; k++) {
        len += store_stream_entry_size(&ents[k]);
    }
    if (len > UINT32_MAX / 2) {
        return TERSE_ETOOBIG;
    }
    b = coll_env_build_buf(env, len);
    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    p = node_header_put(b, nd);
    for (size_t k = 0; k < nd->live; k++) {
        p = store_stream_entry_put(p, &ents[k]);
    }
    /* pending, as every chunk put: the compressor's once cold */
    return node_insert(env, c, &end, b, len, (uint32_t)nd->live, &ents[0].id);
}

int coll_stream_from_model(struct coll_env *env, const struct store_stream *s,
                           uint32_t chunk_max, struct coll **out)
{
    size_t at = 0;
    struct coll *c;
    int st = coll_create(env, COLL_STREAM, chunk_max, &c);

    *out = NULL;
    if (st != TERSE_OK) {
        return st;
    }
    st = coll_stream_meta_store(env, c, s);
    if (st == TERSE_OK) {
        st = coll_stream_pels_from_model(env, c, s);
    }
    for (size_t i = 0; st == TERSE_OK && i < s->n_nodes; i++) {
        st = coll_stream_append_node(env, c, &s->nodes[i], &s->ents[at]);
        at += s->nodes[i].live;
    }
    if (st != TERSE_OK) {
        coll_destroy(env, c);
        return st;
    }
    *out = c;
    return TERSE_OK;
}

/* ---- edits --------------------------------------------------------------------------------- */

/* A write marked the chunk at rank pending: the compressor's next lap starts there at the
 * latest (struct coll's pend_from). */
static void pend_note(struct coll *c, uint64_t rank)
{
    c->pend_from = rank < c->pend_from ? rank : c->pend_from;
}

int coll_stream_append(struct coll_env *env, struct coll *c, const struct store_stream_entry *e,
                       size_t max_entries, uint64_t max_bytes)
{
    struct coll_it it = coll_tree_end(&c->tree);
    struct store_stream_node nd;
    struct store_stream_entry first;
    const uint8_t *form = NULL, *body = NULL;
    size_t len = 0, nlen, hlen;
    uint8_t *b, *p;
    int st;

    if (coll_it_valid(&it)) {
        st = node_open(env, &it, &nd, &form, &len, &body);
        if (st == TERSE_OK) {
            const uint8_t *q = body;
            st = store_stream_entry_read(&q, form + len, &first);
        }
        if (st != TERSE_OK) {
            return st;
        }
    }
    if (!coll_it_valid(&it) || store_stream_node_full(&nd, e, max_entries, max_bytes)) {
        struct store_stream_node fresh = {1, 1, store_stream_lp_add(NULL, e)};
        struct coll_chunk *closed = coll_it_valid(&it) ? coll_tree_desc(&it)->chunk : NULL;
        uint64_t closed_at = closed != NULL ? c->count - nd.live : 0;

        nlen = node_header_len(&fresh) + store_stream_entry_size(e);
        b = coll_env_build_buf(env, nlen);
        if (b == NULL) {
            return TERSE_ENOMEM;
        }
        p = node_header_put(b, &fresh);
        (void)store_stream_entry_put(p, e);
        it.leaf = NULL; /* at the end */
        st = node_insert(env, c, &it, b, nlen, 1, &e->id);
        if (st == TERSE_OK) {
            coll_chunk_unpend(env, c, coll_tree_desc(&it)->chunk);
            if (closed != NULL) {
                closed_pend(env, c, closed); /* the node it closed: now the compressor's */
                pend_note(c, closed_at);
            }
        }
        return st;
    }
    hlen = (size_t)(body - form);
    nd.lp += store_stream_lp_add(&first, e);
    nd.live++;
    nd.slots++;
    nlen = node_header_len(&nd) + (len - hlen) + store_stream_entry_size(e);
    if (nlen > UINT32_MAX / 2) {
        return TERSE_ETOOBIG;
    }
    b = coll_env_build_buf(env, nlen);
    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    p = node_header_put(b, &nd);
    memcpy(p, body, len - hlen);
    (void)store_stream_entry_put(p + (len - hlen), e);
    st = node_rewrite(env, c, &it, b, nlen, (uint32_t)nd.live, &first.id);
    if (st == TERSE_OK) {
        coll_chunk_unpend(env, c, coll_tree_desc(&it)->chunk); /* the open tail */
    }
    return st;
}

/* Orders a target ID against a descriptor's key (its node's first ID). */
static int id_key_cmp(void *arg, const struct coll_key *key)
{
    const struct store_stream_id *id = arg;
    struct store_stream_id k = {key->k, key->aux};

    return store_stream_id_cmp(id, &k);
}

int coll_stream_seek(struct coll_env *env, struct coll *c, const struct store_stream_id *id,
                     uint64_t *rank)
{
    struct coll_it it;
    struct store_stream_node nd;
    const uint8_t *form, *body;
    size_t len;
    uint64_t base;
    int st;
    struct store_stream_id target = *id; /* the seek's comparison takes a mutable arg */

    *rank = c->count;
    if (!coll_tree_seek_key(&c->tree, id_key_cmp, &target, &it)) {
        return TERSE_OK;
    }
    base = coll_tree_rank_of(&it);
    st = node_open(env, &it, &nd, &form, &len, &body);
    for (size_t i = 0; st == TERSE_OK && i < nd.live; i++) {
        struct store_stream_entry e;
        st = store_stream_entry_read(&body, form + len, &e);
        if (st == TERSE_OK && store_stream_id_cmp(&e.id, id) >= 0) {
            *rank = base + i;
            return TERSE_OK;
        }
    }
    if (st == TERSE_OK) {
        *rank = base + nd.live; /* the next node's first entry, or the end */
    }
    return st;
}

int coll_stream_read_node(struct coll_env *env, struct coll *c, uint64_t rank,
                          struct coll_stream_node *out, struct store_stream_entry **ents,
                          size_t *cap)
{
    struct coll_it it;
    uint64_t within;
    const uint8_t *form, *body;
    size_t len;
    int st;

    if (!coll_tree_seek_rank(&c->tree, rank, &it, &within)) {
        return TERSE_EINVAL;
    }
    st = node_open(env, &it, &out->nd, &form, &len, &body);
    if (st != TERSE_OK) {
        return st;
    }
    if (out->nd.live > *cap) {
        struct store_stream_entry *q = core_realloc(*ents, out->nd.live * sizeof(**ents));
        if (q == NULL) {
            return TERSE_ENOMEM;
        }
        *ents = q;
        *cap = out->nd.live;
    }
    out->first_rank = rank - within;
    out->n = 0;
    for (size_t i = 0; i < out->nd.live; i++) {
        st = store_stream_entry_read(&body, form + len, &(*ents)[i]);
        if (st != TERSE_OK ||
            (i > 0 && store_stream_id_cmp(&(*ents)[i - 1].id, &(*ents)[i].id) >= 0)) {
            coll_env_count_corrupt(env);
            return TERSE_ECORRUPT;
        }
    }
    if (body != form + len) {
        coll_env_count_corrupt(env);
        return TERSE_ECORRUPT;
    }
    out->n = out->nd.live;
    return TERSE_OK;
}

void coll_stream_ents_free(struct store_stream_entry *ents)
{
    core_free(ents);
}

int coll_stream_remove(struct coll_env *env, struct coll *c, uint64_t rank, uint64_t n)
{
    pend_note(c, 0); /* ranks after it move: the compressor's next lap starts over */
    while (n > 0) {
        struct coll_it it;
        uint64_t within, take;
        struct store_stream_node nd;
        struct store_stream_entry e, first = {{0, 0}, 0, NULL, 0};
        const uint8_t *form, *body, *q;
        size_t len, nlen;
        uint8_t *b, *p;
        int st;

        if (!coll_tree_seek_rank(&c->tree, rank, &it, &within)) {
            return TERSE_EINVAL;
        }
        take = coll_tree_desc(&it)->count - within;
        take = take < n ? take : n;
        if (take == coll_tree_desc(&it)->count) {
            struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
            c->count -= take;
            coll_tree_remove(&c->tree, &it);
            coll_chunk_drop(env, c, ch);
            n -= take;
            continue;
        }
        st = node_open(env, &it, &nd, &form, &len, &body);
        if (st != TERSE_OK) {
            return st;
        }
        nd.live -= (size_t)take;
        b = coll_env_build_buf(env, len);
        if (b == NULL) {
            return TERSE_ENOMEM;
        }
        p = node_header_put(b, &nd);
        q = body;
        for (uint64_t i = 0; i < nd.live + take; i++) {
            const uint8_t *at = q;
            if (store_stream_entry_read(&q, form + len, &e) != TERSE_OK) {
                coll_env_count_corrupt(env);
                return TERSE_ECORRUPT;
            }
            if (i >= within && i < within + take) {
                continue;
            }
            if (p == b + node_header_len(&nd)) {
                first = e;
            }
            memcpy(p, at, (size_t)(q - at));
            p += q - at;
        }
        nlen = (size_t)(p - b);
        st = node_rewrite(env, c, &it, b, nlen, (uint32_t)nd.live, &first.id);
        if (st != TERSE_OK) {
            return st;
        }
        n -= take;
    }
    return TERSE_OK;
}

/* ---- whole forms ------------------------------------------------------------------------------ */

/* Where a meta form's entry and node counts (two zero bytes) are: *at. */
static int meta_split(const uint8_t *m, size_t len, size_t *at)
{
    const uint8_t *p = m + 1, *end = m + len;
    uint64_t v;

    if (len < 1) {
        return TERSE_ECORRUPT;
    }
    for (int i = 0; i < 5; i++) { /* last_id (2), entries_added, max_deleted (2) */
        if (store_varint_read(&p, end, &v) != 0) {
            return TERSE_ECORRUPT;
        }
    }
    if (end - p < 3 || p[0] != 0 || p[1] != 0) {
        return TERSE_ECORRUPT;
    }
    *at = (size_t)(p - m);
    return TERSE_OK;
}

size_t coll_stream_form_size(const struct coll *c)
{
    /* c->raw is every chunk's decoded bytes, the meta's with them: O(1) but for the PELs.
     * The meta's two zero counts give way to the entries' and the nodes'; a pending entry
     * inline names its consumer by an index (10 bytes at most) where its PEL has the name
     * (1 byte at least), and a group's count of them takes 10 bytes at most. */
    size_t n = (size_t)((c->raw >= 2 ? c->raw - 2 : 0) + codec_varint_len(c->count) +
                        codec_varint_len(c->tree.n_chunks));

    for (const struct coll *p = c->aux; p != NULL; p = p->aux) {
        n += (size_t)(p->raw + 10 * p->count + 10);
    }
    return n;
}

int coll_stream_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap,
                        size_t *out_len)
{
    const uint8_t *form, *body;
    uint8_t *m = NULL, *p = out;
    size_t mlen = 0, at, len, need;
    struct store_stream_node nd;
    int st = coll_stream_meta_full(env, c, &m, &mlen);

    *out_len = 0;
    if (st == TERSE_OK) {
        st = meta_split(m, mlen, &at);
    }
    if (st != TERSE_OK) {
        core_free(m);
        return st;
    }
    /* The nodes' raw bytes are their headers and bodies: every chunk's but the meta's. */
    need = (size_t)(c->raw - c->meta->raw) + mlen - 2 + codec_varint_len(c->count) +
           codec_varint_len(c->tree.n_chunks);
    if (need > cap || c->meta->raw > c->raw) {
        core_free(m);
        return TERSE_ETOOBIG;
    }
    memcpy(p, m, at);
    p += at;
    p += codec_varint_put(p, c->count);
    for (struct coll_it it = coll_tree_begin(&c->tree); st == TERSE_OK && coll_it_valid(&it);
         coll_tree_next(&it)) {
        st = node_open(env, &it, &nd, &form, &len, &body);
        if (st == TERSE_OK && (size_t)(form + len - body) > (size_t)(out + need - p)) {
            st = TERSE_ECORRUPT;
        }
        if (st == TERSE_OK) {
            memcpy(p, body, (size_t)(form + len - body));
            p += form + len - body;
        }
    }
    if (st == TERSE_OK) {
        p += codec_varint_put(p, c->tree.n_chunks);
    }
    for (struct coll_it it = coll_tree_begin(&c->tree); st == TERSE_OK && coll_it_valid(&it);
         coll_tree_next(&it)) {
        st = node_open(env, &it, &nd, &form, &len, &body);
        if (st == TERSE_OK) {
            p = node_header_put(p, &nd);
        }
    }
    if (st == TERSE_OK && p != out + need - (mlen - at - 2)) {
        st = TERSE_ECORRUPT; /* the descriptors' sizes disagree with the chunks */
    }
    if (st == TERSE_OK) {
        memcpy(p, m + at + 2, mlen - at - 2);
        *out_len = need;
    }
    core_free(m);
    return st;
}

int coll_stream_verify(struct coll_env *env, struct coll *c)
{
    const terse_allocator a = {coll_mem_alloc, coll_mem_free, NULL};
    const uint8_t *m, *form, *body;
    size_t mlen, len;
    struct store_stream s;
    struct store_stream_id last = {0, 0};
    uint64_t total = 0;
    bool any = false;
    int st = coll_stream_meta(env, c, &m, &mlen);

    if (st != TERSE_OK) {
        return st;
    }
    st = store_stream_decode_meta(&s, &a, m, mlen);
    if (st != TERSE_OK) {
        return st;
    }
    if (s.n_ents != 0 || s.n_nodes != 0) {
        st = TERSE_ECORRUPT;
    }
    for (struct coll_it it = coll_tree_begin(&c->tree); st == TERSE_OK && coll_it_valid(&it);
         coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        struct store_stream_node nd;
        st = node_open(env, &it, &nd, &form, &len, &body);
        for (size_t i = 0; st == TERSE_OK && i < nd.live; i++) {
            struct store_stream_entry e;
            st = store_stream_entry_read(&body, form + len, &e);
            if (st == TERSE_OK && ((any && store_stream_id_cmp(&last, &e.id) >= 0) ||
                                   (i == 0 && (d->key.k != e.id.ms || d->key.aux != e.id.seq)))) {
                st = TERSE_ECORRUPT;
            }
            last = e.id;
            any = true;
        }
        if (st == TERSE_OK && (body != form + len || d->raw_len != len)) {
            st = TERSE_ECORRUPT;
        }
        total += d->count;
    }
    if (st == TERSE_OK && (total != c->count || (any && store_stream_id_cmp(&last, &s.last_id) > 0))) {
        st = TERSE_ECORRUPT;
    }
    store_stream_deinit(&s);
    if (st == TERSE_OK) {
        st = coll_tree_verify(&c->tree, NULL);
    }
    return st == TERSE_OK ? coll_stream_pels_verify(env, c) : st;
}
