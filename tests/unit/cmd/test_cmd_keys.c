/*
 * test_cmd_keys: cmocka tests of the keyspace and expiry commands (src/cmd/keyspace/).
 *
 * Each test runs commands against a real shard and codec through the rows of cmd_keys_defs
 * (the handler is called directly: arity is the dispatcher's job) with a fixed clock, and
 * compares the raw RESP reply with what Redis 7.0.15 answers for the same sequence.
 */
#include "cmd/core/cmd.h"

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/keyspace/cmd_keys.h"

#define T0_MS 1700000000000LL /* the fixture's clock at start */

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    int64_t now_ms;
    char reply[65536]; /* last reply, NUL-terminated */
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->cl.resp = 2;
    f->cl.flags = CMD_CLIENT_AUTHED;
    cmd_fixture_attach(&f->cl, &f->out);
    f->now_ms = T0_MS;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    cmd_fixture_teardown(&f->srv, &f->out);
    free(f);
    return 0;
}

static const struct cmd_def *find_def(const struct cmd_def *tab, const char *name)
{
    for (const struct cmd_def *d = tab; d->name != NULL; d++) {
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
    return NULL;
}

static struct cmd_call make_call(struct fx *f, const struct resp_slice *argv, size_t argc)
{
    struct cmd_call c = {.srv = &f->srv, .cl = &f->cl, .out = &f->out, .argv = argv,
                         .argc = argc, .now_ms = f->now_ms};
    return c;
}

/* The row for argv (lower-case name; a container resolves to its subcommand row). */
static const struct cmd_def *resolve(const struct resp_slice *argv, size_t argc)
{
    char name[64], full[128];
    const struct cmd_def *d;

    snprintf(name, sizeof(name), "%.*s", (int)argv[0].len, (const char *)argv[0].p);
    d = find_def(cmd_keys_defs, name);
    assert_non_null(d);
    if (d->subcmds == NULL) {
        return d;
    }
    assert_true(argc >= 2);
    snprintf(full, sizeof(full), "%s|%.*s", name, (int)argv[1].len, (const char *)argv[1].p);
    d = find_def(d->subcmds, full);
    assert_non_null(d);
    return d;
}

/* Runs one command and returns its raw reply. */
static const char *run(struct fx *f, const char *cmdline)
{
    char line[1024];
    struct resp_slice argv[CMD_FIXTURE_MAX_ARGS];
    const struct cmd_def *d;
    struct cmd_call c;
    size_t argc;

    snprintf(line, sizeof(line), "%s", cmdline);
    /* An empty argument is written as two spaces in a row. */
    argc = cmd_fixture_split(line, argv, 0);
    d = resolve(argv, argc);
    f->out.len = 0;
    c = make_call(f, argv, argc);
    d->proc(&c);
    return cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), NULL);
}

#define EXPECT(f, cmdline, want) assert_string_equal(run((f), (cmdline)), (want))

/* SET key value (the string family is not linked here: go through cmd_value_set). */
static void set(struct fx *f, const char *key, const char *val)
{
    struct resp_slice k = {(const uint8_t *)key, strlen(key)};
    struct cmd_call c = make_call(f, &k, 1);

    assert_int_equal(cmd_value_set(&c, &k, (const uint8_t *)val, strlen(val), STORE_NO_EXPIRE),
                     TERSE_OK);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_del_exists_touch_type(void **state)
{
    struct fx *f = *state;

    set(f, "a", "1");
    set(f, "b", "x");
    EXPECT(f, "exists a a b nokey", ":3\r\n");
    EXPECT(f, "touch a nokey", ":1\r\n");
    EXPECT(f, "type a", "+string\r\n");
    EXPECT(f, "type nokey", "+none\r\n");
    EXPECT(f, "del a a nokey", ":1\r\n");
    EXPECT(f, "unlink b", ":1\r\n");
    EXPECT(f, "exists a b", ":0\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
}

static void test_expire_flags_and_errors(void **state)
{
    struct fx *f = *state;

    set(f, "k", "v");
    EXPECT(f, "expire k 100 nx xx",
           "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
    EXPECT(f, "expire k 100 nx gt",
           "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n");
    EXPECT(f, "expire k 100 xx gt lt",
           "-ERR GT and LT options at the same time are not compatible\r\n");
    EXPECT(f, "expire k 100 foo", "-ERR Unsupported option foo\r\n");
    EXPECT(f, "expire k abc foo", "-ERR Unsupported option foo\r\n");
    EXPECT(f, "expire k abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "expire k 9223372036854775807", "-ERR invalid expire time in 'expire' command\r\n");
    EXPECT(f, "expire k 9223372036854774", "-ERR invalid expire time in 'expire' command\r\n");
    EXPECT(f, "expire k -9223372036854775808",
           "-ERR invalid expire time in 'expire' command\r\n");
    EXPECT(f, "pexpire k 9223372036854775807",
           "-ERR invalid expire time in 'pexpire' command\r\n");
    EXPECT(f, "expireat k 9223372036854775807",
           "-ERR invalid expire time in 'expireat' command\r\n");
    EXPECT(f, "expire k 100 nx nx", ":1\r\n");
    EXPECT(f, "persist k", ":1\r\n");
    EXPECT(f, "expire k 100 gt", ":0\r\n"); /* no expiry is infinite: GT never beats it */
    EXPECT(f, "expire k 100 xx", ":0\r\n");
    EXPECT(f, "expire k 100 lt", ":1\r\n");
    EXPECT(f, "expire k 50 gt", ":0\r\n");
    EXPECT(f, "expire k 200 gt", ":1\r\n");
    EXPECT(f, "expire k 300 lt", ":0\r\n");
    EXPECT(f, "expire k 300 nx", ":0\r\n");
    EXPECT(f, "expire k 300 XX", ":1\r\n");
    EXPECT(f, "ttl k", ":300\r\n");
    EXPECT(f, "expire nokey 100", ":0\r\n");
    EXPECT(f, "pexpireat k 9223372036854775806", ":1\r\n");
    EXPECT(f, "pexpiretime k", ":9223372036854775806\r\n");
    EXPECT(f, "expiretime k", ":9223372036854776\r\n");
}

static void test_expire_past_deletes(void **state)
{
    struct fx *f = *state;

    set(f, "k", "v");
    EXPECT(f, "expire k -1 gt", ":0\r\n");
    EXPECT(f, "exists k", ":1\r\n");
    EXPECT(f, "expire k -1 lt", ":1\r\n");
    EXPECT(f, "exists k", ":0\r\n");
    set(f, "k", "v");
    EXPECT(f, "expire k 0", ":1\r\n");
    EXPECT(f, "exists k", ":0\r\n");
    set(f, "k", "v");
    EXPECT(f, "pexpire k -9223372036854775808", ":1\r\n");
    EXPECT(f, "exists k", ":0\r\n");
    set(f, "k", "v");
    EXPECT(f, "pexpireat k 1", ":1\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
}

static void test_ttl_rounding_and_lazy_expiry(void **state)
{
    struct fx *f = *state;

    set(f, "k", "v");
    EXPECT(f, "ttl nokey", ":-2\r\n");
    EXPECT(f, "pttl nokey", ":-2\r\n");
    EXPECT(f, "expiretime nokey", ":-2\r\n");
    EXPECT(f, "ttl k", ":-1\r\n");
    EXPECT(f, "pexpiretime k", ":-1\r\n");
    EXPECT(f, "persist k", ":0\r\n");
    EXPECT(f, "pexpire k 1499", ":1\r\n");
    EXPECT(f, "ttl k", ":1\r\n");
    EXPECT(f, "pexpire k 1500", ":1\r\n");
    EXPECT(f, "ttl k", ":2\r\n");
    EXPECT(f, "pexpire k 499", ":1\r\n");
    EXPECT(f, "ttl k", ":0\r\n");
    EXPECT(f, "pttl k", ":499\r\n");
    EXPECT(f, "expire k 10", ":1\r\n");
    EXPECT(f, "expiretime k", ":1700000010\r\n");
    f->now_ms += 10000;
    EXPECT(f, "ttl k", ":-2\r\n");
    EXPECT(f, "exists k", ":0\r\n");
}

static void test_rename_copy_move(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "rename nokey b", "-ERR no such key\r\n");
    EXPECT(f, "rename nokey nokey", "-ERR no such key\r\n");
    EXPECT(f, "renamenx nokey nokey", "-ERR no such key\r\n");
    set(f, "a", "1");
    EXPECT(f, "rename a a", "+OK\r\n");
    EXPECT(f, "renamenx a a", ":0\r\n");
    EXPECT(f, "expire a 100", ":1\r\n");
    EXPECT(f, "rename a b", "+OK\r\n");
    EXPECT(f, "ttl b", ":100\r\n");
    EXPECT(f, "exists a", ":0\r\n");
    set(f, "a", "2");
    EXPECT(f, "renamenx a b", ":0\r\n");
    EXPECT(f, "renamenx a c", ":1\r\n");

    EXPECT(f, "copy c c", "-ERR source and destination objects are the same\r\n");
    EXPECT(f, "copy c c db 0", "-ERR source and destination objects are the same\r\n");
    EXPECT(f, "copy c d db abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "copy c d db 16", "-ERR DB index is out of range\r\n");
    EXPECT(f, "copy c d db", "-ERR syntax error\r\n");
    EXPECT(f, "copy c d foo", "-ERR syntax error\r\n");
    EXPECT(f, "copy nokey d", ":0\r\n");
    EXPECT(f, "copy c c db 1", ":1\r\n");
    EXPECT(f, "copy c b", ":0\r\n");
    EXPECT(f, "copy c b replace", ":1\r\n");
    EXPECT(f, "copy c b db 1 replace replace", ":1\r\n");

    EXPECT(f, "move c abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "move c 9999999999",
           "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
    EXPECT(f, "move c 16", "-ERR DB index is out of range\r\n");
    EXPECT(f, "move c -1", "-ERR DB index is out of range\r\n");
    EXPECT(f, "move c 0", "-ERR source and destination objects are the same\r\n");
    EXPECT(f, "move nokey 1", ":0\r\n");
    EXPECT(f, "move c 1", ":0\r\n"); /* copied there above */
    EXPECT(f, "move c 2", ":1\r\n");
    EXPECT(f, "exists c", ":0\r\n");
    EXPECT(f, "select 2", "+OK\r\n");
    EXPECT(f, "exists c", ":1\r\n");
}

static void test_select_swapdb_flush(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "select 16", "-ERR DB index is out of range\r\n");
    EXPECT(f, "select -1", "-ERR DB index is out of range\r\n");
    EXPECT(f, "select abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "select 9999999999",
           "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
    EXPECT(f, "swapdb abc 1", "-ERR invalid first DB index\r\n");
    EXPECT(f, "swapdb 1 abc", "-ERR invalid second DB index\r\n");
    EXPECT(f, "swapdb 9999999999 0", "-ERR invalid first DB index\r\n");
    EXPECT(f, "swapdb 0 16", "-ERR DB index is out of range\r\n");
    EXPECT(f, "swapdb -1 0", "-ERR DB index is out of range\r\n");
    EXPECT(f, "swapdb 0 0", "+OK\r\n");
    set(f, "a", "1");
    EXPECT(f, "swapdb 0 1", "+OK\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
    EXPECT(f, "select 1", "+OK\r\n");
    EXPECT(f, "dbsize", ":1\r\n");
    EXPECT(f, "flushdb foo", "-ERR syntax error\r\n");
    EXPECT(f, "flushall sync x", "-ERR syntax error\r\n");
    EXPECT(f, "flushdb ASYNC", "+OK\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
    set(f, "a", "1");
    EXPECT(f, "select 0", "+OK\r\n");
    set(f, "b", "1");
    EXPECT(f, "flushall", "+OK\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
    EXPECT(f, "select 1", "+OK\r\n");
    EXPECT(f, "dbsize", ":0\r\n");
    EXPECT(f, "randomkey", "$-1\r\n");
}

static void test_scan_cursor_and_options(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "scan abc", "-ERR invalid cursor\r\n");
    EXPECT(f, "scan 18446744073709551616", "-ERR invalid cursor\r\n");
    EXPECT(f, "scan 0x1", "-ERR invalid cursor\r\n");
    EXPECT(f, "scan ", "*2\r\n$1\r\n0\r\n*0\r\n"); /* empty cursor is 0 */
    EXPECT(f, "scan +", "-ERR invalid cursor\r\n");
    EXPECT(f, "scan -1", "*2\r\n$1\r\n0\r\n*0\r\n");
    EXPECT(f, "scan +1", "*2\r\n$1\r\n0\r\n*0\r\n");
    EXPECT(f, "scan 18446744073709551615", "*2\r\n$1\r\n0\r\n*0\r\n");
    EXPECT(f, "scan 0 count 0", "-ERR syntax error\r\n");
    EXPECT(f, "scan 0 count -1", "-ERR syntax error\r\n");
    EXPECT(f, "scan 0 count abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "scan 0 count", "-ERR syntax error\r\n");
    EXPECT(f, "scan 0 foo", "-ERR syntax error\r\n");
    EXPECT(f, "scan abc count 0", "-ERR invalid cursor\r\n");
    set(f, "only", "1");
    EXPECT(f, "scan 0", "*2\r\n$1\r\n0\r\n*1\r\n$4\r\nonly\r\n");
    EXPECT(f, "scan 0 type STRING", "*2\r\n$1\r\n0\r\n*1\r\n$4\r\nonly\r\n");
    EXPECT(f, "scan 0 type foo", "*2\r\n$1\r\n0\r\n*0\r\n");
    EXPECT(f, "scan 0 match o*", "*2\r\n$1\r\n0\r\n*1\r\n$4\r\nonly\r\n");
    EXPECT(f, "scan 0 match x*", "*2\r\n$1\r\n0\r\n*0\r\n");
    EXPECT(f, "keys *", "*1\r\n$4\r\nonly\r\n");
    EXPECT(f, "keys x*", "*0\r\n");
    EXPECT(f, "randomkey", "$4\r\nonly\r\n");
}

/* Counts the keys in a SCAN reply and returns its cursor. */
static uint64_t parse_scan(const char *r, int *seen, int n_keys)
{
    unsigned long long cursor;
    size_t n;
    const char *p;

    assert_int_equal(sscanf(r, "*2\r\n$%*d\r\n%llu\r\n*%zu\r\n", &cursor, &n), 2);
    p = strstr(r + 4, "\r\n*");
    assert_non_null(p);
    p = strstr(p + 3, "\r\n") + 2;
    for (size_t i = 0; i < n; i++) {
        int len, idx;
        assert_int_equal(sscanf(p, "$%d\r\nkey:%d\r\n", &len, &idx), 2);
        assert_true(idx >= 0 && idx < n_keys);
        seen[idx]++;
        p = strstr(p, "\r\n") + 2;
        p += len + 2;
    }
    return cursor;
}

static void test_scan_full_iteration(void **state)
{
    struct fx *f = *state;
    enum { N = 1000 };
    static int seen[N];
    char key[32], cmdline[64];
    uint64_t cursor = 0;
    int rounds = 0;

    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "key:%d", i);
        set(f, key, "v");
    }
    do {
        snprintf(cmdline, sizeof(cmdline), "scan %llu count 7", (unsigned long long)cursor);
        cursor = parse_scan(run(f, cmdline), seen, N);
        rounds++;
    } while (cursor != 0 && rounds < 10 * N);
    assert_int_equal(cursor, 0);
    for (int i = 0; i < N; i++) {
        assert_true(seen[i] >= 1);
    }
    run(f, "keys key:1??");
    assert_memory_equal(f->reply, "*100\r\n", 6);
    run(f, "keys *");
    assert_memory_equal(f->reply, "*1000\r\n", 7);
}

static void test_keys_skips_expired(void **state)
{
    struct fx *f = *state;

    set(f, "a", "1");
    set(f, "b", "1");
    EXPECT(f, "pexpire a 10", ":1\r\n");
    f->now_ms += 20;
    EXPECT(f, "keys *", "*1\r\n$1\r\nb\r\n");
    EXPECT(f, "scan 0", "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nb\r\n");
}

static void test_object(void **state)
{
    struct fx *f = *state;
    char big[64];

    memset(big, 'x', sizeof(big));
    big[44] = '\0';
    set(f, "n", "123");
    set(f, "neg", "-5");
    set(f, "n10000", "10000");
    set(f, "s", "hello");
    set(f, "e", big);
    big[44] = 'x';
    big[45] = '\0';
    set(f, "r", big);
    set(f, "lz", "0123");
    EXPECT(f, "object encoding n", "$3\r\nint\r\n");
    EXPECT(f, "object encoding neg", "$3\r\nint\r\n");
    EXPECT(f, "object encoding lz", "$6\r\nembstr\r\n");
    EXPECT(f, "object encoding e", "$6\r\nembstr\r\n");
    EXPECT(f, "object encoding r", "$3\r\nraw\r\n");
    EXPECT(f, "object encoding nokey", "$-1\r\n");
    EXPECT(f, "object refcount n", ":2147483647\r\n");
    EXPECT(f, "object refcount n10000", ":1\r\n");
    EXPECT(f, "object refcount neg", ":1\r\n");
    EXPECT(f, "object refcount s", ":1\r\n");
    EXPECT(f, "object idletime s", ":0\r\n");
    EXPECT(f, "object freq nokey", "$-1\r\n");
    EXPECT(f, "object freq s",
           "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
           "note that when switching between policies at runtime LRU and LFU data will take "
           "some time to adjust.\r\n");
    run(f, "object help");
    assert_memory_equal(f->reply, "*15\r\n+OBJECT <subcommand>", 25);
}

static void test_object_lfu_policy(void **state)
{
    struct fx *f = *state;

    f->srv.settings.maxmemory_policy = "allkeys-lfu";
    set(f, "s", "hello");
    set(f, "n", "1");
    EXPECT(f, "object idletime nokey", "$-1\r\n");
    EXPECT(f, "object idletime s",
           "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that "
           "when switching between policies at runtime LRU and LFU data will take some time to "
           "adjust.\r\n");
    run(f, "object freq s");
    assert_int_equal(f->reply[0], ':');
    /* No maxmemory (no sysinfo hook): integers stay shared even under an LFU policy. */
    EXPECT(f, "object refcount n", ":2147483647\r\n");
}

/* Hits and misses move as Redis 7.0's INFO shows them for the same sequence. */
static void test_keyspace_stats(void **state)
{
    struct fx *f = *state;
    const struct cmd_stats *st = &f->srv.stats;

    set(f, "k", "v");
    run(f, "exists k nokey");
    assert_int_equal(st->keyspace_hits, 1);
    assert_int_equal(st->keyspace_misses, 1);
    run(f, "type k");
    run(f, "ttl k");
    run(f, "object encoding k");
    run(f, "touch k");
    assert_int_equal(st->keyspace_hits, 5);
    run(f, "expire k 100");
    run(f, "persist k");
    run(f, "rename k k2");
    run(f, "keys *");
    run(f, "randomkey");
    assert_int_equal(st->keyspace_hits, 5);
    run(f, "copy k2 k3");
    assert_int_equal(st->keyspace_hits, 6);
    run(f, "scan 0 type string"); /* one type lookup per key */
    assert_int_equal(st->keyspace_hits, 8);
    assert_int_equal(st->keyspace_misses, 1);
}

static void test_table_rows(void **state)
{
    const struct cmd_def *d;

    (void)state;
    d = find_def(cmd_keys_defs, "del");
    assert_non_null(d);
    assert_int_equal(d->arity, -2);
    assert_int_equal(d->last_key, -1);
    d = find_def(cmd_keys_defs, "object");
    assert_non_null(d);
    assert_null(d->proc);
    assert_non_null(find_def(d->subcmds, "object|encoding"));
    for (d = cmd_keys_defs; d->name != NULL; d++) {
        assert_true(d->proc != NULL || d->subcmds != NULL);
        assert_non_null(d->summary);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_del_exists_touch_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expire_flags_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expire_past_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ttl_rounding_and_lazy_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_copy_move, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_swapdb_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_cursor_and_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan_full_iteration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keys_skips_expired, setup, teardown),
        cmocka_unit_test_setup_teardown(test_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_object_lfu_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyspace_stats, setup, teardown),
        cmocka_unit_test(test_table_rows),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
