/*
 * cmd_bitops: the bitmap command family (cmd_bitops.c: BITCOUNT, BITPOS, BITOP; cmd_bitfield.c:
 * BITFIELD, BITFIELD_RO). Its table, cmd_bitmap_defs, is declared below.
 */
#ifndef TERSE_CMD_BITOPS_H
#define TERSE_CMD_BITOPS_H

#include "cmd/core/cmd.h"
/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_bitmap_defs[];

#endif /* TERSE_CMD_BITOPS_H */
