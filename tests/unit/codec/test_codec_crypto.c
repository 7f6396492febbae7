/*
 * test_codec_crypto: libterse's cachekit encryption layer (include/terse/crypto.h) against
 * $TERSE_SHARED/vectors/cachekit/encryption.json, read at test time: every derived key has the
 * pinned fingerprint, every AAD builds byte for byte, every ciphertext decrypts to its plaintext
 * and, encrypted again with the vector's own nonce, reproduces the ciphertext byte for byte.
 * Plus the nonce layout and counter (never wraps), tampering, room checks, argument limits and
 * OOM injection.
 */
#include "terse/crypto.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_fixture.h"

#include "codec_test_json.h"

static const char domain_enc[] = "encryption";

/* Derives tenant's encryption key from master_hex and checks its fingerprint. */
static void
derive_checked(const char *master_hex, const char *tenant, const char *fp_hex,
               uint8_t key[TERSE_KEY_LEN])
{
    struct bytes master = hex_bytes(master_hex), want = hex_bytes(fp_hex);
    uint8_t fp[TERSE_FINGERPRINT_LEN];

    assert_int_equal(terse_derive_key(master.p, master.len, domain_enc, strlen(domain_enc),
                                      tenant, strlen(tenant), key),
                     TERSE_OK);
    assert_int_equal(terse_key_fingerprint(key, fp), TERSE_OK);
    assert_int_equal(want.len, TERSE_FINGERPRINT_LEN);
    assert_memory_equal(fp, want.p, TERSE_FINGERPRINT_LEN);
    free(master.p);
    free(want.p);
}

/* One vector: AAD, decrypt, encrypt with the pinned nonce. Returns nothing; fails the test. */
static void
vector_check(const uint8_t key[TERSE_KEY_LEN], const char *tenant, const struct json *v)
{
    struct bytes aad = hex_bytes(json_str(v, "aad_hex"));
    struct bytes ct = hex_bytes(json_str(v, "ciphertext_hex"));
    struct bytes pt = hex_bytes(json_str(v, "plaintext_hex"));
    const struct json *comp = json_get(v, "compressed");
    uint8_t built[4096], *out = malloc(ct.len + 1), *again = malloc(ct.len + 1);
    size_t built_len = 0, out_len = 0, again_len = 0;
    terse_cipher *c = NULL;

    assert_true(out != NULL && again != NULL && comp != NULL);
    assert_int_equal(terse_aad_build(tenant, json_str(v, "cache_key"), json_str(v, "format"),
                                     comp->text[0] == 't', json_str(v, "original_type"), built,
                                     sizeof(built), &built_len),
                     TERSE_OK);
    assert_int_equal(built_len, aad.len);
    assert_memory_equal(built, aad.p, aad.len);
    assert_int_equal(terse_cipher_create(&c, key, NULL, 0, NULL), TERSE_OK);
    assert_int_equal(terse_decrypt(c, aad.p, aad.len, ct.p, ct.len, out, ct.len, &out_len),
                     TERSE_OK);
    assert_int_equal(out_len, pt.len);
    assert_memory_equal(out, pt.p, pt.len);
    assert_int_equal(terse_encrypt_with_nonce(c, ct.p, aad.p, aad.len, pt.p, pt.len, again,
                                              ct.len, &again_len),
                     TERSE_OK);
    assert_int_equal(again_len, ct.len);
    assert_memory_equal(again, ct.p, ct.len);
    /* The AAD is bound: one byte off and it does not open; the output is wiped. */
    aad.p[aad.len - 1] ^= 1;
    memset(out, 0xaa, ct.len);
    assert_int_equal(terse_decrypt(c, aad.p, aad.len, ct.p, ct.len, out, ct.len, &out_len),
                     TERSE_ECRYPTO);
    for (size_t i = 0; i < pt.len; i++) {
        assert_int_equal(out[i], 0);
    }
    terse_cipher_destroy(&c);
    assert_null(c);
    free(aad.p);
    free(ct.p);
    free(pt.p);
    free(out);
    free(again);
}

static void
test_vectors(void **state)
{
    struct json *root = vectors_load("encryption.json");
    const char *tenant = json_str(root, "tenant_id");
    const struct json *ring = json_get(root, "keyring"), *dflt = json_get(root, "default_tenant");
    uint8_t key[TERSE_KEY_LEN];
    int n = 0;

    (void)state;
    derive_checked(json_str(root, "master_key_hex"), tenant,
                   json_str(root, "derived_key_fingerprint_hex"), key);
    for (const struct json *v = json_get(root, "vectors")->child; v != NULL; v = v->next) {
        vector_check(key, tenant, v);
        n++;
    }
    derive_checked(json_str(root, "master_key_hex"), json_str(dflt, "tenant_id"),
                   json_str(dflt, "derived_key_fingerprint_hex"), key);
    for (const struct json *v = json_get(dflt, "vectors")->child; v != NULL; v = v->next) {
        vector_check(key, json_str(dflt, "tenant_id"), v);
        n++;
    }
    for (const struct json *v = json_get(ring, "vectors")->child; v != NULL; v = v->next) {
        const struct json *e = json_get(ring, "entries")->child;

        while (strcmp(json_str(e, "id"), json_str(v, "encrypted_with")) != 0) {
            e = e->next;
        }
        derive_checked(json_str(e, "master_key_hex"), json_str(ring, "tenant_id"),
                       json_str(v, "key_fingerprint_hex"), key);
        vector_check(key, json_str(ring, "tenant_id"), v);
        n++;
    }
    print_message("# encryption vectors: %d decrypted and re-encrypted byte for byte\n", n);
    assert_true(n >= 10);
    json_free(root);
}

static void
test_nonce_and_counter(void **state)
{
    static const uint8_t key[TERSE_KEY_LEN] = { 1, 2, 3 };
    static const uint8_t id[TERSE_INSTANCE_ID_LEN] = { 0xf8, 0xf6, 0x9c, 0x70, 0, 0, 0, 0 };
    uint8_t ct[64], pt[64];
    size_t len = 0, out_len = 0;
    terse_cipher *c = NULL;

    (void)state;
    assert_int_equal(terse_cipher_create(&c, key, id, 0, NULL), TERSE_OK);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(terse_encrypt(c, "a", 1, "hello", 5, ct, sizeof(ct), &len), TERSE_OK);
        assert_int_equal(len, 5 + TERSE_CRYPT_OVERHEAD);
        assert_memory_equal(ct, id, TERSE_INSTANCE_ID_LEN);
        assert_int_equal(ct[8] << 24 | ct[9] << 16 | ct[10] << 8 | ct[11], i);
        assert_int_equal(terse_decrypt(c, "a", 1, ct, len, pt, sizeof(pt), &out_len), TERSE_OK);
        assert_memory_equal(pt, "hello", 5);
    }
    /* Room refused before the counter moves. */
    assert_int_equal(terse_encrypt(c, NULL, 0, "hello", 5, ct, 5 + TERSE_CRYPT_OVERHEAD - 1,
                                   &len),
                     TERSE_EDSTSIZE);
    assert_int_equal(terse_encrypt(c, NULL, 0, "hello", 5, ct, sizeof(ct), &len), TERSE_OK);
    assert_int_equal(ct[11], 3);
    terse_cipher_destroy(&c);

    /* The last counter is used once, then the cipher refuses: no wrap to 0, no reuse. */
    assert_int_equal(terse_cipher_create(&c, key, id, TERSE_COUNTER_LIMIT - 1, NULL), TERSE_OK);
    assert_int_equal(terse_encrypt(c, NULL, 0, "x", 1, ct, sizeof(ct), &len), TERSE_OK);
    assert_memory_equal(ct + 8, "\xff\xff\xff\xfe", 4);
    for (int i = 0; i < 3; i++) {
        memset(ct, 0x55, sizeof(ct));
        assert_int_equal(terse_encrypt(c, NULL, 0, "x", 1, ct, sizeof(ct), &len),
                         TERSE_EEXHAUSTED);
        assert_int_equal(ct[0], 0x55); /* nothing written */
    }
    terse_cipher_destroy(&c);
    assert_int_equal(terse_cipher_create(&c, key, id, TERSE_COUNTER_LIMIT, NULL), TERSE_OK);
    assert_int_equal(terse_encrypt(c, NULL, 0, "x", 1, ct, sizeof(ct), &len), TERSE_EEXHAUSTED);
    terse_cipher_destroy(&c);

    /* Random instance ids differ. */
    {
        terse_cipher *d = NULL;
        uint8_t ct2[64];

        assert_int_equal(terse_cipher_create(&c, key, NULL, 0, NULL), TERSE_OK);
        assert_int_equal(terse_cipher_create(&d, key, NULL, 0, NULL), TERSE_OK);
        assert_int_equal(terse_encrypt(c, NULL, 0, "x", 1, ct, sizeof(ct), &len), TERSE_OK);
        assert_int_equal(terse_encrypt(d, NULL, 0, "x", 1, ct2, sizeof(ct2), &len), TERSE_OK);
        assert_memory_not_equal(ct, ct2, TERSE_INSTANCE_ID_LEN);
        terse_cipher_destroy(&c);
        terse_cipher_destroy(&d);
    }
    terse_cipher_destroy(NULL);
    terse_cipher_destroy(&c);
}

static void
test_tamper_and_limits(void **state)
{
    static const uint8_t key[TERSE_KEY_LEN] = { 9 };
    static const uint8_t other[TERSE_KEY_LEN] = { 8 };
    uint8_t ct[300], pt[300], msg[256];
    size_t len = 0, out_len = 0;
    terse_cipher *c = NULL, *o = NULL;

    (void)state;
    for (size_t i = 0; i < sizeof(msg); i++) {
        msg[i] = (uint8_t)i;
    }
    assert_int_equal(terse_cipher_create(&c, key, NULL, 0, NULL), TERSE_OK);
    assert_int_equal(terse_cipher_create(&o, other, NULL, 0, NULL), TERSE_OK);
    assert_int_equal(terse_encrypt(c, "aad", 3, msg, sizeof(msg), ct, sizeof(ct), &len),
                     TERSE_OK);
    for (size_t i = 0; i < len; i++) { /* every byte: nonce, ciphertext, tag */
        ct[i] ^= 0x40;
        assert_int_equal(terse_decrypt(c, "aad", 3, ct, len, pt, sizeof(pt), &out_len),
                         TERSE_ECRYPTO);
        ct[i] ^= 0x40;
    }
    assert_int_equal(terse_decrypt(o, "aad", 3, ct, len, pt, sizeof(pt), &out_len),
                     TERSE_ECRYPTO);
    assert_int_equal(terse_decrypt(c, "aab", 3, ct, len, pt, sizeof(pt), &out_len),
                     TERSE_ECRYPTO);
    assert_int_equal(terse_decrypt(c, "aad", 3, ct, len - 1, pt, sizeof(pt), &out_len),
                     TERSE_ECRYPTO);
    assert_int_equal(terse_decrypt(c, "aad", 3, ct, TERSE_CRYPT_OVERHEAD - 1, pt, sizeof(pt),
                                   &out_len),
                     TERSE_EPROTO);
    assert_int_equal(terse_decrypt(c, "aad", 3, ct, len, pt, sizeof(msg) - 1, &out_len),
                     TERSE_EDSTSIZE);
    assert_int_equal(terse_decrypt(c, "aad", 3, ct, len, pt, sizeof(msg), &out_len), TERSE_OK);
    assert_memory_equal(pt, msg, sizeof(msg));
    /* Empty plaintext: 28 bytes, no room needed. */
    assert_int_equal(terse_encrypt(c, NULL, 0, NULL, 0, ct, sizeof(ct), &len), TERSE_OK);
    assert_int_equal(len, TERSE_CRYPT_OVERHEAD);
    assert_int_equal(terse_decrypt(c, NULL, 0, ct, len, NULL, 0, &out_len), TERSE_OK);
    assert_int_equal(out_len, 0);
    /* Arguments. */
    assert_int_equal(terse_encrypt(NULL, NULL, 0, "x", 1, ct, sizeof(ct), &len), TERSE_EINVAL);
    assert_int_equal(terse_encrypt(c, NULL, 1, "x", 1, ct, sizeof(ct), &len), TERSE_EINVAL);
    assert_int_equal(terse_encrypt(c, NULL, 0, NULL, 1, ct, sizeof(ct), &len), TERSE_EINVAL);
    assert_int_equal(terse_decrypt(c, NULL, 0, ct, len, pt, sizeof(pt), NULL), TERSE_EINVAL);
    assert_int_equal(terse_cipher_create(NULL, key, NULL, 0, NULL), TERSE_EINVAL);
    terse_cipher_destroy(&c);
    terse_cipher_destroy(&o);
}

static void
test_derive_limits(void **state)
{
    uint8_t master[64], key[TERSE_KEY_LEN], k2[TERSE_KEY_LEN], tenant[TERSE_TENANT_MAX + 1];
    char domain[TERSE_DOMAIN_MAX + 1], aad[64];
    size_t aad_len = 0;

    (void)state;
    memset(master, 'm', sizeof(master));
    memset(domain, 'd', sizeof(domain));
    memset(tenant, 't', sizeof(tenant));
    assert_int_equal(terse_derive_key(master, TERSE_MASTER_KEY_MIN, domain, TERSE_DOMAIN_MAX,
                                      tenant, TERSE_TENANT_MAX, key),
                     TERSE_OK);
    assert_int_equal(terse_derive_key(master, TERSE_MASTER_KEY_MIN - 1, domain, 1, tenant, 1,
                                      key),
                     TERSE_EINVAL);
    assert_int_equal(terse_derive_key(master, 32, domain, TERSE_DOMAIN_MAX + 1, tenant, 1, key),
                     TERSE_EINVAL);
    assert_int_equal(terse_derive_key(master, 32, domain, 1, tenant, TERSE_TENANT_MAX + 1, key),
                     TERSE_EINVAL);
    assert_int_equal(terse_derive_key(master, 32, domain, 0, tenant, 1, key), TERSE_EINVAL);
    assert_int_equal(terse_derive_key(master, 32, domain, 1, tenant, 0, key), TERSE_EINVAL);
    assert_int_equal(terse_derive_key(NULL, 32, domain, 1, tenant, 1, key), TERSE_EINVAL);
    /* Domain separation: same master and tenant, other domain, other key. */
    assert_int_equal(terse_derive_key(master, 32, "encryption", 10, tenant, 4, key), TERSE_OK);
    assert_int_equal(terse_derive_key(master, 32, "cache_keys", 10, tenant, 4, k2), TERSE_OK);
    assert_memory_not_equal(key, k2, TERSE_KEY_LEN);
    assert_int_equal(terse_key_fingerprint(NULL, k2), TERSE_EINVAL);
    /* AAD room. */
    assert_int_equal(terse_aad_build("t", "k", "msgpack", 0, NULL, aad, sizeof(aad), &aad_len),
                     TERSE_OK);
    assert_int_equal(aad_len, 1 + 4 + 1 + 4 + 1 + 4 + 7 + 4 + 5);
    assert_int_equal(terse_aad_build("t", "k", "msgpack", 0, NULL, aad, aad_len - 1, &aad_len),
                     TERSE_EDSTSIZE);
    assert_int_equal(terse_aad_build(NULL, "k", "msgpack", 0, NULL, aad, sizeof(aad), &aad_len),
                     TERSE_EINVAL);
}

static void
test_create_oom(void **state)
{
    static const uint8_t key[TERSE_KEY_LEN] = { 7 };
    struct count_alloc ca = { 0, 1, 0 };
    terse_allocator a = { count_alloc_fn, count_free_fn, &ca };
    terse_cipher *c = NULL;

    (void)state;
    assert_int_equal(terse_cipher_create(&c, key, NULL, 0, &a), TERSE_ENOMEM);
    assert_null(c);
    assert_int_equal(ca.n_live, 0);
    ca.fail_at = 0;
    assert_int_equal(terse_cipher_create(&c, key, NULL, 0, &a), TERSE_OK);
    assert_int_equal(ca.n_live, 1);
    terse_cipher_destroy(&c);
    assert_int_equal(ca.n_live, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_nonce_and_counter),
        cmocka_unit_test(test_tamper_and_limits),
        cmocka_unit_test(test_derive_limits),
        cmocka_unit_test(test_create_oom),
    };

    return cmocka_run_group_tests_name("codec_crypto", tests, NULL, NULL);
}
