/*
 * persist_rdb_load: a whole RDB file into a shard, verified first (format in the header).
 *
 * One walk serves both passes (ins == 0: verify; 1: insert). Each object's extent is found by
 * a skip that reads only lengths (skip_object: the same grammar as Redis's rdbLoadObject, no
 * decompression), then the object's bytes are decoded by persist_rdb_value_read, which checks
 * every byte of them. The walk's reader (struct rdb_r, persist_rdb_internal.h) is sticky: the
 * first failure keeps its offset and reason. With w->load_ck's env set, a big list, hash, set or
 * sorted set is read straight into its chunked container (persist_rdb_rcoll.c), stored as the key's
 * (or, verifying, freed), so neither pass holds such a value's whole form.
 */
#include "persist/persist_rdb_load.h"

#include <stdio.h>
#include <string.h>

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "persist/persist_rdb_internal.h"
#include "terse/status.h"

#define OP_FUNCTION2 245
#define OP_FUNCTION 246
#define OP_MODULE_AUX 247
#define OP_IDLE 248
#define OP_FREQ 249
#define OP_EXPIRETIME 253
#define RDB_HEADER_LEN 9 /* "REDIS" and 4 digits */
#define RDB_CRC_SINCE 5  /* first version with the trailing CRC-64 */

struct load {
    struct rdb_r r;
    struct store_shard *s;      /* NULL while verifying */
    int n_db;
    int64_t now_ms;
    struct persist_rdb_buf key; /* a compressed key, decompressed */
    struct persist_rdb_buf enc; /* a value in the codec's stored form */
    uint64_t n_loaded, n_expired;
};

int persist_rdb_is_rdb(const uint8_t *buf, size_t len)
{
    return len >= 5 && memcmp(buf, "REDIS", 5) == 0;
}

/* ---- extents ------------------------------------------------------------------------------ */

static int skip_string(struct rdb_r *r)
{
    uint64_t len, clen, ulen;
    bool enc;
    const uint8_t *p;

    if (rdb_r_len(r, &len, &enc) != TERSE_OK) {
        return r->st;
    }
    if (!enc) {
        return rdb_r_raw(r, &p, len);
    }
    if (len == RDB_ENC_LZF) {
        if (rdb_r_len(r, &clen, NULL) != TERSE_OK || rdb_r_len(r, &ulen, NULL) != TERSE_OK) {
            return r->st;
        }
        return rdb_r_raw(r, &p, clen);
    }
    if (len > RDB_ENC_INT32) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "unknown string encoding");
    }
    return rdb_r_raw(r, &p, (size_t)1 << len);
}

static int skip_lens(struct rdb_r *r, int n)
{
    uint64_t v;

    for (int i = 0; i < n && r->st == TERSE_OK; i++) {
        rdb_r_len(r, &v, NULL);
    }
    return r->st;
}

static int skip_strings(struct rdb_r *r, int per)
{
    uint64_t n;

    if (rdb_r_count(r, &n, (size_t)per) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t i = 0; i < n * (uint64_t)per && r->st == TERSE_OK; i++) {
        skip_string(r);
    }
    return r->st;
}

static int skip_stream(struct rdb_r *r, int v2)
{
    uint64_t n, m, k;
    const uint8_t *p;

    if (skip_strings(r, 2) != TERSE_OK || skip_lens(r, v2 ? 8 : 3) != TERSE_OK ||
        rdb_r_count(r, &n, 4) != TERSE_OK) {
        return r->st;
    }
    for (uint64_t g = 0; g < n && r->st == TERSE_OK; g++) {
        if (skip_string(r) != TERSE_OK || skip_lens(r, v2 ? 3 : 2) != TERSE_OK ||
            rdb_r_count(r, &m, 25) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t i = 0; i < m && r->st == TERSE_OK; i++) {
            if (rdb_r_raw(r, &p, 24) == TERSE_OK) {
                skip_lens(r, 1);
            }
        }
        if (rdb_r_count(r, &m, 10) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t c = 0; c < m && r->st == TERSE_OK; c++) {
            if (skip_string(r) != TERSE_OK || rdb_r_raw(r, &p, 8) != TERSE_OK ||
                rdb_r_count(r, &k, 16) != TERSE_OK) {
                return r->st;
            }
            rdb_r_raw(r, &p, (size_t)k * 16);
        }
    }
    return r->st;
}

/* The value of an object of type at r->p (the type byte already read). */
static int skip_value(struct rdb_r *r, uint8_t type)
{
    uint64_t n;
    uint8_t b;
    const uint8_t *p;

    switch (type) {
    case RDB_TYPE_STRING:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_SET_INTSET:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
    case RDB_TYPE_ZSET_LISTPACK:
        return skip_string(r);
    case RDB_TYPE_LIST:
    case RDB_TYPE_SET:
    case RDB_TYPE_LIST_QUICKLIST:
        return skip_strings(r, 1);
    case RDB_TYPE_HASH:
        return skip_strings(r, 2);
    case RDB_TYPE_ZSET_2:
    case RDB_TYPE_ZSET:
        if (rdb_r_count(r, &n, 2) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t i = 0; i < n && r->st == TERSE_OK; i++) {
            if (skip_string(r) != TERSE_OK) {
                break;
            }
            if (type == RDB_TYPE_ZSET_2) {
                rdb_r_raw(r, &p, 8);
            } else if (rdb_r_byte(r, &b) == TERSE_OK && b < 253) {
                rdb_r_raw(r, &p, b);
            }
        }
        return r->st;
    case RDB_TYPE_LIST_QUICKLIST_2:
        if (rdb_r_count(r, &n, 2) != TERSE_OK) {
            return r->st;
        }
        for (uint64_t i = 0; i < n && r->st == TERSE_OK; i++) {
            if (skip_lens(r, 1) == TERSE_OK) {
                skip_string(r);
            }
        }
        return r->st;
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
        return skip_stream(r, type == RDB_TYPE_STREAM_LISTPACKS_2);
    default:
        return rdb_r_fail(r, TERSE_ECORRUPT, "a type terse does not hold");
    }
}

/* ---- the walk ------------------------------------------------------------------------------ */

static int put(struct load *l, int db, const uint8_t *key, size_t klen,
               const struct persist_rdb_value *v, int64_t expire_ms)
{
    const terse_allocator *a = &l->r.w->alloc;
    long long iv;
    size_t stored = 0;
    unsigned flags = 0;
    int st;

    if (v->coll != NULL) {
        /* built in chunks as read (persist_rdb_rcoll.c): the key takes it */
        st = store_set_coll(l->s, db, key, klen, v->coll, expire_ms, l->now_ms);
        if (st != TERSE_OK) {
            coll_destroy(v->env, v->coll);
        }
        return st;
    }
    if (v->type == STORE_TYPE_STRING && v->len <= 20 && rdb_parse_ll(v->p, v->len, &iv)) {
        return store_set_int(l->s, db, key, klen, iv, expire_ms, l->now_ms);
    }
    l->enc.len = 0;
    st = rdb_buf_reserve(a, &l->enc, codec_value_bound(v->len));
    if (st == TERSE_OK) {
        st = codec_value_encode_raw(v->p, v->len, l->enc.p, l->enc.cap, &stored);
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (v->type == STORE_TYPE_STRING && v->len >= CODEC_RAW_MAX) {
        flags = STORE_SET_PENDING;
    }
    return store_set_value(l->s, db, key, klen, v->type, l->enc.p, stored, expire_ms, l->now_ms,
                           flags);
}

/* One key/value pair at r->p (type byte next). */
static int pair(struct load *l, int db, int64_t expire_ms)
{
    struct rdb_r *r = &l->r;
    struct persist_rdb_value v;
    struct persist_error e;
    struct rdb_str k;
    const uint8_t *vstart;
    uint8_t type;
    bool live;
    int st;

    if (rdb_r_byte(r, &type) != TERSE_OK || rdb_r_string(r, &k, &l->key) != TERSE_OK) {
        return r->st;
    }
    if (type == RDB_TYPE_MODULE || type == RDB_TYPE_MODULE_2) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a module value: terse has no modules");
    }
    vstart = r->p;
    if (skip_value(r, type) != TERSE_OK) {
        return r->st;
    }
    /* The value is decoded where it lies, its type given (the key sits between the two). */
    st = rdb_value_read(r->w, &r->w->load_ck, type, r->start, vstart, r->p, &v, &e);
    if (st != TERSE_OK) {
        r->st = st;
        r->err_off = (size_t)e.offset;
        r->why = st == TERSE_ECORRUPT ? "a value that does not decode" : "a value too large";
        return st;
    }
    live = expire_ms < 0 || expire_ms > l->now_ms;
    if (live && l->s != NULL) {
        st = put(l, db, k.p, k.len, &v, expire_ms < 0 ? STORE_NO_EXPIRE : expire_ms);
        if (st != TERSE_OK) {
            return rdb_r_fail(r, st, "the store refused a key");
        }
    } else if (v.coll != NULL) {
        /* verifying, or expired: the container was built for its checks only */
        coll_destroy(v.env, v.coll);
    }
    if (live) {
        l->n_loaded++;
    } else {
        l->n_expired++;
    }
    return TERSE_OK;
}

static int walk(struct load *l, size_t *used)
{
    struct rdb_r *r = &l->r;
    const uint8_t *p;
    int version = 0, db = 0;
    int64_t expire_ms = -1;
    uint64_t v;
    uint8_t op;

    if (rdb_r_raw(r, &p, RDB_HEADER_LEN) != TERSE_OK || memcmp(p, "REDIS", 5) != 0) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "not an RDB file (no REDIS magic)");
    }
    for (int i = 5; i < RDB_HEADER_LEN; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return rdb_r_fail(r, TERSE_ECORRUPT, "bad RDB version");
        }
        version = version * 10 + (p[i] - '0');
    }
    if (version < 1 || version > PERSIST_RDB_VERSION) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "unsupported RDB version");
    }
    for (;;) {
        const uint8_t *at = r->p;
        if (rdb_r_byte(r, &op) != TERSE_OK) {
            return r->st;
        }
        if (op == RDB_OPCODE_EOF) {
            break;
        }
        switch (op) {
        case RDB_OPCODE_AUX:
            skip_string(r);
            skip_string(r);
            break;
        case RDB_OPCODE_RESIZEDB:
            skip_lens(r, 2);
            break;
        case RDB_OPCODE_SELECTDB:
            if (rdb_r_len(r, &v, NULL) == TERSE_OK && v >= (uint64_t)l->n_db) {
                r->p = at;
                return rdb_r_fail(r, TERSE_ECORRUPT, "a database number beyond 'databases'");
            }
            db = (int)v;
            break;
        case RDB_OPCODE_EXPIRETIME_MS:
            if (rdb_r_raw(r, &p, 8) == TERSE_OK) {
                expire_ms = (int64_t)rdb_get_le(p, 8);
            }
            continue; /* the expiry belongs to the next key */
        case OP_EXPIRETIME:
            if (rdb_r_raw(r, &p, 4) == TERSE_OK) {
                expire_ms = (int64_t)(int32_t)rdb_get_le(p, 4) * 1000;
            }
            continue;
        case OP_IDLE:
            skip_lens(r, 1);
            continue;
        case OP_FREQ:
            rdb_r_raw(r, &p, 1);
            continue;
        case OP_FUNCTION2:
        case OP_FUNCTION:
            return rdb_r_fail(r, TERSE_ECORRUPT, "function libraries: terse has no scripting");
        case OP_MODULE_AUX:
            return rdb_r_fail(r, TERSE_ECORRUPT, "module data: terse has no modules");
        default:
            r->p = at;
            pair(l, db, expire_ms < 0 ? -1 : expire_ms);
            break;
        }
        if (r->st != TERSE_OK) {
            return r->st;
        }
        expire_ms = -1;
    }
    if (version >= RDB_CRC_SINCE) {
        size_t body = (size_t)(r->p - r->start);
        if (rdb_r_raw(r, &p, 8) != TERSE_OK) {
            return r->st;
        }
        v = rdb_get_le(p, 8);
        if (v != 0 && v != persist_rdb_crc64(0, r->start, body)) {
            r->p = p;
            return rdb_r_fail(r, TERSE_ECORRUPT, "RDB checksum mismatch");
        }
    }
    *used = (size_t)(r->p - r->start);
    return TERSE_OK;
}

int persist_rdb_load_mem(struct store_shard *s, int n_db, struct persist_rdb_work *w,
                         const uint8_t *buf, size_t len, int64_t now_ms,
                         struct persist_load_stats *st, size_t *used, struct persist_error *err)
{
    struct load l;
    size_t n = 0;
    int rc;

    memset(&l, 0, sizeof(l));
    l.n_db = s != NULL ? store_shard_n_db(s) : n_db;
    l.now_ms = now_ms;
    for (int pass = s != NULL ? 0 : 1; pass < 2; pass++) {
        /* pass 0: verify (no shard); pass 1: insert into s, or verify only when s is NULL
         * (the two walks are the same but for the store). */
        memset(&l.r, 0, sizeof(l.r));
        l.r.start = buf;
        l.r.p = buf;
        l.r.end = buf + len;
        l.r.w = w;
        l.s = pass == 1 ? s : NULL;
        l.n_loaded = 0;
        l.n_expired = 0;
        rc = walk(&l, &n);
        if (rc != TERSE_OK) {
            break;
        }
    }
    rdb_buf_free(&w->alloc, &l.key);
    rdb_buf_free(&w->alloc, &l.enc);
    if (rc != TERSE_OK) {
        if (err != NULL) {
            err->offset = l.r.err_off;
            snprintf(err->reason, sizeof(err->reason), "%s", l.r.why != NULL ? l.r.why : "?");
        }
        return rc;
    }
    if (st != NULL) {
        st->n_loaded = l.n_loaded;
        st->n_expired = l.n_expired;
        st->file_bytes = n;
    }
    if (used != NULL) {
        *used = n;
    }
    return TERSE_OK;
}
