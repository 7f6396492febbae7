/*
 * cmd_table: the command table.
 */
#ifndef TERSE_CMD_TABLE_H
#define TERSE_CMD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* A push message (pub/sub: a message, a subscription confirmation) is written to c's own
 * client: pushes reach a client whose replies are off (CLIENT REPLY OFF|SKIP), as Redis's
 * CLIENT_PUSHING does, so the reply bytes written before it are dropped first. */
void cmd_push_begin(struct cmd_call *c);
void cmd_push_end(struct cmd_call *c);

/* Looks up a command by the name clients call it (case-insensitive). NULL when unknown. */
const struct cmd_def *cmd_lookup(const struct cmd_server *srv, const uint8_t *name, size_t len);

/*
 * rename-command, after cmd_server_init and before any client: the command called `from`
 * (case-insensitive) is called `to` from now on, or is gone when `to` is "" (left out of
 * COMMAND too; a renamed one stays there under its own name, as in Redis). Its own name still
 * shows in COMMAND, errors and the like. from, to: borrowed, NUL-terminated.
 * TERSE_OK; TERSE_ENOTFOUND when no command is called `from`; TERSE_EINVAL when another
 * command is called `to` already; TERSE_ENOMEM. Nothing changes unless TERSE_OK. Allocates
 * (a copy of `to`, a new lookup table).
 */
int cmd_table_rename(struct cmd_server *srv, const char *from, const char *to);

/* Number of top-level commands in the table. */
size_t cmd_table_count(const struct cmd_server *srv);
/* The i-th top-level command, in name order (0 <= i < cmd_table_count). */
const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i);
/* Resolves argv to a command or subcommand row as Redis's lookupCommand does: a container
 * with argc >= 2 resolves to its subcommand (NULL when unknown), with argc == 1 to itself. */
const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc);
/* Number of rows in a NULL-terminated subcommand array. */
size_t cmd_subcmd_count(const struct cmd_def *subcmds);
/* Builds srv's table from n_fam families' rows (each ended by a row with a NULL name): the
 * sorted array and the lookup table. TERSE_OK or TERSE_ENOMEM (nothing kept). */
int cmd_table_build(struct cmd_server *srv, const struct cmd_def *const *fam, size_t n_fam);
/* Frees what cmd_table_build and cmd_table_rename allocated. */
void cmd_table_free(struct cmd_server *srv);
/* 1 when one of the families' top-level rows is called name (any case). */
int cmd_table_has(const struct cmd_def *const *fam, size_t n_fam, const char *name);
/* "ERR unknown subcommand '<sub>'. Try <CMD> HELP." */
void cmd_reply_unknown_subcommand(struct cmd_call *c);
/* Writes Redis's "HELP" reply: an array of status lines (RESP simple strings). */
void cmd_reply_help(struct cmd_call *c, const char *const *lines);

#endif /* TERSE_CMD_TABLE_H */
