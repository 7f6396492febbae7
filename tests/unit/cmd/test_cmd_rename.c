/*
 * test_cmd_rename: cmocka tests of rename-command's effect on the command table
 * (cmd_table_rename, cmd_name_known; src/cmd/core/cmd_table.c): lookups by the new name in any
 * case, the old name gone, a removed command out of the table, the refusals that change
 * nothing, and failed allocations that change nothing either.
 */
#include "cmd/core/cmd.h"

#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/core/cmd_table.h"

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    long fail_in; /* allocations until one fails (0: none fails) */
};

static void *maybe_alloc(void *opaque, size_t size)
{
    struct fx *f = opaque;

    if (f->fail_in > 0 && --f->fail_in == 0) {
        return NULL;
    }
    return malloc(size);
}

static void plain_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.alloc.alloc = maybe_alloc;
    f->srv.alloc.free = plain_free;
    f->srv.alloc.opaque = f;
    cmd_fixture_init(&f->srv, &f->cl, &f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    cmd_fixture_deinit(&f->srv, &f->cl);
    cmd_fixture_teardown(&f->srv, &f->out);
    free(f);
    return 0;
}

static const struct cmd_def *find(const struct fx *f, const char *name)
{
    return cmd_lookup(&f->srv, (const uint8_t *)name, strlen(name));
}

static int listed(const struct fx *f, const struct cmd_def *d)
{
    for (size_t i = 0; i < cmd_table_count(&f->srv); i++) {
        if (cmd_table_at(&f->srv, i) == d) {
            return 1;
        }
    }
    return 0;
}

static void test_known(void **state)
{
    (void)state;
    assert_true(cmd_name_known("get"));
    assert_true(cmd_name_known("FlushAll"));
    assert_false(cmd_name_known("config|get"));
    assert_false(cmd_name_known("nosuch"));
    assert_false(cmd_name_known(""));
}

static void test_rename(void **state)
{
    struct fx *f = *state;
    const struct cmd_def *get = find(f, "get");
    size_t n = cmd_table_count(&f->srv);

    assert_non_null(get);
    assert_int_equal(cmd_table_rename(&f->srv, "GET", "Fetch"), TERSE_OK);
    assert_null(find(f, "get"));
    assert_ptr_equal(find(f, "fetch"), get);
    assert_ptr_equal(find(f, "FETCH"), get);
    assert_string_equal(get->name, "get"); /* its own name stays */
    assert_int_equal(cmd_table_count(&f->srv), n);
    assert_true(listed(f, get));
    /* Renamed again; to its own name in another case. */
    assert_int_equal(cmd_table_rename(&f->srv, "fetch", "grab"), TERSE_OK);
    assert_null(find(f, "fetch"));
    assert_int_equal(cmd_table_rename(&f->srv, "grab", "GRAB"), TERSE_OK);
    assert_ptr_equal(find(f, "grab"), get);
    /* The freed name can be taken. */
    assert_int_equal(cmd_table_rename(&f->srv, "set", "get"), TERSE_OK);
    assert_string_equal(find(f, "get")->name, "set");
    assert_non_null(find(f, "hget")); /* the others are where they were */
}

static void test_disable(void **state)
{
    struct fx *f = *state;
    const struct cmd_def *flushall = find(f, "flushall");
    size_t n = cmd_table_count(&f->srv);

    assert_int_equal(cmd_table_rename(&f->srv, "FLUSHALL", ""), TERSE_OK);
    assert_null(find(f, "flushall"));
    assert_int_equal(cmd_table_count(&f->srv), n - 1);
    assert_false(listed(f, flushall));
    assert_int_equal(cmd_table_rename(&f->srv, "flushall", "x"), TERSE_ENOTFOUND);
    for (size_t i = 1; i < cmd_table_count(&f->srv); i++) {
        assert_true(strcmp(cmd_table_at(&f->srv, i - 1)->name,
                           cmd_table_at(&f->srv, i)->name) < 0);
    }
}

static void test_refused(void **state)
{
    struct fx *f = *state;
    const struct cmd_def *get = find(f, "get");

    assert_int_equal(cmd_table_rename(&f->srv, "nosuch", "x"), TERSE_ENOTFOUND);
    assert_int_equal(cmd_table_rename(&f->srv, "get", "SET"), TERSE_EINVAL);
    assert_ptr_equal(find(f, "get"), get);
    assert_int_equal(f->srv.n_renamed, 0);
}

static void test_oom_changes_nothing(void **state)
{
    struct fx *f = *state;
    const struct cmd_def *get = find(f, "get");
    size_t n = cmd_table_count(&f->srv);

    /* A rename allocates three blocks (new table, the name, the list of names). */
    for (long k = 1; k <= 3; k++) {
        f->fail_in = k;
        assert_int_equal(cmd_table_rename(&f->srv, "get", "fetch"), TERSE_ENOMEM);
        assert_ptr_equal(find(f, "get"), get);
        assert_null(find(f, "fetch"));
        assert_int_equal(f->srv.n_renamed, 0);
    }
    f->fail_in = 1; /* removing one allocates the new table only */
    assert_int_equal(cmd_table_rename(&f->srv, "get", ""), TERSE_ENOMEM);
    assert_ptr_equal(find(f, "get"), get);
    assert_int_equal(cmd_table_count(&f->srv), n);
    f->fail_in = 0;
    assert_int_equal(cmd_table_rename(&f->srv, "get", "fetch"), TERSE_OK);
    assert_ptr_equal(find(f, "fetch"), get);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test_setup_teardown(test_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oom_changes_nothing, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
