/*
 * codec_msgpack: MessagePack pre-scan, typed cursor reads and shortest-form writers for the
 * cachekit envelope (see codec_msgpack.h). Big-endian multi-byte fields throughout, as the
 * MessagePack specification defines them.
 *
 * Pre-scan invariant: `pending` counts items still owed by all open collections plus the root;
 * since every item needs at least one byte, pending > bytes left means the input cannot back
 * the document, which bounds the sum of all declared counts by the input length before
 * anything is decoded.
 */
#include "codec/codec_msgpack.h"

#include "terse/status.h"

static uint64_t
be_get(const uint8_t *p, size_t k)
{
    uint64_t v = 0;

    for (size_t i = 0; i < k; i++) {
        v = (v << 8) | p[i];
    }
    return v;
}

static void
be_put(uint8_t *p, uint64_t v, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        p[i] = (uint8_t)(v >> (8 * (k - 1 - i)));
    }
}

/* What one marker declares: prefix bytes to read, then either children or payload bytes. */
struct mp_shape {
    uint8_t prefix;     /* length-prefix bytes after the marker (big-endian count/length) */
    uint8_t fixed;      /* fixed payload bytes after the prefix (scalars, ext type byte) */
    uint8_t collection; /* 1 array, 2 map (children = 2 * count), 0 otherwise */
    uint8_t is_bytes;   /* the prefix value is a payload byte length (str, bin, ext) */
};

/* Classifies marker m; *inline_n is a count/length carried in the marker itself. Returns 0 for
 * the reserved marker 0xc1. */
static int
mp_classify(uint8_t m, struct mp_shape *s, uint64_t *inline_n)
{
    static const uint8_t scalar_fixed[] = {
        /* 0xca..0xd3: float32, float64, uint8..64, int8..64 */
        4, 8, 1, 2, 4, 8, 1, 2, 4, 8,
    };
    *s = (struct mp_shape){ 0, 0, 0, 0 };
    *inline_n = 0;
    if (m <= 0x7f || m >= 0xe0 || m == 0xc0 || m == 0xc2 || m == 0xc3) {
        return 1; /* fixints, nil, bool */
    }
    if (m >= 0x80 && m <= 0x8f) {
        s->collection = 2;
        *inline_n = m & 0x0f;
    } else if (m >= 0x90 && m <= 0x9f) {
        s->collection = 1;
        *inline_n = m & 0x0f;
    } else if (m >= 0xa0 && m <= 0xbf) {
        s->is_bytes = 1;
        *inline_n = m & 0x1f;
    } else if (m >= 0xc4 && m <= 0xc6) { /* bin8/16/32 */
        s->is_bytes = 1;
        s->prefix = (uint8_t)(1u << (m - 0xc4));
    } else if (m >= 0xc7 && m <= 0xc9) { /* ext8/16/32: length, then type byte */
        s->is_bytes = 1;
        s->prefix = (uint8_t)(1u << (m - 0xc7));
        s->fixed = 1;
    } else if (m >= 0xca && m <= 0xd3) {
        s->fixed = scalar_fixed[m - 0xca];
    } else if (m >= 0xd4 && m <= 0xd8) { /* fixext1..16: type byte + data */
        s->fixed = (uint8_t)(1 + (1u << (m - 0xd4)));
    } else if (m >= 0xd9 && m <= 0xdb) { /* str8/16/32 */
        s->is_bytes = 1;
        s->prefix = (uint8_t)(1u << (m - 0xd9));
    } else if (m == 0xdc || m == 0xdd) {
        s->collection = 1;
        s->prefix = m == 0xdc ? 2 : 4;
    } else if (m == 0xde || m == 0xdf) {
        s->collection = 2;
        s->prefix = m == 0xde ? 2 : 4;
    } else {
        return 0; /* 0xc1 */
    }
    return 1;
}

static int
prescan_fail(enum codec_msgpack_reason *why, enum codec_msgpack_reason r)
{
    if (why != NULL) {
        *why = r;
    }
    return TERSE_EPROTO;
}

int
codec_msgpack_prescan(const uint8_t *p, size_t n, unsigned depth_max, size_t *root_len,
                      enum codec_msgpack_reason *why)
{
    uint64_t stack[CODEC_MSGPACK_DEPTH_MAX]; /* items left in each open collection */
    uint64_t pending = 1, k;
    unsigned depth = 0;
    size_t pos = 0;
    struct mp_shape s;

    if (root_len == NULL || depth_max == 0 || depth_max > CODEC_MSGPACK_DEPTH_MAX ||
        (p == NULL && n > 0)) {
        return TERSE_EINVAL;
    }
    while (pending > 0) {
        while (depth > 0 && stack[depth - 1] == 0) {
            depth--;
        }
        if (pos >= n) {
            return prescan_fail(why, CODEC_MP_INCOMPLETE);
        }
        if (!mp_classify(p[pos++], &s, &k)) {
            return prescan_fail(why, CODEC_MP_RESERVED);
        }
        pending--;
        if (depth > 0) {
            stack[depth - 1]--;
        }
        if (s.prefix > 0) {
            if (n - pos < s.prefix) {
                return prescan_fail(why, CODEC_MP_PREFIX);
            }
            k = be_get(p + pos, s.prefix);
            pos += s.prefix;
        }
        if (s.collection != 0) {
            if (depth >= depth_max) {
                return prescan_fail(why, CODEC_MP_DEPTH);
            }
            k *= s.collection; /* <= 2 * (2^32 - 1): no overflow in 64 bits */
            if (k > 0) {
                stack[depth++] = k;
                pending += k;
            }
        } else {
            uint64_t bytes = (s.is_bytes ? k : 0) + s.fixed;

            if (bytes > n - pos) {
                return prescan_fail(why, s.is_bytes ? CODEC_MP_OVERCLAIM : CODEC_MP_PREFIX);
            }
            pos += (size_t)bytes;
        }
        if (pending > n - pos) {
            return prescan_fail(why, CODEC_MP_OVERCLAIM);
        }
    }
    *root_len = pos;
    if (why != NULL) {
        *why = CODEC_MP_OK;
    }
    return TERSE_OK;
}

/* ---- typed reads ------------------------------------------------------------------------- */

static int
cur_take(struct codec_mp_cursor *c, size_t k, const uint8_t **out)
{
    if (c->left < k) {
        return TERSE_EPROTO;
    }
    *out = c->p;
    c->p += k;
    c->left -= k;
    return TERSE_OK;
}

int
codec_mp_read_array(struct codec_mp_cursor *c, uint64_t *count)
{
    const uint8_t *m, *f;
    size_t k;

    if (cur_take(c, 1, &m) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    if (*m >= 0x90 && *m <= 0x9f) {
        *count = *m & 0x0f;
        return TERSE_OK;
    }
    if (*m != 0xdc && *m != 0xdd) {
        return TERSE_EPROTO;
    }
    k = *m == 0xdc ? 2 : 4;
    if (cur_take(c, k, &f) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    *count = be_get(f, k);
    return TERSE_OK;
}

int
codec_mp_read_uint(struct codec_mp_cursor *c, uint64_t *v)
{
    const uint8_t *m, *f;
    size_t k;
    int is_signed;

    if (cur_take(c, 1, &m) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    if (*m <= 0x7f) {
        *v = *m;
        return TERSE_OK;
    }
    if (*m >= 0xcc && *m <= 0xcf) {
        k = (size_t)1 << (*m - 0xcc);
        is_signed = 0;
    } else if (*m >= 0xd0 && *m <= 0xd3) {
        k = (size_t)1 << (*m - 0xd0);
        is_signed = 1;
    } else {
        return TERSE_EPROTO;
    }
    if (cur_take(c, k, &f) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    if (is_signed && (f[0] & 0x80) != 0) {
        return TERSE_EPROTO; /* negative */
    }
    *v = be_get(f, k);
    return TERSE_OK;
}

static int
read_bytes(struct codec_mp_cursor *c, size_t k, const uint8_t **data, size_t *len)
{
    const uint8_t *f;
    uint64_t n;

    if (cur_take(c, k, &f) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    n = be_get(f, k);
    if (n > c->left) {
        return TERSE_EPROTO;
    }
    *len = (size_t)n;
    return cur_take(c, (size_t)n, data);
}

int
codec_mp_read_bin(struct codec_mp_cursor *c, const uint8_t **data, size_t *len)
{
    const uint8_t *m;

    if (cur_take(c, 1, &m) != TERSE_OK || *m < 0xc4 || *m > 0xc6) {
        return TERSE_EPROTO;
    }
    return read_bytes(c, (size_t)1 << (*m - 0xc4), data, len);
}

int
codec_mp_read_str(struct codec_mp_cursor *c, const uint8_t **data, size_t *len)
{
    const uint8_t *m;

    if (cur_take(c, 1, &m) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    if (*m >= 0xa0 && *m <= 0xbf) {
        *len = *m & 0x1f;
        return cur_take(c, *len, data);
    }
    if (*m < 0xd9 || *m > 0xdb) {
        return TERSE_EPROTO;
    }
    return read_bytes(c, (size_t)1 << (*m - 0xd9), data, len);
}

/* ---- writers ----------------------------------------------------------------------------- */

size_t
codec_mp_uint_len(uint64_t v)
{
    if (v <= 0x7f) {
        return 1;
    }
    if (v <= 0xff) {
        return 2;
    }
    if (v <= 0xffff) {
        return 3;
    }
    return v <= 0xffffffffu ? 5 : 9;
}

size_t
codec_mp_put_uint(uint8_t *p, uint64_t v)
{
    size_t n = codec_mp_uint_len(v);

    if (n == 1) {
        p[0] = (uint8_t)v;
        return 1;
    }
    p[0] = n == 2 ? 0xcc : n == 3 ? 0xcd : n == 5 ? 0xce : 0xcf;
    be_put(p + 1, v, n - 1);
    return n;
}

size_t
codec_mp_bin_header_len(size_t len)
{
    return len <= 0xff ? 2 : len <= 0xffff ? 3 : 5;
}

size_t
codec_mp_put_bin_header(uint8_t *p, size_t len)
{
    size_t n = codec_mp_bin_header_len(len);

    p[0] = n == 2 ? 0xc4 : n == 3 ? 0xc5 : 0xc6;
    be_put(p + 1, len, n - 1);
    return n;
}

size_t
codec_mp_str_header_len(size_t len)
{
    return len <= 31 ? 1 : len <= 0xff ? 2 : len <= 0xffff ? 3 : 5;
}

size_t
codec_mp_put_str_header(uint8_t *p, size_t len)
{
    size_t n = codec_mp_str_header_len(len);

    if (n == 1) {
        p[0] = (uint8_t)(0xa0 | len);
        return 1;
    }
    p[0] = n == 2 ? 0xd9 : n == 3 ? 0xda : 0xdb;
    be_put(p + 1, len, n - 1);
    return n;
}
