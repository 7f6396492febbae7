/*
 * cmd_script: Lua scripting as Redis 7.0 has it (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT),
 * on Debian's Lua 5.1 with its cjson and bit libraries. Shared by the files of the engine:
 *
 *   cmd_script.c       the engine, the cache of scripts
 *   cmd_script_cmd.c   the commands, running a script
 *   cmd_script_lua.c   the Lua state: libraries, the busy hook
 *   cmd_script_api.c   the redis table
 *   cmd_script_protect.c  the globals protection
 *   cmd_script_func.c  FUNCTION's libraries; cmd_script_register.c redis.register_function;
 *                      cmd_script_fcmd.c FCALL and FUNCTION
 *   cmd_script_call.c  redis.call / redis.pcall: a command run on the script client
 *   cmd_script_conv.c  replies to Lua values and Lua values to replies
 *
 * A script's commands run through the command table (cmd_run) on a client of the engine's
 * own (cl), which is in no client list; their replies go to buf, which the engine reads back
 * into Lua values with resp_reply and then empties. Everything runs on the worker thread.
 */
#ifndef TERSE_CMD_SCRIPT_H
#define TERSE_CMD_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "cmd/script/cmd_script_base.h"

/* Frees the script client's reply buffer and argument array above keep bytes while no script
 * runs (cmd_server_trim, from cron: one huge reply does not pin its memory). */
void cmd_script_trim(struct cmd_server *srv, size_t keep);

/* The engine of srv, created on first use (NULL when out of memory). */
struct cmd_script *cmd_script_get(struct cmd_server *srv);
/* Frees the engine and its Lua state; *pp = NULL. */
void cmd_script_destroy(struct cmd_server *srv, struct cmd_script **pp);
/* Pushes the function of sha (40 lowercase hex) and returns 1, or returns 0 (nothing pushed)
 * when it is not cached; *flags gets its enum cmd_script_flag. */
int cmd_script_cached(struct cmd_script *e, const char *sha, unsigned *flags);
/* Compiles and caches body (borrowed) unless cached, as Redis's luaCreateFunction: 0 with
 * sha (41 bytes) and *flags, or -1 after replying the error to c. Pushes nothing. */
int cmd_script_create(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *body,
                      char *sha, unsigned *flags);

/* 1 while a script runs past busy-reply-threshold: cmd_dispatch answers -BUSY to every
 * command not flagged CMD_ALLOW_BUSY. */
int cmd_script_busy(const struct cmd_server *srv);

/* INFO memory's scripting figures. */
struct cmd_script_figures {
    uint64_t n_scripts;   /* number_of_cached_scripts */
    uint64_t body_bytes;  /* used_memory_scripts_eval (terse counts the bodies) */
    uint64_t lua_bytes;   /* used_memory_lua / used_memory_vm_eval */
    uint64_t flua_bytes;  /* used_memory_vm_functions */
    uint64_t n_functions, n_libraries;
};
void cmd_script_info(const struct cmd_server *srv, struct cmd_script_figures *f);

/* The -BUSY error text while a script runs past its time, as its kind says. */
const char *cmd_script_busy_error(const struct cmd_server *srv);

#endif /* TERSE_CMD_SCRIPT_H */
