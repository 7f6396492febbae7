/*
 * cmd_dump: DUMP, RESTORE and COPY.
 */
#ifndef TERSE_CMD_DUMP_H
#define TERSE_CMD_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_dump_defs[];

#endif /* TERSE_CMD_DUMP_H */
