/*
 * cmd_script_protect: the globals protection of the Lua state (Redis 7.0 patches its Lua with
 * read-only tables; Debian's Lua has none, so the same behaviour is built from metatables):
 *
 *   globals (what scripts see) = proxy P, an empty table:
 *       P.__index    -> G, the real globals;  G.__index -> error "nonexistent global"
 *       P.__newindex -> error "Attempt to modify a readonly table"
 *       getmetatable(P) -> a read-only proxy of P's metatable
 *   redis, string, math, table, coroutine, cjson, bit in G: read-only proxies the same way;
 *   the string metatable answers getmetatable('') with a read-only proxy of itself.
 *
 * rawset and setmetatable are wrapped to refuse the proxies (a registry table with weak keys
 * marks them); loadstring refuses bytecode (Redis's Lua parses every chunk as text). KEYS and
 * ARGV are set in G directly by the engine. What this does not give: pairs() over a protected
 * table sees nothing, and rawget on one finds nothing.
 */
#include <string.h>

#include <lauxlib.h>

#include "cmd/cmd_script.h"

#define REG_RO "terse_readonly"        /* registry: proxies and metatables refused to writes */
#define REG_SETMETA "terse_setmetatable"
#define REG_RAWSET "terse_rawset"
#define REG_LOADSTRING "terse_loadstring"
#define REG_GLOBALS_META "terse_globals_meta" /* the globals proxy's metatable */
#define REG_LIB_ENV "terse_library_env"       /* what a library's code sees as it loads */

/* A write to a read-only table from script code: the script's position comes first, as
 * Lua's own runtime errors put it. */
static int readonly_error(lua_State *lua)
{
    luaL_where(lua, 1);
    lua_pushliteral(lua, "Attempt to modify a readonly table");
    lua_concat(lua, 2);
    return lua_error(lua);
}

/* The same refused inside a C function (rawset, setmetatable): no position, as in Redis. */
static int readonly_error_in_c(lua_State *lua)
{
    lua_pushliteral(lua, "Attempt to modify a readonly table");
    return lua_error(lua);
}

static int nonexistent_global(lua_State *lua)
{
    return luaL_error(lua, "Script attempted to access nonexistent global variable '%s'",
                      lua_tostring(lua, 2) != NULL ? lua_tostring(lua, 2) : "?");
}

static int is_readonly(lua_State *lua, int idx)
{
    int ro;

    if (!lua_istable(lua, idx)) {
        return 0;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_RO);
    lua_pushvalue(lua, idx);
    lua_rawget(lua, -2);
    ro = lua_toboolean(lua, -1);
    lua_pop(lua, 2);
    return ro;
}

static void mark_readonly(lua_State *lua, int idx)
{
    idx = idx < 0 ? lua_gettop(lua) + idx + 1 : idx;
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_RO);
    lua_pushvalue(lua, idx);
    lua_pushboolean(lua, 1);
    lua_rawset(lua, -3);
    lua_pop(lua, 1);
}

/* Replaces the table on the top of the stack by a read-only proxy of it; getmetatable() on
 * the proxy answers a read-only proxy of its metatable when deep is set, else false. */
static void make_proxy(lua_State *lua, int deep)
{
    lua_newtable(lua);                         /* T P */
    lua_newtable(lua);                         /* T P M */
    lua_pushvalue(lua, -3);
    lua_setfield(lua, -2, "__index");
    lua_pushcfunction(lua, readonly_error);
    lua_setfield(lua, -2, "__newindex");
    if (deep) {
        lua_pushvalue(lua, -1);
        make_proxy(lua, 0);
    } else {
        lua_pushboolean(lua, 0);
    }
    lua_setfield(lua, -2, "__metatable");
    mark_readonly(lua, -1);
    lua_setmetatable(lua, -2);                 /* T P */
    mark_readonly(lua, -1);
    lua_remove(lua, -2);                       /* P */
}

static int safe_rawset(lua_State *lua)
{
    if (is_readonly(lua, 1)) {
        return readonly_error_in_c(lua);
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_RAWSET);
    lua_insert(lua, 1);
    lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
    return lua_gettop(lua);
}

static int safe_setmetatable(lua_State *lua)
{
    if (is_readonly(lua, 1)) {
        return readonly_error_in_c(lua);
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_SETMETA);
    lua_insert(lua, 1);
    lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
    return lua_gettop(lua);
}

/* loadstring without bytecode: Redis's Lua parses every chunk as text. */
static int safe_loadstring(lua_State *lua)
{
    size_t len = 0;
    const char *s = lua_tolstring(lua, 1, &len);

    if (s != NULL && len > 0 && s[0] == '\033') {
        lua_pushnil(lua);
        lua_pushliteral(lua, "binary chunks are not loaded");
        return 2;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LOADSTRING);
    lua_insert(lua, 1);
    lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
    return lua_gettop(lua);
}

/* G[name] = read-only proxy of G[name]. G on the top of the stack. */
static void protect_field(lua_State *lua, const char *name)
{
    lua_getfield(lua, -1, name);
    make_proxy(lua, 1);
    lua_setfield(lua, -2, name);
}

/* FUNCTION's state: what a library's code sees while FUNCTION LOAD runs it (Redis's library
 * API): only redis, with register_function, log, the LOG_ levels and the version; any other
 * name fails as a nonexistent global. Built from the table cmd_script_api_register left in
 * the registry. */
static void library_env(lua_State *lua)
{
    lua_getfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_LIB_REDIS);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        return;
    }
    lua_newtable(lua);
    lua_pushcfunction(lua, nonexistent_global);
    lua_setfield(lua, -2, "__index");
    lua_setmetatable(lua, -2);
    make_proxy(lua, 1);
    lua_newtable(lua);                          /* the environment */
    lua_insert(lua, -2);
    lua_setfield(lua, -2, "redis");
    lua_newtable(lua);
    lua_pushcfunction(lua, nonexistent_global);
    lua_setfield(lua, -2, "__index");
    lua_setmetatable(lua, -2);
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_LIB_ENV);
}

void cmd_script_protect(lua_State *lua)
{
    static const char *const libs[] = {"redis", "string", "math", "table", "coroutine",
                                       "cjson", "bit", NULL};

    lua_newtable(lua);                          /* the read-only marks, weak keys */
    lua_newtable(lua);
    lua_pushliteral(lua, "k");
    lua_setfield(lua, -2, "__mode");
    lua_setmetatable(lua, -2);
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_RO);

    lua_pushvalue(lua, LUA_GLOBALSINDEX);       /* G */
    lua_getfield(lua, -1, "rawset");
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_RAWSET);
    lua_getfield(lua, -1, "setmetatable");
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_SETMETA);
    lua_getfield(lua, -1, "tostring");
    lua_setfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_TOSTRING);
    lua_getfield(lua, -1, "loadstring");
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_LOADSTRING);
    lua_pushcfunction(lua, safe_loadstring);
    lua_setfield(lua, -2, "loadstring");
    lua_pushcfunction(lua, safe_rawset);
    lua_setfield(lua, -2, "rawset");
    lua_pushcfunction(lua, safe_setmetatable);
    lua_setfield(lua, -2, "setmetatable");
    for (size_t i = 0; libs[i] != NULL; i++) {
        protect_field(lua, libs[i]);
    }
    lua_pushliteral(lua, "");                   /* the string metatable */
    if (lua_getmetatable(lua, -1)) {
        lua_pushvalue(lua, -1);
        make_proxy(lua, 0);
        lua_setfield(lua, -2, "__metatable");
        lua_pop(lua, 1);
    }
    lua_pop(lua, 1);
    lua_pushvalue(lua, -1);
    lua_setfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_GLOBALS);
    lua_newtable(lua);                          /* G's metatable: unknown names fail */
    lua_pushcfunction(lua, nonexistent_global);
    lua_setfield(lua, -2, "__index");
    lua_setmetatable(lua, -2);
    lua_pushvalue(lua, -1);
    make_proxy(lua, 1);                         /* G P */
    lua_pushvalue(lua, -1);
    lua_setfield(lua, -3, "_G");                /* G._G = P: scripts see the proxy */
    lua_getmetatable(lua, -1);                  /* P's: its __index switches for a load */
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_GLOBALS_META);
    lua_replace(lua, LUA_GLOBALSINDEX);
    lua_pop(lua, 1);
    library_env(lua);
}

void cmd_script_protect_load_env(lua_State *lua, int loading)
{
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_GLOBALS_META);
    lua_pushliteral(lua, "__index");
    lua_getfield(lua, LUA_REGISTRYINDEX, loading ? REG_LIB_ENV : CMD_SCRIPT_REG_GLOBALS);
    lua_rawset(lua, -3);
    lua_pop(lua, 1);
}

