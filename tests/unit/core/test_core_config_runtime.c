/*
 * test_core_config_runtime: cmocka tests of CONFIG SET and CONFIG GET
 * (src/core/core_config_runtime.c): CONFIG SET's Redis 7.0 error texts, immutability,
 * protection and atomicity, aliases set under both names; CONFIG GET globs, aliases and single
 * options; OOM injection through core_mem.
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

/* ---- CONFIG SET -------------------------------------------------------------------------- */

static void test_set_errors(void **state)
{
    struct cfx *f = *state;

    assert_int_equal(cfx_set(f, "foo", "bar"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
    assert_int_equal(cfx_set(f, "databases", "4"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'databases') - can't set immutable config");
    assert_int_equal(cfx_set(f, "daemonize", "no"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'daemonize') - can't set immutable config");
    assert_int_equal(cfx_set(f, "dir", "/tmp"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'dir') - "
                                "can't set protected config");
    assert_int_equal(cfx_set(f, "port", "70000"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'port') - "
                                "argument must be between 0 and 65535 inclusive");
    /* Value errors name the option in its own spelling, as Redis does. */
    assert_int_equal(cfx_set(f, "HZ", "abc"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument 'hz') - "
                                "argument couldn't be parsed into an integer");
    assert_int_equal(cfx_set(f, "maxmemory", "1x"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'maxmemory') - argument must be a memory value");
    assert_int_equal(cfx_set(f, "protected-mode", "maybe"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'protected-mode') - argument must be 'yes' or 'no'");
    assert_int_equal(cfx_set(f, "Maxmemory", "1GB"), TERSE_OK);
    assert_int_equal(f->c.maxmemory, 1ULL << 30);
    assert_int_equal(cfx_set(f, "bind", "127.0.0.1 ::1"), TERSE_OK);
    assert_string_equal(cfx_get(f, "bind"), "127.0.0.1 ::1");
    assert_int_equal(cfx_set(f, "client-output-buffer-limit", "normal 0 0 0 pubsub 1 1 1"),
                     TERSE_OK);
    assert_string_equal(cfx_get(f, "client-output-buffer-limit"),
                        "normal 0 0 0 slave 268435456 67108864 60 pubsub 1 1 1");
}

static void test_set_pairs(void **state)
{
    struct cfx *f = *state;
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
    assert_string_equal(cfx_get(f, "bind"), "::1");
    assert_int_equal(core_config_set_pairs(&f->c, n5, v5, 0, 0, f->err, sizeof f->err),
                     TERSE_EINVAL);
}

static void test_set_protected(void **state)
{
    struct cfx *f = *state;
    const char *n[] = {"dir"}, *v[] = {"/data"};

    assert_int_equal(cfx_load(f, "enable-protected-configs local\n"), TERSE_OK);
    assert_int_equal(core_config_set_pairs(&f->c, n, v, 1, 0, f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_int_equal(core_config_set_pairs(&f->c, n, v, 1, CORE_CONFIG_SET_LOCAL, f->err,
                                           sizeof f->err),
                     TERSE_OK);
    assert_string_equal(f->c.dir, "/data");
    assert_int_equal(cfx_load(f, "enable-protected-configs yes\n"), TERSE_OK);
    assert_int_equal(cfx_set(f, "dbfilename", "x/y"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'dbfilename') - dbfilename can't be a path, just a filename");
    assert_int_equal(cfx_set(f, "dbfilename", "y.terse"), TERSE_OK);
    assert_string_equal(f->c.dbfilename, "y.terse");
}

static void test_alias_set(void **state)
{
    struct cfx *f = *state;
    const char *n1[] = {"hash-max-ziplist-entries", "hash-max-listpack-entries"};
    const char *v1[] = {"1", "2"};
    const char *n2[] = {"hash-max-listpack-entries", "hash-max-ziplist-entries"};
    const char *n3[] = {"hash-max-ziplist-entries", "HASH-MAX-ZIPLIST-ENTRIES"};
    const char *n4[] = {"hash-max-ziplist-entries", "hash-max-listpack-entries"};
    const char *v4[] = {"5", "abc"};
    const char *n5[] = {"Hash-Max-Ziplist-Value", "databases"};

    assert_int_equal(cfx_set(f, "hash-max-ziplist-entries", "7"), TERSE_OK);
    assert_string_equal(cfx_get(f, "hash-max-listpack-entries"), "7");
    assert_int_equal(cfx_set(f, "hash-max-listpack-value", "1kb"), TERSE_OK);
    assert_string_equal(cfx_get(f, "hash-max-ziplist-value"), "1024");
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
    assert_int_equal(cfx_set(f, "HASH-MAX-ZIPLIST-ENTRIES", "abc"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-entries') - argument couldn't be parsed "
                                "into an integer");
    assert_int_equal(cfx_set(f, "hash-max-ziplist-entries", "-1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-entries') - argument must be between 0 and "
                                "9223372036854775807 inclusive");
    assert_int_equal(cfx_set(f, "hash-max-ziplist-value", "-1"), TERSE_ECONFIG);
    assert_string_equal(f->err, "ERR CONFIG SET failed (possibly related to argument "
                                "'hash-max-ziplist-value') - argument must be a memory value");
    assert_int_equal(cfx_set(f, "hash-max-listpack-value", "9223372036854775808"), TERSE_ECONFIG);
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

static struct seen *get_all(struct cfx *f, const char *pattern)
{
    static struct seen s; /* test-only scratch */

    memset(&s, 0, sizeof s);
    core_config_get(&f->c, pattern, collect, &s);
    return &s;
}

static void test_get_globs(void **state)
{
    struct cfx *f = *state;
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
    struct cfx *f = *state;
    struct seen *s;

    assert_int_equal(cfx_set(f, "hash-max-listpack-entries", "100"), TERSE_OK);
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
    struct cfx *f = *state;
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
        CFX_TEST(test_alias_set),
        CFX_TEST(test_set_errors),
        CFX_TEST(test_set_pairs),
        CFX_TEST(test_set_protected),
        CFX_TEST(test_get_globs),
        CFX_TEST(test_get_aliases),
        CFX_TEST(test_get_one),
        cmocka_unit_test(test_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
