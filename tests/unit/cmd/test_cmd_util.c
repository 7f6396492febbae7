/*
 * cmd_parse_double against strtod, the reference: its integer fast path (an optional '-' and
 * up to 15 digits) must give exactly strtod's double, -0 included, and everything else must
 * be accepted or refused as before (spaces, a lone '-', exponents, 16+ digits, junk).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "cmd/core/cmd_util.h"

/* strtod's verdict on s: 1 with *v when the whole string is a number. */
static int reference(const char *s, double *v)
{
    char *end = NULL;

    if (s[0] == '\0' || s[0] == ' ') {
        return 0;
    }
    *v = strtod(s, &end);
    return *end == '\0' && !isnan(*v);
}

static void check(const char *s)
{
    double got = 12345.5, want = 0;
    int ok = cmd_parse_double((const uint8_t *)s, strlen(s), &got);
    int ref = reference(s, &want);

    assert_int_equal(ok, ref);
    if (ok) {
        assert_memory_equal(&got, &want, sizeof(got)); /* the same bits: -0 stays -0 */
    }
}

static void test_matches_strtod(void **state)
{
    static const char *fixed[] = {"0", "-0", "00", "-000", "7", "-7", "123456789012345",
                                  "-123456789012345", "1234567890123456", "99999999999999999",
                                  "-", "", " 1", "1 ", "+5", "1e3", "1.5", "-1.25", "inf",
                                  "-inf", "nan", "12a", "0x10", "000000012345"};
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        check(fixed[i]);
    }
    srand(7);
    for (int i = 0; i < 200000; i++) {
        int digits = 1 + rand() % 18, n = 0;

        if (rand() % 2) {
            buf[n++] = '-';
        }
        for (int d = 0; d < digits; d++) {
            buf[n++] = (char)('0' + rand() % 10);
        }
        buf[n] = '\0';
        check(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_strtod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
