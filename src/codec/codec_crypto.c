/*
 * codec_crypto: cachekit's AES-256-GCM layer and HKDF-SHA256 tenant keys (include/terse/
 * crypto.h), on OpenSSL libcrypto's EVP interface. Nothing cryptographic is implemented here:
 * this file only lays bytes out as the protocol says and calls libcrypto.
 *
 *   sealed:  | nonce: instance id (8, BE) | counter (4, BE) | ciphertext (n) | tag (16) |
 *   salt:    | "cachekit_v1_" | u8 len | domain | u16-BE len | tenant |
 *   AAD v3:  | 03 | u32-BE len | tenant | u32-BE len | cache key | ... format, "True"/"False",
 *            | optional original_type |
 *
 * A cipher keeps one encryption and one decryption EVP context, keyed once at create; each
 * message only sets its nonce. Invariant: next_counter < TERSE_COUNTER_LIMIT while the cipher
 * may still encrypt; it is checked and advanced before any byte is written, so a nonce is
 * never used twice, even after a failure.
 */
#include "terse/crypto.h"

#include "codec/codec_alloc.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <string.h>

#define SALT_PREFIX "cachekit_v1_"
#define SALT_PREFIX_LEN (sizeof(SALT_PREFIX) - 1)
#define SALT_MAX (SALT_PREFIX_LEN + 1 + TERSE_DOMAIN_MAX + 2 + TERSE_TENANT_MAX)
#define FINGERPRINT_PREFIX "key_fingerprint_v1"

struct terse_cipher {
    terse_allocator alloc;                  /* copy of the creator's allocator */
    EVP_CIPHER_CTX *enc;                    /* keyed once, owned */
    EVP_CIPHER_CTX *dec;                    /* keyed once, owned */
    uint8_t instance_id[TERSE_INSTANCE_ID_LEN];
    uint32_t next_counter;                  /* counter of the next nonce */
};

/* ---- key derivation ---------------------------------------------------------------------- */

int
terse_derive_key(const void *master, size_t master_len, const void *domain, size_t domain_len,
                 const void *tenant, size_t tenant_len, uint8_t key[TERSE_KEY_LEN])
{
    uint8_t salt[SALT_MAX];
    size_t salt_len = 0, key_len = TERSE_KEY_LEN;
    EVP_PKEY_CTX *pc;
    int ok;

    if (master == NULL || domain == NULL || tenant == NULL || key == NULL ||
        master_len < TERSE_MASTER_KEY_MIN || master_len > INT_MAX || domain_len == 0 ||
        domain_len > TERSE_DOMAIN_MAX || tenant_len == 0 || tenant_len > TERSE_TENANT_MAX) {
        return TERSE_EINVAL;
    }
    memcpy(salt, SALT_PREFIX, SALT_PREFIX_LEN);
    salt_len = SALT_PREFIX_LEN;
    salt[salt_len++] = (uint8_t)domain_len;
    memcpy(salt + salt_len, domain, domain_len);
    salt_len += domain_len;
    salt[salt_len++] = (uint8_t)(tenant_len >> 8);
    salt[salt_len++] = (uint8_t)tenant_len;
    memcpy(salt + salt_len, tenant, tenant_len);
    salt_len += tenant_len;

    pc = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    ok = pc != NULL && EVP_PKEY_derive_init(pc) > 0 &&
         EVP_PKEY_CTX_set_hkdf_md(pc, EVP_sha256()) > 0 &&
         EVP_PKEY_CTX_set1_hkdf_salt(pc, salt, (int)salt_len) > 0 &&
         EVP_PKEY_CTX_set1_hkdf_key(pc, master, (int)master_len) > 0 &&
         EVP_PKEY_CTX_add1_hkdf_info(pc, domain, (int)domain_len) > 0 &&
         EVP_PKEY_derive(pc, key, &key_len) > 0 && key_len == TERSE_KEY_LEN;
    EVP_PKEY_CTX_free(pc); /* libcrypto wipes the key material it copied */
    OPENSSL_cleanse(salt, sizeof(salt));
    if (!ok) {
        OPENSSL_cleanse(key, TERSE_KEY_LEN);
        return TERSE_ECRYPTO;
    }
    return TERSE_OK;
}

int
terse_key_fingerprint(const uint8_t key[TERSE_KEY_LEN], uint8_t fp[TERSE_FINGERPRINT_LEN])
{
    uint8_t buf[sizeof(FINGERPRINT_PREFIX) - 1 + TERSE_KEY_LEN], md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    int ok;

    if (key == NULL || fp == NULL) {
        return TERSE_EINVAL;
    }
    memcpy(buf, FINGERPRINT_PREFIX, sizeof(FINGERPRINT_PREFIX) - 1);
    memcpy(buf + sizeof(FINGERPRINT_PREFIX) - 1, key, TERSE_KEY_LEN);
    ok = EVP_Digest(buf, sizeof(buf), md, &md_len, EVP_sha256(), NULL) > 0 &&
         md_len >= TERSE_FINGERPRINT_LEN;
    if (ok) {
        memcpy(fp, md, TERSE_FINGERPRINT_LEN);
    }
    OPENSSL_cleanse(buf, sizeof(buf));
    OPENSSL_cleanse(md, sizeof(md));
    return ok ? TERSE_OK : TERSE_ECRYPTO;
}

/* ---- AAD --------------------------------------------------------------------------------- */

/* Appends u32-BE length || bytes at dst + *pos if it fits in cap; always advances *pos. */
static void
aad_put(uint8_t *dst, size_t cap, size_t *pos, const char *s, size_t n)
{
    if (*pos <= cap && cap - *pos >= 4 + n) {
        dst[*pos] = (uint8_t)(n >> 24);
        dst[*pos + 1] = (uint8_t)(n >> 16);
        dst[*pos + 2] = (uint8_t)(n >> 8);
        dst[*pos + 3] = (uint8_t)n;
        memcpy(dst + *pos + 4, s, n);
    }
    *pos += 4 + n;
}

int
terse_aad_build(const char *tenant, const char *cache_key, const char *format, int compressed,
                const char *original_type, void *dst, size_t dst_cap, size_t *dst_len)
{
    const char *flag = compressed ? "True" : "False";
    const char *part[5] = { tenant, cache_key, format, flag, original_type };
    size_t n_parts = original_type != NULL ? 5 : 4, pos = 1, len[5];

    if (tenant == NULL || cache_key == NULL || format == NULL || dst_len == NULL ||
        (dst == NULL && dst_cap > 0)) {
        return TERSE_EINVAL;
    }
    for (size_t i = 0; i < n_parts; i++) {
        len[i] = strlen(part[i]);
        if (len[i] > UINT32_MAX) {
            return TERSE_EINVAL;
        }
    }
    for (size_t i = 0; i < n_parts; i++) { /* the total first: nothing written if it won't fit */
        pos += 4 + len[i];
    }
    if (pos > dst_cap) {
        return TERSE_EDSTSIZE;
    }
    ((uint8_t *)dst)[0] = TERSE_AAD_VERSION;
    pos = 1;
    for (size_t i = 0; i < n_parts; i++) {
        aad_put(dst, dst_cap, &pos, part[i], len[i]);
    }
    *dst_len = pos;
    return TERSE_OK;
}

/* ---- cipher ------------------------------------------------------------------------------ */

int
terse_cipher_create(terse_cipher **out, const uint8_t key[TERSE_KEY_LEN],
                    const uint8_t *instance_id, uint32_t first_counter,
                    const terse_allocator *alloc)
{
    terse_allocator a;
    terse_cipher *c;
    int rc = TERSE_ECRYPTO;

    if (out == NULL || key == NULL || codec_alloc_pick(alloc, &a) != TERSE_OK) {
        return TERSE_EINVAL;
    }
    c = a.alloc(a.opaque, sizeof(*c));
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    memset(c, 0, sizeof(*c));
    c->alloc = a;
    c->next_counter = first_counter;
    c->enc = EVP_CIPHER_CTX_new();
    c->dec = EVP_CIPHER_CTX_new();
    if (c->enc == NULL || c->dec == NULL) {
        rc = TERSE_ENOMEM;
        goto fail;
    }
    if (instance_id != NULL) {
        memcpy(c->instance_id, instance_id, TERSE_INSTANCE_ID_LEN);
    } else if (RAND_bytes(c->instance_id, TERSE_INSTANCE_ID_LEN) != 1) {
        goto fail;
    }
    /* Keyed once; the nonce length is GCM's default (12), set per message. */
    if (EVP_EncryptInit_ex(c->enc, EVP_aes_256_gcm(), NULL, key, NULL) != 1 ||
        EVP_DecryptInit_ex(c->dec, EVP_aes_256_gcm(), NULL, key, NULL) != 1) {
        goto fail;
    }
    *out = c;
    return TERSE_OK;
fail:
    terse_cipher_destroy(&c);
    return rc;
}

void
terse_cipher_destroy(terse_cipher **pp)
{
    terse_allocator a;
    terse_cipher *c;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    c = *pp;
    a = c->alloc;
    EVP_CIPHER_CTX_free(c->enc); /* libcrypto wipes the key schedule */
    EVP_CIPHER_CTX_free(c->dec);
    OPENSSL_cleanse(c, sizeof(*c));
    a.free(a.opaque, c);
    *pp = NULL;
}

/* Seals src under nonce into dst (room already checked): nonce || ciphertext || tag. */
static int
seal(EVP_CIPHER_CTX *x, const uint8_t *nonce, const void *aad, size_t aad_len,
     const uint8_t *src, size_t src_len, uint8_t *dst)
{
    int n = 0, m = 0;

    memcpy(dst, nonce, TERSE_NONCE_LEN);
    if (EVP_EncryptInit_ex(x, NULL, NULL, NULL, nonce) != 1 ||
        (aad_len > 0 && EVP_EncryptUpdate(x, NULL, &n, aad, (int)aad_len) != 1) ||
        (src_len > 0 &&
         EVP_EncryptUpdate(x, dst + TERSE_NONCE_LEN, &n, src, (int)src_len) != 1) ||
        EVP_EncryptFinal_ex(x, dst + TERSE_NONCE_LEN + (src_len > 0 ? n : 0), &m) != 1 ||
        EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, TERSE_TAG_LEN,
                            dst + TERSE_NONCE_LEN + src_len) != 1) {
        return TERSE_ECRYPTO;
    }
    return TERSE_OK;
}

/* Common argument checks; dst is checked by each caller (decrypt may write nothing). */
static int
check_args(const terse_cipher *c, const void *aad, size_t aad_len, const void *src,
           size_t src_len, size_t *dst_len)
{
    if (c == NULL || dst_len == NULL || (aad == NULL && aad_len > 0) ||
        (src == NULL && src_len > 0)) {
        return TERSE_EINVAL;
    }
    if (src_len > INT_MAX - TERSE_CRYPT_OVERHEAD || aad_len > INT_MAX) {
        return TERSE_ETOOBIG;
    }
    return TERSE_OK;
}

static int
encrypt_nonce(terse_cipher *c, const uint8_t *nonce, const void *aad, size_t aad_len,
              const void *src, size_t src_len, void *dst, size_t *dst_len)
{
    int rc = seal(c->enc, nonce, aad, aad_len, src, src_len, dst);

    if (rc != TERSE_OK) {
        OPENSSL_cleanse(dst, src_len + TERSE_CRYPT_OVERHEAD);
        return rc;
    }
    *dst_len = src_len + TERSE_CRYPT_OVERHEAD;
    return TERSE_OK;
}

int
terse_encrypt(terse_cipher *c, const void *aad, size_t aad_len, const void *src,
              size_t src_len, void *dst, size_t dst_cap, size_t *dst_len)
{
    uint8_t nonce[TERSE_NONCE_LEN];
    uint32_t ctr;
    int rc = check_args(c, aad, aad_len, src, src_len, dst_len);

    if (rc != TERSE_OK) {
        return rc;
    }
    if (dst == NULL || dst_cap < src_len + TERSE_CRYPT_OVERHEAD) {
        return TERSE_EDSTSIZE;
    }
    if (c->next_counter >= TERSE_COUNTER_LIMIT) {
        return TERSE_EEXHAUSTED;
    }
    ctr = c->next_counter++; /* used from here on, whatever happens next */
    memcpy(nonce, c->instance_id, TERSE_INSTANCE_ID_LEN);
    nonce[8] = (uint8_t)(ctr >> 24);
    nonce[9] = (uint8_t)(ctr >> 16);
    nonce[10] = (uint8_t)(ctr >> 8);
    nonce[11] = (uint8_t)ctr;
    return encrypt_nonce(c, nonce, aad, aad_len, src, src_len, dst, dst_len);
}

int
terse_encrypt_with_nonce(terse_cipher *c, const uint8_t nonce[TERSE_NONCE_LEN],
                         const void *aad, size_t aad_len, const void *src, size_t src_len,
                         void *dst, size_t dst_cap, size_t *dst_len)
{
    int rc = check_args(c, aad, aad_len, src, src_len, dst_len);

    if (rc != TERSE_OK) {
        return rc;
    }
    if (nonce == NULL) {
        return TERSE_EINVAL;
    }
    if (dst == NULL || dst_cap < src_len + TERSE_CRYPT_OVERHEAD) {
        return TERSE_EDSTSIZE;
    }
    return encrypt_nonce(c, nonce, aad, aad_len, src, src_len, dst, dst_len);
}

int
terse_decrypt(terse_cipher *c, const void *aad, size_t aad_len, const void *src,
              size_t src_len, void *dst, size_t dst_cap, size_t *dst_len)
{
    const uint8_t *in = src;
    uint8_t tag[TERSE_TAG_LEN], dummy, *out = dst != NULL ? dst : &dummy;
    size_t n;
    int got = 0, fin = 0, rc;

    rc = check_args(c, aad, aad_len, src, src_len, dst_len);
    if (rc != TERSE_OK) {
        return rc;
    }
    if (src_len < TERSE_CRYPT_OVERHEAD) {
        return TERSE_EPROTO;
    }
    n = src_len - TERSE_CRYPT_OVERHEAD;
    if (dst_cap < n || (dst == NULL && n > 0)) {
        return TERSE_EDSTSIZE;
    }
    memcpy(tag, in + TERSE_NONCE_LEN + n, TERSE_TAG_LEN); /* ctrl takes a non-const pointer */
    if (EVP_DecryptInit_ex(c->dec, NULL, NULL, NULL, in) != 1 ||
        (aad_len > 0 && EVP_DecryptUpdate(c->dec, NULL, &got, aad, (int)aad_len) != 1) ||
        (n > 0 && EVP_DecryptUpdate(c->dec, out, &got, in + TERSE_NONCE_LEN, (int)n) != 1) ||
        EVP_CIPHER_CTX_ctrl(c->dec, EVP_CTRL_GCM_SET_TAG, TERSE_TAG_LEN, tag) != 1 ||
        EVP_DecryptFinal_ex(c->dec, out + (n > 0 ? got : 0), &fin) != 1) {
        if (n > 0) {
            OPENSSL_cleanse(dst, n); /* unauthenticated bytes are never plaintext */
        }
        return TERSE_ECRYPTO;
    }
    *dst_len = n;
    return TERSE_OK;
}
