/*
 * fuzz target s3_chunked_decode: hostile bytes through the strict aws-chunked decoder, and
 * the encoder/decoder round trip.
 *
 * Input: byte 0 picks the expected trailer algorithm, byte 1 the piece size for the split run,
 * the rest is the body. Properties: no crash, nothing written past dst_cap (dst is a heap block
 * of exactly the room offered), the same status and the same decoded bytes whole and split
 * into pieces (with a 1-byte output window for the split run), a sticky error. Round trip:
 * the body bytes, used as a payload, encode (chunk size from byte 1) and decode back to
 * themselves with the same trailer. Contexts are reused across calls as the uploader does.
 */
#include "s3/s3_chunked.h"
#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OUT_CAP 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(int cond)
{
    if (!cond) {
        abort();
    }
}

/* Decodes body in pieces of `piece` bytes with an output window of `window`. */
static int
decode(enum s3_checksum_alg alg, const uint8_t *body, size_t len, size_t piece, size_t window,
       uint8_t *out, size_t *out_len, size_t *consumed)
{
    struct s3_chunked_dec dec;
    size_t in = 0;
    size_t got = 0;
    int rc;

    check(s3_chunked_dec_init(&dec, alg, UINT64_MAX, 0) == TERSE_OK);
    for (;;) {
        size_t used = 0;
        size_t wrote = 0;
        size_t n = len - in < piece ? len - in : piece;
        size_t room = OUT_CAP - got < window ? OUT_CAP - got : window;

        rc = s3_chunked_dec_decode(&dec, body + in, n, &used, out + got, room, &wrote);
        check(used <= n && wrote <= room);
        in += used;
        got += wrote;
        if (rc != TERSE_MORE || (used == 0 && wrote == 0 && (in == len || got == OUT_CAP))) {
            break;
        }
    }
    if (rc < 0) {
        size_t used = 0;
        size_t wrote = 0;
        check(s3_chunked_dec_decode(&dec, body, len, &used, out, 0, &wrote) == rc);
        check(used == 0 && wrote == 0);
    }
    s3_chunked_dec_deinit(&dec);
    *out_len = got;
    *consumed = in;
    return rc;
}

static void
round_trip(enum s3_checksum_alg alg, const uint8_t *payload, size_t len, size_t chunk)
{
    uint64_t enc_len = s3_chunked_encoded_len(len, chunk, alg);
    uint8_t *body = malloc((size_t)enc_len);
    uint8_t *out = malloc(OUT_CAP);
    struct s3_chunked_enc enc;
    size_t used = 0;
    size_t body_len = 0;
    size_t out_len = 0;
    size_t consumed = 0;

    check(body != NULL && out != NULL);
    check(s3_chunked_enc_init(&enc, len, chunk, alg) == TERSE_OK);
    check(s3_chunked_enc_encode(&enc, payload, len, &used, body, (size_t)enc_len, &body_len) ==
          TERSE_OK);
    check(used == len && body_len == enc_len);
    s3_chunked_enc_deinit(&enc);
    check(decode(alg, body, body_len, body_len, OUT_CAP, out, &out_len, &consumed) == TERSE_OK);
    check(out_len == len && consumed == body_len && memcmp(out, payload, len) == 0);
    free(body);
    free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *a;
    uint8_t *b;
    size_t a_len = 0;
    size_t b_len = 0;
    size_t a_in = 0;
    size_t b_in = 0;

    if (size < 2 || size - 2 > OUT_CAP) {
        return 0;
    }
    enum s3_checksum_alg alg = (enum s3_checksum_alg)(data[0] % 6);
    size_t piece = (size_t)data[1] % 17 + 1;
    const uint8_t *body = data + 2;
    size_t len = size - 2;

    a = malloc(OUT_CAP);
    b = malloc(OUT_CAP);
    check(a != NULL && b != NULL);
    int rc_a = decode(alg, body, len, len, OUT_CAP, a, &a_len, &a_in);
    int rc_b = decode(alg, body, len, piece, 1, b, &b_len, &b_in);
    check(rc_a == rc_b);
    check(a_len == b_len && memcmp(a, b, a_len) == 0);
    if (rc_a == TERSE_OK) {
        check(a_in == b_in);
    }
    free(a);
    free(b);
    round_trip(alg, body, len, (size_t)data[1] + 1);
    return 0;
}
