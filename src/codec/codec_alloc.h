/*
 * codec_alloc: the allocator libterse uses when its caller passes none (NULL): libc's malloc
 * and free. One definition, and one check of a caller's allocator, for every codec entry point
 * that takes a terse_allocator.
 */
#ifndef TERSE_CODEC_ALLOC_H
#define TERSE_CODEC_ALLOC_H

#include "terse/alloc.h"

extern const terse_allocator codec_libc_allocator;

/* The allocator a create function uses: *alloc, or libc's for NULL, copied into *out.
 * TERSE_OK, or TERSE_EINVAL for an allocator missing a function (out untouched). */
int codec_alloc_pick(const terse_allocator *alloc, terse_allocator *out);

#endif /* TERSE_CODEC_ALLOC_H */
