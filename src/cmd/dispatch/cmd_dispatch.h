/*
 * cmd_dispatch: the top of the command layer, what server/ calls: the command state's setup and
 * teardown, and the dispatch of a client's command.
 */
#ifndef TERSE_CMD_DISPATCH_H
#define TERSE_CMD_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Sets up the table and the state; the caller fills shard, codec, alloc, hooks, settings
 * before and keeps them alive. TERSE_OK or TERSE_ENOMEM. */
int cmd_server_init(struct cmd_server *srv);
void cmd_server_deinit(struct cmd_server *srv);
/* Frees scratch buffers larger than keep bytes (from cron: a one-off huge value does not pin
 * its memory). */
void cmd_server_trim(struct cmd_server *srv, size_t keep);

/*
 * Executes one parsed command (argc >= 1) for cl and writes its reply to cl->out.
 * Looks the command up, checks arity and authentication, then calls its handler.
 */
void cmd_dispatch(struct cmd_server *srv, struct cmd_client *cl, const struct resp_slice *argv,
                  size_t argc);

/* 1 when name (borrowed, NUL-terminated, any case) is a top-level command of terse's table as
 * built, before any rename: the check the config loader makes of rename-command's names
 * ("config|get", a subcommand, is not one). Needs no server; any thread. */
int cmd_name_known(const char *name);

#endif /* TERSE_CMD_DISPATCH_H */
