/*
 * cmd_stream_table: the stream family's rows of the command table (XADD ... XSETID, with the
 * subcommands of XGROUP and XINFO), and XLEN.
 */
#ifndef TERSE_CMD_STREAM_TABLE_H
#define TERSE_CMD_STREAM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_stream.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_stream_defs[];

#endif /* TERSE_CMD_STREAM_TABLE_H */
