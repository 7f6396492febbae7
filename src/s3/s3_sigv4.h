/*
 * s3_sigv4: AWS Signature Version 4 for S3 requests (header form), with OpenSSL's SHA-256 and
 * HMAC-SHA256.
 *
 *   canonical request = method \n uri \n query \n (name:value\n)* \n signed;names \n payload
 *   string to sign    = "AWS4-HMAC-SHA256" \n amz_date \n scope \n hex(sha256(canonical))
 *   signing key       = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), "s3"),
 *                       "aws4_request")   (cached per date and region)
 *   Authorization     = AWS4-HMAC-SHA256 Credential=<key>/<scope>, SignedHeaders=<names>,
 *                       Signature=hex(HMAC(signing key, string to sign))
 *
 * A context is caller-owned: init allocates OpenSSL's MAC and digest contexts once; signing
 * reuses them and writes into fixed buffers inside the context (canonical request up to
 * S3_SIGV4_CANON_MAX bytes). One thread per context.
 */
#ifndef S3_SIGV4_H
#define S3_SIGV4_H

#include <stddef.h>
#include <stdint.h>

#define S3_SIGV4_CANON_MAX 16384 /* longest canonical request, bytes */
#define S3_SIGV4_AUTH_MAX 512    /* longest Authorization value built, bytes with NUL */
#define S3_SIGV4_REGION_MAX 64   /* longest region name, bytes with NUL */
#define S3_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* One header to sign: name in lowercase, value trimmed. Both borrowed for the call. */
struct s3_sigv4_header {
    const char *name;
    const char *value;
};

/* What is signed; every pointer is borrowed for the duration of s3_sigv4_sign. */
struct s3_sigv4_request {
    const char *method;        /* "PUT", "GET", ... */
    const char *uri;           /* canonical URI: the path as sent, already URI-encoded */
    const char *query;         /* canonical query: sorted, encoded "a=1&b=2" ("" if none) */
    const struct s3_sigv4_header *headers; /* sorted by name, names unique */
    size_t n_headers;
    const char *payload_hash;  /* hex sha256 of the body, or a STREAMING-... / UNSIGNED value */
    const char *amz_date;      /* "YYYYMMDDTHHMMSSZ" */
    const char *region;
    const char *access_key;
    const char *secret_key;
};

struct s3_sigv4 {
    void *mac;                       /* EVP_MAC (HMAC), owned */
    void *mac_ctx;                   /* EVP_MAC_CTX with digest SHA256, owned, reused */
    void *md_ctx;                    /* EVP_MD_CTX, owned, reused */
    char key_date[9];                /* date of the cached signing key, "" if none */
    char key_region[S3_SIGV4_REGION_MAX];
    char key_secret_tag[65];         /* hex sha256 of the secret the key was derived from */
    uint8_t key[32];                 /* cached signing key */
    char canon[S3_SIGV4_CANON_MAX];  /* last canonical request, NUL-terminated (for tests) */
    size_t canon_len;
    char signature[65];              /* last signature, hex, NUL-terminated */
};

/* s3_sigv4_init: allocates the OpenSSL contexts. TERSE_OK, TERSE_ENOMEM or TERSE_ECRYPTO. */
int s3_sigv4_init(struct s3_sigv4 *s);

/* s3_sigv4_deinit: frees them; safe on a zeroed or deinited context. */
void s3_sigv4_deinit(struct s3_sigv4 *s);

/*
 * s3_sigv4_sign: signs `req` and writes the Authorization header value (NUL-terminated) into
 * `auth` (room `auth_cap`). Leaves the canonical request in s->canon and the hex signature in
 * s->signature. Returns TERSE_OK; TERSE_ETOOBIG when the canonical request exceeds
 * S3_SIGV4_CANON_MAX or the region S3_SIGV4_REGION_MAX; TERSE_EDSTSIZE when auth_cap is
 * short; TERSE_EINVAL for a malformed amz_date; TERSE_ECRYPTO if OpenSSL fails.
 * No allocation beyond what OpenSSL does inside its reused contexts.
 */
int s3_sigv4_sign(struct s3_sigv4 *s, const struct s3_sigv4_request *req, char *auth,
                  size_t auth_cap);

/*
 * s3_sigv4_sha256_hex: hex SHA-256 of `len` bytes at `p` into out (65 bytes with NUL).
 * Returns TERSE_OK or TERSE_ECRYPTO.
 */
int s3_sigv4_sha256_hex(struct s3_sigv4 *s, const void *p, size_t len, char out[65]);

/*
 * s3_sigv4_hash_begin / _update / _end_hex: the same SHA-256 fed in pieces (a body generated
 * twice: once to hash, once to send). Each returns TERSE_OK or TERSE_ECRYPTO.
 */
int s3_sigv4_hash_begin(struct s3_sigv4 *s);
int s3_sigv4_hash_update(struct s3_sigv4 *s, const void *p, size_t len);
int s3_sigv4_hash_end_hex(struct s3_sigv4 *s, char out[65]);

/*
 * s3_sigv4_uri_encode: appends the S3 URI encoding of `len` bytes of `src` to dst: unreserved
 * characters (A-Z a-z 0-9 - . _ ~) as they are, '/' as is when keep_slash, every other byte
 * as %XX (uppercase hex). Writes at most dst_cap bytes including a NUL; the encoded length
 * goes to *dst_len. Returns TERSE_OK or TERSE_EDSTSIZE (dst then holds a truncated prefix).
 */
int s3_sigv4_uri_encode(const char *src, size_t len, int keep_slash, char *dst, size_t dst_cap,
                        size_t *dst_len);

#endif /* S3_SIGV4_H */
