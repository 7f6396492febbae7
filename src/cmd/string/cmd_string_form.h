/*
 * cmd_string_form: the steps the string commands share: look a string key up, check a
 * length against proto-max-bulk-len, and decode a value (an int or a codec value) into scratch.
 */
#ifndef TERSE_CMD_STRING_FORM_H
#define TERSE_CMD_STRING_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Bytes of a long long in decimal, with sign and NUL: a longer value is no integer. */
#define CMD_STRING_LL_CAP 24

/* The original length of string entry e of key (header only: no decoding). TERSE_OK, or the
 * read error (CORRUPT, counted once, for a checksum or structure failure), replied. */
int cmd_string_len_or_reply(struct cmd_call *c, const struct store_entry *e,
                            const struct resp_slice *key, size_t *len);

/*
 * Decodes string entry e of key into srv->scratch, reserved for at least cap bytes (cap >=
 * the value's length, from cmd_string_len_or_reply), so the caller can grow the value in
 * place. *p (output: the value) is valid until the next scratch reserve; *len is the value's
 * length. TERSE_OK, or TERSE_ENOMEM / the read error, replied.
 */
int cmd_string_decode_or_reply(struct cmd_call *c, const struct store_entry *e,
                               const struct resp_slice *key, size_t cap, uint8_t **p, size_t *len);

/* Looks key up for a read (cmd_lookup_read) and returns its entry, or NULL once the reply is
 * written: a null bulk for a missing key, or the lookup's own error (WRONGTYPE). */
struct store_entry *cmd_string_lookup_or_reply(struct cmd_call *c, const struct resp_slice *key);

/* Redis's checkStringLength: may a value of size bytes grow by append bytes within
 * settings.proto_max_bulk_len? TERSE_OK, or TERSE_ETOOBIG with the error replied. */
int cmd_string_length_ok_or_reply(struct cmd_call *c, unsigned long long size,
                                  unsigned long long append);

#endif /* TERSE_CMD_STRING_FORM_H */
