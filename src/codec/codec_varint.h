/*
 * codec_varint: unsigned LEB128 lengths, written by the value header (codec_value_internal.h), the
 * store's packed entry (store_entry.c) and the snapshot records (persist_save.c).
 *
 * Seven bits a byte, least significant group first, the high bit set on every byte but the
 * last: a uint64 takes 1 to 10 bytes. Only the writer and its length live here: each reader
 * checks different things (the value header refuses non-minimal spellings, the snapshot loader
 * truncation and overflow, the store trusts its own arena), so each keeps its own.
 *
 * The header sits in codec/ because it is the one layer all three writers may include (codec
 * includes no other layer, so libterse stays standalone). static inline on hot paths: the store
 * sizes and parses an entry's lengths on every lookup and insert.
 */
#ifndef TERSE_CODEC_VARINT_H
#define TERSE_CODEC_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes the LEB128 of v takes (1 to 10). */
static inline size_t
codec_varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Writes v as LEB128 into p (codec_varint_len(v) bytes of room); returns the length. */
static inline size_t
codec_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

#endif
