/*
 * cmd_bitfield: BITFIELD and BITFIELD_RO, integers of 1 to 64 bits (u1..u63, i1..i64) at any
 * bit offset of a string value, with Redis 7.0's syntax, replies, overflow rules (WRAP, SAT,
 * FAIL) and error texts. Every operation is parsed before anything runs; a write decodes the
 * value into the server's scratch buffer, grown with zero bytes to the farthest bit written,
 * and stores it back once (an existing key keeps its TTL, as SETBIT's does).
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
