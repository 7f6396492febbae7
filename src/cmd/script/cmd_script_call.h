/*
 * cmd_script_call: redis.call and redis.pcall, a command run from a script (Redis 7.0's
 * luaRedisGenericCommand and scriptCall).
 */
#ifndef TERSE_CMD_SCRIPT_CALL_H
#define TERSE_CMD_SCRIPT_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"

/* cmd_script_call.c: redis.call (raise 1) and redis.pcall (raise 0). */
int cmd_script_call(lua_State *lua, int raise);

#endif /* TERSE_CMD_SCRIPT_CALL_H */
