/*
 * test_core_config_notify: notify-keyspace-events, its letters read and written as Redis
 * 7.0's notify.c does (canonical order, "A" for every class but m and n, Redis's error text),
 * through the parser alone and through the config table (file, CONFIG SET, CONFIG GET).
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Parses text, checks it is accepted, and returns its canonical spelling (static buffer). */
static const char *roundtrip(const char *text)
{
    static char buf[CORE_NOTIFY_TEXT_CAP];
    int flags = -1;

    assert_true(core_config_notify_parse(text, &flags));
    core_config_notify_format(flags, buf);
    return buf;
}

static void test_parse_format(void **state)
{
    (void)state;
    assert_string_equal(roundtrip(""), "");
    assert_string_equal(roundtrip("KEA"), "AKE");
    assert_string_equal(roundtrip("AKE"), "AKE");
    assert_string_equal(roundtrip("gxK$nmEd"), "g$xdnKEm");
    assert_string_equal(roundtrip("g$lshzxetd"), "A");     /* every class of A */
    assert_string_equal(roundtrip("g$lshzxet"), "g$lshzxet"); /* d missing: no A */
    assert_string_equal(roundtrip("AnKm"), "AKm");           /* n is dropped beside A */
    assert_string_equal(roundtrip("EEEgg"), "gE");
    assert_string_equal(roundtrip("tzhsl$g"), "g$lshzt");
    assert_string_equal(roundtrip("Km"), "Km");
    assert_string_equal(roundtrip("nm"), "nm");
}

static void test_parse_bits(void **state)
{
    int f = 0;

    (void)state;
    assert_true(core_config_notify_parse("A", &f));
    assert_int_equal(f, CORE_NOTIFY_ALL);
    assert_int_equal(f & (CORE_NOTIFY_NEW | CORE_NOTIFY_KEY_MISS | CORE_NOTIFY_KEYSPACE), 0);
    assert_true(core_config_notify_parse("Ex", &f));
    assert_int_equal(f, CORE_NOTIFY_KEYEVENT | CORE_NOTIFY_EXPIRED);
    /* Anything else is refused and leaves the flags alone, also after valid letters. */
    f = 77;
    assert_false(core_config_notify_parse("Q", &f));
    assert_false(core_config_notify_parse("KEa", &f));
    assert_false(core_config_notify_parse("K E", &f));
    assert_false(core_config_notify_parse("G", &f));
    assert_int_equal(f, 77);
}

static void test_option(void **state)
{
    struct core_config c;
    char err[CORE_CONFIG_ERR_CAP], out[CORE_CONFIG_VALUE_CAP];
    size_t len;
    uint64_t used = core_mem_used();

    (void)state;
    assert_int_equal(core_config_init(&c), TERSE_OK);
    assert_int_equal(c.notify_keyspace_events, 0);
    assert_int_equal(core_config_get_one(&c, "notify-keyspace-events", out, sizeof out, &len),
                     TERSE_OK);
    assert_string_equal(out, "");
    assert_int_equal(core_config_set(&c, "notify-keyspace-events", "KEA", err, sizeof err),
                     TERSE_OK);
    assert_int_equal(c.notify_keyspace_events,
                     CORE_NOTIFY_ALL | CORE_NOTIFY_KEYSPACE | CORE_NOTIFY_KEYEVENT);
    assert_int_equal(core_config_get_one(&c, "notify-keyspace-events", out, sizeof out, &len),
                     TERSE_OK);
    assert_string_equal(out, "AKE");
    assert_int_equal(len, 3);
    assert_int_not_equal(core_config_set(&c, "notify-keyspace-events", "KEz!", err, sizeof err),
                         TERSE_OK);
    assert_non_null(strstr(err, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
    assert_int_equal(c.notify_keyspace_events,
                     CORE_NOTIFY_ALL | CORE_NOTIFY_KEYSPACE | CORE_NOTIFY_KEYEVENT);
    assert_int_equal(core_config_load_string(&c, "notify-keyspace-events Elg\n", 27, "t.conf",
                                             err, sizeof err),
                     TERSE_OK);
    assert_int_equal(core_config_get_one(&c, "notify-keyspace-events", out, sizeof out, &len),
                     TERSE_OK);
    assert_string_equal(out, "glE");
    core_config_deinit(&c);
    assert_int_equal(core_mem_used(), used);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_format),
        cmocka_unit_test(test_parse_bits),
        cmocka_unit_test(test_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
