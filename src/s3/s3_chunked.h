/*
 * s3_chunked: the aws-chunked content encoding with an unsigned payload and a trailing
 * checksum (`x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`), as botocore frames
 * it; docs/formats/backup.md and ../shared/vectors/aws-chunked/SPEC.md describe the wire form.
 *
 *   <hex N>\r\n <N payload bytes> \r\n      every chunk but the last has N bytes; the
 *   <hex N>\r\n <N payload bytes> \r\n      header "<hex N>\r\n" is built once at init
 *   <hex r>\r\n <r payload bytes> \r\n      last chunk, 0 < r <= N (absent when r == 0)
 *   0\r\n
 *   x-amz-checksum-<alg>:<base64>\r\n       omitted for S3_CHECKSUM_NONE
 *   \r\n
 *
 * Encoder: the payload length is declared up front (S3 wants it in
 * x-amz-decoded-content-length), so every chunk's size is known before its bytes arrive and
 * the encoder copies payload straight from the caller's input to the caller's output: no
 * chunk buffer, constant memory, no allocation after init. Output goes to (dst, dst_cap);
 * nothing is written past dst_cap. The struct holds pointers into itself: do not copy it
 * after init.
 *
 * Decoder: a strict, streaming reader of the same encoding (used by tests and fuzzed): lower-
 * or uppercase hex without leading junk, optional `;chunk-signature=...` extensions (not
 * verified), equal chunk sizes except a shorter last one, an optional minimum chunk size
 * (S3's 8192), the declared decoded length, and the trailer value against the checksum of
 * the decoded bytes. It never allocates, never writes past dst_cap, and keeps a sticky error.
 */
#ifndef S3_CHUNKED_H
#define S3_CHUNKED_H

#include "s3/s3_checksum.h"

#include <stddef.h>
#include <stdint.h>

#define S3_CHUNKED_CHUNK_MAX ((size_t)1 << 26) /* largest chunk size accepted: 64 MiB */
#define S3_CHUNKED_HDR_MAX 12                   /* "<hex>\r\n" of a size <= CHUNK_MAX, + NUL */
/* "0\r\n" + "x-amz-checksum-" + name + ":" + base64 + "\r\n" + "\r\n" */
#define S3_CHUNKED_TAIL_MAX (3 + 15 + S3_CHECKSUM_NAME_MAX + 1 + S3_CHECKSUM_B64_MAX + 2 + 2)
#define S3_CHUNKED_TRAILER_NAME_MAX (15 + S3_CHECKSUM_NAME_MAX + 1) /* with NUL */

/* S3's content-sha256 value for this mode. */
#define S3_CHUNKED_CONTENT_SHA256 "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

enum s3_chunked_phase {
    S3_CHUNKED_START,  /* next: a chunk header or, with the payload done, the tail */
    S3_CHUNKED_DATA,   /* copying payload bytes of the current chunk */
    S3_CHUNKED_DONE    /* tail emitted (once pend is drained) */
};

struct s3_chunked_enc {
    uint64_t payload_len;        /* declared decoded length, bytes */
    uint64_t n_in;               /* payload bytes consumed so far, <= payload_len */
    size_t chunk_len;            /* N: size of every chunk but the last, 1..CHUNK_MAX */
    size_t chunk_left;           /* payload bytes still due in the current chunk */
    enum s3_chunked_phase phase;
    int status;                  /* sticky: TERSE_OK or the first error */
    const char *pend;            /* framing bytes being emitted (into this struct or static) */
    size_t pend_len;             /* bytes at pend */
    size_t pend_off;             /* bytes of pend already written, <= pend_len */
    struct s3_checksum ck;       /* checksum of the payload so far */
    char full_hdr[S3_CHUNKED_HDR_MAX]; /* "<hex N>\r\n", built once at init */
    size_t full_hdr_len;
    char last_hdr[S3_CHUNKED_HDR_MAX]; /* header of a short last chunk */
    char tail[S3_CHUNKED_TAIL_MAX + 1]; /* "0\r\n" trailer "\r\n" */
    char checksum_b64[S3_CHECKSUM_B64_MAX + 1]; /* final trailer value once done, NUL-ended */
};

/*
 * s3_chunked_encoded_len: the exact encoded length (the Content-Length to send) of a payload
 * of `payload_len` bytes in chunks of `chunk_len` (1..S3_CHUNKED_CHUNK_MAX) with `alg`'s
 * trailer. Cannot fail for valid arguments; returns 0 for an invalid chunk_len or alg.
 */
uint64_t s3_chunked_encoded_len(uint64_t payload_len, size_t chunk_len, enum s3_checksum_alg alg);

/*
 * s3_chunked_trailer_name: "x-amz-checksum-<alg>" (static text; "" for S3_CHECKSUM_NONE), the
 * value of the x-amz-trailer header.
 */
const char *s3_chunked_trailer_name(enum s3_checksum_alg alg);

/*
 * s3_chunked_enc_init: prepares `enc` (caller-owned, must not move afterwards) to encode
 * exactly `payload_len` bytes in chunks of `chunk_len` bytes with `alg`'s trailer.
 * Returns TERSE_OK; TERSE_EINVAL for chunk_len 0 or above S3_CHUNKED_CHUNK_MAX or an unknown
 * alg; TERSE_ENOMEM (sha1/sha256 digest context). Allocates only for sha1/sha256 (one
 * OpenSSL context). On error `enc` needs no deinit.
 */
int s3_chunked_enc_init(struct s3_chunked_enc *enc, uint64_t payload_len, size_t chunk_len,
                        enum s3_checksum_alg alg);

/*
 * s3_chunked_enc_reset: starts a new body of `payload_len` bytes with the same chunk size and
 * algorithm, clearing a sticky error. No allocation. Returns TERSE_OK or TERSE_ECRYPTO.
 */
int s3_chunked_enc_reset(struct s3_chunked_enc *enc, uint64_t payload_len);

/* s3_chunked_enc_deinit: releases init's context; safe to repeat. */
void s3_chunked_enc_deinit(struct s3_chunked_enc *enc);

/*
 * s3_chunked_enc_encode: consumes up to `src_len` payload bytes from `src` (borrowed; may be
 * NULL when src_len is 0) and writes encoded bytes to `dst` (room `dst_cap`). Reports the
 * bytes consumed in `*src_used` and written in `*dst_len`. It never consumes more than the
 * declared payload_len in total; any further input is left unconsumed.
 * Returns TERSE_OK when the whole body, tail included, has been written; TERSE_MORE when it
 * needs more input or more room (call again); TERSE_ECRYPTO (sticky) if the checksum fails.
 * Any dst_cap works, even 1. No allocation.
 */
int s3_chunked_enc_encode(struct s3_chunked_enc *enc, const uint8_t *src, size_t src_len,
                          size_t *src_used, uint8_t *dst, size_t dst_cap, size_t *dst_len);

/* ---- strict decoder ------------------------------------------------------------------- */

enum s3_chunked_dstate {
    S3_CHUNKED_D_SIZE,     /* hex digits of a chunk size */
    S3_CHUNKED_D_EXT,      /* ";..." extension up to CR */
    S3_CHUNKED_D_SIZE_LF,  /* LF after the size line */
    S3_CHUNKED_D_DATA,     /* chunk payload */
    S3_CHUNKED_D_DATA_CR,  /* CR after the payload */
    S3_CHUNKED_D_DATA_LF,  /* LF after the payload */
    S3_CHUNKED_D_TRAILER,  /* a trailer line, or the empty line that ends the body */
    S3_CHUNKED_D_TRAILER_LF,
    S3_CHUNKED_D_DONE
};

#define S3_CHUNKED_LINE_MAX 128 /* longest trailer line or extension accepted, bytes */

struct s3_chunked_dec {
    enum s3_checksum_alg alg;    /* expected trailer; NONE means no trailer allowed */
    uint64_t expect_len;         /* declared decoded length; UINT64_MAX: not checked */
    size_t min_chunk;            /* smallest non-final chunk accepted (0: no rule) */
    enum s3_chunked_dstate state;
    int status;                  /* sticky: TERSE_OK or the first error */
    const char *why;             /* static text describing the first error, NULL if none */
    uint64_t n_out;              /* payload bytes decoded so far */
    uint64_t offset;             /* encoded bytes consumed so far */
    size_t first_chunk;          /* size of the first chunk, 0 before it */
    size_t n_chunks;             /* data chunks seen */
    int short_seen;              /* a chunk shorter than first_chunk was seen */
    uint64_t cur_size;           /* size being parsed / payload left in the current chunk */
    size_t n_digits;             /* hex digits in the size being parsed */
    size_t ext_len;              /* bytes of the current extension */
    int trailer_seen;            /* the expected trailer line was seen */
    size_t line_len;             /* bytes in line */
    char line[S3_CHUNKED_LINE_MAX + 1];
    struct s3_checksum ck;
};

/*
 * s3_chunked_dec_init: prepares `dec` to read one body. `alg` is the trailer to expect
 * (S3_CHECKSUM_NONE: none), `expect_len` the declared decoded length (UINT64_MAX to skip the
 * check), `min_chunk` the smallest non-final chunk (0 to skip). Returns TERSE_OK,
 * TERSE_EINVAL (alg) or TERSE_ENOMEM (sha1/sha256 context). On error needs no deinit.
 */
int s3_chunked_dec_init(struct s3_chunked_dec *dec, enum s3_checksum_alg alg, uint64_t expect_len,
                        size_t min_chunk);

/* s3_chunked_dec_deinit: releases init's context; safe to repeat. */
void s3_chunked_dec_deinit(struct s3_chunked_dec *dec);

/*
 * s3_chunked_dec_decode: reads up to `src_len` encoded bytes (borrowed) and writes payload to
 * `dst` (room `dst_cap`); `*src_used` and `*dst_len` say how much. Bytes after the end of
 * the body are left unconsumed.
 * Returns TERSE_OK at the end of a valid body; TERSE_MORE for more input or room; sticky
 * errors: TERSE_EPROTO (bad framing, sizes, extension or trailer syntax, unequal chunks,
 * chunk under min_chunk: *_ETOOBIG for a size above S3_CHUNKED_CHUNK_MAX), TERSE_ELENGTH
 * (decoded length differs from expect_len), TERSE_ECORRUPT (trailer value differs from the
 * checksum of the decoded bytes), TERSE_ECRYPTO. `dec->offset` locates an error.
 */
int s3_chunked_dec_decode(struct s3_chunked_dec *dec, const uint8_t *src, size_t src_len,
                          size_t *src_used, uint8_t *dst, size_t dst_cap, size_t *dst_len);

#endif /* S3_CHUNKED_H */
