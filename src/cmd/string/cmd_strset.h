/*
 * cmd_strset: the SET family of the string commands. Their rows are in cmd_string_defs
 * (cmd_string.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_STRSET_H
#define TERSE_CMD_STRSET_H

#include "cmd/core/cmd.h"

void cmd_set_proc(struct cmd_call *c);    /* SET key value [NX|XX] [GET] [EX|PX|...|KEEPTTL] */
void cmd_setnx_proc(struct cmd_call *c);  /* SETNX key value */
void cmd_setex_proc(struct cmd_call *c);  /* SETEX key seconds value */
void cmd_psetex_proc(struct cmd_call *c); /* PSETEX key milliseconds value */
void cmd_getset_proc(struct cmd_call *c); /* GETSET key value */
void cmd_getdel_proc(struct cmd_call *c); /* GETDEL key */
void cmd_getex_proc(struct cmd_call *c);  /* GETEX key [EX|PX|EXAT|PXAT|PERSIST] */
void cmd_mset_proc(struct cmd_call *c);   /* MSET key value [key value ...] */
void cmd_msetnx_proc(struct cmd_call *c); /* MSETNX key value [key value ...] */

#endif /* TERSE_CMD_STRSET_H */
