/*
 * terse_allocator: how libterse obtains memory. libterse never calls malloc directly; every
 * context is created with an allocator (NULL means libc malloc/free).
 */
#ifndef TERSE_ALLOC_H
#define TERSE_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct terse_allocator {
    /* Returns size bytes aligned for any type, or NULL. */
    void *(*alloc)(void *opaque, size_t size);
    /* Frees a block from alloc; p may be NULL. */
    void (*free)(void *opaque, void *p);
    void *opaque; /* passed back unchanged */
} terse_allocator;

#ifdef __cplusplus
}
#endif

#endif /* TERSE_ALLOC_H */
