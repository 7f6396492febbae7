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

/* Bytes the form of c takes at most (a buffer of this size always holds it). */
size_t coll_form_size(const struct coll *c);

/* Writes c's form into out (cap bytes): TERSE_OK with *len, TERSE_ECORRUPT (a chunk or an
 * element failed its checksum), TERSE_ETOOBIG (cap too small), TERSE_EINVAL (a type with no
 * engine yet). */
int coll_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap, size_t *len);

#endif /* TERSE_COLL_FORM_H */
