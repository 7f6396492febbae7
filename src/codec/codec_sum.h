/*
 * codec_sum: the XXH3-64 checksum every stored value, chunk and snapshot block carries.
 *
 * libxxhash's XXH3_64bits runs its SSE2 loop (about 1.1 instructions a byte on 1-2 KiB under
 * callgrind); the same library's XXH3_64bits_dispatch picks the widest loop the CPU has at
 * run time (AVX2 here: about 0.45 a byte). Both compute the one XXH3 function, so sums agree
 * with cachekit's whatever the machine. Under 240 bytes XXH3 has no vector loop and the
 * dispatcher's indirect call would only add cost: the direct call serves those. An empty
 * input hashes a static "" (the library reads no byte, but wants a pointer).
 */
#ifndef TERSE_CODEC_SUM_H
#define TERSE_CODEC_SUM_H

#include <stddef.h>
#include <stdint.h>

#include <xxhash.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xxh_x86dispatch.h>
#define CODEC_SUM_DISPATCH_MIN 240 /* XXH3's vector loop starts past this length */
#endif

static inline uint64_t codec_sum(const void *p, size_t n)
{
#ifdef CODEC_SUM_DISPATCH_MIN
    if (n > CODEC_SUM_DISPATCH_MIN) {
        return XXH3_64bits_dispatch(p, n);
    }
#endif
    return XXH3_64bits(n > 0 ? p : "", n);
}

#endif /* TERSE_CODEC_SUM_H */
