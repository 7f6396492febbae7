/*
 * cmd_script_base: what every file of the scripting engine shares: the engine's state (struct
 * cmd_script), the flags and registry names, and three helpers (an error reply pushed to Lua,
 * the SHA1 hex of a body, the name rule for libraries and functions). It calls no other file
 * of the engine.
 */
#ifndef TERSE_CMD_SCRIPT_BASE_H
#define TERSE_CMD_SCRIPT_BASE_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"
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

/* The engine a Lua state belongs to: its allocator's userdata (cmd_script_lua_open). */
static inline struct cmd_script *cmd_script_of(lua_State *lua)
{
    void *ud = NULL;

    lua_getallocf(lua, &ud);
    return (struct cmd_script *)ud;
}

/* Writes the hex SHA-1 of n bytes at p into hex (41 bytes, NUL-terminated). */
void cmd_script_sha1hex(struct cmd_script *e, const void *p, size_t n, char *hex);

/* Pushes the error table {err = "<code> <msg>"} built from text as Redis 7.0's
 * luaPushErrorBuff does: "-CODE msg" keeps its code, plain text gets "ERR ". */
void cmd_script_push_error(lua_State *lua, const char *text, size_t len);

/* 1 when n bytes at s are a valid library or function name ([A-Za-z0-9_]+). */
int cmd_script_name_ok(const char *s, size_t n);

#endif /* TERSE_CMD_SCRIPT_BASE_H */
