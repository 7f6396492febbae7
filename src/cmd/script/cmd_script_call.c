/*
 * cmd_script_call: redis.call and redis.pcall, a command run from a script (Redis 7.0's
 * luaRedisGenericCommand and scriptCall).
 *
 * The arguments are the Lua values on the stack: strings as they are, numbers formatted
 * "%.17g" as Redis does (replaced on the stack by that string), anything else refused. The
 * command then passes the checks Redis makes inside scripts, in its order (known, arity, not
 * CMD_NOSCRIPT, no write from a read-only script, no deny-oom command once over maxmemory
 * before the script wrote anything) and runs through cmd_run on the script client, with
 * CMD_CALL_EXEC so that a blocking command answers at once as its non-blocking twin. Its
 * reply, written to the engine's buffer, is read back into a Lua value and the buffer
 * emptied. redis.call raises an error reply as a Lua error; redis.pcall returns it as the
 * table {err = "..."}.
 */
#include "cmd/script/cmd_script_call.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "cmd/script/cmd_script_base.h"
#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_cstats.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_gate.h"
#include "cmd/mech/cmd_run.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"
#include "cmd/script/cmd_script_conv.h"

/* Pushes the error table of text, marked as already counted in the error statistics. */
static void push_counted_error(lua_State *lua, const char *text, size_t len)
{
    cmd_script_push_error(lua, text, len);
    lua_pushboolean(lua, 1);
    lua_setfield(lua, -2, "ignore_error_stats_update");
}

/* Fills e->argv from the n values on the stack. NULL on success, else the error text. */
static const char *take_args(struct cmd_script *e, lua_State *lua, int n)
{
    for (int j = 1; j <= n; j++) {
        size_t len = 0;
        const char *s;
        if (lua_type(lua, j) == LUA_TNUMBER) {
            char num[64];
            int k = snprintf(num, sizeof(num), "%.17g", (double)lua_tonumber(lua, j));
            lua_pushlstring(lua, num, (size_t)k);
            lua_replace(lua, j);
        }
        s = lua_tolstring(lua, j, &len);
        if (s == NULL) {
            return "Lua redis lib command arguments must be strings or integers";
        }
        e->argv[j - 1].p = (const uint8_t *)s;
        e->argv[j - 1].len = len;
    }
    return NULL;
}

/* The checks of a command called from the running script. NULL, or the error text. */
static const char *check(struct cmd_script *e, const struct cmd_def *d, size_t argc)
{
    struct cmd_server *srv = e->srv;

    if (d == NULL) {
        return "Unknown Redis command called from script";
    }
    if ((d->arity > 0 && (size_t)d->arity != argc) || (d->arity < 0 && argc < (size_t)-d->arity)) {
        return "Wrong number of args calling Redis command from script";
    }
    if ((d->flags & CMD_NOSCRIPT) && !e->allow_noscript) {
        return "This Redis command is not allowed from script";
    }
    if ((e->run & CMD_SCRIPT_RUN_RO) && (d->flags & (CMD_WRITE | CMD_MAY_REPLICATE))) {
        return "Write commands are not allowed from read-only scripts.";
    }
    if (!(e->run & (CMD_SCRIPT_RUN_ALLOW_OOM | CMD_SCRIPT_RUN_DIRTY)) &&
        (e->run & CMD_SCRIPT_RUN_OOM) && srv->settings.maxmemory != 0 &&
        (d->flags & CMD_DENYOOM)) {
        return "-" CMD_ERR_OOM;
    }
    if ((d->flags & CMD_WRITE) && srv->settings.misconf != CMD_MISCONF_NONE &&
        !(e->run & CMD_SCRIPT_RUN_DIRTY) &&
        !(e->caller->cl->flags & (CMD_CLIENT_MASTER | CMD_CLIENT_MUST_OBEY))) {
        /* Once the script wrote, it is not failed half way (Redis's SCRIPT_WRITE_DIRTY). */
        return cmd_misconf_text(srv);
    }
    if ((d->flags & CMD_WRITE) && !cmd_repl_enough_replicas(srv)) {
        return "-" CMD_ERR_NOREPLICAS;
    }
    return NULL;
}

/* Runs the command of argc arguments in e->argv on the script client; its reply is in
 * e->out. NULL, or the error text of a check that refused it (nothing ran; the error is
 * counted, and a known command's rejected_calls, as Redis's scriptCall does). */
static const char *run_command(struct cmd_script *e, size_t argc)
{
    struct cmd_server *srv = e->srv;
    struct cmd_call *outer = srv->cur_call;
    const struct cmd_def *d = cmd_resolve(srv, e->argv, argc);
    const char *err = check(e, d, argc);
    size_t n_ops = srv->feed.n_ops;
    struct cmd_call call = {.srv = srv,
                            .cl = &e->cl,
                            .out = &e->out,
                            .argv = e->argv,
                            .argc = argc,
                            .now_ms = e->caller->now_ms,
                            .mode = CMD_CALL_EXEC,
                            .pushed = 0};

    if (err != NULL) {
        const char *code = err[0] == '-' ? err + 1 : "ERR";
        const char *sp = strchr(code, ' ');
        cmd_count_error(srv, code, err[0] == '-' && sp != NULL ? (size_t)(sp - code) : 3);
        if (d != NULL) {
            cmd_cstats_rejected(srv, d);
        }
        return err;
    }
    if (d->flags & CMD_WRITE) {
        e->run |= CMD_SCRIPT_RUN_DIRTY;
    }
    srv->cur_call = &call;
    cmd_run(&call, d);
    srv->cur_call = outer;
    if (e->repl == 0) {
        /* redis.set_repl(redis.REPL_NONE): its writes reach neither replicas nor the AOF.
         * REPL_AOF and REPL_REPLICA alone feed both: terse has one write feed for both. */
        cmd_feed_undo(srv, n_ops);
    }
    return NULL;
}

int cmd_script_call(lua_State *lua, int raise)
{
    struct cmd_script *e = cmd_script_of(lua);
    int argc = lua_gettop(lua), is_err;
    const char *err;

    if (e->caller == NULL) {
        cmd_script_push_error(lua, "redis.call/pcall can only be called inside a script "
                                   "invocation", 62);
        return lua_error(lua);
    }
    if (argc == 0) {
        cmd_script_push_error(lua, "Please specify at least one argument for this redis lib "
                                   "call", 60);
        return raise ? lua_error(lua) : 1;
    }
    if ((size_t)argc > e->argv_cap &&
        cmd_grow(e->srv, (void **)&e->argv, &e->argv_cap, (size_t)argc, sizeof(*e->argv), 16) !=
            TERSE_OK) {
        lua_settop(lua, 0);
        cmd_script_push_error(lua, "-" CMD_ERR_OOM, strlen(CMD_ERR_OOM) + 1);
        return raise ? lua_error(lua) : 1;
    }
    err = take_args(e, lua, argc);
    if (err != NULL) {
        lua_settop(lua, 0);
        cmd_script_push_error(lua, err, strlen(err));
        return raise ? lua_error(lua) : 1;
    }
    if (e->in_call) {
        static const char recursion[] = "luaRedisGenericCommand() recursive call detected. "
                                        "Are you doing funny stuff with Lua debug hooks?";
        lua_settop(lua, 0);
        cmd_script_push_error(lua, recursion, sizeof(recursion) - 1);
        return 1;
    }
    e->in_call = 1;
    e->out.len = 0;
    e->out.err = 0;
    err = run_command(e, (size_t)argc);
    lua_settop(lua, 0); /* the arguments: the command is done with them */
    if (err != NULL) {
        push_counted_error(lua, err, strlen(err));
        is_err = 1;
    } else if (e->out.err) {
        push_counted_error(lua, "-" CMD_ERR_OOM, strlen(CMD_ERR_OOM) + 1);
        is_err = 1;
    } else {
        is_err = e->out.len > 0 && e->buf[0] == '-';
        if (cmd_script_reply_to_lua(lua, e->buf, e->out.len) != TERSE_OK) {
            lua_settop(lua, 0);
            push_counted_error(lua, "reply of the command unreadable", 31);
            is_err = 1;
        }
    }
    e->out.len = 0;
    e->in_call = 0;
    if (raise && is_err) {
        return lua_error(lua);
    }
    return 1;
}
