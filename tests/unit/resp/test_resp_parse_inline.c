/*
 * Unit tests for resp_parse's inline commands: splitting on blanks, empty lines, double and
 * single quotes with their escapes, unbalanced quotes, the inline size limit, a NUL before the
 * newline, long quoted arguments, OOM. Checked whole and at every prefix by
 * resp_parse_fixture.c; expected texts from redis-server 7.0.15.
 */
#include "resp/resp_parse.h"

#include "resp_parse_fixture.h"
#include "terse/status.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- inline ---------------------------------------------------------------------------- */

static void test_inline_basic(void **state)
{
    static const struct rpf_want ping[] = { W("PING") };
    static const struct rpf_want set[] = { W("SET"), W("k"), W("v") };

    rpf_check_ok(*state, IN("PING\n"), 5, ping, 1, 1);
    assert_int_equal(((struct resp_request *)*state)->inline_cmd, 1);
    rpf_check_ok(*state, IN("PING\r\n"), 6, ping, 1, 1);
    rpf_check_ok(*state, IN("SET k v\r\n"), 9, set, 3, 1);
    rpf_check_ok(*state, IN("  SET \t k   v  \r\n"), 17, set, 3, 1);
    /* '\r' inside the line separates words too. */
    rpf_check_ok(*state, IN("SET\rk\rv\n"), 8, set, 3, 1);
}

static void test_inline_empty_lines(void **state)
{
    rpf_check_ok(*state, IN("\n"), 1, NULL, 0, 1);
    rpf_check_ok(*state, IN("\r\n"), 2, NULL, 0, 1);
    rpf_check_ok(*state, IN("  \t  \r\nPING\n"), 7, NULL, 0, 1);
    rpf_check_ok(*state, IN("\v\f\n"), 3, NULL, 0, 1);
}

static void test_inline_double_quotes(void **state)
{
    struct resp_request *r = *state;
    static const struct rpf_want esc[] = { W("ECHO"), W("aA\n") };
    static const struct rpf_want plain[] = { W("ECHO"), W("a b") };
    static const struct rpf_want mixed[] = { W("ECHO"), W("ab c") };
    static const struct rpf_want all[] = { W("ECHO"), W("a\"bq\r\t\b\a") };
    static const struct rpf_want hex[] = { W("ECHO"), W("\xafxZZ"), W("x4g") };
    static const struct rpf_want bs_end[] = { W("ECHO"), W("\\") };

    rpf_check_ok(r, IN("ECHO \"a\\x41\\n\"\n"), ALL, esc, 2, 0);
    rpf_check_ok(r, IN("ECHO a\"b c\"\n"), ALL, mixed, 2, 0);
    rpf_check_ok(r, IN("ECHO \"a\\\"b\\q\\r\\t\\b\\a\"\n"), ALL, all, 2, 0);
    /* "\xZZ" and "\x4g" are not hex escapes: the '\' just drops, 'x' is kept. */
    rpf_check_ok(r, IN("ECHO \"\\xAf\\xZZ\" \"\\x4g\"\n"), ALL, hex, 3, 0);
    rpf_check_ok(r, IN("ECHO \"\\\\\"\n"), ALL, bs_end, 2, 0);
    /* A quoted word without escapes stays a slice of the input. */
    rpf_check_ok(r, IN("ECHO \"a b\"\n"), ALL, plain, 2, 1);
}

static void test_inline_single_quotes(void **state)
{
    static const struct rpf_want w[] = { W("ECHO"), W("a'b") };
    static const struct rpf_want raw[] = { W("ECHO"), W("a\\nb\"") };
    static const struct rpf_want empty[] = { W("ECHO"), W(""), W("") };

    rpf_check_ok(*state, IN("ECHO 'a\\'b'\n"), ALL, w, 2, 0);
    /* No escapes other than \' inside single quotes. */
    rpf_check_ok(*state, IN("ECHO 'a\\nb\"'\n"), ALL, raw, 2, 1);
    rpf_check_ok(*state, IN("ECHO \"\" ''\n"), ALL, empty, 3, 1);
}

static void test_inline_blanks(void **state)
{
    /* \v and \f are skipped between words but are part of an unquoted word (sdssplitargs). */
    static const struct rpf_want vt[] = { W("ECHO"), W("ab\vcd") };
    static const struct rpf_want after_quote[] = { W("ECHO"), W("ab"), W("cd") };

    rpf_check_ok(*state, IN("ECHO \vab\vcd\n"), ALL, vt, 2, 1);
    rpf_check_ok(*state, IN("ECHO \"ab\"\vcd\n"), ALL, after_quote, 3, 1);
}

static void test_inline_unbalanced(void **state)
{
    static const char *const bad[] = {
        "ECHO \"abc\"def\n", "ECHO \"abc\n",  "ECHO 'ab'c\n", "ECHO \"ab\\\n",
        "ECHO 'ab\\\n",      "ECHO 'ab\r\n", "\"\n",          "ECHO \"a\\x4\n",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rpf_check_err(*state, bad[i], strlen(bad[i]),
                  "Protocol error: unbalanced quotes in request");
    }
}

static void test_inline_too_big(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    b = rpf_make_buf("", RESP_INLINE_MAX, 'A', "", &n);
    rpf_check_more(r, b, n, 0);
    free(b);
    b = rpf_make_buf("", RESP_INLINE_MAX + 1, 'A', "", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big inline request");
    free(c);
    free(b);
    /* Redis accepts a longer line that arrived whole. */
    b = rpf_make_buf("ECHO ", 70000, 'A', "\r\n", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_OK);
    assert_int_equal(consumed, n);
    assert_int_equal(r->argc, 2);
    assert_int_equal(r->argv[1].len, 70000);
    free(c);
    free(b);
}

static void test_inline_nul_hides_newline(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    rpf_check_more(r, IN("PING\0\n"), 0);
    b = rpf_make_buf_n("PING\0", 5, RESP_INLINE_MAX, 'A', "\n", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big inline request");
    free(c);
    free(b);
}

static void test_inline_long_quoted(void **state)
{
    /* ibuf grows to the line; the unescaped word is checked byte for byte. */
    struct resp_request *r = *state;
    size_t n = 0;
    size_t i;
    size_t consumed;
    char *b = malloc(4 * 3000 + 32);
    uint8_t *c;

    assert_non_null(b);
    n += (size_t)sprintf(b, "SET k \"");
    for (i = 0; i < 3000; i++) {
        n += (size_t)sprintf(b + n, "\\x%02zx", i & 0xff);
    }
    n += (size_t)sprintf(b + n, "\" 'x'\n");
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_OK);
    assert_int_equal(consumed, n);
    assert_int_equal(r->argc, 4);
    assert_int_equal(r->argv[2].len, 3000);
    for (i = 0; i < 3000; i++) {
        assert_int_equal(r->argv[2].p[i], i & 0xff);
    }
    assert_true(r->argv[2].p >= r->ibuf && r->argv[2].p + 3000 <= r->ibuf + r->ibuf_cap);
    assert_int_equal(r->argv[3].len, 1);
    free(c);
    free(b);
}

static void test_inline_oom(void **state)
{
    struct resp_request *r = *state;
    static const char in[] = "ECHO \"a\\x41\" b c d e f g h i j k l m n o p\n";
    long n;
    int saw_ok = 0;

    for (n = 0; n < 10 && !saw_ok; n++) {
        size_t consumed = 7;
        int rc;

        resp_request_deinit(r);
        resp_request_init(r, rpf_realloc, rpf_free);
        rpf_calls = 0;
        rpf_fail_at = n;
        rc = resp_parse_request(r, (const uint8_t *)in, sizeof(in) - 1, &rpf_lim, &consumed);
        if (rc == TERSE_OK) {
            saw_ok = 1;
            continue;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_int_equal(consumed, 0);
        assert_int_equal(r->argc, 0);
    }
    assert_true(saw_ok);
    assert_int_equal(r->argc, 17);
    assert_int_equal(r->argv[1].len, 2);
    assert_memory_equal(r->argv[1].p, "aA", 2);
    rpf_fail_at = -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        RPF_TEST(test_inline_basic),
        RPF_TEST(test_inline_empty_lines),
        RPF_TEST(test_inline_double_quotes),
        RPF_TEST(test_inline_single_quotes),
        RPF_TEST(test_inline_blanks),
        RPF_TEST(test_inline_unbalanced),
        RPF_TEST(test_inline_too_big),
        RPF_TEST(test_inline_nul_hides_newline),
        RPF_TEST(test_inline_long_quoted),
        RPF_TEST(test_inline_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
