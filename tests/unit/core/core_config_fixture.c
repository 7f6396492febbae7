/*
 * core_config_fixture: the config fixture of the core_config tests (see core_config_fixture.h).
 */
#include "core_config_fixture.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

int cfx_setup(void **state)
{
    struct cfx *f = calloc(1, sizeof *f);

    if (f == NULL) {
        return -1;
    }
    f->used_before = core_mem_used();
    if (core_config_init(&f->c) != TERSE_OK) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

int cfx_teardown(void **state)
{
    struct cfx *f = *state;

    core_config_deinit(&f->c);
    assert_int_equal(core_mem_used(), f->used_before);
    free(f);
    return 0;
}

int cfx_load(struct cfx *f, const char *text)
{
    f->err[0] = '\0';
    return core_config_load_string(&f->c, text, strlen(text), "t.conf", f->err, sizeof f->err);
}

int cfx_set(struct cfx *f, const char *name, const char *value)
{
    f->err[0] = '\0';
    return core_config_set(&f->c, name, value, f->err, sizeof f->err);
}

const char *cfx_get(struct cfx *f, const char *name)
{
    static char out[CORE_CONFIG_VALUE_CAP]; /* test-only scratch; tests do not run in parallel */
    size_t len;

    assert_int_equal(core_config_get_one(&f->c, name, out, sizeof out, &len), TERSE_OK);
    assert_int_equal(len, strlen(out));
    return out;
}

void cfx_check_value(struct cfx *f, const char *name, const char *value, const char *shown)
{
    char line[512];

    (void)snprintf(line, sizeof line, "%s %s\n", name, value);
    if (shown == NULL) {
        assert_int_equal(cfx_load(f, line), TERSE_ECONFIG);
    } else {
        assert_int_equal(cfx_load(f, line), TERSE_OK);
        assert_string_equal(cfx_get(f, name), shown);
    }
}

void cfx_check_reason(struct cfx *f, const char *reason)
{
    const char *last = strrchr(f->err, '\n');

    assert_non_null(last);
    assert_string_equal(last + 1, reason);
}
