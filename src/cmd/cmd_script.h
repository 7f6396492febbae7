/*
 * cmd_script: Lua scripting as Redis 7.0 has it (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT),
 * on Debian's Lua 5.1 with its cjson and bit libraries. Shared by the files of the engine:
 *
 *   cmd_script.c       the engine, the cache of scripts
 *   cmd_script_cmd.c   the commands, running a script
 *   cmd_script_lua.c   the Lua state: libraries, the busy hook
 *   cmd_script_api.c   the redis table
 *   cmd_script_protect.c  the globals protection
 *   cmd_script_func.c  FUNCTION's libraries; cmd_script_register.c redis.register_function;
 *                      cmd_script_fcmd.c FCALL and FUNCTION
 *   cmd_script_call.c  redis.call / redis.pcall: a command run on the script client
 *   cmd_script_conv.c  replies to Lua values and Lua values to replies
 *
 * A script's commands run through the command table (cmd_run) on a client of the engine's
 * own (cl), which is in no client list; their replies go to buf, which the engine reads back
 * into Lua values with resp_reply and then empties. Everything runs on the worker thread.
 */
#ifndef TERSE_CMD_SCRIPT_H
#define TERSE_CMD_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/cmd.h"
#include "codec/codec_sha1.h"

/* A script's shebang flags (#!lua flags=...), as Redis 7.0 names them. */
enum cmd_script_flag {
    CMD_SCRIPT_NO_WRITES = 1 << 0,
    CMD_SCRIPT_ALLOW_OOM = 1 << 1,
    CMD_SCRIPT_ALLOW_STALE = 1 << 2,
    CMD_SCRIPT_NO_CLUSTER = 1 << 3,
    CMD_SCRIPT_ALLOW_CROSS_SLOT = 1 << 4,
    CMD_SCRIPT_COMPAT = 1 << 5 /* no shebang: EVAL's pre-7.0 rules */
};

/* State of the script running (struct cmd_script.run). */
enum cmd_script_run {
    CMD_SCRIPT_RUN_RO = 1 << 0,        /* EVAL_RO, EVALSHA_RO or no-writes: no write command */
    CMD_SCRIPT_RUN_ALLOW_OOM = 1 << 1, /* allow-oom: deny-oom commands run over maxmemory */
    CMD_SCRIPT_RUN_OOM = 1 << 2,       /* used memory was over maxmemory as it started */
    CMD_SCRIPT_RUN_DIRTY = 1 << 3,     /* it called a write command: SCRIPT KILL refuses */
    CMD_SCRIPT_RUN_TIMEDOUT = 1 << 4,  /* past busy-reply-threshold: others get -BUSY */
    CMD_SCRIPT_RUN_KILLED = 1 << 5     /* SCRIPT KILL asked: it stops at the next hook */
};

/* redis.set_repl flags (Redis's PROPAGATE_AOF and PROPAGATE_REPL). */
#define CMD_SCRIPT_REPL_AOF 1
#define CMD_SCRIPT_REPL_REPLICA 2
#define CMD_SCRIPT_REPL_ALL 3

/* Registry names shared by the engine's files. */
#define CMD_SCRIPT_REG_GLOBALS "terse_globals"         /* G, the real globals table */
#define CMD_SCRIPT_REG_ERR_HANDLER "terse_err_handler" /* lua_pcall's message handler */
#define CMD_SCRIPT_REG_TOSTRING "terse_tostring"       /* the base library's tostring */
#define CMD_SCRIPT_REG_LIB_REDIS "terse_library_redis" /* FUNCTION's load-time redis table */
#define CMD_SCRIPT_REG_LOADING "terse_loading"  /* what FUNCTION LOAD's library registered */

/* Hex SHA-1 of a script: 40 characters and a NUL. */
#define CMD_SCRIPT_SHA_LEN 40
/* The name a run is known by in errors and logs (a SHA, a function's name), cut to this. */
#define CMD_SCRIPT_NAME_MAX 128

struct cmd_script {
    struct cmd_server *srv;     /* borrowed: the server that owns this engine */
    lua_State *lua;             /* owned; NULL until first used and after SCRIPT FLUSH */
    lua_State *flua;            /* FUNCTION's state, owned; NULL until first used and after
                                   FUNCTION FLUSH (Redis keeps the two apart too) */
    size_t n_libraries, n_functions; /* in flua */
    int loading;                /* FUNCTION LOAD runs a library: register_function works */
    int allow_noscript;         /* DEBUG SET-DISABLE-DENY-SCRIPTS 1: CMD_NOSCRIPT commands run */
    struct codec_sha1_ctx *sha1; /* owned: reused for every script body hashed */
    struct cmd_client cl;       /* the script client: not in srv->clients */
    struct resp_out out;        /* cl.out: view of buf while a command of a script runs */
    /* Replies of the commands a script calls. Owned by the engine, grown with srv->alloc and
     * kept between calls (a warm redis.call allocates nothing here); emptied after each
     * reply is read, freed by cmd_script_destroy, shrunk by cmd_script_trim. */
    uint8_t *buf;
    size_t cap;
    /* Arguments of the command being called: slices of Lua strings held on the Lua stack
     * for the duration of the call. Owned, grown with srv->alloc, kept; freed by destroy. */
    struct resp_slice *argv;
    size_t argv_cap;
    size_t n_scripts;           /* scripts in the cache */
    size_t body_bytes;          /* bytes of their bodies (INFO used_memory_scripts_eval) */
    uint64_t rand_state;        /* math.random: a 48-bit linear congruential generator */
    /* The script running: caller is NULL outside one. */
    struct cmd_call *caller;    /* borrowed: EVAL's call */
    int fcall;                  /* the run is FCALL's (errors name FUNCTION KILL) */
    char sha[CMD_SCRIPT_NAME_MAX + 1]; /* the script's SHA, or the function's name (cut) */
    unsigned run;               /* enum cmd_script_run */
    unsigned repl;              /* CMD_SCRIPT_REPL_* from redis.set_repl */
    uint64_t start_us;          /* hooks.now_us as it started */
    int in_call;                /* a redis.call is running (a hook calling it again fails) */
    unsigned gc_count;          /* scripts run since the last incremental GC step */
};

/* Frees the script client's reply buffer and argument array above keep bytes while no script
 * runs (cmd_server_trim, from cron: one huge reply does not pin its memory). */
void cmd_script_trim(struct cmd_server *srv, size_t keep);

/* The engine a Lua state belongs to: its allocator's userdata (cmd_script_lua_open). */
static inline struct cmd_script *cmd_script_of(lua_State *lua)
{
    void *ud = NULL;

    lua_getallocf(lua, &ud);
    return (struct cmd_script *)ud;
}

/* cmd_script.c */
/* The engine of srv, created on first use (NULL when out of memory). */
struct cmd_script *cmd_script_get(struct cmd_server *srv);
/* Frees the engine and its Lua state; *pp = NULL. */
void cmd_script_destroy(struct cmd_server *srv, struct cmd_script **pp);
/* Writes the hex SHA-1 of n bytes at p into hex (41 bytes, NUL-terminated). */
void cmd_script_sha1hex(struct cmd_script *e, const void *p, size_t n, char *hex);
/* Pushes the function of sha (40 lowercase hex) and returns 1, or returns 0 (nothing pushed)
 * when it is not cached; *flags gets its enum cmd_script_flag. */
int cmd_script_cached(struct cmd_script *e, const char *sha, unsigned *flags);
/* Compiles and caches body (borrowed) unless cached, as Redis's luaCreateFunction: 0 with
 * sha (41 bytes) and *flags, or -1 after replying the error to c. Pushes nothing. */
int cmd_script_create(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *body,
                      char *sha, unsigned *flags);

/* 1 while a script runs past busy-reply-threshold: cmd_dispatch answers -BUSY to every
 * command not flagged CMD_ALLOW_BUSY. */
int cmd_script_busy(const struct cmd_server *srv);

/* INFO memory's scripting figures. */
struct cmd_script_figures {
    uint64_t n_scripts;   /* number_of_cached_scripts */
    uint64_t body_bytes;  /* used_memory_scripts_eval (terse counts the bodies) */
    uint64_t lua_bytes;   /* used_memory_lua / used_memory_vm_eval */
    uint64_t flua_bytes;  /* used_memory_vm_functions */
    uint64_t n_functions, n_libraries;
};
void cmd_script_info(const struct cmd_server *srv, struct cmd_script_figures *f);

/* cmd_script_cmd.c: runs the function on the top of lua's stack for c (a script: KEYS and
 * ARGV globals; fcall: the two tables as its arguments), replies, pops it. run_flags: enum
 * cmd_script_run; e->sha names it. */
void cmd_script_run(struct cmd_script *e, lua_State *lua, struct cmd_call *c, unsigned run_flags,
                    long long numkeys, int fcall);
/* Parses EVAL's and FCALL's numkeys at argv[2]: 0, or -1 after replying the error. */
int cmd_script_numkeys_or_reply(struct cmd_call *c, const char *not_int, long long *numkeys);
/* The checks of a script's flags before it runs (ro: an *_RO command); 0 with *run_flags, or
 * -1 after replying the error. */
int cmd_script_admit_or_reply(struct cmd_call *c, unsigned flags, int ro, unsigned *run_flags);
/* SCRIPT KILL (fcall 0) and FUNCTION KILL (fcall 1) with Redis's replies. */
void cmd_script_kill(struct cmd_call *c, int fcall);
/* The -BUSY error text while a script runs past its time, as its kind says. */
const char *cmd_script_busy_error(const struct cmd_server *srv);

/* cmd_script_lua.c */
/* Creates *out, a state of e, with the libraries, the redis table, the error handler and the
 * globals protection; functions: the FUNCTION state (redis.register_function is there).
 * TERSE_OK or TERSE_ENOMEM (*out NULL). */
int cmd_script_lua_open(struct cmd_script *e, lua_State **out, int functions);
/* lua_close(*pp); *pp = NULL; a NULL *pp is a no-op. */
void cmd_script_lua_close(lua_State **pp);
/* Installs (on) or removes the instruction-count hook that watches busy-reply-threshold. */
void cmd_script_lua_hook(lua_State *lua, int on);
/* Pushes the error table {err = "<code> <msg>"} built from text as Redis 7.0's
 * luaPushErrorBuff does: "-CODE msg" keeps its code, plain text gets "ERR ". */
void cmd_script_push_error(lua_State *lua, const char *text, size_t len);

/* cmd_script_api.c: the redis table, pcall, math.random, the error handler (in the
 * registry); functions: the FUNCTION state's (with redis.register_function). Inside
 * lua_cpcall (it allocates). */
void cmd_script_api_register(lua_State *lua, int functions);

/* cmd_script_register.c: redis.register_function, during FUNCTION LOAD. */
int cmd_script_register_function(lua_State *lua);

/* cmd_script_func.c: FUNCTION's libraries in e->flua. */
/* 1 when n bytes at s are a valid library or function name ([A-Za-z0-9_]+). */
int cmd_script_name_ok(const char *s, size_t n);
/* e->flua, opened on first use; NULL when out of memory. */
lua_State *cmd_script_flua(struct cmd_script *e);
/* FUNCTION LOAD's work: code (borrowed) becomes library *name (the metadata's, written to
 * name_out, name_cap bytes). 0, or -1 after replying the error to c. */
int cmd_script_func_load(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *code,
                         int replace, char *name_out, size_t name_cap);
/* Pushes the function named name and returns 1 with *flags, or 0 (nothing pushed). */
int cmd_script_func_find(struct cmd_script *e, const struct resp_slice *name, unsigned *flags);
/* Drops library name: 1, or 0 when there is none. */
int cmd_script_func_delete(struct cmd_script *e, const struct resp_slice *name);

/* cmd_script_protect.c: the globals protection; the last step of setting a state up. */
void cmd_script_protect(lua_State *lua);
/* luaL_loadbuffer without bytecode, the only way the engine compiles code: len bytes at p
 * (borrowed) always go to the parser, a binary chunk included (it fails there, as in Redis's
 * Lua). Pushes the function (0) or the error message (Lua's LUA_ERRSYNTAX or LUA_ERRMEM). */
int cmd_script_load_text(lua_State *lua, const char *p, size_t len, const char *chunkname);
/* FUNCTION's state: globals are the library API while a library loads (loading 1), the
 * usual ones after (0). */
void cmd_script_protect_load_env(lua_State *lua, int loading);

/* cmd_script_call.c: redis.call (raise 1) and redis.pcall (raise 0). */
int cmd_script_call(lua_State *lua, int raise);

/* cmd_script_conv.c */
/* Pushes the reply at buf[0..len) as Redis converts a command's reply for a script.
 * TERSE_OK, or TERSE_EPROTO (nothing pushed) when it does not parse. */
int cmd_script_reply_to_lua(lua_State *lua, const uint8_t *buf, size_t len);
/* Writes the Lua value on the top of the stack to o (popping it), as Redis converts a
 * script's return value; resp is the script client's protocol (redis.setresp). */
void cmd_script_lua_to_reply(lua_State *lua, struct resp_out *o, int resp);

#endif /* TERSE_CMD_SCRIPT_H */
