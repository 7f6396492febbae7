/*
 * cmd_script_register: (see cmd_script_register.c)
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
