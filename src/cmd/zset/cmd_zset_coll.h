/*
 * cmd_zset_coll: sorted sets held in chunks (coll/coll_zset.h) in the sorted-set family.
 *
 * A zset is one value (store_zset.h form) until Redis would hold it as a skiplist (the entry's
 * raw mark: past zset-max-listpack-entries or -value) and its form passes terse-chunk-bytes;
 * then a write stores it as a chunked sorted set: ordered chunks under a counted tree and a
 * member map, so ZADD, ZREM, ZSCORE and ZRANK cost O(log n) chunks, a range O(log n + M). It
 * goes back to one value (still "skiplist") when it shrinks under a quarter of a chunk.
 *
 * Views the engine returns point into a chunk or the env's buffers: valid until the next call
 * on any container of the shard.
 */
#ifndef TERSE_CMD_ZSET_COLL_H
#define TERSE_CMD_ZSET_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "coll/coll_zset.h"

/* The ordered container of a chunked zset entry; NULL for one held as one value. */
struct coll *cmd_zset_coll_of(const struct store_entry *e);

/* Whether a zset form of len bytes, skiplist-encoded (table), is stored in chunks. */
bool cmd_zset_wants_chunks(const struct cmd_server *srv, bool table, size_t len);

/* The form in scratch2 (len bytes) stored as key's zset in chunks, keeping the key's expiry:
 * TERSE_OK or a status (nothing changed). */
int cmd_zset_coll_store_form(struct cmd_call *c, const struct resp_slice *key, size_t len);

/* After a chunked zset lost members: deletes the key when it is empty (c->emptied), makes it
 * one value again (still skiplist-encoded) when small, else tells the store of the edit.
 * TERSE_OK or a status. */
int cmd_zset_coll_settle(struct cmd_call *c, const struct resp_slice *key, struct coll *co);

/* Ranks [lo, lo + cnt) of co as an array of cnt elements in scratch3, their members copied
 * into scratch (so a reply or a store, cmd_zset_commit, may follow): *a. TERSE_OK or a status.
 * O(log n + cnt). */
int cmd_zset_coll_slice(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                        uint64_t lo, size_t cnt, struct store_zset_el **a);

#endif /* TERSE_CMD_ZSET_COLL_H */
