/*
 * persist_rdb: Redis's RDB serialization (RDB version 10, Redis 7.0), for DUMP and RESTORE and
 * for a whole-dataset RDB file that a real redis-server loads (replication's full sync).
 *
 * Writing: a terse value (a string's bytes or integer, or the byte form of a hash, list, set,
 * zset or stream: store_hash.h, store_list.h, store_set.h, store_zset.h, store_stream.h)
 * becomes an RDB object any Redis 7.0 loads:
 *
 *   string  RDB_TYPE_STRING (integer encodings where Redis would use them)
 *   hash    RDB_TYPE_HASH            list  RDB_TYPE_LIST_QUICKLIST_2 of listpack nodes
 *   set     RDB_TYPE_SET             zset  RDB_TYPE_ZSET_2
 *   stream  RDB_TYPE_STREAM_LISTPACKS_2 (one listpack per terse node, groups, PEL, consumers)
 *
 * Reading: every encoding Redis 7.0.15 writes or still loads (string: raw, integer, LZF; list:
 * plain, ziplist, quicklist, quicklist 2; set: plain, intset; hash: plain, zipmap, ziplist,
 * listpack; zset: plain, zset 2, ziplist, listpack; stream: listpacks 1 and 2) becomes a terse
 * value. Every length is bounded by the bytes given, every LZF block's size checked, element
 * counts bounded by the bytes left before anything is sized for them, and the resulting form
 * is checked as the store checks its own (store_*_check, store_stream_decode), so hostile
 * bytes are TERSE_ECORRUPT, never a value.
 *
 *   DUMP payload = object | RDB version u16 LE (PERSIST_RDB_VERSION) | CRC-64 u64 LE
 *
 * The CRC is Redis's CRC-64/Jones (reflected, init 0, no final xor) over every byte before it,
 * computed by libisal (persist_rdb_crc64). The file format is in persist_rdb_file.c;
 * docs/formats/rdb.md sums up what is written, what is read and what is checked.
 *
 * Nothing here reads the clock or the config. Threading: pure functions, and a struct
 * persist_rdb_work belongs to one thread.
 */
#ifndef TERSE_PERSIST_RDB_H
#define TERSE_PERSIST_RDB_H

#include <stddef.h>
#include <stdint.h>

#include "codec/codec_value.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "persist/persist.h"
#include "store/store.h"
#include "terse/alloc.h"

#define PERSIST_RDB_VERSION 10   /* written, and the newest a DUMP payload may carry */
#define PERSIST_RDB_FOOTER_LEN 10 /* version u16 and CRC-64 u64 after a DUMP object */

/* A value on the terse side of the translation. */
struct persist_rdb_value {
    enum store_type type;
    int is_int;          /* STRING only: the value is ival (STORE_ENC_INT), p/len unused */
    int64_t ival;
    const uint8_t *p;    /* STRING: its bytes; other types: the byte form. Borrowed. */
    size_t len;
    /* DUMP of a container held in chunks (p unused): the container and its environment
     * (borrowed), written a chunk at a time. An RDB file's load (persist_rdb_load_mem) and
     * RESTORE (persist_rdb_value_read_chunked) read a big list, hash, set, sorted set or
     * stream into one (persist_rdb_rcoll.c) and hand it on (taken by the caller). NULL
     * otherwise. */
    struct coll *coll;
    struct coll_env *env;
};

/* A growable buffer of a struct persist_rdb_work. */
struct persist_rdb_buf {
    uint8_t *p;
    size_t len;  /* bytes filled */
    size_t cap;  /* bytes allocated */
};

/*
 * How an RDB file's load builds a big list, hash, set, sorted set or stream: into a chunked
 * container as it reads (persist_rdb_rcoll.c), so it needs a batch of memory beside the
 * container, not the container's whole form. The shapes are the ones the command layer chunks with
 * (cmd_value_load_shapes), so the container is the one the after-load pass would have cut
 * from the form.
 */
struct persist_rdb_chunking {
    struct coll_env *env;         /* the shard's (borrowed); NULL: every value as its form */
    struct coll_list_shape list;  /* a list's chunks */
    struct coll_hash_shape elems; /* a hash's or set's chunks */
    size_t batch;                 /* form bytes gathered before a container is made (at least
                                     two chunks); 0: 1 MiB (tests and fuzzers go lower) */
    size_t stream_min;            /* a stream's form bytes the after-load pass leaves one value
                                     at or under (half stream-node-max-bytes): a smaller stream
                                     is never built in chunks */
};

/*
 * The reader's working memory, grown with alloc and kept from one call to the next (a warm
 * RESTORE loop allocates nothing but a stream's model arrays): the value read, an LZF block
 * decompressed, element bytes and arrays kept for sorting. Owned by its caller (the server
 * keeps one); persist_rdb_work_deinit frees it.
 */
struct persist_rdb_work {
    terse_allocator alloc;       /* copied; the allocator it names must outlive the work */
    struct persist_rdb_buf out;  /* the value read (persist_rdb_value_read's result) */
    struct persist_rdb_buf blob; /* a ziplist, listpack, intset or zipmap, decompressed */
    struct persist_rdb_buf str;  /* one string element, decompressed */
    struct persist_rdb_buf elems; /* element bytes kept until the form is written */
    struct persist_rdb_buf arr;  /* arrays over them */
    /* Read by persist_rdb_load_mem only (persist_rdb_value_read builds forms; RESTORE passes
     * its own to persist_rdb_value_read_chunked): its owner fills it before a load; zeroed by
     * persist_rdb_work_init. */
    struct persist_rdb_chunking load_ck;
};

/* alloc NULL: libc. */
void persist_rdb_work_init(struct persist_rdb_work *w, const terse_allocator *alloc);
void persist_rdb_work_deinit(struct persist_rdb_work *w);
/* Frees the buffers larger than keep bytes (a one-off huge value does not pin its memory). */
void persist_rdb_work_trim(struct persist_rdb_work *w, size_t keep);

/* Redis's CRC-64 of n bytes at p, continuing from crc (0 to start). */
uint64_t persist_rdb_crc64(uint64_t crc, const void *p, size_t n);

struct coll;
struct coll_env;

/*
 * DUMP: writes v's RDB object and the DUMP footer into dst (cap bytes; dst may be NULL when
 * cap is 0). *out_len gets the payload's length; when it exceeds cap, TERSE_ETOOBIG is returned
 * with *out_len the exact room needed and nothing past cap written: grow and call again.
 * alloc (NULL: libc) is used for a stream's decoded model only, freed before return.
 * Returns TERSE_OK, TERSE_ETOOBIG, TERSE_ECORRUPT (v's form does not parse), TERSE_ENOMEM,
 * TERSE_EINVAL (a type out of range). Strings are written uncompressed (no LZF: a DUMP stays
 * cheap and every Redis loads it).
 */
int persist_rdb_dump(const struct persist_rdb_value *v, const terse_allocator *alloc,
                     uint8_t *dst, size_t cap, size_t *out_len);

/* RESTORE's first check, as Redis's verifyDumpPayload: at least the footer, a version not
 * above PERSIST_RDB_VERSION, and the CRC-64 of every byte before the CRC. TERSE_OK or
 * TERSE_ECORRUPT. payload borrowed. */
int persist_rdb_payload_check(const uint8_t *payload, size_t len);

/*
 * Reads one RDB object (type byte, then the value) from obj (len bytes, borrowed). RESTORE
 * passes the whole DUMP payload, footer included, as Redis reads it (an object cut short runs
 * into the footer's bytes there too); bytes after the object are ignored, as Redis ignores
 * them. On TERSE_OK *out holds the value: a string's bytes (out->p may point into obj) or
 * integer, or the terse byte form of the other types (in w->out). out->p is valid until the
 * next call with w, or until obj goes. The form passed the store's own checks.
 * Returns TERSE_OK; TERSE_ECORRUPT (any malformed byte, an empty collection, a type terse does
 * not hold: modules, and Redis 7.2's encodings; err, may be NULL, gets the offset in obj and
 * the reason); TERSE_ETOOBIG (the value would exceed CODEC_VALUE_MAX bytes); TERSE_ENOMEM.
 */
int persist_rdb_value_read(struct persist_rdb_work *w, const uint8_t *obj, size_t len,
                           struct persist_rdb_value *out, struct persist_error *err);
/* persist_rdb_value_read for RESTORE: a big list, hash, set, sorted set or stream (its form
 * past ck's batch) is built in ck->env as it is read (persist_rdb_rcoll.c), as an RDB file's
 * load builds it, and comes back as out->coll with out->env = ck->env: taken by the caller,
 * who stores it (store_set_coll) or destroys it (coll_destroy). ck (borrowed) NULL, or its env
 * NULL: forms only, as persist_rdb_value_read. Statuses as persist_rdb_value_read; on failure
 * nothing is kept. */
int persist_rdb_value_read_chunked(struct persist_rdb_work *w,
                                   const struct persist_rdb_chunking *ck, const uint8_t *obj,
                                   size_t len, struct persist_rdb_value *out,
                                   struct persist_error *err);

/* Optional replication fields of an RDB file's header (Redis's repl-stream-db, repl-id,
 * repl-offset aux fields); NULL leaves them out. */
struct persist_rdb_aux {
    int repl_stream_db;       /* the db the replication stream has selected */
    const char *repl_id;      /* 40 hex characters, borrowed */
    long long repl_offset;
};

/*
 * Writes a whole RDB file (version 10) of every db of s to fd, from its current position:
 * "REDIS0010", aux fields (redis-ver 7.0.15, redis-bits, ctime, used-mem, aof-base 0, and aux's
 * replication fields when given), then for each non-empty db SELECTDB and RESIZEDB and its keys
 * (EXPIRETIME_MS before a key with an expiry; keys whose expiry is <= now_ms left out), EOF and
 * the CRC-64 of the whole file. Strings longer than 20 bytes are LZF-compressed when that
 * saves bytes, as Redis's rdbcompression does.
 * codec (borrowed): decodes the stored values (the server's context in a forked child, so its
 * zstd dictionaries are there); NULL: a private context is created (values compressed with a
 * dictionary then fail with TERSE_ENOTFOUND). used_mem: the used-mem aux field. alloc: NULL for
 * libc; a write buffer, a decode buffer as large as the largest value and a stream's model,
 * all freed before return. s must not change during the call; nothing else is touched (no
 * event loop, no clock): safe in a forked child on a frozen shard.
 * st (may be NULL): n_keys written, file_bytes; n_dedup 0. err (may be NULL): reason and offset.
 * Returns TERSE_OK, TERSE_EIO (write failed), TERSE_ENOMEM, TERSE_ECORRUPT (a stored value
 * failed verification: its key is named in err; the file is incomplete), TERSE_ENOTFOUND.
 */
int persist_rdb_save_fd(struct store_shard *s, struct codec_ctx *codec, int fd, int64_t now_ms,
                        uint64_t used_mem, const struct persist_rdb_aux *aux,
                        const terse_allocator *alloc, struct persist_save_stats *st,
                        struct persist_error *err);

#endif /* TERSE_PERSIST_RDB_H */
