/*
 * codec_envelope: the cachekit ByteStorage envelope (include/terse/terse.h).
 *
 *   94                      fixarray(4)
 *   c4 LL | c5 LLLL | c6 L4 compressed_data: LZ4 block, shortest bin header
 *                           (read also: legacy array of ints 0..255)
 *   98 u u u u u u u u      checksum: XXH3-64 of the original, big-endian, shortest uints
 *   uint                    original_size, shortest uint on write, any width on read
 *   a0|n .. | d9/da/db      format, shortest str header
 *
 * Retrieve order (every step before any output is written or allocated, except 6-9):
 *   1 env_len cap; 2 structure and exact typed shape, no trailing bytes (below); 3 block cap;
 *   4 original_size cap (64-bit); 5 empty block, ratio in 64 bits;
 *   then room in dst and format; 6 LZ4_decompress_safe into dst with capacity original_size;
 *   7 decoded length == original_size (TERSE_ELENGTH: a short block is a length error even
 *   when the checksum of the short output matches); 8 checksum.
 *
 * Step 2 has two walks with one answer. The fixed-shape walk (walk_fixed) reads the canonical
 * envelope in one pass: 94, bin8/16/32, 98 + 8 x (fixint | cc XX), any uint marker, a str
 * ending exactly at env_len, each length checked against the bytes left before it is used. A
 * document it accepts has depth 2, no 0xc1, no overclaim, no truncation and no trailing
 * bytes, so the general pre-scan (depth TERSE_ENVELOPE_DEPTH_MAX, every hostile-input rule)
 * and typed decode would accept it with the same view. Anything else -- the legacy block,
 * array16/32 headers, signed-int markers, and every malformed input -- takes the general path,
 * which decides the status. The general walk costs ~600 instructions on a 64-byte envelope,
 * the fixed one a few dozen.
 */
#define LZ4_STATIC_LINKING_ONLY /* LZ4_compress_fast_extState_fastReset: liblz4.a is linked */
#include "terse/terse.h"

#include "codec/codec_alloc.h"
#include "codec/codec_internal.h"
#include "codec/codec_msgpack.h"
#include "codec/codec_sum.h"

#include <lz4.h>
#include <string.h>

#define CHECKSUM_N 8
#define DEFAULT_FORMAT "msgpack"

struct terse_ctx {
    terse_allocator alloc; /* copy of the creator's allocator (or libc) */
    void *lz4_state;       /* LZ4_sizeofState() bytes, initialised once, owned */
};

#define DEFAULT_FORMAT_LEN (sizeof(DEFAULT_FORMAT) - 1)
#define DEFAULT_FORMAT_STR "\xa7" DEFAULT_FORMAT /* fixstr(7) header + text, as written */
#define HIGH_BITS 0x8080808080808080ull

/* ---- contexts ---------------------------------------------------------------------------- */

int
terse_ctx_create(terse_ctx **out, const terse_allocator *alloc)
{
    terse_allocator a;
    int size = LZ4_sizeofState();
    terse_ctx *c;

    if (out == NULL || codec_alloc_pick(alloc, &a) != TERSE_OK) {
        return TERSE_EINVAL;
    }
    c = a.alloc(a.opaque, sizeof(*c));
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    c->alloc = a;
    c->lz4_state = a.alloc(a.opaque, (size_t)size);
    if (c->lz4_state == NULL) {
        a.free(a.opaque, c);
        return TERSE_ENOMEM;
    }
    LZ4_initStream(c->lz4_state, (size_t)size); /* cannot fail: size and alignment are right */
    *out = c;
    return TERSE_OK;
}

void
terse_ctx_destroy(terse_ctx **pp)
{
    terse_ctx *c;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    c = *pp;
    c->alloc.free(c->alloc.opaque, c->lz4_state);
    c->alloc.free(c->alloc.opaque, c);
    *pp = NULL;
}

/*
 * The ctx-less API's LZ4 state: one per thread, cleared once on first use, then reset cheaply
 * per store. This is per-thread scratch, not shared state (like errno); it is the documented
 * exception to "no mutable globals", because the public store has no context argument.
 */
static void *
thread_lz4_state(void)
{
    static _Thread_local LZ4_stream_t state;
    static _Thread_local int ready;

    if (!ready) {
        LZ4_initStream(&state, sizeof(state));
        ready = 1;
    }
    return &state;
}

/* ---- store ------------------------------------------------------------------------------- */

size_t
terse_envelope_bound(size_t src_len)
{
    if (src_len > TERSE_ENVELOPE_MAX) {
        src_len = TERSE_ENVELOPE_MAX;
    }
    return TERSE_ENVELOPE_BOUND(src_len);
}

/* Size of the literal-only LZ4 block of n bytes. */
static size_t
literal_block_len(size_t n)
{
    return n < 15 ? n + 1 : n + 1 + (n - 15) / 255 + 1;
}

/* Writes the literal-only block of src (what every LZ4 decoder reads back as src). */
static void
literal_block_put(uint8_t *p, const uint8_t *src, size_t n)
{
    size_t rest;

    *p++ = (uint8_t)((n < 15 ? n : 15) << 4);
    if (n >= 15) {
        for (rest = n - 15; rest >= 255; rest -= 255) {
            *p++ = 0xff;
        }
        *p++ = (uint8_t)rest;
    }
    if (n > 0) {
        memcpy(p, src, n);
    }
}

/* Writes checksum, original_size and format (fmt NULL: the default) at p; returns bytes
 * written. Each checksum byte is the shortest uint: a fixint below 0x80, else cc XX. */
static size_t
trailer_put(uint8_t *p, uint64_t sum, size_t orig_len, const char *fmt, size_t fmt_len)
{
    size_t n = 0;

    p[n++] = 0x90 | CHECKSUM_N;
    /* Unrolled and branch-free: cc lands at n and is overwritten by b when b is a fixint. */
#define PUT_SUM_BYTE(shift)                                                                       \
    do {                                                                                          \
        uint8_t b_ = (uint8_t)(sum >> (shift));                                                   \
        size_t high_ = b_ >> 7;                                                                   \
        p[n] = 0xcc;                                                                              \
        p[n + high_] = b_;                                                                        \
        n += 1 + high_;                                                                           \
    } while (0)
    PUT_SUM_BYTE(56);
    PUT_SUM_BYTE(48);
    PUT_SUM_BYTE(40);
    PUT_SUM_BYTE(32);
    PUT_SUM_BYTE(24);
    PUT_SUM_BYTE(16);
    PUT_SUM_BYTE(8);
    PUT_SUM_BYTE(0);
#undef PUT_SUM_BYTE
    if (orig_len < 0x80) {
        p[n++] = (uint8_t)orig_len;
    } else {
        n += codec_mp_put_uint(p + n, orig_len);
    }
    if (fmt == NULL) { /* the default: fixstr header and text as one constant-size copy */
        memcpy(p + n, DEFAULT_FORMAT_STR, sizeof(DEFAULT_FORMAT_STR) - 1);
        return n + sizeof(DEFAULT_FORMAT_STR) - 1;
    }
    if (fmt_len <= 31) {
        p[n++] = (uint8_t)(0xa0 | fmt_len);
    } else {
        n += codec_mp_put_str_header(p + n, fmt_len);
    }
    memcpy(p + n, fmt, fmt_len);
    return n + fmt_len;
}

static size_t
trailer_len(uint64_t sum, size_t orig_len, size_t fmt_len)
{
    /* Bytes >= 0x80 take a cc prefix: count the high bits of the 8 bytes in one multiply. */
    size_t high = (size_t)((((sum & HIGH_BITS) >> 7) * 0x0101010101010101ull) >> 56);

    return 1 + CHECKSUM_N + high + (orig_len < 0x80 ? 1 : codec_mp_uint_len(orig_len)) +
           (fmt_len <= 31 ? 1 : codec_mp_str_header_len(fmt_len)) + fmt_len;
}

/* Compresses src (>= TERSE_ENVELOPE_LITERAL_MAX bytes) into dst behind the array marker and
 * the shortest bin header; room is what is left for header + block. */
static int
block_put_lz4(void *state, const uint8_t *src, size_t n, uint8_t *dst, size_t room,
              size_t *out_len)
{
    size_t guess = codec_mp_bin_header_len((size_t)LZ4_COMPRESSBOUND(n)), hdr;
    size_t cap;
    int got;

    if (room <= guess) {
        return TERSE_EDSTSIZE;
    }
    cap = room - guess;
    if (cap > (size_t)LZ4_COMPRESSBOUND(n)) {
        cap = (size_t)LZ4_COMPRESSBOUND(n);
    }
    got = LZ4_compress_fast_extState_fastReset(state, (const char *)src, (char *)dst + guess,
                                               (int)n, (int)cap, 1);
    if (got <= 0) {
        return TERSE_EDSTSIZE;
    }
    if ((size_t)got > TERSE_ENVELOPE_MAX) {
        return TERSE_ETOOBIG;
    }
    hdr = codec_mp_bin_header_len((size_t)got);
    if (hdr != guess) { /* the block came out shorter than the bound's header width */
        memmove(dst + hdr, dst + guess, (size_t)got);
    }
    codec_mp_put_bin_header(dst, (size_t)got);
    *out_len = hdr + (size_t)got;
    return TERSE_OK;
}

static int
envelope_store(void *state, const void *src, size_t src_len, const char *format, void *dst,
               size_t dst_cap, size_t *dst_len)
{
    const char *fmt = format != NULL ? format : DEFAULT_FORMAT;
    size_t fmt_len = DEFAULT_FORMAT_LEN, blk_len, tail, pos;
    uint8_t *out = dst;
    uint64_t sum;
    int rc;

    if (dst_len == NULL || (src == NULL && src_len > 0)) {
        return TERSE_EINVAL;
    }
    if (format != NULL) {
        /* Bounded strlen (strnlen is POSIX; libterse is plain C11): memchr stops at the NUL. */
        const char *nul = memchr(format, '\0', TERSE_ENVELOPE_FORMAT_MAX + 1);

        if (nul == NULL) {
            return TERSE_EINVAL;
        }
        fmt_len = (size_t)(nul - format);
    }
    if (src_len > TERSE_ENVELOPE_MAX) {
        return TERSE_ETOOBIG;
    }
    if (src_len == 0) {
        src = ""; /* libraries get a valid pointer even for empty input */
    }
    sum = codec_sum(src, src_len);
    tail = trailer_len(sum, src_len, fmt_len);
    if (out == NULL || dst_cap < 1 + tail) {
        return TERSE_EDSTSIZE;
    }
    out[0] = 0x94;
    if (src_len < TERSE_ENVELOPE_LITERAL_MAX) {
        size_t lit = literal_block_len(src_len);

        blk_len = 2 + lit; /* lit <= TERSE_ENVELOPE_LITERAL_MAX + 1 < 256: a bin8 header */
        if (dst_cap - 1 - tail < blk_len) {
            return TERSE_EDSTSIZE;
        }
        out[1] = 0xc4;
        out[2] = (uint8_t)lit;
        literal_block_put(out + 3, src, src_len);
    } else {
        rc = block_put_lz4(state, src, src_len, out + 1, dst_cap - 1 - tail, &blk_len);
        if (rc != TERSE_OK) {
            return rc;
        }
    }
    pos = 1 + blk_len;
    if (pos + tail > TERSE_ENVELOPE_MAX) {
        return TERSE_ETOOBIG;
    }
    *dst_len = pos + trailer_put(out + pos, sum, src_len, format != NULL ? fmt : NULL, fmt_len);
    return TERSE_OK;
}

int
terse_envelope_store(const void *src, size_t src_len, const char *format, void *dst,
                     size_t dst_cap, size_t *dst_len)
{
    /* Short inputs never touch the LZ4 state: do not pay its first-use clear for them. */
    void *state = src_len >= TERSE_ENVELOPE_LITERAL_MAX ? thread_lz4_state() : NULL;

    return envelope_store(state, src, src_len, format, dst, dst_cap, dst_len);
}

int
terse_envelope_store_ctx(terse_ctx *c, const void *src, size_t src_len, const char *format,
                         void *dst, size_t dst_cap, size_t *dst_len)
{
    if (c == NULL) {
        return TERSE_EINVAL;
    }
    return envelope_store(c->lz4_state, src, src_len, format, dst, dst_cap, dst_len);
}

/* ---- retrieve ---------------------------------------------------------------------------- */

/* Legacy block: an array of n integers 0..255 (any uint width). Checks every element. */
static int
legacy_block_check(struct codec_mp_cursor *cur, uint64_t n)
{
    uint64_t v;

    for (uint64_t i = 0; i < n; i++) {
        if (codec_mp_read_uint(cur, &v) != TERSE_OK || v > 0xff) {
            return TERSE_EPROTO;
        }
    }
    return TERSE_OK;
}

static int
parse_block(struct codec_mp_cursor *cur, struct codec_env_view *e)
{
    uint64_t n;

    if (cur->left > 0 && *cur->p >= 0xc4 && *cur->p <= 0xc6) {
        return codec_mp_read_bin(cur, &e->block, &e->block_len);
    }
    if (codec_mp_read_array(cur, &n) != TERSE_OK || n > cur->left) {
        return TERSE_EPROTO;
    }
    e->legacy = 1;
    e->block = cur->p;
    e->block_len = (size_t)n;
    return legacy_block_check(cur, n);
}

static int
parse_checksum(struct codec_mp_cursor *cur, uint64_t *sum)
{
    uint64_t n, v;

    if (codec_mp_read_array(cur, &n) != TERSE_OK || n != CHECKSUM_N) {
        return TERSE_EPROTO;
    }
    *sum = 0;
    for (int i = 0; i < CHECKSUM_N; i++) {
        if (codec_mp_read_uint(cur, &v) != TERSE_OK || v > 0xff) {
            return TERSE_EPROTO;
        }
        *sum = (*sum << 8) | v;
    }
    return TERSE_OK;
}

/* A big-endian field of k (1, 2, 4 or 8) bytes. */
static uint64_t
be_field(const uint8_t *p, size_t k)
{
    uint64_t v = 0;

    for (size_t i = 0; i < k; i++) {
        v = (v << 8) | p[i];
    }
    return v;
}

/*
 * The fixed-shape walk of the file comment. Returns 1 with *e filled when env is a canonical
 * envelope ending exactly at its end; 0 otherwise (then nothing about env is decided yet).
 * Every read is preceded by a check of `left`, the bytes from p to the end.
 */
static int
walk_fixed(const uint8_t *p, size_t left, struct codec_env_view *e)
{
    uint64_t sum = 0, len;
    size_t k;

    /* 94 + bin8 header: the smallest envelope is 16 bytes; checked in steps as we go. */
    if (left < 3 || p[0] != 0x94 || p[1] < 0xc4 || p[1] > 0xc6) {
        return 0;
    }
    k = (size_t)1 << (p[1] - 0xc4); /* bin8/16/32: 1, 2, 4 length bytes */
    p += 2;
    left -= 2;
    if (left < k) {
        return 0;
    }
    len = be_field(p, k);
    p += k;
    left -= k;
    if (len > left) {
        return 0;
    }
    e->block = p;
    e->block_len = (size_t)len;
    e->legacy = 0;
    p += len;
    left -= (size_t)len;
    /* 98 and 8 checksum bytes (fixint, or cc XX): the loop reads at most 16 bytes after 98
     * without checks, so 17 must be there (a canonical trailer with a format of 6 or more
     * bytes always has them; shorter ones take the general walk). */
    if (left < 1 + 2 * CHECKSUM_N || p[0] != 0x90 + CHECKSUM_N) {
        return 0;
    }
    {
        const uint8_t *q = p + 1;

        /* Unrolled: this runs on every retrieve. */
#define GET_SUM_BYTE()                                                                            \
    do {                                                                                          \
        if (q[0] < 0x80) {                                                                        \
            sum = (sum << 8) | q[0];                                                              \
            q++;                                                                                  \
        } else if (q[0] == 0xcc) {                                                                \
            sum = (sum << 8) | q[1];                                                              \
            q += 2;                                                                               \
        } else {                                                                                  \
            return 0;                                                                             \
        }                                                                                         \
    } while (0)
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
        GET_SUM_BYTE();
#undef GET_SUM_BYTE
        k = (size_t)(q - p);
        if (left - k < 2) { /* original_size and the format marker must follow */
            return 0;
        }
        p = q;
        left -= k;
    }
    e->checksum = sum;
    /* original_size: fixint or uint8/16/32/64, then the format marker. */
    if (p[0] < 0x80) {
        e->orig_len = p[0];
        k = 0; /* left >= 2: the loop left this byte and one more */
    } else if (p[0] >= 0xcc && p[0] <= 0xcf) {
        k = (size_t)1 << (p[0] - 0xcc);
        if (left < 2 + k) {
            return 0;
        }
        e->orig_len = be_field(p + 1, k);
    } else {
        return 0;
    }
    p += 1 + k;
    left -= 1 + k;
    /* format: fixstr or str8/16/32, ending exactly at the end of env. left >= 1 here. */
    if (p[0] >= 0xa0 && p[0] <= 0xbf) {
        len = p[0] & 0x1f;
        k = 0;
    } else if (p[0] >= 0xd9 && p[0] <= 0xdb) {
        k = (size_t)1 << (p[0] - 0xd9);
        if (left < 1 + k) {
            return 0;
        }
        len = be_field(p + 1, k);
    } else {
        return 0;
    }
    if (len != left - 1 - k) {
        return 0;
    }
    e->format = p + 1 + k;
    e->format_len = (size_t)len;
    return 1;
}

/* The general step 2: full pre-scan, then the typed decode of exactly the envelope's shape. */
static int
walk_general(const uint8_t *env, size_t env_len, struct codec_env_view *e)
{
    struct codec_mp_cursor cur = { env, env_len };
    size_t root_len;
    uint64_t n;

    if (env == NULL ||
        codec_msgpack_prescan(env, env_len, TERSE_ENVELOPE_DEPTH_MAX, &root_len, NULL) !=
            TERSE_OK ||
        root_len != env_len) {
        return TERSE_EPROTO;
    }
    memset(e, 0, sizeof(*e));
    if (codec_mp_read_array(&cur, &n) != TERSE_OK || n != 4 || parse_block(&cur, e) != TERSE_OK ||
        parse_checksum(&cur, &e->checksum) != TERSE_OK ||
        codec_mp_read_uint(&cur, &e->orig_len) != TERSE_OK ||
        codec_mp_read_str(&cur, &e->format, &e->format_len) != TERSE_OK || cur.left != 0) {
        return TERSE_EPROTO;
    }
    return TERSE_OK;
}

/* Steps 1-5 of the file comment. */
int
codec_envelope_parse(const void *env, size_t env_len, struct codec_env_view *e, unsigned flags)
{
    int rc;

    if (env_len > TERSE_ENVELOPE_MAX) {
        return TERSE_ETOOBIG;
    }
    if ((flags & CODEC_ENV_GENERAL) != 0 || env == NULL || !walk_fixed(env, env_len, e)) {
        rc = walk_general(env, env_len, e);
        if (rc != TERSE_OK) {
            return rc;
        }
    }
    if (e->block_len > TERSE_ENVELOPE_MAX || e->orig_len > TERSE_ENVELOPE_MAX) {
        return TERSE_ETOOBIG;
    }
    /* Multiplication in 64 bits, never a division or a float: exact at every size. */
    if (e->block_len == 0 || e->orig_len > (uint64_t)TERSE_ENVELOPE_RATIO_MAX * e->block_len) {
        return TERSE_ERATIO;
    }
    return TERSE_OK;
}

int
terse_envelope_size(const void *env, size_t env_len, uint64_t *original_size)
{
    struct codec_env_view e;
    int rc;

    if (original_size == NULL) {
        return TERSE_EINVAL;
    }
    rc = codec_envelope_parse(env, env_len, &e, 0);
    if (rc == TERSE_OK) {
        *original_size = e.orig_len;
    }
    return rc;
}

int
terse_envelope_inspect(const void *env, size_t env_len, terse_envelope_info *info)
{
    struct codec_env_view e;
    int rc;

    if (info == NULL) {
        return TERSE_EINVAL;
    }
    rc = codec_envelope_parse(env, env_len, &e, 0);
    if (rc != TERSE_OK) {
        return rc;
    }
    info->original_size = e.orig_len;
    info->checksum = e.checksum;
    info->block_len = e.block_len;
    info->legacy = e.legacy;
    info->format = (const char *)e.format;
    info->format_len = e.format_len;
    return TERSE_OK;
}

/* Copies the legacy elements (validated by parse) into a contiguous block. */
static void
legacy_block_copy(const struct codec_env_view *e, uint8_t *out)
{
    struct codec_mp_cursor cur = { e->block, SIZE_MAX };
    uint64_t v = 0;

    for (size_t i = 0; i < e->block_len; i++) {
        (void)codec_mp_read_uint(&cur, &v);
        out[i] = (uint8_t)v;
    }
}

static int
block_decode(const struct codec_env_view *e, const terse_allocator *a, uint8_t *dst)
{
    const uint8_t *blk = e->block;
    uint8_t *scratch = NULL;
    uint8_t dummy;
    int got;

    if (e->legacy) {
        scratch = a->alloc(a->opaque, e->block_len);
        if (scratch == NULL) {
            return TERSE_ENOMEM;
        }
        legacy_block_copy(e, scratch);
        blk = scratch;
    }
    /* Capacity exactly original_size (<= 512 MiB < INT_MAX): a lying block cannot overrun. */
    got = LZ4_decompress_safe((const char *)blk, dst != NULL ? (char *)dst : (char *)&dummy,
                              (int)e->block_len, (int)e->orig_len);
    if (scratch != NULL) {
        a->free(a->opaque, scratch);
    }
    if (got < 0) {
        return TERSE_ECORRUPT;
    }
    return (uint64_t)got == e->orig_len ? TERSE_OK : TERSE_ELENGTH;
}

static int
envelope_retrieve(const terse_allocator *a, const void *env, size_t env_len, void *dst,
                  size_t dst_cap, size_t *dst_len, char *format, size_t format_cap)
{
    struct codec_env_view e;
    int rc;

    if (dst_len == NULL) {
        return TERSE_EINVAL;
    }
    rc = codec_envelope_parse(env, env_len, &e, 0);
    if (rc != TERSE_OK) {
        return rc;
    }
    if (e.orig_len > dst_cap || (dst == NULL && e.orig_len > 0) ||
        (format != NULL && format_cap <= e.format_len)) {
        return TERSE_EDSTSIZE;
    }
    rc = block_decode(&e, a, dst);
    if (rc == TERSE_OK &&
        codec_sum(dst, (size_t)e.orig_len) != e.checksum) {
        rc = TERSE_ECORRUPT;
    }
    if (rc != TERSE_OK) {
        if (dst != NULL && e.orig_len > 0) {
            memset(dst, 0, (size_t)e.orig_len); /* unverified bytes never look like a value */
        }
        return rc;
    }
    if (format != NULL) {
        memcpy(format, e.format, e.format_len);
        format[e.format_len] = '\0';
    }
    *dst_len = (size_t)e.orig_len;
    return TERSE_OK;
}

int
terse_envelope_retrieve(const void *env, size_t env_len, void *dst, size_t dst_cap,
                        size_t *dst_len, char *format, size_t format_cap)
{
    return envelope_retrieve(&codec_libc_allocator, env, env_len, dst, dst_cap, dst_len, format,
                             format_cap);
}

int
terse_envelope_retrieve_ctx(terse_ctx *c, const void *env, size_t env_len, void *dst,
                            size_t dst_cap, size_t *dst_len, char *format, size_t format_cap)
{
    if (c == NULL) {
        return TERSE_EINVAL;
    }
    return envelope_retrieve(&c->alloc, env, env_len, dst, dst_cap, dst_len, format,
                             format_cap);
}
