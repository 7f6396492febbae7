/*
 * fuzz target codec_zstd_roundtrip: the value codec's zstd-with-dictionary kind on arbitrary
 * values, through one codec context created once and reused (as a shard does) holding two
 * dictionaries: a trained-looking raw-content one (id 1) and the input's own first half (id 2,
 * registered per input and removed afterwards, so registration churn is fuzzed too).
 *
 * Properties: decode(encode_dict(x)) == x whatever kind the encoder chose; the stored form
 * never exceeds codec_value_bound; a ZSTD value names the dictionary it was made with and
 * decodes through it only; codec_value_corrupt on the stored form makes the decode fail with
 * TERSE_ECORRUPT and leaves no decoded byte behind; removing the dictionary makes a ZSTD value
 * TERSE_ENOTFOUND, never other data.
 */
#include "codec/codec_value.h"

#include "terse/status.h"

#include "fuzz_codec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
round_trip(struct codec_ctx *c, uint32_t id, const uint8_t *data, size_t size, int removable)
{
    size_t cap = codec_value_bound(size), st_len = 0, out_len = 0;
    uint8_t *st = malloc(cap), *out = malloc(size + 1);
    struct codec_value_info info;

    check(st != NULL && out != NULL);
    check(codec_value_encode_dict(c, id, data, size, st, cap, &st_len) == TERSE_OK);
    check(st_len <= cap && cap <= CODEC_VALUE_BOUND(size));
    check(codec_value_info(st, st_len, &info) == TERSE_OK);
    check(info.kind != CODEC_ZSTD || info.dict_id == id);
    check(codec_value_decode(c, st, st_len, out, size, &out_len) == TERSE_OK);
    check(out_len == size && (size == 0 || memcmp(out, data, size) == 0));
    if (removable && info.kind == CODEC_ZSTD) {
        check(codec_ctx_dict_remove(c, id) == TERSE_OK);
        check(codec_value_decode(c, st, st_len, out, size, &out_len) == TERSE_ENOTFOUND);
    }
    if (!removable) {
        codec_value_corrupt(st, st_len);
        check(codec_value_decode(c, st, st_len, out, size, &out_len) == TERSE_ECORRUPT);
        for (size_t i = 0; i < size; i++) {
            check(out[i] == 0);
        }
    }
    free(st);
    free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct codec_ctx *c = fuzz_codec_ctx();
    size_t half = size / 2;

    round_trip(c, 1, data, size, 0);
    if (half > 0) { /* the first half as a dictionary for the second half */
        check(codec_ctx_dict_add(c, 2, data, half, (int)(data[0] % 9) + 1) == TERSE_OK);
        round_trip(c, 2, data + half, size - half, 0);
        round_trip(c, 2, data + half, size - half, 1);
        (void)codec_ctx_dict_remove(c, 2);
    }
    return 0;
}
