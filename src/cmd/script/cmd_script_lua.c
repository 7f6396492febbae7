/*
 * cmd_script_lua: the Lua state scripts run in, set up as Redis 7.0 sets up its own.
 *
 * Libraries: base (without dofile, loadfile, print and the deprecated newproxy, setfenv,
 * getfenv), table, string, math (random and randomseed replaced by a generator that gives
 * the same sequence on every machine), cjson and bit (Debian's lua-cjson and lua-bitop).
 * Redis also loads cmsgpack and struct; Debian packages neither, so they are absent. debug is
 * not opened (Redis removes it from the globals; the error handler reads the stack through
 * the C API). No package library either: no require, module or C loaders.
 *
 * The globals protection is cmd_script_protect.c (with load and loadstring replaced by twins
 * that never load bytecode), the redis table cmd_script_api.c.
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

#include "cmd/script/cmd_script_lua.h"

#include "terse/status.h"
#include "cmd/script/cmd_script_api.h"
#include "cmd/script/cmd_script_protect.h"

#define HOOK_INSTRUCTIONS 100000       /* instructions between two busy checks (Redis's) */

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

/* Raises the error table of text (never returns). */
static int raise(lua_State *lua, const char *text)
{
    cmd_script_push_error(lua, text, strlen(text));
    return lua_error(lua);
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
    cmd_script_api_register(lua, lua_touserdata(lua, 1) != NULL);
    cmd_script_protect(lua);
    return 0;
}

int cmd_script_lua_open(struct cmd_script *e, lua_State **out, int functions)
{
    static int functions_mark;

    *out = lua_newstate(lua_alloc_fn, e);
    if (*out == NULL) {
        return TERSE_ENOMEM;
    }
    if (lua_cpcall(*out, setup, functions ? &functions_mark : NULL) != 0) {
        cmd_script_lua_close(out);
        return TERSE_ENOMEM;
    }
    e->rand_state = 0x1234ABCD330EULL;
    return TERSE_OK;
}

void cmd_script_lua_close(lua_State **pp)
{
    if (*pp != NULL) {
        lua_close(*pp);
        *pp = NULL;
    }
}

/* The count hook (and, once a kill is asked, a hook on every line so that pcall cannot
 * catch the kill and go on). */
static void busy_hook(lua_State *lua, lua_Debug *ar)
{
    struct cmd_script *e = engine(lua);
    struct cmd_server *srv = e->srv;
    char msg[512];

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
                 "try killing the script using the %s command. Script name is: %s.",
                 elapsed, e->fcall ? "FUNCTION KILL" : "SCRIPT KILL", e->sha);
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

void cmd_script_lua_hook(lua_State *lua, int on)
{
    if (on) {
        lua_sethook(lua, busy_hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    } else {
        lua_sethook(lua, NULL, 0, 0);
    }
}

