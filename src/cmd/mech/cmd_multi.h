/*
 * cmd_multi: transactions (MULTI, EXEC, DISCARD, and the queue of a client in MULTI).
 */
#ifndef TERSE_CMD_MULTI_H
#define TERSE_CMD_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Queues d as c names it (the client is in MULTI) and replies +QUEUED, or an error that
 * dooms the transaction. */
void cmd_multi_queue(struct cmd_call *c, const struct cmd_def *d);
/* 1 when d is EXEC's row. */
int cmd_multi_is_exec(const struct cmd_def *d);
/* Ends cl's transaction, if any, and unwatches its keys (DISCARD, RESET, a failed EXEC). */
void cmd_multi_discard(struct cmd_server *srv, struct cmd_client *cl);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_multi_defs[];

#endif /* TERSE_CMD_MULTI_H */
