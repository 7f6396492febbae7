/*
 * cmd_incr: the INCR family of the string commands. Their rows are in cmd_string_defs
 * (cmd_string.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_INCR_H
#define TERSE_CMD_INCR_H

#include "cmd/core/cmd.h"

void cmd_incr_proc(struct cmd_call *c);        /* INCR key */
void cmd_decr_proc(struct cmd_call *c);        /* DECR key */
void cmd_incrby_proc(struct cmd_call *c);      /* INCRBY key increment */
void cmd_decrby_proc(struct cmd_call *c);      /* DECRBY key decrement */
void cmd_incrbyfloat_proc(struct cmd_call *c); /* INCRBYFLOAT key increment */

#endif /* TERSE_CMD_INCR_H */
