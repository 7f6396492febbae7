/*
 * cmd_string: the string command family. Its one table, cmd_string_defs (declared below),
 * lives in cmd_string.c; the handlers are spread over cmd_string.c, cmd_strset.c,
 * cmd_strmod.c, cmd_incr.c and cmd_lcs.c, which share the value helpers below. Each helper
 * named *_or_reply writes the error reply itself when it fails and returns the status.
 * Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_STRING_H
#define TERSE_CMD_STRING_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_string_defs[];

#endif /* TERSE_CMD_STRING_H */
