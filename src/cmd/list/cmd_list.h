/*
 * cmd_list: the list family (LPUSH ... LMPOP), over the byte form of store_list.h held as one
 * codec value per key. cmd_list.c has the shared read and store steps, the pushes and the
 * edits in place, and the table; cmd_list_pop.c the pops and moves (LPOP, RPOP, LMPOP, LMOVE,
 * RPOPLPUSH); cmd_list_read.c the reads (LLEN, LRANGE, LINDEX, LPOS); cmd_list_block.c the
 * blocking pops and moves over them (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH). Everything
 * runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_LIST_H
#define TERSE_CMD_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_list.h"
/* ---- shared by the family's files ---------------------------------------------------------- */

void cmd_list_lpop(struct cmd_call *c);
void cmd_list_rpop(struct cmd_call *c);
void cmd_list_lmpop(struct cmd_call *c);
void cmd_list_lmove(struct cmd_call *c);
void cmd_list_rpoplpush(struct cmd_call *c);
void cmd_list_llen(struct cmd_call *c);
void cmd_list_lrange(struct cmd_call *c);
void cmd_list_lindex(struct cmd_call *c);
void cmd_list_lpos(struct cmd_call *c);
void cmd_list_blpop(struct cmd_call *c);
void cmd_list_brpop(struct cmd_call *c);
void cmd_list_blmpop(struct cmd_call *c);
void cmd_list_blmove(struct cmd_call *c);
void cmd_list_brpoplpush(struct cmd_call *c);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_list_defs[];

#endif /* TERSE_CMD_LIST_H */
