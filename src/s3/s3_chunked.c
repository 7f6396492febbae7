/*
 * s3_chunked: aws-chunked encoder and strict decoder (layout in s3_chunked.h).
 *
 * Encoder invariants: n_in <= payload_len; in S3_CHUNKED_DATA, chunk_left > 0 bytes of the
 * current chunk are still due; framing (headers, the CRLF after data, the tail) is emitted
 * from `pend` before anything else, so a call may stop at any byte and resume exactly there.
 */
#include "s3/s3_chunked.h"

#include "terse/status.h"

#include <stdio.h>
#include <string.h>

static const char crlf[] = "\r\n";
static const char trailer_sig[] = "x-amz-trailer-signature";

static const char *const trailer_names[] = {
    [S3_CHECKSUM_NONE] = "",
    [S3_CHECKSUM_CRC32] = "x-amz-checksum-crc32",
    [S3_CHECKSUM_CRC32C] = "x-amz-checksum-crc32c",
    [S3_CHECKSUM_CRC64NVME] = "x-amz-checksum-crc64nvme",
    [S3_CHECKSUM_SHA1] = "x-amz-checksum-sha1",
    [S3_CHECKSUM_SHA256] = "x-amz-checksum-sha256",
};

#define N_TRAILERS (sizeof(trailer_names) / sizeof(trailer_names[0]))

const char *
s3_chunked_trailer_name(enum s3_checksum_alg alg)
{
    return (unsigned)alg < N_TRAILERS ? trailer_names[alg] : "";
}

static size_t
hex_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 16) {
        v >>= 4;
        n++;
    }
    return n;
}

uint64_t
s3_chunked_encoded_len(uint64_t payload_len, size_t chunk_len, enum s3_checksum_alg alg)
{
    if (chunk_len == 0 || chunk_len > S3_CHUNKED_CHUNK_MAX || (unsigned)alg >= N_TRAILERS) {
        return 0;
    }
    uint64_t q = payload_len / chunk_len;
    uint64_t r = payload_len % chunk_len;
    uint64_t len = q * (hex_len(chunk_len) + 2 + chunk_len + 2);

    if (r > 0) {
        len += hex_len(r) + 2 + r + 2;
    }
    len += 3;
    if (alg != S3_CHECKSUM_NONE) {
        len += strlen(trailer_names[alg]) + 1 + s3_checksum_b64_len(alg) + 2;
    }
    return len + 2;
}

int
s3_chunked_enc_init(struct s3_chunked_enc *enc, uint64_t payload_len, size_t chunk_len,
                    enum s3_checksum_alg alg)
{
    memset(enc, 0, sizeof(*enc));
    if (chunk_len == 0 || chunk_len > S3_CHUNKED_CHUNK_MAX || (unsigned)alg >= N_TRAILERS) {
        return TERSE_EINVAL;
    }
    int rc = s3_checksum_init(&enc->ck, alg);
    if (rc != TERSE_OK) {
        return rc;
    }
    enc->chunk_len = chunk_len;
    enc->full_hdr_len = (size_t)snprintf(enc->full_hdr, sizeof(enc->full_hdr), "%zx\r\n",
                                         chunk_len);
    rc = s3_chunked_enc_reset(enc, payload_len);
    if (rc != TERSE_OK) {
        s3_chunked_enc_deinit(enc);
    }
    return rc;
}

int
s3_chunked_enc_reset(struct s3_chunked_enc *enc, uint64_t payload_len)
{
    enc->payload_len = payload_len;
    enc->n_in = 0;
    enc->chunk_left = 0;
    enc->phase = S3_CHUNKED_START;
    enc->pend = NULL;
    enc->pend_len = 0;
    enc->pend_off = 0;
    enc->checksum_b64[0] = '\0';
    enc->status = s3_checksum_reset(&enc->ck);
    return enc->status;
}

void
s3_chunked_enc_deinit(struct s3_chunked_enc *enc)
{
    s3_checksum_deinit(&enc->ck);
}

static void
enc_pend(struct s3_chunked_enc *enc, const char *p, size_t len)
{
    enc->pend = p;
    enc->pend_len = len;
    enc->pend_off = 0;
}

/* Builds "0\r\n", the trailer line and the closing "\r\n" into enc->tail. */
static int
enc_tail(struct s3_chunked_enc *enc)
{
    size_t len = 0;
    enum s3_checksum_alg alg = enc->ck.alg;

    memcpy(enc->tail, "0\r\n", 3);
    len = 3;
    if (alg != S3_CHECKSUM_NONE) {
        size_t b64_len = 0;
        size_t name_len = strlen(trailer_names[alg]);
        int rc = s3_checksum_final_b64(&enc->ck, enc->checksum_b64, sizeof(enc->checksum_b64),
                                       &b64_len);
        if (rc != TERSE_OK) {
            return rc;
        }
        memcpy(enc->tail + len, trailer_names[alg], name_len);
        len += name_len;
        enc->tail[len++] = ':';
        memcpy(enc->tail + len, enc->checksum_b64, b64_len);
        len += b64_len;
        memcpy(enc->tail + len, crlf, 2);
        len += 2;
    }
    memcpy(enc->tail + len, crlf, 2);
    len += 2;
    enc_pend(enc, enc->tail, len);
    return TERSE_OK;
}

int
s3_chunked_enc_encode(struct s3_chunked_enc *enc, const uint8_t *src, size_t src_len,
                      size_t *src_used, uint8_t *dst, size_t dst_cap, size_t *dst_len)
{
    size_t in = 0;
    size_t out = 0;

    *src_used = 0;
    *dst_len = 0;
    if (enc->status != TERSE_OK) {
        return enc->status;
    }
    for (;;) {
        if (enc->pend_off < enc->pend_len) {
            size_t n = enc->pend_len - enc->pend_off;
            if (n > dst_cap - out) {
                n = dst_cap - out;
            }
            memcpy(dst + out, enc->pend + enc->pend_off, n);
            out += n;
            enc->pend_off += n;
            if (enc->pend_off < enc->pend_len) {
                break; /* out of room */
            }
        }
        if (enc->phase == S3_CHUNKED_DONE) {
            *src_used = in;
            *dst_len = out;
            return TERSE_OK;
        }
        if (enc->phase == S3_CHUNKED_START) {
            uint64_t left = enc->payload_len - enc->n_in;
            if (left == 0) {
                int rc = enc_tail(enc);
                if (rc != TERSE_OK) {
                    enc->status = rc;
                    return rc;
                }
                enc->phase = S3_CHUNKED_DONE;
            } else if (left >= enc->chunk_len) {
                enc->chunk_left = enc->chunk_len;
                enc_pend(enc, enc->full_hdr, enc->full_hdr_len);
                enc->phase = S3_CHUNKED_DATA;
            } else {
                int n = snprintf(enc->last_hdr, sizeof(enc->last_hdr), "%zx\r\n", (size_t)left);
                enc->chunk_left = (size_t)left;
                enc_pend(enc, enc->last_hdr, (size_t)n);
                enc->phase = S3_CHUNKED_DATA;
            }
            continue;
        }
        /* S3_CHUNKED_DATA */
        size_t n = enc->chunk_left;
        if (n > src_len - in) {
            n = src_len - in;
        }
        if (n > dst_cap - out) {
            n = dst_cap - out;
        }
        if (n == 0) {
            break; /* out of input or room */
        }
        int rc = s3_checksum_update(&enc->ck, src + in, n);
        if (rc != TERSE_OK) {
            enc->status = rc;
            return rc;
        }
        memcpy(dst + out, src + in, n);
        in += n;
        out += n;
        enc->n_in += n;
        enc->chunk_left -= n;
        if (enc->chunk_left == 0) {
            enc_pend(enc, crlf, 2);
            enc->phase = S3_CHUNKED_START;
        }
    }
    *src_used = in;
    *dst_len = out;
    return TERSE_MORE;
}

/* ---- strict decoder --------------------------------------------------------------------- */

int
s3_chunked_dec_init(struct s3_chunked_dec *dec, enum s3_checksum_alg alg, uint64_t expect_len,
                    size_t min_chunk)
{
    memset(dec, 0, sizeof(*dec));
    if ((unsigned)alg >= N_TRAILERS) {
        return TERSE_EINVAL;
    }
    dec->alg = alg;
    dec->expect_len = expect_len;
    dec->min_chunk = min_chunk;
    dec->state = S3_CHUNKED_D_SIZE;
    return s3_checksum_init(&dec->ck, alg);
}

void
s3_chunked_dec_deinit(struct s3_chunked_dec *dec)
{
    s3_checksum_deinit(&dec->ck);
}

static int
dec_fail(struct s3_chunked_dec *dec, int status, const char *why)
{
    dec->status = status;
    dec->why = why;
    return status;
}

static int
hex_val(uint8_t c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* A size line ended: check the size against the chunk rules and pick the next state. */
static int
dec_size_done(struct s3_chunked_dec *dec)
{
    uint64_t size = dec->cur_size;

    if (dec->n_digits == 0) {
        return dec_fail(dec, TERSE_EPROTO, "empty chunk size");
    }
    if (size == 0) {
        if (dec->expect_len != UINT64_MAX && dec->n_out != dec->expect_len) {
            return dec_fail(dec, TERSE_ELENGTH, "decoded length differs from the declared one");
        }
        dec->state = S3_CHUNKED_D_TRAILER;
        dec->line_len = 0;
        return TERSE_OK;
    }
    if (dec->short_seen) {
        return dec_fail(dec, TERSE_EPROTO, "chunk after a short chunk");
    }
    if (dec->first_chunk == 0) {
        dec->first_chunk = (size_t)size;
    } else if (size > dec->first_chunk) {
        return dec_fail(dec, TERSE_EPROTO, "chunk larger than the first one");
    } else if (size < dec->first_chunk) {
        dec->short_seen = 1;
    }
    if (dec->n_chunks > 0 && dec->min_chunk > 0 && dec->first_chunk < dec->min_chunk) {
        return dec_fail(dec, TERSE_EPROTO, "non-final chunk smaller than the minimum");
    }
    if (dec->expect_len != UINT64_MAX && size > dec->expect_len - dec->n_out) {
        return dec_fail(dec, TERSE_ELENGTH, "more data than the declared decoded length");
    }
    dec->n_chunks++;
    dec->state = S3_CHUNKED_D_DATA;
    return TERSE_OK;
}

/* A trailer line "name:value" (optional whitespace around the value) ended. */
static int
dec_trailer_line(struct s3_chunked_dec *dec)
{
    char *colon = memchr(dec->line, ':', dec->line_len);
    const char *want = trailer_names[dec->alg];
    char b64[S3_CHECKSUM_B64_MAX + 1];
    size_t b64_len = 0;

    if (colon == NULL) {
        return dec_fail(dec, TERSE_EPROTO, "trailer line without a colon");
    }
    size_t name_len = (size_t)(colon - dec->line);
    const char *v = colon + 1;
    const char *end = dec->line + dec->line_len;
    while (v < end && (*v == ' ' || *v == '\t')) {
        v++;
    }
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) {
        end--;
    }
    if (name_len == strlen(trailer_sig) && strncmp(dec->line, trailer_sig, name_len) == 0) {
        return TERSE_OK; /* signed-trailer mode: the signature is not verified here */
    }
    if (dec->alg == S3_CHECKSUM_NONE || name_len != strlen(want) ||
        strncmp(dec->line, want, name_len) != 0) {
        return dec_fail(dec, TERSE_EPROTO, "unexpected trailer");
    }
    if (dec->trailer_seen) {
        return dec_fail(dec, TERSE_EPROTO, "trailer repeated");
    }
    dec->trailer_seen = 1;
    int rc = s3_checksum_final_b64(&dec->ck, b64, sizeof(b64), &b64_len);
    if (rc != TERSE_OK) {
        return dec_fail(dec, rc, "checksum failed");
    }
    if ((size_t)(end - v) != b64_len || memcmp(v, b64, b64_len) != 0) {
        return dec_fail(dec, TERSE_ECORRUPT, "trailer checksum does not match the data");
    }
    return TERSE_OK;
}

/* One framing byte (any state but DATA). */
static int
dec_byte(struct s3_chunked_dec *dec, uint8_t c)
{
    int v;

    switch (dec->state) {
    case S3_CHUNKED_D_SIZE:
        v = hex_val(c);
        if (v >= 0) {
            if (dec->n_digits > 0 && dec->cur_size == 0) {
                return dec_fail(dec, TERSE_EPROTO, "leading zero in chunk size");
            }
            dec->cur_size = dec->cur_size * 16 + (uint64_t)v;
            dec->n_digits++;
            if (dec->cur_size > S3_CHUNKED_CHUNK_MAX) {
                return dec_fail(dec, TERSE_ETOOBIG, "chunk size above the limit");
            }
            return TERSE_OK;
        }
        if (c == ';') {
            dec->state = S3_CHUNKED_D_EXT;
            dec->ext_len = 0;
            return dec->n_digits == 0 ? dec_fail(dec, TERSE_EPROTO, "empty chunk size")
                                      : TERSE_OK;
        }
        if (c == '\r') {
            dec->state = S3_CHUNKED_D_SIZE_LF;
            return TERSE_OK;
        }
        return dec_fail(dec, TERSE_EPROTO, "bad character in chunk size");
    case S3_CHUNKED_D_EXT:
        if (c == '\r') {
            dec->state = S3_CHUNKED_D_SIZE_LF;
            return TERSE_OK;
        }
        if (c < 0x20 || c > 0x7e || ++dec->ext_len > S3_CHUNKED_LINE_MAX) {
            return dec_fail(dec, TERSE_EPROTO, "bad chunk extension");
        }
        return TERSE_OK;
    case S3_CHUNKED_D_SIZE_LF:
        if (c != '\n') {
            return dec_fail(dec, TERSE_EPROTO, "CR without LF after chunk size");
        }
        return dec_size_done(dec);
    case S3_CHUNKED_D_DATA_CR:
        if (c != '\r') {
            return dec_fail(dec, TERSE_EPROTO, "chunk data longer than its size");
        }
        dec->state = S3_CHUNKED_D_DATA_LF;
        return TERSE_OK;
    case S3_CHUNKED_D_DATA_LF:
        if (c != '\n') {
            return dec_fail(dec, TERSE_EPROTO, "CR without LF after chunk data");
        }
        dec->state = S3_CHUNKED_D_SIZE;
        dec->cur_size = 0;
        dec->n_digits = 0;
        return TERSE_OK;
    case S3_CHUNKED_D_TRAILER:
        if (c == '\r') {
            dec->state = S3_CHUNKED_D_TRAILER_LF;
            return TERSE_OK;
        }
        if (c < 0x20 || c > 0x7e || dec->line_len >= S3_CHUNKED_LINE_MAX) {
            return dec_fail(dec, TERSE_EPROTO, "bad trailer line");
        }
        dec->line[dec->line_len++] = (char)c;
        return TERSE_OK;
    case S3_CHUNKED_D_TRAILER_LF:
        if (c != '\n') {
            return dec_fail(dec, TERSE_EPROTO, "CR without LF in trailer");
        }
        if (dec->line_len == 0) {
            if (dec->alg != S3_CHECKSUM_NONE && !dec->trailer_seen) {
                return dec_fail(dec, TERSE_EPROTO, "missing trailer");
            }
            dec->state = S3_CHUNKED_D_DONE;
            return TERSE_OK;
        }
        {
            int rc = dec_trailer_line(dec);
            dec->line_len = 0;
            dec->state = S3_CHUNKED_D_TRAILER;
            return rc;
        }
    case S3_CHUNKED_D_DATA:
    case S3_CHUNKED_D_DONE:
        break;
    }
    return dec_fail(dec, TERSE_EPROTO, "internal state");
}

int
s3_chunked_dec_decode(struct s3_chunked_dec *dec, const uint8_t *src, size_t src_len,
                      size_t *src_used, uint8_t *dst, size_t dst_cap, size_t *dst_len)
{
    size_t in = 0;
    size_t out = 0;
    int rc = TERSE_MORE;

    if (dec->status != TERSE_OK) {
        *src_used = 0;
        *dst_len = 0;
        return dec->status;
    }
    while (dec->state != S3_CHUNKED_D_DONE) {
        if (dec->state == S3_CHUNKED_D_DATA) {
            size_t n = dec->cur_size < src_len - in ? (size_t)dec->cur_size : src_len - in;
            if (n > dst_cap - out) {
                n = dst_cap - out;
            }
            if (n == 0) {
                break;
            }
            rc = s3_checksum_update(&dec->ck, src + in, n);
            if (rc != TERSE_OK) {
                rc = dec_fail(dec, rc, "checksum failed");
                break;
            }
            memcpy(dst + out, src + in, n);
            in += n;
            out += n;
            dec->n_out += n;
            dec->cur_size -= n;
            if (dec->cur_size == 0) {
                dec->state = S3_CHUNKED_D_DATA_CR;
            }
            rc = TERSE_MORE;
            continue;
        }
        if (in == src_len) {
            break;
        }
        rc = dec_byte(dec, src[in]);
        in++;
        if (rc != TERSE_OK) {
            break;
        }
        rc = TERSE_MORE;
    }
    dec->offset += in;
    *src_used = in;
    *dst_len = out;
    if (dec->status != TERSE_OK) {
        return dec->status;
    }
    return dec->state == S3_CHUNKED_D_DONE ? TERSE_OK : TERSE_MORE;
}
