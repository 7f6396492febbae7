/*
 * test_cmd_string: cmocka tests of the string command family (src/cmd/string/).
 *
 * Commands run through the rows of cmd_string_defs (the handler is called directly: arity is
 * the dispatcher's job) against a real shard and codec with a fixed clock. Expected replies
 * are the raw RESP that Debian's redis-server 7.0.15 sends for the same sequence.
 */
#include "cmd/core/cmd.h"

#include "cmd/core/cmd_util.h"
#include "codec/codec_value.h"
#include "terse/status.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/string/cmd_string.h"
#include "cmd/mech/cmd_memory.h"

#define T0_MS 1700000000000LL /* the fixture's clock */
#define REPLY_CAP (1 << 16)

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    int64_t now_ms;
    size_t n_alloc;        /* calls of srv.alloc.alloc */
    char reply[REPLY_CAP]; /* last reply, NUL-terminated (binary replies: see reply_len) */
    size_t reply_len;
};

static void *count_alloc(void *opaque, size_t size)
{
    ((struct fx *)opaque)->n_alloc++;
    return malloc(size);
}

static void count_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.alloc.alloc = count_alloc;
    f->srv.alloc.free = count_free;
    f->srv.alloc.opaque = f;
    f->srv.settings.proto_max_bulk_len = 512LL * 1024 * 1024;
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

static const struct cmd_def *find_def(const char *name)
{
    for (const struct cmd_def *d = cmd_string_defs; d->name != NULL; d++) {
        if (strcmp(d->name, name) == 0) {
            return d;
        }
    }
    return NULL;
}

/* Runs argv[0..argc) and returns the raw reply. */
static const char *run_argv(struct fx *f, const struct resp_slice *argv, size_t argc)
{
    char name[32];
    const struct cmd_def *d;
    struct cmd_call c = {.srv = &f->srv, .cl = &f->cl, .out = &f->out, .argv = argv,
                         .argc = argc, .now_ms = f->now_ms};

    snprintf(name, sizeof(name), "%.*s", (int)argv[0].len, (const char *)argv[0].p);
    for (char *q = name; *q != '\0'; q++) {
        *q = (char)tolower((unsigned char)*q);
    }
    d = find_def(name);
    assert_non_null(d);
    f->out.len = 0;
    d->proc(&c);
    return cmd_fixture_reply(&f->out, f->reply, sizeof(f->reply), &f->reply_len);
}

/* Runs a command line split on single spaces; "''" stands for an empty argument. */
static const char *run(struct fx *f, const char *cmdline)
{
    char line[1024];
    struct resp_slice argv[CMD_FIXTURE_MAX_ARGS];
    size_t argc;

    snprintf(line, sizeof(line), "%s", cmdline);
    argc = cmd_fixture_split(line, argv, CMD_FIXTURE_SPLIT_QUOTES);
    return run_argv(f, argv, argc);
}

#define EXPECT(f, cmdline, want) assert_string_equal(run((f), (cmdline)), (want))

static struct store_entry *lookup(struct fx *f, const char *key)
{
    return store_lookup(f->srv.shard, f->cl.db, key, strlen(key), f->now_ms, 0);
}

/* SET key to a value of n bytes from a repeating pattern (compressible above CODEC_RAW_MAX). */
static void set_pattern(struct fx *f, const char *key, size_t n)
{
    static const char pat[] = "hello world ";
    struct resp_slice argv[3];
    char *v = malloc(n + 1);

    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        v[i] = pat[i % (sizeof(pat) - 1)];
    }
    argv[0] = (struct resp_slice){(const uint8_t *)"set", 3};
    argv[1] = (struct resp_slice){(const uint8_t *)key, strlen(key)};
    argv[2] = (struct resp_slice){(const uint8_t *)v, n};
    assert_string_equal(run_argv(f, argv, 3), "+OK\r\n");
    free(v);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_get_set_basic(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "get k", "$-1\r\n");
    EXPECT(f, "set k v", "+OK\r\n");
    EXPECT(f, "get k", "$1\r\nv\r\n");
    EXPECT(f, "set i 123", "+OK\r\n");
    assert_int_equal(store_entry_enc(lookup(f, "i")), STORE_ENC_INT);
    EXPECT(f, "set i 456 get", "$3\r\n123\r\n");
    EXPECT(f, "set e ''", "+OK\r\n");
    EXPECT(f, "get e", "$0\r\n\r\n");
    f->out.proto = 3;
    f->cl.resp = 3;
    EXPECT(f, "get nokey", "_\r\n");
}

static void test_set_option_errors(void **state)
{
    struct fx *f = *state;
    static const char *const syntax[] = {
        "set k v ex",          "set k v nx xx",         "set k v xx nx",
        "set k v ex 10 px 20", "set k v keepttl ex 10", "set k v ex 10 keepttl",
        "set k v persist",     "set k v foo",           "set k v ex 10 exat 20",
        "set k v nx get xx",   "set k v px 100 keepttl"};

    for (size_t i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++) {
        EXPECT(f, syntax[i], "-ERR syntax error\r\n");
    }
    EXPECT(f, "set k v ex 0", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v ex -1", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v px 0", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v exat 0", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v ex 9223372036854775", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v px 9223372036854775000", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "set k v ex abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "set k v ex 010", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "set k v ex +10", "-ERR value is not an integer or out of range\r\n");
    /* Accepted: repeats, the last expire wins. */
    EXPECT(f, "set k v ex 10 ex 20", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), T0_MS + 20000);
    EXPECT(f, "set k v nx nx", "$-1\r\n");
    EXPECT(f, "set k v keepttl keepttl", "+OK\r\n");
    EXPECT(f, "set k v pxat 9223372036854775807", "+OK\r\n");
    EXPECT(f, "SeT k v2 xX GeT", "$1\r\nv\r\n");
    EXPECT(f, "setex k 0 v", "-ERR invalid expire time in 'setex' command\r\n");
    EXPECT(f, "psetex k 0 v", "-ERR invalid expire time in 'psetex' command\r\n");
    EXPECT(f, "setex k 9223372036854776 v", "-ERR invalid expire time in 'setex' command\r\n");
}

static void test_set_expiry(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "set k v ex 100", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), T0_MS + 100000);
    EXPECT(f, "set k v2 keepttl", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), T0_MS + 100000);
    EXPECT(f, "set k v3", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), STORE_NO_EXPIRE);
    EXPECT(f, "set k v px 1500", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), T0_MS + 1500);
    EXPECT(f, "set k v exat 1800000000", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), 1800000000000LL);
    EXPECT(f, "setex s 100 v", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "s")), T0_MS + 100000);
    EXPECT(f, "psetex s 100 v", "+OK\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "s")), T0_MS + 100);
    /* In the past: OK, and the key is gone at its next lookup (Redis 7.0). */
    EXPECT(f, "set p v pxat 1", "+OK\r\n");
    EXPECT(f, "get p", "$-1\r\n");
    /* GETSET clears the TTL. */
    EXPECT(f, "getset s w", "$1\r\nv\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "s")), STORE_NO_EXPIRE);
}

static void test_set_nx_xx_get(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "set k2 x nx get", "$-1\r\n");
    EXPECT(f, "set k2 y nx get", "$1\r\nx\r\n");
    EXPECT(f, "get k2", "$1\r\nx\r\n");
    EXPECT(f, "set k3 x xx get", "$-1\r\n");
    EXPECT(f, "set k3 x xx", "$-1\r\n");
    EXPECT(f, "set k2 z xx get", "$1\r\nx\r\n");
    EXPECT(f, "set k2 zz get ex 0", "-ERR invalid expire time in 'set' command\r\n");
    EXPECT(f, "get k2", "$1\r\nz\r\n");
    EXPECT(f, "setnx k2 a", ":0\r\n");
    EXPECT(f, "setnx new a", ":1\r\n");
    EXPECT(f, "getset nokey v", "$-1\r\n");
    EXPECT(f, "get nokey", "$1\r\nv\r\n");
}

static void test_getdel_getex(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "set k v", "+OK\r\n");
    EXPECT(f, "getdel k", "$1\r\nv\r\n");
    EXPECT(f, "getdel k", "$-1\r\n");
    EXPECT(f, "getex nokey", "$-1\r\n");
    EXPECT(f, "getex nokey ex 0", "$-1\r\n"); /* the key is looked up before the time */
    EXPECT(f, "getex nokey foo", "-ERR syntax error\r\n");
    EXPECT(f, "set k z", "+OK\r\n");
    EXPECT(f, "getex k ex 0", "-ERR invalid expire time in 'getex' command\r\n");
    EXPECT(f, "getex k ex abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "getex k ex 100 persist", "-ERR syntax error\r\n");
    EXPECT(f, "getex k persist ex 100", "-ERR syntax error\r\n");
    EXPECT(f, "getex k keepttl", "-ERR syntax error\r\n");
    EXPECT(f, "getex k nx", "-ERR syntax error\r\n");
    EXPECT(f, "getex k get", "-ERR syntax error\r\n");
    EXPECT(f, "getex k ex 100", "$1\r\nz\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), T0_MS + 100000);
    EXPECT(f, "getex k persist", "$1\r\nz\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "k")), STORE_NO_EXPIRE);
    EXPECT(f, "getex k exat 9223372036854776", "-ERR invalid expire time in 'getex' command\r\n");
    EXPECT(f, "getex k pxat 1", "$1\r\nz\r\n");
    assert_null(lookup(f, "k"));
    assert_int_equal(store_dbsize(f->srv.shard, 0), 0); /* deleted now, not lazily */
}

static void test_mget_mset_msetnx(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "mset a 1 b 2", "+OK\r\n");
    EXPECT(f, "mset a 1 b", "-ERR wrong number of arguments for 'mset' command\r\n");
    EXPECT(f, "msetnx a 1 c 3", ":0\r\n");
    EXPECT(f, "msetnx c 3 d 4", ":1\r\n");
    EXPECT(f, "msetnx c 3 d", "-ERR wrong number of arguments for 'msetnx' command\r\n");
    EXPECT(f, "msetnx x 1 x 2", ":1\r\n");
    EXPECT(f, "get x", "$1\r\n2\r\n");
    EXPECT(f, "mget a b nokey d", "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n$1\r\n4\r\n");
}

static void test_append_strlen_getrange(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "append ap hello", ":5\r\n");
    EXPECT(f, "append ap _world", ":11\r\n");
    EXPECT(f, "get ap", "$11\r\nhello_world\r\n");
    EXPECT(f, "set i 456", "+OK\r\n");
    EXPECT(f, "append i 7", ":4\r\n");
    EXPECT(f, "get i", "$4\r\n4567\r\n");
    EXPECT(f, "strlen ap", ":11\r\n");
    EXPECT(f, "strlen i", ":4\r\n");
    EXPECT(f, "strlen nokey", ":0\r\n");
    EXPECT(f, "set neg -12", "+OK\r\n");
    EXPECT(f, "strlen neg", ":3\r\n");
    EXPECT(f, "getrange ap 0 4", "$5\r\nhello\r\n");
    EXPECT(f, "getrange ap -5 -1", "$5\r\nworld\r\n");
    EXPECT(f, "getrange ap -1 -5", "$0\r\n\r\n");
    EXPECT(f, "getrange ap 5 2", "$0\r\n\r\n");
    EXPECT(f, "getrange ap 0 100", "$11\r\nhello_world\r\n");
    EXPECT(f, "getrange ap -100 -50", "$1\r\nh\r\n");
    EXPECT(f, "getrange ap 100 200", "$0\r\n\r\n");
    EXPECT(f, "getrange ap 0 -100", "$1\r\nh\r\n");
    EXPECT(f, "getrange ap abc 1", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "getrange ap 0 9223372036854775808",
           "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "getrange nokey 0 1", "$0\r\n\r\n");
    EXPECT(f, "getrange i -2 -1", "$2\r\n67\r\n");
    EXPECT(f, "substr ap 0 4", "$5\r\nhello\r\n");
    EXPECT(f, "set e ''", "+OK\r\n");
    EXPECT(f, "getrange e 0 -1", "$0\r\n\r\n");
}

static void test_setrange(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "setrange sr 5 abc", ":8\r\n");
    run(f, "get sr");
    assert_int_equal(f->reply_len, 4 + 8 + 2);
    assert_memory_equal(f->reply, "$8\r\n\0\0\0\0\0abc\r\n", 14);
    EXPECT(f, "setrange sr -1 abc", "-ERR offset is out of range\r\n");
    EXPECT(f, "setrange sr abc x", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "setrange sr 0 ''", ":8\r\n");
    EXPECT(f, "setrange nosr 10 ''", ":0\r\n");
    assert_null(lookup(f, "nosr"));
    EXPECT(f, "setrange sr 1 XY", ":8\r\n");
    run(f, "getrange sr 0 3");
    assert_memory_equal(f->reply, "$4\r\n\0XY\0\r\n", 10);
    EXPECT(f, "set i 4567", "+OK\r\n");
    EXPECT(f, "setrange i 0 9", ":4\r\n");
    EXPECT(f, "get i", "$4\r\n9567\r\n");
    EXPECT(f, "set t v ex 100", "+OK\r\n");
    EXPECT(f, "setrange t 3 x", ":4\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "t")), T0_MS + 100000);
}

static void test_size_limit(void **state)
{
    struct fx *f = *state;

    f->srv.settings.proto_max_bulk_len = 1000;
    EXPECT(f, "setrange a 999 x", ":1000\r\n");
    EXPECT(f, "setrange a 1000 x",
           "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n");
    EXPECT(f, "setrange b 9223372036854775807 x",
           "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n");
    assert_null(lookup(f, "b"));
    EXPECT(f, "append a y", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n");
    EXPECT(f, "append a ''", ":1000\r\n");
    EXPECT(f, "strlen a", ":1000\r\n");
}

/* APPEND, SETRANGE and GETRANGE on a value the codec holds compressed. */
static void test_compressed_values(void **state)
{
    struct fx *f = *state;
    struct codec_value_info info;
    const uint8_t *stored;
    size_t n;

    set_pattern(f, "z", 4000);
    /* Stored raw and pending (terse-compression background), then compressed by a step. */
    stored = store_entry_val(lookup(f, "z"), &n);
    assert_int_equal(codec_value_info(stored, n, &info), TERSE_OK);
    assert_int_equal(info.kind, CODEC_RAW);
    assert_true(store_entry_is_pending(lookup(f, "z")));
    EXPECT(f, "getrange z 0 10", "$11\r\nhello world\r\n");
    assert_true(cmd_compress_step(&f->srv, 0, 0) > 0);
    assert_false(store_entry_is_pending(lookup(f, "z")));
    stored = store_entry_val(lookup(f, "z"), &n);
    assert_int_equal(codec_value_info(stored, n, &info), TERSE_OK);
    assert_int_equal(info.kind, CODEC_LZ4);
    EXPECT(f, "getrange z 0 10", "$11\r\nhello world\r\n");
    EXPECT(f, "getrange z -6 -1", "$6\r\nd hell\r\n");
    EXPECT(f, "append z END", ":4003\r\n");
    EXPECT(f, "getrange z -4 -1", "$4\r\nlEND\r\n");
    EXPECT(f, "setrange z 6 WORLD", ":4003\r\n");
    EXPECT(f, "getrange z 0 11", "$12\r\nhello WORLD \r\n");
    EXPECT(f, "setrange z 4005 !", ":4006\r\n");
    run(f, "getrange z -4 -1");
    assert_memory_equal(f->reply, "$4\r\nD\0\0!\r\n", 10);
    EXPECT(f, "strlen z", ":4006\r\n");
    (void)cmd_compress_step(&f->srv, 0, 0);
    stored = store_entry_val(lookup(f, "z"), &n);
    assert_int_equal(codec_value_info(stored, n, &info), TERSE_OK);
    assert_int_equal(info.kind, CODEC_LZ4);
    assert_int_equal(info.orig_len, 4006);
}

static void test_incr_family(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "incr cnt", ":1\r\n");
    EXPECT(f, "incrby cnt 10", ":11\r\n");
    EXPECT(f, "decr cnt", ":10\r\n");
    EXPECT(f, "decrby cnt 5", ":5\r\n");
    assert_int_equal(store_entry_enc(lookup(f, "cnt")), STORE_ENC_INT);
    EXPECT(f, "incrby cnt abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "incrby cnt 9223372036854775807", "-ERR increment or decrement would overflow\r\n");
    EXPECT(f, "decrby cnt -9223372036854775808", "-ERR decrement would overflow\r\n");
    EXPECT(f, "decrby cnt 9223372036854775807", ":-9223372036854775802\r\n");
    EXPECT(f, "set big 9223372036854775807", "+OK\r\n");
    EXPECT(f, "incr big", "-ERR increment or decrement would overflow\r\n");
    EXPECT(f, "set small -9223372036854775808", "+OK\r\n");
    EXPECT(f, "decr small", "-ERR increment or decrement would overflow\r\n");
    static const char *const not_int[] = {"x", "01", "+1", "-0", "1.5", "9223372036854775808",
                                          "123456789012345678901"};
    for (size_t i = 0; i < sizeof(not_int) / sizeof(not_int[0]); i++) {
        char line[64];
        snprintf(line, sizeof(line), "set s %s", not_int[i]);
        EXPECT(f, line, "+OK\r\n");
        EXPECT(f, "incr s", "-ERR value is not an integer or out of range\r\n");
    }
    set_pattern(f, "long", 300);
    EXPECT(f, "incr long", "-ERR value is not an integer or out of range\r\n");
    /* The TTL survives. */
    EXPECT(f, "set t 5 ex 100", "+OK\r\n");
    EXPECT(f, "incr t", ":6\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "t")), T0_MS + 100000);
}

static void test_incrbyfloat(void **state)
{
    struct fx *f = *state;
    struct resp_slice argv[3] = {{(const uint8_t *)"incrbyfloat", 11},
                                 {(const uint8_t *)"f", 1},
                                 {(const uint8_t *)"1\0", 2}};

    EXPECT(f, "set f 1.5", "+OK\r\n");
    EXPECT(f, "incrbyfloat f 1.5", "$1\r\n3\r\n");
    EXPECT(f, "incrbyfloat f abc", "-ERR value is not a valid float\r\n");
    EXPECT(f, "incrbyfloat f inf", "-ERR increment would produce NaN or Infinity\r\n");
    EXPECT(f, "incrbyfloat f nan", "-ERR value is not a valid float\r\n");
    EXPECT(f, "incrbyfloat f 1e-20", "$1\r\n3\r\n");
    assert_string_equal(run_argv(f, argv, 3), "-ERR value is not a valid float\r\n");
    EXPECT(f, "set g 1.1", "+OK\r\n");
    EXPECT(f, "incrbyfloat g 2.2", "$3\r\n3.3\r\n");
    EXPECT(f, "incrbyfloat new 5.0e3", "$4\r\n5000\r\n");
    EXPECT(f, "incrbyfloat n2 -1.5e-10", "$14\r\n-0.00000000015\r\n");
    EXPECT(f, "set h 10.5 ex 100", "+OK\r\n");
    EXPECT(f, "incrbyfloat h -0.5", "$2\r\n10\r\n");
    assert_int_equal(store_entry_expire(lookup(f, "h")), T0_MS + 100000);
    EXPECT(f, "set inff inf", "+OK\r\n");
    EXPECT(f, "incrbyfloat inff 1", "-ERR increment would produce NaN or Infinity\r\n");
}

static void test_lcs(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "set l1 ohmytext", "+OK\r\n");
    EXPECT(f, "set l2 mynewtext", "+OK\r\n");
    EXPECT(f, "lcs l1 l2", "$6\r\nmytext\r\n");
    EXPECT(f, "lcs l1 l2 len", ":6\r\n");
    EXPECT(f, "lcs l1 l2 idx",
           "*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
           "*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n");
    EXPECT(f, "lcs l1 l2 idx minmatchlen 4 withmatchlen",
           "*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
           "$3\r\nlen\r\n:6\r\n");
    EXPECT(f, "lcs l1 l2 len idx",
           "-ERR If you want both the length and indexes, please just use IDX.\r\n");
    EXPECT(f, "lcs l1 l2 minmatchlen", "-ERR syntax error\r\n");
    EXPECT(f, "lcs l1 l2 minmatchlen abc", "-ERR value is not an integer or out of range\r\n");
    EXPECT(f, "lcs l1 l2 foo", "-ERR syntax error\r\n");
    EXPECT(f, "lcs l1 nokey", "$0\r\n\r\n");
    EXPECT(f, "lcs nokey nokey2 len", ":0\r\n");
    EXPECT(f, "set i 4567", "+OK\r\n");
    EXPECT(f, "lcs i i idx withmatchlen",
           "*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:0\r\n:3\r\n*2\r\n:0\r\n:3\r\n:4\r\n"
           "$3\r\nlen\r\n:4\r\n");
    f->out.proto = 3;
    f->cl.resp = 3;
    EXPECT(f, "lcs l1 nokey idx", "%2\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n");
    /* The table is bounded by proto-max-bulk-len: (alen+1)*(blen+1)*4 bytes. */
    f->srv.settings.proto_max_bulk_len = 2 * 1024 * 1024;
    set_pattern(f, "x", 723); /* 724 * 724 * 4 = 2096704: fits */
    EXPECT(f, "lcs x x len", ":723\r\n");
    set_pattern(f, "x", 724); /* 725 * 725 * 4 = 2102500: does not */
    EXPECT(f, "lcs x x len",
           "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n");
}

/* A value that fails its checksum is never returned nor rewritten, and counts once. */
static void test_corrupt_values(void **state)
{
    struct fx *f = *state;
    static const char *const cmds[] = {"get z",         "getdel z",      "getex z persist",
                                       "set z x get",   "append z x",    "setrange z 0 x",
                                       "getrange z 0 3", "incrbyfloat z 1", "lcs z z"};
    uint8_t *stored;
    size_t n;

    set_pattern(f, "z", 1000);
    stored = store_entry_val_mut(lookup(f, "z"), &n);
    codec_value_corrupt(stored, n);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        uint64_t before = f->srv.stats.corrupt_values;
        run(f, cmds[i]);
        assert_true(strncmp(f->reply, "-CORRUPT ", 9) == 0);
        assert_int_equal(f->srv.stats.corrupt_values, before + 1);
        assert_non_null(lookup(f, "z"));
    }
    run(f, "mget z nokey");
    assert_true(strncmp(f->reply, "*2\r\n-CORRUPT ", 13) == 0);
    EXPECT(f, "set z fresh", "+OK\r\n");
    EXPECT(f, "get z", "$5\r\nfresh\r\n");
}

static void test_keyspace_stats(void **state)
{
    struct fx *f = *state;

    run(f, "set a 1");
    run(f, "get a");
    run(f, "get b");
    run(f, "mget a b c");
    run(f, "set a 2 get");
    run(f, "incr a");
    run(f, "append a 1");
    run(f, "strlen zz");
    assert_int_equal(f->srv.stats.keyspace_hits, 3);
    assert_int_equal(f->srv.stats.keyspace_misses, 4);
}

/* Warm edits of a compressed value do not touch the allocator (scratch is reused). */
static void test_no_alloc_when_warm(void **state)
{
    struct fx *f = *state;
    size_t before;

    set_pattern(f, "z", 3000);
    run(f, "append z abc");
    run(f, "getrange z 0 -1");
    run(f, "setrange z 10 abc");
    before = f->n_alloc;
    for (int i = 0; i < 50; i++) {
        run(f, "setrange z 10 xyz");
        run(f, "getrange z 100 2000");
        run(f, "get z");
        run(f, "incr n");
    }
    assert_int_equal(f->n_alloc, before);
}

/* SETBIT/GETBIT, replies as redis-server 7.0.15: growth with zero bytes, the old bit, the
 * integer form of an INCR value, Redis's two error texts, a compressed value edited. */
static void test_setbit_getbit(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "setbit b 1 1", ":0\r\n");
    EXPECT(f, "get b", "$1\r\n@\r\n");
    EXPECT(f, "setbit b 1 1", ":1\r\n");
    EXPECT(f, "setbit b 2 1", ":0\r\n");
    EXPECT(f, "get b", "$1\r\n`\r\n");
    EXPECT(f, "setbit b 1 0", ":1\r\n");
    EXPECT(f, "getbit b 2", ":1\r\n");
    EXPECT(f, "getbit b 1", ":0\r\n");
    EXPECT(f, "getbit b 100000", ":0\r\n");
    EXPECT(f, "getbit nob 0", ":0\r\n");
    assert_null(lookup(f, "nob"));
    EXPECT(f, "setbit b 23 1", ":0\r\n");
    EXPECT(f, "strlen b", ":3\r\n");
    run(f, "get b");
    assert_memory_equal(f->reply, "$3\r\n \0\x01\r\n", 9);
    EXPECT(f, "incr n", ":1\r\n"); /* "1" is 0x31 = 00110001 */
    EXPECT(f, "getbit n 2", ":1\r\n");
    EXPECT(f, "setbit n 6 1", ":0\r\n");
    EXPECT(f, "get n", "$1\r\n3\r\n");
    EXPECT(f, "setbit b -1 1", "-ERR bit offset is not an integer or out of range\r\n");
    EXPECT(f, "setbit b 4294967296 1", "-ERR bit offset is not an integer or out of range\r\n");
    EXPECT(f, "getbit b x", "-ERR bit offset is not an integer or out of range\r\n");
    EXPECT(f, "setbit b 0 2", "-ERR bit is not an integer or out of range\r\n");
    EXPECT(f, "setbit b 0 -1", "-ERR bit is not an integer or out of range\r\n");
    EXPECT(f, "setbit b 0 x", "-ERR bit is not an integer or out of range\r\n");
    run(f, "set big aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    EXPECT(f, "setbit big 1030 1", ":0\r\n"); /* byte 128: 'a' 01100001 -> 01100011 'c' */
    EXPECT(f, "getrange big 127 129", "$3\r\naca\r\n");
    EXPECT(f, "setbit big 1343 1", ":0\r\n"); /* byte 167 of a 166-byte value */
    run(f, "getrange big 164 170");
    assert_int_equal(f->reply_len, 4 + 4 + 2);
    assert_memory_equal(f->reply, "$4\r\naa\0\x01\r\n", 10);
    EXPECT(f, "getbit big 1030", ":1\r\n");
}

static void test_table_rows(void **state)
{
    const struct cmd_def *d;
    size_t n = 0;

    (void)state;
    for (d = cmd_string_defs; d->name != NULL; d++) {
        assert_non_null(d->proc);
        assert_non_null(d->summary);
        assert_string_equal(d->group, strcmp(d->name + 3, "bit") == 0 ? "bitmap" : "string");
        assert_int_equal(d->first_key, 1);
        assert_true((d->flags & CMD_WRITE) != 0 || (d->flags & CMD_READONLY) != 0);
        n++;
    }
    assert_int_equal(n, 24);
    d = find_def("get");
    assert_int_equal(d->arity, 2);
    assert_int_equal(d->flags, CMD_READONLY | CMD_FAST);
    assert_string_equal(d->acl, "@read @string @fast");
    d = find_def("mset");
    assert_int_equal(d->arity, -3);
    assert_int_equal(d->last_key, -1);
    assert_int_equal(d->key_step, 2);
    d = find_def("lcs");
    assert_int_equal(d->last_key, 2);
    assert_string_equal(d->since, "7.0.0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_set_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_option_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_nx_xx_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_getdel_getex, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mget_mset_msetnx, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_strlen_getrange, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setrange, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compressed_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_setbit_getbit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_incr_family, setup, teardown),
        cmocka_unit_test_setup_teardown(test_incrbyfloat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lcs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyspace_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_alloc_when_warm, setup, teardown),
        cmocka_unit_test(test_table_rows),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
