/*
 * cmd_script_register: redis.register_function, which a library's code calls while FUNCTION
 * LOAD runs it, positional (name, callback) or named ({function_name=, callback=, flags=,
 * description=}), with Redis 7.0's checks and error texts (function_lua.c is the model).
 * What it registers goes to flua's registry table terse_loading (cmd_script_func.c links it
 * once the whole library loaded).
 */
#ifndef TERSE_CMD_SCRIPT_REGISTER_H
#define TERSE_CMD_SCRIPT_REGISTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"

/* cmd_script_register.c: redis.register_function, during FUNCTION LOAD. */
int cmd_script_register_function(lua_State *lua);

#endif /* TERSE_CMD_SCRIPT_REGISTER_H */
