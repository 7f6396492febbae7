/*
 * persist_rdb_blob: element iterators over the compact encodings Redis stores as one RDB
 * string, every length bounded by the blob's bytes.
 *
 *   ziplist  zlbytes u32 LE | zltail u32 LE | zllen u16 LE | entry* | 0xFF
 *            entry = prevlen (1 byte < 254, or 254 and u32 LE) | encoding | data
 *            encoding 00llllll: string of 6-bit length; 01llllll llllllll: 14-bit length
 *            (big endian); 0x80 + u32 BE: 32-bit length; 0xC0 int16, 0xD0 int32, 0xE0 int64,
 *            0xF0 int24, 0xFE int8 (little endian); 0xF1..0xFD: the integer 0..12
 *   listpack total u32 LE | count u16 LE | entry* | 0xFF       (persist_rdb_internal.h)
 *            encoding 0vvvvvvv uint7; 10llllll string; 110vvvvv vvvvvvvv int13;
 *            1110llll llllllll string; 0xF0 + u32 LE string; 0xF1 int16, 0xF2 int24,
 *            0xF3 int32, 0xF4 int64 (little endian); each entry followed by its backlen
 *   intset   encoding u32 LE (2, 4 or 8) | length u32 LE | integers LE, strictly ascending
 *   zipmap   zmlen u8 | (len key | len free value free-bytes)* | 0xFF
 *            len = u8 (< 254) or 254 and u32 LE
 *
 * The header counts (zllen, the listpack count) are hints and not trusted: the walk ends at
 * the terminator, which must be the blob's last byte.
 */
#include "persist/persist_rdb_internal.h"

#include <stdio.h>
#include <string.h>

#include "terse/status.h"

int rdb_blob_open(struct rdb_blob_it *it, enum rdb_blob_kind kind, const uint8_t *p, size_t n)
{
    memset(it, 0, sizeof(*it));
    it->kind = kind;
    it->left = UINT64_MAX;
    switch (kind) {
    case RDB_BLOB_ZIPLIST:
        if (n < 11 || rdb_get_le(p, 4) != n || p[n - 1] != 0xFF) {
            return TERSE_ECORRUPT;
        }
        it->p = p + 10;
        it->end = p + n - 1;
        return TERSE_OK;
    case RDB_BLOB_LISTPACK:
        if (n < RDB_LP_HEADER + 1 || rdb_get_le(p, 4) != n || p[n - 1] != 0xFF) {
            return TERSE_ECORRUPT;
        }
        it->p = p + RDB_LP_HEADER;
        it->end = p + n - 1;
        return TERSE_OK;
    case RDB_BLOB_INTSET: {
        uint64_t w, count;
        if (n < 8) {
            return TERSE_ECORRUPT;
        }
        w = rdb_get_le(p, 4);
        count = rdb_get_le(p + 4, 4);
        if ((w != 2 && w != 4 && w != 8) || count > (n - 8) / w || 8 + count * w != n) {
            return TERSE_ECORRUPT;
        }
        it->width = (int)w;
        it->left = count;
        it->p = p + 8;
        it->end = p + n;
        return TERSE_OK;
    }
    case RDB_BLOB_ZIPMAP:
        if (n < 2 || p[n - 1] != 0xFF) {
            return TERSE_ECORRUPT;
        }
        it->p = p + 1;
        it->end = p + n - 1;
        return TERSE_OK;
    }
    return TERSE_ECORRUPT;
}

static long long sext(uint64_t u, int bytes)
{
    int shift = 64 - 8 * bytes;
    return (long long)(int64_t)(u << shift) >> shift;
}

static int ziplist_next(struct rdb_blob_it *it, struct rdb_elem *e)
{
    const uint8_t *p = it->p;
    size_t left = (size_t)(it->end - p), hdr;
    uint8_t b;
    uint64_t len = 0;

    if (left == 0) {
        return 0;
    }
    hdr = p[0] < 254 ? 1 : p[0] == 254 ? 5 : 0;
    if (hdr == 0 || hdr >= left) {
        return TERSE_ECORRUPT;
    }
    p += hdr;
    left -= hdr;
    b = p[0];
    e->is_int = true;
    switch (b >> 6) {
    case 0:
        len = b & 0x3F;
        hdr = 1;
        e->is_int = false;
        break;
    case 1:
        if (left < 2) {
            return TERSE_ECORRUPT;
        }
        len = (uint64_t)(b & 0x3F) << 8 | p[1];
        hdr = 2;
        e->is_int = false;
        break;
    case 2:
        if (b != 0x80 || left < 5) {
            return TERSE_ECORRUPT;
        }
        len = (uint64_t)p[1] << 24 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 8 | p[4];
        hdr = 5;
        e->is_int = false;
        break;
    default:
        hdr = 1;
        len = b == 0xC0 ? 2 : b == 0xD0 ? 4 : b == 0xE0 ? 8 : b == 0xF0 ? 3 : b == 0xFE ? 1 : 0;
        if (len == 0 && (b < 0xF1 || b > 0xFD)) {
            return TERSE_ECORRUPT;
        }
        break;
    }
    if (hdr > left || len > left - hdr) {
        return TERSE_ECORRUPT;
    }
    if (e->is_int) {
        e->v = len == 0 ? (long long)(b & 0x0F) - 1 : sext(rdb_get_le(p + 1, (int)len), (int)len);
    } else {
        e->p = p + hdr;
        e->len = (size_t)len;
    }
    it->p = p + hdr + len;
    return 1;
}

static size_t backlen_size(size_t l)
{
    return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

static int listpack_next(struct rdb_blob_it *it, struct rdb_elem *e)
{
    const uint8_t *p = it->p;
    size_t left = (size_t)(it->end - p), hdr = 1, bl;
    uint64_t len = 0, back = 0;
    uint8_t b;

    if (left == 0) {
        return 0;
    }
    b = p[0];
    e->is_int = true;
    if ((b & 0x80) == 0) {
        e->v = b;
    } else if ((b & 0xC0) == 0x80) {
        len = b & 0x3F;
        e->is_int = false;
    } else if ((b & 0xE0) == 0xC0) {
        if (left < 2) {
            return TERSE_ECORRUPT;
        }
        e->v = (long long)((uint64_t)(b & 0x1F) << 8 | p[1]);
        if (e->v >= 4096) {
            e->v -= 8192;
        }
        hdr = 2;
    } else if ((b & 0xF0) == 0xE0) {
        if (left < 2) {
            return TERSE_ECORRUPT;
        }
        len = (uint64_t)(b & 0x0F) << 8 | p[1];
        hdr = 2;
        e->is_int = false;
    } else if (b == 0xF0) {
        if (left < 5) {
            return TERSE_ECORRUPT;
        }
        len = rdb_get_le(p + 1, 4);
        hdr = 5;
        e->is_int = false;
    } else if (b >= 0xF1 && b <= 0xF4) {
        int n = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
        if (left < (size_t)n + 1) {
            return TERSE_ECORRUPT;
        }
        e->v = sext(rdb_get_le(p + 1, n), n);
        hdr = (size_t)n + 1;
    } else {
        return TERSE_ECORRUPT;
    }
    if (len > left || hdr > left - len) {
        return TERSE_ECORRUPT;
    }
    bl = backlen_size(hdr + len);
    if (bl > left - len - hdr) {
        return TERSE_ECORRUPT;
    }
    for (size_t i = 0; i < bl; i++) {
        back = back << 7 | (p[hdr + len + i] & 127);
    }
    if (back != hdr + len) {
        return TERSE_ECORRUPT;
    }
    if (!e->is_int) {
        e->p = p + hdr;
        e->len = (size_t)len;
    }
    it->p = p + hdr + len + bl;
    return 1;
}

static int intset_next(struct rdb_blob_it *it, struct rdb_elem *e)
{
    long long v;

    if (it->left == 0) {
        return 0;
    }
    v = sext(rdb_get_le(it->p, it->width), it->width);
    if (it->have_prev && v <= it->prev) {
        return TERSE_ECORRUPT; /* not strictly ascending: a member twice */
    }
    it->have_prev = true;
    it->prev = v;
    it->p += it->width;
    it->left--;
    e->is_int = true;
    e->v = v;
    return 1;
}

static int zipmap_next(struct rdb_blob_it *it, struct rdb_elem *e)
{
    const uint8_t *p = it->p;
    size_t left = (size_t)(it->end - p), hdr;
    uint64_t len, free_b = 0;

    if (left == 0) {
        return it->zipmap_value ? TERSE_ECORRUPT : 0;
    }
    if (p[0] == 255) {
        return TERSE_ECORRUPT; /* only the blob's last byte ends it */
    }
    if (p[0] < 254) {
        len = p[0];
        hdr = 1;
    } else if (left >= 5) {
        len = rdb_get_le(p + 1, 4);
        hdr = 5;
    } else {
        return TERSE_ECORRUPT;
    }
    if (it->zipmap_value) {
        if (hdr >= left) {
            return TERSE_ECORRUPT;
        }
        free_b = p[hdr];
        hdr++;
    }
    if (len > left - hdr || free_b > left - hdr - len) {
        return TERSE_ECORRUPT;
    }
    e->is_int = false;
    e->p = p + hdr;
    e->len = (size_t)len;
    it->p = p + hdr + len + free_b;
    it->zipmap_value = !it->zipmap_value;
    return 1;
}

int rdb_blob_next(struct rdb_blob_it *it, struct rdb_elem *e)
{
    switch (it->kind) {
    case RDB_BLOB_ZIPLIST:
        return ziplist_next(it, e);
    case RDB_BLOB_LISTPACK:
        return listpack_next(it, e);
    case RDB_BLOB_INTSET:
        return intset_next(it, e);
    case RDB_BLOB_ZIPMAP:
        return zipmap_next(it, e);
    }
    return TERSE_ECORRUPT;
}

void rdb_elem_bytes(const struct rdb_elem *e, char *num, const uint8_t **p, size_t *len)
{
    if (e->is_int) {
        *len = rdb_format_ll(num, e->v);
        *p = (const uint8_t *)num;
    } else {
        *p = e->p;
        *len = e->len;
    }
}

bool rdb_elem_int(const struct rdb_elem *e, long long *v)
{
    if (e->is_int) {
        *v = e->v;
        return true;
    }
    return rdb_parse_ll(e->p, e->len, v);
}
