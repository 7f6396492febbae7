/*
 * codec_fixture: see codec_fixture.h.
 */
#include "codec_fixture.h"

#include <stdlib.h>

void *count_alloc_fn(void *opaque, size_t size)
{
    struct count_alloc *a = opaque;
    void *p;

    a->n_calls++;
    if (a->fail_at != 0 && a->n_calls == a->fail_at) {
        return NULL;
    }
    p = malloc(size);
    a->n_live += p != NULL;
    return p;
}

void count_free_fn(void *opaque, void *p)
{
    struct count_alloc *a = opaque;

    a->n_live -= p != NULL;
    free(p);
}
