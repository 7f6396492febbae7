/*
 * test_s3_sigv4: SigV4 signing against the two signed examples of
 * $TERSE_SHARED/vectors/aws-chunked/manifest.json (AWS's documented example keys and request):
 * the canonical request and the seed signature must match the manifest exactly, read at test
 * time. Plus URI encoding, key caching across dates, and the limits.
 */
#include "s3/s3_sigv4.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char *manifest;

static int
setup(void **state)
{
    const char *env = getenv("TERSE_SHARED");
    char path[1024];
    FILE *f;
    long n;

    (void)state;
    snprintf(path, sizeof(path), "%s/vectors/aws-chunked/manifest.json",
             env != NULL ? env : "../shared");
    f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot read %s (set TERSE_SHARED)\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    manifest = calloc(1, (size_t)n + 1);
    if (manifest == NULL || fread(manifest, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    free(manifest);
    return 0;
}

/* The n-th (0-based) JSON string value of "key" after the "signed_examples" marker. */
static void
signed_field(int n, const char *key, char *out, size_t cap)
{
    char pat[64];
    const char *p = strstr(manifest, "\"signed_examples\"");
    size_t len = 0;

    assert_non_null(p);
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    for (int i = 0; i <= n; i++) {
        p = strstr(p + 1, pat);
        assert_non_null(p);
    }
    p += strlen(pat);
    while (*p != '"' && len + 1 < cap) {
        char c = *p++;
        if (c == '\\') {
            c = *p++ == 'n' ? '\n' : p[-1];
        }
        out[len++] = c;
    }
    out[len] = '\0';
}

static void
test_aws_examples(void **state)
{
    static const struct {
        const char *mode;
        const char *content_length; /* NULL: not signed */
        const char *trailer;        /* NULL: none */
    } ex[] = {
        {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "66824", NULL},
        {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", NULL, "x-amz-checksum-crc32c"},
    };
    struct s3_sigv4 s;

    (void)state;
    assert_int_equal(s3_sigv4_init(&s), TERSE_OK);
    for (int i = 0; i < 2; i++) {
        struct s3_sigv4_header h[8];
        size_t n = 0;
        char want_canon[2048];
        char want_sig[80];
        char want_names[256];
        char auth[S3_SIGV4_AUTH_MAX];
        char want_auth[S3_SIGV4_AUTH_MAX];

        h[n++] = (struct s3_sigv4_header){"content-encoding", "aws-chunked"};
        if (ex[i].content_length != NULL) {
            h[n++] = (struct s3_sigv4_header){"content-length", ex[i].content_length};
        }
        h[n++] = (struct s3_sigv4_header){"host", "s3.amazonaws.com"};
        h[n++] = (struct s3_sigv4_header){"x-amz-content-sha256", ex[i].mode};
        h[n++] = (struct s3_sigv4_header){"x-amz-date", "20130524T000000Z"};
        h[n++] = (struct s3_sigv4_header){"x-amz-decoded-content-length", "66560"};
        h[n++] = (struct s3_sigv4_header){"x-amz-storage-class", "REDUCED_REDUNDANCY"};
        if (ex[i].trailer != NULL) {
            h[n++] = (struct s3_sigv4_header){"x-amz-trailer", ex[i].trailer};
        }
        struct s3_sigv4_request req = {
            .method = "PUT",
            .uri = "/examplebucket/chunkObject.txt",
            .query = "",
            .headers = h,
            .n_headers = n,
            .payload_hash = ex[i].mode,
            .amz_date = "20130524T000000Z",
            .region = "us-east-1",
            .access_key = "AKIAIOSFODNN7EXAMPLE",
            .secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        };
        assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_OK);
        signed_field(i, "canonical_request", want_canon, sizeof(want_canon));
        signed_field(i, "seed_signature", want_sig, sizeof(want_sig));
        signed_field(i, "signed_headers", want_names, sizeof(want_names));
        assert_string_equal(s.canon, want_canon);
        assert_string_equal(s.signature, want_sig);
        snprintf(want_auth, sizeof(want_auth),
                 "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                 "aws4_request, SignedHeaders=%s, Signature=%s", want_names, want_sig);
        assert_string_equal(auth, want_auth);
        /* Too little room for the header value. */
        assert_int_equal(s3_sigv4_sign(&s, &req, auth, 40), TERSE_EDSTSIZE);
        /* Another date derives another key; coming back gives the same signature again. */
        req.amz_date = "20130525T000000Z";
        assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_OK);
        assert_string_not_equal(s.signature, want_sig);
        req.amz_date = "20130524T000000Z";
        assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_OK);
        assert_string_equal(s.signature, want_sig);
        req.amz_date = "2013-05-24";
        assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_EINVAL);
    }
    s3_sigv4_deinit(&s);
    s3_sigv4_deinit(&s);
}

static void
test_uri_encode(void **state)
{
    char out[64];
    size_t len = 0;

    (void)state;
    assert_int_equal(s3_sigv4_uri_encode("a b/c~d_e.f-g+h=", 16, 1, out, sizeof(out), &len),
                     TERSE_OK);
    assert_string_equal(out, "a%20b/c~d_e.f-g%2Bh%3D");
    assert_int_equal(len, strlen(out));
    assert_int_equal(s3_sigv4_uri_encode("a/b", 3, 0, out, sizeof(out), &len), TERSE_OK);
    assert_string_equal(out, "a%2Fb");
    assert_int_equal(s3_sigv4_uri_encode("\xc3\xa9", 2, 0, out, sizeof(out), &len), TERSE_OK);
    assert_string_equal(out, "%C3%A9");
    /* Exactly the room needed, then one byte short. */
    assert_int_equal(s3_sigv4_uri_encode("a b", 3, 0, out, 6, &len), TERSE_OK);
    assert_int_equal(s3_sigv4_uri_encode("a b", 3, 0, out, 5, &len), TERSE_EDSTSIZE);
    assert_int_equal(s3_sigv4_uri_encode("a", 1, 0, out, 0, &len), TERSE_EDSTSIZE);
}

static void
test_limits(void **state)
{
    struct s3_sigv4 s;
    char auth[S3_SIGV4_AUTH_MAX];
    static char big[S3_SIGV4_CANON_MAX];
    char region[S3_SIGV4_REGION_MAX + 1];

    (void)state;
    memset(big, 'a', sizeof(big) - 1);
    memset(region, 'r', sizeof(region) - 1);
    region[sizeof(region) - 1] = '\0';
    assert_int_equal(s3_sigv4_init(&s), TERSE_OK);
    struct s3_sigv4_request req = {
        .method = "GET", .uri = big, .query = "", .headers = NULL, .n_headers = 0,
        .payload_hash = S3_SIGV4_EMPTY_SHA256, .amz_date = "20240101T000000Z",
        .region = "us-east-1", .access_key = "AK", .secret_key = "SK",
    };
    assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_ETOOBIG);
    req.uri = "/";
    assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_OK);
    req.region = region;
    assert_int_equal(s3_sigv4_sign(&s, &req, auth, sizeof(auth)), TERSE_ETOOBIG);
    s3_sigv4_deinit(&s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aws_examples),
        cmocka_unit_test(test_uri_encode),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
