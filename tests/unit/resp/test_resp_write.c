/*
 * Unit tests for resp_write: every writer, byte-exact, in RESP2 and RESP3, plus growth,
 * the sticky error, and deferred aggregate lengths. Expected bytes follow redis-server 7.0.15
 * (doubles checked with ZSCORE, errors with malformed requests).
 */
#include "resp/resp_write.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* The owner of a test output buffer: grows with realloc, or fails after max_cap bytes. */
struct t_owner {
    size_t max_cap; /* grow() fails when it would need more than this; 0 = unlimited */
    int grows;      /* successful grow() calls */
};

static int t_grow(void *owner, struct resp_out *o, size_t need)
{
    struct t_owner *t = owner;
    size_t cap = o->cap != 0 ? o->cap : 16;
    uint8_t *p;

    while (cap - o->len < need) {
        cap *= 2;
    }
    if (t->max_cap != 0 && cap > t->max_cap) {
        cap = t->max_cap;
        if (cap - o->len < need) {
            return -1;
        }
    }
    p = realloc(o->p, cap);
    if (p == NULL) {
        return -1;
    }
    o->p = p;
    o->cap = cap;
    t->grows++;
    return 0;
}

struct t_fix {
    struct t_owner own;
    struct resp_out o;
};

static int setup(void **state)
{
    struct t_fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->o.grow = t_grow;
    f->o.owner = &f->own;
    f->o.proto = 2;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct t_fix *f = *state;

    free(f->o.p);
    free(f);
    return 0;
}

static struct resp_out *out2(void **state)
{
    struct t_fix *f = *state;

    f->o.len = 0;
    f->o.proto = 2;
    return &f->o;
}

static struct resp_out *out3(void **state)
{
    struct resp_out *o = out2(state);

    o->proto = 3;
    return o;
}

#define EXPECT(o, s)                                                                         \
    do {                                                                                     \
        assert_int_equal((o)->err, 0);                                                       \
        assert_int_equal((o)->len, sizeof(s) - 1);                                           \
        assert_memory_equal((o)->p, (s), sizeof(s) - 1);                                     \
    } while (0)

/* ---- scalars --------------------------------------------------------------------------- */

static void test_simple_ok(void **state)
{
    struct resp_out *o;
    int proto;

    for (proto = 2; proto <= 3; proto++) {
        o = proto == 2 ? out2(state) : out3(state);
        resp_write_simple(o, "PONG");
        EXPECT(o, "+PONG\r\n");
        o->len = 0;
        resp_write_ok(o);
        EXPECT(o, "+OK\r\n");
        o->len = 0;
        resp_write_simple(o, "a\r\nb");
        EXPECT(o, "+a  b\r\n");
        o->len = 0;
        resp_write_simple(o, "");
        EXPECT(o, "+\r\n");
    }
}

static void test_error(void **state)
{
    struct resp_out *o = out2(state);

    resp_write_error(o, "ERR unknown command");
    EXPECT(o, "-ERR unknown command\r\n");
    o->len = 0;
    resp_write_error(o, "WRONGTYPE Operation against a key holding the wrong kind of value");
    EXPECT(o, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    o = out3(state);
    resp_write_error(o, "ERR a\r\nb\nc\r");
    EXPECT(o, "-ERR a  b c \r\n");
    o->len = 0;
    resp_write_error(o, "-ERR dash");
    EXPECT(o, "-ERR dash\r\n");
}

static void test_errorf(void **state)
{
    struct resp_out *o = out2(state);
    char big[3000];

    resp_write_errorf(o, "ERR Protocol error: expected '$', got '%c'", 'X');
    EXPECT(o, "-ERR Protocol error: expected '$', got 'X'\r\n");
    o->len = 0;
    /* addReplyErrorFormat: CR/LF trimmed at both ends, mapped to spaces inside. */
    resp_write_errorf(o, "%sERR x%sy%s", "\r\n", "\r\n", "\n\r");
    EXPECT(o, "-ERR x  y\r\n");
    o->len = 0;
    resp_write_errorf(o, "%s", "\r\n");
    EXPECT(o, "-\r\n");
    o->len = 0;
    resp_write_errorf(o, "-ERR %d", 42);
    EXPECT(o, "-ERR 42\r\n");
    /* Longer than the buffer: grows, and formats straight into it. */
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    o = out3(state);
    resp_write_errorf(o, "ERR %s!", big);
    assert_int_equal(o->err, 0);
    assert_int_equal(o->len, 1 + 4 + 2999 + 1 + 2);
    assert_memory_equal(o->p, "-ERR zzz", 8);
    assert_memory_equal(o->p + o->len - 4, "z!\r\n", 4);
}

static void test_int(void **state)
{
    struct resp_out *o;
    int proto;

    for (proto = 2; proto <= 3; proto++) {
        o = proto == 2 ? out2(state) : out3(state);
        resp_write_int(o, 0);
        resp_write_int(o, -1);
        resp_write_int(o, 1234567890);
        resp_write_int(o, LLONG_MAX);
        resp_write_int(o, LLONG_MIN);
        EXPECT(o, ":0\r\n:-1\r\n:1234567890\r\n:9223372036854775807\r\n"
                  ":-9223372036854775808\r\n");
    }
}

static void test_bulk(void **state)
{
    struct resp_out *o;
    int proto;

    for (proto = 2; proto <= 3; proto++) {
        o = proto == 2 ? out2(state) : out3(state);
        resp_write_bulk(o, "a\r\n\0b", 5);
        resp_write_bulk(o, NULL, 0);
        resp_write_cstr(o, "hello");
        resp_write_bulk_ll(o, 0);
        resp_write_bulk_ll(o, -42);
        resp_write_bulk_ll(o, LLONG_MIN);
        resp_write_bulk_ll(o, LLONG_MAX);
        EXPECT(o, "$5\r\na\r\n\0b\r\n$0\r\n\r\n$5\r\nhello\r\n$1\r\n0\r\n$3\r\n-42\r\n"
                  "$20\r\n-9223372036854775808\r\n$19\r\n9223372036854775807\r\n");
    }
}

static void test_bulk_in_place(void **state)
{
    struct resp_out *o = out3(state);
    uint8_t *d;

    resp_write_bulk_header(o, 3);
    d = resp_out_reserve(o, 3);
    assert_non_null(d);
    memcpy(d, "xyz", 3);
    resp_out_commit(o, 3);
    resp_write_crlf(o);
    resp_write_raw(o, "+raw\r\n", 6);
    EXPECT(o, "$3\r\nxyz\r\n+raw\r\n");
}

static void test_bulk_large(void **state)
{
    struct resp_out *o = out2(state);
    size_t n = 1 << 20;
    uint8_t *src = malloc(n);
    size_t i;

    assert_non_null(src);
    for (i = 0; i < n; i++) {
        src[i] = (uint8_t)(i * 7);
    }
    resp_write_bulk(o, src, n);
    assert_int_equal(o->err, 0);
    assert_int_equal(o->len, 10 + n + 2);
    assert_memory_equal(o->p, "$1048576\r\n", 10);
    assert_memory_equal(o->p + 10, src, n);
    assert_memory_equal(o->p + 10 + n, "\r\n", 2);
    free(src);
}

static void test_null(void **state)
{
    struct resp_out *o = out2(state);

    resp_write_null(o);
    resp_write_null_array(o);
    EXPECT(o, "$-1\r\n*-1\r\n");
    o = out3(state);
    resp_write_null(o);
    resp_write_null_array(o);
    EXPECT(o, "_\r\n_\r\n");
}

static void test_bool(void **state)
{
    struct resp_out *o = out2(state);

    resp_write_bool(o, 1);
    resp_write_bool(o, 0);
    resp_write_bool(o, 7);
    EXPECT(o, ":1\r\n:0\r\n:1\r\n");
    o = out3(state);
    resp_write_bool(o, 1);
    resp_write_bool(o, 0);
    EXPECT(o, "#t\r\n#f\r\n");
}

static void test_double_resp3(void **state)
{
    struct resp_out *o = out3(state);

    resp_write_double(o, 0.1);
    resp_write_double(o, 3);
    resp_write_double(o, INFINITY);
    resp_write_double(o, -INFINITY);
    resp_write_double(o, 1e300);
    resp_write_double(o, 0);
    resp_write_double(o, 1.5e-7);
    resp_write_double(o, -2.5);
    EXPECT(o, ",0.10000000000000001\r\n,3\r\n,inf\r\n,-inf\r\n,1.0000000000000001e+300\r\n"
              ",0\r\n,1.4999999999999999e-07\r\n,-2.5\r\n");
}

static void test_double_resp2(void **state)
{
    struct resp_out *o = out2(state);

    resp_write_double(o, 0.1);
    resp_write_double(o, 3);
    resp_write_double(o, INFINITY);
    resp_write_double(o, -INFINITY);
    resp_write_double(o, 1e300);
    resp_write_double(o, 1.5e-7);
    resp_write_double(o, -DBL_MAX);
    EXPECT(o, "$19\r\n0.10000000000000001\r\n$1\r\n3\r\n$3\r\ninf\r\n$4\r\n-inf\r\n"
              "$23\r\n1.0000000000000001e+300\r\n$22\r\n1.4999999999999999e-07\r\n"
              "$24\r\n-1.7976931348623157e+308\r\n");
}

static void test_verbatim(void **state)
{
    struct resp_out *o = out3(state);

    resp_write_verbatim(o, "txt", "abcd", 4);
    resp_write_verbatim(o, "mkd", "", 0);
    resp_write_verbatim(o, "tx", "x", 1);
    EXPECT(o, "=8\r\ntxt:abcd\r\n=4\r\nmkd:\r\n=5\r\ntx :x\r\n");
    o = out2(state);
    resp_write_verbatim(o, "txt", "abcd", 4);
    EXPECT(o, "$4\r\nabcd\r\n");
}

/* ---- aggregates ------------------------------------------------------------------------ */

static void test_aggregates(void **state)
{
    struct resp_out *o = out2(state);

    resp_write_array(o, 0);
    resp_write_array(o, 3);
    resp_write_map(o, 2);
    resp_write_set(o, 5);
    EXPECT(o, "*0\r\n*3\r\n*4\r\n*5\r\n");
    o = out3(state);
    resp_write_array(o, 3);
    resp_write_map(o, 2);
    resp_write_set(o, 5);
    resp_write_array(o, SIZE_MAX);
    EXPECT(o, "*3\r\n%2\r\n~5\r\n*18446744073709551615\r\n");
}

static void test_deferred(void **state)
{
    struct resp_out *o = out2(state);
    size_t at = resp_write_deferred_begin(o);

    resp_write_cstr(o, "a");
    resp_write_cstr(o, "b");
    resp_write_deferred_end(o, at, '*', 2);
    EXPECT(o, "*2\r\n$1\r\na\r\n$1\r\nb\r\n");

    o = out2(state);
    resp_write_ok(o);
    at = resp_write_deferred_begin(o);
    resp_write_cstr(o, "k");
    resp_write_int(o, 1);
    resp_write_deferred_end(o, at, '%', 1);
    at = resp_write_deferred_begin(o);
    resp_write_deferred_end(o, at, '~', 0);
    EXPECT(o, "+OK\r\n*2\r\n$1\r\nk\r\n:1\r\n*0\r\n");

    o = out3(state);
    at = resp_write_deferred_begin(o);
    resp_write_cstr(o, "k");
    resp_write_int(o, 1);
    resp_write_deferred_end(o, at, '%', 1);
    at = resp_write_deferred_begin(o);
    resp_write_int(o, 7);
    resp_write_deferred_end(o, at, '~', 1);
    EXPECT(o, "%1\r\n$1\r\nk\r\n:1\r\n~1\r\n:7\r\n");
}

static void test_deferred_nested_and_growing(void **state)
{
    struct resp_out *o = out3(state);
    size_t outer = resp_write_deferred_begin(o);
    size_t inner;
    size_t i;
    size_t mark;

    for (i = 0; i < 3; i++) {
        inner = resp_write_deferred_begin(o);
        resp_write_int(o, (long long)i);
        resp_write_deferred_end(o, inner, '*', 1);
    }
    mark = o->len;
    /* Grow the buffer (p moves) while the outer header is still open. */
    for (i = 0; i < 1000; i++) {
        resp_write_int(o, 5);
    }
    resp_write_deferred_end(o, outer, '*', 1003);
    assert_int_equal(o->err, 0);
    static const char head[] = "*1003\r\n*1\r\n:0\r\n*1\r\n:1\r\n*1\r\n:2\r\n:5\r\n:5\r\n";

    assert_memory_equal(o->p, head, sizeof(head) - 1);
    assert_int_equal(o->len, mark - 23 + 7 + 1000 * 4);
}

/* ---- growth and the sticky error ------------------------------------------------------- */

static void test_sticky_error(void **state)
{
    struct t_fix *f = *state;
    struct resp_out *o = out2(state);
    size_t len;
    size_t at;

    f->own.max_cap = 16;
    resp_write_ok(o);
    resp_write_int(o, 12);
    EXPECT(o, "+OK\r\n:12\r\n");
    resp_write_cstr(o, "this does not fit");
    assert_int_not_equal(o->err, 0);
    len = o->len;
    assert_int_equal(len, 10);
    /* Every writer is now a no-op, even ones that would fit. */
    resp_write_ok(o);
    resp_write_int(o, 1);
    resp_write_bulk(o, "x", 1);
    resp_write_error(o, "ERR x");
    resp_write_errorf(o, "ERR %d", 1);
    resp_write_double(o, 1.0);
    resp_write_null(o);
    resp_write_array(o, 1);
    resp_write_raw(o, "x", 1);
    resp_write_verbatim(o, "txt", "x", 1);
    at = resp_write_deferred_begin(o);
    resp_write_deferred_end(o, at, '*', 1);
    assert_null(resp_out_reserve(o, 1));
    assert_int_equal(o->len, len);
}

static void test_no_grow_callback(void **state)
{
    uint8_t buf[8];
    struct resp_out o = { buf, 0, sizeof(buf), NULL, NULL, 2, 0, NULL, NULL };

    (void)state;
    resp_write_ok(&o);
    assert_int_equal(o.err, 0);
    resp_write_ok(&o);
    assert_int_not_equal(o.err, 0);
    assert_int_equal(o.len, 5);
    assert_memory_equal(buf, "+OK\r\n", 5);
}

struct codes {
    char seen[4][16];
    int n;
};

static void on_error(void *arg, const char *code, size_t len)
{
    struct codes *k = arg;

    if (k->n < 4) {
        snprintf(k->seen[k->n++], sizeof(k->seen[0]), "%.*s", (int)len, code);
    }
}

/* Every error reply is reported with its code (the first word), and nothing else is. */
static void test_error_hook(void **state)
{
    uint8_t buf[256];
    struct codes k = {{{0}}, 0};
    struct resp_out o = { buf, 0, sizeof(buf), NULL, NULL, 2, 0, on_error, &k };

    (void)state;
    resp_write_ok(&o);
    resp_write_error(&o, "ERR wrong number of arguments");
    resp_write_errorf(&o, "-WRONGTYPE Operation %s", "against");
    resp_write_bulk(&o, "-NOTANERROR x", 13);
    resp_write_errorf(&o, "%s", "NOSPACE");
    assert_int_equal(k.n, 3);
    assert_string_equal(k.seen[0], "ERR");
    assert_string_equal(k.seen[1], "WRONGTYPE");
    assert_string_equal(k.seen[2], "NOSPACE");
}

static void test_exact_fit(void **state)
{
    /* A writer that fits exactly must not ask to grow. */
    uint8_t buf[4 + 5 + 2];
    struct resp_out o = { buf, 0, sizeof(buf), NULL, NULL, 2, 0, NULL, NULL };

    (void)state;
    resp_write_bulk(&o, "hello", 5);
    assert_int_equal(o.err, 0);
    assert_memory_equal(buf, "$5\r\nhello\r\n", 11);
}

static void test_grow_once_per_element(void **state)
{
    struct t_fix *f = *state;
    struct resp_out *o = out2(state);
    static const char big[200] = { 0 };

    resp_write_bulk(o, big, sizeof(big));
    assert_int_equal(o->err, 0);
    assert_int_equal(f->own.grows, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_simple_ok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errorf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_int, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bulk_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_resp3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_resp2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verbatim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aggregates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deferred, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deferred_nested_and_growing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sticky_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_grow_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_hook, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exact_fit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grow_once_per_element, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
