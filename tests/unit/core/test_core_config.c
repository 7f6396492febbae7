/*
 * test_core_config: cmocka tests of the server configuration's values (src/core/core_config.c
 * and the defaults core_config_init applies).
 *
 * Defaults (the same strings as Debian's redis-server 7.0.15 CONFIG GET, except terse's own
 * choices for bind, dir and dbfilename); every option kind's parser with its limits at the
 * limit and one past; units; the stream and hash encoding limits; the alias table's
 * invariants. The file and the command line are tested in test_core_config_load.c, CONFIG SET,
 * CONFIG GET and OOM injection in test_core_config_runtime.c; the config fixture and its
 * helpers in core_config_fixture.c.
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "core_config_fixture.h"
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

/* ---- defaults ---------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    struct cfx *f = *state;
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
        assert_string_equal(cfx_get(f, want[i][0]), want[i][1]);
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
    struct cfx *f = *state;

    cfx_check_value(f, "protected-mode", "no", "no");
    cfx_check_value(f, "protected-mode", "YES", "yes");
    cfx_check_value(f, "protected-mode", "No", "no");
    cfx_check_value(f, "protected-mode", "1", NULL);
    cfx_check_reason(f, "argument must be 'yes' or 'no'");
    cfx_check_value(f, "protected-mode", "maybe", NULL);
    /* terse has no daemon mode nor AOF timestamps: "yes" is refused, not silently ignored. */
    cfx_check_value(f, "daemonize", "no", "no");
    cfx_check_value(f, "daemonize", "yes", NULL);
    assert_non_null(strstr(f->err, "not supported"));
    cfx_check_value(f, "aof-timestamp-enabled", "yes", NULL);
    cfx_check_value(f, "appendonly", "yes", "yes");
    cfx_check_value(f, "appendfsync", "always", "always");
    cfx_check_value(f, "appendfsync", "sometimes", NULL);
}

static void test_int_limits(void **state)
{
    struct cfx *f = *state;

    cfx_check_value(f, "port", "0", "0");
    cfx_check_value(f, "port", "65535", "65535");
    cfx_check_value(f, "port", "65536", NULL);
    cfx_check_reason(f, "argument must be between 0 and 65535 inclusive");
    cfx_check_value(f, "port", "-1", NULL);
    cfx_check_reason(f, "argument must be between 0 and 65535 inclusive");
    /* Redis's string2ll: no '+', no leading zero, no blanks, no units, no overflow. */
    cfx_check_value(f, "port", "+5", NULL);
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    cfx_check_value(f, "port", "05", NULL);
    cfx_check_value(f, "port", "\" 5\"", NULL);
    cfx_check_value(f, "port", "1k", NULL);
    cfx_check_value(f, "port", "-0", NULL);
    cfx_check_value(f, "port", "9223372036854775808", NULL);
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    cfx_check_value(f, "maxclients", "4294967295", "4294967295");
    cfx_check_value(f, "maxclients", "4294967296", NULL);
    cfx_check_reason(f, "argument must be between 1 and 4294967295 inclusive");
    cfx_check_value(f, "maxclients", "0", NULL);
    cfx_check_value(f, "timeout", "2147483647", "2147483647");
    cfx_check_value(f, "timeout", "2147483648", NULL);
    cfx_check_value(f, "slowlog-log-slower-than", "-1", "-1");
    cfx_check_value(f, "slowlog-log-slower-than", "-2", NULL);
    cfx_check_reason(f, "argument must be between -1 and 9223372036854775807 inclusive");
    cfx_check_value(f, "slowlog-max-len", "9223372036854775807", "9223372036854775807");
    cfx_check_value(f, "slowlog-max-len", "-9223372036854775808", NULL);
    cfx_check_value(f, "maxmemory-eviction-tenacity", "100", "100");
    cfx_check_value(f, "maxmemory-eviction-tenacity", "101", NULL);
}

static void test_hz_clamps(void **state)
{
    struct cfx *f = *state;

    /* Redis accepts 0..INT_MAX and clamps into [CONFIG_MIN_HZ, CONFIG_MAX_HZ]. */
    cfx_check_value(f, "hz", "500", "500");
    cfx_check_value(f, "hz", "501", "500");
    cfx_check_value(f, "hz", "1", "1");
    cfx_check_value(f, "hz", "0", "1");
    cfx_check_value(f, "hz", "2147483647", "500");
    cfx_check_value(f, "hz", "2147483648", NULL);
    cfx_check_reason(f, "argument must be between 0 and 2147483647 inclusive");
    cfx_check_value(f, "hz", "-1", NULL);
}

static void test_memory_units(void **state)
{
    struct cfx *f = *state;

    cfx_check_value(f, "maxmemory", "1", "1");
    cfx_check_value(f, "maxmemory", "1b", "1");
    cfx_check_value(f, "maxmemory", "1B", "1");
    cfx_check_value(f, "maxmemory", "1k", "1000");
    cfx_check_value(f, "maxmemory", "1K", "1000");
    cfx_check_value(f, "maxmemory", "1kb", "1024");
    cfx_check_value(f, "maxmemory", "1Kb", "1024");
    cfx_check_value(f, "maxmemory", "1m", "1000000");
    cfx_check_value(f, "maxmemory", "1mb", "1048576");
    cfx_check_value(f, "maxmemory", "1g", "1000000000");
    cfx_check_value(f, "maxmemory", "1gb", "1073741824");
    cfx_check_value(f, "maxmemory", "3GB", "3221225472");
    cfx_check_value(f, "maxmemory", "007", "7");
    cfx_check_value(f, "maxmemory", "18446744073709551615", "18446744073709551615");
    /* Redis wraps these silently; terse refuses them. */
    cfx_check_value(f, "maxmemory", "18446744073709551616", NULL);
    cfx_check_reason(f, "argument must be a memory value");
    cfx_check_value(f, "maxmemory", "17179869184gb", NULL);
    cfx_check_value(f, "maxmemory", "\"\"", NULL);
    cfx_check_value(f, "maxmemory", "1t", NULL);
    cfx_check_value(f, "maxmemory", "1.5mb", NULL);
    cfx_check_value(f, "maxmemory", "-1", NULL);
    cfx_check_value(f, "maxmemory", "+5", NULL);
    cfx_check_value(f, "maxmemory", "0x10", NULL);
    cfx_check_value(f, "maxmemory", "mb", NULL);
    /* proto-max-bulk-len: at least 1mb. */
    cfx_check_value(f, "proto-max-bulk-len", "1mb", "1048576");
    cfx_check_value(f, "proto-max-bulk-len", "1048575", NULL);
    cfx_check_reason(f, "argument must be between 1048576 and 9223372036854775807 inclusive");
    cfx_check_value(f, "proto-max-bulk-len", "9223372036854775807", "9223372036854775807");
    cfx_check_value(f, "proto-max-bulk-len", "9223372036854775808", NULL);
    cfx_check_value(f, "client-query-buffer-limit", "1mb", "1048576");
    cfx_check_value(f, "client-query-buffer-limit", "1000", NULL);
    assert_int_equal(f->c.client_query_buffer_limit, 1048576);
}

static void test_string_and_enum(void **state)
{
    struct cfx *f = *state;

    cfx_check_value(f, "requirepass", "\"s3cret pass\"", "s3cret pass");
    assert_string_equal(f->c.requirepass, "s3cret pass");
    cfx_check_value(f, "requirepass", "\"\"", "");
    cfx_check_value(f, "dir", "/var/lib/terse", "/var/lib/terse");
    cfx_check_value(f, "dbfilename", "snap.terse", "snap.terse");
    cfx_check_value(f, "dbfilename", "a/b", NULL);
    cfx_check_reason(f, "dbfilename can't be a path, just a filename");
    assert_string_equal(cfx_get(f, "dbfilename"), "snap.terse");
    cfx_check_value(f, "loglevel", "WARNING", "warning");
    assert_int_equal(f->c.loglevel, CORE_LOGLEVEL_WARNING);
    cfx_check_value(f, "loglevel", "loud", NULL);
    cfx_check_reason(f, "argument(s) must be one of the following: debug, verbose, notice, "
                        "warning");
    cfx_check_value(f, "maxmemory-policy", "allkeys-lru", "allkeys-lru");
    assert_int_equal(f->c.maxmemory_policy, CORE_POLICY_ALLKEYS_LRU);
    cfx_check_value(f, "maxmemory-policy", "lru", NULL);
    cfx_check_reason(f, "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                     "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                     "noeviction");
    cfx_check_value(f, "enable-debug-command", "local", "local");
    assert_int_equal(f->c.enable_debug_command, CORE_ACCESS_LOCAL);
    cfx_check_value(f, "enable-debug-command", "maybe", NULL);
    cfx_check_reason(f, "argument(s) must be one of the following: no, yes, local");
}

static void test_bind(void **state)
{
    struct cfx *f = *state;
    char line[512] = "bind";

    assert_int_equal(cfx_load(f, "bind 127.0.0.1 ::1\n"), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, 2);
    assert_string_equal(f->c.bind.addr[1], "::1");
    assert_string_equal(cfx_get(f, "bind"), "127.0.0.1 ::1");
    assert_int_equal(cfx_load(f, "bind * -::*\n"), TERSE_OK);
    assert_string_equal(cfx_get(f, "bind"), "* -::*");
    for (int i = 0; i < CORE_CONFIG_BIND_MAX; i++) {
        strcat(line, " 10.0.0.1");
    }
    strcat(line, "\n");
    assert_int_equal(cfx_load(f, line), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, CORE_CONFIG_BIND_MAX);
    line[strlen(line) - 1] = '\0';
    strcat(line, " 10.0.0.2\n");
    assert_int_equal(cfx_load(f, line), TERSE_ECONFIG);
    cfx_check_reason(f, "Too many bind addresses specified.");
    assert_int_equal(f->c.bind.n_addr, CORE_CONFIG_BIND_MAX);
    assert_int_equal(cfx_load(f, "bind \"\"\n"), TERSE_OK);
    assert_int_equal(f->c.bind.n_addr, 0);
    assert_string_equal(cfx_get(f, "bind"), "");
    /* An address is one word of visible characters: GET joins the words with spaces and a
     * SET of that text must give them back (the config fuzzer found a quoted one that did
     * not). */
    assert_int_equal(cfx_load(f, "bind 127.0.0.1\n"), TERSE_OK);
    assert_int_equal(cfx_load(f, "bind 10.0.0.1 \"a b\"\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Invalid bind address");
    assert_int_equal(cfx_load(f, "bind \"\\x01\"\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "bind 10.0.0.1 \"\"\n"), TERSE_ECONFIG);
    assert_string_equal(cfx_get(f, "bind"), "127.0.0.1");
}

static void test_save(void **state)
{
    struct cfx *f = *state;

    /* Within one file, save lines accumulate; a new load replaces. */
    assert_int_equal(cfx_load(f, "save 3600 1\nsave 300 100 60 10000\n"), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "3600 1 300 100 60 10000");
    assert_int_equal(f->c.save.n_point, 3);
    assert_int_equal(f->c.save.point[1].seconds, 300);
    assert_int_equal(cfx_load(f, "save 900 1\n"), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "900 1");
    assert_int_equal(cfx_load(f, "save \"\"\n"), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "");
    assert_int_equal(cfx_load(f, "save 10 0\n"), TERSE_OK);
    assert_int_equal(cfx_load(f, "save 3600\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Invalid save parameters");
    assert_int_equal(cfx_load(f, "save 0 1\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "save 10 -1\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "save abc 1\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "save \"\" 3600 1\n"), TERSE_ECONFIG);
    assert_string_equal(cfx_get(f, "save"), "10 0");
    /* CONFIG SET replaces and splits on spaces. */
    assert_int_equal(cfx_set(f, "save", "3600 1 300 100"), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "3600 1 300 100");
    assert_int_equal(cfx_set(f, "save", "3600  1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'save') - "
                                "Invalid save parameters");
    assert_int_equal(cfx_set(f, "save", ""), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "");
}

static void test_save_max(void **state)
{
    struct cfx *f = *state;
    char line[1024] = "save";

    for (int i = 0; i < CORE_CONFIG_SAVE_MAX; i++) {
        strcat(line, " 60 1");
    }
    assert_int_equal(cfx_load(f, line), TERSE_OK);
    assert_int_equal(f->c.save.n_point, CORE_CONFIG_SAVE_MAX);
    strcat(line, " 60 1");
    assert_int_equal(cfx_load(f, line), TERSE_ECONFIG);
    assert_int_equal(f->c.save.n_point, CORE_CONFIG_SAVE_MAX);
}

static void test_obuf(void **state)
{
    struct cfx *f = *state;
    const struct core_config_obuf_class *pub;

    assert_int_equal(cfx_load(f, "client-output-buffer-limit pubsub 64mb 16mb 90\n"), TERSE_OK);
    pub = &f->c.client_output_buffer_limit.cls[CORE_CLIENT_PUBSUB];
    assert_int_equal(pub->hard_bytes, 64u * 1024 * 1024);
    assert_int_equal(pub->soft_seconds, 90);
    assert_string_equal(cfx_get(f, "client-output-buffer-limit"),
                        "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90");
    assert_int_equal(cfx_load(f, "client-output-buffer-limit REPLICA 1mb 1kb 10 normal 1 2 3\n"),
                     TERSE_OK);
    assert_string_equal(cfx_get(f, "client-output-buffer-limit"),
                        "normal 1 2 3 slave 1048576 1024 10 pubsub 67108864 16777216 90");
    assert_int_equal(cfx_load(f, "client-output-buffer-limit normal 0 0\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Wrong number of arguments in buffer limit configuration.");
    assert_int_equal(cfx_load(f, "client-output-buffer-limit master 0 0 0\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Invalid client class specified in buffer limit configuration.");
    assert_int_equal(cfx_load(f, "client-output-buffer-limit normal 1x 0 0\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Error in hard, soft or soft_seconds setting in buffer limit "
                        "configuration.");
    assert_int_equal(cfx_load(f, "client-output-buffer-limit normal 0 0 -1\n"), TERSE_ECONFIG);
    /* A bad group leaves every class as it was, even a good group before it. */
    assert_int_equal(cfx_load(f, "client-output-buffer-limit normal 5 5 5 pubsub 0 0 x\n"),
                     TERSE_ECONFIG);
    assert_int_equal(f->c.client_output_buffer_limit.cls[CORE_CLIENT_NORMAL].hard_bytes, 1);
}

/* ---- stream node limits ------------------------------------------------------------------ */

static void test_stream_node_limits(void **state)
{
    struct cfx *f = *state;

    /* stream-node-max-entries: Redis's long long INTEGER_CONFIG in [0, LLONG_MAX], default 100;
     * stream-node-max-bytes: a MEMORY_CONFIG in [0, LONG_MAX], default 4096. */
    assert_int_equal(f->c.stream_node_max_entries, 100);
    assert_int_equal(f->c.stream_node_max_bytes, 4096);
    cfx_check_value(f, "stream-node-max-entries", "0", "0");
    cfx_check_value(f, "stream-node-max-entries", "9223372036854775807", "9223372036854775807");
    cfx_check_value(f, "stream-node-max-entries", "-1", NULL);
    cfx_check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    cfx_check_value(f, "stream-node-max-entries", "1k", NULL);
    cfx_check_value(f, "stream-node-max-bytes", "1mb", "1048576");
    cfx_check_value(f, "stream-node-max-bytes", "-1", NULL);
}

/* ---- hash encoding limits and option aliases ------------------------------------------- */

static void test_hash_limits(void **state)
{
    struct cfx *f = *state;

    /* hash-max-listpack-entries: Redis's size_t INTEGER_CONFIG in [0, LONG_MAX]. */
    cfx_check_value(f, "hash-max-listpack-entries", "0", "0");
    cfx_check_value(f, "hash-max-listpack-entries", "9223372036854775807", "9223372036854775807");
    assert_int_equal(f->c.hash_max_listpack_entries, 9223372036854775807LL);
    cfx_check_value(f, "hash-max-listpack-entries", "9223372036854775808", NULL);
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    cfx_check_value(f, "hash-max-listpack-entries", "-1", NULL);
    cfx_check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    cfx_check_value(f, "hash-max-listpack-entries", "1kb", NULL);
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    cfx_check_value(f, "hash-max-listpack-entries", "007", NULL);
    cfx_check_value(f, "hash-max-listpack-entries", "+5", NULL);
    cfx_check_value(f, "hash-max-listpack-entries", "\"\"", NULL);
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    /* hash-max-listpack-value: a MEMORY_CONFIG in [0, LONG_MAX], shown as bytes. */
    cfx_check_value(f, "hash-max-listpack-value", "0", "0");
    cfx_check_value(f, "hash-max-listpack-value", "1kb", "1024");
    cfx_check_value(f, "hash-max-listpack-value", "8gb", "8589934592");
    cfx_check_value(f, "hash-max-listpack-value", "9223372036854775807", "9223372036854775807");
    assert_int_equal(f->c.hash_max_listpack_value, 9223372036854775807ULL);
    cfx_check_value(f, "hash-max-listpack-value", "9223372036854775808", NULL);
    cfx_check_reason(f, "argument must be between 0 and 9223372036854775807 inclusive");
    cfx_check_value(f, "hash-max-listpack-value", "-1", NULL);
    cfx_check_reason(f, "argument must be a memory value");
    cfx_check_value(f, "hash-max-listpack-value", "1.5", NULL);
    cfx_check_reason(f, "argument must be a memory value");
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
    struct cfx *f = *state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        CFX_TEST(test_defaults),
        cmocka_unit_test(test_deinit_twice),
        CFX_TEST(test_bool),
        CFX_TEST(test_int_limits),
        CFX_TEST(test_hz_clamps),
        CFX_TEST(test_memory_units),
        CFX_TEST(test_string_and_enum),
        CFX_TEST(test_bind),
        CFX_TEST(test_save),
        CFX_TEST(test_save_max),
        CFX_TEST(test_obuf),
        CFX_TEST(test_hash_limits),
        CFX_TEST(test_stream_node_limits),
        CFX_TEST(test_alias_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
