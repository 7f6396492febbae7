/*
 * cmd_value: the value path, so that every family stores and reads strings the same way:
 *
 *   write: bytes -> integer-looking? store_set_int
 *                  : CODEC_RAW_MAX bytes or more, terse-compression off:
 *                        codec_value_encode_raw(scratch2) -> store
 *                  : CODEC_RAW_MAX bytes or more, background, used_memory not at maxmemory
 *                    (cmd_memory_near_limit), not an overwrite of a value held compressed
 *                    (overwrite_wants_inline):
 *                        codec_value_encode_raw(scratch2) -> store, marked pending
 *                        (compressed later by store_compress_step)
 *                  : else (inline, or background at the limit or on such an overwrite, or a
 *                    value too short to compress):
 *                        codec_value_encode(scratch2) -> store
 *   read:  entry -> int? format : codec_value_decode straight into the reply buffer
 *
 * Scratch buffers belong to struct cmd_server; they are grown here and reused, so a warm
 * request loop allocates nothing.
 */
#include "cmd/core/cmd_value.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_lookup.h"
#include "coll/coll_form.h"
#include "terse/status.h"

/* ---- scratch ------------------------------------------------------------------------------ */

static int scratch_grow(struct cmd_server *srv, uint8_t **p, size_t *cap, size_t n)
{
    uint8_t *np;
    size_t ncap;

    if (n <= *cap) {
        return TERSE_OK;
    }
    ncap = *cap < 4096 ? 4096 : *cap;
    while (ncap < n) {
        ncap = ncap > SIZE_MAX / 2 ? n : ncap * 2;
    }
    np = srv->alloc.alloc(srv->alloc.opaque, ncap);
    if (np == NULL) {
        return TERSE_ENOMEM;
    }
    /* Contents are not preserved: scratch holds nothing across a reserve. */
    srv->alloc.free(srv->alloc.opaque, *p);
    *p = np;
    *cap = ncap;
    return TERSE_OK;
}


int cmd_scratch_reserve(struct cmd_server *srv, size_t n)
{
    return scratch_grow(srv, &srv->scratch, &srv->scratch_cap, n);
}

int cmd_scratch2_reserve(struct cmd_server *srv, size_t n)
{
    return scratch_grow(srv, &srv->scratch2, &srv->scratch2_cap, n);
}

int cmd_scratch3_reserve(struct cmd_server *srv, size_t n)
{
    return scratch_grow(srv, &srv->scratch3, &srv->scratch3_cap, n);
}

/* ---- values ------------------------------------------------------------------------------- */

int cmd_value_len(struct cmd_call *c, const struct store_entry *e, size_t *len)
{
    struct codec_value_info info;
    const uint8_t *p;
    size_t n;
    int st;

    (void)c;
    if (store_entry_enc(e) == STORE_ENC_INT) {
        char buf[24];
        *len = cmd_format_ll(buf, store_entry_int(e));
        return TERSE_OK;
    }
    if (store_entry_enc(e) == STORE_ENC_COLL) {
        *len = coll_form_size(store_entry_coll(e)); /* the form cmd_value_get builds */
        return TERSE_OK;
    }
    p = store_entry_val(e, &n);
    st = codec_value_info(p, n, &info);
    if (st != TERSE_OK) {
        return st;
    }
    *len = info.orig_len;
    return TERSE_OK;
}

/* co's whole form built in scratch: *out, *len. TERSE_OK or a status. */
static int coll_whole(struct cmd_call *c, struct coll_env *env, struct coll *co,
                      const uint8_t **out, size_t *len)
{
    size_t n = coll_form_size(co);
    int st = cmd_scratch_reserve(c->srv, n + 1);

    *len = 0;
    if (st == TERSE_OK) {
        st = coll_to_form(env, co, c->srv->scratch, c->srv->scratch_cap, len);
    }
    *out = c->srv->scratch;
    return st;
}

int cmd_coll_whole(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                   const uint8_t **form, size_t *len)
{
    return coll_whole(c, cmd_coll_env(c, key), co, form, len);
}

int cmd_coll_store(struct cmd_call *c, const struct resp_slice *key, struct coll *co)
{
    int st = store_set_coll(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len, co,
                            STORE_KEEP_TTL, c->now_ms);

    if (st != TERSE_OK) {
        coll_destroy(cmd_coll_env(c, key), co);
    }
    return st;
}

int cmd_coll_settle(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                    struct coll *co, bool small, unsigned flags)
{
    size_t sz, out_len = 0;
    int st;

    if (coll_count(co) == 0) {
        c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                  c->now_ms);
        return TERSE_OK;
    }
    c->emptied = 0;
    if (!small) {
        cmd_coll_edited(c, key);
        return TERSE_OK;
    }
    sz = coll_form_size(co);
    st = cmd_scratch2_reserve(c->srv, sz);
    if (st == TERSE_OK) {
        st = coll_to_form(cmd_coll_env(c, key), co, c->srv->scratch2, sz, &out_len);
    }
    /* The store releases the container as the one value replaces it. */
    return st == TERSE_OK ? cmd_value_store_form(c, c->cl->db, key, type, out_len, flags) : st;
}

int cmd_value_get(struct cmd_call *c, const struct store_entry *e, const uint8_t **out,
                  size_t *len)
{
    struct codec_value_info info;
    const uint8_t *p;
    size_t n;
    int st;

    if (store_entry_enc(e) == STORE_ENC_INT) {
        st = cmd_scratch_reserve(c->srv, 24);
        if (st != TERSE_OK) {
            return st;
        }
        *len = cmd_format_ll((char *)c->srv->scratch, store_entry_int(e));
        *out = c->srv->scratch;
        return TERSE_OK;
    }
    if (store_entry_enc(e) == STORE_ENC_COLL) {
        /* A chunked container whole (DUMP, DIGEST, SORT): its form, built in scratch. */
        struct coll_env *env = store_coll_env(c->srv->shard);
        coll_env_set_codec(env, c->srv->codec);
        return coll_whole(c, env, store_entry_coll(e), out, len);
    }
    p = store_entry_val(e, &n);
    st = codec_value_info(p, n, &info);
    if (st != TERSE_OK) {
        return st;
    }
    st = cmd_scratch_reserve(c->srv, info.orig_len + 1);
    if (st != TERSE_OK) {
        return st;
    }
    st = codec_value_decode(c->srv->codec, p, n, c->srv->scratch, c->srv->scratch_cap, len);
    if (st != TERSE_OK) {
        return st;
    }
    *out = c->srv->scratch;
    return TERSE_OK;
}

void cmd_reply_value(struct cmd_call *c, const struct store_entry *e, const struct resp_slice *key)
{
    struct codec_value_info info;
    const uint8_t *p;
    uint8_t *dst;
    size_t n, got = 0, mark;
    char hdr[RESP_HEADER_MAX];
    int hl, st;

    if (store_entry_enc(e) == STORE_ENC_INT) {
        resp_write_bulk_ll(c->out, store_entry_int(e));
        return;
    }
    p = store_entry_val(e, &n);
    if (codec_value_info(p, n, &info) != TERSE_OK) {
        cmd_reply_corrupt(c, key->p, key->len);
        return;
    }
    hl = snprintf(hdr, sizeof(hdr), "$%zu\r\n", info.orig_len);
    mark = c->out->len;
    dst = resp_out_reserve(c->out, (size_t)hl + info.orig_len + 2);
    if (dst == NULL) {
        return; /* sticky error: the connection is closed by its owner */
    }
    memcpy(dst, hdr, (size_t)hl);
    st = codec_value_decode(c->srv->codec, p, n, dst + hl, info.orig_len, &got);
    if (st != TERSE_OK || got != info.orig_len) {
        /* Nothing of the value is sent: drop what was decoded and report the key. */
        c->out->len = mark;
        cmd_reply_corrupt(c, key->p, key->len);
        return;
    }
    memcpy(dst + hl + got, "\r\n", 2);
    resp_out_commit(c->out, (size_t)hl + got + 2);
}

/*
 * An overwrite of a value held compressed: its raw form would not fit the old block, so
 * storing it raw would allocate a new entry now and move it again when the background
 * compresses it. Compressing inline instead keeps the usual overwrite in place (a warm
 * overwrite loop allocates nothing); new keys, the bulk of a load, still go raw.
 */
static int overwrite_wants_inline(struct store_shard *s, int db, const struct resp_slice *key,
                                  size_t len, int64_t now_ms)
{
    const struct store_entry *e = store_lookup(s, db, key->p, key->len, now_ms, 0);
    size_t n;

    if (e == NULL || store_entry_enc(e) != STORE_ENC_STR || store_entry_is_pending(e)) {
        return 0;
    }
    (void)store_entry_val(e, &n);
    return n < codec_value_bound(len);
}

/* Encodes len bytes at p into dst (cap bytes): as they are when raw, else through the codec
 * (LZ4 from CODEC_RAW_MAX up, kept when it saves enough). */
static int encode_into(struct cmd_server *srv, const uint8_t *p, size_t len, bool raw,
                       uint8_t *dst, size_t cap, size_t *stored_len)
{
    return raw ? codec_value_encode_raw(p, len, dst, cap, stored_len)
               : codec_value_encode(srv->codec, p, len, dst, cap, stored_len);
}

/* Stores the encoded value for key and counts its original and stored bytes (INFO terse). */
static int commit(struct cmd_call *c, int db, const struct resp_slice *key, enum store_type type,
                  const uint8_t *stored, size_t stored_len, size_t orig_len, int64_t expire_ms,
                  unsigned flags)
{
    int st = store_set_value(cmd_shard(c, key->p, key->len), db, key->p, key->len, type, stored,
                             stored_len, expire_ms, c->now_ms, flags);

    if (st == TERSE_OK) {
        c->srv->stats.orig_value_bytes += orig_len;
        c->srv->stats.stored_value_bytes += stored_len;
    }
    return st;
}

int cmd_value_store(struct cmd_call *c, int db, const struct resp_slice *key, const uint8_t *p,
                    size_t len, int64_t expire_ms, unsigned opts)
{
    struct store_shard *s = cmd_shard(c, key->p, key->len);
    long long v;
    size_t stored_len = 0;
    unsigned flags = (opts & CMD_VALUE_RAW) ? (unsigned)STORE_SET_RAW : 0u;
    int st;

    if (!(opts & (CMD_VALUE_RAW | CMD_VALUE_STR)) && len <= 20 && cmd_parse_ll(p, len, &v)) {
        return store_set_int(s, db, key->p, key->len, v, expire_ms, c->now_ms);
    }
    if ((long long)len > c->srv->settings.proto_max_bulk_len &&
        c->srv->settings.proto_max_bulk_len > 0) {
        return TERSE_ETOOBIG;
    }
    st = cmd_scratch2_reserve(c->srv, codec_value_bound(len));
    if (st != TERSE_OK) {
        return st;
    }
    if (len >= CODEC_RAW_MAX && c->srv->settings.compression == CMD_COMPRESS_BACKGROUND &&
        !cmd_memory_near_limit(c->srv) && !overwrite_wants_inline(s, db, key, len, c->now_ms)) {
        /* Compression costs a quarter of SET throughput inline: store raw (a memcpy and the
         * checksum) and let the background compress it. Not at the memory limit: there the
         * background waits, and admission would compress the value anyway, later and at more
         * cost (a second copy, a move, a new span), before evicting anything. */
        flags |= STORE_SET_PENDING;
    }
    st = encode_into(c->srv, p, len,
                     (flags & STORE_SET_PENDING) ||
                         (len >= CODEC_RAW_MAX &&
                          c->srv->settings.compression == CMD_COMPRESS_OFF),
                     c->srv->scratch2, c->srv->scratch2_cap, &stored_len);
    if (st != TERSE_OK) {
        return st;
    }
    return commit(c, db, key, STORE_TYPE_STRING, c->srv->scratch2, stored_len, len, expire_ms,
                  flags);
}

int cmd_value_set_db(struct cmd_call *c, int db, const struct resp_slice *key, const uint8_t *p,
                     size_t len, int64_t expire_ms)
{
    return cmd_value_store(c, db, key, p, len, expire_ms, 0);
}

int cmd_value_set(struct cmd_call *c, const struct resp_slice *key, const uint8_t *p, size_t len,
                  int64_t expire_ms)
{
    return cmd_value_set_db(c, c->cl->db, key, p, len, expire_ms);
}

/* ---- hashes, lists and sets ------------------------------------------------------------------ */

void cmd_value_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status)
{
    if (status == TERSE_ECORRUPT) {
        cmd_reply_corrupt(c, key->p, key->len);
    } else if (status == TERSE_ETOOBIG) {
        cmd_reply_err(c, "ERR value too large: its encoded form would pass 4 GiB");
    } else {
        cmd_reply_status(c, status);
    }
}

int cmd_value_read_form(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                        int for_write, const struct store_entry **e, const uint8_t **form,
                        size_t *len)
{
    int replied = 0, st;

    *form = NULL;
    *len = 0;
    *e = for_write ? cmd_lookup_write_type(c, key, type, &replied)
                   : cmd_lookup_read_type(c, key, type, &replied);
    if (replied) {
        return -1;
    }
    if (*e == NULL || store_entry_enc(*e) == STORE_ENC_COLL) {
        return 0; /* a chunked container is read through its engine (coll/): no form */
    }
    st = cmd_value_get(c, *e, form, len);
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st);
        return -1;
    }
    return 0;
}

int cmd_value_store_form(struct cmd_call *c, int db, const struct resp_slice *key,
                         enum store_type type, size_t len, unsigned flags)
{
    struct cmd_server *srv = c->srv;
    size_t stored_len = 0;
    int st;

    if (len > STORE_LEN_MAX - CODEC_RAW_MAX) {
        return TERSE_ETOOBIG;
    }
    st = cmd_scratch_reserve(srv, codec_value_bound(len));
    if (st != TERSE_OK) {
        return st;
    }
    /* Inline, even under terse-compression background: the background pass compresses
     * strings only, and such a value is rewritten whole by its next write anyway. */
    st = encode_into(srv, srv->scratch2, len,
                     len >= CODEC_RAW_MAX && srv->settings.compression == CMD_COMPRESS_OFF,
                     srv->scratch, srv->scratch_cap, &stored_len);
    if (st != TERSE_OK) {
        return st;
    }
    return commit(c, db, key, type, srv->scratch, stored_len, len, STORE_KEEP_TTL, flags);
}

/* Room a background compression step may need for a new arena span (the store's largest). */
#define COMPRESS_HEADROOM (1024u * 1024u + 4096u)

int cmd_memory_near_limit(const struct cmd_server *srv)
{
    return srv->settings.maxmemory != 0 &&
           cmd_mem_used(srv) + COMPRESS_HEADROOM > srv->settings.maxmemory;
}
