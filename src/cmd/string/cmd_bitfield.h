/*
 * cmd_bitfield: (see cmd_bitfield.c)
 */
#ifndef TERSE_CMD_BITFIELD_H
#define TERSE_CMD_BITFIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

void cmd_bitfield(struct cmd_call *c);
void cmd_bitfield_ro(struct cmd_call *c);

#endif /* TERSE_CMD_BITFIELD_H */
