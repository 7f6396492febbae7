/*
 * test_cmd_server: cmocka tests of the server command family (INFO, CONFIG, COMMAND, TIME,
 * LASTSAVE, SHUTDOWN, DEBUG: src/cmd/admin/: cmd_server.c, cmd_info.c, cmd_command.c, cmd_debug.c).
 *
 * Commands go through cmd_dispatch over the real table, a real shard and codec, and fake
 * hooks (fixed clock, a three-option config, recorded shutdown), so the raw RESP replies can
 * be compared with what Redis 7.0.15 answers.
 */
#include "cmd/core/cmd.h"

#include "cmd/core/cmd_util.h"
#include "terse/status.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/core/cmd_glob.h"
#include "cmd/core/cmd_table.h"

#define T0_MS 1700000000123LL /* the fixture's clock */

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    char maxmemory[32];      /* the fake config's one settable option */
    unsigned shutdown_flags; /* last flags given to the shutdown hook */
    int n_shutdown, n_resetstat;
    const char *config_file;
    char reply[65536]; /* last reply, NUL-terminated */
};

/* ---- fake hooks -------------------------------------------------------------------------- */

static int64_t fake_now_ms(void *srv)
{
    (void)srv;
    return T0_MS;
}

static uint64_t fake_now_us(void *srv)
{
    (void)srv;
    return 1000;
}

static void fake_sysinfo(void *srv, struct cmd_sysinfo *out)
{
    struct fx *f = srv;

    memset(out, 0, sizeof(*out));
    out->used_memory = 1024 * 1024;
    out->used_memory_peak = 2 * 1024 * 1024;
    out->used_memory_rss = 3 * 1024 * 1024;
    out->connected_clients = 1;
    out->tcp_port = 6379;
    out->pid = 42;
    out->config_file = f->config_file;
    out->executable = "/usr/bin/terse-server";
}

static void fake_config_get(void *srv, const char *pattern,
                            void (*emit)(void *arg, const char *name, const char *value),
                            void *arg)
{
    struct fx *f = srv;
    const char *names[] = {"maxmemory", "maxclients", "port"};
    const char *values[] = {f->maxmemory, "10000", "6379"};

    for (size_t i = 0; i < 3; i++) {
        if (cmd_glob_match((const uint8_t *)pattern, strlen(pattern),
                           (const uint8_t *)names[i], strlen(names[i]), 1)) {
            emit(arg, names[i], values[i]);
        }
    }
}

static int fake_config_set(void *srv, const char *const *names, const char *const *values,
                           size_t n, char *errbuf, size_t errbuf_cap)
{
    struct fx *f = srv;

    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(names[i], "maxmemory") != 0) {
            snprintf(errbuf, errbuf_cap,
                     "ERR Unknown option or number of arguments for CONFIG SET - '%s'", names[i]);
            return -1;
        }
    }
    snprintf(f->maxmemory, sizeof(f->maxmemory), "%s", values[n - 1]);
    return 0;
}

static void fake_resetstat(void *srv)
{
    ((struct fx *)srv)->n_resetstat++;
}

static int fake_shutdown(void *srv, unsigned flags)
{
    struct fx *f = srv;

    f->shutdown_flags = flags;
    f->n_shutdown++;
    return 0;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct cmd_hooks *h;

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.settings.maxmemory_policy = "noeviction";
    f->srv.settings.active_expire = 1;
    f->srv.start_ms = T0_MS - 5000;
    snprintf(f->maxmemory, sizeof(f->maxmemory), "0");
    f->config_file = "";
    h = &f->srv.hooks;
    h->srv = f;
    h->now_ms = fake_now_ms;
    h->now_us = fake_now_us;
    h->sysinfo = fake_sysinfo;
    h->config_get = fake_config_get;
    h->config_set = fake_config_set;
    h->config_resetstat = fake_resetstat;
    h->shutdown = fake_shutdown;
    cmd_fixture_init(&f->srv, &f->cl, &f->out);
    snprintf(f->cl.addr, sizeof(f->cl.addr), "127.0.0.1:50000");
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

/* Runs one command given as space-separated words; the reply is left in f->reply. */
static const char *run(struct fx *f, const char *line)
{
    return cmd_fixture_dispatch(&f->srv, &f->cl, &f->out, line, f->reply, sizeof(f->reply));
}

#define assert_reply(f, line, want) assert_string_equal(run((f), (line)), (want))

/* ---- INFO -------------------------------------------------------------------------------- */

static void test_info_keyspace(void **state)
{
    struct fx *f = *state;

    assert_reply(f, "INFO keyspace", "$12\r\n# Keyspace\r\n\r\n");
    assert_reply(f, "SET a 1", "+OK\r\n");
    assert_reply(f, "SET b hello EX 100", "+OK\r\n");
    assert_reply(f, "INFO KEYSPACE",
                 "$44\r\n# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\n\r\n");
}

static void test_info_sections(void **state)
{
    struct fx *f = *state;

    assert_reply(f, "INFO nosuch", "$0\r\n\r\n");
    assert_reply(f, "INFO modules errorstats cluster",
                 "$59\r\n# Modules\r\n\r\n# Errorstats\r\n\r\n# Cluster\r\n"
                 "cluster_enabled:0\r\n\r\n");
    /* Redis's order, whatever the order asked for. */
    run(f, "INFO keyspace server");
    assert_true(strstr(f->reply, "# Server\r\n") < strstr(f->reply, "\r\n\r\n# Keyspace\r\n"));
    run(f, "INFO");
    assert_non_null(strstr(f->reply, "redis_version:7.0.15\r\n"));
    assert_non_null(strstr(f->reply, "uptime_in_seconds:5\r\n"));
    assert_non_null(strstr(f->reply, "used_memory_human:1.00M\r\n"));
    assert_non_null(strstr(f->reply, "# Terse\r\n"));
    assert_null(strstr(f->reply, "# Commandstats"));
    run(f, "INFO everything");
    /* the INFO calls above, counted; this one is counted when it ends */
    assert_non_null(strstr(f->reply, "# Commandstats\r\ncmdstat_info:calls=4,usec="));
    assert_true(strstr(f->reply, "# Commandstats") < strstr(f->reply, "# Errorstats"));
    f->cl.resp = 3;
    assert_reply(f, "INFO nosuch", "=4\r\ntxt:\r\n");
}

static void test_info_run_id(void **state)
{
    struct fx *f = *state;
    const char *p;

    run(f, "INFO server");
    p = strstr(f->reply, "run_id:");
    assert_non_null(p);
    assert_int_equal(strspn(p + 7, "0123456789abcdef"), 40);
    memcpy(f->srv.settings.run_id, "0123456789012345678901234567890123456789", 41);
    run(f, "INFO server");
    assert_non_null(strstr(f->reply, "run_id:0123456789012345678901234567890123456789\r\n"));
}

/* ---- CONFIG ------------------------------------------------------------------------------ */

static void test_config(void **state)
{
    struct fx *f = *state;

    assert_reply(f, "CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
    /* Each option once, however many patterns match it. */
    assert_reply(f, "CONFIG GET max* MAXMEMORY",
                 "*4\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
    assert_reply(f, "CONFIG GET nosuch", "*0\r\n");
    assert_reply(f, "CONFIG SET maxmemory 10 port", "-ERR syntax error\r\n");
    assert_reply(f, "CONFIG SET maxmemory 100", "+OK\r\n");
    assert_reply(f, "CONFIG GET maxmemory", "*2\r\n$9\r\nmaxmemory\r\n$3\r\n100\r\n");
    assert_reply(f, "CONFIG SET nosuch 1",
                 "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n");
    assert_reply(f, "CONFIG REWRITE", "-ERR The server is running without a config file\r\n");
    f->srv.stats.keyspace_hits = 7;
    assert_reply(f, "CONFIG RESETSTAT", "+OK\r\n");
    assert_int_equal(f->srv.stats.keyspace_hits, 0);
    assert_int_equal(f->n_resetstat, 1);
    assert_reply(f, "CONFIG HELP x",
                 "-ERR wrong number of arguments for 'config|help' command\r\n");
    assert_reply(f, "CONFIG nosuch", "-ERR unknown subcommand 'nosuch'. Try CONFIG HELP.\r\n");
    f->cl.resp = 3;
    assert_reply(f, "CONFIG GET port", "%1\r\n$4\r\nport\r\n$4\r\n6379\r\n");
}

/* ---- COMMAND ----------------------------------------------------------------------------- */

static void test_command(void **state)
{
    struct fx *f = *state;
    char want[64];

    snprintf(want, sizeof(want), ":%zu\r\n", cmd_table_count(&f->srv));
    assert_reply(f, "COMMAND COUNT", want);
    assert_reply(f, "COMMAND INFO nosuch", "*1\r\n$-1\r\n");
    assert_reply(f, "COMMAND INFO time",
                 "*1\r\n*10\r\n$4\r\ntime\r\n:1\r\n*3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0"
                 "\r\n:0\r\n*1\r\n+@fast\r\n*1\r\n$23\r\nnondeterministic_output\r\n*0\r\n*0\r\n");
    assert_reply(f, "COMMAND INFO config|get",
                 "*1\r\n*10\r\n$10\r\nconfig|get\r\n:-3\r\n*4\r\n+admin\r\n+noscript\r\n+loading"
                 "\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n"
                 "*0\r\n*0\r\n");
    assert_reply(f, "COMMAND DOCS nosuch", "*0\r\n");
    assert_reply(f, "COMMAND DOCS time",
                 "*2\r\n$4\r\ntime\r\n*8\r\n$7\r\nsummary\r\n$30\r\nReturn the current server "
                 "time\r\n$5\r\nsince\r\n$5\r\n2.6.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n"
                 "$10\r\ncomplexity\r\n$4\r\nO(1)\r\n");
    assert_reply(f, "COMMAND LIST FILTERBY pattern config|*",
                 "*5\r\n$10\r\nconfig|get\r\n$11\r\nconfig|help\r\n$16\r\nconfig|resetstat\r\n"
                 "$14\r\nconfig|rewrite\r\n$10\r\nconfig|set\r\n");
    assert_reply(f, "COMMAND LIST FILTERBY module x", "*0\r\n");
    assert_reply(f, "COMMAND LIST FILTERBY bad x", "-ERR syntax error\r\n");
    assert_reply(f, "COMMAND LIST x", "-ERR syntax error\r\n");
    assert_reply(f, "COMMAND nosuch", "-ERR unknown subcommand 'nosuch'. Try COMMAND HELP.\r\n");
}

static void test_command_getkeys(void **state)
{
    struct fx *f = *state;

    assert_reply(f, "COMMAND GETKEYS get a", "*1\r\n$1\r\na\r\n");
    assert_reply(f, "COMMAND GETKEYS mset a 1 b 2", "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    assert_reply(f, "COMMAND GETKEYS nosuch a", "-ERR Invalid command specified\r\n");
    assert_reply(f, "COMMAND GETKEYS config nosuch", "-ERR Invalid command specified\r\n");
    assert_reply(f, "COMMAND GETKEYS config get x", "-ERR The command has no key arguments\r\n");
    assert_reply(f, "COMMAND GETKEYS get a b",
                 "-ERR Invalid number of arguments specified for command\r\n");
    assert_reply(f, "COMMAND GETKEYS ping",
                 "-ERR wrong number of arguments for 'command|getkeys' command\r\n");
}

/* ---- TIME, LASTSAVE, SHUTDOWN ------------------------------------------------------------ */

static void test_time_lastsave_shutdown(void **state)
{
    struct fx *f = *state;

    assert_reply(f, "TIME", "*2\r\n$10\r\n1700000000\r\n$6\r\n123000\r\n");
    assert_reply(f, "LASTSAVE", ":1699999995\r\n");
    assert_reply(f, "SHUTDOWN ABORT", "-ERR No shutdown in progress.\r\n");
    assert_reply(f, "SHUTDOWN abort now", "-ERR syntax error\r\n");
    assert_reply(f, "SHUTDOWN NOSAVE SAVE", "-ERR syntax error\r\n");
    assert_reply(f, "SHUTDOWN bad", "-ERR syntax error\r\n");
    assert_int_equal(f->n_shutdown, 0);
    assert_reply(f, "SHUTDOWN NOSAVE NOW", "");
    assert_int_equal(f->n_shutdown, 1);
    assert_int_equal(f->shutdown_flags, CMD_SHUTDOWN_NOSAVE | CMD_SHUTDOWN_NOW);
}

/* ---- -MISCONF ----------------------------------------------------------------------------- */

/* settings.misconf as server/ sets it: the AOF's reason names its errno, the snapshot's is
 * Redis's fixed text and comes first; writes and PING are refused, reads are not. */
static void test_misconf(void **state)
{
    struct fx *f = *state;

    f->srv.settings.misconf = CMD_MISCONF_AOF;
    f->srv.settings.misconf_errno = ENOSPC;
    assert_reply(f, "SET a 1", "-MISCONF Errors writing to the AOF file: No space left on "
                               "device\r\n");
    assert_reply(f, "PING", "-MISCONF Errors writing to the AOF file: No space left on "
                            "device\r\n");
    assert_reply(f, "GET a", "$-1\r\n");
    f->srv.settings.misconf_errno = EIO;
    assert_reply(f, "DEL a", "-MISCONF Errors writing to the AOF file: Input/output error\r\n");
    f->srv.settings.misconf = CMD_MISCONF_RDB;
    assert_reply(f, "SET a 1", "-" CMD_ERR_MISCONF "\r\n");
    f->srv.settings.misconf = CMD_MISCONF_NONE;
    assert_reply(f, "SET a 1", "+OK\r\n");
    assert_reply(f, "PING", "+PONG\r\n");
}

/* ---- DEBUG ------------------------------------------------------------------------------- */

#define DEBUG_DISABLED                                                                           \
    "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "  \
    "you can run it from a local connection, otherwise you need to set this option in the "     \
    "configuration file, and then restart the server.\r\n"

static void test_debug_access(void **state)
{
    struct fx *f = *state;

    f->srv.settings.enable_debug_command = 0;
    assert_reply(f, "DEBUG SLEEP 0", DEBUG_DISABLED);
    f->srv.settings.enable_debug_command = 2;
    assert_reply(f, "DEBUG SLEEP 0", "+OK\r\n");
    snprintf(f->cl.addr, sizeof(f->cl.addr), "::1:6000");
    assert_reply(f, "DEBUG SLEEP 0", "+OK\r\n");
    snprintf(f->cl.addr, sizeof(f->cl.addr), "10.0.0.1:6000");
    assert_reply(f, "DEBUG SLEEP 0", DEBUG_DISABLED);
    snprintf(f->cl.addr, sizeof(f->cl.addr), "127.0.0.10:6000");
    assert_reply(f, "DEBUG SLEEP 0", DEBUG_DISABLED);
    f->srv.settings.enable_debug_command = 1;
    assert_reply(f, "DEBUG SLEEP 0", "+OK\r\n");
    assert_reply(f, "DEBUG nosuch",
                 "-ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG "
                 "HELP.\r\n");
    assert_reply(f, "DEBUG SLEEP",
                 "-ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG "
                 "HELP.\r\n");
    assert_reply(f, "DEBUG ERROR -WRONG", "--WRONG\r\n");
}

static void test_debug_values(void **state)
{
    struct fx *f = *state;

    f->srv.settings.enable_debug_command = 1;
    assert_reply(f, "SET k hello", "+OK\r\n");
    assert_reply(f, "SET i 5", "+OK\r\n");
    run(f, "DEBUG OBJECT i");
    assert_non_null(strstr(f->reply, " refcount:2147483647 encoding:int serializedlength:2 "));
    run(f, "DEBUG OBJECT k");
    assert_non_null(strstr(f->reply, " refcount:1 encoding:embstr serializedlength:6 "));
    assert_reply(f, "DEBUG OBJECT nosuch", "-ERR no such key\r\n");
    assert_reply(f, "DEBUG CORRUPT-VALUE nosuch", "-ERR no such key\r\n");
    run(f, "DEBUG CORRUPT-VALUE i");
    assert_true(strncmp(f->reply, "-ERR ", 5) == 0);
    assert_reply(f, "DEBUG CORRUPT-VALUE k", "+OK\r\n");
    run(f, "GET k");
    assert_true(strncmp(f->reply, "-CORRUPT ", 9) == 0);
    assert_int_equal(f->srv.stats.corrupt_values, 1);
    run(f, "INFO terse");
    assert_non_null(strstr(f->reply, "corrupt_values:1\r\n"));
    assert_reply(f, "DEBUG SET-ACTIVE-EXPIRE 0", "+OK\r\n");
    assert_int_equal(f->srv.settings.active_expire, 0);
    assert_reply(f, "DEBUG SET-ACTIVE-EXPIRE 1", "+OK\r\n");
    assert_int_equal(f->srv.settings.active_expire, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_info_keyspace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_info_sections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_info_run_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_getkeys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_lastsave_shutdown, setup, teardown),
        cmocka_unit_test_setup_teardown(test_misconf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_debug_access, setup, teardown),
        cmocka_unit_test_setup_teardown(test_debug_values, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
