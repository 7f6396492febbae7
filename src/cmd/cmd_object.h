/*
 * cmd_object: OBJECT ENCODING, FREQ, IDLETIME, REFCOUNT and HELP. The container row "object"
 * is in cmd_keys_defs (cmd_keys.c); its subcommand rows are the table below.
 */
#ifndef TERSE_CMD_OBJECT_H
#define TERSE_CMD_OBJECT_H

#include "cmd/cmd.h"

/* OBJECT's subcommands ("object|encoding", ...), terminated by a row whose name is NULL. */
extern const struct cmd_def cmd_object_subcmds[];

#endif /* TERSE_CMD_OBJECT_H */
