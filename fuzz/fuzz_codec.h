/*
 * fuzz_codec: what the value codec's fuzz targets (codec_value_decode, codec_zstd_roundtrip)
 * share: the abort-on-failure check and the codec context they reuse across calls.
 *
 * A header of static functions rather than a .c: every fuzz/<name>.c but fuzz_replay.c is a
 * target of its own, and each target is built from its one .c, for libFuzzer and for replay.
 */
#ifndef TERSE_FUZZ_CODEC_H
#define TERSE_FUZZ_CODEC_H

#include "codec/codec_value.h"

#include "terse/status.h"

#include <stdlib.h>

static inline void
check(int cond)
{
    if (!cond) {
        abort();
    }
}

/* The context, created at the first call and reused by every later one, as a shard does. It
 * holds a raw-content zstd dictionary (no zstd magic: digested as plain history) under id 1,
 * so ZSTD values naming id 1 reach zstd. Its pointer is the one static of a target: libFuzzer
 * gives no other place to keep state between calls. */
static inline struct codec_ctx *
fuzz_codec_ctx(void)
{
    static const char dict[] =
        "{\"id\":1,\"login\":\"user\",\"email\":\"user@example.org\",\"role\":\"admin\","
        "\"lang\":\"en-GB\",\"created_at\":\"2024-01-01T10:00:00Z\",\"settings\":{\"theme\":"
        "\"dark\",\"notifications\":true,\"page_size\":25},\"tags\":[\"a\",\"b\"]}";
    static struct codec_ctx *ctx;

    if (ctx == NULL) {
        check(codec_ctx_create(&ctx, NULL) == TERSE_OK);
        check(codec_ctx_dict_add(ctx, 1, dict, sizeof(dict) - 1, 0) == TERSE_OK);
    }
    return ctx;
}

#endif
