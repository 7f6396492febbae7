/*
 * codec_msgpack: the MessagePack pieces the cachekit envelope needs: a structural pre-scan of
 * untrusted documents and a bounds-checked cursor for the envelope's typed decode.
 *
 * The pre-scan reads headers only, never allocates, and uses O(depth_max) stack. It refuses a
 * document before anything is materialised when it nests deeper than depth_max, declares more
 * elements or bytes than the input can back, uses the reserved marker 0xc1, is cut inside a
 * length prefix, or does not finish inside the input. All counters are 64-bit.
 */
#ifndef TERSE_CODEC_MSGPACK_H
#define TERSE_CODEC_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_MSGPACK_DEPTH_MAX 1024 /* largest depth_max codec_msgpack_prescan accepts */

enum codec_msgpack_reason {
    CODEC_MP_OK = 0,
    CODEC_MP_DEPTH,      /* nests deeper than depth_max */
    CODEC_MP_OVERCLAIM,  /* declares more elements or bytes than the input holds */
    CODEC_MP_INCOMPLETE, /* the root item does not finish inside the input */
    CODEC_MP_RESERVED,   /* contains the reserved marker 0xc1 */
    CODEC_MP_PREFIX      /* input ends inside a length prefix or fixed-size scalar */
};

/*
 * Walks the first complete MessagePack item of p[0..n). p: borrowed. depth_max in
 * 1..CODEC_MSGPACK_DEPTH_MAX (an array or map header found at depth >= depth_max is refused, so
 * exactly depth_max levels pass). On TERSE_OK *root_len is the root item's length (bytes after
 * it are not examined). Returns TERSE_OK, TERSE_EPROTO (with *why set; why may be NULL) or
 * TERSE_EINVAL (bad depth_max or NULL root_len). No allocation; any thread.
 */
int codec_msgpack_prescan(const uint8_t *p, size_t n, unsigned depth_max, size_t *root_len,
                          enum codec_msgpack_reason *why);

/* A read position in a borrowed buffer; every read checks the bytes left first. */
struct codec_mp_cursor {
    const uint8_t *p; /* next byte */
    size_t left;      /* bytes from p to the end of the buffer */
};

/* Each reader returns TERSE_OK and advances, or TERSE_EPROTO (wrong type, truncated) and
 * leaves the cursor unspecified. */

/* An array header (fixarray, array16, array32): *count elements follow. */
int codec_mp_read_array(struct codec_mp_cursor *c, uint64_t *count);
/* A non-negative integer in any width (positive fixint, uint8..64, int8..64 holding >= 0). */
int codec_mp_read_uint(struct codec_mp_cursor *c, uint64_t *v);
/* A bin (bin8/16/32): *data points into the buffer, *len bytes, both within it. */
int codec_mp_read_bin(struct codec_mp_cursor *c, const uint8_t **data, size_t *len);
/* A str (fixstr, str8/16/32), as codec_mp_read_bin. */
int codec_mp_read_str(struct codec_mp_cursor *c, const uint8_t **data, size_t *len);

/* Writers: p has room for at least the returned length (<= 9 bytes); return bytes written. */
size_t codec_mp_put_uint(uint8_t *p, uint64_t v);       /* shortest unsigned form */
size_t codec_mp_put_bin_header(uint8_t *p, size_t len); /* shortest of bin8/16/32, <= 5 bytes */
size_t codec_mp_put_str_header(uint8_t *p, size_t len); /* shortest of fixstr/str8/16/32 */
size_t codec_mp_uint_len(uint64_t v);                   /* bytes codec_mp_put_uint writes */
size_t codec_mp_bin_header_len(size_t len);
size_t codec_mp_str_header_len(size_t len);

#endif /* TERSE_CODEC_MSGPACK_H */
