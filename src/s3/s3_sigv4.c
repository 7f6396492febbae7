/*
 * s3_sigv4: SigV4 signing (see s3_sigv4.h). The canonical request is assembled in the
 * context's fixed buffer; the signing key is derived once per (date, region, secret).
 */
#include "s3/s3_sigv4.h"

#include "terse/status.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <string.h>

int
s3_sigv4_init(struct s3_sigv4 *s)
{
    OSSL_PARAM params[2];
    char digest[] = "SHA256";

    memset(s, 0, sizeof(*s));
    s->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (s->mac == NULL) {
        return TERSE_ECRYPTO;
    }
    s->mac_ctx = EVP_MAC_CTX_new(s->mac);
    s->md_ctx = EVP_MD_CTX_new();
    if (s->mac_ctx == NULL || s->md_ctx == NULL) {
        s3_sigv4_deinit(s);
        return TERSE_ENOMEM;
    }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_CTX_set_params(s->mac_ctx, params) != 1) {
        s3_sigv4_deinit(s);
        return TERSE_ECRYPTO;
    }
    return TERSE_OK;
}

void
s3_sigv4_deinit(struct s3_sigv4 *s)
{
    EVP_MAC_CTX_free(s->mac_ctx);
    EVP_MAC_free(s->mac);
    EVP_MD_CTX_free(s->md_ctx);
    s->mac_ctx = NULL;
    s->mac = NULL;
    s->md_ctx = NULL;
}

static void
to_hex(const uint8_t *p, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
}

static int
hmac(struct s3_sigv4 *s, const uint8_t *key, size_t key_len, const char *msg, size_t msg_len,
     uint8_t out[32])
{
    size_t n = 0;

    if (EVP_MAC_init(s->mac_ctx, key, key_len, NULL) != 1 ||
        EVP_MAC_update(s->mac_ctx, (const unsigned char *)msg, msg_len) != 1 ||
        EVP_MAC_final(s->mac_ctx, out, &n, 32) != 1 || n != 32) {
        return TERSE_ECRYPTO;
    }
    return TERSE_OK;
}

int
s3_sigv4_sha256_hex(struct s3_sigv4 *s, const void *p, size_t len, char out[65])
{
    uint8_t d[32];
    unsigned int n = 0;

    if (EVP_DigestInit_ex(s->md_ctx, EVP_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(s->md_ctx, p, len) != 1 ||
        EVP_DigestFinal_ex(s->md_ctx, d, &n) != 1 || n != 32) {
        return TERSE_ECRYPTO;
    }
    to_hex(d, 32, out);
    return TERSE_OK;
}

int
s3_sigv4_hash_begin(struct s3_sigv4 *s)
{
    return EVP_DigestInit_ex(s->md_ctx, EVP_sha256(), NULL) == 1 ? TERSE_OK : TERSE_ECRYPTO;
}

int
s3_sigv4_hash_update(struct s3_sigv4 *s, const void *p, size_t len)
{
    return EVP_DigestUpdate(s->md_ctx, p, len) == 1 ? TERSE_OK : TERSE_ECRYPTO;
}

int
s3_sigv4_hash_end_hex(struct s3_sigv4 *s, char out[65])
{
    uint8_t d[32];
    unsigned int n = 0;

    if (EVP_DigestFinal_ex(s->md_ctx, d, &n) != 1 || n != 32) {
        return TERSE_ECRYPTO;
    }
    to_hex(d, 32, out);
    return TERSE_OK;
}

int
s3_sigv4_uri_encode(const char *src, size_t len, int keep_slash, char *dst, size_t dst_cap,
                    size_t *dst_len)
{
    static const char digits[] = "0123456789ABCDEF";
    size_t out = 0;

    *dst_len = 0;
    if (dst_cap == 0) {
        return TERSE_EDSTSIZE;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)src[i];
        int plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && keep_slash);
        size_t need = plain ? 1 : 3;

        if (out + need + 1 > dst_cap) {
            dst[out] = '\0';
            *dst_len = out;
            return TERSE_EDSTSIZE;
        }
        if (plain) {
            dst[out++] = (char)c;
        } else {
            dst[out++] = '%';
            dst[out++] = digits[c >> 4];
            dst[out++] = digits[c & 15];
        }
    }
    dst[out] = '\0';
    *dst_len = out;
    return TERSE_OK;
}

/* Appends printf output to s->canon; TERSE_ETOOBIG when it does not fit. */
static int
canon_add(struct s3_sigv4 *s, const char *a, const char *b, const char *c)
{
    size_t la = strlen(a);
    size_t lb = strlen(b);
    size_t lc = strlen(c);

    if (s->canon_len + la + lb + lc + 1 > sizeof(s->canon)) {
        return TERSE_ETOOBIG;
    }
    memcpy(s->canon + s->canon_len, a, la);
    memcpy(s->canon + s->canon_len + la, b, lb);
    memcpy(s->canon + s->canon_len + la + lb, c, lc);
    s->canon_len += la + lb + lc;
    s->canon[s->canon_len] = '\0';
    return TERSE_OK;
}

/* Derives (or reuses) the signing key for date (8 chars) and region. */
static int
signing_key(struct s3_sigv4 *s, const char *date, const char *region, const char *secret)
{
    char tag[65];
    uint8_t k[32];
    char seed[256];
    int rc;
    int n = snprintf(seed, sizeof(seed), "AWS4%s", secret);

    if (n < 0 || (size_t)n >= sizeof(seed)) {
        return TERSE_ETOOBIG;
    }
    if ((rc = s3_sigv4_sha256_hex(s, secret, strlen(secret), tag)) != TERSE_OK) {
        return rc;
    }
    if (strcmp(s->key_date, date) == 0 && strcmp(s->key_region, region) == 0 &&
        strcmp(s->key_secret_tag, tag) == 0) {
        return TERSE_OK;
    }
    if ((rc = hmac(s, (const uint8_t *)seed, (size_t)n, date, 8, k)) != TERSE_OK ||
        (rc = hmac(s, k, 32, region, strlen(region), k)) != TERSE_OK ||
        (rc = hmac(s, k, 32, "s3", 2, k)) != TERSE_OK ||
        (rc = hmac(s, k, 32, "aws4_request", 12, s->key)) != TERSE_OK) {
        s->key_date[0] = '\0';
        return rc;
    }
    memcpy(s->key_date, date, 8);
    s->key_date[8] = '\0';
    snprintf(s->key_region, sizeof(s->key_region), "%s", region);
    memcpy(s->key_secret_tag, tag, sizeof(tag));
    return TERSE_OK;
}

int
s3_sigv4_sign(struct s3_sigv4 *s, const struct s3_sigv4_request *req, char *auth,
              size_t auth_cap)
{
    char date[9];
    char scope[128];
    char hash[65];
    char sts[256];
    uint8_t sig[32];
    int rc;

    if (strlen(req->amz_date) != 16 || req->amz_date[8] != 'T') {
        return TERSE_EINVAL;
    }
    if (strlen(req->region) >= S3_SIGV4_REGION_MAX) {
        return TERSE_ETOOBIG;
    }
    memcpy(date, req->amz_date, 8);
    date[8] = '\0';
    snprintf(scope, sizeof(scope), "%s/%s/s3/aws4_request", date, req->region);

    s->canon_len = 0;
    s->canon[0] = '\0';
    if ((rc = canon_add(s, req->method, "\n", req->uri)) != TERSE_OK ||
        (rc = canon_add(s, "\n", req->query, "\n")) != TERSE_OK) {
        return rc;
    }
    for (size_t i = 0; i < req->n_headers; i++) {
        if ((rc = canon_add(s, req->headers[i].name, ":", req->headers[i].value)) != TERSE_OK ||
            (rc = canon_add(s, "\n", "", "")) != TERSE_OK) {
            return rc;
        }
    }
    size_t names_at = s->canon_len + 1; /* the signed names also go into Authorization */
    if ((rc = canon_add(s, "\n", "", "")) != TERSE_OK) {
        return rc;
    }
    for (size_t i = 0; i < req->n_headers; i++) {
        if ((rc = canon_add(s, i > 0 ? ";" : "", req->headers[i].name, "")) != TERSE_OK) {
            return rc;
        }
    }
    size_t names_len = s->canon_len - names_at;
    if ((rc = canon_add(s, "\n", req->payload_hash, "")) != TERSE_OK) {
        return rc;
    }
    if ((rc = s3_sigv4_sha256_hex(s, s->canon, s->canon_len, hash)) != TERSE_OK) {
        return rc;
    }
    int n = snprintf(sts, sizeof(sts), "AWS4-HMAC-SHA256\n%s\n%s\n%s", req->amz_date, scope,
                     hash);
    if (n < 0 || (size_t)n >= sizeof(sts)) {
        return TERSE_ETOOBIG;
    }
    if ((rc = signing_key(s, date, req->region, req->secret_key)) != TERSE_OK ||
        (rc = hmac(s, s->key, 32, sts, (size_t)n, sig)) != TERSE_OK) {
        return rc;
    }
    to_hex(sig, 32, s->signature);
    n = snprintf(auth, auth_cap,
                 "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%.*s, Signature=%s",
                 req->access_key, scope, (int)names_len, s->canon + names_at, s->signature);
    if (n < 0 || (size_t)n >= auth_cap) {
        return TERSE_EDSTSIZE;
    }
    return TERSE_OK;
}
