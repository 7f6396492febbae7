/*
 * cmd_script_lua: the Lua states of the engine: libraries, the redis table, the error handler,
 * the globals protection, and the hook that watches busy-reply-threshold.
 */
#ifndef TERSE_CMD_SCRIPT_LUA_H
#define TERSE_CMD_SCRIPT_LUA_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"
#include "cmd/script/cmd_script_base.h"

/* Creates *out, a state of e, with the libraries, the redis table, the error handler and the
 * globals protection; functions: the FUNCTION state (redis.register_function is there).
 * TERSE_OK or TERSE_ENOMEM (*out NULL). */
int cmd_script_lua_open(struct cmd_script *e, lua_State **out, int functions);
/* lua_close(*pp); *pp = NULL; a NULL *pp is a no-op. */
void cmd_script_lua_close(lua_State **pp);
/* Installs (on) or removes the instruction-count hook that watches busy-reply-threshold. */
void cmd_script_lua_hook(lua_State *lua, int on);

#endif /* TERSE_CMD_SCRIPT_LUA_H */
