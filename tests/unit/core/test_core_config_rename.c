/*
 * test_core_config_rename: cmocka tests of rename-command in the config loader
 * (src/core/core_config_load.c): the lines kept in order; Redis 7.0's checks and texts, made
 * against the commands as the lines before left them; the wrong number of words; the command
 * line; not an option for CONFIG GET / SET; deep copies; OOM injection.
 *
 * The command table is a fake command_known hook knowing get, set and ping (core cannot see
 * cmd's table; the server hands it cmd_name_known).
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

static int known(const char *name)
{
    return strcasecmp(name, "get") == 0 || strcasecmp(name, "set") == 0 ||
           strcasecmp(name, "ping") == 0;
}

struct fx {
    struct core_config c;
    char err[CORE_CONFIG_ERR_CAP];
    uint64_t used_before;
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);

    if (f == NULL) {
        return -1;
    }
    f->used_before = core_mem_used();
    if (core_config_init(&f->c) != TERSE_OK) {
        free(f);
        return -1;
    }
    f->c.command_known = known;
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    core_config_deinit(&f->c);
    assert_int_equal(core_mem_used(), f->used_before);
    free(f);
    return 0;
}

static int load(struct fx *f, const char *text)
{
    f->err[0] = '\0';
    return core_config_load_string(&f->c, text, strlen(text), "t.conf", f->err, sizeof f->err);
}

static void assert_pair(const struct core_config *c, size_t i, const char *from, const char *to)
{
    assert_true(i < c->renames.n);
    assert_string_equal(c->renames.v[i].from, from);
    assert_string_equal(c->renames.v[i].to, to);
}

static void assert_err_ends(const struct fx *f, const char *line, const char *why)
{
    char want[CORE_CONFIG_ERR_CAP];
    size_t n = strlen(f->err), w;

    snprintf(want, sizeof want, ">>> '%s'\n%s", line, why);
    w = strlen(want);
    assert_true(n >= w);
    assert_string_equal(f->err + n - w, want);
}

static void test_kept_in_order(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "rename-command get fetch\n"
                             "RENAME-COMMAND Fetch grab\n"
                             "rename-command set \"\"\n"
                             "rename-command ping ping\n"),
                     TERSE_OK);
    assert_int_equal(f->c.renames.n, 4);
    assert_pair(&f->c, 0, "get", "fetch");
    assert_pair(&f->c, 1, "Fetch", "grab");
    assert_pair(&f->c, 2, "set", "");
    assert_pair(&f->c, 3, "ping", "ping");
}

static void test_no_such_command(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "rename-command nosuch x\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command nosuch x", "No such command in rename-command");
    assert_int_equal(f->c.renames.n, 0);
    /* A subcommand is no command to rename (Redis 7.0 crashes on it). */
    assert_int_equal(load(f, "rename-command config|get x\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command config|get x", "No such command in rename-command");
    assert_int_equal(load(f, "rename-command '' x\n"), TERSE_ECONFIG);
}

static void test_renamed_away(void **state)
{
    struct fx *f = *state;

    /* After a rename the old name is gone: renaming it again fails on line 2. */
    assert_int_equal(load(f, "rename-command get x\nrename-command get y\n"), TERSE_ECONFIG);
    assert_non_null(strstr(f->err, "at line 2\n"));
    assert_err_ends(f, "rename-command get y", "No such command in rename-command");
}

static void test_disabled_is_gone(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "rename-command get ''\nrename-command get x\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command get x", "No such command in rename-command");
}

static void test_target_exists(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "rename-command get SET\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command get SET", "Target command name already exists");
    /* A name an earlier line gave is taken too. */
    assert_int_equal(load(f, "rename-command get x\nrename-command set x\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command set x", "Target command name already exists");
}

static void test_target_freed(void **state)
{
    struct fx *f = *state;

    /* get is free once renamed away; a name to itself (any case) is no conflict. */
    assert_int_equal(load(f, "rename-command get x\nrename-command set get\n"
                             "rename-command x X\nrename-command ping PING\n"),
                     TERSE_OK);
    assert_int_equal(f->c.renames.n, 4);
    assert_pair(&f->c, 1, "set", "get");
}

static void test_wrong_words(void **state)
{
    struct fx *f = *state;

    assert_int_equal(load(f, "rename-command get\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command get", "Bad directive or wrong number of arguments");
    assert_int_equal(load(f, "rename-command get a b\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command get a b", "Bad directive or wrong number of arguments");
    assert_int_equal(f->c.renames.n, 0);
}

static void test_no_table_knows_nothing(void **state)
{
    struct fx *f = *state;

    f->c.command_known = NULL;
    assert_int_equal(load(f, "rename-command get x\n"), TERSE_ECONFIG);
    assert_err_ends(f, "rename-command get x", "No such command in rename-command");
}

static void test_command_line(void **state)
{
    struct fx *f = *state;
    char *argv[] = {"--port", "7000", "--rename-command", "get", "", "--rename-command",
                    "set", "put"};

    assert_int_equal(core_config_apply_args(&f->c, 8, argv, f->err, sizeof f->err), TERSE_OK);
    assert_int_equal(f->c.renames.n, 2);
    assert_pair(&f->c, 0, "get", "");
    assert_pair(&f->c, 1, "set", "put");
    assert_int_equal(f->c.port, 7000);
}

static void emit_count(void *arg, const char *name, const char *value)
{
    (void)name;
    (void)value;
    (*(int *)arg)++;
}

static void test_not_an_option(void **state)
{
    struct fx *f = *state;
    int n = 0;
    unsigned flags;

    assert_int_equal(core_config_set(&f->c, "rename-command", "get x", f->err, sizeof f->err),
                     TERSE_ECONFIG);
    assert_string_equal(f->err,
                        "ERR Unknown option or number of arguments for CONFIG SET - "
                        "'rename-command'");
    core_config_get(&f->c, "rename-command", emit_count, &n);
    core_config_get(&f->c, "rename*", emit_count, &n);
    assert_int_equal(n, 0);
    assert_int_equal(core_config_flags("rename-command", &flags), TERSE_ENOTFOUND);
}

static void test_copy_and_set_keep_renames(void **state)
{
    struct fx *f = *state;
    struct core_config copy;

    assert_int_equal(load(f, "rename-command get fetch\n"), TERSE_OK);
    /* CONFIG SET works on a copy and swaps it in: the renames come along. */
    assert_int_equal(core_config_set(&f->c, "timeout", "5", f->err, sizeof f->err), TERSE_OK);
    assert_int_equal(f->c.renames.n, 1);
    assert_pair(&f->c, 0, "get", "fetch");
    assert_int_equal(core_config_copy(&copy, &f->c), TERSE_OK);
    assert_int_equal(copy.renames.n, 1);
    assert_ptr_not_equal(copy.renames.v[0].from, f->c.renames.v[0].from);
    assert_pair(&copy, 0, "get", "fetch");
    assert_ptr_equal(copy.command_known, known);
    core_config_deinit(&copy);
}

static void test_oom(void **state)
{
    static const char text[] = "rename-command get fetch\nrename-command set ''\n";
    uint64_t base = core_mem_used();

    (void)state;
    for (uint64_t nth = 1; nth < 64; nth++) {
        struct core_config c, copy;
        char err[CORE_CONFIG_ERR_CAP];
        int rc;
        if (core_config_init(&c) != TERSE_OK) {
            fail();
        }
        c.command_known = known;
        core_mem_fail_after(nth);
        rc = core_config_load_string(&c, text, sizeof text - 1, NULL, err, sizeof err);
        assert_true(rc == TERSE_OK || rc == TERSE_ENOMEM);
        if (rc == TERSE_OK) {
            rc = core_config_copy(&copy, &c);
            assert_true(rc == TERSE_OK || rc == TERSE_ENOMEM);
            if (rc == TERSE_OK) {
                assert_int_equal(copy.renames.n, 2);
                core_config_deinit(&copy);
            }
        }
        core_mem_fail_after(0);
        core_config_deinit(&c);
        assert_int_equal(core_mem_used(), base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kept_in_order, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_no_such_command, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_renamed_away, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_disabled_is_gone, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_target_exists, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_target_freed, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_wrong_words, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_no_table_knows_nothing, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_command_line, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_not_an_option, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_copy_and_set_keep_renames, fx_setup, fx_teardown),
        cmocka_unit_test(test_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
