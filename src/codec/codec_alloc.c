/*
 * codec_alloc: libc's malloc and free as a terse_allocator (codec_alloc.h), the default of
 * every libterse entry point that takes an allocator.
 */
#include "codec/codec_alloc.h"

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
