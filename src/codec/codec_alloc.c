/*
 * codec_alloc: libc's malloc and free as a terse_allocator (codec_alloc.h), the default of
 * every libterse entry point that takes an allocator.
 */
#include "codec/codec_alloc.h"

#include "terse/status.h"

#include <stdlib.h>

static void *
libc_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void
libc_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

const terse_allocator codec_libc_allocator = { libc_alloc, libc_free, NULL };

int
codec_alloc_pick(const terse_allocator *alloc, terse_allocator *out)
{
    if (alloc == NULL) {
        *out = codec_libc_allocator;
        return TERSE_OK;
    }
    if (alloc->alloc == NULL || alloc->free == NULL) {
        return TERSE_EINVAL;
    }
    *out = *alloc;
    return TERSE_OK;
}
