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
