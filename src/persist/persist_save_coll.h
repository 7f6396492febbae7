/*
 * persist_save_coll: the snapshot writer's CHUNKED records (persist_save_coll.c).
 */
#ifndef TERSE_PERSIST_SAVE_COLL_H
#define TERSE_PERSIST_SAVE_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct writer;

/* Writes e (a chunked container, STORE_ENC_COLL) as one CHUNKED record; a failure is the
 * writer's sticky status. */
void persist_save_coll(struct writer *w, const struct store_entry *e);

/* Whether e is a chunked container persist_save_coll writes (a list, hash or set); a chunked
 * zset is written whole instead (persist_save_coll_whole) until CHUNKED records hold the
 * member map beside the ordered chunks. */
bool persist_save_coll_chunked(const struct store_entry *e);

/* The chunked container e's whole form as a RAW stored value in the writer's buffers (*val,
 * *vlen: valid until the next record), for a STR record of its type. TERSE_OK, or a status
 * (also made the writer's sticky status). */
int persist_save_coll_whole(struct writer *w, const struct store_entry *e, const uint8_t **val,
                            size_t *vlen);

#endif /* TERSE_PERSIST_SAVE_COLL_H */
