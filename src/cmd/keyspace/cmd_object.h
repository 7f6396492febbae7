/*
 * cmd_object: OBJECT ENCODING, FREQ, IDLETIME, REFCOUNT and HELP. The container row "object"
 * is in cmd_keys_defs (cmd_keys.c); its subcommand rows are the table below.
 */
#ifndef TERSE_CMD_OBJECT_H
#define TERSE_CMD_OBJECT_H

#include "cmd/core/cmd.h"

/* OBJECT's subcommands ("object|encoding", ...), terminated by a row whose name is NULL. */
extern const struct cmd_def cmd_object_subcmds[];

/* OBJECT ENCODING of a hash, list, set or zset: the name Redis would give it
 * (cmd_hash_encoding, "quicklist", cmd_set_encoding, cmd_zset_encoding). */
const char *cmd_value_encoding(const struct store_entry *e);

#endif /* TERSE_CMD_OBJECT_H */
