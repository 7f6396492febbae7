/*
 * codec_fixture: a counting terse_allocator for the codec's unit tests (linked into each test
 * of this folder): it counts calls and live blocks and can fail one chosen call.
 */
#ifndef TERSE_TEST_CODEC_FIXTURE_H
#define TERSE_TEST_CODEC_FIXTURE_H

#include <stddef.h>

struct count_alloc {
    int n_calls; /* alloc calls so far */
    int fail_at; /* 1-based call that fails; 0 = never */
    int n_live;  /* blocks handed out and not yet freed */
};

/* terse_allocator functions; opaque is a struct count_alloc. */
void *count_alloc_fn(void *opaque, size_t size);
void count_free_fn(void *opaque, void *p);

#endif /* TERSE_TEST_CODEC_FIXTURE_H */
