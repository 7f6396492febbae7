/*
 * test_core_config_load: cmocka tests of the config file and command line reader
 * (src/core/core_config_load.c): quoting; file errors with their line; loading a file; the
 * command line, its special cases and its precedence over the file; aliases in the file and
 * on the command line.
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

/* ---- file syntax ------------------------------------------------------------------------- */

static void test_quotes(void **state)
{
    struct cfx *f = *state;

    assert_int_equal(cfx_load(f, "requirepass \"a\\tb\\x41\\\"\\\\\"\n"), TERSE_OK);
    assert_string_equal(f->c.requirepass, "a\tbA\"\\");
    assert_int_equal(cfx_load(f, "requirepass 'it\\'s \"x\"'\n"), TERSE_OK);
    assert_string_equal(f->c.requirepass, "it's \"x\"");
    assert_int_equal(cfx_load(f, "\"port\" '7001'\n"), TERSE_OK);
    assert_int_equal(f->c.port, 7001);
    assert_int_equal(cfx_load(f, "PORT 7002\r\n"), TERSE_OK);
    assert_int_equal(f->c.port, 7002);
    assert_int_equal(cfx_load(f, "save \"3600 1\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Unbalanced quotes in configuration line");
    assert_int_equal(cfx_load(f, "port \"70\"01\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "Unbalanced quotes in configuration line");
    assert_int_equal(cfx_load(f, "requirepass \"a\\x00b\"\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "requirepass 'abc\n"), TERSE_ECONFIG);
    assert_string_equal(f->c.requirepass, "it's \"x\"");
}

static void test_file_errors(void **state)
{
    struct cfx *f = *state;

    assert_int_equal(cfx_load(f, "port 7000\n# comment\n\n   \n  hz 20  \nfoo bar\n"),
                     TERSE_ECONFIG);
    assert_string_equal(f->err, "\n*** FATAL CONFIG FILE ERROR (terse) ***\n"
                                "Reading the configuration file 't.conf', at line 6\n"
                                ">>> 'foo bar'\n"
                                "Bad directive or wrong number of arguments");
    /* Lines before the bad one stay applied (startup stops anyway). */
    assert_int_equal(f->c.port, 7000);
    assert_int_equal(f->c.hz, 20);
    assert_int_equal(cfx_load(f, "port\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(cfx_load(f, "port 1 2\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(cfx_load(f, "port 7000 # not a comment\n"), TERSE_ECONFIG);
    assert_int_equal(cfx_load(f, "\n\n  hz abc\n"), TERSE_ECONFIG);
    assert_non_null(strstr(f->err, "at line 3\n>>> 'hz abc'\n"));
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    /* No trailing newline, empty input, comments only. */
    assert_int_equal(cfx_load(f, "port 7003"), TERSE_OK);
    assert_int_equal(f->c.port, 7003);
    assert_int_equal(cfx_load(f, ""), TERSE_OK);
    assert_int_equal(cfx_load(f, "# only\n#comments"), TERSE_OK);
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
    struct cfx *f = *state;
    char path[] = "/tmp/test_core_config_XXXXXX";
    int fd = mkstemp(path);
    const char body[] = "port 7100\nmaxmemory 2gb\nbind 0.0.0.0\n";

    assert_true(fd >= 0);
    assert_int_equal(write(fd, body, sizeof body - 1), (ssize_t)(sizeof body - 1));
    close(fd);
    assert_int_equal(core_config_load_file(&f->c, path, f->err, sizeof f->err), TERSE_OK);
    assert_int_equal(f->c.port, 7100);
    assert_int_equal(f->c.maxmemory, 2ULL << 30);
    assert_string_equal(cfx_get(f, "bind"), "0.0.0.0");
    unlink(path);
    assert_int_equal(core_config_load_file(&f->c, path, f->err, sizeof f->err), TERSE_EIO);
    assert_non_null(strstr(f->err, "can't open config file"));
}

/* ---- command line ------------------------------------------------------------------------ */

static int args(struct cfx *f, int argc, const char *const *argv)
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
    struct cfx *f = *state;
    static const char *const a[] = {"--port", "7000",      "--save", "",       "--bind",
                                    "10.0.0.1", "::1", "--maxmemory", "1mb"};

    assert_int_equal(cfx_load(f, "port 6000\nsave 60 1\nbind 0.0.0.0\nhz 20\n"), TERSE_OK);
    assert_int_equal(args(f, 9, a), TERSE_OK);
    assert_int_equal(f->c.port, 7000);
    assert_string_equal(cfx_get(f, "save"), "");
    assert_string_equal(cfx_get(f, "bind"), "10.0.0.1 ::1");
    assert_int_equal(f->c.maxmemory, 1048576);
    assert_int_equal(f->c.hz, 20);
}

static void test_args_special(void **state)
{
    struct cfx *f = *state;
    static const char *const save_alone[] = {"--save", "--port", "7001"};
    static const char *const save_last[] = {"--save"};
    static const char *const one_word[] = {"--port 7002", "--requirepass", "--x"};
    static const char *const quoted[] = {"--requirepass", "a \"b\"\n'c'"};
    static const char *const stray[] = {"port", "7000"};
    static const char *const bad[] = {"--port", "7000", "--hz", "x"};
    static const char *const missing[] = {"--port"};
    static const char *const unknown[] = {"--nope", "1"};
    static const char *const newline[] = {"--hz 5\nport 1"};

    assert_int_equal(cfx_load(f, "save 60 1\n"), TERSE_OK);
    assert_int_equal(args(f, 3, save_alone), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "");
    assert_int_equal(f->c.port, 7001);
    assert_int_equal(cfx_load(f, "save 60 1\n"), TERSE_OK);
    assert_int_equal(args(f, 1, save_last), TERSE_OK);
    assert_string_equal(cfx_get(f, "save"), "");
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
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 2, unknown), TERSE_ECONFIG);
    cfx_check_reason(f, "Bad directive or wrong number of arguments");
    /* A line break inside a word does not smuggle in a second directive. */
    assert_int_equal(args(f, 1, newline), TERSE_ECONFIG);
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 0, NULL), TERSE_OK);
}

static void test_alias_file_and_args(void **state)
{
    struct cfx *f = *state;
    static const char *const a[] = {"--hash-max-ziplist-entries", "0",
                                    "--hash-max-ziplist-value", "1kb"};
    static const char *const bad[] = {"--hash-max-ziplist-entries", "-5"};

    assert_int_equal(cfx_load(f, "hash-max-ziplist-entries 10\nHASH-MAX-ZIPLIST-VALUE 5mb\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 10);
    assert_int_equal(f->c.hash_max_listpack_value, 5u * 1024 * 1024);
    assert_string_equal(cfx_get(f, "hash-max-listpack-entries"), "10");
    assert_string_equal(cfx_get(f, "HASH-MAX-ZIPLIST-ENTRIES"), "10");
    /* One option under two names: the last line wins, whichever name it uses. */
    assert_int_equal(cfx_load(f, "hash-max-ziplist-entries 10\nhash-max-listpack-entries 30\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 30);
    assert_int_equal(cfx_load(f, "hash-max-listpack-entries 30\nhash-max-ziplist-entries 10\n"),
                     TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 10);
    assert_int_equal(cfx_load(f, "hash-max-ziplist-entries abc\n"), TERSE_ECONFIG);
    assert_non_null(strstr(f->err, ">>> 'hash-max-ziplist-entries abc'\n"));
    cfx_check_reason(f, "argument couldn't be parsed into an integer");
    assert_int_equal(cfx_load(f, "hash-max-ziplist-entries 1 2\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(cfx_load(f, "hash-max-ziplist-value\n"), TERSE_ECONFIG);
    cfx_check_reason(f, "wrong number of arguments");
    assert_int_equal(args(f, 4, a), TERSE_OK);
    assert_int_equal(f->c.hash_max_listpack_entries, 0);
    assert_int_equal(f->c.hash_max_listpack_value, 1024);
    assert_int_equal(args(f, 2, bad), TERSE_ECONFIG);
    assert_string_equal(f->err, "\n*** FATAL CONFIG FILE ERROR (terse) ***\n"
                                "Reading the command line, at option 1\n"
                                ">>> 'hash-max-ziplist-entries \"-5\"'\n"
                                "argument must be between 0 and 9223372036854775807 inclusive");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CFX_TEST(test_quotes),
        CFX_TEST(test_file_errors),
        CFX_TEST(test_load_file),
        CFX_TEST(test_args_override_file),
        CFX_TEST(test_args_special),
        CFX_TEST(test_alias_file_and_args),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
