/*
 * cmd_server: the server command family (INFO, CONFIG, COMMAND, TIME, LASTSAVE, SHUTDOWN,
 * DEBUG). The table cmd_server_defs (declared below) lives in cmd_server.c; the handlers
 * are spread over cmd_server.c, cmd_info.c, cmd_command.c and cmd_debug.c, which share the
 * declarations below. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_SERVER_H
#define TERSE_CMD_SERVER_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/*
 * Looks up the current value of the configuration option name (exact, case-insensitive)
 * through hooks.config_get. Copies at most val_cap - 1 bytes of it, NUL-terminated, into val
 * (val may be NULL when val_cap is 0). Returns 1 when the option exists, 0 otherwise (val is
 * then ""). No allocation.
 */
int cmd_server_config_value(const struct cmd_server *srv, const char *name, char *val,
                            size_t val_cap);

/*
 * Writes the 40-hex-digit id of this process into out (41 bytes with the NUL): the run_id
 * server/ put in settings, or, when it left it empty, one derived from start_ms and the pid.
 * salt 0 gives run_id; other salts give further stable ids (master_replid).
 */
void cmd_server_id(const struct cmd_server *srv, long pid, unsigned salt, char out[41]);

/* Handlers (cmd_proc) of the family, one per file. */
void cmd_info_proc(struct cmd_call *c);              /* cmd_info.c */
void cmd_command_proc(struct cmd_call *c);           /* cmd_command.c: COMMAND */
void cmd_command_count_proc(struct cmd_call *c);     /* COMMAND COUNT */
void cmd_command_info_proc(struct cmd_call *c);      /* COMMAND INFO */
void cmd_command_docs_proc(struct cmd_call *c);      /* COMMAND DOCS */
void cmd_command_list_proc(struct cmd_call *c);      /* COMMAND LIST */
void cmd_command_getkeys_proc(struct cmd_call *c);   /* COMMAND GETKEYS */
void cmd_command_getkeysandflags_proc(struct cmd_call *c); /* COMMAND GETKEYSANDFLAGS */
void cmd_command_help_proc(struct cmd_call *c);      /* COMMAND HELP */
void cmd_debug_proc(struct cmd_call *c);             /* cmd_debug.c */

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_server_defs[];

#endif /* TERSE_CMD_SERVER_H */
