/*
 * cmd_list_form: the steps every list command shares: read the list at a key (decoded into
 * scratch), store a new form for it (or delete the key when it is empty), splice elements in
 * and out, find an index, and reply an element.
 */
#ifndef TERSE_CMD_LIST_FORM_H
#define TERSE_CMD_LIST_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_list.h"

/*
 * The list at key for a read (for_write 0: counts a keyspace hit or miss, records the access)
 * or a write (1: neither): *e NULL when the key is missing, else its elements decoded into the
 * server's scratch (*form, *len: valid until the next scratch reserve) and *n their count; a
 * chunked list (cmd_list_coll.h) gives *form NULL and its count.
 * Returns 0 to go on, -1 when it already replied (WRONGTYPE, or the CORRUPT error when the
 * value fails its checksum or its form does not open).
 */
int cmd_list_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                  const struct store_entry **e, const uint8_t **form, size_t *len, uint64_t *n);

/* Replies the CORRUPT error for key when status is TERSE_ECORRUPT, else the status. */
void cmd_list_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status);

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

#endif /* TERSE_CMD_LIST_FORM_H */
