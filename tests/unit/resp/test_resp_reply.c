/*
 * Unit tests for resp_reply: the reply reader the Lua bridge reads commands' replies with.
 *
 * Every accepted reply is read whole, at every prefix (TERSE_MORE, position unchanged) and
 * split at every offset into two exact-size heap copies (a read past the end trips
 * AddressSanitizer); resp_reply_skip must land on the end. Malformed replies are refused
 * whole (TERSE_EPROTO) and at every prefix (TERSE_MORE or TERSE_EPROTO, never OK). Limits are
 * tested at the limit and one past it.
 */
#include "resp/resp_reply.h"

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

/* An exact-size heap copy of n bytes of s. */
static uint8_t *dup_exact(const char *s, size_t n)
{
    uint8_t *p = malloc(n > 0 ? n : 1);

    assert_non_null(p);
    memcpy(p, s, n);
    return p;
}

/* Reads one element of s (length n) whole: returns its status, *out and *end. */
static int read_one(const char *s, size_t n, struct resp_reply *out, size_t *end)
{
    uint8_t *p = dup_exact(s, n);
    size_t pos = 0;
    int rc = resp_reply_next(p, n, &pos, out);

    *end = pos;
    /* out->p points into p, freed below: the caller reads a copy. */
    if (out->p != NULL) {
        static char keep[256];
        size_t k = out->len < sizeof(keep) ? out->len : sizeof(keep);
        memcpy(keep, out->p, k);
        out->p = (const uint8_t *)keep;
    }
    free(p);
    return rc;
}

/* Every proper prefix of a whole reply s (n bytes) is incomplete and moves nothing; the whole
 * reply skips to its end. */
static void check_prefixes_and_skip(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        uint8_t *p = dup_exact(s, k);
        size_t pos = 0;
        assert_int_equal(resp_reply_skip(p, k, &pos), TERSE_MORE);
        assert_int_equal(pos, 0);
        free(p);
    }
    {
        uint8_t *p = dup_exact(s, n);
        size_t pos = 0;
        assert_int_equal(resp_reply_skip(p, n, &pos), TERSE_OK);
        assert_int_equal(pos, n);
        free(p);
    }
}

#define S(lit) lit, sizeof(lit) - 1

static void test_scalars(void **state)
{
    struct resp_reply r;
    size_t end;

    (void)state;
    assert_int_equal(read_one(S("+OK\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_SIMPLE);
    assert_int_equal(r.len, 2);
    assert_memory_equal(r.p, "OK", 2);
    assert_int_equal(end, 5);

    assert_int_equal(read_one(S("-ERR bad thing\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_ERROR);
    assert_memory_equal(r.p, "ERR bad thing", 13);

    assert_int_equal(read_one(S(":-42\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_INT);
    assert_int_equal(r.n, -42);

    assert_int_equal(read_one(S("$5\r\nhe\r\no\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_BULK);
    assert_int_equal(r.len, 5);
    assert_memory_equal(r.p, "he\r\no", 5);
    assert_int_equal(end, 11);

    assert_int_equal(read_one(S("$0\r\n\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_BULK);
    assert_int_equal(r.len, 0);

    assert_int_equal(read_one(S("$-1\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_NULL_BULK);
    assert_int_equal(read_one(S("*-1\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_NULL_ARRAY);
    assert_int_equal(read_one(S("_\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_NULL);

    assert_int_equal(read_one(S(",1.5\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_DOUBLE);
    assert_true(r.d == 1.5);
    assert_int_equal(read_one(S(",-inf\r\n"), &r, &end), TERSE_OK);
    assert_true(r.d < -1e308);

    assert_int_equal(read_one(S("#t\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_BOOL);
    assert_int_equal(r.n, 1);
    assert_int_equal(read_one(S("#f\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.n, 0);

    assert_int_equal(read_one(S("(12345678901234567890\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_BIGNUM);
    assert_int_equal(r.len, 20);

    assert_int_equal(read_one(S("=7\r\ntxt:abc\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_VERBATIM);
    assert_string_equal(r.fmt, "txt");
    assert_int_equal(r.len, 3);
    assert_memory_equal(r.p, "abc", 3);
}

static void test_aggregates(void **state)
{
    struct resp_reply r;
    size_t end;

    (void)state;
    assert_int_equal(read_one(S("*2\r\n:1\r\n:2\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_ARRAY);
    assert_int_equal(r.n, 2);
    assert_int_equal(end, 4); /* the header only */
    assert_int_equal(read_one(S("%1\r\n+a\r\n:1\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_MAP);
    assert_int_equal(r.n, 1);
    assert_int_equal(read_one(S("~0\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_SET);
    assert_int_equal(read_one(S(">1\r\n:1\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_PUSH);
    assert_int_equal(read_one(S("|1\r\n+k\r\n+v\r\n:1\r\n"), &r, &end), TERSE_OK);
    assert_int_equal(r.type, RESP_REPLY_ATTR);
}

static void test_whole_replies_every_prefix(void **state)
{
    static const char *const replies[] = {
        "+OK\r\n", "-ERR x\r\n", ":0\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n", "_\r\n",
        "*0\r\n", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n_\r\n", "%2\r\n+a\r\n:1\r\n+b\r\n*0\r\n",
        "~2\r\n:1\r\n:2\r\n", ",3.14\r\n", "#t\r\n", "(1\r\n", "=5\r\ntxt:a\r\n",
        "|1\r\n+key\r\n+val\r\n*2\r\n:1\r\n:2\r\n", "*2\r\n*2\r\n*0\r\n%0\r\n$0\r\n\r\n",
        ">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n", NULL};

    (void)state;
    for (size_t i = 0; replies[i] != NULL; i++) {
        check_prefixes_and_skip(replies[i], strlen(replies[i]));
    }
}

static void test_split_at_every_offset(void **state)
{
    static const char reply[] = "*3\r\n$5\r\nhello\r\n%1\r\n+k\r\n,1.5\r\n~1\r\n(99\r\n";
    size_t n = sizeof(reply) - 1;

    (void)state;
    /* Feeding the reader a prefix then the whole: the prefix is MORE, the whole is OK. */
    for (size_t k = 1; k < n; k++) {
        uint8_t *a = dup_exact(reply, k);
        uint8_t *b = dup_exact(reply, n);
        size_t pos = 0;
        assert_int_equal(resp_reply_skip(a, k, &pos), TERSE_MORE);
        assert_int_equal(resp_reply_skip(b, n, &pos), TERSE_OK);
        assert_int_equal(pos, n);
        free(a);
        free(b);
    }
}

static void test_malformed(void **state)
{
    static const char *const bad[] = {
        "?x\r\n", ":12a\r\n", ":\r\n", ":--1\r\n", "$-2\r\n", "*-2\r\n", "%-1\r\n",
        "$3\r\nabcd\r\n", "$3\r\nab\r\n\r\n", "+OK\rx", "#x\r\n", "#tt\r\n", "_x\r\n",
        ",abc\r\n", ",\r\n", "(\r\n", "=2\r\nab\r\n", "=3\r\ntxt\r\n", "$abc\r\n",
        ":99999999999999999999\r\n", NULL};

    (void)state;
    for (size_t i = 0; bad[i] != NULL; i++) {
        size_t n = strlen(bad[i]);
        uint8_t *p = dup_exact(bad[i], n);
        size_t pos = 0;
        struct resp_reply r;
        assert_int_equal(resp_reply_next(p, n, &pos, &r), TERSE_EPROTO);
        assert_int_equal(pos, 0);
        for (size_t k = 0; k < n; k++) {
            pos = 0;
            assert_int_not_equal(resp_reply_next(p, k, &pos, &r), TERSE_OK);
            assert_int_equal(pos, 0);
        }
        free(p);
    }
}

static void test_limits(void **state)
{
    struct resp_reply r;
    size_t end;

    (void)state;
    assert_int_equal(read_one(S(":9223372036854775807\r\n"), &r, &end), TERSE_OK);
    assert_true(r.n == LLONG_MAX);
    assert_int_equal(read_one(S(":-9223372036854775808\r\n"), &r, &end), TERSE_OK);
    assert_true(r.n == LLONG_MIN);
    assert_int_equal(read_one(S(":9223372036854775808\r\n"), &r, &end), TERSE_EPROTO);
    assert_int_equal(read_one(S(":-9223372036854775809\r\n"), &r, &end), TERSE_EPROTO);
    /* A huge announced length or count is incomplete, never an allocation or a read. */
    assert_int_equal(read_one(S("$9223372036854775807\r\n"), &r, &end), TERSE_MORE);
    {
        uint8_t *p = dup_exact("*9223372036854775807\r\n", 22);
        size_t pos = 0;
        assert_int_equal(resp_reply_skip(p, 22, &pos), TERSE_MORE);
        free(p);
        p = dup_exact("%9223372036854775807\r\n", 22);
        pos = 0;
        assert_int_equal(resp_reply_skip(p, 22, &pos), TERSE_MORE);
        free(p);
    }
    /* A double line at RESP_REPLY_NUM_MAX is read, one more byte is refused. */
    {
        char line[RESP_REPLY_NUM_MAX + 8];
        size_t n;
        line[0] = ',';
        memset(line + 1, '0', RESP_REPLY_NUM_MAX);
        memcpy(line + 1 + RESP_REPLY_NUM_MAX, "\r\n", 2);
        n = RESP_REPLY_NUM_MAX + 3;
        assert_int_equal(read_one(line, n, &r, &end), TERSE_OK);
        line[0] = ',';
        memset(line + 1, '0', RESP_REPLY_NUM_MAX + 1);
        memcpy(line + 2 + RESP_REPLY_NUM_MAX, "\r\n", 2);
        assert_int_equal(read_one(line, n + 1, &r, &end), TERSE_EPROTO);
    }
}

static void test_deep_nesting_skips_without_recursion(void **state)
{
    size_t depth = 100000, n = depth * 4 + 3;
    char *s = malloc(n);
    size_t pos = 0;

    (void)state;
    assert_non_null(s);
    for (size_t i = 0; i < depth; i++) {
        memcpy(s + 4 * i, "*1\r\n", 4);
    }
    memcpy(s + 4 * depth, "_\r\n", 3);
    assert_int_equal(resp_reply_skip((const uint8_t *)s, n, &pos), TERSE_OK);
    assert_int_equal(pos, n);
    pos = 0;
    assert_int_equal(resp_reply_skip((const uint8_t *)s, n - 1, &pos), TERSE_MORE);
    assert_int_equal(pos, 0);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_aggregates),
        cmocka_unit_test(test_whole_replies_every_prefix),
        cmocka_unit_test(test_split_at_every_offset),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_deep_nesting_skips_without_recursion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
