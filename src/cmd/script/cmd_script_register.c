/*
 * cmd_script_register: redis.register_function, which a library's code calls while FUNCTION
 * LOAD runs it, positional (name, callback) or named ({function_name=, callback=, flags=,
 * description=}), with Redis 7.0's checks and error texts (function_lua.c is the model).
 * What it registers goes to flua's registry table terse_loading (cmd_script_func.c links it
 * once the whole library loaded).
 */
#include "cmd/script/cmd_script_register.h"

#include <string.h>
#include <strings.h>

#include <lauxlib.h>

#include "cmd/script/cmd_script_base.h"

#define ERR_NAME "Library names can only contain letters, numbers, or underscores(_) and must " \
                 "be at least one character long"

static int raise(lua_State *lua, const char *text)
{
    cmd_script_push_error(lua, text, strlen(text));
    return lua_error(lua);
}

/* The flags table at the top of the stack: 0 with *flags, -1 on an unknown flag. */
static int read_flags(lua_State *lua, unsigned *flags)
{
    static const struct { const char *name; unsigned flag; } names[] = {
        {"no-writes", CMD_SCRIPT_NO_WRITES}, {"allow-oom", CMD_SCRIPT_ALLOW_OOM},
        {"allow-stale", CMD_SCRIPT_ALLOW_STALE}, {"no-cluster", CMD_SCRIPT_NO_CLUSTER},
        {"allow-cross-slot-keys", CMD_SCRIPT_ALLOW_CROSS_SLOT}};

    *flags = 0;
    for (int j = 1;; j++) {
        size_t i = 0;
        lua_rawgeti(lua, -1, j);
        if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            return 0;
        }
        while (lua_isstring(lua, -1) && i < sizeof(names) / sizeof(names[0]) &&
               strcasecmp(names[i].name, lua_tostring(lua, -1)) != 0) {
            i++;
        }
        if (!lua_isstring(lua, -1) || i == sizeof(names) / sizeof(names[0])) {
            lua_pop(lua, 1);
            return -1;
        }
        *flags |= names[i].flag;
        lua_pop(lua, 1);
    }
}

/* redis.register_function{function_name=..., callback=..., flags=..., description=...}:
 * leaves name, callback, flags (a number) and description on the stack, or raises. */
static void named_args(lua_State *lua)
{
    unsigned flags = 0;

    if (!lua_istable(lua, 1)) {
        raise(lua, "calling redis.register_function with a single argument is only applicable "
                   "to Lua table (representing named arguments).");
    }
    lua_settop(lua, 1);
    lua_pushnil(lua); /* 2: name */
    lua_pushnil(lua); /* 3: callback */
    lua_pushnil(lua); /* 4: description */
    lua_pushnil(lua);
    while (lua_next(lua, 1)) {
        const char *key;
        if (!lua_isstring(lua, -2)) {
            raise(lua, "named argument key given to redis.register_function is not a string");
        }
        key = lua_tostring(lua, -2);
        if (strcasecmp(key, "function_name") == 0) {
            if (!lua_isstring(lua, -1)) {
                raise(lua, "function_name argument given to redis.register_function must be a "
                           "string");
            }
            lua_replace(lua, 2);
        } else if (strcasecmp(key, "description") == 0) {
            if (!lua_isstring(lua, -1)) {
                raise(lua, "description argument given to redis.register_function must be a "
                           "string");
            }
            lua_replace(lua, 4);
        } else if (strcasecmp(key, "callback") == 0) {
            if (!lua_isfunction(lua, -1)) {
                raise(lua, "callback argument given to redis.register_function must be a "
                           "function");
            }
            lua_replace(lua, 3);
        } else if (strcasecmp(key, "flags") == 0) {
            if (!lua_istable(lua, -1)) {
                raise(lua, "flags argument to redis.register_function must be a table "
                           "representing function flags");
            }
            if (read_flags(lua, &flags) != 0) {
                raise(lua, "unknown flag given");
            }
            lua_pop(lua, 1);
        } else {
            raise(lua, "unknown argument given to redis.register_function");
        }
    }
    if (lua_isnil(lua, 2)) {
        raise(lua, "redis.register_function must get a function name argument");
    }
    if (lua_isnil(lua, 3)) {
        raise(lua, "redis.register_function must get a callback argument");
    }
    lua_pushnumber(lua, flags);
    lua_replace(lua, 1); /* stack: flags, name, callback, description */
}

int cmd_script_register_function(lua_State *lua)
{
    struct cmd_script *e = cmd_script_of(lua);
    size_t len;
    const char *name;

    if (!e->loading) {
        return raise(lua, "redis.register_function can only be called on FUNCTION LOAD command");
    }
    if (lua_gettop(lua) < 1 || lua_gettop(lua) > 2) {
        return raise(lua, "wrong number of arguments to redis.register_function");
    }
    if (lua_gettop(lua) == 1) {
        named_args(lua);
    } else {
        if (!lua_isstring(lua, 1)) {
            return raise(lua, "first argument to redis.register_function must be a string");
        }
        if (!lua_isfunction(lua, 2)) {
            return raise(lua, "second argument to redis.register_function must be a function");
        }
        lua_pushnumber(lua, 0);
        lua_insert(lua, 1);
        lua_pushnil(lua);
    }
    /* flags, name, callback, description */
    name = lua_tolstring(lua, 2, &len);
    if (!cmd_script_name_ok(name, len)) {
        return raise(lua, ERR_NAME);
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_LOADING);
    lua_pushvalue(lua, 2);
    lua_rawget(lua, -2);
    if (!lua_isnil(lua, -1)) {
        return raise(lua, "Function already exists in the library");
    }
    lua_pop(lua, 1);
    lua_pushvalue(lua, 2);
    lua_createtable(lua, 0, 3);
    lua_pushvalue(lua, 3);
    lua_setfield(lua, -2, "fn");
    lua_pushvalue(lua, 1);
    lua_setfield(lua, -2, "flags");
    lua_pushvalue(lua, 4);
    lua_setfield(lua, -2, "desc");
    lua_rawset(lua, -3);
    return 0;
}

