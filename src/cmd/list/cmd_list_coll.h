/*
 * cmd_list_coll: the list commands on a chunked list (coll/coll_list.h), and the moves between
 * a list's one-value form and its chunked form.
 *
 * A list is one value (store_list.h form, decoded whole by every command) while it fits in one
 * chunk (cmd_list_wants_chunks); a write that makes it longer turns it into a chunked list,
 * where a push or pop is O(element) and a read decodes only the chunks it returns from; one
 * that shrinks below a quarter of a chunk goes back to one value. OBJECT ENCODING answers
 * "quicklist" either way, as Redis 7.0 does for every list. Each function here replies (the
 * CORRUPT error for a chunk or element that fails its checksum) and returns 0, or -1 when it
 * replied an error.
 */
#ifndef TERSE_CMD_LIST_COLL_H
#define TERSE_CMD_LIST_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "coll/coll_list.h"

/* How chunked lists are cut (list-max-listpack-size, list-compress-depth). */
void cmd_list_shape(const struct cmd_server *srv, struct coll_list_shape *out);
/* A list of n elements whose form is len bytes is chunked: more than a chunk holds. */
bool cmd_list_wants_chunks(const struct cmd_server *srv, size_t len, uint64_t n);

/* cmd_list_read, a chunked list's elements written whole into scratch too (*form never NULL
 * for a key that exists): for what reads every element anyway (SORT). */
int cmd_list_read_whole(struct cmd_call *c, const struct resp_slice *key, int for_write,
                        const struct store_entry **e, const uint8_t **form, size_t *len,
                        uint64_t *n);

/* The container of a chunked list's entry (NULL for one held as one value). */
struct coll *cmd_list_coll_of(const struct store_entry *e);

/* The list form in scratch2 (len bytes) stored as key's list, chunked when it is more than a
 * chunk: TERSE_OK or a status (nothing changed). */
int cmd_list_coll_store_form(struct cmd_call *c, const struct resp_slice *key, size_t len);

/* After a chunked list changed: deletes the key when it is empty (c->emptied), makes it one
 * value again when small. TERSE_OK or a status (the list stays chunked). */
int cmd_list_coll_settle(struct cmd_call *c, const struct resp_slice *key, struct coll *co);

/* LPUSH/RPUSH of argv[first..argc) in turn; replies the new length. */
int cmd_list_coll_push(struct cmd_call *c, struct coll *co, bool left, size_t first);

/* Pops count elements (single: one bulk reply, else an array; with_key: [key, array], as
 * BLPOP and LMPOP answer), feeds the pop a blocking or multi-key one did, settles the key. */
int cmd_list_coll_pop(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      bool left, uint64_t count, bool single, bool with_key);

/* The element at index at (0 <= at < count) as a bulk reply. */
int cmd_list_coll_reply_at(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                           uint64_t at);

/* LRANGE's reply of [start, end] (0 <= start <= end < count). */
int cmd_list_coll_range(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                        uint64_t start, uint64_t end);

/* LSET at index at. */
int cmd_list_coll_set(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      uint64_t at, const struct resp_slice *el);

/* LINSERT: the index of the first element equal to pivot (*found 0 without one), then el
 * inserted before (after: after) it. */
int cmd_list_coll_insert(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                         const struct resp_slice *pivot, bool after, const struct resp_slice *el,
                         int *found);

/* LREM with Redis's count (> 0 from the head, < 0 the last -count, 0 all): *removed. */
int cmd_list_coll_rem(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      long long count, const struct resp_slice *el, uint64_t *removed);

/* LTRIM: ltrim elements off the front, rtrim off the back. */
int cmd_list_coll_trim(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                       uint64_t ltrim, uint64_t rtrim);

/* A walk for LPOS and SORT, over coll_list_it (coll/coll_list.h): next as coll_list_it_next,
 * but -1 after replying the CORRUPT error instead of a negative status. */
int cmd_list_coll_walk_next(struct cmd_call *c, const struct resp_slice *key,
                            struct coll_list_it *it, const uint8_t **el, size_t *len);

#endif /* TERSE_CMD_LIST_COLL_H */
