/*
 * resp_parse_fixture: the harness of the resp_parse tests (test_resp_parse.c,
 * test_resp_parse_inline.c, test_resp_parse_resume.c): a counting realloc that can fail one
 * chosen call, cmocka setup and teardown around a struct resp_request using it (teardown
 * asserting no block is left), and the checks every test runs its inputs through: whole, at
 * every prefix, and one byte at a time.
 *
 * resp_request's realloc_fn has no opaque argument, so the allocator's counters are globals
 * (test code only; tests do not run in parallel). Linked into every tests/unit/resp/test_*.c
 * by the Makefile (the *_fixture.c files of a test's folder).
 */
#ifndef TERSE_TEST_RESP_PARSE_FIXTURE_H
#define TERSE_TEST_RESP_PARSE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "resp/resp_parse.h"

/* ---- counting, failing allocator ---- */

extern long rpf_calls;   /* realloc calls so far */
extern long rpf_fail_at; /* fail the call with this index (0-based); -1 = never */

/* realloc_fn / free_fn for resp_request_init, counting blocks and calls. */
void *rpf_realloc(void *p, size_t n);
void rpf_free(void *p);

/* cmocka setup: *state = a malloc'd struct resp_request initialised with the counting
 * allocator, counters reset (nothing fails). */
int rpf_setup(void **state);
/* cmocka teardown: deinitialises and frees the request; asserts no block is left. */
int rpf_teardown(void **state);
/* A cmocka test of fn run between the two. */
#define RPF_TEST(fn) cmocka_unit_test_setup_teardown(fn, rpf_setup, rpf_teardown)

/* ---- harness ---- */

/* An expected argument. */
struct rpf_want {
    const char *p;
    size_t len;
};

#define W(s) { (s), sizeof(s) - 1 }
#define IN(s) (s), (sizeof(s) - 1)
/* check_ok's `used` when the command is the whole input. */
#define ALL 0

/* The default limits (RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, authenticated). */
extern const struct resp_limits rpf_lim;

/* Parses in[0..n) copied into an exact-size block (*copy: malloc'd, the caller frees it). */
int rpf_parse_copy(struct resp_request *r, const char *in, size_t n, const struct resp_limits *lim,
                   size_t *consumed, uint8_t **copy);
/* 1 when s lies inside b[0..n). */
int rpf_inside(const struct resp_slice *s, const uint8_t *b, size_t n);
/* in[0..n) starts with one command of `used` bytes (ALL: n) whose arguments are w[0..nw).
 * Checks the whole input, every prefix, and (when slices) that each argument points into the
 * input; under lim, or rpf_lim for rpf_check_ok. */
void rpf_check_ok_lim(struct resp_request *r, const char *in, size_t n, size_t used,
                      const struct rpf_want *w, size_t nw, int slices,
                      const struct resp_limits *lim);
void rpf_check_ok(struct resp_request *r, const char *in, size_t n, size_t used,
                  const struct rpf_want *w, size_t nw, int slices);
/* in[0..n) is rejected with text; every prefix gives TERSE_MORE or the same error. */
void rpf_check_err_lim(struct resp_request *r, const char *in, size_t n, const char *text,
                       const struct resp_limits *lim);
void rpf_check_err(struct resp_request *r, const char *in, size_t n, const char *text);
/* in[0..n) has no complete command yet (r->need == need). */
void rpf_check_more(struct resp_request *r, const char *in, size_t n, size_t need);
/* in[0..n) is incomplete under lim (need not checked). */
void rpf_check_more_lim(struct resp_request *r, const char *in, size_t n,
                        const struct resp_limits *lim);
/* A connection that receives in[0..n) one byte at a time and parses after every byte.
 * Returns the number of commands parsed; each command's args are joined as "a|b|c" into out
 * (out_cap bytes; one command per line). */
size_t rpf_feed_bytewise(struct resp_request *r, const char *in, size_t n, char *out,
                         size_t out_cap);
/* malloc'd head (hl bytes, may hold NUL) + fill bytes of c + tail (a C string), NUL-terminated;
 * *n = its length without the NUL. rpf_make_buf takes head as a C string. */
char *rpf_make_buf_n(const char *head, size_t hl, size_t fill, char c, const char *tail,
                     size_t *n);
char *rpf_make_buf(const char *head, size_t fill, char c, const char *tail, size_t *n);

#endif /* TERSE_TEST_RESP_PARSE_FIXTURE_H */
