/*
 * persist_rdb_internal: RDB constants and the helpers the RDB writer (persist_rdb_write.c,
 * persist_rdb_wstream.c, persist_rdb_file.c) and reader (persist_rdb_read.c,
 * persist_rdb_blob.c, persist_rdb_rstream.c) share.
 *
 * Length encoding (the first byte's two high bits):
 *   00xxxxxx                 6-bit length
 *   01xxxxxx xxxxxxxx        14-bit length, big endian
 *   10000000 + u32 BE        32-bit length
 *   10000001 + u64 BE        64-bit length
 *   11xxxxxx                 a string in a special encoding: 0 int8, 1 int16 LE, 2 int32 LE,
 *                            3 LZF (compressed length, original length, data)
 *
 * Listpack (Redis's listpack.c): total bytes u32 LE | count u16 LE (65535: unknown) |
 * entries | 0xFF; an entry is its encoding and data, then its backlen (the size of both, 1-5
 * bytes of 7 bits, read right to left).
 */
#ifndef TERSE_PERSIST_RDB_INTERNAL_H
#define TERSE_PERSIST_RDB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "persist/persist_rdb.h"
#include "store/form/store_stream.h"

enum rdb_type {
    RDB_TYPE_STRING = 0,
    RDB_TYPE_LIST = 1,
    RDB_TYPE_SET = 2,
    RDB_TYPE_ZSET = 3,
    RDB_TYPE_HASH = 4,
    RDB_TYPE_ZSET_2 = 5,
    RDB_TYPE_MODULE = 6,
    RDB_TYPE_MODULE_2 = 7,
    RDB_TYPE_HASH_ZIPMAP = 9,
    RDB_TYPE_LIST_ZIPLIST = 10,
    RDB_TYPE_SET_INTSET = 11,
    RDB_TYPE_ZSET_ZIPLIST = 12,
    RDB_TYPE_HASH_ZIPLIST = 13,
    RDB_TYPE_LIST_QUICKLIST = 14,
    RDB_TYPE_STREAM_LISTPACKS = 15,
    RDB_TYPE_HASH_LISTPACK = 16,
    RDB_TYPE_ZSET_LISTPACK = 17,
    RDB_TYPE_LIST_QUICKLIST_2 = 18,
    RDB_TYPE_STREAM_LISTPACKS_2 = 19
};

enum rdb_opcode {
    RDB_OPCODE_AUX = 250,
    RDB_OPCODE_RESIZEDB = 251,
    RDB_OPCODE_EXPIRETIME_MS = 252,
    RDB_OPCODE_SELECTDB = 254,
    RDB_OPCODE_EOF = 255
};

#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

#define RDB_QUICKLIST_PLAIN 1  /* a quicklist 2 node holding one element as it is */
#define RDB_QUICKLIST_PACKED 2 /* a quicklist 2 node holding a listpack */

/* Listpack nodes of a list are closed before they pass this many bytes (Redis's default
 * list-max-listpack-size -2); a single larger element gets a node of its own. */
#define RDB_LIST_NODE_BYTES 8192
#define RDB_LP_HEADER 6
#define RDB_LP_COUNT_UNKNOWN 65535
/* An LZF block expands at most about 88 times (a 3-byte back reference yields 264 bytes);
 * a declared length beyond this ratio is refused before anything is allocated for it. */
#define RDB_LZF_RATIO_MAX 100
/* Strings at most this long are never LZF-compressed (Redis's rule). */
#define RDB_LZF_MIN 20

#define STREAM_FLAG_DELETED 1
#define STREAM_FLAG_SAMEFIELDS 2

/* ---- buffers (persist_rdb_util.c) -------------------------------------------------------- */

/* Grows b to hold at least n bytes, keeping its contents. TERSE_OK or TERSE_ENOMEM. */
int rdb_buf_reserve(const terse_allocator *a, struct persist_rdb_buf *b, size_t n);
/* Appends n bytes (p may be NULL when n is 0). TERSE_OK, TERSE_ENOMEM, TERSE_ETOOBIG (the
 * buffer would pass CODEC_VALUE_MAX). */
int rdb_buf_put(const terse_allocator *a, struct persist_rdb_buf *b, const void *p, size_t n);
void rdb_buf_free(const terse_allocator *a, struct persist_rdb_buf *b);

/* Redis's string2ll: 1 when the n bytes are exactly an integer's canonical decimal spelling
 * (no sign but '-', no leading zero, no "-0", in range). */
bool rdb_parse_ll(const uint8_t *p, size_t n, long long *v);
/* Decimal spelling of v into buf (at least 21 bytes); returns its length. */
size_t rdb_format_ll(char *buf, long long v);

static inline void rdb_put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint64_t rdb_get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

/* ---- the writer's sink (persist_rdb_util.c) ---------------------------------------------- */

/*
 * Where written bytes go. Memory sink (fd < 0): the caller's buf of cap bytes; len counts
 * every byte produced, past cap too, but nothing is written past cap (the caller learns the
 * room needed). File sink: buf is a block buffer flushed to fd when full; the CRC-64 of every
 * byte flushed is kept. The status is sticky: after a failure nothing more is written.
 */
struct rdb_w {
    uint8_t *buf;
    size_t cap;
    size_t len;          /* memory: bytes produced; file: bytes in buf not yet flushed */
    int fd;              /* < 0: memory sink */
    uint64_t flushed;    /* file: bytes written to fd */
    uint64_t crc;        /* file: CRC-64 of the bytes written to fd */
    int st;              /* TERSE_OK or the first failure */
    bool compress;       /* LZF-compress strings longer than RDB_LZF_MIN (file sink) */
    const terse_allocator *alloc; /* for ztmp and a stream's model */
    struct persist_rdb_buf ztmp;  /* compressed string being written (file sink) */
};

void rdb_w_put(struct rdb_w *w, const void *p, size_t n);
void rdb_w_byte(struct rdb_w *w, uint8_t b);
void rdb_w_len(struct rdb_w *w, uint64_t len);
/* A string: as an integer encoding when Redis would use one, else LZF when w->compress and
 * it saves bytes, else raw. */
void rdb_w_string(struct rdb_w *w, const uint8_t *p, size_t n);
void rdb_w_string_ll(struct rdb_w *w, long long v);
/* A 16-byte stream ID: ms and seq as u64 big endian (Redis's rax keys and PEL IDs). */
void rdb_w_stream_id(struct rdb_w *w, uint64_t ms, uint64_t seq);
/* A sorted set's element as RDB_TYPE_ZSET_2 holds it, from a record of a zset form (member,
 * 8 score bytes): the member string, then the score as an IEEE 754 double, LE. TERSE_OK, or
 * TERSE_ECORRUPT (a value not 8 bytes: nothing written). */
struct store_hash_kv;
int rdb_w_zset_pair(struct rdb_w *w, const struct store_hash_kv *kv);
/* Flushes a file sink's buffer (no-op for a memory sink). */
void rdb_w_flush(struct rdb_w *w);
void rdb_w_fail(struct rdb_w *w, int st);

/* Listpack entries: exact sizes (encoding, data and backlen), and writers. Strings that are a
 * canonical integer are written as integers, as Redis's lpAppend does. */
size_t rdb_lp_int_size(long long v);
size_t rdb_lp_str_size(const uint8_t *p, size_t n);
void rdb_lp_put_int(struct rdb_w *w, long long v);
void rdb_lp_put_str(struct rdb_w *w, const uint8_t *p, size_t n);
/* The listpack header for a listpack of total bytes and count entries. */
void rdb_lp_put_header(struct rdb_w *w, size_t total, size_t count);

/* ---- objects ------------------------------------------------------------------------------ */

/* A container held in chunks (type byte, key when not NULL, value), written a chunk at a time
 * (persist_rdb_wcoll.c): RDB files and DUMP. TERSE_OK, w->st's failure, TERSE_ECORRUPT (a chunk
 * failed its checksum or its counts), TERSE_EINVAL (not a container type), TERSE_ENOMEM. */
struct coll_env;
struct coll;
int rdb_write_coll(struct rdb_w *w, const uint8_t *key, size_t klen, enum store_type type,
                   struct coll_env *env, struct coll *c);
/* Writes v's type byte, key (when not NULL: a file's key/value pair) and value to w
 * (persist_rdb_write.c). TERSE_OK, or w->st's failure, or TERSE_ECORRUPT / TERSE_ENOMEM /
 * TERSE_EINVAL. */
int rdb_write_object(struct rdb_w *w, const struct persist_rdb_value *v, const uint8_t *key,
                     size_t klen);
/* A stream's value (persist_rdb_wstream.c), from its form or, held in chunks, a node at a
 * time. */
int rdb_write_stream(struct rdb_w *w, const uint8_t *form, size_t len);
int rdb_write_stream_coll(struct rdb_w *w, struct coll_env *env, struct coll *c);

/* ---- the reader (persist_rdb_read.c) ----------------------------------------------------- */

/* Bytes kept free at the front of w->out for a form's count varint (persist_rdb_read.c). */
#define RDB_FORM_HEAD 10

/* Sticky: the first failure is kept with its offset and reason. */
struct rdb_r {
    const uint8_t *start, *p, *end;
    struct persist_rdb_work *w;
    int st;
    size_t err_off;
    const char *why;
    /* A big list, hash, set, sorted set or stream built in chunks while read
     * (persist_rdb_rcoll.c): */
    const struct persist_rdb_chunking *ck; /* NULL: forms only (RESTORE) */
    int co_kind;      /* the type being built, 0: none (strings, streams, no ck) */
    struct coll *co;  /* the container, NULL while the value is still a form in w->out */
    size_t co_batch;  /* form bytes in w->out that start the container, or go to it */
    size_t co_form;   /* form bytes of the elements in co (CODEC_VALUE_MAX still applies) */
    uint64_t co_pend; /* elements in w->out not yet in co; a stream's: entries in co */
    uint64_t co_nodes;                /* a stream's nodes in co */
    struct store_stream_id co_first;  /* a stream's first and last entry in co */
    struct store_stream_id co_last;
};

/* One string read: p/len point into the payload, into a work buffer, or into num. */
struct rdb_str {
    const uint8_t *p;
    size_t len;
    char num[24];
};

int rdb_r_fail(struct rdb_r *r, int st, const char *why);
int rdb_r_byte(struct rdb_r *r, uint8_t *b);
int rdb_r_raw(struct rdb_r *r, const uint8_t **p, size_t n);
/* A length; *enc set when it is a special string encoding (its 6 bits in *len). enc NULL:
 * a special encoding is an error. */
int rdb_r_len(struct rdb_r *r, uint64_t *len, bool *enc);
/* A count of things each taking at least min_bytes of the payload: bounded by what is left. */
int rdb_r_count(struct rdb_r *r, uint64_t *n, size_t min_bytes);
/* A string, decompressed into buf when LZF-compressed. */
int rdb_r_string(struct rdb_r *r, struct rdb_str *s, struct persist_rdb_buf *buf);

/* Element iterators over ziplists, listpacks, intsets and zipmaps (persist_rdb_blob.c). */
enum rdb_blob_kind { RDB_BLOB_ZIPLIST, RDB_BLOB_LISTPACK, RDB_BLOB_INTSET, RDB_BLOB_ZIPMAP };
struct rdb_blob_it {
    enum rdb_blob_kind kind;
    const uint8_t *p, *end;
    uint64_t left;      /* elements left when known (intset), else UINT64_MAX */
    int width;          /* intset: bytes per integer */
    int zipmap_value;   /* zipmap: the next element is a value */
    bool have_prev;     /* intset: prev holds the previous member */
    long long prev;
};
/* One element: a string (p, len) or an integer (is_int, v). */
struct rdb_elem {
    const uint8_t *p;
    size_t len;
    bool is_int;
    long long v;
};
/* Checks blob's header and opens an iterator. TERSE_OK or TERSE_ECORRUPT. */
int rdb_blob_open(struct rdb_blob_it *it, enum rdb_blob_kind kind, const uint8_t *p, size_t n);
/* 1 with *e, 0 at the end (the terminator met exactly at the end), TERSE_ECORRUPT. */
int rdb_blob_next(struct rdb_blob_it *it, struct rdb_elem *e);
/* The element as bytes (an integer formatted into num, 24 bytes). */
void rdb_elem_bytes(const struct rdb_elem *e, char *num, const uint8_t **p, size_t *len);
/* The element as an integer: 1, or 0 when it is a string that is not one. */
bool rdb_elem_int(const struct rdb_elem *e, long long *v);

/* persist_rdb_value_read of the object at p (up to end, borrowed), its type byte read there
 * when type < 0, else given (an RDB file's key sits between the two: no copy of the value is
 * made to join them); err->offset counts from base. ck (NULL: forms only): an RDB file's load
 * passes its w->load_ck, and a big list, hash, set, sorted set or stream comes back as out->coll,
 * built in ck->env (taken by the caller: it stores or destroys it). */
int rdb_value_read(struct persist_rdb_work *w, const struct persist_rdb_chunking *ck, int type,
                   const uint8_t *base, const uint8_t *p, const uint8_t *end,
                   struct persist_rdb_value *out, struct persist_error *err);

/* ---- big containers built while read (persist_rdb_rcoll.c) ---------------------------- */

/* Arms r to build a list, hash, set or sorted set of type t in chunks once its form passes a
 * batch (r->ck set, t one of those), else leaves it off. */
void rdb_coll_begin(struct rdb_r *r, enum store_type t);
/* A list or hash element was appended to w->out: moves the batch into the container (made
 * when the form first passes the batch). TERSE_OK or r's failure. */
int rdb_coll_feed(struct rdb_r *r);
/* One element (a set's member: v NULL, vlen 0) into r->co, refused when already there.
 * TERSE_OK or r's failure (TERSE_ECORRUPT: a duplicate; TERSE_ENOMEM, TERSE_ETOOBIG). */
int rdb_coll_put(struct rdb_r *r, const uint8_t *f, size_t flen, const uint8_t *v, size_t vlen);
/* One member of a sorted set (score not NaN) into r->co, refused when already there. TERSE_OK
 * or r's failure (TERSE_ECORRUPT: a duplicate; TERSE_ENOMEM, TERSE_ETOOBIG). */
int rdb_coll_zadd(struct rdb_r *r, const uint8_t *m, size_t mlen, double score);
/* Makes r->co, empty, for the armed type. TERSE_OK or r's failure. */
int rdb_coll_start(struct rdb_r *r);
/* The value's end with r->co made: the last elements into it, the size checked. TERSE_OK or
 * r's failure. */
int rdb_coll_end(struct rdb_r *r);
/* Frees r->co (a failed read keeps nothing). */
void rdb_coll_abort(struct rdb_r *r);
/* A stream's whole nodes phase A left in w->arr (persist_rdb_rstream.c) appended to r->co (made
 * first), one chunk each with the node's live, slots and lp, and w->arr and w->elems emptied.
 * TERSE_OK or r's failure (TERSE_ECORRUPT: an ID not above the one before it; TERSE_ENOMEM,
 * TERSE_ETOOBIG). */
int rdb_coll_stream_nodes(struct rdb_r *r);
/* A stream's end with r->co made: s (its groups, consumers and pending entries, no entry) as
 * r->co's meta and PELs, after the checks the whole form gets (the last entry not above
 * s->last_id, the form within CODEC_VALUE_MAX). TERSE_OK or r's failure. */
int rdb_coll_stream_end(struct rdb_r *r, const struct store_stream *s);

/* A set or a sorted set (persist_rdb_rsort.c) into w->out; *count gets its members. */
int rdb_read_set(struct rdb_r *r, int type, uint64_t *count);
int rdb_read_zset(struct rdb_r *r, int type, uint64_t *count);
/* A stream value (persist_rdb_rstream.c) into w->out. */
int rdb_read_stream(struct rdb_r *r, int type);

/* Phase A's records of a stream (persist_rdb_rstream.c), read by phase B (persist_rdb_rbuild.c). */
enum srec_kind { SREC_NODE, SREC_NODE_END, SREC_ENTRY, SREC_GROUP, SREC_PEL, SREC_CONS,
                 SREC_CPEL };

/* One record of phase A. Fields by kind:
 *   NODE_END: a = deleted entries of the listpack     ENTRY: id, n = pairs, off/len = pairs
 *   GROUP: off/len = name, id = last delivered, x = entries read, n = PEL size, m = consumers
 *   PEL: id, x = delivery time, n = delivery count, m = owner + 1 (0: none yet)
 *   CONS: off/len = name, x = seen time, n = its PEL size      CPEL: id */
struct srec {
    int kind;
    struct store_stream_id id;
    uint64_t n, m, a;
    int64_t x;
    size_t off, len;
};

/* Phase B: the model s (initialised, empty) from the records in r->w->arr. TERSE_OK, or r's
 * failure (TERSE_ECORRUPT, TERSE_ENOMEM). */
int rdb_stream_build(struct rdb_r *r, struct store_stream *s);

#endif /* TERSE_PERSIST_RDB_INTERNAL_H */
