/*
 * cmd_script_fcmd: FCALL, FCALL_RO and FUNCTION (LOAD, DELETE, FLUSH, LIST, KILL, STATS,
 * HELP) with Redis 7.0's replies and error texts; the libraries themselves are
 * cmd_script_func.c. FUNCTION DUMP and RESTORE are not built.
 */
#ifndef TERSE_CMD_SCRIPT_FCMD_H
#define TERSE_CMD_SCRIPT_FCMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_function_defs[];

#endif /* TERSE_CMD_SCRIPT_FCMD_H */
