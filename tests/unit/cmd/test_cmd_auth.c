/*
 * test_cmd_auth: cmocka tests of the password comparison (cmd_auth_secret_eq, cmd_conn.c) and
 * of AUTH and HELLO AUTH through cmd_dispatch with requirepass set.
 *
 * The comparison must answer exactly "same bytes": equal, different at the first or the last
 * byte, one a prefix of the other, lengths that differ, empty on either side, embedded NULs.
 * That its time does not depend on where the inputs differ follows from its construction
 * (fixed-size digests compared with CRYPTO_memcmp); tests assert behaviour, not timings.
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
#include "cmd/mech/cmd_conn.h"

#define REPLY_CAP 4096
#define PASSWORD "s3cret-Pa55"
#define WRONGPASS "-WRONGPASS invalid username-password pair or user is disabled.\r\n"

static int eq(const char *a, size_t alen, const char *b, size_t blen)
{
    return cmd_auth_secret_eq((const uint8_t *)a, alen, (const uint8_t *)b, blen);
}

static int eqs(const char *a, const char *b)
{
    return eq(a, strlen(a), b, strlen(b));
}

static void test_equal(void **state)
{
    (void)state;
    assert_true(eqs("password", "password"));
    assert_true(eqs(PASSWORD, PASSWORD));
    assert_true(eq("a\0b", 3, "a\0b", 3));
    assert_true(eq(NULL, 0, NULL, 0));
    assert_true(eq("", 0, NULL, 0));
}

static void test_different(void **state)
{
    (void)state;
    assert_false(eqs("password", "Password")); /* first byte */
    assert_false(eqs("password", "passworD")); /* last byte */
    assert_false(eqs("password", "pa55word"));
    assert_false(eq("a\0b", 3, "a\0c", 3)); /* past a NUL */
}

static void test_prefix(void **state)
{
    (void)state;
    assert_false(eqs("pass", "password"));
    assert_false(eqs("password", "pass"));
    assert_false(eq("password", 8, "password\0", 9)); /* a trailing NUL is a byte */
}

static void test_lengths(void **state)
{
    char long_a[1000], long_b[1000];

    (void)state;
    memset(long_a, 'x', sizeof(long_a));
    memcpy(long_b, long_a, sizeof(long_b));
    assert_true(eq(long_a, sizeof(long_a), long_b, sizeof(long_b)));
    assert_false(eq(long_a, sizeof(long_a), long_b, sizeof(long_b) - 1));
    long_b[999] = 'y';
    assert_false(eq(long_a, sizeof(long_a), long_b, sizeof(long_b)));
    assert_false(eqs("x", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"));
}

static void test_empty(void **state)
{
    (void)state;
    assert_false(eq("", 0, "a", 1));
    assert_false(eq("a", 1, "", 0));
    assert_false(eq(NULL, 0, PASSWORD, strlen(PASSWORD)));
    assert_false(eq("\0", 1, "", 0));
}

/* ---- AUTH and HELLO through dispatch ------------------------------------------------------ */

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    char reply[REPLY_CAP];
};

static int64_t fake_now_ms(void *srv)
{
    (void)srv;
    return 1700000000000LL;
}

static uint64_t fake_now_us(void *srv)
{
    (void)srv;
    return 1000;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.settings.requirepass = PASSWORD;
    f->srv.hooks.srv = f;
    f->srv.hooks.now_ms = fake_now_ms;
    f->srv.hooks.now_us = fake_now_us;
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

static const char *run(struct fx *f, const char *line)
{
    return cmd_fixture_dispatch(&f->srv, &f->cl, &f->out, line, f->reply, sizeof(f->reply));
}

static void test_auth_dispatch(void **state)
{
    struct fx *f = *state;

    assert_false(f->cl.flags & CMD_CLIENT_AUTHED);
    assert_string_equal(run(f, "PING"), "-NOAUTH Authentication required.\r\n");
    assert_string_equal(run(f, "AUTH s3cret"), WRONGPASS);                /* a prefix */
    assert_string_equal(run(f, "AUTH s3cret-Pa55x"), WRONGPASS);          /* one byte more */
    assert_string_equal(run(f, "AUTH s3cret-Pa56"), WRONGPASS);           /* last byte */
    assert_string_equal(run(f, "AUTH default s3cret-Pa5"), WRONGPASS);
    assert_string_equal(run(f, "AUTH nobody " PASSWORD), WRONGPASS);      /* right password */
    assert_string_equal(run(f, "HELLO 2 AUTH default s3cret-pa55"), WRONGPASS);
    assert_false(f->cl.flags & CMD_CLIENT_AUTHED);
    assert_string_equal(run(f, "AUTH " PASSWORD), "+OK\r\n");
    assert_true(f->cl.flags & CMD_CLIENT_AUTHED);
    assert_string_equal(run(f, "PING"), "+PONG\r\n");
}

static void test_hello_auth_dispatch(void **state)
{
    struct fx *f = *state;

    assert_int_equal(strncmp(run(f, "HELLO 3 AUTH default s3cret-Pa55"), "%7\r\n", 4), 0);
    assert_true(f->cl.flags & CMD_CLIENT_AUTHED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_different),
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_empty),
        cmocka_unit_test_setup_teardown(test_auth_dispatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hello_auth_dispatch, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
