/*
 * persist_load: verifies and loads a snapshot (docs/formats/snapshot.md).
 *
 * One walk over the file serves both passes. Pass 1 (shard NULL) checks the header, every
 * block header against the bytes left, every block checksum, every record's structure (flags,
 * lengths within the block, a codec header that parses and matches the stored length, a
 * reference pointing at earlier bytes of the file), db order and range, the sequence numbers,
 * the END block's counts and the whole-file hash, and that nothing follows the END block.
 * Pass 2 walks again (block checksums re-checked, which is cheap) and inserts. Every length
 * is checked against the bytes left before it is used; no input can make the walk read out
 * of bounds or allocate: the loader allocates nothing itself.
 *
 * The first failure is recorded with its file offset and stops the walk (sticky status).
 */
#include "persist/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "codec/codec_sum.h"
#include "codec/codec_value.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_stream.h"
#include "coll/coll_zset.h"
#include "persist/persist_internal.h"
#include "terse/status.h"

struct reader {
    const uint8_t *buf;
    size_t len;
    int n_db;                  /* databases of the loading server */
    struct store_shard *s;     /* NULL in the verification pass */
    int64_t now_ms;
    uint64_t n_records;
    uint64_t n_loaded, n_expired;
    int status;
    struct persist_error *err;
};

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int
bad(struct reader *r, int status, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    if (r->status == TERSE_OK) {
        r->status = status;
        if (r->err != NULL) {
            r->err->offset = off;
            va_start(ap, fmt);
            vsnprintf(r->err->reason, sizeof(r->err->reason), fmt, ap);
            va_end(ap);
        }
    }
    return r->status;
}

/* Reads a LEB128 varint at *pos (< end); advances *pos. 0 on success, -1 when truncated,
 * longer than PERSIST_VARINT_MAX bytes or overflowing 64 bits. */
static int get_varint(const uint8_t *buf, size_t *pos, size_t end, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned shift = 0, i = 0; i < PERSIST_VARINT_MAX; i++, shift += 7) {
        uint8_t b;

        if (*pos >= end) {
            return -1;
        }
        b = buf[(*pos)++];
        if (shift == 63 && (b & 0x7e) != 0) {
            return -1;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* A stored value must be one the codec would accept: header parses, lengths agree. */
static int stored_ok(const uint8_t *p, size_t len)
{
    struct codec_value_info info;

    return codec_value_info(p, len, &info) == TERSE_OK &&
           info.header_len + info.payload_len == len;
}

/* A snapshot holds values as they were held: one saved while awaiting background compression
 * is RAW, and is marked pending again so the background compresses it after the load (an
 * incompressible one costs one more try). The server does not compress while
 * terse-compression is off. */
static int compressible_raw(const uint8_t *p, size_t len)
{
    struct codec_value_info info;

    return codec_value_info(p, len, &info) == TERSE_OK && info.kind == CODEC_RAW &&
           info.orig_len >= CODEC_RAW_MAX;
}

/* Largest chunk_bytes and keep_raw a CHUNKED record may give (a list's chunk is 64 KiB at
 * most, list-compress-depth a small count). */
#define LOAD_CHUNK_BYTES_MAX ((uint64_t)1 << 20)
#define LOAD_KEEP_RAW_MAX 65535u

/* Whether a CHUNKED record's flags name a type held in chunks: a list, a hash, a set or a
 * sorted set. */
static bool chunked_type(unsigned flags)
{
    unsigned t = (flags & PERSIST_REC_TYPE_MASK) >> PERSIST_REC_TYPE_SHIFT;

    return t == STORE_TYPE_LIST || t == STORE_TYPE_HASH || t == STORE_TYPE_SET ||
           t == STORE_TYPE_ZSET || t == STORE_TYPE_STREAM;
}

/* A new empty container of type for a CHUNKED record's header (cbytes, shape_a, shape_b as
 * persist_save_coll.c writes them): TERSE_OK (*out), TERSE_ECORRUPT (a shape no save writes),
 * TERSE_ENOMEM. */
static int chunked_create(struct coll_env *env, enum store_type type, uint64_t cbytes,
                          uint64_t shape_a, uint64_t shape_b, struct coll **out)
{
    *out = NULL;
    if (type == STORE_TYPE_LIST) {
        struct coll_list_shape sh = {(uint32_t)cbytes, (uint32_t)shape_a, (int)shape_b};
        if (shape_a > UINT32_MAX || shape_b > LOAD_KEEP_RAW_MAX) {
            return TERSE_ECORRUPT;
        }
        return coll_list_create(env, &sh, out);
    } else if (type == STORE_TYPE_STREAM) {
        return shape_a == 0 && shape_b == 1 ? coll_stream_create(env, (uint32_t)cbytes, out)
                                            : TERSE_ECORRUPT;
    } else if (type == STORE_TYPE_ZSET) {
        struct coll_zset_shape sh = {(uint32_t)cbytes};
        int st = coll_zset_create(env, &sh, out);

        if (st == TERSE_OK) {
            (*out)->aux->seed = shape_a; /* the member map's ranges: the saved seed's */
        }
        return st;
    } else {
        struct coll_hash_shape sh = {(uint32_t)cbytes};
        int st;
        if (shape_b != 0) {
            return TERSE_ECORRUPT;
        }
        st = coll_hash_create(env, type == STORE_TYPE_HASH ? COLL_HASH : COLL_SET, &sh, out);
        if (st == TERSE_OK) {
            (*out)->seed = shape_a; /* its chunks' ranges are of the saved seed's hash space */
        }
        return st;
    }
}

/* The verify of a loaded hash or set (coll_hash_verify), sorted set (coll_zset_verify, its map
 * rebuilt first when asked: an old snapshot's) or stream (coll_stream_verify, its groups'
 * pending entries moved from the meta into their PELs first): a chunk that
 * passes its checksum was written by a terse, but not necessarily well formed (a crafted
 * file), and the engines' writes copy the rest of a chunk's form unread. The shard's env may have no codec yet (a load's shard
 * gets the server's after it, cmd_after_load.c): then one made for the check decodes the
 * compressed chunks. */
static int loaded_verify(struct coll_env *env, struct coll *c, bool rebuild)
{
    struct codec_ctx *own = NULL;
    int st;

    if (coll_env_codec(env) == NULL) {
        st = codec_ctx_create(&own, NULL);
        if (st != TERSE_OK) {
            return st;
        }
        coll_env_set_codec(env, own);
    }
    st = rebuild                  ? coll_zset_map_rebuild(env, c)
         : c->type == COLL_STREAM ? coll_stream_adopt_pels(env, c)
                                  : TERSE_OK;
    if (st == TERSE_OK) {
        st = c->type == COLL_STREAM ? coll_stream_verify(env, c)
             : c->type == COLL_ZSET ? coll_zset_verify(env, c)
                                    : coll_hash_verify(env, c);
    }
    if (own != NULL) {
        coll_env_set_codec(env, NULL);
        codec_ctx_destroy(&own);
    }
    return st;
}

/* A CHUNKED record's body from *pos (after its key and expiry; docs/formats/snapshot.md):
 * checks every chunk (pass 1) and, with a shard, builds the container from its chunks' stored
 * bytes as held (nothing re-encoded), and stores it at key. A hash's or set's chunk keys (and a sorted set's map's) must be the increasing low
 * bounds of ranges from 0, a sorted set's order's keys must not decrease; all but a list are
 * verified whole once built (every chunk decoded and parsed, a hash's fields in their chunk's
 * range and unique, a sorted set's order and map in agreement: O(n)). */
static int read_chunked(struct reader *r, int db, size_t at, size_t *pos, size_t end,
                        enum store_type type, const uint8_t *key, size_t klen, int64_t exp)
{
    uint64_t cbytes, shape_a, shape_b, n_chunks, last_k = 0;
    size_t p = *pos;
    struct coll_env *env = NULL;
    struct coll *c = NULL;
    bool build, zset = type == STORE_TYPE_ZSET, stream = type == STORE_TYPE_STREAM;
    uint64_t n_order = 0; /* a sorted set's order chunks, before its map's */
    uint64_t map_form = 0; /* their aux: COLL_ZSET_MAP_FORM, or 0 for a map terse no longer
                              holds (left out and rebuilt from the order) */
    int st = TERSE_OK;

    if (get_varint(r->buf, &p, end, &cbytes) != 0 || cbytes == 0 ||
        cbytes > LOAD_CHUNK_BYTES_MAX || get_varint(r->buf, &p, end, &shape_a) != 0 ||
        get_varint(r->buf, &p, end, &shape_b) != 0 ||
        (type == STORE_TYPE_LIST && (shape_a > UINT32_MAX || shape_b > LOAD_KEEP_RAW_MAX)) ||
        ((type == STORE_TYPE_HASH || type == STORE_TYPE_SET) && shape_b != 0) ||
        get_varint(r->buf, &p, end, &n_chunks) != 0 || n_chunks == 0 || n_chunks > end - p ||
        (zset && (shape_b == 0 || shape_b >= n_chunks))) {
        return bad(r, TERSE_ECORRUPT, p, "bad chunked container header");
    }
    n_order = zset ? n_chunks - shape_b : n_chunks;
    build = r->s != NULL && (exp == STORE_NO_EXPIRE || exp > r->now_ms);
    if (build) {
        env = store_coll_env(r->s);
        st = chunked_create(env, type, cbytes, shape_a, shape_b, &c);
        if (st != TERSE_OK) {
            return bad(r, st, at, "cannot make a chunked container: %s", terse_strerror(st));
        }
    }
    for (uint64_t i = 0; i < n_chunks; i++) {
        uint64_t count, k, aux, len;
        struct coll_key ck;
        /* Which container the chunk goes to, and how its keys run: a list's are 0; a sorted
         * set's order's do not decrease; a hash's, a set's and a map's are ranges from 0. */
        bool map = zset && i >= n_order;
        bool ranged = type != STORE_TYPE_LIST && !stream && (!zset || map);
        bool first = i == 0 || (map && i == n_order);

        if (get_varint(r->buf, &p, end, &count) != 0 || count == 0 || count > UINT32_MAX ||
            get_varint(r->buf, &p, end, &k) != 0 ||
            (ranged && (first ? k != 0 : k <= last_k)) || (zset && !map && !first && k < last_k) ||
            get_varint(r->buf, &p, end, &aux) != 0 ||
            (aux != 0 && !stream && !(map && aux == COLL_ZSET_MAP_FORM)) ||
            (map && i > n_order && aux != map_form) ||
            (stream && i == 0 && (count != 1 || k != 0 || aux != 0)) ||
            get_varint(r->buf, &p, end, &len) != 0 || len > end - p ||
            !stored_ok(r->buf + p, len)) {
            st = bad(r, TERSE_ECORRUPT, p, "bad chunk %llu of a chunked container",
                     (unsigned long long)i);
            break;
        }
        last_k = k;
        ck.k = k;
        ck.aux = map ? 0 : aux;
        map_form = map ? aux : map_form;
        if (build && stream && i == 0) {
            st = coll_stream_adopt_meta(env, c, r->buf + p, len);
        } else if (build && map && aux != COLL_ZSET_MAP_FORM) {
            st = TERSE_OK; /* an old map: rebuilt below */
        } else if (build) {
            st = coll_adopt_chunk(env, map ? c->aux : c, r->buf + p, len, (uint32_t)count, &ck);
        }
        if (build && st != TERSE_OK) {
            st = bad(r, st, p, "cannot load a chunk: %s", terse_strerror(st));
            break;
        }
        p += len;
    }
    if (st == TERSE_OK && build && type != STORE_TYPE_LIST &&
        (st = loaded_verify(env, c, zset && map_form != COLL_ZSET_MAP_FORM)) != TERSE_OK) {
        st = st == TERSE_ENOMEM ? bad(r, st, at, "cannot verify a container: out of memory")
                                : bad(r, st, at, "a container whose chunks fail verification");
    }
    if (st == TERSE_OK && build) {
        st = store_set_coll(r->s, db, key, klen, c, exp, r->now_ms);
        if (st != TERSE_OK) {
            st = bad(r, st, at, "cannot insert key: %s", terse_strerror(st));
        } else {
            c = NULL;
            r->n_loaded++;
        }
    } else if (st == TERSE_OK && r->s != NULL) {
        r->n_expired++;
    }
    if (c != NULL) {
        coll_destroy(env, c);
    }
    *pos = p;
    return st;
}

static int insert(struct reader *r, int db, const uint8_t *key, size_t klen, unsigned flags,
                  int64_t v, const uint8_t *val, size_t vlen, int64_t exp, uint64_t at)
{
    int rc;

    if (exp != STORE_NO_EXPIRE && exp <= r->now_ms) {
        r->n_expired++;
        return TERSE_OK;
    }
    if ((flags & PERSIST_REC_KIND_MASK) == PERSIST_REC_INT) {
        rc = store_set_int(r->s, db, key, klen, v, exp, r->now_ms);
    } else if (flags & PERSIST_REC_TYPE_MASK) {
        /* The byte form is checked when a command decodes it, as a string's checksum is. */
        rc = store_set_value(r->s, db, key, klen,
                             (enum store_type)((flags & PERSIST_REC_TYPE_MASK) >>
                                               PERSIST_REC_TYPE_SHIFT),
                             val, vlen, exp, r->now_ms, 0);
    } else {
        rc = store_set_str_flags(r->s, db, key, klen, val, vlen, exp, r->now_ms,
                                 ((flags & PERSIST_REC_RAW) ? STORE_SET_RAW : 0u) |
                                     (compressible_raw(val, vlen) ? STORE_SET_PENDING : 0u));
    }
    if (rc != TERSE_OK) {
        return bad(r, rc, at, "cannot insert key: %s", terse_strerror(rc));
    }
    r->n_loaded++;
    return TERSE_OK;
}

/* One record at *pos, within a payload ending at end. */
static int read_record(struct reader *r, int db, size_t *pos, size_t end)
{
    size_t at = *pos, p = *pos;
    uint64_t klen, u, vlen = 0, ref = 0;
    unsigned flags, kind;
    int64_t exp = STORE_NO_EXPIRE, v = 0;
    const uint8_t *key, *val = NULL;

    flags = r->buf[p++];
    kind = flags & PERSIST_REC_KIND_MASK;
    if ((flags & ~PERSIST_REC_FLAGS_KNOWN) != 0 ||
        (kind == PERSIST_REC_CHUNKED &&
         ((flags & PERSIST_REC_RAW) || !chunked_type(flags))) ||
        (kind == PERSIST_REC_INT && (flags & (PERSIST_REC_RAW | PERSIST_REC_TYPE_MASK))) ||
        ((flags & PERSIST_REC_RAW) && (flags & PERSIST_REC_TYPE_MASK)) ||
        ((flags & PERSIST_REC_TYPE_MASK) >> PERSIST_REC_TYPE_SHIFT) > STORE_TYPE_MAX) {
        return bad(r, TERSE_ECORRUPT, at, "bad record flags 0x%02x", flags);
    }
    if (get_varint(r->buf, &p, end, &klen) != 0 || klen > STORE_LEN_MAX || klen > end - p) {
        return bad(r, TERSE_ECORRUPT, at, "bad key length");
    }
    key = r->buf + p;
    p += klen;
    if (flags & PERSIST_REC_EXPIRE) {
        if (end - p < 8) {
            return bad(r, TERSE_ECORRUPT, p, "record truncated in its expiry time");
        }
        exp = (int64_t)persist_get_u64(r->buf + p);
        if (exp < 0) {
            return bad(r, TERSE_ECORRUPT, p, "negative expiry time");
        }
        p += 8;
    }
    if (kind == PERSIST_REC_CHUNKED) {
        int st = read_chunked(r, db, at, &p, end,
                              (enum store_type)((flags & PERSIST_REC_TYPE_MASK) >>
                                                PERSIST_REC_TYPE_SHIFT),
                              key, klen, exp);
        if (st == TERSE_OK) {
            *pos = p;
            r->n_records++;
        }
        return st;
    }
    if (kind == PERSIST_REC_INT) {
        if (get_varint(r->buf, &p, end, &u) != 0) {
            return bad(r, TERSE_ECORRUPT, p, "bad integer value");
        }
        v = persist_unzigzag(u);
    } else {
        if (kind == PERSIST_REC_REF && get_varint(r->buf, &p, end, &ref) != 0) {
            return bad(r, TERSE_ECORRUPT, p, "bad value reference");
        }
        if (get_varint(r->buf, &p, end, &vlen) != 0 || vlen > STORE_LEN_MAX) {
            return bad(r, TERSE_ECORRUPT, p, "bad value length");
        }
        if (kind == PERSIST_REC_STR) {
            if (vlen > end - p) {
                return bad(r, TERSE_ECORRUPT, p, "value length %llu beyond its block",
                           (unsigned long long)vlen);
            }
            val = r->buf + p;
            p += vlen;
        } else {
            /* The referenced copy lies wholly before this record. */
            if (ref < PERSIST_HEADER_LEN || ref > at || vlen > at - ref) {
                return bad(r, TERSE_ECORRUPT, at, "value reference out of range");
            }
            val = r->buf + ref;
        }
        if (!stored_ok(val, vlen)) {
            return bad(r, TERSE_ECORRUPT, kind == PERSIST_REC_STR ? p - vlen : at,
                       "stored value does not parse");
        }
    }
    *pos = p;
    r->n_records++;
    if (r->s != NULL) {
        return insert(r, db, key, klen, flags, v, val, vlen, exp, at);
    }
    return TERSE_OK;
}

static int read_header(struct reader *r)
{
    const uint8_t *b = r->buf;

    if (r->len < PERSIST_HEADER_LEN) {
        return bad(r, TERSE_ECORRUPT, 0, "file too short for a snapshot header (%zu bytes)",
                   r->len);
    }
    if (memcmp(b, PERSIST_MAGIC, PERSIST_MAGIC_LEN) != 0) {
        return bad(r, TERSE_ECORRUPT, 0, "not a terse snapshot (bad magic)");
    }
    if (b[8] != PERSIST_VERSION) {
        return bad(r, TERSE_ECORRUPT, 8, "unsupported snapshot version %u (this server reads %u)",
                   b[8], PERSIST_VERSION);
    }
    if (persist_get_u64(b + 24) != XXH3_64bits(b, 24)) {
        return bad(r, TERSE_ECORRUPT, 24, "header checksum mismatch");
    }
    if (b[9] != 0 || b[10] != 0 || b[11] != 0) {
        return bad(r, TERSE_ECORRUPT, 9, "unknown header flags");
    }
    return TERSE_OK;
}

static int read_end(struct reader *r, size_t at, const uint8_t *p, uint32_t seq, int verify)
{
    uint64_t n_keys = persist_get_u64(p), n_blocks = persist_get_u64(p + 8);

    if (n_keys != r->n_records || n_blocks != seq) {
        return bad(r, TERSE_ECORRUPT, at,
                   "end block counts %llu keys in %llu blocks, the file has %llu in %u",
                   (unsigned long long)n_keys, (unsigned long long)n_blocks,
                   (unsigned long long)r->n_records, seq);
    }
    if (verify && persist_get_u64(p + 16) != codec_sum(r->buf, at)) {
        return bad(r, TERSE_ECORRUPT, at, "whole-file checksum mismatch");
    }
    return TERSE_OK;
}

/* Walks the file once; verify = 1 also checks the whole-file hash. */
static int walk(struct reader *r, int verify)
{
    size_t pos = PERSIST_HEADER_LEN;
    uint32_t seq = 0;
    int last_db = 0;

    if (read_header(r) != TERSE_OK) {
        return r->status;
    }
    for (;;) {
        const uint8_t *h = r->buf + pos;
        size_t at = pos, left = r->len - pos, end;
        uint64_t plen;
        uint32_t db, n_rec;

        if (left < PERSIST_BLOCK_HEADER_LEN) {
            return bad(r, TERSE_ECORRUPT, at, "truncated: %zu bytes where a block header of %d "
                       "or the end block was expected", left, PERSIST_BLOCK_HEADER_LEN);
        }
        plen = persist_get_u64(h + 16);
        if (plen > left - PERSIST_BLOCK_HEADER_LEN ||
            left - PERSIST_BLOCK_HEADER_LEN - plen < PERSIST_BLOCK_TRAILER_LEN) {
            return bad(r, TERSE_ECORRUPT, at, "truncated: block of %llu payload bytes, %zu "
                       "bytes left in the file", (unsigned long long)plen, left);
        }
        end = pos + PERSIST_BLOCK_HEADER_LEN + (size_t)plen;
        if (persist_get_u64(r->buf + end) != codec_sum(h, end - pos)) {
            return bad(r, TERSE_ECORRUPT, at, "block checksum mismatch");
        }
        db = persist_get_u32(h + 8);
        n_rec = persist_get_u32(h + 12);
        if (h[1] != 0 || h[2] != 0 || h[3] != 0 || persist_get_u32(h + 4) != seq) {
            return bad(r, TERSE_ECORRUPT, at, "bad block header (flags or sequence)");
        }
        if (h[0] == PERSIST_BLOCK_END) {
            if (plen != PERSIST_END_PAYLOAD_LEN || db != 0 || n_rec != 0) {
                return bad(r, TERSE_ECORRUPT, at, "bad end block");
            }
            if (end + PERSIST_BLOCK_TRAILER_LEN != r->len) {
                return bad(r, TERSE_ECORRUPT, end + PERSIST_BLOCK_TRAILER_LEN,
                           "%zu bytes after the end block",
                           r->len - end - PERSIST_BLOCK_TRAILER_LEN);
            }
            return read_end(r, at, h + PERSIST_BLOCK_HEADER_LEN, seq, verify);
        }
        if (h[0] != PERSIST_BLOCK_DATA) {
            return bad(r, TERSE_ECORRUPT, at, "unknown block type %u", h[0]);
        }
        if (db >= (uint32_t)r->n_db || (int)db < last_db) {
            return bad(r, TERSE_ECORRUPT, at, "block of db %u (the server has %d databases; "
                       "blocks must come in db order)", db, r->n_db);
        }
        last_db = (int)db;
        pos += PERSIST_BLOCK_HEADER_LEN;
        for (uint32_t i = 0; i < n_rec; i++) {
            if (pos >= end) {
                return bad(r, TERSE_ECORRUPT, pos, "block ends before its %u records", n_rec);
            }
            if (read_record(r, (int)db, &pos, end) != TERSE_OK) {
                return r->status;
            }
        }
        if (pos != end || n_rec == 0) {
            return bad(r, TERSE_ECORRUPT, pos, "block payload does not match its records");
        }
        pos = end + PERSIST_BLOCK_TRAILER_LEN;
        seq++;
    }
}

static void reader_init(struct reader *r, const uint8_t *buf, size_t len, int n_db,
                        struct persist_error *err)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->n_db = n_db;
    r->status = TERSE_OK;
    r->err = err;
    if (err != NULL) {
        err->offset = 0;
        err->reason[0] = '\0';
    }
}

int persist_verify_mem(const uint8_t *buf, size_t len, int n_db, struct persist_error *err)
{
    struct reader r;

    reader_init(&r, buf, len, n_db, err);
    if (buf == NULL) {
        return bad(&r, TERSE_ECORRUPT, 0, "empty file");
    }
    return walk(&r, 1);
}

int persist_load_mem(struct store_shard *s, const uint8_t *buf, size_t len, int64_t now_ms,
                     struct persist_load_stats *st, struct persist_error *err)
{
    struct reader r;
    int rc = persist_verify_mem(buf, len, store_shard_n_db(s), err);

    if (st != NULL) {
        memset(st, 0, sizeof(*st));
        st->file_bytes = len;
    }
    if (rc != TERSE_OK) {
        return rc;
    }
    reader_init(&r, buf, len, store_shard_n_db(s), err);
    r.s = s;
    r.now_ms = now_ms;
    rc = walk(&r, 0);
    if (st != NULL) {
        st->n_loaded = r.n_loaded;
        st->n_expired = r.n_expired;
    }
    return rc;
}

int persist_load_file(struct store_shard *s, const char *path, int64_t now_ms,
                      struct persist_load_stats *st, struct persist_error *err)
{
    struct stat sb;
    void *map = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc;

    if (err != NULL) {
        err->offset = 0;
        err->reason[0] = '\0';
    }
    if (fd < 0) {
        if (errno == ENOENT) {
            return TERSE_ENOTFOUND;
        }
        if (err != NULL) {
            snprintf(err->reason, sizeof(err->reason), "cannot open: %s", strerror(errno));
        }
        return TERSE_EIO;
    }
    if (fstat(fd, &sb) != 0) {
        if (err != NULL) {
            snprintf(err->reason, sizeof(err->reason), "cannot stat: %s", strerror(errno));
        }
        close(fd);
        return TERSE_EIO;
    }
    if (sb.st_size > 0) {
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            if (err != NULL) {
                snprintf(err->reason, sizeof(err->reason), "cannot map: %s", strerror(errno));
            }
            close(fd);
            return TERSE_EIO;
        }
        (void)madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
    }
    close(fd);
    rc = persist_load_mem(s, map, (size_t)sb.st_size, now_ms, st, err);
    if (map != NULL) {
        munmap(map, (size_t)sb.st_size);
    }
    return rc;
}
