/*
 * persist_internal: the snapshot format's constants and byte helpers, shared by the writer
 * (persist_save.c) and the reader (persist_load.c). docs/formats/snapshot.md is the spec.
 *
 *   file   = header block* end
 *   header = magic[8] "TERSESNP" | version u8 | flags u8 (0) | reserved u16 (0) |
 *            n_db u32 | created_ms i64 | xxh3_64(bytes 0..24) u64           (32 bytes)
 *   block  = type u8 | flags u8 (0) | reserved u16 (0) | seq u32 | db u32 |
 *            n_records u32 | payload_len u64 |                              (24 bytes)
 *            payload[payload_len] | xxh3_64(block header and payload) u64
 *   end    = a block of type END whose payload is n_keys u64 | n_blocks u64 |
 *            xxh3_64(every file byte before the end block) u64
 *
 * Integers are little-endian. Records (in DATA payloads):
 *   rflags u8 (kind: bits 0-1; bit 2 expiry present; bit 3 raw mark; bits 4-6 type) |
 *   klen varint | key |
 *   [expire_ms i64] | INT: zigzag varint | STR: len varint, stored bytes |
 *   REF: offset varint (file offset of an identical earlier STR's bytes), len varint
 *   CHUNKED: chunk_bytes varint | chunk_n varint | keep_raw varint | n_chunks varint |
 *            (count varint | key varint | aux_len varint | aux | len varint | stored) * n
 */
#ifndef TERSE_PERSIST_INTERNAL_H
#define TERSE_PERSIST_INTERNAL_H

#include "codec/codec_varint.h"

#include <stddef.h>
#include <stdint.h>

#define PERSIST_MAGIC "TERSESNP"
#define PERSIST_MAGIC_LEN 8
#define PERSIST_HEADER_LEN 32
#define PERSIST_BLOCK_HEADER_LEN 24
#define PERSIST_BLOCK_TRAILER_LEN 8
#define PERSIST_END_PAYLOAD_LEN 24
#define PERSIST_VARINT_MAX 10 /* bytes of a LEB128 uint64 */

/* DATA blocks are closed once their payload reaches this many bytes; a record larger than it
 * gets a block of its own, streamed from the store without a copy. */
#define PERSIST_BLOCK_TARGET ((size_t)256 * 1024)
/* Largest deduplication table (slots of 32 bytes: 64 MiB); sized from the key count. */
#define PERSIST_DEDUP_SLOTS_MAX ((size_t)1 << 21)
/* Stored values shorter than this are always written inline (a reference costs ~8 bytes). */
#define PERSIST_DEDUP_MIN 32

enum persist_block_type {
    PERSIST_BLOCK_DATA = 1,
    PERSIST_BLOCK_DICT = 2, /* reserved: a codec dictionary (zstd); refused by version 1 */
    PERSIST_BLOCK_END = 0x7f
};

enum persist_rec_kind {
    PERSIST_REC_INT = 0,
    PERSIST_REC_STR = 1,
    PERSIST_REC_REF = 2,
    PERSIST_REC_CHUNKED = 3 /* a chunked container, its chunks as held (persist_save_coll.c) */
};

#define PERSIST_REC_KIND_MASK 3u
#define PERSIST_REC_EXPIRE 4u
#define PERSIST_REC_RAW 8u /* a string's "raw" mark; strings only */
/* The key's type (enum store_type: 0 string, 1 hash, 2 list, 3 set, 4 sorted set, 5 stream);
 * not 0 only with kind STR or REF. */
#define PERSIST_REC_TYPE_SHIFT 4
#define PERSIST_REC_TYPE_MASK 0x70u
#define PERSIST_REC_FLAGS_KNOWN 127u

static inline void persist_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline void persist_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint32_t persist_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t persist_get_u64(const uint8_t *p)
{
    return (uint64_t)persist_get_u32(p) | (uint64_t)persist_get_u32(p + 4) << 32;
}

/* Writes v as LEB128 into p (PERSIST_VARINT_MAX bytes of room); returns the length. The
 * encoding is the codec's, shared with the value header and the store's entries. */
static inline size_t persist_put_varint(uint8_t *p, uint64_t v)
{
    return codec_varint_put(p, v);
}

static inline uint64_t persist_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t persist_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif /* TERSE_PERSIST_INTERNAL_H */
