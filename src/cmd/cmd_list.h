/*
 * cmd_list: the list family (LPUSH ... LMPOP), over the byte form of store_list.h held as one
 * codec value per key. cmd_list.c has the shared reading step and the writes; cmd_list_read.c
 * the reads (LLEN, LRANGE, LINDEX, LPOS). Everything runs on the worker thread that owns the
 * shard.
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

/* A list index as Redis reads one (negative: from the tail, -1 the last) for a list of n
 * elements: true with *at in [0, n), false when out of range. */
bool cmd_list_index(long long index, uint64_t n, uint64_t *at);

/* The element at index i of a form of n elements (i < n): *el, *el_len point into form.
 * TERSE_OK or TERSE_ECORRUPT. */
int cmd_list_at(const uint8_t *form, size_t len, uint64_t i, const uint8_t **el,
                size_t *el_len);

void cmd_list_llen(struct cmd_call *c);
void cmd_list_lrange(struct cmd_call *c);
void cmd_list_lindex(struct cmd_call *c);
void cmd_list_lpos(struct cmd_call *c);

#endif /* TERSE_CMD_LIST_H */
