/*
 * cmd_internal: declarations shared by the files of the cmd layer only.
 */
#ifndef TERSE_CMD_INTERNAL_H
#define TERSE_CMD_INTERNAL_H

#include <stddef.h>

#include "cmd/cmd.h"

/* Number of top-level commands in the table. */
size_t cmd_table_count(const struct cmd_server *srv);
/* The i-th top-level command, in name order (0 <= i < cmd_table_count). */
const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i);
/* Resolves argv to a command or subcommand row as Redis's lookupCommand does: a container
 * with argc >= 2 resolves to its subcommand (NULL when unknown), with argc == 1 to itself. */
const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc);
/* Number of rows in a NULL-terminated subcommand array. */
size_t cmd_subcmd_count(const struct cmd_def *subcmds);
/* Writes Redis's "HELP" reply: an array of status lines (RESP simple strings). */
void cmd_reply_help(struct cmd_call *c, const char *const *lines);

#endif /* TERSE_CMD_INTERNAL_H */
