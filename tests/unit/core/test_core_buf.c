/*
 * Unit tests of core_buf and core_mem: growth, compaction, consumption, shrink, accounting
 * and OOM injection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/core_buf.h"
#include "core/core_mem.h"
#include "terse/status.h"

static void test_reserve_grows_and_keeps_bytes(void **state)
{
    struct core_buf b;

    (void)state;
    core_buf_init(&b);
    assert_int_equal(core_buf_reserve(&b, 10), TERSE_OK);
    assert_true(b.cap >= 10);
    memcpy(b.p, "0123456789", 10);
    b.len = 10;
    assert_int_equal(core_buf_reserve(&b, 100000), TERSE_OK);
    assert_true(b.cap - b.len >= 100000);
    assert_memory_equal(b.p, "0123456789", 10);
    core_buf_deinit(&b);
    assert_null(b.p);
    assert_int_equal(b.cap, 0);
}

static void test_consume_and_compact(void **state)
{
    struct core_buf b;
    size_t cap;

    (void)state;
    core_buf_init(&b);
    assert_int_equal(core_buf_reserve(&b, 1024), TERSE_OK);
    cap = b.cap;
    memset(b.p, 'a', cap);
    memcpy(b.p + cap - 4, "tail", 4);
    b.len = cap;
    core_buf_consume(&b, cap - 4);
    assert_int_equal(core_buf_pending(&b), 4);
    /* Room comes from compaction, not growth: the pending bytes move to the front. */
    assert_int_equal(core_buf_reserve(&b, cap - 4), TERSE_OK);
    assert_int_equal(b.cap, cap);
    assert_int_equal(b.off, 0);
    assert_memory_equal(b.p, "tail", 4);
    core_buf_consume(&b, 4);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.off, 0);
    core_buf_deinit(&b);
}

static void test_shrink_only_when_empty(void **state)
{
    struct core_buf b;

    (void)state;
    core_buf_init(&b);
    assert_int_equal(core_buf_reserve(&b, 1 << 20), TERSE_OK);
    b.len = 1;
    core_buf_shrink(&b, 4096);
    assert_true(b.cap >= 1 << 20); /* pending byte: untouched */
    core_buf_consume(&b, 1);
    core_buf_shrink(&b, 4096);
    assert_int_equal(b.cap, 4096);
    core_buf_shrink(&b, 0);
    assert_null(b.p);
    core_buf_deinit(&b);
}

static void test_reserve_oom_leaves_buffer(void **state)
{
    struct core_buf b;
    uint8_t *p;
    size_t cap;

    (void)state;
    core_buf_init(&b);
    assert_int_equal(core_buf_reserve(&b, 16), TERSE_OK);
    memcpy(b.p, "keep", 4);
    b.len = 4;
    p = b.p;
    cap = b.cap;
    core_mem_fail_after(1);
    assert_int_equal(core_buf_reserve(&b, 1 << 20), TERSE_ENOMEM);
    assert_ptr_equal(b.p, p);
    assert_int_equal(b.cap, cap);
    assert_memory_equal(b.p, "keep", 4);
    core_mem_fail_after(0);
    core_buf_deinit(&b);
}

static void test_mem_accounting(void **state)
{
    struct core_mem_stats a, b;
    void *p;

    (void)state;
    core_mem_stats_get(&a);
    p = core_alloc(1000);
    assert_non_null(p);
    core_mem_stats_get(&b);
    assert_int_equal(b.used_bytes - a.used_bytes, core_mem_usable(p));
    assert_true(core_mem_usable(p) >= 1000);
    assert_int_equal(b.n_alloc - a.n_alloc, 1);
    p = core_realloc(p, 5000);
    assert_non_null(p);
    core_mem_stats_get(&b);
    assert_int_equal(b.used_bytes - a.used_bytes, core_mem_usable(p));
    core_free(p);
    core_mem_stats_get(&b);
    assert_int_equal(b.used_bytes, a.used_bytes);
    assert_int_equal(b.n_free - a.n_free, 1);
    assert_true(b.peak_bytes >= a.used_bytes + 5000);
}

static void test_fail_after_counts_allocations(void **state)
{
    void *p1, *p2, *p3;

    (void)state;
    core_mem_fail_after(3);
    p1 = core_alloc(8);
    p2 = core_calloc(2, 8);
    p3 = core_alloc(8);
    assert_non_null(p1);
    assert_non_null(p2);
    assert_null(p3);
    p3 = core_alloc(8); /* one-shot: the next call succeeds */
    assert_non_null(p3);
    core_free(p1);
    core_free(p2);
    core_free(p3);
    assert_null(core_calloc(SIZE_MAX / 2, 4)); /* overflow is refused, not wrapped */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reserve_grows_and_keeps_bytes),
        cmocka_unit_test(test_consume_and_compact),
        cmocka_unit_test(test_shrink_only_when_empty),
        cmocka_unit_test(test_reserve_oom_leaves_buffer),
        cmocka_unit_test(test_mem_accounting),
        cmocka_unit_test(test_fail_after_counts_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
