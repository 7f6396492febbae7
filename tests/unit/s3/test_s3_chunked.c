/*
 * test_s3_chunked: the aws-chunked encoder byte for byte against every case of
 * $TERSE_SHARED/vectors/aws-chunked/manifest.json (default ../shared), read at test time:
 * whole, in 997-byte input pieces, and into tiny output windows; the exact Content-Length
 * formula; the known answers of every checksum; the strict decoder on every encoded body
 * (whole, byte by byte, split at every offset for small ones), on the two signed AWS examples
 * and on malformed bodies (each rejected with its documented status).
 *
 * The manifest is read with a targeted field extractor (flat "key": value pairs inside each
 * case), not a general JSON parser: the cases are flat apart from "headers".
 */
#include "s3/s3_checksum.h"
#include "s3/s3_chunked.h"
#include "terse/status.h"

#include <openssl/evp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct blob {
    uint8_t *p;
    size_t len;
};

static char shared_dir[1024];

static int
read_file(const char *rel, struct blob *b)
{
    char path[2048];
    FILE *f;
    long n;

    snprintf(path, sizeof(path), "%s/vectors/aws-chunked/%s", shared_dir, rel);
    f = fopen(path, "rb");
    if (f == NULL) {
        return -1;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b->p = malloc((size_t)n + 1);
    b->len = (size_t)n;
    if (b->p == NULL || fread(b->p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return -1;
    }
    b->p[n] = 0;
    fclose(f);
    return 0;
}

/* ---- manifest field extraction ---------------------------------------------------------- */

/* Copies the JSON string value of "key" within [seg, end) into out, decoding \r \n \" \\. */
static int
field_str(const char *seg, const char *end, const char *key, char *out, size_t cap)
{
    char pat[64];
    const char *p;
    size_t n = 0;

    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    p = strstr(seg, pat);
    if (p == NULL || p >= end) {
        return -1;
    }
    p += strlen(pat);
    if (strncmp(p, "null", 4) == 0) {
        out[0] = 0;
        return 1;
    }
    if (*p++ != '"') {
        return -1;
    }
    while (*p != '"' && n + 1 < cap) {
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            c = c == 'r' ? '\r' : c == 'n' ? '\n' : c;
        }
        out[n++] = c;
    }
    out[n] = 0;
    return 0;
}

static long long
field_num(const char *seg, const char *end, const char *key)
{
    char pat[64];
    const char *p;

    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    p = strstr(seg, pat);
    if (p == NULL || p >= end) {
        return -1;
    }
    return strtoll(p + strlen(pat), NULL, 10);
}

struct vcase {
    char id[64];
    char alg[16];
    char file[128]; /* "" when the body is given only by length and hash */
    char sha[65];
    char b64[64];
    char tail[160];
    size_t chunk;
    size_t in_len;
    size_t enc_len;
};

#define N_CASES_MAX 128

struct fixture {
    struct blob manifest;
    struct blob input;
    struct vcase cases[N_CASES_MAX];
    size_t n_cases;
};

static int
setup(void **state)
{
    static struct fixture fx;
    const char *env = getenv("TERSE_SHARED");
    const char *p;
    const char *stop;

    memset(&fx, 0, sizeof(fx));
    snprintf(shared_dir, sizeof(shared_dir), "%s", env != NULL ? env : "../shared");
    if (read_file("manifest.json", &fx.manifest) != 0 || read_file("input-1MiB.bin", &fx.input)) {
        fprintf(stderr, "cannot read vectors under %s (set TERSE_SHARED)\n", shared_dir);
        return -1;
    }
    p = strstr((char *)fx.manifest.p, "\"unsigned_trailer_cases\"");
    stop = strstr((char *)fx.manifest.p, "\"signed_examples\"");
    if (p == NULL || stop == NULL) {
        return -1;
    }
    while ((p = strstr(p, "\"id\": \"")) != NULL && p < stop) {
        const char *next = strstr(p + 1, "\"id\": \"");
        const char *end = next != NULL && next < stop ? next : stop;
        struct vcase *c = &fx.cases[fx.n_cases];

        if (fx.n_cases == N_CASES_MAX) {
            return -1;
        }
        if (field_str(p, end, "id", c->id, sizeof(c->id)) != 0 ||
            field_str(p, end, "algorithm", c->alg, sizeof(c->alg)) != 0 ||
            field_str(p, end, "encoded_file", c->file, sizeof(c->file)) < 0 ||
            field_str(p, end, "encoded_sha256", c->sha, sizeof(c->sha)) != 0 ||
            field_str(p, end, "tail", c->tail, sizeof(c->tail)) != 0) {
            return -1;
        }
        if (field_str(p, end, "checksum_b64", c->b64, sizeof(c->b64)) < 0) {
            c->b64[0] = 0;
        }
        c->chunk = (size_t)field_num(p, end, "chunk_size");
        c->in_len = (size_t)field_num(p, end, "input_length");
        c->enc_len = (size_t)field_num(p, end, "encoded_length");
        fx.n_cases++;
        p = end;
    }
    *state = &fx;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *fx = *state;

    free(fx->manifest.p);
    free(fx->input.p);
    return 0;
}

static void
sha256_hex(const uint8_t *p, size_t len, char out[65])
{
    uint8_t d[32];
    unsigned int n = 0;

    assert_int_equal(EVP_Digest(p, len, d, &n, EVP_sha256(), NULL), 1);
    for (unsigned i = 0; i < 32; i++) {
        snprintf(out + 2 * i, 3, "%02x", d[i]);
    }
}

/* Encodes payload feeding `piece` input bytes and offering `window` output bytes per call. */
static size_t
encode_all(const struct vcase *c, const uint8_t *payload, size_t piece, size_t window,
           uint8_t *out, size_t out_cap)
{
    struct s3_chunked_enc enc;
    enum s3_checksum_alg alg;
    size_t in = 0;
    size_t len = 0;
    int rc;

    assert_int_equal(s3_checksum_parse(c->alg, &alg), TERSE_OK);
    assert_int_equal(s3_chunked_enc_init(&enc, c->in_len, c->chunk, alg), TERSE_OK);
    do {
        size_t used = 0;
        size_t wrote = 0;
        size_t n_in = c->in_len - in < piece ? c->in_len - in : piece;
        size_t room = out_cap - len < window ? out_cap - len : window;

        rc = s3_chunked_enc_encode(&enc, payload + in, n_in, &used, out + len, room, &wrote);
        assert_true(rc == TERSE_OK || rc == TERSE_MORE);
        assert_true(used <= n_in && wrote <= room);
        assert_true(used > 0 || wrote > 0 || rc == TERSE_OK);
        in += used;
        len += wrote;
    } while (rc == TERSE_MORE);
    assert_int_equal(in, c->in_len);
    if (c->b64[0] != 0) {
        assert_string_equal(enc.checksum_b64, c->b64);
    }
    s3_chunked_enc_deinit(&enc);
    return len;
}

static void
check_decode(const struct vcase *c, const uint8_t *payload, const uint8_t *body, size_t len,
             size_t piece)
{
    struct s3_chunked_dec dec;
    enum s3_checksum_alg alg;
    uint8_t *out = malloc(c->in_len + 1);
    size_t in = 0;
    size_t got = 0;
    int rc;

    assert_non_null(out);
    assert_int_equal(s3_checksum_parse(c->alg, &alg), TERSE_OK);
    assert_int_equal(s3_chunked_dec_init(&dec, alg, c->in_len, 8192), TERSE_OK);
    do {
        size_t used = 0;
        size_t wrote = 0;
        size_t n = len - in < piece ? len - in : piece;

        rc = s3_chunked_dec_decode(&dec, body + in, n, &used, out + got, c->in_len + 1 - got,
                                   &wrote);
        if (rc != TERSE_OK && rc != TERSE_MORE) {
            fail_msg("%s: decode: %s at %llu", c->id, dec.why,
                     (unsigned long long)dec.offset);
        }
        in += used;
        got += wrote;
        assert_true(rc == TERSE_OK || in < len || used > 0);
    } while (rc == TERSE_MORE && in < len);
    assert_int_equal(rc, TERSE_OK);
    assert_int_equal(in, len);
    assert_int_equal(got, c->in_len);
    assert_memory_equal(out, payload, c->in_len);
    s3_chunked_dec_deinit(&dec);
    free(out);
}

static void
test_every_vector(void **state)
{
    struct fixture *fx = *state;
    size_t n_files = 0;

    assert_true(fx->n_cases >= 70);
    for (size_t i = 0; i < fx->n_cases; i++) {
        const struct vcase *c = &fx->cases[i];
        enum s3_checksum_alg alg;
        size_t cap = c->enc_len + 64;
        uint8_t *a = malloc(cap);
        uint8_t *b = malloc(cap);
        char hex[65];
        size_t tail_len = strlen(c->tail);

        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(s3_checksum_parse(c->alg, &alg), TERSE_OK);
        assert_int_equal(s3_chunked_encoded_len(c->in_len, c->chunk, alg), c->enc_len);
        /* Whole input, whole output. */
        size_t len = encode_all(c, fx->input.p, SIZE_MAX, SIZE_MAX, a, cap);
        assert_int_equal(len, c->enc_len);
        sha256_hex(a, len, hex);
        if (strcmp(hex, c->sha) != 0) {
            fail_msg("%s: encoded sha256 %s, vector %s", c->id, hex, c->sha);
        }
        assert_true(len >= tail_len);
        assert_memory_equal(a + len - tail_len, c->tail, tail_len);
        /* 997-byte input pieces (as the vectors' README reads them), 4093-byte windows. */
        assert_int_equal(encode_all(c, fx->input.p, 997, 4093, b, cap), len);
        assert_memory_equal(a, b, len);
        if (c->in_len <= 8193) {
            /* Output windows of every size from 1 to 13 bytes. */
            for (size_t w = 1; w <= 13; w++) {
                memset(b, 0, cap);
                assert_int_equal(encode_all(c, fx->input.p, 5, w, b, cap), len);
                assert_memory_equal(a, b, len);
            }
        }
        if (c->file[0] != 0) {
            struct blob f;
            assert_int_equal(read_file(c->file, &f), 0);
            assert_int_equal(f.len, len);
            assert_memory_equal(f.p, a, len);
            free(f.p);
            n_files++;
        }
        check_decode(c, fx->input.p, a, len, SIZE_MAX);
        check_decode(c, fx->input.p, a, len, 1);
        check_decode(c, fx->input.p, a, len, 8191);
        if (len <= 100) {
            for (size_t cut = 0; cut <= len; cut++) {
                check_decode(c, fx->input.p, a, len, cut == 0 ? 1 : cut);
            }
        }
        free(a);
        free(b);
    }
    print_message("# %zu vectors encoded byte-identical (%zu against stored bodies)\n",
                  fx->n_cases, n_files);
}

static void
test_known_answers(void **state)
{
    static const struct {
        enum s3_checksum_alg alg;
        const char *check;
        const char *empty;
    } ka[] = {
        {S3_CHECKSUM_CRC32, "y/Q5Jg==", "AAAAAA=="},
        {S3_CHECKSUM_CRC32C, "4waSgw==", "AAAAAA=="},
        {S3_CHECKSUM_CRC64NVME, "rosUhgp5mIg=", "AAAAAAAAAAA="},
        {S3_CHECKSUM_SHA1, "98O8HYCOBHMq32eZZczDTKeuNEE=", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="},
        {S3_CHECKSUM_SHA256, "FeKw08M4keuw8e9gnsQZQgwg4yDOlMZfvIwzEkSOsiU=",
         "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++) {
        struct s3_checksum ck;
        char out[S3_CHECKSUM_B64_MAX + 1];
        size_t len = 0;

        assert_int_equal(s3_checksum_init(&ck, ka[i].alg), TERSE_OK);
        /* Split feeding: the running state must carry across calls. */
        assert_int_equal(s3_checksum_update(&ck, (const uint8_t *)"1234", 4), TERSE_OK);
        assert_int_equal(s3_checksum_update(&ck, (const uint8_t *)"56789", 5), TERSE_OK);
        assert_int_equal(s3_checksum_final_b64(&ck, out, sizeof(out), &len), TERSE_OK);
        assert_string_equal(out, ka[i].check);
        assert_int_equal(len, s3_checksum_b64_len(ka[i].alg));
        assert_int_equal(s3_checksum_reset(&ck), TERSE_OK);
        assert_int_equal(s3_checksum_final_b64(&ck, out, sizeof(out), &len), TERSE_OK);
        assert_string_equal(out, ka[i].empty);
        assert_int_equal(s3_checksum_final_b64(&ck, out, len, &len), TERSE_EDSTSIZE);
        s3_checksum_deinit(&ck);
        s3_checksum_deinit(&ck);
    }
}

static void
test_bad_arguments(void **state)
{
    struct s3_chunked_enc enc;
    enum s3_checksum_alg alg = S3_CHECKSUM_CRC32;

    (void)state;
    assert_int_equal(s3_chunked_enc_init(&enc, 1, 0, S3_CHECKSUM_CRC32), TERSE_EINVAL);
    assert_int_equal(s3_chunked_enc_init(&enc, 1, S3_CHUNKED_CHUNK_MAX + 1, S3_CHECKSUM_CRC32),
                     TERSE_EINVAL);
    assert_int_equal(s3_chunked_enc_init(&enc, 1, 8192, (enum s3_checksum_alg)99), TERSE_EINVAL);
    assert_int_equal(s3_chunked_encoded_len(1, 0, S3_CHECKSUM_CRC32), 0);
    assert_int_equal(s3_checksum_parse("md5", &alg), TERSE_EINVAL);
    assert_int_equal(alg, S3_CHECKSUM_CRC32);
    assert_int_equal(s3_checksum_parse("CRC64NVME", &alg), TERSE_OK);
    assert_int_equal(alg, S3_CHECKSUM_CRC64NVME);
    /* The largest chunk size is accepted and its header fits. */
    assert_int_equal(s3_chunked_enc_init(&enc, 1, S3_CHUNKED_CHUNK_MAX, S3_CHECKSUM_SHA256),
                     TERSE_OK);
    assert_string_equal(enc.full_hdr, "4000000\r\n");
    s3_chunked_enc_deinit(&enc);
}

/* Input beyond the declared length is left unconsumed; a reset encoder reproduces a body. */
static void
test_extra_input_and_reset(void **state)
{
    struct s3_chunked_enc enc;
    uint8_t out[256];
    uint8_t again[256];
    size_t used = 0;
    size_t len = 0;
    size_t len2 = 0;

    (void)state;
    assert_int_equal(s3_chunked_enc_init(&enc, 3, 8192, S3_CHECKSUM_CRC32), TERSE_OK);
    assert_int_equal(s3_chunked_enc_encode(&enc, (const uint8_t *)"abcdef", 6, &used, out,
                                           sizeof(out), &len), TERSE_OK);
    assert_int_equal(used, 3);
    assert_int_equal(len, s3_chunked_encoded_len(3, 8192, S3_CHECKSUM_CRC32));
    /* Finished: further calls write nothing and stay OK. */
    assert_int_equal(s3_chunked_enc_encode(&enc, (const uint8_t *)"x", 1, &used, again,
                                           sizeof(again), &len2), TERSE_OK);
    assert_int_equal(used, 0);
    assert_int_equal(len2, 0);
    assert_int_equal(s3_chunked_enc_reset(&enc, 3), TERSE_OK);
    assert_int_equal(s3_chunked_enc_encode(&enc, (const uint8_t *)"abc", 3, &used, again,
                                           sizeof(again), &len2), TERSE_OK);
    assert_int_equal(len2, len);
    assert_memory_equal(out, again, len);
    /* Missing input: MORE, never OK. */
    assert_int_equal(s3_chunked_enc_reset(&enc, 10), TERSE_OK);
    assert_int_equal(s3_chunked_enc_encode(&enc, (const uint8_t *)"abc", 3, &used, again,
                                           sizeof(again), &len2), TERSE_MORE);
    s3_chunked_enc_deinit(&enc);
}

static int
decode_str(const char *body, enum s3_checksum_alg alg, uint64_t expect, size_t min_chunk,
           const char **why)
{
    struct s3_chunked_dec dec;
    uint8_t out[64];
    size_t used = 0;
    size_t len = 0;
    int rc;

    assert_int_equal(s3_chunked_dec_init(&dec, alg, expect, min_chunk), TERSE_OK);
    rc = s3_chunked_dec_decode(&dec, (const uint8_t *)body, strlen(body), &used, out,
                               sizeof(out), &len);
    if (why != NULL) {
        *why = dec.why;
    }
    /* Sticky: a second call returns the same status. */
    if (rc < 0) {
        assert_int_equal(s3_chunked_dec_decode(&dec, (const uint8_t *)"0", 1, &used, out,
                                               sizeof(out), &len), rc);
    }
    s3_chunked_dec_deinit(&dec);
    return rc;
}

static void
test_decoder_rejects(void **state)
{
    const char *why = NULL;
    const enum s3_checksum_alg c32 = S3_CHECKSUM_CRC32;

    (void)state;
    /* "abc" crc32 = 0x352441c2 = NSRBwg== */
    assert_int_equal(decode_str("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n", c32, 3,
                                0, NULL), TERSE_OK);
    assert_int_equal(decode_str("3\r\nabc\r\n0\r\nx-amz-checksum-crc32: NSRBwg== \r\n\r\n", c32,
                                3, 0, NULL), TERSE_OK);
    assert_int_equal(decode_str("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", c32, 3,
                                0, &why), TERSE_ECORRUPT);
    assert_non_null(why);
    assert_int_equal(decode_str("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n", c32, 4,
                                0, NULL), TERSE_ELENGTH);
    assert_int_equal(decode_str("3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n", c32, 2,
                                0, NULL), TERSE_ELENGTH);
    /* Short non-final chunk under S3's 8192 minimum. */
    assert_int_equal(decode_str("2\r\nab\r\n1\r\nc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n",
                                c32, 3, 8192, NULL), TERSE_EPROTO);
    assert_int_equal(decode_str("2\r\nab\r\n1\r\nc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n",
                                c32, 3, 0, NULL), TERSE_OK);
    /* Unequal chunks, growing chunks. */
    assert_int_equal(decode_str("1\r\na\r\n2\r\nbc\r\n0\r\n\r\n", S3_CHECKSUM_NONE, 3, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("2\r\nab\r\n1\r\nc\r\n1\r\nd\r\n0\r\n\r\n", S3_CHECKSUM_NONE, 4,
                                0, NULL), TERSE_EPROTO);
    /* Framing errors. */
    assert_int_equal(decode_str("03\r\nabc\r\n0\r\n\r\n", S3_CHECKSUM_NONE, 3, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("3\r\nabcd\r\n0\r\n\r\n", S3_CHECKSUM_NONE, 3, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("3\nabc\r\n0\r\n\r\n", S3_CHECKSUM_NONE, 3, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("\r\n", S3_CHECKSUM_NONE, 0, 0, NULL), TERSE_EPROTO);
    assert_int_equal(decode_str("g\r\n", S3_CHECKSUM_NONE, 0, 0, NULL), TERSE_EPROTO);
    assert_int_equal(decode_str("4000001\r\n", S3_CHECKSUM_NONE, UINT64_MAX, 0, NULL),
                     TERSE_ETOOBIG);
    assert_int_equal(decode_str("ffffffffffffffffff\r\n", S3_CHECKSUM_NONE, UINT64_MAX, 0, NULL),
                     TERSE_ETOOBIG);
    /* Trailer rules: missing, unexpected, repeated, no colon. */
    assert_int_equal(decode_str("0\r\n\r\n", c32, 0, 0, NULL), TERSE_EPROTO);
    assert_int_equal(decode_str("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n", S3_CHECKSUM_NONE, 0,
                                0, NULL), TERSE_EPROTO);
    assert_int_equal(decode_str("0\r\nx-amz-checksum-crc32c:AAAAAA==\r\n\r\n", c32, 0, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n"
                                "x-amz-checksum-crc32:AAAAAA==\r\n\r\n", c32, 0, 0, NULL),
                     TERSE_EPROTO);
    assert_int_equal(decode_str("0\r\nnocolon\r\n\r\n", c32, 0, 0, NULL), TERSE_EPROTO);
    /* Incomplete input is MORE, not an error. */
    assert_int_equal(decode_str("3\r\nab", S3_CHECKSUM_NONE, 3, 0, NULL), TERSE_MORE);
    assert_int_equal(decode_str("", S3_CHECKSUM_NONE, 0, 0, NULL), TERSE_MORE);
}

/* The two signed AWS examples: extensions and x-amz-trailer-signature are read, not checked. */
static void
test_decoder_signed_examples(void **state)
{
    static const struct {
        const char *file;
        enum s3_checksum_alg alg;
    } ex[] = {
        {"encoded/aws-doc-signed.bin", S3_CHECKSUM_NONE},
        {"encoded/aws-doc-signed-trailer.bin", S3_CHECKSUM_CRC32C},
    };
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        struct blob f;
        struct s3_chunked_dec dec;
        uint8_t *out = malloc(66560);
        size_t used = 0;
        size_t len = 0;

        assert_non_null(out);
        assert_int_equal(read_file(ex[i].file, &f), 0);
        assert_int_equal(s3_chunked_dec_init(&dec, ex[i].alg, 66560, 8192), TERSE_OK);
        assert_int_equal(s3_chunked_dec_decode(&dec, f.p, f.len, &used, out, 66560, &len),
                         TERSE_OK);
        assert_int_equal(used, f.len);
        assert_int_equal(len, 66560);
        for (size_t j = 0; j < len; j++) {
            assert_int_equal(out[j], 'a');
        }
        s3_chunked_dec_deinit(&dec);
        free(f.p);
        free(out);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_vector),
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_extra_input_and_reset),
        cmocka_unit_test(test_decoder_rejects),
        cmocka_unit_test(test_decoder_signed_examples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
