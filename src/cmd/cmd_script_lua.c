/*
 * cmd_script_lua: the Lua state scripts run in, set up as Redis 7.0 sets up its own.
 *
 * Libraries: base (without dofile, loadfile, print and the deprecated newproxy, setfenv,
 * getfenv), table, string, math (random and randomseed replaced by a generator that gives
 * the same sequence on every machine), cjson and bit (Debian's lua-cjson and lua-bitop).
 * Redis also loads cmsgpack and struct; Debian packages neither, so they are absent. debug
 * serves the error handler's lookups, then leaves the globals.
 *
 * Globals protection. Redis 7.0 patches its Lua with read-only tables; Debian's Lua has none,
 * so the same behaviour is built from metatables:
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
 * The engine is reached from Lua through the state's allocator userdata (lua_getallocf), no
 * registry lookup per call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lualib.h>

#include "cmd/cmd_internal.h"
#include "cmd/cmd_script.h"
#include "cmd/cmd_server.h"
#include "terse/status.h"

#define REG_RO "terse_readonly"        /* registry: proxies and metatables refused to writes */
#define REG_TOSTRING "terse_tostring"  /* registry: the base library's tostring */
#define REG_SETMETA "terse_setmetatable"
#define REG_RAWSET "terse_rawset"
#define REG_LOADSTRING "terse_loadstring"
#define HOOK_INSTRUCTIONS 100000       /* instructions between two busy checks (Redis's) */
#define RAND48_MAX 2147483647          /* Redis's REDIS_LRAND48_MAX */

static void *lua_alloc_fn(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, nsize);
}

#define engine cmd_script_of

void cmd_script_push_error(lua_State *lua, const char *text, size_t len)
{
    const char *code = "ERR", *msg = text;
    size_t clen = 3, mlen = len;

    if (len > 0 && text[0] == '-') {
        const char *sp = memchr(text, ' ', len);
        if (sp == NULL) {
            msg = text + 1;
            mlen = len - 1;
        } else {
            code = text + 1;
            clen = (size_t)(sp - text) - 1;
            msg = sp + 1;
            mlen = len - (size_t)(sp + 1 - text);
        }
    }
    while (mlen > 0 && (msg[0] == '\r' || msg[0] == '\n')) {
        msg++;
        mlen--;
    }
    while (mlen > 0 && (msg[mlen - 1] == '\r' || msg[mlen - 1] == '\n')) {
        mlen--;
    }
    lua_newtable(lua);
    lua_pushstring(lua, "err");
    lua_pushlstring(lua, code, clen);
    lua_pushliteral(lua, " ");
    lua_pushlstring(lua, msg, mlen);
    lua_concat(lua, 3);
    lua_rawset(lua, -3);
}

/* Raises the error table of text (never returns). */
static int raise(lua_State *lua, const char *text)
{
    cmd_script_push_error(lua, text, strlen(text));
    return lua_error(lua);
}

/* ---- globals protection ------------------------------------------------------------------ */

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

static void protect(lua_State *lua)
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
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_TOSTRING);
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
    lua_replace(lua, LUA_GLOBALSINDEX);
    lua_pop(lua, 1);
}

/* ---- the redis table, but call and pcall (cmd_script_call.c) ----------------------------- */

static int r_pcall(lua_State *lua)
{
    int argc = lua_gettop(lua);

    lua_pushboolean(lua, 1);
    lua_insert(lua, 1);
    if (lua_pcall(lua, argc - 1, LUA_MULTRET, 0) != 0) {
        /* Redis 7.0 raises tables; pcall gives scripts the message, as before 7.0. */
        lua_remove(lua, 1);
        if (lua_istable(lua, -1)) {
            lua_getfield(lua, -1, "err");
            if (lua_isstring(lua, -1)) {
                lua_replace(lua, -2);
            } else {
                lua_pop(lua, 1);
            }
        }
        lua_pushboolean(lua, 0);
        lua_insert(lua, 1);
    }
    return lua_gettop(lua);
}

static int r_call(lua_State *lua)
{
    return cmd_script_call(lua, 1);
}

static int r_pcall_cmd(lua_State *lua)
{
    return cmd_script_call(lua, 0);
}

static int r_sha1hex(lua_State *lua)
{
    char hex[CMD_SCRIPT_SHA_LEN + 1];
    size_t len = 0;
    const char *s;

    if (lua_gettop(lua) != 1) {
        return raise(lua, "wrong number of arguments");
    }
    s = lua_tolstring(lua, 1, &len);
    cmd_script_sha1hex(engine(lua), s, s != NULL ? len : 0, hex);
    lua_pushstring(lua, hex);
    return 1;
}

static int r_error_reply(lua_State *lua)
{
    size_t len;
    const char *s;

    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        cmd_script_push_error(lua, "wrong number or type of arguments", 33);
        return 1;
    }
    s = lua_tolstring(lua, 1, &len);
    len = strlen(s); /* Redis reads it as a C string */
    if (s[0] == '-') {
        cmd_script_push_error(lua, s, len);
    } else {
        lua_pushliteral(lua, "-");
        lua_pushvalue(lua, 1);
        lua_concat(lua, 2);
        s = lua_tolstring(lua, -1, &len);
        cmd_script_push_error(lua, s, strlen(s));
    }
    return 1;
}

static int r_status_reply(lua_State *lua)
{
    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        cmd_script_push_error(lua, "wrong number or type of arguments", 33);
        return 1;
    }
    lua_newtable(lua);
    lua_pushliteral(lua, "ok");
    lua_pushvalue(lua, 1);
    lua_rawset(lua, -3);
    return 1;
}

static int r_log(lua_State *lua)
{
    struct cmd_script *e = engine(lua);
    int argc = lua_gettop(lua), level;
    luaL_Buffer b;

    if (argc < 2) {
        return raise(lua, "redis.log() requires two arguments or more.");
    }
    if (!lua_isnumber(lua, 1)) {
        return raise(lua, "First argument must be a number (log level).");
    }
    level = (int)lua_tonumber(lua, 1);
    if (level < 0 || level > 3) {
        return raise(lua, "Invalid debug level.");
    }
    luaL_buffinit(lua, &b);
    for (int j = 2, first = 1; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(lua, j, &len);
        if (s != NULL) {
            if (!first) {
                luaL_addchar(&b, ' ');
            }
            luaL_addlstring(&b, s, len);
            first = 0;
        }
    }
    luaL_pushresult(&b);
    if (e->srv->hooks.log_at != NULL) {
        e->srv->hooks.log_at(e->srv->hooks.srv, level, lua_tostring(lua, -1));
    }
    return 0;
}

static int r_setresp(lua_State *lua)
{
    struct cmd_script *e = engine(lua);
    int resp;

    if (e->caller == NULL) {
        return raise(lua, "redis.setresp can only be called inside a script invocation");
    }
    if (lua_gettop(lua) != 1) {
        return raise(lua, "redis.setresp() requires one argument.");
    }
    resp = (int)lua_tonumber(lua, 1);
    if (resp != 2 && resp != 3) {
        return raise(lua, "RESP version must be 2 or 3.");
    }
    e->cl.resp = resp;
    e->out.proto = resp;
    return 0;
}

static int r_set_repl(lua_State *lua)
{
    struct cmd_script *e = engine(lua);
    int flags;

    if (e->caller == NULL) {
        return raise(lua, "redis.set_repl can only be called inside a script invocation");
    }
    if (lua_gettop(lua) != 1) {
        return raise(lua, "redis.set_repl() requires two arguments.");
    }
    flags = (int)lua_tonumber(lua, -1);
    if ((flags & ~CMD_SCRIPT_REPL_ALL) != 0) {
        return raise(lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                          "REPL_NONE.");
    }
    e->repl = (unsigned)flags;
    return 0;
}

static int r_acl_check_cmd(lua_State *lua)
{
    struct cmd_script *e = engine(lua);
    struct resp_slice a[2];
    size_t n = lua_gettop(lua) > 1 ? 2 : 1;

    if (e->caller == NULL) {
        return raise(lua, "redis.acl_check_cmd can only be called inside a script invocation");
    }
    if (lua_gettop(lua) == 0) {
        return raise(lua, "Please specify at least one argument for this redis lib call");
    }
    for (size_t i = 0; i < n; i++) {
        a[i].p = (const uint8_t *)lua_tolstring(lua, (int)i + 1, &a[i].len);
        if (a[i].p == NULL) {
            return raise(lua, "Lua redis lib command arguments must be strings or integers");
        }
    }
    if (cmd_resolve(e->srv, a, n) == NULL) {
        return raise(lua, "Invalid command passed to redis.acl_check_cmd()");
    }
    lua_pushboolean(lua, 1); /* one user, allowed everything: no ACLs in terse */
    return 1;
}

static int r_false(lua_State *lua)
{
    lua_pushboolean(lua, 0);
    return 1;
}

static int r_true(lua_State *lua)
{
    lua_pushboolean(lua, 1);
    return 1;
}

static int r_nothing(lua_State *lua)
{
    (void)lua;
    return 0;
}

/* math.random as Lua's own, over a 48-bit linear congruential generator (drand48's
 * constants and seed), so every machine gives the same sequence. */
static lua_Number rand_next(struct cmd_script *e)
{
    e->rand_state = (e->rand_state * 0x5DEECE66DULL + 0xB) & ((1ULL << 48) - 1);
    return (lua_Number)((int32_t)(e->rand_state >> 17) % RAND48_MAX) / (lua_Number)RAND48_MAX;
}

static int r_random(lua_State *lua)
{
    lua_Number r = rand_next(engine(lua));
    int l, u;

    switch (lua_gettop(lua)) {
    case 0:
        lua_pushnumber(lua, r);
        return 1;
    case 1:
        u = luaL_checkint(lua, 1);
        luaL_argcheck(lua, 1 <= u, 1, "interval is empty");
        lua_pushnumber(lua, (lua_Number)(long long)(r * u) + 1);
        return 1;
    case 2:
        l = luaL_checkint(lua, 1);
        u = luaL_checkint(lua, 2);
        luaL_argcheck(lua, l <= u, 2, "interval is empty");
        lua_pushnumber(lua, (lua_Number)(long long)(r * (u - l + 1)) + l);
        return 1;
    default:
        return luaL_error(lua, "wrong number of arguments");
    }
}

static int r_randomseed(lua_State *lua)
{
    engine(lua)->rand_state = ((uint64_t)(uint32_t)luaL_checkint(lua, 1) << 16) | 0x330E;
    return 0;
}

/* The handler lua_pcall runs on an error: the error as a table {err=...} with the source
 * and line of the script code that raised it (a C function's caller when a C function did). */
static int err_handler(lua_State *lua)
{
    lua_Debug ar;
    int have = lua_getstack(lua, 1, &ar) && lua_getinfo(lua, "Sl", &ar);

    if (have && ar.what != NULL && strcmp(ar.what, "C") == 0) {
        have = lua_getstack(lua, 2, &ar) && lua_getinfo(lua, "Sl", &ar);
    }
    if (!lua_istable(lua, 1)) {
        lua_getfield(lua, LUA_REGISTRYINDEX, REG_TOSTRING);
        lua_pushvalue(lua, 1);
        lua_call(lua, 1, 1);
        lua_newtable(lua);
        lua_pushliteral(lua, "ERR ");
        lua_pushvalue(lua, -3);
        lua_concat(lua, 2);
        lua_setfield(lua, -2, "err");
        lua_replace(lua, 1);
        lua_settop(lua, 1);
    }
    if (have) {
        lua_pushstring(lua, ar.source);
        lua_setfield(lua, 1, "source");
        lua_pushinteger(lua, ar.currentline);
        lua_setfield(lua, 1, "line");
    }
    lua_settop(lua, 1);
    return 1;
}

static void set_fn(lua_State *lua, const char *name, lua_CFunction fn)
{
    lua_pushcfunction(lua, fn);
    lua_setfield(lua, -2, name);
}

static void set_num(lua_State *lua, const char *name, lua_Number v)
{
    lua_pushnumber(lua, v);
    lua_setfield(lua, -2, name);
}

static void redis_table(lua_State *lua)
{
    lua_newtable(lua);
    set_fn(lua, "call", r_call);
    set_fn(lua, "pcall", r_pcall_cmd);
    set_fn(lua, "log", r_log);
    set_num(lua, "LOG_DEBUG", 0);
    set_num(lua, "LOG_VERBOSE", 1);
    set_num(lua, "LOG_NOTICE", 2);
    set_num(lua, "LOG_WARNING", 3);
    set_num(lua, "REDIS_VERSION_NUM", CMD_SERVER_REDIS_VERSION_NUM);
    lua_pushstring(lua, CMD_SERVER_REDIS_VERSION);
    lua_setfield(lua, -2, "REDIS_VERSION");
    set_fn(lua, "setresp", r_setresp);
    set_fn(lua, "sha1hex", r_sha1hex);
    set_fn(lua, "error_reply", r_error_reply);
    set_fn(lua, "status_reply", r_status_reply);
    set_fn(lua, "set_repl", r_set_repl);
    set_num(lua, "REPL_NONE", 0);
    set_num(lua, "REPL_AOF", CMD_SCRIPT_REPL_AOF);
    set_num(lua, "REPL_SLAVE", CMD_SCRIPT_REPL_REPLICA);
    set_num(lua, "REPL_REPLICA", CMD_SCRIPT_REPL_REPLICA);
    set_num(lua, "REPL_ALL", CMD_SCRIPT_REPL_ALL);
    set_fn(lua, "acl_check_cmd", r_acl_check_cmd);
    set_fn(lua, "breakpoint", r_false);  /* no debugger (SCRIPT DEBUG): never stops */
    set_fn(lua, "debug", r_nothing);
    set_fn(lua, "replicate_commands", r_true);
    lua_setglobal(lua, "redis");
}

static void load_lib(lua_State *lua, const char *name, lua_CFunction open)
{
    lua_pushcfunction(lua, open);
    lua_pushstring(lua, name);
    lua_call(lua, 1, 0);
}

/* cjson and bit as globals (Debian builds lua-cjson without its own global). */
static void load_module(lua_State *lua, const char *name, lua_CFunction open)
{
    lua_pushcfunction(lua, open);
    lua_pushstring(lua, name);
    lua_call(lua, 1, 1);
    lua_setglobal(lua, name);
}

/* bit.tohex with Redis's fix of lua-bitop's: a digit count of INT32_MIN (after lua-bitop's own
 * conversion of the number to 32 bits) negates to itself and overruns its buffer, so it
 * becomes INT32_MIN + 1, which gives the same result without the overrun. */
static int safe_tohex(lua_State *lua)
{
    if (lua_gettop(lua) >= 2 && lua_type(lua, 2) == LUA_TNUMBER) {
        union {
            lua_Number n;
            uint64_t b;
        } v;
        v.n = lua_tonumber(lua, 2) + 6755399441055744.0; /* 2^52 + 2^51: lua-bitop's rounding */
        if ((uint32_t)v.b == 0x80000000u) {
            lua_pushnumber(lua, -2147483647.0);
            lua_replace(lua, 2);
        }
    }
    lua_pushvalue(lua, lua_upvalueindex(1));
    lua_insert(lua, 1);
    lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
    return lua_gettop(lua);
}

/* Runs under lua_cpcall: any allocation failure is caught there. */
static int setup(lua_State *lua)
{
    static const char *const removed[] = {"dofile", "loadfile", "print", "newproxy",
                                          "setfenv", "getfenv", NULL};

    load_lib(lua, "", luaopen_base);
    load_lib(lua, LUA_TABLIBNAME, luaopen_table);
    load_lib(lua, LUA_STRLIBNAME, luaopen_string);
    load_lib(lua, LUA_MATHLIBNAME, luaopen_math);
    load_module(lua, "cjson", luaopen_cjson);
    load_module(lua, "bit", luaopen_bit);
    lua_getglobal(lua, "bit");
    lua_getfield(lua, -1, "tohex");
    lua_pushcclosure(lua, safe_tohex, 1);
    lua_setfield(lua, -2, "tohex");
    lua_pop(lua, 1);
    for (size_t i = 0; removed[i] != NULL; i++) {
        lua_pushnil(lua);
        lua_setglobal(lua, removed[i]);
    }
    lua_pushcfunction(lua, r_pcall);
    lua_setglobal(lua, "pcall");
    redis_table(lua);
    lua_getglobal(lua, "math");
    set_fn(lua, "random", r_random);
    set_fn(lua, "randomseed", r_randomseed);
    lua_pop(lua, 1);
    lua_pushcfunction(lua, err_handler);
    lua_setfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_ERR_HANDLER);
    protect(lua);
    return 0;
}

int cmd_script_lua_open(struct cmd_script *e)
{
    e->lua = lua_newstate(lua_alloc_fn, e);
    if (e->lua == NULL) {
        return TERSE_ENOMEM;
    }
    if (lua_cpcall(e->lua, setup, NULL) != 0) {
        cmd_script_lua_close(e);
        return TERSE_ENOMEM;
    }
    e->rand_state = 0x1234ABCD330EULL;
    return TERSE_OK;
}

void cmd_script_lua_close(struct cmd_script *e)
{
    if (e->lua != NULL) {
        lua_close(e->lua);
        e->lua = NULL;
    }
}

/* The count hook (and, once a kill is asked, a hook on every line so that pcall cannot
 * catch the kill and go on). */
static void busy_hook(lua_State *lua, lua_Debug *ar)
{
    struct cmd_script *e = engine(lua);
    struct cmd_server *srv = e->srv;
    char msg[256];

    (void)ar;
    if (e->caller == NULL) {
        return;
    }
    if (!(e->run & CMD_SCRIPT_RUN_TIMEDOUT)) {
        long long elapsed = (long long)((srv->hooks.now_us(srv->hooks.srv) - e->start_us) / 1000);
        if (elapsed < srv->settings.busy_reply_threshold_ms) {
            return;
        }
        snprintf(msg, sizeof(msg),
                 "Slow script detected: still in execution after %lld milliseconds. You can "
                 "try killing the script using the SCRIPT KILL command. Script name is: %s.",
                 elapsed, e->sha);
        if (srv->hooks.log_warning != NULL) {
            srv->hooks.log_warning(srv->hooks.srv, msg);
        }
        e->run |= CMD_SCRIPT_RUN_TIMEDOUT;
        e->caller->cl->flags |= CMD_CLIENT_PROTECTED;
    }
    if (srv->hooks.busy_events != NULL && srv->hooks.busy_events(srv->hooks.srv) != 0) {
        e->run |= CMD_SCRIPT_RUN_KILLED; /* the server is shutting down */
    }
    if (e->run & CMD_SCRIPT_RUN_KILLED) {
        if (srv->hooks.log_warning != NULL) {
            srv->hooks.log_warning(srv->hooks.srv, "Lua script killed by user with SCRIPT KILL.");
        }
        lua_sethook(lua, busy_hook, LUA_MASKLINE, 0);
        raise(lua, "Script killed by user with SCRIPT KILL...");
    }
}

void cmd_script_lua_hook(struct cmd_script *e, int on)
{
    if (on) {
        lua_sethook(e->lua, busy_hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    } else {
        lua_sethook(e->lua, NULL, 0, 0);
    }
}
