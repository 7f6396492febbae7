/*
 * cmd_script_api: the redis table scripts call (but redis.call and redis.pcall, which are
 * cmd_script_call.c), pcall as Redis 7.0 redefines it, math.random and math.randomseed on a
 * generator that gives the same sequence on every machine, and the error handler lua_pcall
 * runs, with Redis 7.0's arguments checks and error texts (script_lua.c is the model).
 */
#ifndef TERSE_CMD_SCRIPT_API_H
#define TERSE_CMD_SCRIPT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"

/* cmd_script_api.c: the redis table, pcall, math.random, the error handler (in the
 * registry); functions: the FUNCTION state's (with redis.register_function). Inside
 * lua_cpcall (it allocates). */
void cmd_script_api_register(lua_State *lua, int functions);

#endif /* TERSE_CMD_SCRIPT_API_H */
