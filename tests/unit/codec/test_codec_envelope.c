/*
 * test_codec_envelope: the cachekit envelope (include/terse/terse.h) against every vector file
 * in $TERSE_SHARED/vectors/cachekit/ (default ../shared), read at test time, plus round trips,
 * room checks and allocation bounds.
 *
 * The vector files are read with the helpers of codec_test_json.h.
 */
#include "terse/terse.h"

#include "codec/codec_internal.h"
#include "codec/codec_msgpack.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_test_json.h"

static void walks_agree(const uint8_t *p, size_t n);

/* Retrieves env and checks it equals want and the format. */
static void
retrieve_expect(const char *name, const struct bytes *env, const struct bytes *want,
                const char *format)
{
    uint8_t *out = malloc(want->len + 1);
    char fmt[64];
    size_t out_len = 0;
    uint64_t size = 0;
    int rc;

    assert_non_null(out);
    walks_agree(env->p, env->len);
    rc = terse_envelope_size(env->p, env->len, &size);
    if (rc != TERSE_OK || size != want->len) {
        fail_msg("%s: size %d %llu", name, rc, (unsigned long long)size);
    }
    rc = terse_envelope_retrieve(env->p, env->len, out, want->len, &out_len, fmt, sizeof(fmt));
    if (rc != TERSE_OK) {
        fail_msg("%s: retrieve %s", name, terse_strerror(rc));
    }
    assert_int_equal(out_len, want->len);
    if (want->len > 0) {
        assert_memory_equal(out, want->p, want->len);
    }
    assert_string_equal(fmt, format);
    if (want->len > 0) { /* one byte short: refused before writing */
        assert_int_equal(terse_envelope_retrieve(env->p, env->len, out, want->len - 1, &out_len,
                                                 NULL, 0),
                         TERSE_EDSTSIZE);
    }
    assert_int_equal(terse_envelope_retrieve(env->p, env->len, out, want->len, &out_len, fmt,
                                             strlen(format)),
                     TERSE_EDSTSIZE);
    free(out);
}

/* Stores input; returns 1 if byte-identical to env. Always checks the result round-trips. */
static int
store_matches(const struct bytes *in, const char *format, const struct bytes *env)
{
    size_t cap = terse_envelope_bound(in->len), len = 0;
    uint8_t *out = malloc(cap), *back = malloc(in->len + 1);
    int same;

    assert_true(out != NULL && back != NULL);
    assert_int_equal(terse_envelope_store(in->p, in->len, format, out, cap, &len), TERSE_OK);
    same = len == env->len && memcmp(out, env->p, len) == 0;
    assert_int_equal(terse_envelope_retrieve(out, len, back, in->len, &cap, NULL, 0), TERSE_OK);
    assert_int_equal(cap, in->len);
    if (in->len > 0) {
        assert_memory_equal(back, in->p, in->len);
    }
    free(out);
    free(back);
    return same;
}

/* ---- wire-format vectors ----------------------------------------------------------------- */

/* Encode divergences allowed by SPEC.md section 3: liblz4 emits another valid block. */
static const char *const known_encode_divergence[] = { "large_compressible_bin" };

static int
is_known_divergence(const char *name)
{
    for (size_t i = 0; i < sizeof(known_encode_divergence) / sizeof(char *); i++) {
        if (strcmp(name, known_encode_divergence[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static void
test_wire_vectors(void **state)
{
    struct json *root = vectors_load("wire-format.json");
    int n = 0, n_bin = 0, n_same = 0;

    (void)state;
    for (struct json *v = json_get(root, "vectors")->child; v != NULL; v = v->next) {
        const char *name = json_str(v, "name"), *enc = json_str(v, "envelope_encoding");
        struct bytes env = hex_bytes(json_str(v, "envelope_hex"));
        struct bytes in = hex_bytes(json_str(v, "input_hex"));

        retrieve_expect(name, &env, &in, json_str(v, "format"));
        if (enc != NULL && strcmp(enc, "bin") == 0) {
            int same = store_matches(&in, json_str(v, "format"), &env);

            n_bin++;
            n_same += same;
            if (!same && !is_known_divergence(name)) {
                fail_msg("%s: store is not byte-identical", name);
            }
            if (same && is_known_divergence(name)) {
                print_message("# %s: now byte-identical, drop it from the list\n", name);
            }
        }
        free(env.p);
        free(in.p);
        n++;
    }
    print_message("# wire vectors: %d retrieved, %d/%d *_bin re-encoded byte for byte\n", n,
                  n_same, n_bin);
    assert_int_equal(n, 18);
    json_free(root);
}

static void
test_constructed_vectors(void **state)
{
    struct json *root = vectors_load("wire-format.json");
    int n = 0;

    (void)state;
    for (struct json *v = json_get(root, "constructed_vectors")->child; v != NULL; v = v->next) {
        struct bytes env = segments_bytes(json_get(v, "envelope_construction"));
        struct bytes in = segments_bytes(json_get(v, "input_construction"));

        assert_int_equal(env.len, json_u64(v, "envelope_size"));
        retrieve_expect(json_str(v, "name"), &env, &in, json_str(v, "format"));
        (void)store_matches(&in, json_str(v, "format"), &env); /* round trip only */
        free(env.p);
        free(in.p);
        n++;
    }
    assert_int_equal(n, 4);
    json_free(root);
}

struct reject_expect {
    const char *name;
    int status;
};

static const struct reject_expect reject_table[] = {
    { "reject_envelope_arity_5", TERSE_EPROTO },
    { "reject_envelope_arity_3", TERSE_EPROTO },
    { "reject_checksum_nine_elements", TERSE_EPROTO },
    { "reject_checksum_seven_elements", TERSE_EPROTO },
    { "reject_legacy_element_above_255", TERSE_EPROTO },
    { "reject_envelope_slots_overclaim", TERSE_EPROTO },
    { "reject_original_size_over_cap", TERSE_ETOOBIG },
    { "reject_original_size_wraps_u32", TERSE_ETOOBIG },
    { "reject_original_size_sign_bit", TERSE_ETOOBIG },
    { "reject_zero_length_compressed_data", TERSE_ERATIO },
    { "reject_ratio_bomb", TERSE_ERATIO },
    { "reject_ratio_float32_rounds", TERSE_ERATIO },
    { "reject_decompressed_length_mismatch", TERSE_ELENGTH },
    { "reject_checksum_mismatch", TERSE_ECORRUPT },
};

static int
reject_status(const char *name)
{
    for (size_t i = 0; i < sizeof(reject_table) / sizeof(reject_table[0]); i++) {
        if (strcmp(reject_table[i].name, name) == 0) {
            return reject_table[i].status;
        }
    }
    fail_msg("reject vector %s has no expected status", name);
    return 0;
}

/* Counting allocator for the allocation-bound checks. */
struct count_alloc {
    size_t n_calls;
    size_t max_size; /* largest request seen */
    size_t n_live;
    size_t fail_at;  /* 1-based call to fail; 0 = never */
};

static void *
count_alloc_fn(void *opaque, size_t size)
{
    struct count_alloc *a = opaque;

    a->n_calls++;
    if (a->fail_at != 0 && a->n_calls == a->fail_at) {
        return NULL;
    }
    if (size > a->max_size) {
        a->max_size = size;
    }
    a->n_live++;
    return malloc(size);
}

static void
count_free_fn(void *opaque, void *p)
{
    struct count_alloc *a = opaque;

    if (p != NULL) {
        a->n_live--;
    }
    free(p);
}

/* What a caller does: ask the size, allocate it through a, retrieve. Returns the status. */
static int
caller_read(terse_ctx *c, struct count_alloc *ca, const terse_allocator *a,
            const struct bytes *env)
{
    uint64_t size = 0;
    size_t out_len;
    uint8_t *out;
    int rc;

    rc = terse_envelope_size(env->p, env->len, &size);
    if (rc != TERSE_OK) {
        /* And retrieve with no room must still report the envelope's own error. */
        return terse_envelope_retrieve_ctx(c, env->p, env->len, NULL, 0, &out_len, NULL, 0);
    }
    out = a->alloc(a->opaque, size > 0 ? (size_t)size : 1);
    assert_non_null(out);
    rc = terse_envelope_retrieve_ctx(c, env->p, env->len, out, (size_t)size, &out_len, NULL, 0);
    a->free(a->opaque, out);
    (void)ca;
    return rc;
}

static void
test_reject_vectors(void **state)
{
    struct json *root = vectors_load("wire-format.json");
    struct count_alloc ca = { 0, 0, 0, 0 };
    terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
    terse_ctx *c = NULL;
    int n = 0;

    (void)state;
    assert_int_equal(terse_ctx_create(&c, &a), TERSE_OK);
    for (struct json *v = json_get(root, "reject_vectors")->child; v != NULL; v = v->next) {
        const char *name = json_str(v, "name"), *check = json_str(v, "reject_check");
        struct bytes env = hex_bytes(json_str(v, "envelope_hex"));
        uint64_t declared = json_u64(v, "original_size");
        size_t root_len;
        enum codec_msgpack_reason why;
        int want = reject_status(name), rc;

        walks_agree(env.p, env.len);
        ca.max_size = 0;
        rc = caller_read(c, &ca, &a, &env);
        if (rc != want) {
            fail_msg("%s: got %d (%s), want %d", name, rc, terse_strerror(rc), want);
        }
        /* Nothing of the declared size was ever allocated for a refused size or ratio. */
        if (want == TERSE_ETOOBIG || want == TERSE_ERATIO) {
            assert_true(ca.max_size < declared || declared == 0);
        }
        rc = codec_msgpack_prescan(env.p, env.len, TERSE_ENVELOPE_DEPTH_MAX, &root_len, &why);
        if (check != NULL && strcmp(check, "decode_bounds") == 0) {
            assert_int_equal(rc, TERSE_EPROTO); /* the pre-scan itself refused it */
            assert_int_equal(why, CODEC_MP_OVERCLAIM);
        } else {
            assert_int_equal(rc, TERSE_OK);
        }
        free(env.p);
        n++;
    }
    assert_int_equal(n, 14);
    assert_int_equal(ca.n_live, 1 + 1); /* only the ctx and its LZ4 state */
    terse_ctx_destroy(&c);
    assert_int_equal(ca.n_live, 0);
    json_free(root);
}

/* Positive control for the allocation bound: a legacy envelope allocates inside the read,
 * after the checks, and the counter sees it. */
static void
test_alloc_positive_control(void **state)
{
    struct json *root = vectors_load("wire-format.json");
    struct count_alloc ca = { 0, 0, 0, 0 };
    terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
    terse_ctx *c = NULL;
    struct json *v;
    size_t calls;

    (void)state;
    assert_int_equal(terse_ctx_create(&c, &a), TERSE_OK);
    for (v = json_get(root, "vectors")->child; v != NULL; v = v->next) {
        if (strcmp(json_str(v, "name"), "width_boundary_bin16") == 0) {
            break;
        }
    }
    assert_non_null(v);
    {
        struct bytes env = hex_bytes(json_str(v, "envelope_hex"));
        uint8_t out[300];
        size_t out_len;

        calls = ca.n_calls;
        ca.max_size = 0;
        assert_int_equal(terse_envelope_retrieve_ctx(c, env.p, env.len, out, sizeof(out),
                                                     &out_len, NULL, 0),
                         TERSE_OK);
        assert_int_equal(ca.n_calls, calls + 1);
        assert_true(ca.max_size >= 300); /* the legacy block's scratch copy */
        /* OOM on that scratch is TERSE_ENOMEM and leaks nothing. */
        ca.fail_at = ca.n_calls + 1;
        assert_int_equal(terse_envelope_retrieve_ctx(c, env.p, env.len, out, sizeof(out),
                                                     &out_len, NULL, 0),
                         TERSE_ENOMEM);
        ca.fail_at = 0;
        free(env.p);
    }
    terse_ctx_destroy(&c);
    assert_int_equal(ca.n_live, 0);
    json_free(root);
}

static void
test_payload_reject_vectors(void **state)
{
    struct json *root = vectors_load("wire-format.json");
    int n = 0;

    (void)state;
    for (struct json *v = json_get(root, "payload_reject_vectors")->child; v != NULL;
         v = v->next) {
        struct bytes env = hex_bytes(json_str(v, "envelope_hex"));
        struct bytes in = hex_bytes(json_str(v, "input_hex"));
        uint8_t *out = malloc(in.len);
        size_t out_len, root_len;

        assert_non_null(out);
        assert_int_equal(terse_envelope_retrieve(env.p, env.len, out, in.len, &out_len, NULL, 0),
                         TERSE_OK);
        assert_memory_equal(out, in.p, in.len);
        /* The payload itself is a hostile document that the pre-scan refuses. */
        assert_int_equal(codec_msgpack_prescan(out, out_len, TERSE_ENVELOPE_DEPTH_MAX, &root_len,
                                               NULL),
                         TERSE_EPROTO);
        free(out);
        free(env.p);
        free(in.p);
        n++;
    }
    assert_int_equal(n, 2);
    json_free(root);
}

/* ---- decode-bounds vectors --------------------------------------------------------------- */

static struct bytes
construction_bytes(const struct json *v)
{
    const struct json *c = json_get(v, "construction");
    struct bytes b = { NULL, 0 };

    hex_append(&b, json_str(c, "repeat_hex"), json_u64(c, "count"));
    hex_append(&b, json_str(c, "suffix_hex"), 1);
    return b;
}

static void
decode_bounds_file(const char *file, int want_reject, int want_accept)
{
    struct json *root = vectors_load(file);
    int n_rej = 0, n_acc = 0;

    for (struct json *v = json_get(root, "reject_vectors")->child; v != NULL; v = v->next) {
        struct bytes in = construction_bytes(v);
        size_t root_len;
        enum codec_msgpack_reason why = CODEC_MP_OK;
        int rc = codec_msgpack_prescan(in.p, in.len, TERSE_ENVELOPE_DEPTH_MAX, &root_len, &why);

        assert_int_equal(in.len, json_u64(v, "input_len"));
        if (rc != TERSE_EPROTO) {
            fail_msg("%s/%s: accepted", file, json_str(v, "name"));
        }
        assert_true(why == CODEC_MP_DEPTH || why == CODEC_MP_OVERCLAIM ||
                    why == CODEC_MP_INCOMPLETE);
        /* And as an envelope it is refused before any decoding. */
        assert_int_equal(terse_envelope_retrieve(in.p, in.len, NULL, 0, &root_len, NULL, 0),
                         TERSE_EPROTO);
        free(in.p);
        n_rej++;
    }
    for (struct json *v = json_get(root, "accept_vectors")->child; v != NULL; v = v->next) {
        struct bytes in = construction_bytes(v);
        size_t root_len = 0;

        assert_int_equal(codec_msgpack_prescan(in.p, in.len, TERSE_ENVELOPE_DEPTH_MAX,
                                               &root_len, NULL),
                         TERSE_OK);
        assert_int_equal(root_len, in.len);
        free(in.p);
        n_acc++;
    }
    print_message("# %s: %d reject, %d accept\n", file, n_rej, n_acc);
    assert_int_equal(n_rej, want_reject);
    assert_int_equal(n_acc, want_accept);
    json_free(root);
}

static void
test_decode_bounds(void **state)
{
    (void)state;
    decode_bounds_file("decode-bounds.json", 19, 3);
    decode_bounds_file("decode-bounds-v1.1.0.json", 17, 3);
}

/* ---- properties and limits --------------------------------------------------------------- */

static void
test_prescan_depth_limit(void **state)
{
    uint8_t doc[128];
    size_t root_len;
    enum codec_msgpack_reason why;

    (void)state;
    memset(doc, 0x91, sizeof(doc));
    doc[TERSE_ENVELOPE_DEPTH_MAX] = 0xc0; /* exactly 100 levels */
    assert_int_equal(codec_msgpack_prescan(doc, TERSE_ENVELOPE_DEPTH_MAX + 1,
                                           TERSE_ENVELOPE_DEPTH_MAX, &root_len, &why),
                     TERSE_OK);
    doc[TERSE_ENVELOPE_DEPTH_MAX] = 0x91;
    doc[TERSE_ENVELOPE_DEPTH_MAX + 1] = 0xc0; /* 101 */
    assert_int_equal(codec_msgpack_prescan(doc, TERSE_ENVELOPE_DEPTH_MAX + 2,
                                           TERSE_ENVELOPE_DEPTH_MAX, &root_len, &why),
                     TERSE_EPROTO);
    assert_int_equal(why, CODEC_MP_DEPTH);
    doc[0] = 0xc1;
    assert_int_equal(codec_msgpack_prescan(doc, 1, 100, &root_len, &why), TERSE_EPROTO);
    assert_int_equal(why, CODEC_MP_RESERVED);
    doc[0] = 0xcd; /* uint16 cut inside its bytes */
    assert_int_equal(codec_msgpack_prescan(doc, 2, 100, &root_len, &why), TERSE_EPROTO);
    doc[0] = 0xc5; /* bin16 cut inside its length prefix */
    assert_int_equal(codec_msgpack_prescan(doc, 2, 100, &root_len, &why), TERSE_EPROTO);
    assert_int_equal(why, CODEC_MP_PREFIX);
    assert_int_equal(codec_msgpack_prescan(doc, 0, 100, &root_len, &why), TERSE_EPROTO);
    assert_int_equal(why, CODEC_MP_INCOMPLETE);
}

static void
fill_mixed(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 7;

    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (x >> 28) < 6 ? (uint8_t)(x >> 16) : (uint8_t)"cachekit envelope "[i % 18];
    }
}

static void
test_round_trip_sizes(void **state)
{
    static const size_t sizes[] = { 0, 1, 14, 15, 16, 127, 128, 269, 270, 1024, 65535, 65536,
                                    65537, 1 << 20 };
    uint8_t *src = malloc(1 << 20), *env = malloc(TERSE_ENVELOPE_BOUND(1 << 20)),
            *out = malloc(1 << 20);
    size_t env_len, out_len;
    char fmt[TERSE_ENVELOPE_FORMAT_MAX + 1];
    char long_fmt[TERSE_ENVELOPE_FORMAT_MAX + 2];

    (void)state;
    assert_true(src != NULL && env != NULL && out != NULL);
    memset(long_fmt, 'f', sizeof(long_fmt) - 2);
    long_fmt[sizeof(long_fmt) - 2] = '\0'; /* exactly FORMAT_MAX */
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t n = sizes[i], bound = terse_envelope_bound(n);

            if (kind == 0) {
                fill_mixed(src, n, (uint32_t)i);
            } else if (kind == 1) {
                memset(src, 'z', n);
            } else {
                for (size_t k = 0; k < n; k++) {
                    src[k] = (uint8_t)(k * 2654435761u >> 13);
                }
            }
            assert_true(bound <= TERSE_ENVELOPE_BOUND(n));
            assert_int_equal(terse_envelope_store(src, n, long_fmt, env, bound, &env_len),
                             TERSE_OK);
            assert_true(env_len <= bound);
            assert_int_equal(terse_envelope_retrieve(env, env_len, out, n, &out_len, fmt,
                                                     sizeof(fmt)),
                             TERSE_OK);
            assert_int_equal(out_len, n);
            assert_string_equal(fmt, long_fmt);
            if (n > 0) {
                assert_memory_equal(out, src, n);
            }
            /* Trailing bytes are refused; so is a truncated envelope. */
            env[env_len] = 0xc0;
            assert_int_equal(terse_envelope_retrieve(env, env_len + 1, out, n, &out_len, NULL,
                                                     0),
                             TERSE_EPROTO);
            assert_true(terse_envelope_retrieve(env, env_len - 1, out, n, &out_len, NULL, 0) <
                        0);
        }
    }
    long_fmt[sizeof(long_fmt) - 2] = 'f';
    long_fmt[sizeof(long_fmt) - 1] = '\0';
    assert_int_equal(terse_envelope_store(src, 10, long_fmt, env, 4096, &env_len), TERSE_EINVAL);
    free(src);
    free(env);
    free(out);
}

static void
test_store_dst_cap(void **state)
{
    uint8_t src[2048], env[TERSE_ENVELOPE_BOUND(2048) + 1], out[2048];
    size_t env_len, out_len;

    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = pass == 0 ? 100 : sizeof(src);

        fill_mixed(src, n, 3);
        for (size_t cap = 0; cap <= terse_envelope_bound(n); cap++) {
            int rc;

            memset(env, 0xee, sizeof(env));
            rc = terse_envelope_store(src, n, NULL, env, cap, &env_len);
            assert_true(rc == TERSE_OK || rc == TERSE_EDSTSIZE);
            assert_int_equal(env[cap], 0xee);
            if (rc == TERSE_OK) {
                assert_int_equal(terse_envelope_retrieve(env, env_len, out, n, &out_len, NULL,
                                                         0),
                                 TERSE_OK);
            }
        }
    }
    assert_int_equal(terse_envelope_store(src, TERSE_ENVELOPE_MAX + 1, NULL, env, sizeof(env),
                                          &env_len),
                     TERSE_ETOOBIG);
    assert_int_equal(terse_envelope_retrieve(src, TERSE_ENVELOPE_MAX + 1, out, sizeof(out),
                                             &out_len, NULL, 0),
                     TERSE_ETOOBIG); /* step 1 refuses on the length alone */
    assert_int_equal(terse_envelope_store(NULL, 1, NULL, env, sizeof(env), &env_len),
                     TERSE_EINVAL);
}

static void
test_map_form_refused(void **state)
{
    /* {"compressed_data": bin(00), ...}: the map form upstream tolerates; refused here. */
    static const uint8_t map_env[] = {
        0x84, 0xaf, 'c', 'o', 'm', 'p', 'r', 'e', 's', 's', 'e', 'd', '_', 'd', 'a', 't', 'a',
        0xc4, 0x01, 0x00, 0xa8, 'c', 'h', 'e', 'c', 'k', 's', 'u', 'm', 0x98, 0x2d, 0x06, 0xcc,
        0x80, 0x05, 0x38, 0xcc, 0xd3, 0xcc, 0x94, 0xcc, 0xc2, 0xad, 'o', 'r', 'i', 'g', 'i', 'n',
        'a', 'l', '_', 's', 'i', 'z', 'e', 0x00, 0xa6, 'f', 'o', 'r', 'm', 'a', 't', 0xa7, 'm',
        's', 'g', 'p', 'a', 'c', 'k',
    };
    uint64_t size;

    (void)state;
    assert_int_equal(terse_envelope_size(map_env, sizeof(map_env), &size), TERSE_EPROTO);
}

static void
test_ctx_oom(void **state)
{
    (void)state;
    for (size_t n = 1;; n++) {
        struct count_alloc ca = { 0, 0, 0, n };
        terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
        terse_ctx *c = NULL;
        int rc = terse_ctx_create(&c, &a);

        if (rc == TERSE_OK) {
            terse_ctx_destroy(&c);
            assert_null(c);
            assert_int_equal(ca.n_live, 0);
            assert_true(n > 2);
            break;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_null(c);
        assert_int_equal(ca.n_live, 0);
    }
    terse_ctx_destroy(NULL);
}

/* The fixed-shape walk and the general pre-scan + typed decode agree on status and view. */
static void
walks_agree(const uint8_t *p, size_t n)
{
    struct codec_env_view a, b;
    int ra = codec_envelope_parse(p, n, &a, 0);
    int rb = codec_envelope_parse(p, n, &b, CODEC_ENV_GENERAL);

    assert_int_equal(ra, rb);
    if (ra == TERSE_OK) {
        assert_ptr_equal(a.block, b.block);
        assert_int_equal(a.block_len, b.block_len);
        assert_int_equal(a.legacy, b.legacy);
        assert_true(a.checksum == b.checksum && a.orig_len == b.orig_len);
        assert_ptr_equal(a.format, b.format);
        assert_int_equal(a.format_len, b.format_len);
    }
}

/* Every prefix, every byte flipped three ways, and one extra trailing byte, of envelopes made
 * from several sizes and formats (short formats exercise the fixed walk's fallback). */
static void
test_fixed_walk_agrees(void **state)
{
    static const char *const formats[] = { NULL, "", "a", "orjson",
                                           "x123456789012345678901234567890x" };
    static const size_t sizes[] = { 0, 1, 15, 16, 64, 127, 128, 300, 70000 };
    static const uint8_t flips[] = { 0x01, 0x80, 0xff };

    (void)state;
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s], cap = terse_envelope_bound(n) + 1, len = 0;
            uint8_t *src = malloc(n + 1), *env = malloc(cap);
            terse_envelope_info info;

            assert_true(src != NULL && env != NULL);
            for (size_t i = 0; i < n; i++) {
                src[i] = (uint8_t)(i * 7 + (i >> 3));
            }
            assert_int_equal(terse_envelope_store(src, n, formats[f], env, cap, &len), TERSE_OK);
            assert_int_equal(terse_envelope_inspect(env, len, &info), TERSE_OK);
            assert_true(info.original_size == n && info.legacy == 0);
            assert_int_equal(info.format_len, strlen(formats[f] ? formats[f] : "msgpack"));
            for (size_t k = 0; k <= len && (n < 1000 || k < 200 || k + 200 > len); k++) {
                walks_agree(env, k);
            }
            for (size_t i = 0; i < len && (n < 1000 || i < 200 || i + 200 > len); i++) {
                for (size_t j = 0; j < sizeof(flips); j++) {
                    env[i] ^= flips[j];
                    walks_agree(env, len);
                    env[i] ^= flips[j];
                }
            }
            env[len] = 0xc0;
            walks_agree(env, len + 1);
            free(src);
            free(env);
        }
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_vectors),
        cmocka_unit_test(test_constructed_vectors),
        cmocka_unit_test(test_reject_vectors),
        cmocka_unit_test(test_alloc_positive_control),
        cmocka_unit_test(test_payload_reject_vectors),
        cmocka_unit_test(test_decode_bounds),
        cmocka_unit_test(test_prescan_depth_limit),
        cmocka_unit_test(test_round_trip_sizes),
        cmocka_unit_test(test_store_dst_cap),
        cmocka_unit_test(test_map_form_refused),
        cmocka_unit_test(test_ctx_oom),
        cmocka_unit_test(test_fixed_walk_agrees),
    };

    return cmocka_run_group_tests_name("codec_envelope", tests, NULL, NULL);
}
