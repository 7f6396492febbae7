/*
 * cmd_script_cmd: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, with Redis 7.0's replies and
 * error texts (eval.c and script.c are the model).
 *
 * A run (run): the caller's db and a fresh RESP2 protocol go to the script client,
 * KEYS and ARGV become globals, the function runs under lua_pcall with the error handler,
 * then its value (or its error) is the caller's reply. Every write the script calls is fed
 * as itself (effects replication, the only mode of 7.0): those ops collect in the write feed
 * of EVAL's execution unit and leave wrapped in MULTI/EXEC when there are several; EVAL
 * itself is never fed (not a CMD_WRITE command).
 */
#include "cmd/script/cmd_script_cmd.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_cstats.h"
#include "cmd/core/cmd_gate.h"
#include "cmd/mech/cmd_multi.h"
#include "terse/status.h"
#include "cmd/script/cmd_script_conv.h"
#include "cmd/core/cmd_table.h"
#include "cmd/script/cmd_script_lua.h"
#include "cmd/script/cmd_script.h"

#define GC_PERIOD 50 /* scripts between two incremental GC steps (Redis's) */

/* ---- running a script --------------------------------------------------------------------- */

/* Pushes {v[0], ..., v[n-1]}. */
static void push_array(lua_State *lua, const struct resp_slice *v, size_t n)
{
    lua_createtable(lua, n < 1024 ? (int)n : 1024, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushlstring(lua, (const char *)v[i].p, v[i].len);
        lua_rawseti(lua, -2, (int)i + 1);
    }
}

/* G[name] = {v[0], ..., v[n-1]} (KEYS, ARGV): set in the real globals, under the proxy. */
static void set_array(lua_State *lua, const char *name, const struct resp_slice *v, size_t n)
{
    lua_getfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_GLOBALS);
    lua_pushstring(lua, name);
    push_array(lua, v, n);
    lua_rawset(lua, -3);
    lua_pop(lua, 1);
}

static const char *field_str(lua_State *lua, const char *name)
{
    const char *s;

    lua_getfield(lua, -1, name);
    s = lua_isstring(lua, -1) ? lua_tostring(lua, -1) : NULL;
    lua_pop(lua, 1); /* the string stays alive: the table on the stack holds it */
    return s;
}

/* The caller's reply for the error on the top of the stack (Redis's luaCallFunction). */
static void reply_error(struct cmd_script *e, lua_State *lua, struct resp_out *o)
{
    const char *msg, *source, *line;
    int ignore_stats;
    void (*on_error)(void *, const char *, size_t) = o->on_error;

    if (!lua_istable(lua, -1)) {
        msg = lua_isstring(lua, -1) ? lua_tostring(lua, -1) : "execution failure";
        resp_write_errorf(o, "ERR Error running script %s, %.100s\n", e->sha, msg);
        return;
    }
    msg = field_str(lua, "err");
    source = field_str(lua, "source");
    line = field_str(lua, "line");
    lua_getfield(lua, -1, "ignore_error_stats_update");
    ignore_stats = lua_isboolean(lua, -1) && lua_toboolean(lua, -1);
    lua_pop(lua, 1);
    if (ignore_stats) {
        /* the command that failed counted the error already; the script's call fails */
        o->on_error = NULL;
        cmd_cstats_fail_running(e->srv);
    }
    if (line != NULL && source != NULL) {
        resp_write_errorf(o, "%s script: %s, on %s:%s.", msg != NULL ? msg : "", e->sha, source,
                          line);
    } else {
        resp_write_errorf(o, "%s", msg != NULL ? msg : "");
    }
    o->on_error = on_error;
}

/* Runs the function on the top of the stack for c (Redis's scriptPrepareForRun,
 * luaCallFunction and scriptResetRun); pops it. */
void cmd_script_run(struct cmd_script *e, lua_State *lua, struct cmd_call *c, unsigned run_flags,
                    long long numkeys, int fcall)
{
    struct cmd_server *srv = e->srv;
    int hook = srv->settings.busy_reply_threshold_ms > 0 && srv->hooks.now_us != NULL;
    int err;

    lua_getfield(lua, LUA_REGISTRYINDEX, CMD_SCRIPT_REG_ERR_HANDLER);
    lua_insert(lua, -2);
    e->caller = c;
    e->fcall = fcall;
    e->run = run_flags;
    e->repl = CMD_SCRIPT_REPL_ALL;
    e->cl.db = c->cl->db;
    e->cl.resp = 2;
    e->out.proto = 2;
    e->start_us = srv->hooks.now_us != NULL ? srv->hooks.now_us(srv->hooks.srv) : 0;
    if (fcall) {
        push_array(lua, c->argv + 3, (size_t)numkeys);
        push_array(lua, c->argv + 3 + numkeys, c->argc - 3 - (size_t)numkeys);
    } else {
        set_array(lua, "KEYS", c->argv + 3, (size_t)numkeys);
        set_array(lua, "ARGV", c->argv + 3 + numkeys, c->argc - 3 - (size_t)numkeys);
    }
    if (hook) {
        cmd_script_lua_hook(lua, 1);
    }
    e->in_call = 0;
    err = lua_pcall(lua, fcall ? 2 : 0, 1, fcall ? -4 : -2);
    if (hook) {
        cmd_script_lua_hook(lua, 0);
    }
    if (++e->gc_count == GC_PERIOD) {
        lua_gc(lua, LUA_GCSTEP, GC_PERIOD);
        e->gc_count = 0;
    }
    if (err != 0) {
        reply_error(e, lua, c->out);
        lua_pop(lua, 1);
    } else {
        cmd_script_lua_to_reply(lua, c->out, e->cl.resp);
    }
    lua_pop(lua, 1); /* the error handler */
    if (e->cl.flags & CMD_CLIENT_MULTI) {
        cmd_multi_discard(srv, &e->cl); /* a MULTI a script ran ends with it, as in Redis */
    }
    c->cl->flags &= ~(unsigned)CMD_CLIENT_PROTECTED;
    e->caller = NULL;
    e->run = 0;
    e->sha[0] = '\0';
}

static int over_maxmemory(struct cmd_server *srv)
{
    return srv->settings.maxmemory != 0 && srv->hooks.mem_used != NULL &&
           srv->hooks.mem_used(srv->hooks.srv) > srv->settings.maxmemory;
}

/* Copies a 40-character SHA lowercased into sha; 0 when the argument cannot be one. */
static int sha_arg(const struct resp_slice *a, char *sha)
{
    if (a->len != CMD_SCRIPT_SHA_LEN) {
        return 0;
    }
    for (size_t i = 0; i < CMD_SCRIPT_SHA_LEN; i++) {
        uint8_t ch = a->p[i];
        sha[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch);
    }
    sha[CMD_SCRIPT_SHA_LEN] = '\0';
    return 1;
}

int cmd_script_numkeys_or_reply(struct cmd_call *c, const char *not_int, long long *numkeys)
{
    if (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, numkeys)) {
        cmd_reply_err(c, not_int);
        return -1;
    }
    if (*numkeys > (long long)c->argc - 3) {
        cmd_reply_err(c, "ERR Number of keys can't be greater than number of args");
        return -1;
    }
    if (*numkeys < 0) {
        cmd_reply_err(c, "ERR Number of keys can't be negative");
        return -1;
    }
    return 0;
}

int cmd_script_admit_or_reply(struct cmd_call *c, unsigned flags, int ro, unsigned *run_flags)
{
    int oom = over_maxmemory(c->srv);

    *run_flags = (ro ? CMD_SCRIPT_RUN_RO : 0) | (oom ? CMD_SCRIPT_RUN_OOM : 0);
    if (flags & CMD_SCRIPT_COMPAT) {
        return 0;
    }
    if (!(flags & CMD_SCRIPT_NO_WRITES) && ro) {
        cmd_reply_err(c, "ERR Can not execute a script with write flag using *_ro command.");
        return -1;
    }
    if (oom && !(flags & (CMD_SCRIPT_ALLOW_OOM | CMD_SCRIPT_NO_WRITES))) {
        /* Redis refuses it before it runs (the script's flags make the command deny-oom); a
         * transaction that queued it gets the script engine's own text. */
        cmd_reply_err(c, (c->mode & CMD_CALL_EXEC) ? "OOM allow-oom flag is not set on the "
                                                     "script, can not run it when used memory "
                                                     "> 'maxmemory'"
                                                   : CMD_ERR_OOM);
        return -1;
    }
    if (!(flags & CMD_SCRIPT_NO_WRITES) && c->srv->settings.misconf != CMD_MISCONF_NONE &&
        !(c->cl->flags & (CMD_CLIENT_MASTER | CMD_CLIENT_MUST_OBEY))) {
        /* Writes cannot be made durable: refused as a write (processCommand's -MISCONF); in
         * a transaction, with the script engine's own text. */
        if (!(c->mode & CMD_CALL_EXEC)) {
            cmd_reply_err(c, cmd_misconf_text(c->srv) + 1);
        } else if (c->srv->settings.misconf == CMD_MISCONF_RDB) {
            cmd_reply_err(c, "MISCONF Redis is configured to save RDB snapshots, but it's "
                             "currently unable to persist to disk. Writable scripts are "
                             "blocked. Use 'no-writes' flag for read only scripts.");
        } else {
            resp_write_errorf(c->out, "MISCONF Redis is configured to persist data to AOF, but "
                              "it's currently unable to persist to disk. Writable scripts are "
                              "blocked. Use 'no-writes' flag for read only scripts. AOF error: "
                              "%s", strerror(c->srv->settings.misconf_errno));
        }
        return -1;
    }
    if (!(flags & CMD_SCRIPT_NO_WRITES) && !cmd_repl_enough_replicas(c->srv)) {
        /* A script that may write counts as a write (Redis 7.0's getCommandFlags). */
        cmd_reply_err(c, CMD_ERR_NOREPLICAS);
        return -1;
    }
    if (flags & CMD_SCRIPT_NO_WRITES) {
        *run_flags |= CMD_SCRIPT_RUN_RO;
    }
    if (flags & CMD_SCRIPT_ALLOW_OOM) {
        *run_flags |= CMD_SCRIPT_RUN_ALLOW_OOM;
    }
    return 0;
}

static void eval_generic(struct cmd_call *c, int evalsha, int ro)
{
    struct cmd_script *e;
    char sha[CMD_SCRIPT_SHA_LEN + 1];
    unsigned flags = 0, run_flags = 0;
    long long numkeys;

    if (cmd_script_numkeys_or_reply(c, CMD_ERR_NOT_INT, &numkeys) != 0) {
        return;
    }
    e = cmd_script_get(c->srv);
    if (e == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (evalsha) {
        if (!sha_arg(&c->argv[1], sha) || !cmd_script_cached(e, sha, &flags)) {
            cmd_reply_err(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
    } else if (cmd_script_create(e, c, &c->argv[1], sha, &flags) != 0) {
        return;
    } else {
        cmd_script_cached(e, sha, &flags);
    }
    if (cmd_script_admit_or_reply(c, flags, ro, &run_flags) != 0) {
        lua_pop(e->lua, 1);
        return;
    }
    memcpy(e->sha, sha, sizeof(sha));
    cmd_script_run(e, e->lua, c, run_flags, numkeys, 0);
}

static void cmd_eval(struct cmd_call *c)
{
    eval_generic(c, 0, 0);
}

static void cmd_evalsha(struct cmd_call *c)
{
    eval_generic(c, 1, 0);
}

static void cmd_eval_ro(struct cmd_call *c)
{
    eval_generic(c, 0, 1);
}

static void cmd_evalsha_ro(struct cmd_call *c)
{
    eval_generic(c, 1, 1);
}

/* ---- SCRIPT ------------------------------------------------------------------------------ */

static void script_exists(struct cmd_call *c)
{
    struct cmd_script *e = cmd_script_get(c->srv);
    char sha[CMD_SCRIPT_SHA_LEN + 1];
    unsigned flags;

    if (e == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        int hit = sha_arg(&c->argv[i], sha) && cmd_script_cached(e, sha, &flags);
        if (hit) {
            lua_pop(e->lua, 1);
        }
        resp_write_int(c->out, hit);
    }
}

static void script_flush(struct cmd_call *c)
{
    struct cmd_script *e = c->srv->script;

    if (c->argc > 3 || (c->argc == 3 && !cmd_arg_is(c, 2, "sync") && !cmd_arg_is(c, 2, "async"))) {
        cmd_reply_err(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    if (e != NULL) {
        cmd_script_lua_close(&e->lua); /* reopened on next use; ASYNC frees now too */
        e->n_scripts = 0;
        e->body_bytes = 0;
        e->gc_count = 0;
    }
    resp_write_ok(c->out);
}

static void script_load(struct cmd_call *c)
{
    struct cmd_script *e = cmd_script_get(c->srv);
    char sha[CMD_SCRIPT_SHA_LEN + 1];
    unsigned flags;

    if (e == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (cmd_script_create(e, c, &c->argv[2], sha, &flags) == 0) {
        resp_write_bulk(c->out, sha, CMD_SCRIPT_SHA_LEN);
    }
}

void cmd_script_kill(struct cmd_call *c, int fcall)
{
    struct cmd_script *e = c->srv->script;

    if (e == NULL || e->caller == NULL) {
        cmd_reply_err(c, "NOTBUSY No scripts in execution right now.");
    } else if (e->run & CMD_SCRIPT_RUN_DIRTY) {
        cmd_reply_err(c, "UNKILLABLE Sorry the script already executed write commands against "
                         "the dataset. You can either wait the script termination or kill the "
                         "server in a hard way using the SHUTDOWN NOSAVE command.");
    } else if (e->fcall != fcall) {
        cmd_reply_err(c, cmd_script_busy_error(c->srv)); /* the other KILL is the one */
    } else {
        e->run |= CMD_SCRIPT_RUN_KILLED;
        resp_write_ok(c->out);
    }
}

static void script_kill(struct cmd_call *c)
{
    cmd_script_kill(c, 0);
}

static void script_debug(struct cmd_call *c)
{
    if (cmd_arg_is(c, 2, "no")) {
        resp_write_ok(c->out);
    } else if (cmd_arg_is(c, 2, "yes") || cmd_arg_is(c, 2, "sync")) {
        cmd_reply_err(c, "ERR SCRIPT DEBUG is not supported: terse has no Lua debugger");
    } else {
        cmd_reply_err(c, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
    }
}

static void script_help(struct cmd_call *c)
{
    static const char *const help[] = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, help);
}

#define SCRIPTING "@slow @scripting"

static const struct cmd_def script_subcmds[] = {
    {"script|debug", 3, CMD_NOSCRIPT, 0, 0, 0, script_debug, SCRIPTING,
     "Set the debug mode for executed scripts.", "3.2.0", "scripting", NULL},
    {"script|exists", -3, CMD_NOSCRIPT, 0, 0, 0, script_exists, SCRIPTING,
     "Check existence of scripts in the script cache.", "2.6.0", "scripting", NULL},
    {"script|flush", -2, CMD_NOSCRIPT, 0, 0, 0, script_flush, SCRIPTING,
     "Remove all the scripts from the script cache.", "2.6.0", "scripting", NULL},
    {"script|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, script_help, SCRIPTING,
     "Show helpful text about the different subcommands", "5.0.0", "scripting", NULL},
    {"script|kill", 2, CMD_NOSCRIPT | CMD_ALLOW_BUSY, 0, 0, 0, script_kill, SCRIPTING,
     "Kill the script currently in execution.", "2.6.0", "scripting", NULL},
    {"script|load", 3, CMD_NOSCRIPT | CMD_STALE, 0, 0, 0, script_load, SCRIPTING,
     "Load the specified Lua script into the script cache.", "2.6.0", "scripting", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

#define EVAL_FLAGS (CMD_NOSCRIPT | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_STALE | \
                    CMD_MOVABLE_KEYS)

const struct cmd_def cmd_script_defs[] = {
    {"eval", -3, EVAL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, cmd_eval, SCRIPTING,
     "Execute a Lua script server side", "2.6.0", "scripting", NULL},
    {"eval_ro", -3, EVAL_FLAGS | CMD_READONLY, 0, 0, 0, cmd_eval_ro, SCRIPTING,
     "Execute a read-only Lua script server side", "7.0.0", "scripting", NULL},
    {"evalsha", -3, EVAL_FLAGS | CMD_MAY_REPLICATE, 0, 0, 0, cmd_evalsha, SCRIPTING,
     "Execute a Lua script server side", "2.6.0", "scripting", NULL},
    {"evalsha_ro", -3, EVAL_FLAGS | CMD_READONLY, 0, 0, 0, cmd_evalsha_ro, SCRIPTING,
     "Execute a read-only Lua script server side", "7.0.0", "scripting", NULL},
    {"script", -2, 0, 0, 0, 0, NULL, "@slow", "A container for Lua scripts management commands",
     "2.6.0", "scripting", script_subcmds},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
