/*
 * cmd_after_load: what a load (a snapshot, an RDB from a master, an AOF) leaves for the command
 * layer to decide, as Redis decides it when it loads: each hash, set and zset's encoding by its
 * contents (the raw mark OBJECT ENCODING reads), big lists, hashtables, skiplists and streams
 * of more than one node chunked as a write would chunk them, and chunked ones Redis would hold
 * small made one value again.
 *
 * Buffers: the keys to change after the walk (the walk may not change the shard) are kept in
 * one array from srv->alloc, freed at the end; forms go through the server's scratches.
 */
#include "cmd/keyspace/cmd_after_load.h"

#include <string.h>

#include "cmd/hash/cmd_hash.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "codec/codec_value.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"
#include "cmd/set/cmd_set_store.h"
#include "cmd/zset/cmd_zset_form.h"
#include "cmd/list/cmd_list_coll.h"
#include "coll/coll_form.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_stream.h"
#include "coll/coll_zset.h"
#include "store/form/store_list.h"
#include "store/form/store_stream.h"
#include "store/store.h"

struct after_load {
    struct cmd_server *srv;
    int db;
    uint8_t *keys;     /* keys to change: (u32 klen, key) records; from srv->alloc */
    size_t len, cap;
    int oom;
};

/* The key of e kept for after the walk (the walk may not change the shard): a loaded list
 * longer than a chunk, a hashtable-encoded hash or set or a skiplist-encoded zset past
 * terse-chunk-bytes, to be chunked as a write would chunk it, or a chunked one Redis may hold
 * small. */
static void note_key(struct after_load *a, const struct store_entry *e)
{
    const uint8_t *key;
    size_t klen;
    uint32_t k32;

    key = store_entry_key(e, &klen);
    if (a->len + 4 + klen > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4096;
        uint8_t *q;
        while (cap < a->len + 4 + klen) {
            cap *= 2;
        }
        q = a->srv->alloc.alloc(a->srv->alloc.opaque, cap);
        if (q == NULL) {
            a->oom = 1; /* stays one value: the next write chunks it */
            return;
        }
        if (a->len > 0) {
            memcpy(q, a->keys, a->len);
        }
        a->srv->alloc.free(a->srv->alloc.opaque, a->keys);
        a->keys = q;
        a->cap = cap;
    }
    k32 = (uint32_t)klen;
    memcpy(a->keys + a->len, &k32, 4);
    memcpy(a->keys + a->len + 4, key, klen);
    a->len += 4 + klen;
}

/* The element count past which Redis holds a hash, set or zset as a table whatever its
 * elements (hash-max-listpack-entries, set-max-intset-entries, zset-max-listpack-entries). */
static uint64_t entries_limit(const struct cmd_server *srv, enum store_type t)
{
    long long v = t == STORE_TYPE_HASH  ? srv->settings.hash_max_listpack_entries
                  : t == STORE_TYPE_SET ? srv->settings.set_max_intset_entries
                                        : srv->settings.zset_max_listpack_entries;
    return v < 0 ? 0 : (uint64_t)v;
}

/* A chunked hash, set or zset loaded (a snapshot's CHUNKED record) small enough that Redis
 * could hold it as a listpack or an intset: made one value again when Redis would (by its
 * contents, as the load of one value decides), so OBJECT ENCODING and a set's integer order
 * are Redis's. Left chunked on any failure. */
static void unchunk_one(struct after_load *a, const struct store_entry *e, const uint8_t *key,
                        size_t klen)
{
    struct cmd_server *srv = a->srv;
    struct coll *co = store_entry_coll(e);
    enum store_type t = store_entry_type(e);
    size_t len = 0, cap = coll_form_size(co) + 1, stored = 0;
    uint64_t n;
    bool all_int;
    int table;

    if (cmd_scratch2_reserve(srv, cap) != TERSE_OK ||
        coll_to_form(store_coll_env(srv->shard), co, srv->scratch2, srv->scratch2_cap, &len) !=
            TERSE_OK) {
        return;
    }
    table = t == STORE_TYPE_HASH ? cmd_hash_form_is_table(srv, srv->scratch2, len)
            : t == STORE_TYPE_SET ? cmd_set_form_is_table(srv, srv->scratch2, len)
                                  : cmd_zset_form_is_table(srv, srv->scratch2, len);
    if (table != 0 || (t == STORE_TYPE_SET &&
                       cmd_set_normalize(srv, len, &len, &n, &all_int) != TERSE_OK)) {
        return;
    }
    if (cmd_scratch_reserve(srv, codec_value_bound(len)) != TERSE_OK ||
        codec_value_encode(srv->codec, srv->scratch2, len, srv->scratch, srv->scratch_cap,
                           &stored) != TERSE_OK) {
        return;
    }
    (void)store_set_value(srv->shard, a->db, key, klen, t, srv->scratch, stored, STORE_KEEP_TTL,
                          0, 0);
}

/* A loaded stream (its form in scratch2, len bytes) of more than one node: chunked, one chunk
 * per node, as a write would leave it. Left one value on any failure. */
static void chunk_stream(struct after_load *a, const uint8_t *key, size_t klen, size_t len,
                         uint32_t chunk_bytes)
{
    struct cmd_server *srv = a->srv;
    struct coll_env *env = store_coll_env(srv->shard);
    struct store_stream s;
    struct coll *co = NULL;

    if (store_stream_decode(&s, &srv->alloc, srv->scratch2, len) == TERSE_OK && s.n_nodes > 1 &&
        coll_stream_from_model(env, &s, chunk_bytes, &co) == TERSE_OK &&
        store_set_coll(srv->shard, a->db, key, klen, co, STORE_KEEP_TTL, 0) != TERSE_OK) {
        coll_destroy(env, co);
    }
    store_stream_deinit(&s);
}

/* Chunks the containers note_key kept for db. */
static void chunk_noted(struct after_load *a)
{
    struct cmd_server *srv = a->srv;
    struct coll_env *env = store_coll_env(srv->shard);
    struct coll_list_shape sh;
    struct coll_hash_shape hsh;
    struct coll_zset_shape zsh;

    cmd_list_shape(srv, &sh);
    cmd_elems_coll_shape(srv, &hsh);
    zsh.chunk_bytes = hsh.chunk_bytes;
    coll_env_set_codec(env, srv->codec);
    for (size_t at = 0; at < a->len;) {
        uint32_t klen;
        const uint8_t *key;
        const struct store_entry *e;
        struct codec_value_info info;
        const uint8_t *p;
        size_t n, len = 0;
        struct coll *co;

        memcpy(&klen, a->keys + at, 4);
        key = a->keys + at + 4;
        at += 4 + klen;
        e = store_peek(srv->shard, a->db, key, klen);
        if (e != NULL && store_entry_enc(e) == STORE_ENC_COLL) {
            unchunk_one(a, e, key, klen);
            continue;
        }
        if (e == NULL || store_entry_enc(e) != STORE_ENC_STR) {
            continue;
        }
        p = store_entry_val(e, &n);
        if (codec_value_info(p, n, &info) != TERSE_OK ||
            cmd_scratch2_reserve(srv, info.orig_len + 1) != TERSE_OK ||
            codec_value_decode(srv->codec, p, n, srv->scratch2, srv->scratch2_cap, &len) !=
                TERSE_OK) {
            continue; /* stays one value (a bad one is reported by its next read) */
        }
        if (store_entry_type(e) == STORE_TYPE_STREAM) {
            chunk_stream(a, key, klen, len, hsh.chunk_bytes);
            continue;
        }
        if (store_entry_type(e) == STORE_TYPE_LIST
                ? !cmd_list_wants_chunks(srv, len, store_list_n(srv->scratch2, len)) ||
                      coll_list_from_form(env, srv->scratch2, len, &sh, &co) != TERSE_OK
            : store_entry_type(e) == STORE_TYPE_ZSET
                ? coll_zset_from_form(env, srv->scratch2, len, &zsh, &co) != TERSE_OK
                : coll_hash_from_form(env,
                                      store_entry_type(e) == STORE_TYPE_HASH ? COLL_HASH : COLL_SET,
                                      srv->scratch2, len, &hsh, &co) != TERSE_OK) {
            continue;
        }
        if (store_set_coll(srv->shard, a->db, key, klen, co, STORE_KEEP_TTL, 0) != TERSE_OK) {
            coll_destroy(env, co);
        }
    }
    a->len = 0;
}

/* The stream form's bytes at or under which a stream stays one value: one node is one
 * stream-node-max-bytes at most, but for its last entry, so a form past half of it may hold
 * more. */
static size_t stream_min(const struct cmd_server *srv)
{
    long long v = srv->settings.stream_node_max_bytes;

    return (size_t)((uint64_t)(v > 0 ? v : 0) / 2);
}

static void decide_one(void *arg, const struct store_entry *e)
{
    struct after_load *a = arg;
    struct cmd_server *srv = a->srv;
    struct codec_value_info info;
    const uint8_t *p;
    size_t n, len = 0, klen;
    const uint8_t *key;
    int table;
    enum store_type t = store_entry_type(e);

    if (t == STORE_TYPE_LIST && store_entry_enc(e) == STORE_ENC_STR) {
        p = store_entry_val(e, &n);
        /* An element takes a byte at least: orig_len bounds the count from above. */
        if (codec_value_info(p, n, &info) == TERSE_OK &&
            cmd_list_wants_chunks(srv, info.orig_len, info.orig_len)) {
            note_key(a, e);
        }
        return;
    }
    if (t == STORE_TYPE_STREAM && store_entry_enc(e) == STORE_ENC_STR) {
        p = store_entry_val(e, &n);
        if (codec_value_info(p, n, &info) == TERSE_OK && info.orig_len > stream_min(srv)) {
            note_key(a, e);
        }
        return;
    }
    if (t != STORE_TYPE_HASH && t != STORE_TYPE_SET && t != STORE_TYPE_ZSET) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_COLL) {
        /* Loaded in chunks: a table to Redis past its entry limit; at or under it Redis decides
         * by the contents, which unchunk_one reads after the walk. */
        if (coll_count(store_entry_coll(e)) <= entries_limit(srv, t)) {
            note_key(a, e);
        }
        return;
    }
    if (store_entry_enc(e) != STORE_ENC_STR) {
        return;
    }
    p = store_entry_val(e, &n);
    if (codec_value_info(p, n, &info) != TERSE_OK ||
        cmd_scratch_reserve(srv, info.orig_len + 1) != TERSE_OK ||
        codec_value_decode(srv->codec, p, n, srv->scratch, srv->scratch_cap, &len) != TERSE_OK) {
        return;
    }
    table = t == STORE_TYPE_HASH ? cmd_hash_form_is_table(srv, srv->scratch, len)
            : t == STORE_TYPE_SET ? cmd_set_form_is_table(srv, srv->scratch, len)
                                  : cmd_zset_form_is_table(srv, srv->scratch, len);
    if (table == 1 && cmd_elems_wants_chunks(srv, true, len)) {
        note_key(a, e);
    }
    if (table >= 0) {
        key = store_entry_key(e, &klen);
        store_mark_raw(srv->shard, a->db, key, klen, table);
    }
}

void cmd_value_after_load(struct cmd_server *srv)
{
    struct after_load a = {srv, 0, NULL, 0, 0, 0};

    for (a.db = 0; a.db < store_shard_n_db(srv->shard); a.db++) {
        uint64_t cursor = 0;
        do {
            /* now 0: nothing counts as expired, so the walk deletes nothing */
            cursor = store_scan(srv->shard, a.db, cursor, 1024, 0, decide_one, &a);
        } while (cursor != 0);
        chunk_noted(&a);
    }
    srv->alloc.free(srv->alloc.opaque, a.keys);
}

void cmd_value_after_restore(struct cmd_server *srv, int db, const uint8_t *key, size_t klen)
{
    struct after_load a = {srv, db, NULL, 0, 0, 0};
    const struct store_entry *e = store_peek(srv->shard, db, key, klen);

    if (e != NULL) {
        decide_one(&a, e);
        chunk_noted(&a);
    }
    srv->alloc.free(srv->alloc.opaque, a.keys);
}

struct coll_env *cmd_value_load_shapes(struct cmd_server *srv, struct coll_list_shape *list,
                                       struct coll_hash_shape *elems, size_t *stream_min_out)
{
    struct coll_env *env = store_coll_env(srv->shard);

    *stream_min_out = stream_min(srv);
    cmd_list_shape(srv, list);
    cmd_elems_coll_shape(srv, elems);
    coll_env_set_codec(env, srv->codec);
    return env;
}
