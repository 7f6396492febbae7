/*
 * codec_internal: declarations shared inside src/codec/ (and by its tests and fuzz targets),
 * not part of libterse's public API.
 */
#ifndef TERSE_CODEC_INTERNAL_H
#define TERSE_CODEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* A parsed envelope: views into the caller's env buffer, valid while that buffer is. */
struct codec_env_view {
    const uint8_t *block;  /* bin payload, or the first legacy element */
    size_t block_len;      /* block bytes (legacy: element count) */
    int legacy;            /* block is an array of ints */
    uint64_t checksum;     /* XXH3-64, assembled from the 8 big-endian ints */
    uint64_t orig_len;     /* original_size as written (full 64 bits) */
    const uint8_t *format; /* str payload */
    size_t format_len;
};

/* codec_envelope_parse flags. */
#define CODEC_ENV_GENERAL 1 /* skip the fixed-shape walk: general pre-scan + typed decode only */

/*
 * Retrieve steps 1-5 of codec_envelope.c (caps, structure, shape, ratio) on env: a fixed-shape
 * walk for the canonical envelope, else the general MessagePack pre-scan and typed decode. Both
 * give the same status and view for every input (tests and the envelope_retrieve fuzz target
 * compare them through CODEC_ENV_GENERAL). Returns TERSE_OK, TERSE_ETOOBIG, TERSE_EPROTO,
 * TERSE_ERATIO. No allocation; any thread.
 */
int codec_envelope_parse(const void *env, size_t env_len, struct codec_env_view *e,
                         unsigned flags);

#endif /* TERSE_CODEC_INTERNAL_H */
