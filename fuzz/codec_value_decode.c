/*
 * fuzz target codec_value_decode: hostile stored bytes through the server's value decoder.
 *
 * The input is taken as a stored value. Properties checked on every input:
 *   - decode never crashes, never reads past the input, never writes past dst_cap (dst is a heap
 *     block of exactly the claimed size, so ASan sees any over-write);
 *   - a failed decode is TERSE_ECORRUPT and leaves no decoded byte behind (or TERSE_ENOTFOUND,
 *     nothing written, for a ZSTD value naming a dictionary the context does not hold);
 *   - a successful decode re-encodes and decodes to the same bytes; one byte short is
 *     TERSE_EDSTSIZE;
 *   - the input used as an original value round-trips, and codec_value_corrupt on its stored
 *     form makes the decode fail.
 *
 * The codec context is created once and reused across calls, as a shard does, and holds one
 * raw-content zstd dictionary under id 1, so ZSTD values naming id 1 reach zstd's decoder
 * (fuzz_codec_ctx in fuzz_codec.h, shared with codec_zstd_roundtrip).
 */
#include "codec/codec_value.h"

#include "terse/status.h"

#include "fuzz_codec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A claimed original length above this is only parsed, not decoded, to keep runs fast. */
#define FUZZ_DECODE_MAX ((size_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_decode(struct codec_ctx *c, const uint8_t *data, size_t size)
{
    struct codec_value_info info;
    size_t out_len = 0, st_len = 0;
    uint8_t *out, *st;
    int rc;

    if (codec_value_info(data, size, &info) != TERSE_OK) {
        check(codec_value_decode(c, data, size, NULL, 0, &out_len) == TERSE_ECORRUPT);
        return;
    }
    if (info.orig_len > FUZZ_DECODE_MAX) {
        return;
    }
    out = malloc(info.orig_len + 1);
    check(out != NULL);
    if (info.orig_len > 0) {
        check(codec_value_decode(c, data, size, out, info.orig_len - 1, &out_len) ==
              TERSE_EDSTSIZE);
    }
    rc = codec_value_decode(c, data, size, out, info.orig_len, &out_len);
    if (rc == TERSE_ENOTFOUND) {
        check(info.kind == CODEC_ZSTD && info.dict_id != 1);
        free(out);
        return;
    }
    if (rc != TERSE_OK) {
        check(rc == TERSE_ECORRUPT);
        for (size_t i = 0; i < info.orig_len; i++) {
            check(out[i] == 0);
        }
        free(out);
        return;
    }
    check(out_len == info.orig_len);
    st = malloc(codec_value_bound(out_len));
    check(st != NULL);
    check(codec_value_encode(c, out, out_len, st, codec_value_bound(out_len), &st_len) ==
          TERSE_OK);
    check(codec_value_decode(c, st, st_len, out, out_len, &out_len) == TERSE_OK);
    free(st);
    free(out);
}

static void
fuzz_round_trip(struct codec_ctx *c, const uint8_t *data, size_t size)
{
    size_t cap = codec_value_bound(size), st_len = 0, out_len = 0;
    uint8_t *st = malloc(cap), *out = malloc(size + 1);

    check(st != NULL && out != NULL);
    check(codec_value_encode(c, data, size, st, cap, &st_len) == TERSE_OK);
    check(st_len <= cap);
    check(codec_value_decode(c, st, st_len, out, size, &out_len) == TERSE_OK);
    check(out_len == size && (size == 0 || memcmp(out, data, size) == 0));
    codec_value_corrupt(st, st_len);
    check(codec_value_decode(c, st, st_len, out, size, &out_len) == TERSE_ECORRUPT);
    free(st);
    free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct codec_ctx *c = fuzz_codec_ctx();

    fuzz_decode(c, data, size);
    fuzz_round_trip(c, data, size);
    return 0;
}
