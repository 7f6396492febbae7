/*
 * cmd_run: runs one resolved command (for dispatch, EXEC, scripts and blocked clients).
 */
#ifndef TERSE_CMD_RUN_H
#define TERSE_CMD_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Runs d for c once every check passed (the handler, then the counters). */
void cmd_run(struct cmd_call *c, const struct cmd_def *d);

#endif /* TERSE_CMD_RUN_H */
