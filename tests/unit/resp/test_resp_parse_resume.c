/*
 * Unit tests for resp_parse resuming a command that arrives in pieces: a later call never
 * rescans what an earlier one parsed, lines split anywhere, a long line, reset between
 * commands, a shorter input on the next call, OOM while resuming. The checks and the counting
 * allocator are resp_parse_fixture.c's.
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

/* ---- resuming a command that arrives in pieces ----------------------------------------- */

/* "*<n>\r\n" then n bulks "$<len(i)>\r\n<i>\r\n" (decimal i). Returns a malloc'd buffer. */
static char *make_counted(size_t nargs, size_t *n)
{
    char *b = malloc(nargs * 16 + 32);
    size_t i;
    size_t o = 0;

    assert_non_null(b);
    o += (size_t)sprintf(b + o, "*%zu\r\n", nargs);
    for (i = 0; i < nargs; i++) {
        char num[24];
        int k = sprintf(num, "%zu", i);

        o += (size_t)sprintf(b + o, "$%d\r\n%s\r\n", k, num);
    }
    *n = o;
    return b;
}

/*
 * Feeds in[0..n) to r in pieces of `step` bytes, each call on a fresh exact-size copy of what
 * has arrived (the caller's buffer moves between calls). With poison, the bytes the request
 * says it is done with (before r->pos: whole lines and bulks) are overwritten with NUL in the
 * next copy: a parser that read them again would see a NUL hiding a line end and never
 * finish. Returns the last copy (the caller frees it); r holds the command.
 */
static uint8_t *feed_pieces(struct resp_request *r, const char *in, size_t n, size_t step,
                            int poison)
{
    size_t have = 0;
    size_t done = 0;
    uint8_t *b = NULL;

    resp_request_reset(r);
    for (;;) {
        size_t consumed = 0;
        int rc;

        have = have + step < n ? have + step : n;
        free(b);
        b = malloc(have);
        assert_non_null(b);
        memcpy(b, in, have);
        if (poison) {
            memset(b, 0, done);
        }
        rc = resp_parse_request(r, b, have, &rpf_lim, &consumed);
        if (rc == TERSE_OK) {
            assert_int_equal(consumed, n);
            return b;
        }
        assert_int_equal(rc, TERSE_MORE);
        assert_int_equal(consumed, 0);
        assert_int_equal(r->argc, 0);
        assert_true(have < n);
        /* Progress is kept: everything but the piece of a bulk still missing is done with. */
        assert_true(r->pos + r->scan <= have);
        assert_true(have - (r->pos + r->scan) <= 24);
        done = r->pos;
    }
}

static void test_resume_no_rescan(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t i;
    char *in = make_counted(20000, &n);
    uint8_t *b;

    /* Poisoned: the parse finishes, so no byte it was done with was read again. */
    b = feed_pieces(r, in, n, 1400, 1);
    assert_int_equal(r->argc, 20000);
    for (i = 0; i < 20000; i++) {
        assert_int_equal(r->argv[i].len,
                         i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : 5);
    }
    free(b);
    /* Clean, byte by byte at the start and in odd pieces after: the same arguments, slices of
     * the last buffer. */
    b = feed_pieces(r, in, n, 997, 0);
    assert_int_equal(r->argc, 20000);
    assert_memory_equal(r->argv[0].p, "0", 1);
    assert_memory_equal(r->argv[12345].p, "12345", 5);
    assert_memory_equal(r->argv[19999].p, "19999", 5);
    assert_true(rpf_inside(&r->argv[19999], b, n));
    free(b);
    free(in);
}

static void test_resume_split_lines(void **state)
{
    /* Each line split at every offset: a header, its data and the bytes after them. */
    struct resp_request *r = *state;
    static const char in[] = "*3\r\n$3\r\nSET\r\n$12\r\nkeykeykeykey\r\n$5\r\nvalue\r\n";
    size_t step;

    for (step = 1; step < sizeof(in); step++) {
        uint8_t *b = feed_pieces(r, in, sizeof(in) - 1, step, 1);

        assert_int_equal(r->argc, 3);
        assert_int_equal(r->argv[1].len, 12);
        free(b);
        b = feed_pieces(r, in, sizeof(in) - 1, step, 0);
        assert_memory_equal(r->argv[1].p, "keykeykeykey", 12);
        assert_memory_equal(r->argv[2].p, "value", 5);
        free(b);
    }
}

static void test_resume_long_line(void **state)
{
    /* A long inline line and a long header line arriving in pieces are searched once each:
     * scan follows what has arrived. */
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    char *b = rpf_make_buf("SET k ", 40000, 'v', "\r\n", &n);
    size_t have;
    uint8_t *c;

    resp_request_reset(r);
    for (have = 1000; have < n - 2; have += 1000) {
        assert_int_equal(resp_parse_request(r, (const uint8_t *)b, have, &rpf_lim, &consumed),
                         TERSE_MORE);
        assert_int_equal(r->scan, have);
    }
    assert_int_equal(rpf_parse_copy(r, b, n, &rpf_lim, &consumed, &c), TERSE_OK);
    assert_int_equal(r->argc, 3);
    assert_int_equal(r->argv[2].len, 40000);
    free(c);
    free(b);
}

static void test_resume_reset(void **state)
{
    /* A command dropped half way (reset) does not leak into the next one. */
    struct resp_request *r = *state;
    static const char a[] = "*2\r\n$4\r\nECHO\r\n$5\r\nhel";
    static const char b[] = "*1\r\n$4\r\nPING\r\n";
    size_t consumed;

    resp_request_reset(r);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)a, sizeof(a) - 1, &rpf_lim, &consumed),
                     TERSE_MORE);
    assert_int_equal(r->active, 1);
    resp_request_reset(r);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)b, sizeof(b) - 1, &rpf_lim, &consumed),
                     TERSE_OK);
    assert_int_equal(r->argc, 1);
    assert_memory_equal(r->argv[0].p, "PING", 4);
    assert_int_equal(r->active, 0);
}

static void test_resume_shorter_input(void **state)
{
    /* Fewer bytes than the last call without a reset: the command starts over instead of
     * reading past the end. */
    struct resp_request *r = *state;
    static const char a[] = "*2\r\n$4\r\nECHO\r\n$5\r\nhel";
    static const char b[] = "PING\r\n";
    size_t consumed;

    resp_request_reset(r);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)a, sizeof(a) - 1, &rpf_lim, &consumed),
                     TERSE_MORE);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)b, sizeof(b) - 1, &rpf_lim, &consumed),
                     TERSE_OK);
    assert_int_equal(consumed, 6);
    assert_int_equal(r->argc, 1);
    assert_memory_equal(r->argv[0].p, "PING", 4);
}

static void test_resume_oom(void **state)
{
    /* argv cannot grow half way through a command in pieces: the retry goes on from there. */
    struct resp_request *r = *state;
    size_t n;
    char *in = make_counted(100, &n);
    size_t consumed;
    int rc;

    resp_request_deinit(r);
    resp_request_init(r, rpf_realloc, rpf_free);
    rpf_calls = 0;
    rpf_fail_at = 2; /* the third growth: 32 -> 64 slots */
    rc = resp_parse_request(r, (const uint8_t *)in, n / 2, &rpf_lim, &consumed);
    assert_int_equal(rc, TERSE_ENOMEM);
    assert_int_equal(r->argc, 0);
    rc = resp_parse_request(r, (const uint8_t *)in, n / 2, &rpf_lim, &consumed);
    assert_int_equal(rc, TERSE_MORE);
    rc = resp_parse_request(r, (const uint8_t *)in, n, &rpf_lim, &consumed);
    assert_int_equal(rc, TERSE_OK);
    assert_int_equal(r->argc, 100);
    assert_memory_equal(r->argv[99].p, "99", 2);
    rpf_fail_at = -1;
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        RPF_TEST(test_resume_no_rescan),
        RPF_TEST(test_resume_split_lines),
        RPF_TEST(test_resume_long_line),
        RPF_TEST(test_resume_reset),
        RPF_TEST(test_resume_shorter_input),
        RPF_TEST(test_resume_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
