/*
 * cmd_debug: DEBUG and its subcommands (cmd_debug.c, cmd_debug_proto.c).
 */
#ifndef TERSE_CMD_DEBUG_H
#define TERSE_CMD_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

#endif /* TERSE_CMD_DEBUG_H */
