/*
 * cmd_repl: the replication commands (PSYNC, SYNC, REPLCONF, REPLICAOF, ROLE, WAIT).
 */
#ifndef TERSE_CMD_REPL_H
#define TERSE_CMD_REPL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* 1 when d is REPLCONF's row (the one command a replica's connection runs). */
int cmd_repl_is_replconf(const struct cmd_def *d);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_repl_defs[];

#endif /* TERSE_CMD_REPL_H */
