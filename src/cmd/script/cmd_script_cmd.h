/*
 * cmd_script_cmd: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, and running a script or a
 * function once its checks passed (FCALL runs through here too).
 */
#ifndef TERSE_CMD_SCRIPT_CMD_H
#define TERSE_CMD_SCRIPT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"
#include "cmd/script/cmd_script_base.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_script_defs[];

/* Runs the function on the top of lua's stack for c (a script: KEYS and
 * ARGV globals; fcall: the two tables as its arguments), replies, pops it. run_flags: enum
 * cmd_script_run; e->sha names it. */
void cmd_script_run(struct cmd_script *e, lua_State *lua, struct cmd_call *c, unsigned run_flags,
                    long long numkeys, int fcall);
/* Parses EVAL's and FCALL's numkeys at argv[2]: 0, or -1 after replying the error. */
int cmd_script_numkeys_or_reply(struct cmd_call *c, const char *not_int, long long *numkeys);
/* The checks of a script's flags before it runs (ro: an *_RO command); 0 with *run_flags, or
 * -1 after replying the error. */
int cmd_script_admit_or_reply(struct cmd_call *c, unsigned flags, int ro, unsigned *run_flags);
/* SCRIPT KILL (fcall 0) and FUNCTION KILL (fcall 1) with Redis's replies. */
void cmd_script_kill(struct cmd_call *c, int fcall);

#endif /* TERSE_CMD_SCRIPT_CMD_H */
