/*
 * coll_form: a chunked container back in one byte form of its type (the store/form one), for
 * the paths that want a value whole: DUMP, DEBUG DIGEST-VALUE, SORT, snapshots and RDB files
 * until they write chunks as held. O(n) time and a buffer of the whole form.
 */
#ifndef TERSE_COLL_FORM_H
#define TERSE_COLL_FORM_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "store/form/store_hash.h"

/* Bytes the form of c takes at most (a buffer of this size always holds it). */
size_t coll_form_size(const struct coll *c);

/* Writes c's form into out (cap bytes): TERSE_OK with *len, TERSE_ECORRUPT (a chunk or an
 * element failed its checksum), TERSE_ETOOBIG (cap too small), TERSE_EINVAL (a type with no
 * engine yet). */
int coll_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap, size_t *len);

/* ---- for the engines of store_hash-shaped chunks (hashes, sets, sorted sets) ------------- */

/* Opens the chunk of d verified against its descriptor: its form (*form, *len) and *fit just
 * past its count. TERSE_OK or a status. */
typedef int coll_chunk_open_fn(struct coll_env *env, const struct coll_desc *d,
                               const uint8_t **form, size_t *len, struct store_hash_it *fit);

/* c's chunks, in tree order, as one form under one count (c->count): each chunk opened with
 * open and its records copied. Into out (cap bytes): TERSE_OK with *out_len (0 when empty),
 * TERSE_ECORRUPT (a chunk failed, or the counts do not add up), TERSE_ETOOBIG (cap too small),
 * TERSE_ENOMEM. O(n). */
int coll_join_forms(struct coll_env *env, struct coll *c, coll_chunk_open_fn *open,
                    uint8_t *out, size_t cap, size_t *out_len);

#endif /* TERSE_COLL_FORM_H */
