/*
 * cmd_script_conv: the conversions between replies and Lua values, as Redis 7.0 documents
 * them (script_lua.c is the model).
 *
 * Reply -> Lua (a command's reply inside a script):
 *   integer -> number          bulk -> string           null bulk / null array -> false
 *   status -> {ok = s}         error -> {err = s}       array -> table (1..n)
 *   RESP3: null -> nil         map -> {map = {k = v}}   set -> {set = {e = true}}
 *          double -> {double = d}   boolean -> boolean   big number -> {big_number = s}
 *          verbatim -> {verbatim_string = {format = f, string = s}}; attributes skipped
 * Lua -> reply (a script's return value):
 *   string -> bulk             number -> integer (truncated)
 *   true -> 1 (RESP2 script) or true; false -> null (RESP2 script) or false
 *   {err = s} -> error         {ok = s} -> status       {double = d} -> double
 *   {big_number = s}, {verbatim_string = ...}, {map = ...}, {set = ...} -> their RESP3 types
 *   other tables -> array of t[1], t[2], ... up to the first nil; anything else -> null
 */
#include "cmd/script/cmd_script_conv.h"

#include <limits.h>
#include <string.h>

#include "cmd/mech/cmd_cstats.h"
#include "cmd/script/cmd_script_base.h"
#include "resp/resp_reply.h"
#include "terse/status.h"

#define DEPTH_MAX 1000 /* nesting of a reply read into Lua (terse's own replies nest 3 deep) */

static void new_field_table(lua_State *lua, const char *field)
{
    lua_newtable(lua);
    lua_pushstring(lua, field);
}

static int push_reply(lua_State *lua, const uint8_t *buf, size_t len, size_t *pos, int depth);

static int push_elements(lua_State *lua, const uint8_t *buf, size_t len, size_t *pos, int depth,
                         const struct resp_reply *r)
{
    int rc = TERSE_OK;

    switch (r->type) {
    case RESP_REPLY_MAP:
        new_field_table(lua, "map");
        lua_newtable(lua);
        for (long long j = 0; j < r->n && rc == TERSE_OK; j++) {
            rc = push_reply(lua, buf, len, pos, depth + 1);
            rc = rc != TERSE_OK ? rc : push_reply(lua, buf, len, pos, depth + 1);
            if (rc == TERSE_OK) {
                lua_settable(lua, -3);
            }
        }
        lua_settable(lua, -3);
        return rc;
    case RESP_REPLY_SET:
        new_field_table(lua, "set");
        lua_newtable(lua);
        for (long long j = 0; j < r->n && rc == TERSE_OK; j++) {
            rc = push_reply(lua, buf, len, pos, depth + 1);
            if (rc == TERSE_OK) {
                lua_pushboolean(lua, 1);
                lua_settable(lua, -3);
            }
        }
        lua_settable(lua, -3);
        return rc;
    default: /* ARRAY, PUSH */
        lua_newtable(lua);
        for (long long j = 0; j < r->n && rc == TERSE_OK; j++) {
            lua_pushnumber(lua, (lua_Number)(j + 1));
            rc = push_reply(lua, buf, len, pos, depth + 1);
            if (rc == TERSE_OK) {
                lua_settable(lua, -3);
            }
        }
        return rc;
    }
}

static int push_reply(lua_State *lua, const uint8_t *buf, size_t len, size_t *pos, int depth)
{
    struct resp_reply r;
    int rc = resp_reply_next(buf, len, pos, &r);

    if (rc != TERSE_OK) {
        return rc == TERSE_MORE ? TERSE_EPROTO : rc;
    }
    if (depth > DEPTH_MAX || !lua_checkstack(lua, 5)) {
        return TERSE_EPROTO;
    }
    switch (r.type) {
    case RESP_REPLY_INT:
        lua_pushnumber(lua, (lua_Number)r.n);
        break;
    case RESP_REPLY_BULK:
        lua_pushlstring(lua, (const char *)r.p, r.len);
        break;
    case RESP_REPLY_NULL_BULK:
    case RESP_REPLY_NULL_ARRAY:
        lua_pushboolean(lua, 0);
        break;
    case RESP_REPLY_NULL:
        lua_pushnil(lua);
        break;
    case RESP_REPLY_BOOL:
        lua_pushboolean(lua, (int)r.n);
        break;
    case RESP_REPLY_SIMPLE:
        new_field_table(lua, "ok");
        lua_pushlstring(lua, (const char *)r.p, r.len);
        lua_settable(lua, -3);
        break;
    case RESP_REPLY_ERROR:
        lua_pushliteral(lua, "-");
        lua_pushlstring(lua, (const char *)r.p, r.len);
        lua_concat(lua, 2);
        cmd_script_push_error(lua, lua_tostring(lua, -1), lua_objlen(lua, -1));
        lua_remove(lua, -2);
        lua_pushboolean(lua, 1); /* the command counted its error already */
        lua_setfield(lua, -2, "ignore_error_stats_update");
        break;
    case RESP_REPLY_DOUBLE:
        new_field_table(lua, "double");
        lua_pushnumber(lua, r.d);
        lua_settable(lua, -3);
        break;
    case RESP_REPLY_BIGNUM:
        new_field_table(lua, "big_number");
        lua_pushlstring(lua, (const char *)r.p, r.len);
        lua_settable(lua, -3);
        break;
    case RESP_REPLY_VERBATIM:
        new_field_table(lua, "verbatim_string");
        lua_newtable(lua);
        lua_pushlstring(lua, (const char *)r.p, r.len);
        lua_setfield(lua, -2, "string");
        lua_pushlstring(lua, r.fmt, 3);
        lua_setfield(lua, -2, "format");
        lua_settable(lua, -3);
        break;
    case RESP_REPLY_ATTR:
        for (long long j = 0; j < 2 * r.n && rc == TERSE_OK; j++) {
            rc = resp_reply_skip(buf, len, pos);
        }
        return rc == TERSE_OK ? push_reply(lua, buf, len, pos, depth + 1) : TERSE_EPROTO;
    default:
        return push_elements(lua, buf, len, pos, depth, &r);
    }
    return TERSE_OK;
}

int cmd_script_reply_to_lua(lua_State *lua, const uint8_t *buf, size_t len)
{
    size_t pos = 0;
    int top = lua_gettop(lua), rc;

    if (resp_reply_skip(buf, len, &pos) != TERSE_OK || pos != len) {
        return TERSE_EPROTO;
    }
    pos = 0;
    rc = push_reply(lua, buf, len, &pos, 0);
    if (rc != TERSE_OK) {
        lua_settop(lua, top);
    }
    return rc;
}

/* ---- Lua -> reply ------------------------------------------------------------------------ */

/* (long long)d as x86 converts it (Redis casts): NaN and out-of-range values give LLONG_MIN,
 * without the undefined behaviour of the cast in C. */
static long long to_ll(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return LLONG_MIN;
    }
    return (long long)d;
}

/* t[field] of the table at the top, pushed; its Lua type returned. */
static int get_field(lua_State *lua, const char *field)
{
    lua_pushstring(lua, field);
    lua_rawget(lua, -2);
    return lua_type(lua, -1);
}

static void write_error(lua_State *lua, struct resp_out *o)
{
    const char *msg;
    int ignore;
    void (*on_error)(void *, const char *, size_t) = o->on_error;

    lua_getfield(lua, -1, "err");
    msg = lua_tostring(lua, -1);
    lua_getfield(lua, -2, "ignore_error_stats_update");
    ignore = lua_isboolean(lua, -1) && lua_toboolean(lua, -1);
    if (ignore) {
        struct cmd_script *e = cmd_script_of(lua); /* NULL: a state of no engine (tests) */
        o->on_error = NULL; /* counted by the command that wrote it; the script's call fails */
        if (e != NULL) {
            cmd_cstats_fail_running(e->srv);
        }
    }
    resp_write_errorf(o, "-%s", msg != NULL ? msg : "");
    o->on_error = on_error;
    lua_pop(lua, 2);
}

static void write_bignum(struct resp_out *o, const char *s, size_t len)
{
    uint8_t *d;

    if (o->proto == 2) {
        resp_write_bulk_header(o, len);
    } else {
        resp_write_raw(o, "(", 1);
    }
    d = resp_out_reserve(o, len);
    if (d == NULL) {
        return;
    }
    for (size_t i = 0; i < len; i++) {
        d[i] = (uint8_t)(s[i] == '\r' || s[i] == '\n' ? ' ' : s[i]);
    }
    resp_out_commit(o, len);
    resp_write_crlf(o);
}

/* A {verbatim_string = {format = f, string = s}} written; 0 when it is not one (stack as it
 * was). The table is at the top, its verbatim_string field pushed above it. */
static int write_verbatim(lua_State *lua, struct resp_out *o)
{
    const char *fmt, *s;
    size_t len;

    lua_getfield(lua, -1, "format");
    lua_getfield(lua, -2, "string");
    if (lua_type(lua, -2) != LUA_TSTRING || lua_type(lua, -1) != LUA_TSTRING) {
        lua_pop(lua, 2);
        return 0;
    }
    fmt = lua_tostring(lua, -2);
    s = lua_tolstring(lua, -1, &len);
    resp_write_verbatim(o, fmt, s, len);
    lua_pop(lua, 2);
    return 1;
}

/* The table at the top, as a map, a set or an array. */
static void write_aggregate(lua_State *lua, struct resp_out *o, int resp)
{
    size_t at, n = 0;

    if (get_field(lua, "map") == LUA_TTABLE) {
        at = resp_write_deferred_begin(o);
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            lua_pushvalue(lua, -2);
            cmd_script_lua_to_reply(lua, o, resp); /* the key */
            cmd_script_lua_to_reply(lua, o, resp); /* the value */
            n++;
        }
        resp_write_deferred_end(o, at, '%', n);
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    if (get_field(lua, "set") == LUA_TTABLE) {
        at = resp_write_deferred_begin(o);
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            lua_pop(lua, 1);
            lua_pushvalue(lua, -1);
            cmd_script_lua_to_reply(lua, o, resp);
            n++;
        }
        resp_write_deferred_end(o, at, '~', n);
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    at = resp_write_deferred_begin(o);
    for (int j = 1;; j++) {
        lua_pushnumber(lua, j);
        lua_rawget(lua, -2);
        if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            break;
        }
        cmd_script_lua_to_reply(lua, o, resp);
        n++;
    }
    resp_write_deferred_end(o, at, '*', n);
}

static void write_table(lua_State *lua, struct resp_out *o, int resp)
{
    size_t len;
    const char *s;

    if (get_field(lua, "err") == LUA_TSTRING) {
        lua_pop(lua, 1);
        write_error(lua, o);
        return;
    }
    lua_pop(lua, 1);
    if (get_field(lua, "ok") == LUA_TSTRING) {
        resp_write_simple(o, lua_tostring(lua, -1));
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    if (get_field(lua, "double") == LUA_TNUMBER) {
        resp_write_double(o, lua_tonumber(lua, -1));
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    if (get_field(lua, "big_number") == LUA_TSTRING) {
        s = lua_tolstring(lua, -1, &len);
        write_bignum(o, s, len);
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    if (get_field(lua, "verbatim_string") == LUA_TTABLE && write_verbatim(lua, o)) {
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    write_aggregate(lua, o, resp);
}

void cmd_script_lua_to_reply(lua_State *lua, struct resp_out *o, int resp)
{
    size_t len;
    const char *s;

    if (!lua_checkstack(lua, 4)) {
        resp_write_error(o, "ERR reached lua stack limit");
        lua_pop(lua, 1);
        return;
    }
    switch (lua_type(lua, -1)) {
    case LUA_TSTRING:
        s = lua_tolstring(lua, -1, &len);
        resp_write_bulk(o, s, len);
        break;
    case LUA_TBOOLEAN:
        if (resp == 2) {
            if (lua_toboolean(lua, -1)) {
                resp_write_int(o, 1);
            } else {
                resp_write_null(o);
            }
        } else {
            resp_write_bool(o, lua_toboolean(lua, -1));
        }
        break;
    case LUA_TNUMBER:
        resp_write_int(o, to_ll(lua_tonumber(lua, -1)));
        break;
    case LUA_TTABLE:
        write_table(lua, o, resp);
        break;
    default:
        resp_write_null(o);
    }
    lua_pop(lua, 1);
}
