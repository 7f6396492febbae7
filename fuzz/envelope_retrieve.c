/*
 * fuzz target envelope_retrieve: hostile bytes through terse_envelope_size and
 * terse_envelope_retrieve.
 *
 * Properties: no crash, no read past the input, no write past dst_cap (dst is a heap block of
 * exactly original_size bytes, so ASan sees an over-write); size and retrieve agree on the
 * status of everything they both check; a retrieved value re-stores and retrieves to the same
 * bytes; a failed retrieve leaves the decoded bytes wiped; the fixed-shape walk and the
 * general pre-scan + typed decode give the same status and the same view. Stateless API:
 * nothing to reuse.
 */
#include "terse/terse.h"

#include "codec/codec_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SIZE_MAX ((uint64_t)8 << 20) /* larger claims are only size-checked */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(int cond)
{
    if (!cond) {
        abort();
    }
}

static void
restore_check(const uint8_t *val, size_t n, const char *fmt)
{
    size_t cap = terse_envelope_bound(n), env_len = 0, out_len = 0;
    uint8_t *env = malloc(cap), *out = malloc(n + 1);

    check(env != NULL && out != NULL);
    if (strlen(fmt) <= TERSE_ENVELOPE_FORMAT_MAX) {
        check(terse_envelope_store(val, n, fmt, env, cap, &env_len) == TERSE_OK);
        check(terse_envelope_retrieve(env, env_len, out, n, &out_len, NULL, 0) == TERSE_OK);
        check(out_len == n && (n == 0 || memcmp(out, val, n) == 0));
    }
    free(env);
    free(out);
}

static void
walks_agree(const uint8_t *data, size_t size)
{
    struct codec_env_view a, b;
    int ra = codec_envelope_parse(data, size, &a, 0);
    int rb = codec_envelope_parse(data, size, &b, CODEC_ENV_GENERAL);

    check(ra == rb);
    if (ra == TERSE_OK) {
        check(a.block == b.block && a.block_len == b.block_len && a.legacy == b.legacy &&
              a.checksum == b.checksum && a.orig_len == b.orig_len && a.format == b.format &&
              a.format_len == b.format_len);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t orig = 0;
    size_t out_len = 0;
    char fmt[TERSE_ENVELOPE_FORMAT_MAX + 1];
    uint8_t *out;
    int rc, rc2;

    walks_agree(data, size);
    rc = terse_envelope_size(data, size, &orig);
    rc2 = terse_envelope_retrieve(data, size, NULL, 0, &out_len, NULL, 0);
    if (rc != TERSE_OK) {
        check(rc < 0 && rc2 == rc); /* the same checks, the same answer, before any room check */
        return 0;
    }
    check(orig <= TERSE_ENVELOPE_MAX);
    check(orig == 0 ? rc2 != TERSE_EDSTSIZE : rc2 == TERSE_EDSTSIZE);
    if (orig > FUZZ_SIZE_MAX) {
        return 0;
    }
    out = malloc((size_t)orig + 1);
    check(out != NULL);
    rc = terse_envelope_retrieve(data, size, out, (size_t)orig, &out_len, fmt, sizeof(fmt));
    if (rc == TERSE_OK) {
        check(out_len == orig);
        restore_check(out, out_len, fmt);
    } else {
        check(rc == TERSE_ECORRUPT || rc == TERSE_ELENGTH || rc == TERSE_EDSTSIZE);
        for (size_t i = 0; rc != TERSE_EDSTSIZE && i < orig; i++) {
            check(out[i] == 0);
        }
    }
    free(out);
    return 0;
}
