/*
 * Unit tests for resp_parse: the RESP request parser, multibulk requests and pipelines.
 *
 * Every accepted input is checked whole, at every prefix (a prefix shorter than the command
 * must give TERSE_MORE with nothing consumed; a longer one the same command), and fed to a
 * simulated connection one byte at a time. Every rejected input is checked whole and at every
 * prefix (TERSE_MORE or the same error). Inputs are copied into exact-size heap blocks so a
 * read past the end trips AddressSanitizer. Expected texts were taken from redis-server 7.0.15.
 * Inline commands are tested in test_resp_parse_inline.c, a command arriving in pieces in
 * test_resp_parse_resume.c; the checks, and the counting allocator the "no preallocation" and
 * OOM tests use, are in resp_parse_fixture.c.
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

/* ---- multibulk: accepted --------------------------------------------------------------- */

static void test_mbulk_ping(void **state)
{
    static const struct rpf_want w[] = { W("PING") };

    rpf_check_ok(*state, IN("*1\r\n$4\r\nPING\r\n"), 14, w, 1, 1);
    assert_int_equal(((struct resp_request *)*state)->inline_cmd, 0);
}

static void test_mbulk_binary(void **state)
{
    /* Bulk data may hold CR, LF and NUL. */
    static const struct rpf_want w[] = { W("SET"), W("k"), W("a\r\n\0") };

    rpf_check_ok(*state, IN("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\n\0\r\n"), ALL, w, 3, 1);
}

static void test_mbulk_empty_bulk(void **state)
{
    static const struct rpf_want w[] = { W("ECHO"), W("") };

    rpf_check_ok(*state, IN("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"), ALL, w, 2, 1);
}

static void test_mbulk_zero_and_negative_count(void **state)
{
    /* Redis consumes the line and executes nothing. */
    rpf_check_ok(*state, IN("*0\r\n"), 4, NULL, 0, 1);
    rpf_check_ok(*state, IN("*-1\r\n"), 5, NULL, 0, 1);
    rpf_check_ok(*state, IN("*-5\r\nPING\r\n"), 5, NULL, 0, 1);
    rpf_check_ok(*state, IN("*-9223372036854775808\r\n"), 23, NULL, 0, 1);
}

static void test_mbulk_unchecked_crlf(void **state)
{
    /* Redis skips the byte after a length line's '\r' and the two bytes after bulk data
     * without looking at them. */
    static const struct rpf_want w[] = { W("PING") };

    rpf_check_ok(*state, IN("*1\rX$4\r\nPING\r\n"), 14, w, 1, 1);
    rpf_check_ok(*state, IN("*1\r\n$4\rXPING\r\n"), 14, w, 1, 1);
    rpf_check_ok(*state, IN("*1\r\n$4\r\nPINGxx"), 14, w, 1, 1);
}

static void test_mbulk_count_at_limit(void **state)
{
    struct resp_limits lim = { RESP_DEFAULT_MAX_BULK, 3, 0 };
    static const struct rpf_want w[] = { W("a"), W("b"), W("c") };

    rpf_check_ok_lim(*state, IN("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"), 25, w, 3, 1, &lim);
    rpf_check_err_lim(*state, IN("*4\r\n"), "Protocol error: invalid multibulk length", &lim);
    /* Default limit: RESP_MAX_MULTIBULK itself is accepted (waits for elements). */
    rpf_check_more(*state, IN("*2147483647\r\n"), 0);
    rpf_check_err(*state, IN("*2147483648\r\n"), "Protocol error: invalid multibulk length");
}

static void test_mbulk_bulk_at_limit(void **state)
{
    struct resp_limits lim = { 4, RESP_MAX_MULTIBULK, 0 };
    static const struct rpf_want w[] = { W("PING") };

    rpf_check_ok_lim(*state, IN("*1\r\n$4\r\nPING\r\n"), 14, w, 1, 1, &lim);
    rpf_check_err_lim(*state, IN("*1\r\n$5\r\nPINGS\r\n"), "Protocol error: invalid bulk length",
                  &lim);
    /* proto-max-bulk-len default: 512 MiB accepted, one more refused. */
    rpf_check_more(*state, IN("*1\r\n$536870912\r\n"), 16 + 536870912 + 2);
    rpf_check_err(*state, IN("*1\r\n$536870913\r\n"), "Protocol error: invalid bulk length");
}

/* Before AUTH (requirepass set) Redis 7.0.15 accepts at most 10 arguments of 16 KiB each. */
static void test_unauthenticated_limits(void **state)
{
    struct resp_limits lim = { RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, 1 };
    static const struct rpf_want w[] = { W("AUTH"), W("pw") };

    rpf_check_ok_lim(*state, IN("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n"), 22, w, 2, 1, &lim);
    rpf_check_more_lim(*state, IN("*10\r\n"), &lim);
    rpf_check_err_lim(*state, IN("*11\r\n"), "Protocol error: unauthenticated multibulk length",
                  &lim);
    rpf_check_more_lim(*state, IN("*1\r\n$16384\r\n"), &lim);
    rpf_check_err_lim(*state, IN("*1\r\n$16385\r\n"), "Protocol error: unauthenticated bulk length",
                  &lim);
}

static void test_mbulk_need(void **state)
{
    struct resp_request *r = *state;
    struct resp_limits lim = { LLONG_MAX, RESP_MAX_MULTIBULK, 0 };
    size_t consumed;
    uint8_t *b;

    rpf_check_more(r, IN("*1\r"), 4);
    rpf_check_more(r, IN("*1\r\n$4\r"), 8);
    rpf_check_more(r, IN("*1\r\n$100000\r\n"), 13 + 100000 + 2);
    rpf_check_more(r, IN("*2\r\n$1\r\na\r\n$100000\r\nxyz"), 20 + 100000 + 2);
    rpf_check_more(r, IN("*1\r\n$1\r\na"), 11);
    rpf_check_more(r, IN("*1\r\n$1\r\na\r"), 11);
    rpf_check_more(r, IN("*1\r\n$"), 0);
    /* A bulk length near LLONG_MAX saturates need instead of wrapping. */
    assert_int_equal(rpf_parse_copy(r, IN("*1\r\n$9223372036854775807\r\n"), &lim, &consumed, &b),
                     TERSE_MORE);
    free(b);
    assert_true(r->need == (SIZE_MAX > (size_t)LLONG_MAX ? 26 + (size_t)LLONG_MAX + 2 : SIZE_MAX));
}

static void test_mbulk_lim_null(void **state)
{
    struct resp_request *r = *state;
    static const char in[] = "*1\r\n$4\r\nPING\r\n";
    size_t consumed;

    assert_int_equal(resp_parse_request(r, (const uint8_t *)in, 14, NULL, &consumed), TERSE_OK);
    assert_int_equal(consumed, 14);
    assert_int_equal(r->argc, 1);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)in, 0, NULL, &consumed),
                     TERSE_MORE);
}

/* ---- multibulk: rejected --------------------------------------------------------------- */

static void test_mbulk_bad_count(void **state)
{
    static const char *const bad[] = {
        "*\r\n",
        "*+1\r\n",
        "*01\r\n",
        "*-0\r\n",
        "*-\r\n",
        "*1a\r\n",
        "* 1\r\n",
        "*1 \r\n",
        "*9223372036854775807\r\n",
        "*9223372036854775808\r\n",  /* LLONG_MAX + 1 */
        "*-9223372036854775809\r\n", /* LLONG_MIN - 1 */
        "*18446744073709551616\r\n", /* ULLONG_MAX + 1 */
        "*000000000000000000001\r\n",
        "*2147483648\r\n", /* above INT_MAX (Redis 7.0) = RESP_MAX_MULTIBULK */
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rpf_check_err(*state, bad[i], strlen(bad[i]), "Protocol error: invalid multibulk length");
    }
}

static void test_mbulk_bad_bulk_len(void **state)
{
    static const char *const bad[] = {
        "*1\r\n$-1\r\n",
        "*1\r\n$-2\r\n",
        "*1\r\n$+4\r\nPING\r\n",
        "*1\r\n$04\r\nPING\r\n",
        "*1\r\n$-0\r\n",
        "*1\r\n$\r\n",
        "*1\r\n$a\r\n",
        "*1\r\n$4 \r\n",
        "*1\r\n$9223372036854775808\r\n",
        "*1\r\n$-9223372036854775808\r\n",
        "*1\r\n$123456789012345678901\r\n",
        "*1\r\n$999999999999999999\r\n",  /* 18 digits: read in one pass, over the limit */
        "*1\r\n$1234567890123456789\r\n", /* 19: the general path, over the limit */
        "*2\r\n$1\r\na\r\n$x\r\n",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rpf_check_err(*state, bad[i], strlen(bad[i]), "Protocol error: invalid bulk length");
    }
}

static void test_mbulk_expected_dollar(void **state)
{
    rpf_check_err(*state, IN("*1\r\nX4\r\nPING\r\n"), "Protocol error: expected '$', got 'X'");
    rpf_check_err(*state, IN("*2\r\n$1\r\na\r\n:1\r\n"), "Protocol error: expected '$', got ':'");
    /* Redis maps CR and LF in error texts to spaces. */
    rpf_check_err(*state, IN("*1\r\n\r\n"), "Protocol error: expected '$', got ' '");
    rpf_check_err(*state, IN("*1\r\n\n\r\n"), "Protocol error: expected '$', got ' '");
    rpf_check_err(*state, IN("*1\r\n\xff\r\n"), "Protocol error: expected '$', got '\xff'");
    rpf_check_err(*state, IN("*1\r\n*1\r\n"), "Protocol error: expected '$', got '*'");
}

static void test_mbulk_too_big_count_string(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    /* RESP_INLINE_MAX bytes without '\r': still waiting; one more: refused. */
    b = rpf_make_buf("*", RESP_INLINE_MAX - 1, '1', "", &n);
    rpf_check_more(r, b, n, 0);
    free(b);
    b = rpf_make_buf("*", RESP_INLINE_MAX, '1', "", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big mbulk count string");
    free(c);
    free(b);
    /* A long count line that arrived whole is only an invalid number (as in Redis). */
    b = rpf_make_buf("*", 70000, '1', "\r\n", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: invalid multibulk length");
    free(c);
    free(b);
}

static void test_mbulk_too_big_bulk_count_string(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    /* The limit counts from the start of the bulk line, as Redis counts from qb_pos. */
    b = rpf_make_buf("*2\r\n$1\r\na\r\n$", RESP_INLINE_MAX - 1, '1', "", &n);
    rpf_check_more(r, b, n, 0);
    free(b);
    b = rpf_make_buf("*2\r\n$1\r\na\r\n$", RESP_INLINE_MAX, '1', "", &n);
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big bulk count string");
    assert_int_equal(consumed, 0);
    free(c);
    free(b);
}

static void test_mbulk_nul_hides_cr(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    /* Redis looks for '\r' with strchr(): a NUL before it hides it. */
    rpf_check_more(r, IN("*1\0\r\n$4\r\nPING\r\n"), 0);
    rpf_check_more(r, IN("*1\r\n$4\0\r\nPING\r\n"), 0);
    b = rpf_make_buf_n("*1\0", 3, RESP_INLINE_MAX, 'A', "\r\n", &n);
    resp_request_reset(r); /* another command than the one check_more left in progress */
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big mbulk count string");
    free(c);
    free(b);
}

static void test_mbulk_huge_count_no_prealloc(void **state)
{
    struct resp_request *r = *state;
    size_t consumed;
    uint8_t *b;

    assert_int_equal(rpf_parse_copy(r, IN("*1000000\r\n"), &rpf_lim, &consumed, &b), TERSE_MORE);
    free(b);
    assert_int_equal(rpf_calls, 0);
    assert_int_equal(r->argv_cap, 0);
    assert_int_equal(rpf_parse_copy(r, IN("*1000000\r\n$1\r\na\r\n$1\r\nb\r\n"), &rpf_lim,
                                    &consumed, &b),
                     TERSE_MORE);
    free(b);
    assert_true(r->argv_cap <= 8);
    assert_int_equal(r->argc, 0);
}

static void test_mbulk_many_args(void **state)
{
    struct resp_request *r = *state;
    size_t n = 0;
    size_t i;
    size_t consumed;
    size_t calls;
    char *b = malloc(1000 * 16 + 16);
    uint8_t *c;

    assert_non_null(b);
    n += (size_t)sprintf(b + n, "*1000\r\n");
    for (i = 0; i < 1000; i++) {
        n += (size_t)sprintf(b + n, "$%zu\r\n%zu\r\n", i < 10 ? (size_t)1 : i < 100 ? 2 : 3, i);
    }
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_OK);
    free(c);
    assert_int_equal(consumed, n);
    assert_int_equal(r->argc, 1000);
    assert_int_equal(r->argv[999].len, 3);
    assert_memory_equal(r->argv[999].p, "999", 3);
    /* Steady state: the same command again allocates nothing. */
    calls = (size_t)rpf_calls;
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_OK);
    free(c);
    assert_int_equal((size_t)rpf_calls, calls);
    free(b);
}

static void test_mbulk_oom(void **state)
{
    struct resp_request *r = *state;
    static const char in[] = "*20\r\n"
                             "$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n"
                             "$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n"
                             "$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n"
                             "$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n";
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
            assert_int_equal(r->argc, 20);
            continue;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_int_equal(consumed, 0);
        assert_int_equal(r->argc, 0);
        /* The same call succeeds once memory is back. */
        rpf_fail_at = -1;
        assert_int_equal(
            resp_parse_request(r, (const uint8_t *)in, sizeof(in) - 1, &rpf_lim, &consumed),
            TERSE_OK);
        assert_int_equal(r->argc, 20);
        assert_memory_equal(r->argv[19].p, "e", 1);
    }
    assert_true(saw_ok);
    rpf_fail_at = -1;
}

/* ---- pipelines ------------------------------------------------------------------------- */

static void test_pipeline_bytewise(void **state)
{
    static const char in[] = "*1\r\n$4\r\nPING\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"
                             "*0\r\n\r\nSET k \"v v\"\n*-1\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                             "$3\r\na\rb\r\n";
    char out[512];
    size_t cmds = rpf_feed_bytewise(*state, in, sizeof(in) - 1, out, sizeof(out));

    assert_int_equal(cmds, 8);
    assert_string_equal(out, "PING\nPING\nECHO|hi\n\n\nSET|k|v v\n\nSET|k|a\rb\n");
}

static void test_pipeline_whole(void **state)
{
    /* Back to back in one buffer: each call takes exactly one command. */
    struct resp_request *r = *state;
    static const char in[] = "PING\r\n*1\r\n$4\r\nPING\r\nECHO x\n";
    static const size_t used[] = { 6, 14, 7 };
    size_t off = 0;
    size_t i;

    for (i = 0; i < 3; i++) {
        size_t consumed;

        assert_int_equal(resp_parse_request(r, (const uint8_t *)in + off, sizeof(in) - 1 - off,
                                            &rpf_lim, &consumed),
                         TERSE_OK);
        assert_int_equal(consumed, used[i]);
        off += consumed;
    }
    assert_int_equal(off, sizeof(in) - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        RPF_TEST(test_mbulk_ping),
        RPF_TEST(test_mbulk_binary),
        RPF_TEST(test_mbulk_empty_bulk),
        RPF_TEST(test_mbulk_zero_and_negative_count),
        RPF_TEST(test_mbulk_unchecked_crlf),
        RPF_TEST(test_mbulk_count_at_limit),
        RPF_TEST(test_mbulk_bulk_at_limit),
        RPF_TEST(test_unauthenticated_limits),
        RPF_TEST(test_mbulk_need),
        RPF_TEST(test_mbulk_lim_null),
        RPF_TEST(test_mbulk_bad_count),
        RPF_TEST(test_mbulk_bad_bulk_len),
        RPF_TEST(test_mbulk_expected_dollar),
        RPF_TEST(test_mbulk_too_big_count_string),
        RPF_TEST(test_mbulk_too_big_bulk_count_string),
        RPF_TEST(test_mbulk_nul_hides_cr),
        RPF_TEST(test_mbulk_huge_count_no_prealloc),
        RPF_TEST(test_mbulk_many_args),
        RPF_TEST(test_mbulk_oom),
        RPF_TEST(test_pipeline_bytewise),
        RPF_TEST(test_pipeline_whole),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
