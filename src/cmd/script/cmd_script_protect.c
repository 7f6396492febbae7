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
 * marks them). KEYS and ARGV are set in G directly by the engine. What this does not give:
 * pairs() over a protected table sees nothing, and rawget on one finds nothing.
 *
 * No bytecode. Lua 5.1 undumps a chunk whose first byte is LUA_SIGNATURE[0] (ESC) instead of
 * parsing it, and its undumper trusts what it reads: a crafted chunk escapes any sandbox
 * (Redis's CVE-2015-4335). Redis's Lua is patched to parse every chunk as text; Debian's is
 * not, so every way into lua_load goes through text_load: the engine's own loads (EVAL and
 * SCRIPT LOAD bodies, FUNCTION LOAD code: cmd_script_load_text) and the base library's
 * load and loadstring, which are replaced by twins built on it (the originals are kept
 * nowhere). dofile, loadfile and require, the other loaders, are not in the state at all.
 * text_load puts one space in front of a chunk that starts with ESC: the chunk then goes to
 * the parser, which skips the space and sees the same tokens on the same lines as Redis's
 * does, so the error (`unexpected symbol near 'char(27)'`, with the chunk's own name) is
 * Redis's to the byte. Lua decides from the first byte of the first piece a reader returns;
 * text_load looks at the same byte, so no split of the chunk into pieces gets past it.
 */
#include "cmd/script/cmd_script_protect.h"

#include <string.h>

#include <lauxlib.h>

#include "cmd/script/cmd_script_base.h"

#define REG_RO "terse_readonly"        /* registry: proxies and metatables refused to writes */
#define REG_SETMETA "terse_setmetatable"
#define REG_RAWSET "terse_rawset"
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

/* ---- loading text only ------------------------------------------------------------------ */

/* A reader in front of another: when the first piece starts with ESC, hands out " " first
 * and that piece on the next call (still valid then: the inner reader has not been called
 * again). Every other piece, and every piece after the first, passes through as it is. */
struct text_reader {
    lua_Reader inner;
    void *inner_ud;
    const char *held;           /* the first piece while it waits behind the space */
    size_t held_len;
    int decided;                /* the first piece, the one Lua decides on, was read */
};

static const char *text_read(lua_State *lua, void *ud, size_t *size)
{
    struct text_reader *r = ud;
    const char *p;
    int first;

    if (r->held != NULL) {
        p = r->held;
        *size = r->held_len;
        r->held = NULL;
        return p;
    }
    p = r->inner(lua, r->inner_ud, size);
    first = !r->decided;
    r->decided = 1;
    if (first && p != NULL && *size > 0 && p[0] == LUA_SIGNATURE[0]) {
        r->held = p;
        r->held_len = *size;
        *size = 1;
        return " ";
    }
    return p;
}

/* lua_load that never undumps: the function or the error message on the top, Lua's status. */
static int text_load(lua_State *lua, lua_Reader reader, void *ud, const char *chunkname)
{
    struct text_reader r = {.inner = reader, .inner_ud = ud, .held = NULL, .held_len = 0,
                            .decided = 0};

    return lua_load(lua, text_read, &r, chunkname);
}

struct buffer_reader {
    const char *p;
    size_t len;                 /* 0 once handed out */
};

static const char *buffer_read(lua_State *lua, void *ud, size_t *size)
{
    struct buffer_reader *b = ud;

    (void)lua;
    if (b->len == 0) {
        return NULL;
    }
    *size = b->len;
    b->len = 0;
    return b->p;
}

int cmd_script_load_text(lua_State *lua, const char *p, size_t len, const char *chunkname)
{
    struct buffer_reader b = {.p = p, .len = len};

    return text_load(lua, buffer_read, &b, chunkname);
}

/* load's and loadstring's answer: the function, or nil and the message. */
static int load_result(lua_State *lua, int status)
{
    if (status == 0) {
        return 1;
    }
    lua_pushnil(lua);
    lua_insert(lua, -2);
    return 2;
}

/* load(reader [, chunkname]): the reader is the function at 1; its last piece is kept at 3
 * so that it stays alive while Lua reads it. Arguments, errors and results as Lua 5.1's. */
static const char *function_read(lua_State *lua, void *ud, size_t *size)
{
    (void)ud;
    luaL_checkstack(lua, 2, "too many nested functions");
    lua_pushvalue(lua, 1);
    lua_call(lua, 0, 1);
    if (lua_isnil(lua, -1)) {
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(lua, -1)) {
        luaL_error(lua, "reader function must return a string");
        return NULL;
    }
    lua_replace(lua, 3);
    return lua_tolstring(lua, 3, size);
}

static int safe_load(lua_State *lua)
{
    const char *name = luaL_optstring(lua, 2, "=(load)");

    luaL_checktype(lua, 1, LUA_TFUNCTION);
    lua_settop(lua, 3);
    return load_result(lua, text_load(lua, function_read, NULL, name));
}

static int safe_loadstring(lua_State *lua)
{
    size_t len;
    const char *s = luaL_checklstring(lua, 1, &len);
    const char *name = luaL_optstring(lua, 2, s);

    return load_result(lua, cmd_script_load_text(lua, s, len, name));
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
    lua_pushcfunction(lua, safe_load);
    lua_setfield(lua, -2, "load");
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

