/*
 * cmd_elems_coll: hashes and sets held in chunks (coll/coll_hash.h), for the hash and set
 * families and the element walks they share (cmd_elems.c).
 *
 * A hash or set is one value (store_hash.h form) until Redis would hold it as a hashtable (the
 * entry's raw mark: past hash-max-listpack-* or set-max-intset-entries) and its form passes
 * terse-chunk-bytes (4 KiB); then a write stores it as a chunked container, where a field's
 * read or write costs one chunk, and it goes back to one value (still "hashtable") when it
 * shrinks under a quarter of a chunk. OBJECT ENCODING says "hashtable" either way, as Redis
 * does. A chunked hash answers HGETALL, HKEYS, SMEMBERS... in its chunks' hash order, as
 * Redis's hashtable answers in its own.
 *
 * Views returned by the engine point into a chunk or the env's decode buffer: valid until the
 * next call on any container of the shard.
 */
#ifndef TERSE_CMD_ELEMS_COLL_H
#define TERSE_CMD_ELEMS_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "cmd/core/cmd_elems.h"
#include "coll/coll_hash.h"

/* The container of a chunked hash or set entry; NULL for one held as one value, or another
 * type's container. */
struct coll *cmd_elems_coll_of(const struct store_entry *e);

/* The shape hashes and sets are cut to (terse-chunk-bytes). */
void cmd_elems_coll_shape(const struct cmd_server *srv, struct coll_hash_shape *out);

/* Whether a form of len bytes of a hashtable-encoded (is_table) hash or set is chunked. */
bool cmd_elems_wants_chunks(const struct cmd_server *srv, bool is_table, size_t len);

/* The form in scratch2 (len bytes) stored as key's hash or set (type) in chunks, keeping the
 * key's expiry: TERSE_OK or a status (nothing changed). */
int cmd_elems_coll_store_form(struct cmd_call *c, const struct resp_slice *key,
                              enum store_type type, size_t len);

/* After a chunked hash or set lost elements: deletes the key when it is empty (c->emptied),
 * makes it one value again (still hashtable-encoded) when small, else tells the store of the
 * edit. TERSE_OK or a status. */
int cmd_elems_coll_settle(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                          struct coll *co);

/* ---- the shared walks on a chunked container (cmd_elems.c calls these) ------------------- */

/* HMGET / SMISMEMBER: one reply per argument from argv[2]. */
void cmd_elems_coll_find_each(struct cmd_call *c, struct coll *co, bool with_values);

/* HGETALL / HKEYS / HVALS / SMEMBERS: the reply header is the caller's; the elements. */
int cmd_elems_coll_all(struct cmd_call *c, struct coll *co, bool fields, bool values);

/* HSCAN / SSCAN / ZSCAN (co a chunked hash, set or sorted set) from a cursor (a hash value):
 * the reply, or the error it replied. */
void cmd_elems_coll_scan(struct cmd_call *c, struct coll *co, uint64_t cursor, size_t count,
                         const uint8_t *pat, size_t pat_len, enum cmd_elems_val vals);

/* HRANDFIELD / SRANDMEMBER / ZRANDMEMBER picks on a chunked hash, set or sorted set (by rank
 * in its order), replied: single (no
 * count), count < 0 (with repetition, each pick O(log n)), count >= 0 (distinct: random ranks,
 * or one walk when they are more than a third). vals: the values written with each. A reply past
 * CMD_ELEMS_RAND_REPLY_MAX answers err_too_big; a corrupt chunk the CORRUPT error. */
void cmd_elems_coll_rand_reply(struct cmd_call *c, struct coll *co, bool single, long long count,
                               enum cmd_elems_val vals, const char *err_too_big);

/* One uniformly random element of co, a chunked hash or set (SPOP): *kv. TERSE_OK or a
 * status. */
int cmd_elems_coll_pick(struct cmd_call *c, struct coll *co, struct store_hash_kv *kv);

#endif /* TERSE_CMD_ELEMS_COLL_H */
