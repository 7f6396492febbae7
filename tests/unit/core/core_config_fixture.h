/*
 * core_config_fixture: a struct core_config under test, for test_core_config.c,
 * test_core_config_load.c and test_core_config_runtime.c (cfx: config fixture): cmocka setup
 * and teardown (teardown asserting every byte came back), loading text, CONFIG SET and GET of
 * one option, and the checks of a load's outcome and error reason.
 *
 * Linked into every tests/unit/core/test_*.c by the Makefile (the *_fixture.c files of a
 * test's folder); a test that does not include this header does not use it.
 */
#ifndef TERSE_TEST_CORE_CONFIG_FIXTURE_H
#define TERSE_TEST_CORE_CONFIG_FIXTURE_H

#include <stdint.h>

#include "core/core_config.h"

struct cfx {
    struct core_config c;
    char err[CORE_CONFIG_ERR_CAP]; /* the last load's or set's error text */
    uint64_t used_before;          /* core_mem_used() before c was initialised */
};

/* cmocka setup: *state = a calloc'd struct cfx with c initialised to the defaults. */
int cfx_setup(void **state);
/* cmocka teardown: deinitialises c and asserts core_mem_used() is back where it was. */
int cfx_teardown(void **state);
/* A cmocka test of fn run between the two. */
#define CFX_TEST(fn) cmocka_unit_test_setup_teardown(fn, cfx_setup, cfx_teardown)

/* Loads text as the file "t.conf" into f->c; the status (f->err holds the error). */
int cfx_load(struct cfx *f, const char *text);
/* CONFIG SET name value; the status (f->err holds the error). */
int cfx_set(struct cfx *f, const char *name, const char *value);
/* The CONFIG GET value of name (asserted to exist), in a buffer the next call reuses. */
const char *cfx_get(struct cfx *f, const char *name);
/* Loads "name value" and asserts the outcome: TERSE_ECONFIG when shown is NULL, else
 * TERSE_OK and shown as CONFIG GET's text. */
void cfx_check_value(struct cfx *f, const char *name, const char *value, const char *shown);
/* Asserts the last line of f->err is reason. */
void cfx_check_reason(struct cfx *f, const char *reason);

#endif /* TERSE_TEST_CORE_CONFIG_FIXTURE_H */
