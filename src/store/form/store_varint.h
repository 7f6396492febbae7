/*
 * store_varint: the bounded LEB128 reader of the store's byte forms (store_hash.h,
 * store_list.h). The writer is codec_varint.h's.
 */
#ifndef TERSE_STORE_VARINT_H
#define TERSE_STORE_VARINT_H

#include <stdint.h>

/* Reads a minimal LEB128 varint at *pp, before end: 0 with *pp moved past it, or -1 (runs
 * past end, over 64 bits, or spelled longer than needed, so a form has one spelling). */
static inline int store_varint_read(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;
    unsigned shift = 0;

    if (p != end && *p < 0x80) { /* one byte: the common length, minimal by itself */
        *v = *p;
        *pp = p + 1;
        return 0;
    }
    for (;;) {
        uint8_t b;

        if (p == end) {
            return -1;
        }
        b = *p++;
        if (shift == 63 && b > 1) {
            return -1; /* the tenth byte holds bit 63 alone, and ends the varint */
        }
        x |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            if (b == 0 && shift != 0) {
                return -1; /* a zero last group: a shorter spelling exists */
            }
            break;
        }
        shift += 7;
    }
    *pp = p;
    *v = x;
    return 0;
}

#endif /* TERSE_STORE_VARINT_H */
