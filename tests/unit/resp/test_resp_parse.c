/*
 * Unit tests for resp_parse: the RESP request parser.
 *
 * Every accepted input is checked whole, at every prefix (a prefix shorter than the command
 * must give TERSE_MORE with nothing consumed; a longer one the same command), and fed to a
 * simulated connection one byte at a time. Every rejected input is checked whole and at every
 * prefix (TERSE_MORE or the same error). Inputs are copied into exact-size heap blocks so a
 * read past the end trips AddressSanitizer. Expected texts were taken from redis-server 7.0.15.
 *
 * resp_request's realloc_fn has no opaque argument, so the allocation counters used for the
 * "no preallocation" and OOM tests are file statics (test code only).
 */
#include "resp/resp_parse.h"

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

/* ---- counting, failing allocator ----------------------------------------------------- */

static long t_live;       /* blocks currently allocated */
static long t_calls;      /* realloc calls so far */
static long t_fail_at = -1; /* fail the call with this index (0-based); -1 = never */

static void *t_realloc(void *p, size_t n)
{
    long idx = t_calls++;
    void *q;

    if (idx == t_fail_at) {
        return NULL;
    }
    q = realloc(p, n);
    if (q != NULL && p == NULL) {
        t_live++;
    }
    return q;
}

static void t_free(void *p)
{
    if (p != NULL) {
        t_live--;
    }
    free(p);
}

static int setup(void **state)
{
    struct resp_request *r = malloc(sizeof(*r));

    assert_non_null(r);
    t_live = 0;
    t_calls = 0;
    t_fail_at = -1;
    resp_request_init(r, t_realloc, t_free);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    struct resp_request *r = *state;

    resp_request_deinit(r);
    free(r);
    assert_int_equal(t_live, 0);
    return 0;
}

/* ---- harness --------------------------------------------------------------------------- */

struct want {
    const char *p;
    size_t len;
};

#define W(s) { (s), sizeof(s) - 1 }
#define IN(s) (s), (sizeof(s) - 1)
#define NWANT(a) (sizeof(a) / sizeof((a)[0]))
/* check_ok's `used` when the command is the whole input. */
#define ALL 0

static const struct resp_limits t_lim = { RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, 0 };

/* Parses in[0..n) copied into an exact-size block; the block is returned for slice checks. */
static int parse_copy(struct resp_request *r, const char *in, size_t n,
                      const struct resp_limits *lim, size_t *consumed, uint8_t **copy)
{
    uint8_t *b = malloc(n != 0 ? n : 1);

    assert_non_null(b);
    if (n != 0) {
        memcpy(b, in, n);
    }
    *copy = b;
    return resp_parse_request(r, b, n, lim, consumed);
}

static void assert_args(const struct resp_request *r, const struct want *w, size_t nw)
{
    size_t i;

    assert_int_equal(r->argc, nw);
    for (i = 0; i < nw; i++) {
        assert_int_equal(r->argv[i].len, w[i].len);
        assert_non_null(r->argv[i].p);
        if (w[i].len != 0) {
            assert_memory_equal(r->argv[i].p, w[i].p, w[i].len);
        }
    }
}

/* 1 when s lies inside b[0..n). */
static int inside(const struct resp_slice *s, const uint8_t *b, size_t n)
{
    return s->p >= b && s->p + s->len <= b + n;
}

/*
 * in[0..n) starts with one command of `used` bytes whose arguments are w. Checks the whole
 * input, every prefix, and (when slices) that each argument points into the input.
 */
static void check_ok_lim(struct resp_request *r, const char *in, size_t n, size_t used,
                         const struct want *w, size_t nw, int slices,
                         const struct resp_limits *lim)
{
    size_t k;
    size_t consumed;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    if (used == ALL) {
        used = n;
    }
    rc = parse_copy(r, in, n, lim, &consumed, &b);
    assert_int_equal(rc, TERSE_OK);
    assert_int_equal(consumed, used);
    assert_args(r, w, nw);
    if (slices) {
        for (k = 0; k < nw; k++) {
            assert_true(inside(&r->argv[k], b, n));
        }
    }
    free(b);
    for (k = 0; k <= n; k++) {
        consumed = 12345;
        rc = parse_copy(r, in, k, lim, &consumed, &b);
        if (k < used) {
            assert_int_equal(rc, TERSE_MORE);
            assert_int_equal(consumed, 0);
            assert_int_equal(r->argc, 0);
            if (r->need != 0) {
                assert_true(r->need > k);
                assert_true(r->need <= used);
            }
        } else {
            assert_int_equal(rc, TERSE_OK);
            assert_int_equal(consumed, used);
            assert_args(r, w, nw);
        }
        free(b);
    }
}

static void check_ok(struct resp_request *r, const char *in, size_t n, size_t used,
                     const struct want *w, size_t nw, int slices)
{
    check_ok_lim(r, in, n, used, w, nw, slices, &t_lim);
}

/* in[0..n) is rejected with text; every prefix gives TERSE_MORE or the same error. */
static void check_err_lim(struct resp_request *r, const char *in, size_t n, const char *text,
                          const struct resp_limits *lim)
{
    size_t k;
    size_t consumed;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = parse_copy(r, in, n, lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_EPROTO);
    assert_int_equal(consumed, 0);
    assert_int_equal(r->argc, 0);
    assert_non_null(r->err);
    assert_string_equal(r->err, text);
    for (k = 0; k < n; k++) {
        rc = parse_copy(r, in, k, lim, &consumed, &b);
        free(b);
        assert_int_equal(consumed, 0);
        if (rc != TERSE_MORE) {
            assert_int_equal(rc, TERSE_EPROTO);
            assert_string_equal(r->err, text);
        }
    }
}

static void check_err(struct resp_request *r, const char *in, size_t n, const char *text)
{
    check_err_lim(r, in, n, text, &t_lim);
}

/* in[0..n) has no complete command yet, at any prefix. */
static void check_more(struct resp_request *r, const char *in, size_t n, size_t need)
{
    size_t consumed = 99;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = parse_copy(r, in, n, &t_lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_MORE);
    assert_int_equal(consumed, 0);
    assert_int_equal(r->argc, 0);
    assert_int_equal(r->need, need);
}

/* in[0..n) is incomplete under lim (need not checked). */
static void check_more_lim(struct resp_request *r, const char *in, size_t n,
                           const struct resp_limits *lim)
{
    size_t consumed = 99;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = parse_copy(r, in, n, lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_MORE);
    assert_int_equal(consumed, 0);
}

/*
 * A connection that receives in[0..n) one byte at a time and parses after every byte.
 * Returns the number of commands parsed; each command's args are joined as "a|b|c" into out
 * (one command per line).
 */
static size_t feed_bytewise(struct resp_request *r, const char *in, size_t n, char *out,
                            size_t out_cap)
{
    uint8_t *b = malloc(n != 0 ? n : 1);
    size_t have = 0;
    size_t start = 0;
    size_t cmds = 0;
    size_t o = 0;

    assert_non_null(b);
    out[0] = '\0';
    while (have < n) {
        size_t consumed;
        int rc;

        b[have] = (uint8_t)in[have];
        have++;
        for (;;) {
            rc = resp_parse_request(r, b + start, have - start, &t_lim, &consumed);
            if (rc != TERSE_OK) {
                assert_int_equal(rc, TERSE_MORE);
                assert_int_equal(consumed, 0);
                break;
            }
            assert_true(consumed > 0);
            for (size_t i = 0; i < r->argc; i++) {
                assert_true(o + r->argv[i].len + 2 < out_cap);
                if (i != 0) {
                    out[o++] = '|';
                }
                memcpy(out + o, r->argv[i].p, r->argv[i].len);
                o += r->argv[i].len;
            }
            out[o++] = '\n';
            out[o] = '\0';
            start += consumed;
            cmds++;
        }
    }
    assert_int_equal(start, n);
    free(b);
    return cmds;
}

/* ---- multibulk: accepted --------------------------------------------------------------- */

static void test_mbulk_ping(void **state)
{
    static const struct want w[] = { W("PING") };

    check_ok(*state, IN("*1\r\n$4\r\nPING\r\n"), 14, w, 1, 1);
    assert_int_equal(((struct resp_request *)*state)->inline_cmd, 0);
}

static void test_mbulk_binary(void **state)
{
    /* Bulk data may hold CR, LF and NUL. */
    static const struct want w[] = { W("SET"), W("k"), W("a\r\n\0") };

    check_ok(*state, IN("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\n\0\r\n"), ALL, w, 3, 1);
}

static void test_mbulk_empty_bulk(void **state)
{
    static const struct want w[] = { W("ECHO"), W("") };

    check_ok(*state, IN("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n"), ALL, w, 2, 1);
}

static void test_mbulk_zero_and_negative_count(void **state)
{
    /* Redis consumes the line and executes nothing. */
    check_ok(*state, IN("*0\r\n"), 4, NULL, 0, 1);
    check_ok(*state, IN("*-1\r\n"), 5, NULL, 0, 1);
    check_ok(*state, IN("*-5\r\nPING\r\n"), 5, NULL, 0, 1);
    check_ok(*state, IN("*-9223372036854775808\r\n"), 23, NULL, 0, 1);
}

static void test_mbulk_unchecked_crlf(void **state)
{
    /* Redis skips the byte after a length line's '\r' and the two bytes after bulk data
     * without looking at them. */
    static const struct want w[] = { W("PING") };

    check_ok(*state, IN("*1\rX$4\r\nPING\r\n"), 14, w, 1, 1);
    check_ok(*state, IN("*1\r\n$4\rXPING\r\n"), 14, w, 1, 1);
    check_ok(*state, IN("*1\r\n$4\r\nPINGxx"), 14, w, 1, 1);
}

static void test_mbulk_count_at_limit(void **state)
{
    struct resp_limits lim = { RESP_DEFAULT_MAX_BULK, 3, 0 };
    static const struct want w[] = { W("a"), W("b"), W("c") };

    check_ok_lim(*state, IN("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"), 25, w, 3, 1, &lim);
    check_err_lim(*state, IN("*4\r\n"), "Protocol error: invalid multibulk length", &lim);
    /* Default limit: RESP_MAX_MULTIBULK itself is accepted (waits for elements). */
    check_more(*state, IN("*2147483647\r\n"), 0);
    check_err(*state, IN("*2147483648\r\n"), "Protocol error: invalid multibulk length");
}

static void test_mbulk_bulk_at_limit(void **state)
{
    struct resp_limits lim = { 4, RESP_MAX_MULTIBULK, 0 };
    static const struct want w[] = { W("PING") };

    check_ok_lim(*state, IN("*1\r\n$4\r\nPING\r\n"), 14, w, 1, 1, &lim);
    check_err_lim(*state, IN("*1\r\n$5\r\nPINGS\r\n"), "Protocol error: invalid bulk length",
                  &lim);
    /* proto-max-bulk-len default: 512 MiB accepted, one more refused. */
    check_more(*state, IN("*1\r\n$536870912\r\n"), 16 + 536870912 + 2);
    check_err(*state, IN("*1\r\n$536870913\r\n"), "Protocol error: invalid bulk length");
}

/* Before AUTH (requirepass set) Redis 7.0.15 accepts at most 10 arguments of 16 KiB each. */
static void test_unauthenticated_limits(void **state)
{
    struct resp_limits lim = { RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, 1 };
    static const struct want w[] = { W("AUTH"), W("pw") };

    check_ok_lim(*state, IN("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n"), 22, w, 2, 1, &lim);
    check_more_lim(*state, IN("*10\r\n"), &lim);
    check_err_lim(*state, IN("*11\r\n"), "Protocol error: unauthenticated multibulk length",
                  &lim);
    check_more_lim(*state, IN("*1\r\n$16384\r\n"), &lim);
    check_err_lim(*state, IN("*1\r\n$16385\r\n"), "Protocol error: unauthenticated bulk length",
                  &lim);
}

static void test_mbulk_need(void **state)
{
    struct resp_request *r = *state;
    struct resp_limits lim = { LLONG_MAX, RESP_MAX_MULTIBULK, 0 };
    size_t consumed;
    uint8_t *b;

    check_more(r, IN("*1\r"), 4);
    check_more(r, IN("*1\r\n$4\r"), 8);
    check_more(r, IN("*1\r\n$100000\r\n"), 13 + 100000 + 2);
    check_more(r, IN("*2\r\n$1\r\na\r\n$100000\r\nxyz"), 20 + 100000 + 2);
    check_more(r, IN("*1\r\n$1\r\na"), 11);
    check_more(r, IN("*1\r\n$1\r\na\r"), 11);
    check_more(r, IN("*1\r\n$"), 0);
    /* A bulk length near LLONG_MAX saturates need instead of wrapping. */
    assert_int_equal(parse_copy(r, IN("*1\r\n$9223372036854775807\r\n"), &lim, &consumed, &b),
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
        check_err(*state, bad[i], strlen(bad[i]), "Protocol error: invalid multibulk length");
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
        "*2\r\n$1\r\na\r\n$x\r\n",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        check_err(*state, bad[i], strlen(bad[i]), "Protocol error: invalid bulk length");
    }
}

static void test_mbulk_expected_dollar(void **state)
{
    check_err(*state, IN("*1\r\nX4\r\nPING\r\n"), "Protocol error: expected '$', got 'X'");
    check_err(*state, IN("*2\r\n$1\r\na\r\n:1\r\n"), "Protocol error: expected '$', got ':'");
    /* Redis maps CR and LF in error texts to spaces. */
    check_err(*state, IN("*1\r\n\r\n"), "Protocol error: expected '$', got ' '");
    check_err(*state, IN("*1\r\n\n\r\n"), "Protocol error: expected '$', got ' '");
    check_err(*state, IN("*1\r\n\xff\r\n"), "Protocol error: expected '$', got '\xff'");
    check_err(*state, IN("*1\r\n*1\r\n"), "Protocol error: expected '$', got '*'");
}

/* head (hl bytes, may hold NUL) + fill bytes of c + tail (C string). */
static char *make_buf_n(const char *head, size_t hl, size_t fill, char c, const char *tail,
                        size_t *n)
{
    size_t tl = strlen(tail);
    char *b = malloc(hl + fill + tl + 1);

    assert_non_null(b);
    memcpy(b, head, hl);
    memset(b + hl, c, fill);
    memcpy(b + hl + fill, tail, tl);
    *n = hl + fill + tl;
    b[*n] = '\0';
    return b;
}

static char *make_buf(const char *head, size_t fill, char c, const char *tail, size_t *n)
{
    return make_buf_n(head, strlen(head), fill, c, tail, n);
}

static void test_mbulk_too_big_count_string(void **state)
{
    struct resp_request *r = *state;
    size_t n;
    size_t consumed;
    uint8_t *c;
    char *b;

    /* RESP_INLINE_MAX bytes without '\r': still waiting; one more: refused. */
    b = make_buf("*", RESP_INLINE_MAX - 1, '1', "", &n);
    check_more(r, b, n, 0);
    free(b);
    b = make_buf("*", RESP_INLINE_MAX, '1', "", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big mbulk count string");
    free(c);
    free(b);
    /* A long count line that arrived whole is only an invalid number (as in Redis). */
    b = make_buf("*", 70000, '1', "\r\n", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
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
    b = make_buf("*2\r\n$1\r\na\r\n$", RESP_INLINE_MAX - 1, '1', "", &n);
    check_more(r, b, n, 0);
    free(b);
    b = make_buf("*2\r\n$1\r\na\r\n$", RESP_INLINE_MAX, '1', "", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
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
    check_more(r, IN("*1\0\r\n$4\r\nPING\r\n"), 0);
    check_more(r, IN("*1\r\n$4\0\r\nPING\r\n"), 0);
    b = make_buf_n("*1\0", 3, RESP_INLINE_MAX, 'A', "\r\n", &n);
    resp_request_reset(r); /* another command than the one check_more left in progress */
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big mbulk count string");
    free(c);
    free(b);
}

static void test_mbulk_huge_count_no_prealloc(void **state)
{
    struct resp_request *r = *state;
    size_t consumed;
    uint8_t *b;

    assert_int_equal(parse_copy(r, IN("*1000000\r\n"), &t_lim, &consumed, &b), TERSE_MORE);
    free(b);
    assert_int_equal(t_calls, 0);
    assert_int_equal(r->argv_cap, 0);
    assert_int_equal(parse_copy(r, IN("*1000000\r\n$1\r\na\r\n$1\r\nb\r\n"), &t_lim, &consumed,
                                &b),
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
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_OK);
    free(c);
    assert_int_equal(consumed, n);
    assert_int_equal(r->argc, 1000);
    assert_int_equal(r->argv[999].len, 3);
    assert_memory_equal(r->argv[999].p, "999", 3);
    /* Steady state: the same command again allocates nothing. */
    calls = (size_t)t_calls;
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_OK);
    free(c);
    assert_int_equal((size_t)t_calls, calls);
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
        resp_request_init(r, t_realloc, t_free);
        t_calls = 0;
        t_fail_at = n;
        rc = resp_parse_request(r, (const uint8_t *)in, sizeof(in) - 1, &t_lim, &consumed);
        if (rc == TERSE_OK) {
            saw_ok = 1;
            assert_int_equal(r->argc, 20);
            continue;
        }
        assert_int_equal(rc, TERSE_ENOMEM);
        assert_int_equal(consumed, 0);
        assert_int_equal(r->argc, 0);
        /* The same call succeeds once memory is back. */
        t_fail_at = -1;
        assert_int_equal(
            resp_parse_request(r, (const uint8_t *)in, sizeof(in) - 1, &t_lim, &consumed),
            TERSE_OK);
        assert_int_equal(r->argc, 20);
        assert_memory_equal(r->argv[19].p, "e", 1);
    }
    assert_true(saw_ok);
    t_fail_at = -1;
}

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
 * Feeds in[0..n) to r in pieces of `step` bytes, each call on a fresh exact-size copy of what has
 * arrived (the caller's buffer moves between calls). With poison, the bytes the request says
 * it is done with (before r->pos: whole lines and bulks) are overwritten with NUL in the next
 * copy: a parser that read them again would see a NUL hiding a line end and never finish. Returns the last copy (the caller frees it); r holds the command.
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
        rc = resp_parse_request(r, b, have, &t_lim, &consumed);
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
        assert_int_equal(r->argv[i].len, i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : 5);
    }
    free(b);
    /* Clean, byte by byte at the start and in odd pieces after: the same arguments, slices of
     * the last buffer. */
    b = feed_pieces(r, in, n, 997, 0);
    assert_int_equal(r->argc, 20000);
    assert_memory_equal(r->argv[0].p, "0", 1);
    assert_memory_equal(r->argv[12345].p, "12345", 5);
    assert_memory_equal(r->argv[19999].p, "19999", 5);
    assert_true(inside(&r->argv[19999], b, n));
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
    char *b = make_buf("SET k ", 40000, 'v', "\r\n", &n);
    size_t have;
    uint8_t *c;

    resp_request_reset(r);
    for (have = 1000; have < n - 2; have += 1000) {
        assert_int_equal(resp_parse_request(r, (const uint8_t *)b, have, &t_lim, &consumed),
                         TERSE_MORE);
        assert_int_equal(r->scan, have);
    }
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_OK);
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
    assert_int_equal(resp_parse_request(r, (const uint8_t *)a, sizeof(a) - 1, &t_lim, &consumed),
                     TERSE_MORE);
    assert_int_equal(r->active, 1);
    resp_request_reset(r);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)b, sizeof(b) - 1, &t_lim, &consumed),
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
    assert_int_equal(resp_parse_request(r, (const uint8_t *)a, sizeof(a) - 1, &t_lim, &consumed),
                     TERSE_MORE);
    assert_int_equal(resp_parse_request(r, (const uint8_t *)b, sizeof(b) - 1, &t_lim, &consumed),
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
    resp_request_init(r, t_realloc, t_free);
    t_calls = 0;
    t_fail_at = 2; /* the third growth: 32 -> 64 slots */
    rc = resp_parse_request(r, (const uint8_t *)in, n / 2, &t_lim, &consumed);
    assert_int_equal(rc, TERSE_ENOMEM);
    assert_int_equal(r->argc, 0);
    rc = resp_parse_request(r, (const uint8_t *)in, n / 2, &t_lim, &consumed);
    assert_int_equal(rc, TERSE_MORE);
    rc = resp_parse_request(r, (const uint8_t *)in, n, &t_lim, &consumed);
    assert_int_equal(rc, TERSE_OK);
    assert_int_equal(r->argc, 100);
    assert_memory_equal(r->argv[99].p, "99", 2);
    t_fail_at = -1;
    free(in);
}

/* ---- inline ---------------------------------------------------------------------------- */

static void test_inline_basic(void **state)
{
    static const struct want ping[] = { W("PING") };
    static const struct want set[] = { W("SET"), W("k"), W("v") };

    check_ok(*state, IN("PING\n"), 5, ping, 1, 1);
    assert_int_equal(((struct resp_request *)*state)->inline_cmd, 1);
    check_ok(*state, IN("PING\r\n"), 6, ping, 1, 1);
    check_ok(*state, IN("SET k v\r\n"), 9, set, 3, 1);
    check_ok(*state, IN("  SET \t k   v  \r\n"), 17, set, 3, 1);
    /* '\r' inside the line separates words too. */
    check_ok(*state, IN("SET\rk\rv\n"), 8, set, 3, 1);
}

static void test_inline_empty_lines(void **state)
{
    check_ok(*state, IN("\n"), 1, NULL, 0, 1);
    check_ok(*state, IN("\r\n"), 2, NULL, 0, 1);
    check_ok(*state, IN("  \t  \r\nPING\n"), 7, NULL, 0, 1);
    check_ok(*state, IN("\v\f\n"), 3, NULL, 0, 1);
}

static void test_inline_double_quotes(void **state)
{
    struct resp_request *r = *state;
    static const struct want esc[] = { W("ECHO"), W("aA\n") };
    static const struct want plain[] = { W("ECHO"), W("a b") };
    static const struct want mixed[] = { W("ECHO"), W("ab c") };
    static const struct want all[] = { W("ECHO"), W("a\"bq\r\t\b\a") };
    static const struct want hex[] = { W("ECHO"), W("\xafxZZ"), W("x4g") };
    static const struct want bs_end[] = { W("ECHO"), W("\\") };

    check_ok(r, IN("ECHO \"a\\x41\\n\"\n"), ALL, esc, 2, 0);
    check_ok(r, IN("ECHO a\"b c\"\n"), ALL, mixed, 2, 0);
    check_ok(r, IN("ECHO \"a\\\"b\\q\\r\\t\\b\\a\"\n"), ALL, all, 2, 0);
    /* "\xZZ" and "\x4g" are not hex escapes: the '\' just drops, 'x' is kept. */
    check_ok(r, IN("ECHO \"\\xAf\\xZZ\" \"\\x4g\"\n"), ALL, hex, 3, 0);
    check_ok(r, IN("ECHO \"\\\\\"\n"), ALL, bs_end, 2, 0);
    /* A quoted word without escapes stays a slice of the input. */
    check_ok(r, IN("ECHO \"a b\"\n"), ALL, plain, 2, 1);
}

static void test_inline_single_quotes(void **state)
{
    static const struct want w[] = { W("ECHO"), W("a'b") };
    static const struct want raw[] = { W("ECHO"), W("a\\nb\"") };
    static const struct want empty[] = { W("ECHO"), W(""), W("") };

    check_ok(*state, IN("ECHO 'a\\'b'\n"), ALL, w, 2, 0);
    /* No escapes other than \' inside single quotes. */
    check_ok(*state, IN("ECHO 'a\\nb\"'\n"), ALL, raw, 2, 1);
    check_ok(*state, IN("ECHO \"\" ''\n"), ALL, empty, 3, 1);
}

static void test_inline_blanks(void **state)
{
    /* \v and \f are skipped between words but are part of an unquoted word (sdssplitargs). */
    static const struct want vt[] = { W("ECHO"), W("ab\vcd") };
    static const struct want after_quote[] = { W("ECHO"), W("ab"), W("cd") };

    check_ok(*state, IN("ECHO \vab\vcd\n"), ALL, vt, 2, 1);
    check_ok(*state, IN("ECHO \"ab\"\vcd\n"), ALL, after_quote, 3, 1);
}

static void test_inline_unbalanced(void **state)
{
    static const char *const bad[] = {
        "ECHO \"abc\"def\n", "ECHO \"abc\n",  "ECHO 'ab'c\n", "ECHO \"ab\\\n",
        "ECHO 'ab\\\n",      "ECHO 'ab\r\n", "\"\n",          "ECHO \"a\\x4\n",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        check_err(*state, bad[i], strlen(bad[i]),
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

    b = make_buf("", RESP_INLINE_MAX, 'A', "", &n);
    check_more(r, b, n, 0);
    free(b);
    b = make_buf("", RESP_INLINE_MAX + 1, 'A', "", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
    assert_string_equal(r->err, "Protocol error: too big inline request");
    free(c);
    free(b);
    /* Redis accepts a longer line that arrived whole. */
    b = make_buf("ECHO ", 70000, 'A', "\r\n", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_OK);
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

    check_more(r, IN("PING\0\n"), 0);
    b = make_buf_n("PING\0", 5, RESP_INLINE_MAX, 'A', "\n", &n);
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_EPROTO);
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
    assert_int_equal(parse_copy(r, b, n, &t_lim, &consumed, &c), TERSE_OK);
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
        resp_request_init(r, t_realloc, t_free);
        t_calls = 0;
        t_fail_at = n;
        rc = resp_parse_request(r, (const uint8_t *)in, sizeof(in) - 1, &t_lim, &consumed);
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
    t_fail_at = -1;
}

/* ---- pipelines ------------------------------------------------------------------------- */

static void test_pipeline_bytewise(void **state)
{
    static const char in[] = "*1\r\n$4\r\nPING\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"
                             "*0\r\n\r\nSET k \"v v\"\n*-1\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
                             "$3\r\na\rb\r\n";
    char out[512];
    size_t cmds = feed_bytewise(*state, in, sizeof(in) - 1, out, sizeof(out));

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
                                            &t_lim, &consumed),
                         TERSE_OK);
        assert_int_equal(consumed, used[i]);
        off += consumed;
    }
    assert_int_equal(off, sizeof(in) - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mbulk_ping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_empty_bulk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_zero_and_negative_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_unchecked_crlf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_count_at_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_bulk_at_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unauthenticated_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_need, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_lim_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_bad_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_bad_bulk_len, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_expected_dollar, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_too_big_count_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_too_big_bulk_count_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_nul_hides_cr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_huge_count_no_prealloc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_many_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mbulk_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_no_rescan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_split_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_long_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_shorter_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_empty_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_double_quotes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_single_quotes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_blanks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_unbalanced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_too_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_nul_hides_newline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_long_quoted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_oom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipeline_bytewise, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipeline_whole, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
