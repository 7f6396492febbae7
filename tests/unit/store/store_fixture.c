/*
 * store_fixture: the shard fixture of the keyspace tests (see store_fixture.h).
 */
#include "store_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core_mem.h"
#include "store/store_internal.h"
#include "terse/status.h"

int store_fixture_setup(void **state)
{
    static struct store_fixture f;
    f.mem_before = core_mem_used();
    if (store_shard_create(&f.s, 16) != TERSE_OK) {
        return -1;
    }
    *state = &f;
    return 0;
}

int store_fixture_teardown(void **state)
{
    struct store_fixture *f = *state;
    store_shard_destroy(&f->s);
    assert_null(f->s);
    /* Everything the shard allocated came back. */
    assert_int_equal(core_mem_used(), f->mem_before);
    return 0;
}

size_t store_fixture_key(char *buf, size_t cap, const char *prefix, int i)
{
    int n = snprintf(buf, cap, "%s:%d", prefix, i);
    return (size_t)n;
}

void store_fixture_put_str(struct store_shard *s, int db, const char *k, const char *v,
                           int64_t exp)
{
    assert_int_equal(store_set_str(s, db, k, strlen(k), v, strlen(v), exp, T0), TERSE_OK);
}

struct store_entry *store_fixture_get(struct store_shard *s, int db, const char *k, int64_t now)
{
    return store_lookup(s, db, k, strlen(k), now, 0);
}

void store_fixture_assert_val(const struct store_entry *e, const char *want)
{
    size_t len;
    const uint8_t *p;

    assert_non_null(e);
    p = store_entry_val(e, &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(p, want, len);
}

void store_fixture_check_stats(struct store_shard *s)
{
    struct store_stats st;
    uint64_t n = 0;

    assert_int_equal(store_verify(s), TERSE_OK);
    for (int i = 0; i < store_shard_n_db(s); i++) {
        n += store_dbsize(s, i);
    }
    store_stats_get(s, &st);
    assert_int_equal(st.n_keys, n);
}
