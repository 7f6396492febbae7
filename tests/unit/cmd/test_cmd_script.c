/*
 * test_cmd_script: cmocka tests of Lua scripting (src/cmd/script/): the conversions
 * between replies and Lua values both ways, straight on a Lua state and through EVAL over the
 * real command table, the error texts, the script cache, and the engine's lifecycle (SCRIPT
 * FLUSH, teardown with scripts cached). Expected replies were taken from redis-server 7.0.15.
 */
#include "cmd/core/cmd.h"

#include "cmd/script/cmd_script.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>

#include "cmd_fixture.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/script/cmd_script_conv.h"

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    char reply[65536];
};

static int64_t fake_now_ms(void *srv)
{
    (void)srv;
    return 1700000000123LL;
}

static uint64_t fake_now_us(void *srv)
{
    (void)srv;
    return 1000;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.hooks.srv = f;
    f->srv.hooks.now_ms = fake_now_ms;
    f->srv.hooks.now_us = fake_now_us;
    f->srv.settings.busy_reply_threshold_ms = 5000;
    cmd_fixture_init(&f->srv, &f->cl, &f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    cmd_fixture_deinit(&f->srv, &f->cl);
    cmd_fixture_teardown(&f->srv, &f->out);
    free(f);
    return 0;
}

/* Runs EVAL body 0 (args: NULL-terminated extra arguments after numkeys) and returns the
 * raw reply. */
static const char *eval(struct fx *f, const char *body, const char *numkeys, ...)
{
    struct resp_slice argv[CMD_FIXTURE_MAX_ARGS];
    size_t argc = 0;
    va_list ap;
    const char *a;

    argv[argc++] = (struct resp_slice){(const uint8_t *)"EVAL", 4};
    argv[argc++] = (struct resp_slice){(const uint8_t *)body, strlen(body)};
    argv[argc++] = (struct resp_slice){(const uint8_t *)numkeys, strlen(numkeys)};
    va_start(ap, numkeys);
    while ((a = va_arg(ap, const char *)) != NULL) {
        argv[argc++] = (struct resp_slice){(const uint8_t *)a, strlen(a)};
    }
    va_end(ap);
    f->out.len = 0;
    f->out.proto = f->cl.resp;
    cmd_dispatch(&f->srv, &f->cl, argv, argc);
    return cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), NULL);
}

static void test_lua_to_reply(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *body, *want;
    } cases[] = {
        {"return 1", ":1\r\n"},
        {"return 3.99", ":3\r\n"},
        {"return -3.99", ":-3\r\n"},
        {"return 'x'", "$1\r\nx\r\n"},
        {"return true", ":1\r\n"},
        {"return false", "$-1\r\n"},
        {"return nil", "$-1\r\n"},
        {"return {1,2,nil,4}", "*2\r\n:1\r\n:2\r\n"},
        {"return {1,{2,'a'}}", "*2\r\n:1\r\n*2\r\n:2\r\n$1\r\na\r\n"},
        {"return {ok='FINE'}", "+FINE\r\n"},
        {"return {err='MY error'}", "-MY error\r\n"},
        {"return redis.error_reply('bad')", "-ERR bad\r\n"},
        {"return redis.error_reply('-X y')", "-X y\r\n"},
        {"return {double=1.5}", "$3\r\n1.5\r\n"},
        {"return {big_number='12'}", "$2\r\n12\r\n"},
        {"return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n"},
        {"return {set={a=true}}", "*1\r\n$1\r\na\r\n"},
        {"return 0/0", ":-9223372036854775808\r\n"},
        {"redis.setresp(3) return true", ":1\r\n"},  /* a boolean, as RESP2 has it */
        {"redis.setresp(3) return false", ":0\r\n"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(eval(f, cases[i].body, "0", NULL), cases[i].want);
    }
}

static void test_resp3_caller(void **state)
{
    struct fx *f = *state;

    f->cl.resp = 3;
    assert_string_equal(eval(f, "return nil", "0", NULL), "_\r\n");
    assert_string_equal(eval(f, "return false", "0", NULL), "_\r\n");
    assert_string_equal(eval(f, "redis.setresp(3) return false", "0", NULL), "#f\r\n");
    assert_string_equal(eval(f, "return {double=2.5}", "0", NULL), ",2.5\r\n");
    assert_string_equal(eval(f, "return {map={k='v'}}", "0", NULL),
                        "%1\r\n$1\r\nk\r\n$1\r\nv\r\n");
    assert_string_equal(eval(f, "return {set={m=true}}", "0", NULL), "~1\r\n$1\r\nm\r\n");
    assert_string_equal(eval(f, "return {big_number='1\\r\\n2'}", "0", NULL), "(1  2\r\n");
    assert_string_equal(eval(f, "return {verbatim_string={format='txt', string='ab'}}", "0",
                             NULL),
                        "=6\r\ntxt:ab\r\n");
}

static void test_reply_to_lua(void **state)
{
    struct fx *f = *state;

    assert_string_equal(eval(f, "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v",
                             NULL),
                        "+OK\r\n");
    assert_string_equal(eval(f, "return redis.call('get', 'k')", "0", NULL), "$1\r\nv\r\n");
    assert_string_equal(eval(f, "return type(redis.call('get', 'nokey'))", "0", NULL),
                        "$7\r\nboolean\r\n");
    assert_string_equal(eval(f, "return redis.call('set', 'k', 'v')['ok']", "0", NULL),
                        "$2\r\nOK\r\n");
    assert_string_equal(eval(f, "return redis.pcall('incr', 'k')['err']", "0", NULL),
                        "$43\r\nERR value is not an integer or out of range\r\n");
    assert_string_equal(eval(f, "return redis.call('rpush', 'l', 'a', 'b')", "0", NULL),
                        ":2\r\n");
    assert_string_equal(eval(f, "return redis.call('lrange', 'l', 0, -1)", "0", NULL),
                        "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    assert_string_equal(eval(f, "redis.setresp(3) return redis.call('hgetall', 'nokey')['map']"
                                " ~= nil",
                             "0", NULL),
                        ":1\r\n");
    assert_string_equal(eval(f, "return redis.call('echo', 0.5)", "0", NULL),
                        "$3\r\n0.5\r\n");
}

static void test_errors(void **state)
{
    struct fx *f = *state;

    assert_string_equal(eval(f, "return redis.call('nosuch')", "0", NULL),
                        "-ERR Unknown Redis command called from script script: "
                        "206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.\r\n");
    assert_string_equal(eval(f, "return 1 +", "0", NULL),
                        "-ERR Error compiling script (new function): user_script:1: unexpected "
                        "symbol near '<eof>'\r\n");
    assert_string_equal(eval(f, "return 1", "2", "a", NULL),
                        "-ERR Number of keys can't be greater than number of args\r\n");
    assert_string_equal(eval(f, "return 1", "-1", NULL),
                        "-ERR Number of keys can't be negative\r\n");
    assert_string_equal(eval(f, "return redis.call('multi')", "0", NULL),
                        "-ERR This Redis command is not allowed from script script: "
                        "c329a1a294be6bf95b44144f7502610661ae925a, on @user_script:1.\r\n");
}

/* Replies round-trip through Lua: read into a Lua value, written back with a RESP3 script
 * client and caller, they come out as they went in. */
static void test_round_trip(void **state)
{
    static const char *const replies[] = {
        ":1\r\n", "$3\r\nabc\r\n", "*2\r\n:1\r\n$1\r\nx\r\n", "%1\r\n$1\r\na\r\n:1\r\n",
        "~1\r\n$1\r\na\r\n", ",1.5\r\n", "(123\r\n", "=7\r\ntxt:abc\r\n", "#t\r\n", "#f\r\n",
        "_\r\n", "+OK\r\n", "-ERR x\r\n", "*0\r\n", NULL};
    lua_State *lua = luaL_newstate();
    struct resp_out o = {.p = NULL, .len = 0, .cap = 0, .grow = cmd_fixture_out_grow,
                         .owner = NULL, .proto = 3, .err = 0, .on_error = NULL,
                         .err_arg = NULL};

    (void)state;
    assert_non_null(lua);
    for (size_t i = 0; replies[i] != NULL; i++) {
        size_t n = strlen(replies[i]);
        o.len = 0;
        assert_int_equal(cmd_script_reply_to_lua(lua, (const uint8_t *)replies[i], n), TERSE_OK);
        cmd_script_lua_to_reply(lua, &o, 3);
        assert_int_equal(lua_gettop(lua), 0);
        assert_int_equal(o.len, n);
        assert_memory_equal(o.p, replies[i], n);
    }
    /* A malformed or truncated reply pushes nothing. */
    assert_int_equal(cmd_script_reply_to_lua(lua, (const uint8_t *)"*2\r\n:1\r\n", 8),
                     TERSE_EPROTO);
    assert_int_equal(cmd_script_reply_to_lua(lua, (const uint8_t *)":1\r\n:2\r\n", 8),
                     TERSE_EPROTO);
    assert_int_equal(lua_gettop(lua), 0);
    free(o.p);
    lua_close(lua);
}

static void test_cache_and_flush(void **state)
{
    struct fx *f = *state;
    struct resp_slice argv[3] = {{(const uint8_t *)"SCRIPT", 6}, {(const uint8_t *)"LOAD", 4},
                                 {(const uint8_t *)"return 7", 8}};
    char sha[48];

    f->out.len = 0;
    cmd_dispatch(&f->srv, &f->cl, argv, 3);
    cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), NULL);
    assert_int_equal(strlen(f->reply), 47);
    memcpy(sha, f->reply + 5, 40);
    sha[40] = '\0';
    f->out.len = 0;
    argv[0] = (struct resp_slice){(const uint8_t *)"EVALSHA", 7};
    argv[1] = (struct resp_slice){(const uint8_t *)sha, 40};
    argv[2] = (struct resp_slice){(const uint8_t *)"0", 1};
    cmd_dispatch(&f->srv, &f->cl, argv, 3);
    assert_string_equal(cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), NULL), ":7\r\n");
    assert_string_equal(cmd_fixture_dispatch(&f->srv, &f->cl, &f->out, "SCRIPT FLUSH", f->reply,
                                             sizeof(f->reply)),
                        "+OK\r\n");
    f->out.len = 0;
    cmd_dispatch(&f->srv, &f->cl, argv, 3);
    assert_string_equal(cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), NULL),
                        "-NOSCRIPT No matching script. Please use EVAL.\r\n");
    /* Scripts left cached are freed by cmd_server_deinit (teardown, under ASan). */
    assert_string_equal(eval(f, "return 1", "0", NULL), ":1\r\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lua_to_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resp3_caller, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_to_lua, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_and_flush, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
