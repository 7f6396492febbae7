/*
 * libterse encryption: the cachekit protocol's optional AES-256-GCM layer over envelope bytes,
 * with HKDF-SHA256 per-tenant keys (OpenSSL libcrypto).
 *
 *   ciphertext = nonce (TERSE_NONCE_LEN) || AES-256-GCM(plaintext) || tag (TERSE_TAG_LEN)
 *   nonce      = instance id (8 bytes, big-endian) || counter (4 bytes, big-endian, from 0)
 *
 * A terse_cipher holds one key, one instance id and the next counter. The counter never wraps
 * and a nonce is never reused: once it reaches TERSE_COUNTER_LIMIT every terse_encrypt returns
 * TERSE_EEXHAUSTED (create a new cipher: a new instance id). Key material we hold is wiped with
 * OPENSSL_cleanse after use (derivation buffers at once; the cipher's key schedule when it is
 * destroyed; libcrypto wipes its own contexts when freed).
 *
 * Allocation: a cipher's struct comes from the terse_allocator given (NULL: libc); libcrypto
 * allocates its cipher contexts itself (at create only; encrypt/decrypt allocate nothing of
 * ours). Threading: a terse_cipher is used by one thread at a time; the other functions may be
 * called from any thread.
 */
#ifndef TERSE_CRYPTO_H
#define TERSE_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"
#include "terse/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TERSE_KEY_LEN 32         /* AES-256 key, and each derived key */
#define TERSE_NONCE_LEN 12       /* GCM nonce: instance id (8) || counter (4) */
#define TERSE_INSTANCE_ID_LEN 8
#define TERSE_TAG_LEN 16         /* GCM tag */
#define TERSE_CRYPT_OVERHEAD (TERSE_NONCE_LEN + TERSE_TAG_LEN) /* ciphertext - plaintext */
#define TERSE_MASTER_KEY_MIN 16  /* bytes of master key terse_derive_key accepts at least */
#define TERSE_DOMAIN_MAX 255     /* derivation domain: 1..TERSE_DOMAIN_MAX bytes */
#define TERSE_TENANT_MAX 1024    /* tenant id: 1..TERSE_TENANT_MAX bytes */
#define TERSE_FINGERPRINT_LEN 16 /* key fingerprint bytes */
#define TERSE_COUNTER_LIMIT 0xffffffffu /* counters 0..TERSE_COUNTER_LIMIT - 1 are used */
#define TERSE_AAD_VERSION 0x03

typedef struct terse_cipher terse_cipher;

/*
 * terse_derive_key: HKDF-SHA256 as cachekit's derive_domain_key: IKM = master, salt =
 * "cachekit_v1_" || u8 domain_len || domain || u16-BE tenant_len || tenant, info = domain,
 * 32 bytes into key. Per-tenant keys use the domains "encryption", "authentication" and
 * "cache_keys" with the tenant id as tenant. All inputs borrowed; key: output of
 * TERSE_KEY_LEN bytes (the caller wipes it after use). Returns TERSE_OK, TERSE_EINVAL (NULL
 * pointer, master shorter than TERSE_MASTER_KEY_MIN, domain or tenant empty or beyond
 * TERSE_DOMAIN_MAX / TERSE_TENANT_MAX) or TERSE_ECRYPTO (libcrypto failed; key zeroed).
 */
int terse_derive_key(const void *master, size_t master_len, const void *domain,
                     size_t domain_len, const void *tenant, size_t tenant_len,
                     uint8_t key[TERSE_KEY_LEN]);

/*
 * terse_key_fingerprint: the first TERSE_FINGERPRINT_LEN bytes of SHA-256("key_fingerprint_v1"
 * || key), cachekit's way to name a derived key without revealing it. Returns TERSE_OK,
 * TERSE_EINVAL (NULL) or TERSE_ECRYPTO.
 */
int terse_key_fingerprint(const uint8_t key[TERSE_KEY_LEN], uint8_t fp[TERSE_FINGERPRINT_LEN]);

/*
 * terse_aad_build: cachekit's AAD v0x03 into dst: byte TERSE_AAD_VERSION, then tenant,
 * cache_key, format and "True"/"False" (compressed != 0), each as u32-BE length || bytes.
 * original_type (may be NULL: left out, as interop mode requires) is appended the same way.
 * dst: output of dst_cap bytes; *dst_len its length. Returns TERSE_OK, TERSE_EINVAL (NULL
 * pointer other than original_type, a length beyond UINT32_MAX) or TERSE_EDSTSIZE.
 */
int terse_aad_build(const char *tenant, const char *cache_key, const char *format,
                    int compressed, const char *original_type, void *dst, size_t dst_cap,
                    size_t *dst_len);

/*
 * terse_cipher_create: a cipher for key (borrowed: copied into libcrypto's key schedule, our
 * copy wiped). instance_id: TERSE_INSTANCE_ID_LEN bytes, or NULL for 8 random bytes
 * (RAND_bytes). first_counter: the counter of the first nonce (0 for a new instance id; a
 * caller resuming a persisted instance passes the next unused value). alloc: NULL means libc.
 * Returns TERSE_OK, TERSE_EINVAL (NULL out or key), TERSE_ENOMEM, TERSE_ECRYPTO (libcrypto or
 * its random generator failed). Nothing leaks on failure.
 */
int terse_cipher_create(terse_cipher **out, const uint8_t key[TERSE_KEY_LEN],
                        const uint8_t *instance_id, uint32_t first_counter,
                        const terse_allocator *alloc);

/* Wipes and frees *pp, sets it NULL; NULL or *pp == NULL is a no-op. */
void terse_cipher_destroy(terse_cipher **pp);

/*
 * terse_encrypt: seals src with the next nonce (instance id || counter, then counter + 1) and
 * AAD aad (may be NULL when aad_len == 0). dst: output of dst_cap >= src_len +
 * TERSE_CRYPT_OVERHEAD bytes; *dst_len = src_len + TERSE_CRYPT_OVERHEAD. src and dst must not
 * overlap. Returns TERSE_OK, TERSE_EINVAL (NULL c, dst_len, or data pointer with a length),
 * TERSE_EDSTSIZE (nothing written, counter unchanged), TERSE_ETOOBIG (src_len beyond
 * INT_MAX), TERSE_EEXHAUSTED (counter at TERSE_COUNTER_LIMIT: nothing written), TERSE_ECRYPTO
 * (dst zeroed; the nonce counts as used). Reuses the libcrypto contexts made at create.
 */
int terse_encrypt(terse_cipher *c, const void *aad, size_t aad_len, const void *src,
                  size_t src_len, void *dst, size_t dst_cap, size_t *dst_len);

/*
 * terse_encrypt_with_nonce: as terse_encrypt with an explicit nonce (interop and known-answer
 * tests); the counter is neither used nor advanced. Reusing a nonce under one key breaks
 * GCM: outside tests, use terse_encrypt.
 */
int terse_encrypt_with_nonce(terse_cipher *c, const uint8_t nonce[TERSE_NONCE_LEN],
                             const void *aad, size_t aad_len, const void *src, size_t src_len,
                             void *dst, size_t dst_cap, size_t *dst_len);

/*
 * terse_decrypt: opens src (nonce || ciphertext || tag, any nonce) with AAD aad. dst: output
 * of dst_cap >= src_len - TERSE_CRYPT_OVERHEAD bytes; *dst_len the plaintext length. Returns
 * TERSE_OK, TERSE_EINVAL, TERSE_EPROTO (src shorter than TERSE_CRYPT_OVERHEAD), TERSE_EDSTSIZE
 * (nothing written), TERSE_ETOOBIG, TERSE_ECRYPTO (wrong key, AAD, or tampered bytes: dst is
 * zeroed, never returned as plaintext). Reuses the libcrypto contexts made at create.
 */
int terse_decrypt(terse_cipher *c, const void *aad, size_t aad_len, const void *src,
                  size_t src_len, void *dst, size_t dst_cap, size_t *dst_len);

#ifdef __cplusplus
}
#endif

#endif /* TERSE_CRYPTO_H */
