/*
 * cmd_client: the CLIENT command, and a client's command state from its connection to its close.
 */
#ifndef TERSE_CMD_CLIENT_H
#define TERSE_CMD_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* A client name as CLIENT SETNAME and HELLO SETNAME take it (printable ASCII,
 * no spaces): 0 with cl->name replaced, or -1 after replying the error. */
int cmd_client_set_name_or_reply(struct cmd_call *c, const struct resp_slice *name);

/* A client's command state from its connection to its close: init links cl (memory the
 * caller owns) into srv's clients, deinit ends its wait, subscriptions and transaction. */
void cmd_client_init(struct cmd_server *srv, struct cmd_client *cl);
void cmd_client_deinit(struct cmd_server *srv, struct cmd_client *cl);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_client_defs[];

#endif /* TERSE_CMD_CLIENT_H */
