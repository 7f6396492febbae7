/*
 * codec_alloc: the allocator libterse uses when its caller passes none (NULL): libc's malloc
 * and free. One definition for every codec entry point that takes a terse_allocator.
 */
#ifndef TERSE_CODEC_ALLOC_H
#define TERSE_CODEC_ALLOC_H

#include "terse/alloc.h"

extern const terse_allocator codec_libc_allocator;

#endif /* TERSE_CODEC_ALLOC_H */
