/*
 * cmd_script_protect: the globals protection of the Lua state (Redis 7.0 patches its Lua with
 * read-only tables; Debian's Lua has none, so the same behaviour is built from metatables):
 */
#ifndef TERSE_CMD_SCRIPT_PROTECT_H
#define TERSE_CMD_SCRIPT_PROTECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"

/* cmd_script_protect.c: the globals protection; the last step of setting a state up. */
void cmd_script_protect(lua_State *lua);
/* luaL_loadbuffer without bytecode, the only way the engine compiles code: len bytes at p
 * (borrowed) always go to the parser, a binary chunk included (it fails there, as in Redis's
 * Lua). Pushes the function (0) or the error message (Lua's LUA_ERRSYNTAX or LUA_ERRMEM). */
int cmd_script_load_text(lua_State *lua, const char *p, size_t len, const char *chunkname);
/* FUNCTION's state: globals are the library API while a library loads (loading 1), the
 * usual ones after (0). */
void cmd_script_protect_load_env(lua_State *lua, int loading);

#endif /* TERSE_CMD_SCRIPT_PROTECT_H */
