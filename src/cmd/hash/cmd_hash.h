/*
 * cmd_hash: the hash family (HSET ... HSCAN), over the byte form of store_hash.h held as one
 * codec value per key. cmd_hash.c has the shared reading step and the writes; cmd_hash_read.c
 * the reads. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_HASH_H
#define TERSE_CMD_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_hash.h"

/*
 * The hash at argv[1] for a read: *e NULL when the key is missing (counted as a keyspace
 * miss), else its fields decoded into the server's scratch (*form, *len: valid until the next
 * scratch reserve). Returns 0 to go on, -1 when it already replied (WRONGTYPE, or the CORRUPT
 * error when the value fails its checksum).
 */
int cmd_hash_read(struct cmd_call *c, const struct store_entry **e, const uint8_t **form,
                  size_t *len);

/* The encoding Redis would hold the hash e in, for OBJECT ENCODING and DEBUG OBJECT:
 * "hashtable" once a write converted it or a load found it past the limits (the entry's mark,
 * not kept in snapshots), else "listpack". */
const char *cmd_hash_encoding(const struct store_entry *e);

/* Whether Redis would hold a hash of these fields as a hashtable under the current
 * hash-max-listpack-* settings, as it decides when it loads one: 1, 0, or TERSE_ECORRUPT. */
int cmd_hash_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len);

/* Replies the CORRUPT error for argv[1] when status is TERSE_ECORRUPT, else the status. */
void cmd_hash_reply_bad(struct cmd_call *c, int status);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_hash_defs[];

#endif /* TERSE_CMD_HASH_H */
