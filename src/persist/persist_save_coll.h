/*
 * persist_save_coll: the snapshot writer's CHUNKED records (persist_save_coll.c).
 */
#ifndef TERSE_PERSIST_SAVE_COLL_H
#define TERSE_PERSIST_SAVE_COLL_H

#include "store/store.h"

struct writer;

/* Writes e (a chunked container, STORE_ENC_COLL) as one CHUNKED record; a failure is the
 * writer's sticky status. */
void persist_save_coll(struct writer *w, const struct store_entry *e);

#endif /* TERSE_PERSIST_SAVE_COLL_H */
