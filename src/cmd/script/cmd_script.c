/*
 * cmd_script: the engine (created on first use) and its cache of scripts: compiling a body
 * with its shebang flags, as Redis 7.0's eval.c does. The commands are cmd_script_cmd.c.
 *
 * The cache: a script's compiled function sits in the Lua registry under "f_<sha>" and its
 * shebang flags in the registry table "terse_flags" under "<sha>"; SCRIPT FLUSH closes the
 * Lua state, which drops them all. Scripts are only ever added by EVAL and SCRIPT LOAD.
 */
#include "cmd/script/cmd_script.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_client.h"
#include "terse/status.h"
#include "cmd/script/cmd_script_protect.h"
#include "cmd/script/cmd_script_lua.h"

#define REG_FLAGS "terse_flags"
#define REPLY_BUF_MIN 1024

/* resp_out grow callback of the script client: e->buf, doubled, kept. */
static int out_grow(void *owner, struct resp_out *o, size_t need)
{
    struct cmd_script *e = owner;
    size_t want = o->len + need;

    if (cmd_grow(e->srv, (void **)&e->buf, &e->cap, want, 1, REPLY_BUF_MIN) != TERSE_OK) {
        return -1;
    }
    o->p = e->buf;
    o->cap = e->cap;
    return 0;
}

struct cmd_script *cmd_script_get(struct cmd_server *srv)
{
    struct cmd_script *e = srv->script;

    if (e == NULL) {
        e = srv->alloc.alloc(srv->alloc.opaque, sizeof(*e));
        if (e == NULL) {
            return NULL;
        }
        memset(e, 0, sizeof(*e));
        e->srv = srv;
        e->cl.resp = 2;
        e->cl.fd = -1;
        e->cl.flags = CMD_CLIENT_AUTHED | CMD_CLIENT_SCRIPT;
        e->cl.out = &e->out;
        snprintf(e->cl.addr, sizeof(e->cl.addr), "%s", "");
        e->out = (struct resp_out){.p = NULL, .len = 0, .cap = 0, .grow = out_grow, .owner = e,
                                   .proto = 2, .err = 0, .on_error = cmd_count_error,
                                   .err_arg = srv};
        srv->script = e;
        if (codec_sha1_ctx_create(&e->sha1) != TERSE_OK) {
            e->sha1 = NULL; /* codec_sha1 then, one context per digest */
        }
    }
    if (e->lua == NULL && cmd_script_lua_open(e, &e->lua, 0) != TERSE_OK) {
        return NULL;
    }
    return e;
}

void cmd_script_destroy(struct cmd_server *srv, struct cmd_script **pp)
{
    struct cmd_script *e;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    e = *pp;
    cmd_script_lua_close(&e->lua);
    cmd_script_lua_close(&e->flua);
    codec_sha1_ctx_destroy(&e->sha1);
    cmd_client_deinit(srv, &e->cl);
    srv->alloc.free(srv->alloc.opaque, e->buf);
    srv->alloc.free(srv->alloc.opaque, e->argv);
    srv->alloc.free(srv->alloc.opaque, e);
    *pp = NULL;
}

/* ---- the cache ---------------------------------------------------------------------------- */

/* Pushes the function of sha (40 lowercase hex) and returns 1, or returns 0 (nothing pushed)
 * when it is not cached; *flags gets its shebang flags. */
int cmd_script_cached(struct cmd_script *e, const char *sha, unsigned *flags)
{
    lua_State *lua = e->lua;
    char name[2 + CMD_SCRIPT_SHA_LEN + 1] = "f_";

    memcpy(name + 2, sha, CMD_SCRIPT_SHA_LEN + 1);
    lua_getfield(lua, LUA_REGISTRYINDEX, name);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        return 0;
    }
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FLAGS);
    lua_getfield(lua, -1, sha);
    *flags = (unsigned)lua_tonumber(lua, -1);
    lua_pop(lua, 2);
    return 1;
}

static int word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

/* The flags of one "flags=a,b" list (n bytes at p). 0, or -1 with the error in err. */
static int shebang_flags(const char *p, size_t n, unsigned *flags, char *err, size_t err_cap)
{
    static const struct { const char *name; unsigned flag; } names[] = {
        {"no-writes", CMD_SCRIPT_NO_WRITES}, {"allow-oom", CMD_SCRIPT_ALLOW_OOM},
        {"allow-stale", CMD_SCRIPT_ALLOW_STALE}, {"no-cluster", CMD_SCRIPT_NO_CLUSTER},
        {"allow-cross-slot-keys", CMD_SCRIPT_ALLOW_CROSS_SLOT}};
    size_t at = 0;

    while (n > 0 && at <= n) {
        const char *comma = memchr(p + at, ',', n - at);
        size_t len = comma != NULL ? (size_t)(comma - (p + at)) : n - at;
        size_t i = 0;
        while (i < sizeof(names) / sizeof(names[0]) && !word_is(p + at, len, names[i].name)) {
            i++;
        }
        if (i == sizeof(names) / sizeof(names[0])) {
            snprintf(err, err_cap, "ERR Unexpected flag in script shebang: %.*s", (int)len,
                     p + at);
            return -1;
        }
        *flags |= names[i].flag;
        at += len + 1;
    }
    return 0;
}

/* Reads a "#!lua flags=..." first line of body: 0 with *flags and *skip (bytes of the line,
 * its newline excluded), or -1 with Redis's error text in err. */
static int shebang(const char *body, size_t len, unsigned *flags, size_t *skip, char *err,
                   size_t err_cap)
{
    const char *nl, *w, *end;

    *flags = CMD_SCRIPT_COMPAT;
    *skip = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') {
        return 0;
    }
    nl = memchr(body, '\n', len);
    if (nl == NULL) {
        snprintf(err, err_cap, "ERR Invalid script shebang");
        return -1;
    }
    *skip = (size_t)(nl - body);
    *flags = 0;
    for (w = body; w < nl; w = end) {
        while (w < nl && (*w == ' ' || *w == '\t' || *w == '\r')) {
            w++;
        }
        for (end = w; end < nl && *end != ' ' && *end != '\t' && *end != '\r'; end++) {
        }
        if (w == end) {
            break;
        }
        if (w == body) {
            if (!word_is(w, (size_t)(end - w), "#!lua")) {
                snprintf(err, err_cap, "ERR Unexpected engine in script shebang: %.*s",
                         (int)(end - w), w);
                return -1;
            }
        } else if ((size_t)(end - w) >= 6 && memcmp(w, "flags=", 6) == 0) {
            if (shebang_flags(w + 6, (size_t)(end - w) - 6, flags, err, err_cap) != 0) {
                return -1;
            }
        } else {
            snprintf(err, err_cap, "ERR Unknown lua shebang option: %.*s", (int)(end - w), w);
            return -1;
        }
    }
    return 0;
}

/* Compiles and caches body unless cached (Redis's luaCreateFunction). Returns 0 with sha
 * (41 bytes) and *flags, or -1 after replying the error to c. Pushes nothing. */
int cmd_script_create(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *body,
                  char *sha, unsigned *flags)
{
    lua_State *lua = e->lua;
    const char *src = (const char *)body->p;
    char err[256], name[2 + CMD_SCRIPT_SHA_LEN + 1] = "f_";
    size_t skip;

    cmd_script_sha1hex(e, body->p, body->len, sha);
    if (cmd_script_cached(e, sha, flags)) {
        lua_pop(lua, 1);
        return 0;
    }
    if (shebang(src, body->len, flags, &skip, err, sizeof(err)) != 0) {
        cmd_reply_err(c, err);
        return -1;
    }
    if (cmd_script_load_text(lua, src + skip, body->len - skip, "@user_script") != 0) {
        resp_write_errorf(c->out, "ERR Error compiling script (new function): %s",
                          lua_tostring(lua, -1));
        lua_pop(lua, 1);
        return -1;
    }
    memcpy(name + 2, sha, CMD_SCRIPT_SHA_LEN + 1);
    lua_setfield(lua, LUA_REGISTRYINDEX, name);
    lua_getfield(lua, LUA_REGISTRYINDEX, REG_FLAGS);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        lua_newtable(lua);
        lua_pushvalue(lua, -1);
        lua_setfield(lua, LUA_REGISTRYINDEX, REG_FLAGS);
    }
    lua_pushnumber(lua, *flags);
    lua_setfield(lua, -2, sha);
    lua_pop(lua, 1);
    e->n_scripts++;
    e->body_bytes += body->len;
    return 0;
}

void cmd_script_trim(struct cmd_server *srv, size_t keep)
{
    struct cmd_script *e = srv->script;

    if (e == NULL || e->caller != NULL) {
        return; /* nothing, or a script runs (its buffers are in use) */
    }
    if (e->cap > keep) {
        srv->alloc.free(srv->alloc.opaque, e->buf);
        e->buf = NULL;
        e->cap = 0;
        e->out.p = NULL;
        e->out.cap = 0;
        e->out.len = 0;
    }
    if (e->argv_cap * sizeof(*e->argv) > keep) {
        srv->alloc.free(srv->alloc.opaque, e->argv);
        e->argv = NULL;
        e->argv_cap = 0;
    }
}

const char *cmd_script_busy_error(const struct cmd_server *srv)
{
    return srv->script != NULL && srv->script->fcall
               ? "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                 "SHUTDOWN NOSAVE."
               : "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                 "SHUTDOWN NOSAVE.";
}

int cmd_script_busy(const struct cmd_server *srv)
{
    return srv->script != NULL && srv->script->caller != NULL &&
           (srv->script->run & CMD_SCRIPT_RUN_TIMEDOUT);
}

void cmd_script_info(const struct cmd_server *srv, struct cmd_script_figures *f)
{
    const struct cmd_script *e = srv->script;

    memset(f, 0, sizeof(*f));
    if (e == NULL) {
        return;
    }
    f->n_scripts = e->n_scripts;
    f->body_bytes = e->body_bytes;
    f->lua_bytes = e->lua != NULL ? (uint64_t)lua_gc(e->lua, LUA_GCCOUNT, 0) * 1024 : 0;
    f->flua_bytes = e->flua != NULL ? (uint64_t)lua_gc(e->flua, LUA_GCCOUNT, 0) * 1024 : 0;
    f->n_functions = e->n_functions;
    f->n_libraries = e->n_libraries;
}

