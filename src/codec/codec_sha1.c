/*
 * codec_sha1: one call to libcrypto's EVP one-shot digest; nothing of SHA-1 is written here.
 */
#include "codec/codec_sha1.h"

#include <openssl/evp.h>

#include "terse/status.h"

int codec_sha1(const void *p, size_t n, uint8_t out[CODEC_SHA1_LEN])
{
    static const uint8_t empty[1];
    unsigned int len = 0;

    if (EVP_Digest(n > 0 ? p : empty, n, out, &len, EVP_sha1(), NULL) != 1 ||
        len != CODEC_SHA1_LEN) {
        return TERSE_ENOMEM;
    }
    return TERSE_OK;
}

struct codec_sha1_ctx {
    EVP_MD *md;      /* fetched once: no implicit fetch per digest */
    EVP_MD_CTX *ctx; /* reset and reused by each digest */
};

int codec_sha1_ctx_create(struct codec_sha1_ctx **out)
{
    struct codec_sha1_ctx *c = OPENSSL_zalloc(sizeof(*c));

    *out = NULL;
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    c->md = EVP_MD_fetch(NULL, "SHA1", NULL);
    c->ctx = EVP_MD_CTX_new();
    if (c->md == NULL || c->ctx == NULL) {
        codec_sha1_ctx_destroy(&c);
        return TERSE_ENOMEM;
    }
    *out = c;
    return TERSE_OK;
}

void codec_sha1_ctx_destroy(struct codec_sha1_ctx **pp)
{
    if (pp == NULL || *pp == NULL) {
        return;
    }
    EVP_MD_CTX_free((*pp)->ctx);
    EVP_MD_free((*pp)->md);
    OPENSSL_free(*pp);
    *pp = NULL;
}

int codec_sha1_ctx_digest(struct codec_sha1_ctx *ctx, const void *p, size_t n,
                          uint8_t out[CODEC_SHA1_LEN])
{
    static const uint8_t empty[1];
    unsigned int len = 0;

    if (EVP_DigestInit_ex2(ctx->ctx, ctx->md, NULL) != 1 ||
        EVP_DigestUpdate(ctx->ctx, n > 0 ? p : empty, n) != 1 ||
        EVP_DigestFinal_ex(ctx->ctx, out, &len) != 1 || len != CODEC_SHA1_LEN) {
        return TERSE_ENOMEM;
    }
    return TERSE_OK;
}
