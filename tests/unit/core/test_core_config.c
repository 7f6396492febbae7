/*
 * test_core_config: cmocka tests of the server configuration (src/core/core_config.c).
 *
 * Defaults (the same strings as Debian's redis-server 7.0.15 CONFIG GET, except terse's own
 * choices for bind, dir and dbfilename); every option kind's parser with its limits at the
 * limit and one past; units; quoting; file errors with their line; the command line and its
 * precedence over the file; CONFIG SET's Redis 7.0 error texts, immutability, protection and
 * atomicity; CONFIG GET globs; OOM injection through core_mem.
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* ---- fixtures and helpers ---------------------------------------------------------------- */

struct fx {
    struct core_config c;
    char err[CORE_CONFIG_ERR_CAP];
    uint64_t used_before;
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);

    if (f == NULL) {
        return -1;
    }
    f->used_before = core_mem_used();
    if (core_config_init(&f->c) != TERSE_OK) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    core_config_deinit(&f->c);
    assert_int_equal(core_mem_used(), f->used_before);
    free(f);
    return 0;
}

static int load(struct fx *f, const char *text)
{
    f->err[0] = '\0';
    return core_config_load_string(&f->c, text, strlen(text), "t.conf", f->err, sizeof f->err);
}

static int set(struct fx *f, const char *name, const char *value)
{
    f->err[0] = '\0';
    return core_config_set(&f->c, name, value, f->err, sizeof f->err);
}

/* The CONFIG GET value of name, in a static-free per-fixture buffer. */
static const char *get(struct fx *f, const char *name)
{
    static char out[CORE_CONFIG_VALUE_CAP]; /* test-only scratch; tests do not run in parallel */
    size_t len;

    assert_int_equal(core_config_get_one(&f->c, name, out, sizeof out, &len), TERSE_OK);
    assert_int_equal(len, strlen(out));
    return out;
}

/* Loads "name value" and checks the outcome and, on success, the CONFIG GET text. */
static void check_value(struct fx *f, const char *name, const char *value, const char *shown)
{
    char line[512];

    (void)snprintf(line, sizeof line, "%s %s\n", name, value);
    if (shown == NULL) {
        assert_int_equal(load(f, line), TERSE_ECONFIG);
    } else {
        assert_int_equal(load(f, line), TERSE_OK);
        assert_string_equal(get(f, name), shown);
    }
}

static void check_reason(struct fx *f, const char *reason)
{
    const char *last = strrchr(f->err, '\n');

    assert_non_null(last);
    assert_string_equal(last + 1, reason);
}

/* ---- defaults ---------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    struct fx *f = *state;
    static const char *const want[][2] = {
        {"port", "6379"},
        {"bind", "127.0.0.1"},
        {"databases", "16"},
        {"requirepass", ""},
        {"maxclients", "10000"},
        {"timeout", "0"},
        {"tcp-keepalive", "300"},
        {"tcp-backlog", "511"},
        {"loglevel", "notice"},
        {"logfile", ""},
        {"enable-debug-command", "no"},
        {"proto-max-bulk-len", "536870912"},
        {"client-query-buffer-limit", "1073741824"},
        {"client-output-buffer-limit",
         "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
        {"maxmemory", "0"},
        {"maxmemory-policy", "noeviction"},
        {"maxmemory-samples", "5"},
        {"lfu-log-factor", "10"},
        {"lfu-decay-time", "1"},
        {"hz", "10"},
        {"dir", "./"},
        {"dbfilename", "dump.terse"},
        {"save", ""},
        {"daemonize", "no"},
        {"pidfile", ""},
        {"appendonly", "no"},
        {"protected-mode", "yes"},
        {"lazyfree-lazy-user-del", "no"},
        /* Redis 7.0's built-in 512, not the 128 of its sample redis.conf (and of Redis 7.2). */
        {"hash-max-listpack-entries", "512"},
        {"hash-max-listpack-value", "64"},
        {"hash-max-ziplist-entries", "512"},
        {"hash-max-ziplist-value", "64"},
    };

    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_string_equal(get(f, want[i][0]), want[i][1]);
    }
    assert_int_equal(f->c.port, 6379);
    assert_int_equal(f->c.bind.n_addr, 1);
    assert_int_equal(f->c.loglevel, CORE_LOGLEVEL_NOTICE);
    assert_int_equal(f->c.maxmemory_policy, CORE_POLICY_NOEVICTION);
    assert_true(f->c.protected_mode);
    assert_int_equal(f->c.client_output_buffer_limit.cls[CORE_CLIENT_REPLICA].hard_bytes,
                     256u * 1024 * 1024);
    assert_int_equal(f->c.save.n_point, 0);
}

static void test_deinit_twice(void **state)
{
    struct core_config c;

    (void)state;
    assert_int_equal(core_config_init(&c), TERSE_OK);
    core_config_deinit(&c);
    core_config_deinit(&c);
    core_config_deinit(NULL);
}

/* ---- kinds ------------------------------------------------------------------------------- */

static void test_bool(void **state)
{
    struct fx *f = *state;

    check_value(f, "protected-mode", "no", "no");
    check_value(f, "protected-mode", "YES", "yes");
    check_value(f, "protected-mode", "No", "no");
    check_value(f, "protected-mode", "1", NULL);
    check_reason(f, "argument must be 'yes' or 'no'");
    check_value(f, "protected-mode", "maybe", NULL);
    /* terse has no daemon mode nor AOF timestamps: "yes" is refused, not silently ignored. */
    check_value(f, "daemonize", "no", "no");
    check_value(f, "daemonize", "yes", NULL);
    assert_non_null(strstr(f->err, "not supported"));
    check_value(f, "aof-timestamp-enabled", "yes", NULL);
    check_value(f, "appendonly", "yes", "yes");
    check_value(f, "appendfsync", "always", "always");
    check_value(f, "appendfsync", "sometimes", NULL);
}

static void test_int_limits(void **state)
{
    struct fx *f = *state;

    check_value(f, "port", "0", "0");
    check_value(f, "port", "65535", "65535");
    check_value(f, "port", "65536", NULL);
    check_reason(f, "argument must be between 0 and 65535 inclusive");
    check_value(f, "port", "-1", NULL);
    check_reason(f, "argument must be between 0 and 65535 inclusive");
    /* Redis's string2ll: no '+', no leading zero, no blanks, no units, no overflow. */
    check_value(f, "port", "+5", NULL);
    check_reason(f, "argument couldn't be parsed into an integer");
    check_value(f, "port", "05", NULL);
    check_value(f, "port", "\" 5\"", NULL);
    check_value(f, "port", "1k", NULL);
    check_value(f, "port", "-0", NULL);
    check_value(f, "port", "9223372036854775808", NULL);
    check_reason(f, "argument couldn't be parsed into an integer");
    check_value(f, "maxclients", "4294967295", "4294967295");
    check_value(f, "maxclients", "4294967296", NULL);
    check_reason(f, "argument must be between 1 and 4294967295 inclusive");
    check_value(f, "maxclients", "0", NULL);
    check_value(f, "timeout", "2147483647", "2147483647");
    check_value(f, "timeout", "2147483648", NULL);
    check_value(f, "slowlog-log-slower-than", "-1", "-1");
    check_value(f, "slowlog-log-slower-than", "-2", NULL);
    check_reason(f, "argument must be between -1 and 9223372036854775807 inclusive");
    check_value(f, "slowlog-max-len", "9223372036854775807", "9223372036854775807");
    check_value(f, "slowlog-max-len", "-9223372036854775808", NULL);
    check_value(f, "maxmemory-eviction-tenacity", "100", "100");
    check_value(f, "maxmemory-eviction-tenacity", "101", NULL);
}

static void test_hz_clamps(void **state)
{
    struct fx *f = *state;

    /* Redis accepts 0..INT_MAX and clamps into [CONFIG_MIN_HZ, CONFIG_MAX_HZ]. */
    check_value(f, "hz", "500", "500");
    check_value(f, "hz", "501", "500");
    check_value(f, "hz", "1", "1");
    check_value(f, "hz", "0", "1");
    check_value(f, "hz", "2147483647", "500");
    check_value(f, "hz", "2147483648", NULL);
    check_reason(f, "argument must be between 0 and 2147483647 inclusive");
    check_value(f, "hz", "-1", NULL);
}

static void test_memory_units(void **state)
{
    struct fx *f = *state;

    check_value(f, "maxmemory", "1", "1");
    check_value(f, "maxmemory", "1b", "1");
    check_value(f, "maxmemory", "1B", "1");
    check_value(f, "maxmemory", "1k", "1000");
    check_value(f, "maxmemory", "1K", "1000");
    check_value(f, "maxmemory", "1kb", "1024");
    check_value(f, "maxmemory", "1Kb", "1024");
    check_value(f, "maxmemory", "1m", "1000000");
    check_value(f, "maxmemory", "1mb", "1048576");
    check_value(f, "maxmemory", "1g", "1000000000");
    check_value(f, "maxmemory", "1gb", "1073741824");
    check_value(f, "maxmemory", "3GB", "3221225472");
    check_value(f, "maxmemory", "007", "7");
    check_value(f, "maxmemory", "18446744073709551615", "18446744073709551615");
    /* Redis wraps these silently; terse refuses them. */
    check_value(f, "maxmemory", "18446744073709551616", NULL);
    check_reason(f, "argument must be a memory value");
    check_value(f, "maxmemory", "17179869184gb", NULL);
    check_value(f, "maxmemory", "\"\"", NULL);
    check_value(f, "maxmemory", "1t", NULL);
    check_value(f, "maxmemory", "1.5mb", NULL);
    check_value(f, "maxmemory", "-1", NULL);
    check_value(f, "maxmemory", "+5", NULL);
    check_value(f, "maxmemory", "0x10", NULL);
    check_value(f, "maxmemory", "mb", NULL);
    /* proto-max-bulk-len: at least 1mb. */
    check_value(f, "proto-max-bulk-len", "1mb", "1048576");
    check_value(f, "proto-max-bulk-len", "1048575", NULL);
    check_reason(f, "argument must be between 1048576 and 9223372036854775807 inclusive");
    check_value(f, "proto-max-bulk-len", "9223372036854775807", "9223372036854775807");
    check_value(f, "proto-max-bulk-len", "9223372036854775808", NULL);
    check_value(f, "client-query-buffer-limit", "1mb", "1048576");
    check_value(f, "client-query-buffer-limit", "1000", NULL);
    assert_int_equal(f->c.client_query_buffer_limit, 1048576);
}

static void test_string_and_enum(void **state)
{
    struct fx *f = *state;

    check_value(f, "requirepass", "\"s3cret pass\"", "s3cret pass");
    assert_string_equal(f->c.requirepass, "s3cret pass");
    check_value(f, "requirepass", "\"\"", "");
    check_value(f, "dir", "/var/lib/terse", "/var/lib/terse");
    check_value(f, "dbfilename", "snap.terse", "snap.terse");
    check_value(f, "dbfilename", "a/b", NULL);
    check_reason(f, "dbfilename can't be a path, just a filename");
    assert_string_equal(get(f, "dbfilename"), "snap.terse");
    check_value(f, "loglevel", "WARNING", "warning");
    assert_int_equal(f->c.loglevel, CORE_LOGLEVEL_WARNING);
    check_value(f, "loglevel", "loud", NULL);
    check_reason(f, "argument(s) must be one of the following: debug, verbose, notice, warning");
    check_value(f, "maxmemory-policy", "allkeys-lru", "allkeys-lru");
    assert_int_equal(f->c.maxmemory_policy, CORE_POLICY_ALLKEYS_LRU);
    check_value(f, "maxmemory-policy", "lru", NULL);
    check_reason(f, "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                     "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                     "noeviction");
    check_value(f, "enable-debug-command", "local", "local");
    assert_int_equal(f->c.enable_debug_command, CORE_ACCESS_LOCAL);
    check_value(f, "enable-debug-command", "maybe", NULL);
    check_reason(f, "argument(s) must be one of the following: no, yes, local");
}

static void test_bind(void **state)
{
    struct fx *f = *state;
    char line[512] = "bind";

    assert_int_equal(load(f, "bind 127.0.0.1 ::1\n"), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, 2);
    assert_string_equal(f->c.bind.addr[1], "::1");
    assert_string_equal(get(f, "bind"), "127.0.0.1 ::1");
    assert_int_equal(load(f, "bind * -::*\n"), TERSE_OK);
    assert_string_equal(get(f, "bind"), "* -::*");
    for (int i = 0; i < CORE_CONFIG_BIND_MAX; i++) {
        strcat(line, " 10.0.0.1");
    }
    strcat(line, "\n");
    assert_int_equal(load(f, line), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, CORE_CONFIG_BIND_MAX);
    line[strlen(line) - 1] = '\0';
    strcat(line, " 10.0.0.2\n");
    assert_int_equal(load(f, line), TERSE_ECONFIG);
    check_reason(f, "Too many bind addresses specified.");
    assert_int_equal(f->c.bind.n_addr, CORE_CONFIG_BIND_MAX);
    assert_int_equal(load(f, "bind \"\"\n"), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, 0);
    assert_string_equal(get(f, "bind"), "");
    /* An address is one word of visible characters: GET joins the words with spaces and a
     * SET of that text must give them back (the config fuzzer found a quoted one that did
     * not). */
    assert_int_equal(load(f, "bind 127.0.0.1\n"), TERSE_OK);
    assert_int_equal(load(f, "bind 10.0.0.1 \"a b\"\n"), TERSE_ECONFIG);
    check_reason(f, "Invalid bind address");
    assert_int_equal(load(f, "bind \"\\x01\"\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "bind 10.0.0.1 \"\"\n"), TERSE_ECONFIG);
    assert_string_equal(get(f, "bind"), "127.0.0.1");
}

static void test_save(void **state)
{
    struct fx *f = *state;

    /* Within one file, save lines accumulate; a new load replaces. */
    assert_int_equal(load(f, "save 3600 1\nsave 300 100 60 10000\n"), TERSE_OK);
    assert_string_equal(get(f, "save"), "3600 1 300 100 60 10000");
    assert_int_equal(f->c.save.n_point, 3);
    assert_int_equal(f->c.save.point[1].seconds, 300);
    assert_int_equal(load(f, "save 900 1\n"), TERSE_OK);
    assert_string_equal(get(f, "save"), "900 1");
    assert_int_equal(load(f, "save \"\"\n"), TERSE_OK);
    assert_string_equal(get(f, "save"), "");
    assert_int_equal(load(f, "save 10 0\n"), TERSE_OK);
    assert_int_equal(load(f, "save 3600\n"), TERSE_ECONFIG);
    check_reason(f, "Invalid save parameters");
    assert_int_equal(load(f, "save 0 1\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "save 10 -1\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "save abc 1\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "save \"\" 3600 1\n"), TERSE_ECONFIG);
    assert_string_equal(get(f, "save"), "10 0");
    /* CONFIG SET replaces and splits on spaces. */
    assert_int_equal(set(f, "save", "3600 1 300 100"), TERSE_OK);
    assert_string_equal(get(f, "save"), "3600 1 300 100");
    assert_int_equal(set(f, "save", "3600  1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'save') - "
                                "Invalid save parameters");
    assert_int_equal(set(f, "save", ""), TERSE_OK);
    assert_string_equal(get(f, "save"), "");
}

static void test_save_max(void **state)
{
    struct fx *f = *state;
    char line[1024] = "save";

    for (int i = 0; i < CORE_CONFIG_SAVE_MAX; i++) {
        strcat(line, " 60 1");
    }
    assert_int_equal(load(f, line), TERSE_OK);
    assert_int_equal(f->c.save.n_point, CORE_CONFIG_SAVE_MAX);
    strcat(line, " 60 1");
    assert_int_equal(load(f, line), TERSE_ECONFIG);
    assert_int_equal(f->c.save.n_point, CORE_CONFIG_SAVE_MAX);
}

static void test_obuf(void **state)
{
    struct fx *f = *state;
    const struct core_config_obuf_class *pub;

    assert_int_equal(load(f, "client-output-buffer-limit pubsub 64mb 16mb 90\n"), TERSE_OK);
    pub = &f->c.client_output_buffer_limit.cls[CORE_CLIENT_PUBSUB];
    assert_int_equal(pub->hard_bytes, 64u * 1024 * 1024);
    assert_int_equal(pub->soft_seconds, 90);
    assert_string_equal(get(f, "client-output-buffer-limit"),
                        "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90");
    assert_int_equal(load(f, "client-output-buffer-limit REPLICA 1mb 1kb 10 normal 1 2 3\n"),
                     TERSE_OK);
    assert_string_equal(get(f, "client-output-buffer-limit"),
                        "normal 1 2 3 slave 1048576 1024 10 pubsub 67108864 16777216 90");
    assert_int_equal(load(f, "client-output-buffer-limit normal 0 0\n"), TERSE_ECONFIG);
    check_reason(f, "Wrong number of arguments in buffer limit configuration.");
    assert_int_equal(load(f, "client-output-buffer-limit master 0 0 0\n"), TERSE_ECONFIG);
    check_reason(f, "Invalid client class specified in buffer limit configuration.");
    assert_int_equal(load(f, "client-output-buffer-limit normal 1x 0 0\n"), TERSE_ECONFIG);
    check_reason(f, "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    assert_int_equal(load(f, "client-output-buffer-limit normal 0 0 -1\n"), TERSE_ECONFIG);
    /* A bad group leaves every class as it was, even a good group before it. */
    assert_int_equal(load(f, "client-output-buffer-limit normal 5 5 5 pubsub 0 0 x\n"),
                     TERSE_ECONFIG);
    assert_int_equal(f->c.client_output_buffer_limit.cls[CORE_CLIENT_NORMAL].hard_bytes, 1);
}

/* ---- file syntax ------------------------------------------------------------------------- */

static void test_quotes(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "requirepass \"a\\tb\\x41\\\"\\\\\"\n"), TERSE_OK);
    assert_string_equal(f->c.requirepass, "a\tbA\"\\");
    assert_int_equal(load(f, "requirepass 'it\\'s \"x\"'\n"), TERSE_OK);
    assert_string_equal(f->c.requirepass, "it's \"x\"");
    assert_int_equal(load(f, "\"port\" '7001'\n"), TERSE_OK);
    assert_int_equal(f->c.port, 7001);
    assert_int_equal(load(f, "PORT 7002\r\n"), TERSE_OK);
    assert_int_equal(f->c.port, 7002);
    assert_int_equal(load(f, "save \"3600 1\n"), TERSE_ECONFIG);
    check_reason(f, "Unbalanced quotes in configuration line");
    assert_int_equal(load(f, "port \"70\"01\n"), TERSE_ECONFIG);
    check_reason(f, "Unbalanced quotes in configuration line");
    assert_int_equal(load(f, "requirepass \"a\\x00b\"\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "requirepass 'abc\n"), TERSE_ECONFIG);
    assert_string_equal(f->c.requirepass, "it's \"x\"");
}

static void test_file_errors(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "port 7000\n# comment\n\n   \n  hz 20  \nfoo bar\n"), TERSE_ECONFIG);
    assert_string_equal(f->err, "\n*** FATAL CONFIG FILE ERROR (terse) ***\n"
                                "Reading the configuration file 't.conf', at line 6\n"
                                ">>> 'foo bar'\n"
                                "Bad directive or wrong number of arguments");
    /* Lines before the bad one stay applied (startup stops anyway). */
    assert_int_equal(f->c.port, 7000);
    assert_int_equal(f->c.hz, 20);
    assert_int_equal(load(f, "port\n"), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(load(f, "port 1 2\n"), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(load(f, "port 7000 # not a comment\n"), TERSE_ECONFIG);
    assert_int_equal(load(f, "\n\n  hz abc\n"), TERSE_ECONFIG);
    assert_non_null(strstr(f->err, "at line 3\n>>> 'hz abc'\n"));
    check_reason(f, "argument couldn't be parsed into an integer");
    /* No trailing newline, empty input, comments only. */
    assert_int_equal(load(f, "port 7003"), TERSE_OK);
    assert_int_equal(f->c.port, 7003);
    assert_int_equal(load(f, ""), TERSE_OK);
    assert_int_equal(load(f, "# only\n#comments"), TERSE_OK);
    /* A tiny err_cap truncates but still terminates. */
    {
        char small[8];
        assert_int_equal(core_config_load_string(&f->c, "x y", 3, NULL, small, sizeof small),
                         TERSE_ECONFIG);
        assert_int_equal(strlen(small), sizeof small - 1);
        assert_int_equal(core_config_load_string(&f->c, "x y", 3, NULL, NULL, 0), TERSE_ECONFIG);
    }
}

static void test_load_file(void **state)
{
    struct fx *f = *state;
    char path[] = "/tmp/test_core_config_XXXXXX";
    int fd = mkstemp(path);
    const char body[] = "port 7100\nmaxmemory 2gb\nbind 0.0.0.0\n";

    assert_true(fd >= 0);
    assert_int_equal(write(fd, body, sizeof body - 1), (ssize_t)(sizeof body - 1));
    close(fd);
    assert_int_equal(core_config_load_file(&f->c, path, f->err, sizeof f->err), TERSE_OK);
    assert_int_equal(f->c.port, 7100);
    assert_int_equal(f->c.maxmemory, 2ULL << 30);
    assert_string_equal(get(f, "bind"), "0.0.0.0");
    unlink(path);
    assert_int_equal(core_config_load_file(&f->c, path, f->err, sizeof f->err), TERSE_EIO);
    assert_non_null(strstr(f->err, "can't open config file"));
}

/* ---- command line ------------------------------------------------------------------------ */

static int args(struct fx *f, int argc, const char *const *argv)
{
    char *v[16];

    assert_true(argc <= 16);
    for (int i = 0; i < argc; i++) {
        v[i] = (char *)(uintptr_t)argv[i]; /* core_config_apply_args only reads them */
    }
    f->err[0] = '\0';
    return core_config_apply_args(&f->c, argc, v, f->err, sizeof f->err);
}

static void test_args_override_file(void **state)
{
    struct fx *f = *state;
    static const char *const a[] = {"--port", "7000",      "--save", "",       "--bind",
                                    "10.0.0.1", "::1", "--maxmemory", "1mb"};

    assert_int_equal(load(f, "port 6000\nsave 60 1\nbind 0.0.0.0\nhz 20\n"), TERSE_OK);
    assert_int_equal(args(f, 9, a), TERSE_OK);
    assert_int_equal(f->c.port, 7000);
    assert_string_equal(get(f, "save"), "");
    assert_string_equal(get(f, "bind"), "10.0.0.1 ::1");
    assert_int_equal(f->c.maxmemory, 1048576);
    assert_int_equal(f->c.hz, 20);
}

static void test_args_special(void **state)
{
    struct fx *f = *state;
    static const char *const save_alone[] = {"--save", "--port", "7001"};
    static const char *const save_last[] = {"--save"};
    static const char *const one_word[] = {"--port 7002", "--requirepass", "--x"};
    static const char *const quoted[] = {"--requirepass", "a \"b\"\n'c'"};
    static const char *const stray[] = {"port", "7000"};
    static const char *const bad[] = {"--port", "7000", "--hz", "x"};
    static const char *const missing[] = {"--port"};
    static const char *const unknown[] = {"--nope", "1"};
    static const char *const newline[] = {"--hz 5\nport 1"};

    assert_int_equal(load(f, "save 60 1\n"), TERSE_OK);
    assert_int_equal(args(f, 3, save_alone), TERSE_OK);
    assert_string_equal(get(f, "save"), "");
    assert_int_equal(f->c.port, 7001);
    assert_int_equal(load(f, "save 60 1\n"), TERSE_OK);
    assert_int_equal(args(f, 1, save_last), TERSE_OK);
    assert_string_equal(get(f, "save"), "");
    assert_int_equal(args(f, 3, one_word), TERSE_OK);
    assert_int_equal(f->c.port, 7002);
    assert_string_equal(f->c.requirepass, "--x");
    assert_int_equal(args(f, 2, quoted), TERSE_OK);
    assert_string_equal(f->c.requirepass, "a \"b\"\n'c'");
    assert_int_equal(args(f, 2, stray), TERSE_ECONFIG);
    assert_int_equal(args(f, 4, bad), TERSE_ECONFIG);
    assert_string_equal(f->err, "\n*** FATAL CONFIG FILE ERROR (terse) ***\n"
                                "Reading the command line, at option 2\n"
                                ">>> 'hz \"x\"'\n"
                                "argument couldn't be parsed into an integer");
    assert_int_equal(args(f, 1, missing), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 2, unknown), TERSE_ECONFIG);
    check_reason(f, "Bad directive or wrong number of arguments");
    /* A line break inside a word does not smuggle in a second directive. */
    assert_int_equal(args(f, 1, newline), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 0, NULL), TERSE_OK);
}

/* ---- stream node limits ------------------------------------------------------------------ */

static void test_stream_node_limits(void **state)
{
    struct fx *f = *state;

    /* stream-node-max-entries: Redis's long long INTEGER_CONFIG in [0, LLONG_MAX], default 100;
     * stream-node-max-bytes: a MEMORY_CONFIG in [0, LONG_MAX], default 4096. */
    assert_int_equal(f->c.stream_node_max_entries, 100);
    assert_int_equal(f->c.stream_node_max_bytes, 4096);
    check_value(f, "stream-node-max-entries", "0", "0");
    check_value(f, "stream-node-max-entries", "9223372036854775807", "9223372036854775807");
    check_value(f, "stream-node-max-entries", "-1", NULL);
    check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    check_value(f, "stream-node-max-entries", "1k", NULL);
    check_value(f, "stream-node-max-bytes", "1mb", "1048576");
    check_value(f, "stream-node-max-bytes", "-1", NULL);
}

/* ---- hash encoding limits and option aliases ------------------------------------------- */

static void test_hash_limits(void **state)
{
    struct fx *f = *state;

    /* hash-max-listpack-entries: Redis's size_t INTEGER_CONFIG in [0, LONG_MAX]. */
    check_value(f, "hash-max-listpack-entries", "0", "0");
    check_value(f, "hash-max-listpack-entries", "9223372036854775807", "9223372036854775807");
    assert_int_equal(f->c.hash_max_listpack_entries, 9223372036854775807LL);
    check_value(f, "hash-max-listpack-entries", "9223372036854775808", NULL);
    check_reason(f, "argument couldn't be parsed into an integer");
    check_value(f, "hash-max-listpack-entries", "-1", NULL);
    check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    check_value(f, "hash-max-listpack-entries", "1kb", NULL);
    check_reason(f, "argument couldn't be parsed into an integer");
    check_value(f, "hash-max-listpack-entries", "007", NULL);
    check_value(f, "hash-max-listpack-entries", "+5", NULL);
    check_value(f, "hash-max-listpack-entries", "\"\"", NULL);
    check_reason(f, "argument couldn't be parsed into an integer");
    /* hash-max-listpack-value: a MEMORY_CONFIG in [0, LONG_MAX], shown as bytes. */
    check_value(f, "hash-max-listpack-value", "0", "0");
    check_value(f, "hash-max-listpack-value", "1kb", "1024");
    check_value(f, "hash-max-listpack-value", "8gb", "8589934592");
    check_value(f, "hash-max-listpack-value", "9223372036854775807", "9223372036854775807");
    assert_int_equal(f->c.hash_max_listpack_value, 9223372036854775807ULL);
    check_value(f, "hash-max-listpack-value", "9223372036854775808", NULL);
    check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    check_value(f, "hash-max-listpack-value", "-1", NULL);
    check_reason(f, "argument must be a memory value");
    check_value(f, "hash-max-listpack-value", "1.5", NULL);
    check_reason(f, "argument must be a memory value");
}

/* The alias table's invariants: each alias answers for its option, and no alias is also an
 * option's name or another alias (core_config_opt_find would never reach such a row). */
#define NAME_OF_OPTION(name, field, kind, dflt, min, max, names, flags) name,
#define NAME_OF_ALIAS(alias, field) alias,
#define ALIAS_CHECK(alias, field)                                                                \
    assert_string_equal(get_in(&f->c, alias), get_in(&f->c, field_name(&f->c, &f->c.field)));   \
    assert_int_equal(core_config_flags(alias, &flags_alias), TERSE_OK);                          \
    assert_int_equal(core_config_flags(field_name(&f->c, &f->c.field), &flags_opt), TERSE_OK);   \
    assert_int_equal(flags_alias, flags_opt);

static const char *get_in(const struct core_config *c, const char *name)
{
    static char out[2][CORE_CONFIG_VALUE_CAP]; /* test-only scratch, two at a time */
    static int turn;
    size_t len;

    turn ^= 1;
    assert_int_equal(core_config_get_one(c, name, out[turn], sizeof out[turn], &len), TERSE_OK);
    return out[turn];
}

/* The option name whose field is at p in c, through the table. */
static const char *field_name(const struct core_config *c, const void *p)
{
#define NAME_IF_FIELD(name, field, kind, dflt, min, max, names, flags)                           \
    if ((const void *)&c->field == p) {                                                          \
        return name;                                                                             \
    }
    CORE_CONFIG_OPTIONS(NAME_IF_FIELD)
#undef NAME_IF_FIELD
    fail_msg("no option has that field");
    return NULL;
}

static void test_alias_table(void **state)
{
    static const char *const options[] = {CORE_CONFIG_OPTIONS(NAME_OF_OPTION)};
    static const char *const aliases[] = {CORE_CONFIG_ALIASES(NAME_OF_ALIAS)};
    const size_t n_opt = sizeof options / sizeof options[0];
    const size_t n_alias = sizeof aliases / sizeof aliases[0];
    struct fx *f = *state;
    unsigned flags_alias, flags_opt;

    for (size_t i = 0; i < n_alias; i++) {
        for (size_t j = 0; j < n_opt; j++) {
            assert_true(strcasecmp(aliases[i], options[j]) != 0);
        }
        for (size_t j = 0; j < i; j++) {
            assert_true(strcasecmp(aliases[i], aliases[j]) != 0);
        }
    }
    /* Each alias reads its option's value and has its flags (test_alias_set shows that the
     * two names share one field). */
    CORE_CONFIG_ALIASES(ALIAS_CHECK)
}

static void test_alias_file_and_args(void **state)
{
    struct fx *f = *state;
    static const char *const a[] = {"--hash-max-ziplist-entries", "0",
                                    "--hash-max-ziplist-value", "1kb"};
    static const char *const bad[] = {"--hash-max-ziplist-entries", "-5"};

    assert_int_equal(load(f, "hash-max-ziplist-entries 10\nHASH-MAX-ZIPLIST-VALUE 5mb\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 10);
    assert_int_equal(f->c.hash_max_listpack_value, 5u * 1024 * 1024);
    assert_string_equal(get(f, "hash-max-listpack-entries"), "10");
    assert_string_equal(get(f, "HASH-MAX-ZIPLIST-ENTRIES"), "10");
    /* One option under two names: the last line wins, whichever name it uses. */
    assert_int_equal(load(f, "hash-max-ziplist-entries 10\nhash-max-listpack-entries 30\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 30);
    assert_int_equal(load(f, "hash-max-listpack-entries 30\nhash-max-ziplist-entries 10\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 10);
    assert_int_equal(load(f, "hash-max-ziplist-entries abc\n"), TERSE_ECONFIG);
    assert_non_null(strstr(f->err, ">>> 'hash-max-ziplist-entries abc'\n"));
    check_reason(f, "argument couldn't be parsed into an integer");
    assert_int_equal(load(f, "hash-max-ziplist-entries 1 2\n"), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(load(f, "hash-max-ziplist-value\n"), TERSE_ECONFIG);
    check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 4, a), TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 0);
    assert_int_equal(f->c.hash_max_listpack_value, 1024);
    assert_int_equal(args(f, 2, bad), TERSE_ECONFIG);
    assert_string_equal(f->err, "\n*** FATAL CONFIG FILE ERROR (terse) ***\n"
                                "Reading the command line, at option 1\n"
                                ">>> 'hash-max-ziplist-entries \"-5\"'\n"
                                "argument must be between 0 and 9223372036854775807 inclusive");
}

static void test_alias_set(void **state)
{
    struct fx *f = *state;
    const char *n1[] = {"hash-max-ziplist-entries", "hash-max-listpack-entries"};
    const char *v1[] = {"1", "2"};
    const char *n2[] = {"hash-max-listpack-entries", "hash-max-ziplist-entries"};
    const char *n3[] = {"hash-max-ziplist-entries", "HASH-MAX-ZIPLIST-ENTRIES"};
    const char *n4[] = {"hash-max-ziplist-entries", "hash-max-listpack-entries"};
    const char *v4[] = {"5", "abc"};
    const char *n5[] = {"Hash-Max-Ziplist-Value", "databases"};

    assert_int_equal(set(f, "hash-max-ziplist-entries", "7"), TERSE_OK);
    assert_string_equal(get(f, "hash-max-listpack-entries"), "7");
    assert_int_equal(set(f, "hash-max-listpack-value", "1kb"), TERSE_OK);
    assert_string_equal(get(f, "hash-max-ziplist-value"), "1024");
    /* An option and its alias are two parameters to Redis: no "duplicate", the last wins. */
    assert_int_equal(core_config_set_pairs(&f->c, n1, v1, 2, 0, f->err, sizeof f->err),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 2);
    assert_int_equal(core_config_set_pairs(&f->c, n2, v1, 2, 0, f->err, sizeof f->err),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 2);
    /* The same alias twice is a duplicate, named as the client spelled it. */
    assert_int_equal(core_config_set_pairs(&f->c, n3, v1, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'HASH-MAX-ZIPLIST-ENTRIES') - duplicate parameter");
    /* Atomic across the two names. */
    assert_int_equal(core_config_set_pairs(&f->c, n4, v4, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-listpack-entries') - argument couldn't be parsed "
                                "into an integer");
    assert_int_equal(f->c.hash_max_listpack_entries, 2);
    /* A value error names the alias in the table's spelling, as Redis does. */
    assert_int_equal(set(f, "HASH-MAX-ZIPLIST-ENTRIES", "abc"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-entries') - argument couldn't be parsed "
                                "into an integer");
    assert_int_equal(set(f, "hash-max-ziplist-entries", "-1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-entries') - argument must be between 0 and "
                                "9223372036854775807 inclusive");
    assert_int_equal(set(f, "hash-max-ziplist-value", "-1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-value') - argument must be a memory value");
    assert_int_equal(set(f, "hash-max-listpack-value", "9223372036854775808"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-listpack-value') - argument must be between 0 and "
                                "9223372036854775807 inclusive");
    /* First-pass errors name the argument as given, alias or not. */
    assert_int_equal(core_config_set_pairs(&f->c, n5, v1, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'databases') - can't set immutable config");
    assert_int_equal(f->c.hash_max_listpack_value, 1024);
    {
        unsigned flags = 1;
        assert_int_equal(core_config_flags("hash-max-ziplist-value", &flags), TERSE_OK);
        assert_int_equal(flags, CORE_CONFIG_MUTABLE);
    }
}

/* ---- CONFIG SET -------------------------------------------------------------------------- */

static void test_set_errors(void **state)
{
    struct fx *f = *state;

    assert_int_equal(set(f, "foo", "bar"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
    assert_int_equal(set(f, "databases", "4"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'databases') - can't set immutable config");
    assert_int_equal(set(f, "daemonize", "no"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'daemonize') - can't set immutable config");
    assert_int_equal(set(f, "dir", "/tmp"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'dir') - "
                                "can't set protected config");
    assert_int_equal(set(f, "port", "70000"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'port') - "
                                "argument must be between 0 and 65535 inclusive");
    /* Value errors name the option in its own spelling, as Redis does. */
    assert_int_equal(set(f, "HZ", "abc"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'hz') - "
                                "argument couldn't be parsed into an integer");
    assert_int_equal(set(f, "maxmemory", "1x"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'maxmemory') - argument must be a memory value");
    assert_int_equal(set(f, "protected-mode", "maybe"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'protected-mode') - argument must be 'yes' or 'no'");
    assert_int_equal(set(f, "Maxmemory", "1GB"), TERSE_OK);
    assert_int_equal(f->c.maxmemory, 1ULL << 30);
    assert_int_equal(set(f, "bind", "127.0.0.1 ::1"), TERSE_OK);
    assert_string_equal(get(f, "bind"), "127.0.0.1 ::1");
    assert_int_equal(set(f, "client-output-buffer-limit", "normal 0 0 0 pubsub 1 1 1"), TERSE_OK);
    assert_string_equal(get(f, "client-output-buffer-limit"),
                        "normal 0 0 0 slave 268435456 67108864 60 pubsub 1 1 1");
}

static void test_set_pairs(void **state)
{
    struct fx *f = *state;
    const char *n1[] = {"databases", "foo"}, *v1[] = {"1", "1"};
    const char *n2[] = {"foo", "databases"}, *v2[] = {"1", "1"};
    const char *n3[] = {"hz", "HZ"}, *v3[] = {"5", "6"};
    const char *n4[] = {"hz", "maxmemory"}, *v4[] = {"11", "x"};
    const char *n5[] = {"hz", "maxmemory", "bind"}, *v5[] = {"11", "5mb", "::1"};

    assert_int_equal(core_config_set_pairs(&f->c, n1, v1, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'databases') - can't set immutable config");
    assert_int_equal(core_config_set_pairs(&f->c, n2, v2, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
    assert_int_equal(core_config_set_pairs(&f->c, n3, v3, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'HZ') - "
                                "duplicate parameter");
    /* Atomic: the good hz is not kept when maxmemory fails. */
    assert_int_equal(core_config_set_pairs(&f->c, n4, v4, 2, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_int_equal(f->c.hz, 10);
    assert_int_equal(core_config_set_pairs(&f->c, n5, v5, 3, 0, f->err, sizeof f->err),
                     TERSE_OK);
    assert_int_equal(f->c.hz, 11);
    assert_int_equal(f->c.maxmemory, 5u * 1024 * 1024);
    assert_string_equal(get(f, "bind"), "::1");
    assert_int_equal(core_config_set_pairs(&f->c, n5, v5, 0, 0, f->err, sizeof f->err),
                     TERSE_EINVAL);
}

static void test_set_protected(void **state)
{
    struct fx *f = *state;
    const char *n[] = {"dir"}, *v[] = {"/data"};

    assert_int_equal(load(f, "enable-protected-configs local\n"), TERSE_OK);
    assert_int_equal(core_config_set_pairs(&f->c, n, v, 1, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_int_equal(core_config_set_pairs(&f->c, n, v, 1, CORE_CONFIG_SET_LOCAL, f->err,
                                           sizeof f->err),
                     TERSE_OK);
    assert_string_equal(f->c.dir, "/data");
    assert_int_equal(load(f, "enable-protected-configs yes\n"), TERSE_OK);
    assert_int_equal(set(f, "dbfilename", "x/y"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'dbfilename') - dbfilename can't be a path, just a filename");
    assert_int_equal(set(f, "dbfilename", "y.terse"), TERSE_OK);
    assert_string_equal(f->c.dbfilename, "y.terse");
}

/* ---- CONFIG GET -------------------------------------------------------------------------- */

/* More than every name "*" lists (options and aliases), so a test sees them all. */
#define SEEN_MAX 256

struct seen {
    int n;
    char names[SEEN_MAX][48];
    char last_value[CORE_CONFIG_VALUE_CAP];
};

static void collect(void *arg, const char *name, const char *value)
{
    struct seen *s = arg;

    if (s->n < SEEN_MAX) {
        (void)snprintf(s->names[s->n], sizeof s->names[0], "%s", name);
    }
    (void)snprintf(s->last_value, sizeof s->last_value, "%s", value);
    s->n++;
}

static struct seen *get_all(struct fx *f, const char *pattern)
{
    static struct seen s; /* test-only scratch */

    memset(&s, 0, sizeof s);
    core_config_get(&f->c, pattern, collect, &s);
    return &s;
}

static void test_get_globs(void **state)
{
    struct fx *f = *state;
    struct seen *s;

    s = get_all(f, "*");
    assert_true(s->n >= 40);
    s = get_all(f, "hz");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->last_value, "10");
    /* An exact name is emitted as the caller spelled it, as Redis 7 does. */
    s = get_all(f, "HZ");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->names[0], "HZ");
    s = get_all(f, "H?");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->names[0], "hz");
    s = get_all(f, "h[xz]");
    assert_int_equal(s->n, 1);
    s = get_all(f, "h[^z]");
    assert_int_equal(s->n, 0);
    s = get_all(f, "h[a-z]");
    assert_int_equal(s->n, 1);
    s = get_all(f, "MAXMEM*");
    assert_int_equal(s->n, 4);
    assert_string_equal(s->names[0], "maxmemory");
    s = get_all(f, "*-lazy-*");
    assert_int_equal(s->n, 5);
    s = get_all(f, "lfu-*");
    assert_int_equal(s->n, 2);
    s = get_all(f, "*port");
    assert_int_equal(s->n, 1);
    s = get_all(f, "maxmemory\\-policy"); /* no glob character: exact, so no match */
    assert_int_equal(s->n, 0);
    s = get_all(f, "maxmemory\\-polic?");
    assert_int_equal(s->n, 1);
    s = get_all(f, "nope*");
    assert_int_equal(s->n, 0);
    s = get_all(f, "[");
    assert_int_equal(s->n, 0);
    s = get_all(f, "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b");
    assert_int_equal(s->n, 0);
}

static void test_get_aliases(void **state)
{
    struct fx *f = *state;
    struct seen *s;

    assert_int_equal(set(f, "hash-max-listpack-entries", "100"), TERSE_OK);
    /* A glob lists an alias too, under its own name, right after its option. */
    s = get_all(f, "hash-max-*");
    assert_int_equal(s->n, 4);
    assert_string_equal(s->names[0], "hash-max-listpack-entries");
    assert_string_equal(s->names[1], "hash-max-ziplist-entries");
    assert_string_equal(s->names[2], "hash-max-listpack-value");
    assert_string_equal(s->names[3], "hash-max-ziplist-value");
    s = get_all(f, "*ZIPLIST*");
    assert_int_equal(s->n, 5);
    assert_string_equal(s->names[0], "hash-max-ziplist-entries");
    assert_string_equal(s->names[1], "hash-max-ziplist-value");
    assert_string_equal(s->names[2], "list-max-ziplist-size");
    assert_string_equal(s->names[3], "zset-max-ziplist-entries");
    assert_string_equal(s->names[4], "zset-max-ziplist-value");
    assert_string_equal(s->last_value, "64");
    s = get_all(f, "hash-*listpack-e?tries");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->last_value, "100");
    s = get_all(f, "hash-max-ziplist-entrie[s]");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->names[0], "hash-max-ziplist-entries");
    assert_string_equal(s->last_value, "100");
    /* An exact alias answers under the name as given. */
    s = get_all(f, "Hash-Max-Ziplist-Entries");
    assert_int_equal(s->n, 1);
    assert_string_equal(s->names[0], "Hash-Max-Ziplist-Entries");
    assert_string_equal(s->last_value, "100");
    s = get_all(f, "hash-max-ziplist");
    assert_int_equal(s->n, 0);
    /* "*" lists every option and every alias once. */
    s = get_all(f, "*");
    {
        int n_ziplist = 0;
        assert_true(s->n <= SEEN_MAX);
        for (int i = 0; i < s->n; i++) {
            n_ziplist += strstr(s->names[i], "ziplist") != NULL;
        }
        /* hash-max-ziplist-entries, -value, list-max-...-size, zset-max-ziplist-entries, -value */
        assert_int_equal(n_ziplist, 5);
    }
}

static void test_get_one(void **state)
{
    struct fx *f = *state;
    char small[4];
    size_t len = 0;

    assert_int_equal(core_config_get_one(&f->c, "nope", small, sizeof small, &len),
                     TERSE_ENOTFOUND);
    assert_int_equal(core_config_get_one(&f->c, "port", small, sizeof small, &len),
                     TERSE_EDSTSIZE);
    assert_int_equal(len, 4);
    assert_int_equal(core_config_get_one(&f->c, "hz", small, sizeof small, &len), TERSE_OK);
    assert_string_equal(small, "10");
    {
        unsigned flags = 0;
        assert_int_equal(core_config_flags("requirepass", &flags), TERSE_OK);
        assert_true((flags & CORE_CONFIG_SENSITIVE) != 0);
        assert_int_equal(core_config_flags("databases", &flags), TERSE_OK);
        assert_true((flags & CORE_CONFIG_IMMUTABLE) != 0);
        assert_int_equal(core_config_flags("nope", &flags), TERSE_ENOTFOUND);
    }
}

/* ---- OOM injection ----------------------------------------------------------------------- */

static void test_oom(void **state)
{
    static const char text[] = "requirepass secret\nbind 1.2.3.4 ::1\ndir /x\nsave 60 1\n";
    const char *names[] = {"requirepass", "bind"}, *values[] = {"pw", "::1 1.1.1.1"};
    uint64_t base = core_mem_used();

    (void)state;
    for (uint64_t nth = 1; nth < 64; nth++) {
        struct core_config c;
        char err[CORE_CONFIG_ERR_CAP];
        int rc;
        core_mem_fail_after(nth);
        rc = core_config_init(&c);
        if (rc != TERSE_OK) {
            assert_int_equal(rc, TERSE_ENOMEM);
            core_mem_fail_after(0);
            assert_int_equal(core_mem_used(), base);
            continue;
        }
        rc = core_config_load_string(&c, text, sizeof text - 1, NULL, err, sizeof err);
        assert_true(rc == TERSE_OK || rc == TERSE_ENOMEM);
        if (rc == TERSE_OK) {
            char saved[CORE_CONFIG_VALUE_CAP];
            size_t len;
            assert_int_equal(core_config_get_one(&c, "bind", saved, sizeof saved, &len),
                             TERSE_OK);
            rc = core_config_set_pairs(&c, names, values, 2, 0, err, sizeof err);
            assert_true(rc == TERSE_OK || rc == TERSE_ENOMEM);
            if (rc == TERSE_ENOMEM) {
                /* Unchanged on failure. */
                char now[CORE_CONFIG_VALUE_CAP];
                assert_int_equal(core_config_get_one(&c, "bind", now, sizeof now, &len),
                                 TERSE_OK);
                assert_string_equal(now, saved);
                assert_string_equal(c.requirepass, "secret");
            }
        }
        core_mem_fail_after(0);
        core_config_deinit(&c);
        assert_int_equal(core_mem_used(), base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults, fx_setup, fx_teardown),
        cmocka_unit_test(test_deinit_twice),
        cmocka_unit_test_setup_teardown(test_bool, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_int_limits, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_hz_clamps, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_memory_units, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_string_and_enum, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_bind, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_save, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_save_max, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_obuf, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_quotes, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_file_errors, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_load_file, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_args_override_file, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_args_special, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_hash_limits, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_stream_node_limits, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_alias_table, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_alias_file_and_args, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_alias_set, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_set_errors, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_set_pairs, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_set_protected, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_get_globs, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_get_aliases, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_get_one, fx_setup, fx_teardown),
        cmocka_unit_test(test_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
