/*
 * cmd_script_func: FUNCTION's libraries (Redis 7.0's functions.c and function_lua.c are the
 * model), in a Lua state of their own (e->flua), apart from EVAL's so that SCRIPT FLUSH and
 * FUNCTION FLUSH each drop only their own.
 *
 * In flua's registry:
 *   terse_libs   library name -> {code = the whole code as loaded, funcs = {name, ...}}
 *   terse_funcs  function name -> {fn = function, flags = enum cmd_script_flag, lib = name,
 *                                  desc = string or nil}
 *   terse_loading  while FUNCTION LOAD runs the library's code: what it registered so far,
 *                  function name -> {fn, flags, desc}; linked into the two above only when
 *                  the whole load succeeded (a failed load leaves nothing behind).
 * Not kept in snapshots (Redis saves functions in its RDB): a restart starts with none.
 */
#include <stdio.h>
#include <strings.h>
#include <string.h>

#include <lauxlib.h>

#include "cmd/script/cmd_script_func.h"

#include "cmd/core/cmd_util.h"
#include "terse/status.h"
#include "cmd/script/cmd_script_protect.h"
#include "cmd/script/cmd_script_lua.h"

#define REG_LIBS "terse_libs"
#define REG_FUNCS "terse_funcs"
#define REG_LOADING CMD_SCRIPT_REG_LOADING
#define LOAD_TIMEOUT_US 500000 /* a library's code only registers: 500 ms, as Redis */
#define LOAD_HOOK_INSTRUCTIONS 100000
#define ERR_NAME "Library names can only contain letters, numbers, or underscores(_) and must " \
                 "be at least one character long"

static int raise(lua_State *lua, const char *text)
{
    cmd_script_push_error(lua, text, strlen(text));
    return lua_error(lua);
}

lua_State *cmd_script_flua(struct cmd_script *e)
{
    if (e->flua == NULL && cmd_script_lua_open(e, &e->flua, 1) != TERSE_OK) {
        return NULL;
    }
    return e->flua;
}

/* ---- loading a library -------------------------------------------------------------------- */

static void load_hook(lua_State *lua, lua_Debug *ar)
{
    struct cmd_script *e = cmd_script_of(lua);
    struct cmd_server *srv = e->srv;

    (void)ar;
    if (srv->hooks.now_us != NULL &&
        srv->hooks.now_us(srv->hooks.srv) - e->start_us > LOAD_TIMEOUT_US) {
        lua_sethook(lua, load_hook, LUA_MASKLINE, 0);
        raise(lua, "FUNCTION LOAD timeout");
    }
}

/* The "#!<engine> name=<lib>" first line of code: 0 with the name and the line's length, or
 * -1 with Redis's error text in err. */
static int metadata(const char *code, size_t len, char *name, size_t name_cap, size_t *skip,
                    char *err, size_t err_cap)
{
    const char *nl, *w, *end;
    int have_name = 0;

    if (len < 2 || code[0] != '#' || code[1] != '!') {
        snprintf(err, err_cap, "ERR Missing library metadata");
        return -1;
    }
    nl = memchr(code, '\n', len);
    if (nl == NULL) {
        snprintf(err, err_cap, "ERR Invalid library metadata");
        return -1;
    }
    *skip = (size_t)(nl - code);
    for (w = code; w < nl; w = end) {
        while (w < nl && (*w == ' ' || *w == '\t' || *w == '\r')) {
            w++;
        }
        for (end = w; end < nl && *end != ' ' && *end != '\t' && *end != '\r'; end++) {
        }
        if (w == end) {
            break;
        }
        if (w == code) {
            continue; /* the engine, checked after the name as Redis does */
        }
        if ((size_t)(end - w) >= 5 && strncasecmp(w, "name=", 5) == 0) {
            if (have_name) {
                snprintf(err, err_cap, "ERR Invalid metadata value, name argument was given "
                                       "multiple times");
                return -1;
            }
            snprintf(name, name_cap, "%.*s", (int)(end - w - 5), w + 5);
            have_name = 1;
            continue;
        }
        snprintf(err, err_cap, "ERR Invalid metadata value given: %.*s", (int)(end - w), w);
        return -1;
    }
    if (!have_name) {
        snprintf(err, err_cap, "ERR Library name was not given");
        return -1;
    }
    if (!cmd_script_name_ok(name, strlen(name))) {
        snprintf(err, err_cap, "ERR " ERR_NAME);
        return -1;
    }
    for (end = code + 2; end < nl && *end != ' ' && *end != '\t' && *end != '\r'; end++) {
    }
    if (end - (code + 2) != 3 || strncasecmp(code + 2, "lua", 3) != 0) {
        snprintf(err, err_cap, "ERR Engine '%.*s' not found", (int)(end - (code + 2)), code + 2);
        return -1;
    }
    return 0;
}

/* Drops library name (its table at the top of the stack) from terse_funcs; pops it. */
static void unlink_functions(struct cmd_script *e, lua_State *lua)
{
    lua_getfield(lua, -1, "funcs");
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FUNCS);
    for (int j = 1;; j++) {
        lua_rawgeti(lua, -2, j);
        if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            break;
        }
        lua_pushnil(lua);
        lua_rawset(lua, -3);
        e->n_functions--;
    }
    lua_pop(lua, 3);
    e->n_libraries--;
}

/* Links what terse_loading holds as library name with its code (the whole payload). */
static void link_library(struct cmd_script *e, lua_State *lua, const char *name,
                         const struct resp_slice *code)
{
    int n = 0;

    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LIBS);
    lua_createtable(lua, 0, 2);
    lua_pushlstring(lua, (const char *)code->p, code->len);
    lua_setfield(lua, -2, "code");
    lua_newtable(lua); /* funcs */
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FUNCS);
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) { /* libs, lib, funcs, FUNCS, loading, fname, f */
        lua_pushstring(lua, name);
        lua_setfield(lua, -2, "lib");
        lua_pushvalue(lua, -2);
        lua_insert(lua, -2);
        lua_rawset(lua, -5);     /* FUNCS[fname] = f */
        lua_pushvalue(lua, -1);
        lua_rawseti(lua, -5, ++n); /* funcs[n] = fname */
        e->n_functions++;
    }
    lua_pop(lua, 2);
    lua_setfield(lua, -2, "funcs");
    lua_setfield(lua, -2, name);
    lua_pop(lua, 1);
    e->n_libraries++;
}

/* Checks what terse_loading holds against the other libraries' functions: NULL, or the
 * name of the first that exists in another library (a string on lua's stack until popped). */
static const char *collision(lua_State *lua, const char *lib)
{
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FUNCS);
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
        lua_pop(lua, 1);
        lua_pushvalue(lua, -1);
        lua_rawget(lua, -4);
        if (lua_istable(lua, -1)) {
            lua_getfield(lua, -1, "lib");
            if (strcmp(lua_tostring(lua, -1), lib) != 0) {
                lua_pop(lua, 2);
                lua_replace(lua, -3);
                lua_pop(lua, 1);
                return lua_tostring(lua, -1);
            }
            lua_pop(lua, 1);
        }
        lua_pop(lua, 1);
    }
    lua_pop(lua, 2);
    return NULL;
}

static void ensure_table(lua_State *lua, const char *reg)
{
    lua_getfield(lua, LUA_REGISTRYINDEX, reg);
    if (lua_isnil(lua, -1)) {
        lua_newtable(lua);
        lua_setfield(lua, LUA_REGISTRYINDEX, reg);
    }
    lua_pop(lua, 1);
}

int cmd_script_func_load(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *code,
                         int replace, char *name, size_t name_cap)
{
    lua_State *lua = cmd_script_flua(e);
    char err[256];
    size_t skip = 0;
    const char *clash;
    int rc, exists;

    if (lua == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return -1;
    }
    if (metadata((const char *)code->p, code->len, name, name_cap, &skip, err, sizeof(err))) {
        cmd_reply_err(c, err);
        return -1;
    }
    ensure_table(lua, REG_LIBS);
    ensure_table(lua, REG_FUNCS);
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LIBS);
    lua_getfield(lua, -1, name);
    exists = !lua_isnil(lua, -1);
    lua_pop(lua, 2);
    if (exists && !replace) {
        resp_write_errorf(c->out, "ERR Library '%s' already exists", name);
        return -1;
    }
    if (cmd_script_load_text(lua, (const char *)code->p + skip, code->len - skip,
                             "@user_function")) {
        resp_write_errorf(c->out, "ERR Error compiling function: %s", lua_tostring(lua, -1));
        lua_pop(lua, 1);
        return -1;
    }
    lua_newtable(lua);
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    e->loading = 1;
    cmd_script_protect_load_env(lua, 1);
    e->start_us = e->srv->hooks.now_us != NULL ? e->srv->hooks.now_us(e->srv->hooks.srv) : 0;
    lua_sethook(lua, load_hook, LUA_MASKCOUNT, LOAD_HOOK_INSTRUCTIONS);
    rc = lua_pcall(lua, 0, 0, 0);
    lua_sethook(lua, NULL, 0, 0);
    cmd_script_protect_load_env(lua, 0);
    e->loading = 0;
    if (rc != 0) {
        const char *msg = NULL;
        if (lua_istable(lua, -1)) {
            lua_getfield(lua, -1, "err");
            msg = lua_tostring(lua, -1);
        }
        resp_write_errorf(c->out, "ERR Error registering functions: %s%s",
                          msg != NULL || !lua_isstring(lua, -1) ? "" : "ERR ",
                          msg != NULL ? msg : lua_isstring(lua, -1) ? lua_tostring(lua, -1) : "");
        lua_settop(lua, 0);
        goto fail;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    lua_pushnil(lua);
    rc = lua_next(lua, -2);
    lua_settop(lua, 0);
    if (rc == 0) {
        cmd_reply_err(c, "ERR No functions registered");
        goto fail;
    }
    clash = collision(lua, name);
    if (clash != NULL) {
        resp_write_errorf(c->out, "ERR Function %s already exists", clash);
        lua_settop(lua, 0);
        goto fail;
    }
    if (exists) {
        lua_getfield(lua, LUA_REGISTRYINDEX, REG_LIBS);
        lua_getfield(lua, -1, name);
        unlink_functions(e, lua);
        lua_pushnil(lua);
        lua_setfield(lua, -2, name);
        lua_pop(lua, 1);
    }
    link_library(e, lua, name, code);
    lua_pushnil(lua);
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    return 0;
fail:
    lua_pushnil(lua);
    lua_setfield(lua, LUA_REGISTRYINDEX, REG_LOADING);
    return -1;
}

int cmd_script_func_find(struct cmd_script *e, const struct resp_slice *name, unsigned *flags)
{
    lua_State *lua = cmd_script_flua(e);

    if (lua == NULL) {
        return 0;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FUNCS);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        return 0;
    }
    lua_pushlstring(lua, (const char *)name->p, name->len);
    lua_rawget(lua, -2);
    if (!lua_istable(lua, -1)) {
        lua_pop(lua, 2);
        return 0;
    }
    lua_getfield(lua, -1, "flags");
    *flags = (unsigned)lua_tonumber(lua, -1);
    lua_getfield(lua, -2, "fn");
    lua_replace(lua, -4);
    lua_pop(lua, 2);
    return 1;
}

int cmd_script_func_delete(struct cmd_script *e, const struct resp_slice *name)
{
    lua_State *lua = cmd_script_flua(e);

    if (lua == NULL) {
        return 0;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_LIBS);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        return 0;
    }
    lua_pushlstring(lua, (const char *)name->p, name->len);
    lua_rawget(lua, -2);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 2);
        return 0;
    }
    unlink_functions(e, lua);
    lua_pushlstring(lua, (const char *)name->p, name->len);
    lua_pushnil(lua);
    lua_rawset(lua, -3);
    lua_pop(lua, 1);
    return 1;
}
