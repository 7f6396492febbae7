/*
 * cmd_list: the list family (LPUSH ... LMPOP), over the byte form of store_list.h held as one
 * codec value per key. cmd_list.c has the shared read and store steps, the pushes and the
 * edits in place, and the table; cmd_list_pop.c the pops and moves (LPOP, RPOP, LMPOP, LMOVE,
 * RPOPLPUSH); cmd_list_read.c the reads (LLEN, LRANGE, LINDEX, LPOS); cmd_list_block.c the
 * blocking pops and moves over them (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH). Everything
 * runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_LIST_H
#define TERSE_CMD_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "store/store_list.h"

/*
 * The list at key for a read (for_write 0: counts a keyspace hit or miss, records the access)
 * or a write (1: neither): *e NULL when the key is missing, else its elements decoded into the
 * server's scratch (*form, *len: valid until the next scratch reserve) and *n their count.
 * Returns 0 to go on, -1 when it already replied (WRONGTYPE, or the CORRUPT error when the
 * value fails its checksum or its form does not open).
 */
int cmd_list_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                  const struct store_entry **e, const uint8_t **form, size_t *len, uint64_t *n);

/* Replies the CORRUPT error for key when status is TERSE_ECORRUPT, else the status. */
void cmd_list_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status);

/* ---- shared by the family's files ---------------------------------------------------------- */

/* Stores the form in scratch2 (out_len bytes) as key's list, keeping its expiry, or deletes
 * the key when out_len is 0 (an empty list is no key). TERSE_OK or a status. */
int cmd_list_store(struct cmd_call *c, const struct resp_slice *key, size_t out_len);

/* Replaces the elements [at, at + n_del) of the list at key (form, len: its decoded form, or
 * NULL, 0) by the n_ins elements of ins (borrowed), and stores the result (in scratch2).
 * TERSE_OK or a status. */
int cmd_list_splice_store(struct cmd_call *c, const struct resp_slice *key,
                          const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                          const struct store_list_el *ins, size_t n_ins);

/* Replies an element as a bulk (an empty one may have no bytes behind p). */
void cmd_list_write_bulk(struct cmd_call *c, const uint8_t *p, size_t len);

/* A list index as Redis reads one (negative: from the tail, -1 the last) for a list of n
 * elements: true with *at in [0, n), false when out of range. */
bool cmd_list_index(long long index, uint64_t n, uint64_t *at);

/* The element at index i of a form of n elements (i < n): *el, *el_len point into form.
 * TERSE_OK or TERSE_ECORRUPT. */
int cmd_list_at(const uint8_t *form, size_t len, uint64_t i, const uint8_t **el,
                size_t *el_len);

/*
 * Pops count elements (1 <= count, at most the n there are) from one end of the list at key
 * (form, len: its decoded form) and replies them (after the key, in LMPOP's shape, when
 * with_key; a single one as a bulk when single), then stores what is left. -1 when it replied
 * an error.
 */
int cmd_list_pop_and_store(struct cmd_call *c, const struct resp_slice *key, const uint8_t *form,
                           size_t len, uint64_t n, bool left, uint64_t count, bool single,
                           bool with_key);
/* LMPOP's work from argv[at] (numkeys key ... LEFT|RIGHT [COUNT n]); BLMPOP's when blocking,
 * which waits up to timeout_ms (cmd_block) when every list is empty. */
void cmd_list_mpop(struct cmd_call *c, size_t at, bool blocking, int64_t timeout_ms);
/* Moves one element from an end of the list argv[1] to an end of argv[2], and replies it (a
 * null when argv[1] holds no list). */
void cmd_list_move(struct cmd_call *c, bool from_left, bool to_left);
/* LEFT or RIGHT at argv[i]: 0 with *left, or -1 when it replied the syntax error. */
int cmd_list_side_or_reply(struct cmd_call *c, size_t i, bool *left);

void cmd_list_lpop(struct cmd_call *c);
void cmd_list_rpop(struct cmd_call *c);
void cmd_list_lmpop(struct cmd_call *c);
void cmd_list_lmove(struct cmd_call *c);
void cmd_list_rpoplpush(struct cmd_call *c);
void cmd_list_llen(struct cmd_call *c);
void cmd_list_lrange(struct cmd_call *c);
void cmd_list_lindex(struct cmd_call *c);
void cmd_list_lpos(struct cmd_call *c);
void cmd_list_blpop(struct cmd_call *c);
void cmd_list_brpop(struct cmd_call *c);
void cmd_list_blmpop(struct cmd_call *c);
void cmd_list_blmove(struct cmd_call *c);
void cmd_list_brpoplpush(struct cmd_call *c);

#endif /* TERSE_CMD_LIST_H */
