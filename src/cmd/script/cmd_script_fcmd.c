/*
 * cmd_script_fcmd: FCALL, FCALL_RO and FUNCTION (LOAD, DELETE, FLUSH, LIST, KILL, STATS,
 * HELP) with Redis 7.0's replies and error texts; the libraries themselves are
 * cmd_script_func.c. FUNCTION DUMP and RESTORE are not built.
 *
 * A function runs as a script does (cmd_script_run), its KEYS and ARGV passed as its two
 * arguments; its flags are always declared (no EVAL compatibility mode). FUNCTION LOAD,
 * DELETE and FLUSH change no key but are fed to replicas and the AOF as they were sent.
 */
#include "cmd/script/cmd_script_fcmd.h"

#include <string.h>

#include <lauxlib.h>

#include "cmd/core/cmd_util.h"
#include "terse/status.h"
#include "cmd/core/cmd_glob.h"
#include "cmd/core/cmd_table.h"
#include "cmd/script/cmd_script.h"
#include "cmd/script/cmd_script_func.h"
#include "cmd/script/cmd_script_cmd.h"
#include "cmd/script/cmd_script_lua.h"

static void fcall_generic(struct cmd_call *c, int ro)
{
    struct cmd_script *e = cmd_script_get(c->srv);
    unsigned flags = 0, run_flags = 0;
    long long numkeys;
    size_t n;

    if (e == NULL || cmd_script_flua(e) == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (!cmd_script_func_find(e, &c->argv[1], &flags)) {
        cmd_reply_err(c, "ERR Function not found");
        return;
    }
    if (cmd_script_numkeys_or_reply(c, "ERR Bad number of keys provided", &numkeys) != 0 ||
        cmd_script_admit_or_reply(c, flags, ro, &run_flags) != 0) {
        lua_pop(e->flua, 1);
        return;
    }
    n = c->argv[1].len < CMD_SCRIPT_NAME_MAX ? c->argv[1].len : CMD_SCRIPT_NAME_MAX;
    memcpy(e->sha, c->argv[1].p, n);
    e->sha[n] = '\0';
    cmd_script_run(e, e->flua, c, run_flags, numkeys, 1);
}

static void cmd_fcall(struct cmd_call *c)
{
    fcall_generic(c, 0);
}

static void cmd_fcall_ro(struct cmd_call *c)
{
    fcall_generic(c, 1);
}

static void function_load(struct cmd_call *c)
{
    struct cmd_script *e;
    char name[CMD_SCRIPT_NAME_MAX + 1];
    size_t at = 2;
    int replace = 0;

    for (; at + 1 < c->argc; at++) {
        if (!cmd_arg_is(c, at, "replace")) {
            resp_write_errorf(c->out, "ERR Unknown option given: %.*s", (int)c->argv[at].len,
                              (const char *)c->argv[at].p);
            return;
        }
        replace = 1;
    }
    if (at >= c->argc) {
        cmd_reply_err(c, "ERR Function code is missing");
        return;
    }
    e = cmd_script_get(c->srv);
    if (e == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (cmd_script_func_load(e, c, &c->argv[at], replace, name, sizeof(name)) == 0) {
        resp_write_cstr(c->out, name);
        c->feed |= CMD_FEED_FORCE;
        c->srv->dirty++;
    }
}

static void function_delete(struct cmd_call *c)
{
    struct cmd_script *e = cmd_script_get(c->srv);

    if (e == NULL || !cmd_script_func_delete(e, &c->argv[2])) {
        cmd_reply_err(c, "ERR Library not found");
        return;
    }
    c->feed |= CMD_FEED_FORCE;
    c->srv->dirty++;
    resp_write_ok(c->out);
}

static void function_flush(struct cmd_call *c)
{
    struct cmd_script *e = c->srv->script;

    if (c->argc > 3 || (c->argc == 3 && !cmd_arg_is(c, 2, "sync") && !cmd_arg_is(c, 2, "async"))) {
        cmd_reply_err(c, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    if (e != NULL) {
        cmd_script_lua_close(&e->flua);
        e->n_libraries = e->n_functions = 0;
    }
    c->feed |= CMD_FEED_FORCE;
    c->srv->dirty++;
    resp_write_ok(c->out);
}

/* The flags of a function (its table on the top of the stack) as FUNCTION LIST shows them. */
static void write_flags(struct resp_out *o, unsigned flags)
{
    static const struct { const char *name; unsigned flag; } names[] = {
        {"no-writes", CMD_SCRIPT_NO_WRITES}, {"allow-oom", CMD_SCRIPT_ALLOW_OOM},
        {"allow-stale", CMD_SCRIPT_ALLOW_STALE}, {"no-cluster", CMD_SCRIPT_NO_CLUSTER},
        {"allow-cross-slot-keys", CMD_SCRIPT_ALLOW_CROSS_SLOT}};
    size_t n = 0;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        n += (flags & names[i].flag) != 0;
    }
    resp_write_set(o, n);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (flags & names[i].flag) {
            resp_write_simple(o, names[i].name);
        }
    }
}

/* One library (name at -2, its table at -1) as FUNCTION LIST shows it. */
static void write_library(lua_State *lua, struct resp_out *o, int with_code)
{
    size_t len, n = 0;
    const char *s = lua_tolstring(lua, -2, &len);

    resp_write_map(o, with_code ? 4 : 3);
    resp_write_cstr(o, "library_name");
    resp_write_bulk(o, s, len);
    resp_write_cstr(o, "engine");
    resp_write_cstr(o, "LUA");
    resp_write_cstr(o, "functions");
    lua_getfield(lua, -1, "funcs");
    n = lua_objlen(lua, -1);
    resp_write_array(o, n);
    lua_getfield(lua, LUA_REGISTRYINDEX, "terse_funcs");
    for (size_t j = 1; j <= n; j++) {
        lua_rawgeti(lua, -2, (int)j);
        lua_rawget(lua, -2);
        resp_write_map(o, 3);
        resp_write_cstr(o, "name");
        lua_rawgeti(lua, -3, (int)j);
        s = lua_tolstring(lua, -1, &len);
        resp_write_bulk(o, s, len);
        lua_pop(lua, 1);
        resp_write_cstr(o, "description");
        lua_getfield(lua, -1, "desc");
        if (lua_isstring(lua, -1)) {
            s = lua_tolstring(lua, -1, &len);
            resp_write_bulk(o, s, len);
        } else {
            resp_write_null(o);
        }
        lua_pop(lua, 1);
        resp_write_cstr(o, "flags");
        lua_getfield(lua, -1, "flags");
        write_flags(o, (unsigned)lua_tonumber(lua, -1));
        lua_pop(lua, 2);
    }
    lua_pop(lua, 2);
    if (with_code) {
        resp_write_cstr(o, "library_code");
        lua_getfield(lua, -1, "code");
        s = lua_tolstring(lua, -1, &len);
        resp_write_bulk(o, s, len);
        lua_pop(lua, 1);
    }
}

static void function_list(struct cmd_call *c)
{
    struct cmd_script *e = cmd_script_get(c->srv);
    lua_State *lua = e != NULL ? cmd_script_flua(e) : NULL;
    const struct resp_slice *pattern = NULL;
    int with_code = 0;
    size_t at, n = 0;

    for (size_t i = 2; i < c->argc; i++) {
        if (!with_code && cmd_arg_is(c, i, "withcode")) {
            with_code = 1;
        } else if (pattern == NULL && cmd_arg_is(c, i, "libraryname")) {
            if (i >= c->argc - 1) {
                cmd_reply_err(c, "ERR library name argument was not given");
                return;
            }
            pattern = &c->argv[++i];
        } else {
            resp_write_errorf(c->out, "ERR Unknown argument %.*s", (int)c->argv[i].len,
                              (const char *)c->argv[i].p);
            return;
        }
    }
    if (lua == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    at = resp_write_deferred_begin(c->out);
    lua_getfield(lua, LUA_REGISTRYINDEX, "terse_libs");
    if (lua_istable(lua, -1)) {
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            size_t len;
            const char *name = lua_tolstring(lua, -2, &len);
            if (pattern == NULL || cmd_glob_match(pattern->p, pattern->len,
                                                  (const uint8_t *)name, len, 1)) {
                write_library(lua, c->out, with_code);
                n++;
            }
            lua_pop(lua, 1);
        }
    }
    lua_pop(lua, 1);
    resp_write_deferred_end(c->out, at, '*', n);
}

static void function_kill(struct cmd_call *c)
{
    cmd_script_kill(c, 1);
}

static void function_stats(struct cmd_call *c)
{
    struct cmd_script *e = c->srv->script;
    struct cmd_server *srv = c->srv;

    if (e != NULL && e->caller != NULL && !e->fcall) {
        cmd_reply_err(c, cmd_script_busy_error(srv));
        return;
    }
    resp_write_map(c->out, 2);
    resp_write_cstr(c->out, "running_script");
    if (e == NULL || e->caller == NULL) {
        resp_write_null(c->out);
    } else {
        const struct cmd_call *r = e->caller;
        resp_write_map(c->out, 3);
        resp_write_cstr(c->out, "name");
        resp_write_cstr(c->out, e->sha);
        resp_write_cstr(c->out, "command");
        resp_write_array(c->out, r->argc);
        for (size_t i = 0; i < r->argc; i++) {
            resp_write_bulk(c->out, r->argv[i].p, r->argv[i].len);
        }
        resp_write_cstr(c->out, "duration_ms");
        resp_write_int(c->out, srv->hooks.now_us != NULL
                                   ? (long long)((srv->hooks.now_us(srv->hooks.srv) -
                                                  e->start_us) / 1000)
                                   : 0);
    }
    resp_write_cstr(c->out, "engines");
    resp_write_map(c->out, 1);
    resp_write_cstr(c->out, "LUA");
    resp_write_map(c->out, 2);
    resp_write_cstr(c->out, "libraries_count");
    resp_write_int(c->out, e != NULL ? (long long)e->n_libraries : 0);
    resp_write_cstr(c->out, "functions_count");
    resp_write_int(c->out, e != NULL ? (long long)e->n_functions : 0);
}

static void function_help(struct cmd_call *c)
{
    static const char *const help[] = {
        "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME "
        "argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored "
        "using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a "
        "restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
        "abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
        "replace the old",
        "      libraries with the new libraries (notice that even on this option there is a "
        "chance of failure",
        "      in case of functions name collision with another library).",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, help);
}

#define SCRIPTING "@slow @scripting"

static const struct cmd_def function_subcmds[] = {
    {"function|delete", 3, CMD_NOSCRIPT | CMD_WRITE, 0, 0, 0, function_delete,
     "@write @slow @scripting", "Delete a function by name", "7.0.0", "scripting", NULL},
    {"function|flush", -2, CMD_NOSCRIPT | CMD_WRITE, 0, 0, 0, function_flush,
     "@write @slow @scripting", "Deleting all functions", "7.0.0", "scripting", NULL},
    {"function|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, function_help, SCRIPTING,
     "Show helpful text about the different subcommands", "7.0.0", "scripting", NULL},
    {"function|kill", 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, function_kill, SCRIPTING,
     "Kill the function currently in execution.", "7.0.0", "scripting", NULL},
    {"function|list", -2, CMD_NOSCRIPT, 0, 0, 0, function_list, SCRIPTING,
     "List information about all the functions", "7.0.0", "scripting", NULL},
    {"function|load", -3, CMD_NOSCRIPT | CMD_WRITE | CMD_DENYOOM, 0, 0, 0, function_load,
     "@write @slow @scripting",
     "Create a function with the given arguments (name, code, description)", "7.0.0",
     "scripting", NULL},
    {"function|stats", 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, function_stats, SCRIPTING,
     "Return information about the function currently running (name, description, duration)",
     "7.0.0", "scripting", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

#define FCALL_FLAGS (CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE | \
                     CMD_MOVABLE_KEYS)

const struct cmd_def cmd_function_defs[] = {
    {"fcall", -3, FCALL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, cmd_fcall, SCRIPTING,
     "Invoke a function", "7.0.0", "scripting", NULL},
    {"fcall_ro", -3, FCALL_FLAGS | CMD_READONLY, 0, 0, 0, cmd_fcall_ro, SCRIPTING,
     "Invoke a read-only function", "7.0.0", "scripting", NULL},
    {"function", -2, 0, 0, 0, 0, NULL, "@slow", "A container for function commands", "7.0.0",
     "scripting", function_subcmds},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
