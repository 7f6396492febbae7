/*
 * cmd_script_api: the redis table scripts call (but redis.call and redis.pcall, which are
 * cmd_script_call.c), pcall as Redis 7.0 redefines it, math.random and math.randomseed on a
 * generator that gives the same sequence on every machine, and the error handler lua_pcall
 * runs, with Redis 7.0's arguments checks and error texts (script_lua.c is the model).
 */
#include "cmd/script/cmd_script_api.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "cmd/script/cmd_script_base.h"
#include "terse/status.h"
#include "cmd/script/cmd_script_call.h"
#include "cmd/core/cmd_table.h"
#include "cmd/script/cmd_script_register.h"

#define RAND48_MAX 2147483647          /* Redis's REDIS_LRAND48_MAX */
#define engine cmd_script_of

/* A Lua number as an int for a level or a flag, without the undefined behaviour of casting
 * a huge or NaN double: those become -1, which every caller refuses. */
static int to_int(lua_Number d)
{
    return d >= -2147483648.0 && d <= 2147483647.0 ? (int)d : -1;
}

/* Raises the error table of text (never returns). */
static int raise(lua_State *lua, const char *text)
{
    cmd_script_push_error(lua, text, strlen(text));
    return lua_error(lua);
}

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
    level = to_int(lua_tonumber(lua, 1));
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
    resp = to_int(lua_tonumber(lua, 1));
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
    flags = to_int(lua_tonumber(lua, -1));
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

/* unpack as Lua's, without its overflow on huge ranges (Redis fixed its copy the same way):
 * a range of INT_MAX elements or more, or more than the stack takes, is an error. */
static int r_unpack(lua_State *lua)
{
    int i, e;
    long long n;

    luaL_checktype(lua, 1, LUA_TTABLE);
    i = luaL_optint(lua, 2, 1);
    e = luaL_opt(lua, luaL_checkint, 3, (int)lua_objlen(lua, 1));
    if (i > e) {
        return 0;
    }
    n = (long long)e - (long long)i + 1;
    if (n >= 2147483647LL || !lua_checkstack(lua, (int)n)) {
        return luaL_error(lua, "too many results to unpack");
    }
    for (long long k = i; k <= e; k++) {
        lua_rawgeti(lua, 1, (int)k);
    }
    return (int)n;
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
        lua_getfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_TOSTRING);
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

void cmd_script_api_register(lua_State *lua, int functions)
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
    if (functions) {
        lua_newtable(lua); /* redis as a library's code sees it while it loads */
        set_fn(lua, "register_function", cmd_script_register_function);
        set_fn(lua, "log", r_log);
        set_num(lua, "LOG_DEBUG", 0);
        set_num(lua, "LOG_VERBOSE", 1);
        set_num(lua, "LOG_NOTICE", 2);
        set_num(lua, "LOG_WARNING", 3);
        set_num(lua, "REDIS_VERSION_NUM", CMD_SERVER_REDIS_VERSION_NUM);
        lua_pushstring(lua, CMD_SERVER_REDIS_VERSION);
        lua_setfield(lua, -2, "REDIS_VERSION");
        lua_setfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_LIB_REDIS);
    }
    lua_pushcfunction(lua, r_pcall);
    lua_setglobal(lua, "pcall");
    lua_pushcfunction(lua, r_unpack);
    lua_setglobal(lua, "unpack");
    lua_getglobal(lua, "math");
    set_fn(lua, "random", r_random);
    set_fn(lua, "randomseed", r_randomseed);
    lua_pop(lua, 1);
    lua_pushcfunction(lua, err_handler);
    lua_setfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_ERR_HANDLER);
}
