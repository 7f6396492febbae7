/*
 * cmd_stream_big: a stream's entries whichever way it is held (cmd_stream.h): in the model's
 * array (one value), or in the nodes of a chunked stream (coll/coll_stream.h), which the
 * model then does not hold (s->ext points at the server's struct cmd_stream_big).
 *
 * A stream is one value while it is one node; the store that would leave it two stores it
 * chunked, one chunk per node, its IDs, counters and groups in the meta chunk. A chunked
 * stream's command decodes the meta (copied into scratch, so the model outlives any chunk
 * read), reads entries by rank through the node it last read (its entries decoded into the
 * array kept here), edits the nodes in place, and stores the meta back. A read that meets a
 * corrupt chunk answers through cmd_stream_failed; a chunked stream is never made one value
 * again (a stream rarely shrinks to one node and stays there).
 *
 * Buffers: struct cmd_stream_big and its entry array are the server's (srv->stream_big), made
 * from srv->alloc (the array by coll_stream_read_node) on first use, reused by every command,
 * freed by cmd_stream_big_free. The entries' pairs point into a chunk or the env's decode buffer:
 * valid until the next node read.
 */
#include "cmd/stream/cmd_stream.h"
#include "cmd/stream/cmd_stream_big.h"

#include <string.h>

#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "coll/coll_pel.h"
#include "coll/coll_stream.h"
#include "store/store.h"
#include "terse/status.h"

void cmd_stream_big_free(struct cmd_server *srv)
{
    if (srv->stream_big != NULL) {
        coll_stream_ents_free(srv->stream_big->ents);
        coll_pel_recs_free(srv->stream_big->recs);
        if (srv->stream_big->pends != NULL) {
            srv->alloc.free(srv->alloc.opaque, srv->stream_big->pends);
        }
        srv->alloc.free(srv->alloc.opaque, srv->stream_big);
        srv->stream_big = NULL;
    }
}

static struct cmd_stream_big *big_of(const struct store_stream *s)
{
    return (struct cmd_stream_big *)s->ext;
}

uint64_t cmd_stream_node_bytes(const struct cmd_call *c)
{
    long long n = c->srv->settings.stream_node_max_bytes;

    return n <= 0 ? 0 : (uint64_t)n;
}

int cmd_stream_load_big(struct cmd_call *c, const struct resp_slice *key,
                        const struct store_entry *e, struct store_stream *s)
{
    struct cmd_stream_big *b = c->srv->stream_big;
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll *co = store_entry_coll(e);
    const uint8_t *m;
    size_t mlen;
    int st;

    if (b == NULL) {
        b = c->srv->alloc.alloc(c->srv->alloc.opaque, sizeof(*b));
        if (b == NULL) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
        memset(b, 0, sizeof(*b));
        b->alloc = c->srv->alloc;
        c->srv->stream_big = b;
    }
    st = coll_stream_meta(env, co, &m, &mlen);
    if (st == TERSE_OK) {
        st = cmd_scratch_reserve(c->srv, mlen);
    }
    if (st == TERSE_OK) {
        memcpy(c->srv->scratch, m, mlen);
        st = store_stream_decode_meta(s, &c->srv->alloc, c->srv->scratch, mlen);
    }
    if (st == TERSE_OK && (s->n_ents != 0 || s->n_nodes != 0)) {
        st = TERSE_ECORRUPT;
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st);
        return -1;
    }
    b->co = co;
    b->env = env;
    b->cached = false;
    b->pel = NULL;
    b->pcached = false;
    b->bad = 0;
    b->appended = false;
    s->ext = b;
    return 0;
}

size_t cmd_stream_len(const struct store_stream *s)
{
    return big_of(s) != NULL ? (size_t)coll_count(big_of(s)->co) : s->n_ents;
}

struct store_stream_id cmd_stream_first_id(const struct store_stream *s)
{
    struct store_stream_id zero = {0, 0};
    struct coll_it it;

    if (big_of(s) == NULL) {
        return s->n_ents > 0 ? s->ents[0].id : zero;
    }
    /* The first node's key is its first live entry's ID: no chunk read. */
    it = coll_tree_begin(&big_of(s)->co->tree);
    if (!coll_it_valid(&it)) {
        return zero;
    }
    return (struct store_stream_id){coll_tree_desc(&it)->key.k, coll_tree_desc(&it)->key.aux};
}

size_t cmd_stream_n_nodes(const struct store_stream *s)
{
    return big_of(s) != NULL ? (size_t)big_of(s)->co->tree.n_chunks : s->n_nodes;
}

const struct store_stream_entry *cmd_stream_at(const struct store_stream *s, size_t k)
{
    static const struct store_stream_entry none = {{0, 0}, 0, NULL, 0};
    struct cmd_stream_big *b = big_of(s);
    int st;

    if (b == NULL) {
        return &s->ents[k];
    }
    if (b->cached && k >= b->node.first_rank && k - b->node.first_rank < b->node.n &&
        coll_env_decodes(b->env) - b->node_turns <= 1) {
        return &b->ents[k - b->node.first_rank];
    }
    b->cached = false;
    st = b->bad == 0 ? coll_stream_read_node(b->env, b->co, k, &b->node, &b->ents, &b->cap)
                     : b->bad;
    if (st != TERSE_OK) {
        b->bad = st;
        return &none; /* the reply is replaced by the error (cmd_stream_failed) */
    }
    b->cached = true;
    b->node_turns = coll_env_decodes(b->env);
    return &b->ents[k - b->node.first_rank];
}

size_t cmd_stream_seek(const struct store_stream *s, const struct store_stream_id *id)
{
    struct cmd_stream_big *b = big_of(s);
    uint64_t rank = 0;
    int st;

    if (b == NULL) {
        return store_stream_seek(s, id);
    }
    b->cached = false;
    st = b->bad == 0 ? coll_stream_seek(b->env, b->co, id, &rank) : b->bad;
    if (st != TERSE_OK) {
        b->bad = st;
        return cmd_stream_len(s);
    }
    return (size_t)rank;
}

int cmd_stream_failed_status(const struct store_stream *s)
{
    return big_of(s) != NULL ? big_of(s)->bad : TERSE_OK;
}

int cmd_stream_failed(struct cmd_call *c, const struct resp_slice *key,
                      const struct store_stream *s, size_t mark)
{
    struct cmd_stream_big *b = big_of(s);

    if (b == NULL || b->bad == 0) {
        return 0;
    }
    c->out->len = mark;
    cmd_value_reply_bad(c, key, b->bad);
    return -1;
}

int cmd_stream_append(struct cmd_call *c, struct store_stream *s,
                      const struct store_stream_entry *e)
{
    struct cmd_stream_big *b = big_of(s);
    int st;

    if (b == NULL) {
        return store_stream_append(s, e, cmd_stream_node_entries(c), cmd_stream_node_bytes(c));
    }
    b->cached = false;
    st = coll_stream_append(b->env, b->co, e, cmd_stream_node_entries(c),
                            cmd_stream_node_bytes(c));
    b->appended = st == TERSE_OK;
    return st;
}

int cmd_stream_remove(struct store_stream *s, size_t at, size_t n)
{
    struct cmd_stream_big *b = big_of(s);

    if (b == NULL) {
        store_stream_remove(s, at, n);
        return TERSE_OK;
    }
    b->cached = false;
    return n == 0 ? TERSE_OK : coll_stream_remove(b->env, b->co, at, n);
}

void cmd_stream_nodes_begin(const struct store_stream *s, struct cmd_stream_nodes *it)
{
    it->k = 0;
    it->it = big_of(s) != NULL ? coll_tree_begin(&big_of(s)->co->tree) : (struct coll_it){0};
}

bool cmd_stream_nodes_next(const struct store_stream *s, struct cmd_stream_nodes *it,
                           size_t *live)
{
    if (big_of(s) == NULL) {
        if (it->k >= s->n_nodes) {
            return false;
        }
        *live = s->nodes[it->k++].live;
        return true;
    }
    if (!coll_it_valid(&it->it)) {
        return false;
    }
    *live = coll_tree_desc(&it->it)->count;
    coll_tree_next(&it->it);
    return true;
}

/* The model's form into scratch2: *len. TERSE_OK or a status. */
static int encode_scratch2(struct cmd_call *c, const struct store_stream *s, size_t *len)
{
    size_t need = store_stream_size(s);
    int st = cmd_scratch2_reserve(c->srv, need);

    return st == TERSE_OK ? store_stream_encode(s, c->srv->scratch2, need, len) : st;
}

/* The model's meta form (no entry, no node) into scratch2, stored as the chunked stream's. */
static int store_meta(struct cmd_call *c, const struct store_stream *s)
{
    struct cmd_stream_big *b = big_of(s);
    size_t len = 0;
    int st = encode_scratch2(c, s, &len);

    if (st == TERSE_OK) {
        st = coll_stream_set_meta(b->env, b->co, c->srv->scratch2, len);
    }
    if (st != TERSE_OK && b->appended) {
        /* The entry this command added goes again: the last node was just written RAW, so
         * taking it out rewrites it in place (or drops it) without allocating. */
        (void)coll_stream_remove(b->env, b->co, coll_count(b->co) - 1, 1);
    }
    b->appended = false;
    return st;
}

int cmd_stream_store_or_withdraw(struct cmd_call *c, const struct resp_slice *key,
                                 const struct store_stream *s, size_t mark)
{
    size_t len = 0;
    int st;

    if (big_of(s) != NULL) {
        st = store_meta(c, s);
        if (st == TERSE_OK) {
            cmd_coll_edited(c, key);
        }
    } else if (s->n_nodes > 1) {
        /* A second node: chunked from now on. */
        struct coll *co;
        struct coll_hash_shape sh;
        cmd_elems_coll_shape(c->srv, &sh);
        st = coll_stream_from_model(cmd_coll_env(c, key), s, sh.chunk_bytes, &co);
        if (st == TERSE_OK) {
            st = cmd_coll_store(c, key, co);
        }
    } else {
        st = encode_scratch2(c, s, &len);
        if (st == TERSE_OK) {
            st = cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_STREAM, len, 0);
        }
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_value_reply_bad(c, key, st);
        return -1;
    }
    return 0;
}
