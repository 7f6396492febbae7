/*
 * store_stream_internal: what the stream form's two files share (store_stream.c: the form and
 * the model's life; store_stream_edit.c: the model's edits). Nothing else includes it.
 */
#ifndef TERSE_STORE_STREAM_INTERNAL_H
#define TERSE_STORE_STREAM_INTERNAL_H

#include <stddef.h>

#include "store/form/store_stream.h"

/* Frees an array of the model's (from its allocator). NULL-safe. */
void store_stream_arr_free(struct store_stream *s, void *p);
/* Grows *arr (of *cap elements of sz bytes, from s's allocator) to hold need: TERSE_OK, or
 * TERSE_ENOMEM with *arr as it was. */
int store_stream_arr_grow(struct store_stream *s, void **arr, size_t *cap, size_t need, size_t sz);

#endif /* TERSE_STORE_STREAM_INTERNAL_H */
