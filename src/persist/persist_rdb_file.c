/*
 * persist_rdb_file: a whole RDB file (version 10, as Redis 7.0 writes one) of a shard.
 *
 *   "REDIS0010"
 *   AUX redis-ver "7.0.15" | AUX redis-bits 64 | AUX ctime <unix s> | AUX used-mem <bytes> |
 *   [AUX repl-stream-db | AUX repl-id | AUX repl-offset] | AUX aof-base 0
 *   per non-empty db: SELECTDB <db> | RESIZEDB <keys> <keys with an expiry>
 *     per key: [EXPIRETIME_MS u64 LE] | type | key | value      (persist_rdb_write.c)
 *   EOF | CRC-64 of every byte before it, u64 LE
 *
 * An AUX field is the opcode, then its name and value as RDB strings. RESIZEDB's counts are
 * hints (keys whose expiry passed are counted, not written), as Redis's are.
 *
 * Values are decoded from their stored form through the codec into one buffer that grows to
 * the largest value (freed at the end), then written through a 64 KiB block buffer. A
 * container held in chunks is written a chunk at a time (persist_rdb_wcoll.c), so no buffer
 * of its whole form is made. The
 * shard is only read (store_scan), so a forked child can write its frozen copy.
 */
#include "persist/persist_rdb_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "terse/status.h"

#define FILE_BUF_CAP ((size_t)64 * 1024)

struct file_ctx {
    struct rdb_w w;
    struct codec_ctx *codec;
    struct persist_rdb_buf dec; /* a value decoded */
    struct store_shard *shard;  /* its chunked containers' environment */
    uint64_t n_keys;
    int st;                     /* sticky: the first failure (w.st's included) */
    struct persist_error *err;
};

static void file_fail(struct file_ctx *f, int st, const char *why, const uint8_t *key,
                      size_t klen)
{
    if (f->st != TERSE_OK) {
        return;
    }
    f->st = st;
    if (f->err != NULL) {
        f->err->offset = f->w.flushed + f->w.len;
        if (key != NULL) {
            snprintf(f->err->reason, sizeof(f->err->reason), "%s (key '%.*s')", why,
                     (int)(klen > 64 ? 64 : klen), (const char *)key);
        } else {
            snprintf(f->err->reason, sizeof(f->err->reason), "%s", why);
        }
    }
}

static void write_expiry(struct file_ctx *f, int64_t exp)
{
    if (exp != STORE_NO_EXPIRE) {
        uint8_t b[9];
        b[0] = RDB_OPCODE_EXPIRETIME_MS;
        rdb_put_le(b + 1, (uint64_t)exp, 8);
        rdb_w_put(&f->w, b, sizeof(b));
    }
}

static void save_key(void *arg, const struct store_entry *e)
{
    struct file_ctx *f = arg;
    struct persist_rdb_value v = {.type = store_entry_type(e)};
    size_t klen, n;
    const uint8_t *key = store_entry_key(e, &klen);
    int64_t exp = store_entry_expire(e);
    int st;

    if (f->st != TERSE_OK) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT) {
        v.is_int = 1;
        v.ival = store_entry_int(e);
    } else if (store_entry_enc(e) == STORE_ENC_COLL) {
        /* Streamed chunk by chunk: no buffer of the whole container. */
        write_expiry(f, exp);
        st = rdb_write_coll(&f->w, key, klen, v.type, store_coll_env(f->shard),
                            store_entry_coll(e));
        if (st != TERSE_OK) {
            file_fail(f, st, st == TERSE_EIO ? "write failed" : "a value failed to decode",
                      key, klen);
            return;
        }
        f->n_keys++;
        return;
    } else {
        const uint8_t *stored = store_entry_val(e, &n);
        struct codec_value_info info;

        st = codec_value_info(stored, n, &info);
        if (st == TERSE_OK) {
            st = rdb_buf_reserve(f->w.alloc, &f->dec, info.orig_len + 1);
        }
        if (st == TERSE_OK) {
            st = codec_value_decode(f->codec, stored, n, f->dec.p, f->dec.cap, &v.len);
        }
        if (st != TERSE_OK) {
            file_fail(f, st, st == TERSE_ENOMEM ? "out of memory" : "a value failed to decode",
                      key, klen);
            return;
        }
        v.p = f->dec.p;
    }
    write_expiry(f, exp);
    st = rdb_write_object(&f->w, &v, key, klen);
    if (st != TERSE_OK) {
        file_fail(f, st, st == TERSE_EIO ? "write failed" : "a value could not be written",
                  key, klen);
        return;
    }
    f->n_keys++;
}

static void aux_str(struct rdb_w *w, const char *name, const char *value)
{
    rdb_w_byte(w, RDB_OPCODE_AUX);
    rdb_w_string(w, (const uint8_t *)name, strlen(name));
    rdb_w_string(w, (const uint8_t *)value, strlen(value));
}

static void aux_int(struct rdb_w *w, const char *name, long long v)
{
    char num[24];
    size_t n = rdb_format_ll(num, v);

    rdb_w_byte(w, RDB_OPCODE_AUX);
    rdb_w_string(w, (const uint8_t *)name, strlen(name));
    rdb_w_string(w, (const uint8_t *)num, n);
}

static void write_header(struct rdb_w *w, int64_t now_ms, uint64_t used_mem,
                         const struct persist_rdb_aux *aux)
{
    char magic[10];

    snprintf(magic, sizeof(magic), "REDIS%04d", PERSIST_RDB_VERSION);
    rdb_w_put(w, magic, 9);
    aux_str(w, "redis-ver", "7.0.15");
    aux_int(w, "redis-bits", (long long)(sizeof(void *) * 8));
    aux_int(w, "ctime", (long long)(now_ms / 1000));
    aux_int(w, "used-mem", (long long)used_mem);
    if (aux != NULL) {
        aux_int(w, "repl-stream-db", aux->repl_stream_db);
        aux_str(w, "repl-id", aux->repl_id != NULL ? aux->repl_id : "");
        aux_int(w, "repl-offset", aux->repl_offset);
    }
    aux_int(w, "aof-base", 0);
}

int persist_rdb_save_fd(struct store_shard *s, struct codec_ctx *codec, int fd, int64_t now_ms,
                        uint64_t used_mem, const struct persist_rdb_aux *aux,
                        const terse_allocator *alloc, struct persist_save_stats *st,
                        struct persist_error *err)
{
    struct file_ctx f;
    struct codec_ctx *own = NULL, *env_codec = NULL;
    uint8_t tail[8];
    bool set_env = false;

    memset(&f, 0, sizeof(f));
    f.w.fd = fd;
    f.w.cap = FILE_BUF_CAP;
    f.w.compress = true;
    f.w.alloc = alloc;
    f.err = err;
    if (err != NULL) {
        err->offset = 0;
        err->reason[0] = '\0';
    }
    f.w.buf = alloc != NULL ? alloc->alloc(alloc->opaque, FILE_BUF_CAP) : malloc(FILE_BUF_CAP);
    if (codec == NULL && codec_ctx_create(&own, alloc) == TERSE_OK) {
        codec = own;
    }
    if (f.w.buf == NULL || codec == NULL) {
        file_fail(&f, TERSE_ENOMEM, "out of memory", NULL, 0);
        goto out;
    }
    f.codec = codec;
    f.shard = s;
    /* Chunks decode with the writer's codec context (its own when the caller gave none). */
    env_codec = coll_env_codec(store_coll_env(s));
    coll_env_set_codec(store_coll_env(s), codec);
    set_env = true;
    write_header(&f.w, now_ms, used_mem, aux);
    for (int db = 0; db < store_shard_n_db(s) && f.st == TERSE_OK; db++) {
        uint64_t cursor = 0;

        if (store_dbsize(s, db) == 0) {
            continue;
        }
        rdb_w_byte(&f.w, RDB_OPCODE_SELECTDB);
        rdb_w_len(&f.w, (uint64_t)db);
        rdb_w_byte(&f.w, RDB_OPCODE_RESIZEDB);
        rdb_w_len(&f.w, store_dbsize(s, db));
        rdb_w_len(&f.w, store_db_n_expires(s, db));
        do {
            cursor = store_scan(s, db, cursor, 1024, now_ms, save_key, &f);
        } while (cursor != 0 && f.st == TERSE_OK);
    }
    rdb_w_byte(&f.w, RDB_OPCODE_EOF);
    rdb_w_flush(&f.w);
    rdb_put_le(tail, f.w.crc, 8);
    rdb_w_put(&f.w, tail, sizeof(tail));
    rdb_w_flush(&f.w);
    if (f.w.st != TERSE_OK) {
        file_fail(&f, f.w.st, f.w.st == TERSE_EIO ? "write failed" : "out of memory", NULL, 0);
    }
out:
    if (set_env) {
        coll_env_set_codec(store_coll_env(s), env_codec);
    }
    if (st != NULL) {
        st->n_keys = f.n_keys;
        st->n_dedup = 0;
        st->file_bytes = f.w.flushed;
    }
    rdb_buf_free(alloc, &f.dec);
    rdb_buf_free(alloc, &f.w.ztmp);
    if (f.w.buf != NULL) {
        if (alloc != NULL) {
            alloc->free(alloc->opaque, f.w.buf);
        } else {
            free(f.w.buf);
        }
    }
    codec_ctx_destroy(&own);
    return f.st;
}
