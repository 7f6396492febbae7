/*
 * cmd_script_api: (see cmd_script_api.c)
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
