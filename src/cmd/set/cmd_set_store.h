/*
 * cmd_set_store: how a set is stored after a write (cmd_set_commit), and the encoding Redis
 * would hold it in (cmd_set_encoding, cmd_set_form_is_table).
 */
#ifndef TERSE_CMD_SET_STORE_H
#define TERSE_CMD_SET_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* How cmd_set_commit decides the encoding Redis would hold the result in. */
enum cmd_set_enc {
    CMD_SET_ENC_KEEP = 0,  /* as before the write: a removal never converts (SREM, SPOP) */
    CMD_SET_ENC_GROW = 1,  /* as before, or a hashtable when an added member is not an
                              integer or the count passed set-max-intset-entries (SADD) */
    CMD_SET_ENC_FRESH = 2  /* decided from the contents alone (a new set: the STORE forms,
                              SPOP's rebuild of the remaining members) */
};

/* The encoding Redis would hold the set e in, for OBJECT ENCODING and DEBUG OBJECT:
 * "hashtable" once a write converted it or a load found it past the limits (the entry's raw
 * mark, not kept in snapshots), else "intset". */
const char *cmd_set_encoding(const struct store_entry *e);

/* Whether Redis would hold a set of these members as a hashtable under the current
 * set-max-intset-entries, as it decides when it loads one: 1, 0, or TERSE_ECORRUPT. */
int cmd_set_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len);

/*
 * Stores the set form in scratch2 (len bytes; 0: no member left, the key is deleted) as key's
 * value in the client's db, keeping any expiry. A form whose members are all integers is put
 * in ascending numeric order first (the order Redis's intset answers in; uses scratch and
 * scratch3). was_table: the old entry's raw mark (KEEP, GROW). TERSE_OK or a status for
 * cmd_value_reply_bad.
 */
int cmd_set_commit(struct cmd_call *c, const struct resp_slice *key, size_t len,
                   enum cmd_set_enc how, bool was_table);

/* Puts the form in scratch2 (len bytes) in the set's order: an all-integer form is sorted
 * numerically (uses scratch and scratch3), any other is left as it is. *out_len gets its
 * length (unchanged), *n its member count, *all_int whether every member is an integer.
 * TERSE_OK, TERSE_ENOMEM, TERSE_ECORRUPT. */
int cmd_set_normalize(struct cmd_server *srv, size_t len, size_t *out_len, uint64_t *n,
                      bool *all_int);

#endif /* TERSE_CMD_SET_STORE_H */
