/*
 * resp_parse_fixture: the counting allocator and the checks of the resp_parse tests (see
 * resp_parse_fixture.h).
 */
#include "resp_parse_fixture.h"

#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static long rpf_live; /* blocks currently allocated */
long rpf_calls;
long rpf_fail_at = -1;

void *rpf_realloc(void *p, size_t n)
{
    long idx = rpf_calls++;
    void *q;

    if (idx == rpf_fail_at) {
        return NULL;
    }
    q = realloc(p, n);
    if (q != NULL && p == NULL) {
        rpf_live++;
    }
    return q;
}

void rpf_free(void *p)
{
    if (p != NULL) {
        rpf_live--;
    }
    free(p);
}

int rpf_setup(void **state)
{
    struct resp_request *r = malloc(sizeof(*r));

    assert_non_null(r);
    rpf_live = 0;
    rpf_calls = 0;
    rpf_fail_at = -1;
    resp_request_init(r, rpf_realloc, rpf_free);
    *state = r;
    return 0;
}

int rpf_teardown(void **state)
{
    struct resp_request *r = *state;

    resp_request_deinit(r);
    free(r);
    assert_int_equal(rpf_live, 0);
    return 0;
}

const struct resp_limits rpf_lim = { RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, 0 };

int rpf_parse_copy(struct resp_request *r, const char *in, size_t n, const struct resp_limits *lim,
                   size_t *consumed, uint8_t **copy)
{
    uint8_t *b = malloc(n != 0 ? n : 1);

    assert_non_null(b);
    if (n != 0) {
        memcpy(b, in, n);
    }
    *copy = b;
    return resp_parse_request(r, b, n, lim, consumed);
}

static void rpf_assert_args(const struct resp_request *r, const struct rpf_want *w, size_t nw)
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

int rpf_inside(const struct resp_slice *s, const uint8_t *b, size_t n)
{
    return s->p >= b && s->p + s->len <= b + n;
}

void rpf_check_ok_lim(struct resp_request *r, const char *in, size_t n, size_t used,
                      const struct rpf_want *w, size_t nw, int slices,
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
    rc = rpf_parse_copy(r, in, n, lim, &consumed, &b);
    assert_int_equal(rc, TERSE_OK);
    assert_int_equal(consumed, used);
    rpf_assert_args(r, w, nw);
    if (slices) {
        for (k = 0; k < nw; k++) {
            assert_true(rpf_inside(&r->argv[k], b, n));
        }
    }
    free(b);
    for (k = 0; k <= n; k++) {
        consumed = 12345;
        rc = rpf_parse_copy(r, in, k, lim, &consumed, &b);
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
            rpf_assert_args(r, w, nw);
        }
        free(b);
    }
}

void rpf_check_ok(struct resp_request *r, const char *in, size_t n, size_t used,
                  const struct rpf_want *w, size_t nw, int slices)
{
    rpf_check_ok_lim(r, in, n, used, w, nw, slices, &rpf_lim);
}

void rpf_check_err_lim(struct resp_request *r, const char *in, size_t n, const char *text,
                       const struct resp_limits *lim)
{
    size_t k;
    size_t consumed;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = rpf_parse_copy(r, in, n, lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_EPROTO);
    assert_int_equal(consumed, 0);
    assert_int_equal(r->argc, 0);
    assert_non_null(r->err);
    assert_string_equal(r->err, text);
    for (k = 0; k < n; k++) {
        rc = rpf_parse_copy(r, in, k, lim, &consumed, &b);
        free(b);
        assert_int_equal(consumed, 0);
        if (rc != TERSE_MORE) {
            assert_int_equal(rc, TERSE_EPROTO);
            assert_string_equal(r->err, text);
        }
    }
}

void rpf_check_err(struct resp_request *r, const char *in, size_t n, const char *text)
{
    rpf_check_err_lim(r, in, n, text, &rpf_lim);
}

void rpf_check_more(struct resp_request *r, const char *in, size_t n, size_t need)
{
    size_t consumed = 99;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = rpf_parse_copy(r, in, n, &rpf_lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_MORE);
    assert_int_equal(consumed, 0);
    assert_int_equal(r->argc, 0);
    assert_int_equal(r->need, need);
}

void rpf_check_more_lim(struct resp_request *r, const char *in, size_t n,
                        const struct resp_limits *lim)
{
    size_t consumed = 99;
    uint8_t *b;
    int rc;

    resp_request_reset(r);
    rc = rpf_parse_copy(r, in, n, lim, &consumed, &b);
    free(b);
    assert_int_equal(rc, TERSE_MORE);
    assert_int_equal(consumed, 0);
}

size_t rpf_feed_bytewise(struct resp_request *r, const char *in, size_t n, char *out,
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
            rc = resp_parse_request(r, b + start, have - start, &rpf_lim, &consumed);
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

char *rpf_make_buf_n(const char *head, size_t hl, size_t fill, char c, const char *tail,
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

char *rpf_make_buf(const char *head, size_t fill, char c, const char *tail, size_t *n)
{
    return rpf_make_buf_n(head, strlen(head), fill, c, tail, n);
}
