/*
 * test_cmd_feed: cmocka tests of the write feed (src/cmd/mech/cmd_feed.c), what replicas and the
 * AOF receive. Commands run through cmd_dispatch with a fixed clock; a fake feed hook keeps
 * the bytes, which are compared with the stream Redis 7.0.15 propagates for the same sequence
 * (its server.c call() and the rewrites of t_string.c, expire.c, t_list.c, t_set.c, t_zset.c,
 * t_stream.c): SELECT before the first op of a db, MULTI/EXEC around a unit of several ops,
 * relative times as absolute ones, blocking and random commands as what they did.
 */
#include "cmd/core/cmd.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/mech/cmd_feed.h"

#define T0_MS 1700000000000LL

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    int64_t now_ms;
    char fed[8192];  /* what the feed hook gave replicas, as "op | op | ..." with args
                        space-separated */
    size_t fed_len;
    char aof[8192];  /* what it gave the AOF, the same way */
    size_t aof_len;
    int lost;
    char reply[8192];
};

static int64_t fake_now_ms(void *srv)
{
    return ((struct fx *)srv)->now_ms;
}

static uint64_t fake_now_us(void *srv)
{
    return (uint64_t)((struct fx *)srv)->now_ms * 1000u;
}

/* Parses the RESP arrays of bulk strings the feed produced into the readable form. */
static void fake_feed(void *srv, const uint8_t *p, size_t len, unsigned to)
{
    struct fx *f = srv;
    const char *s = (const char *)p, *end = s + len;

    if (p == NULL) {
        f->lost++;
        return;
    }
    if (to == CMD_FEED_TO_AOF) {
        /* the unit again without the replicas-only ops */
        memcpy(f->aof + f->aof_len, p, len < sizeof(f->aof) - f->aof_len ? len : 0);
        f->aof_len += len < sizeof(f->aof) - f->aof_len ? len : 0;
        return;
    }
    assert_true(to & CMD_FEED_TO_REPL);
    if (to & CMD_FEED_TO_AOF) {
        memcpy(f->aof + f->aof_len, p, len < sizeof(f->aof) - f->aof_len ? len : 0);
        f->aof_len += len < sizeof(f->aof) - f->aof_len ? len : 0;
    }
    while (s < end) {
        char *next;
        long n = strtol(s + 1, &next, 10);
        s = next;
        assert_true(*s == '\r');
        s += 2;
        if (f->fed_len > 0) {
            f->fed_len += (size_t)snprintf(f->fed + f->fed_len, sizeof(f->fed) - f->fed_len,
                                           " | ");
        }
        for (long i = 0; i < n; i++) {
            long blen;
            assert_int_equal(*s, '$');
            blen = strtol(s + 1, &next, 10);
            s = next + 2;
            f->fed_len += (size_t)snprintf(f->fed + f->fed_len, sizeof(f->fed) - f->fed_len,
                                           "%s%.*s", i > 0 ? " " : "", (int)blen, s);
            s += blen + 2;
        }
    }
    assert_true(s == end);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct cmd_hooks *h;

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.settings.maxmemory_policy = "noeviction";
    f->now_ms = T0_MS;
    h = &f->srv.hooks;
    h->srv = f;
    h->now_ms = fake_now_ms;
    h->now_us = fake_now_us;
    h->feed = fake_feed;
    cmd_fixture_init(&f->srv, &f->cl, &f->out);
    cmd_feed_enable(&f->srv, 1);
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

static const char *run(struct fx *f, const char *line)
{
    return cmd_fixture_dispatch(&f->srv, &f->cl, &f->out, line, f->reply, sizeof(f->reply));
}

/* Runs the lines, then asserts what was fed during them. */
static void expect_fed(struct fx *f, const char *const *lines, size_t n, const char *want)
{
    f->fed_len = 0;
    f->fed[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        (void)run(f, lines[i]);
    }
    assert_string_equal(f->fed, want);
}

#define EXPECT(f, want, ...)                                                                     \
    do {                                                                                         \
        const char *const l_[] = {__VA_ARGS__};                                                  \
        expect_fed((f), l_, sizeof(l_) / sizeof(l_[0]), (want));                                 \
    } while (0)

static void test_plain_writes_select_first(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | set k v | del k", "set k v", "get k", "del k");
    EXPECT(f, "", "del k", "get k", "set k v2 xx"); /* nothing changed: nothing fed */
    EXPECT(f, "SELECT 3 | set k v | SELECT 0 | set k w", "select 3", "set k v", "select 0",
           "set k w");
}

static void test_relative_times_become_absolute(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | SET k v PXAT 1700000100000", "set k v ex 100");
    EXPECT(f, "SET k v PXAT 1700000000500", "psetex k 500 v");
    EXPECT(f, "SET k v PXAT 1700000010000", "setex k 10 v");
    EXPECT(f, "PEXPIREAT k 1700000020000", "expire k 20");
    EXPECT(f, "PEXPIREAT k 1700000030000 GT", "pexpire k 30000 GT");
    EXPECT(f, "", "expire k 10 GT"); /* refused by GT: nothing */
    EXPECT(f, "PEXPIREAT k 1700000040000", "getex k ex 40");
    EXPECT(f, "PERSIST k", "getex k persist");
    EXPECT(f, "", "getex k persist", "getex k");
    EXPECT(f, "DEL k", "expire k -1");
    EXPECT(f, "set k v | DEL k", "set k v", "getdel k");
    EXPECT(f, "set k v | DEL k", "set k v", "getex k pxat 1");
}

static void test_set_get_and_floats(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | set k v | set k w", "set k v get", "set k w GET get");
    EXPECT(f, "SET k x", "getset k x");
    EXPECT(f, "SET n 1.5 KEEPTTL | SET n 3 KEEPTTL", "incrbyfloat n 1.5", "incrbyfloat n 1.5");
    EXPECT(f, "HSET h f 2.5", "hincrbyfloat h f 2.5");
}

static void test_transactions_wrap_several(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | set a 1", "multi", "set a 1", "get a", "exec");
    EXPECT(f, "MULTI | set a 2 | set b 2 | EXEC", "multi", "set a 2", "set b 2", "exec");
    EXPECT(f, "", "multi", "get a", "exec");
    EXPECT(f, "MULTI | set a 3 | SELECT 1 | set b 3 | EXEC", "multi", "set a 3", "select 1",
           "set b 3", "exec");
}

static void test_pops_and_random(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | rpush l a b c | LPOP l 2 | RPOP l", "rpush l a b c",
           "lmpop 1 l left count 2", "brpop l 0");
    EXPECT(f, "sadd s x | DEL s", "sadd s x", "spop s 5");
    EXPECT(f, "sadd s x | SREM s x", "sadd s x", "spop s");
    EXPECT(f, "zadd z 1 a 2 b | ZPOPMAX z 1 | ZPOPMIN z", "zadd z 1 a 2 b",
           "zmpop 1 z max", "bzpopmin z 0");
    EXPECT(f, "rpush l x | RPOPLPUSH l m", "rpush l x", "brpoplpush l m 0");
}

static void test_expired_keys_and_flush(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | SET k v PXAT 1700000000010", "set k v px 10");
    f->now_ms += 20;
    EXPECT(f, "DEL k", "get k");
    EXPECT(f, "flushall", "flushall"); /* fed even with nothing to flush */
    EXPECT(f, "swapdb 0 1", "swapdb 0 1");
    EXPECT(f, "publish ch m", "publish ch m");
    assert_int_equal(f->lost, 0);
}

/* PUBLISH goes to replicas, not to the AOF (Redis's PROPAGATE_REPL), also inside EXEC. */
static void test_publish_not_in_aof(void **state)
{
    struct fx *f = *state;
    static const char want[] = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                               "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n"
                               "*1\r\n$4\r\nEXEC\r\n";

    EXPECT(f, "SELECT 0 | MULTI | set k v | publish ch m | EXEC", "multi", "set k v",
           "publish ch m", "exec");
    assert_int_equal(f->aof_len, sizeof(want) - 1);
    assert_memory_equal(f->aof, want, sizeof(want) - 1);
    f->aof_len = 0;
    EXPECT(f, "publish ch m", "publish ch m");
    assert_int_equal(f->aof_len, 0);
}

static void test_xadd_gets_its_id(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | xadd st 1700000000000-0 a 1 | xadd st 1700000000000-1 a 2",
           "xadd st * a 1", "xadd st * a 2");
    /* ~ trims only whole nodes (100 entries): nothing went, and the replica is told so. */
    EXPECT(f, "xadd st maxlen = 3 1700000000001-0 a 3", "xadd st maxlen ~ 1 1700000000001-* a 3");
}

static void test_consumer_groups_as_xclaim(void **state)
{
    struct fx *f = *state;

    EXPECT(f, "SELECT 0 | xadd st 1-1 a 1 | xadd st 1-2 a 2 | xgroup create st g 0",
           "xadd st 1-1 a 1", "xadd st 1-2 a 2", "xgroup create st g 0");
    EXPECT(f,
           "MULTI | XCLAIM st g alice 0 1-1 TIME 1700000000000 RETRYCOUNT 1 FORCE JUSTID LASTID "
           "1-2 | XCLAIM st g alice 0 1-2 TIME 1700000000000 RETRYCOUNT 1 FORCE JUSTID LASTID "
           "1-2 | EXEC",
           "xreadgroup group g alice streams st >");
    EXPECT(f, "", "xreadgroup group g alice streams st 0"); /* history (count 2): not fed */
    f->now_ms += 1000;
    EXPECT(f,
           "XCLAIM st g bob 0 1-1 TIME 1700000001000 RETRYCOUNT 3 FORCE JUSTID LASTID 1-2",
           "xclaim st g bob 500 1-1");
    EXPECT(f, "xadd st 1-3 a 3 | MULTI | XGROUP CREATECONSUMER st g carol | XGROUP SETID st g "
              "1-3 ENTRIESREAD 3 | EXEC",
           "xadd st 1-3 a 3", "xreadgroup group g carol noack streams st >");
    EXPECT(f, "xdel st 1-2 | XCLAIM st g alice 0 1-2 TIME 1700000000000 RETRYCOUNT 2 FORCE "
              "JUSTID LASTID 1-3",
           "xdel st 1-2", "xautoclaim st g dave 0 1-2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plain_writes_select_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relative_times_become_absolute, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_get_and_floats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transactions_wrap_several, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pops_and_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expired_keys_and_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xadd_gets_its_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_publish_not_in_aof, setup, teardown),
        cmocka_unit_test_setup_teardown(test_consumer_groups_as_xclaim, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
