/*
 * fuzz target envelope_roundtrip: retrieve(store(x)) == x for arbitrary x, through a terse_ctx
 * created once and reused (as a long-lived caller would), and through the ctx-less API.
 *
 * The first input byte picks the destination room (full bound, or fewer bytes: then store must
 * say TERSE_EDSTSIZE or succeed, never write past the room) and whether a custom format is
 * used. The ctx is the one static of the target: libFuzzer gives no other place to keep it.
 */
#include "terse/terse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static terse_ctx *fuzz_ctx;

static void
check(int cond)
{
    if (!cond) {
        abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *fmt = NULL;
    size_t bound, room, env_len = 0, out_len = 0;
    uint8_t ctl, *env, *out;
    char got_fmt[TERSE_ENVELOPE_FORMAT_MAX + 1];
    int rc;

    if (fuzz_ctx == NULL && terse_ctx_create(&fuzz_ctx, NULL) != TERSE_OK) {
        return 0;
    }
    if (size == 0) {
        return 0;
    }
    ctl = data[0];
    data++;
    size--;
    if (ctl & 0x80) {
        fmt = "orjson";
    }
    bound = terse_envelope_bound(size);
    room = (ctl & 0x40) ? bound - (size_t)(ctl & 0x3f) * (bound / 64 + 1) % bound : bound;
    env = malloc(room > 0 ? room : 1);
    out = malloc(size + 1);
    check(env != NULL && out != NULL);
    rc = (ctl & 0x20) ? terse_envelope_store(data, size, fmt, env, room, &env_len)
                      : terse_envelope_store_ctx(fuzz_ctx, data, size, fmt, env, room, &env_len);
    check(rc == TERSE_OK || (rc == TERSE_EDSTSIZE && room < bound));
    if (rc == TERSE_OK) {
        check(env_len <= room);
        check(terse_envelope_retrieve_ctx(fuzz_ctx, env, env_len, out, size, &out_len, got_fmt,
                                          sizeof(got_fmt)) == TERSE_OK);
        check(out_len == size && (size == 0 || memcmp(out, data, size) == 0));
        check(strcmp(got_fmt, fmt != NULL ? fmt : "msgpack") == 0);
    }
    free(env);
    free(out);
    return 0;
}
