/*
 * cmd_script_fcmd: (see cmd_script_fcmd.c)
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
