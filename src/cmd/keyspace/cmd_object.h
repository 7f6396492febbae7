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

/* After a snapshot is loaded into srv->shard: marks each hash, set and zset with the encoding
 * Redis would give it as it loads it, by its contents under the current settings (OBJECT ENCODING).
 * A value that fails to decode is left as it is: the next command on it reports it. */
void cmd_value_after_load(struct cmd_server *srv);

#endif /* TERSE_CMD_OBJECT_H */
