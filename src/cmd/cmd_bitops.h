/*
 * cmd_bitops: the bitmap command family (cmd_bitops.c: BITCOUNT, BITPOS, BITOP; cmd_bitfield.c:
 * BITFIELD, BITFIELD_RO). Its table, cmd_bitmap_defs, is declared in cmd.h.
 */
#ifndef TERSE_CMD_BITOPS_H
#define TERSE_CMD_BITOPS_H

#include "cmd/cmd.h"

void cmd_bitfield(struct cmd_call *c);
void cmd_bitfield_ro(struct cmd_call *c);

#endif /* TERSE_CMD_BITOPS_H */
