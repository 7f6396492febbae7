/*
 * cmd_strmod: the string commands that edit part of a value, and GETBIT. Their rows are in
 * cmd_string_defs (cmd_string.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_STRMOD_H
#define TERSE_CMD_STRMOD_H

#include "cmd/core/cmd.h"

void cmd_append_proc(struct cmd_call *c);   /* APPEND key value */
void cmd_setrange_proc(struct cmd_call *c); /* SETRANGE key offset value */
void cmd_setbit_proc(struct cmd_call *c);   /* SETBIT key offset 0|1 */
void cmd_getbit_proc(struct cmd_call *c);   /* GETBIT key offset */

#endif /* TERSE_CMD_STRMOD_H */
