/*
 * cmd_script_conv: the conversions between replies and Lua values, as Redis 7.0 documents
 * them (script_lua.c is the model).
 */
#ifndef TERSE_CMD_SCRIPT_CONV_H
#define TERSE_CMD_SCRIPT_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"

/* cmd_script_conv.c */
/* Pushes the reply at buf[0..len) as Redis converts a command's reply for a script.
 * TERSE_OK, or TERSE_EPROTO (nothing pushed) when it does not parse. */
int cmd_script_reply_to_lua(lua_State *lua, const uint8_t *buf, size_t len);
/* Writes the Lua value on the top of the stack to o (popping it), as Redis converts a
 * script's return value; resp is the script client's protocol (redis.setresp). */
void cmd_script_lua_to_reply(lua_State *lua, struct resp_out *o, int resp);

#endif /* TERSE_CMD_SCRIPT_CONV_H */
