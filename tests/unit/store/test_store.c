/*
 * Unit tests for store/: set/get/delete across growth and shrink, expiry (lazy and active,
 * with a fake clock), KEEP_TTL, rename/move/copy/swapdb/flush, random keys, LRU/LFU and the
 * memory accounting. White-box where it helps: store_internal.h exposes table sizes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/core_mem.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define T0 1700000040000LL /* a fixed "now", unix ms, on a minute boundary */

struct fixture {
    struct store_shard *s;
    uint64_t mem_before; /* core_mem_used() before the shard existed */
};

static int setup(void **state)
{
    static struct fixture f;
    f.mem_before = core_mem_used();
    if (store_shard_create(&f.s, 16) != TERSE_OK) {
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    store_shard_destroy(&f->s);
    assert_null(f->s);
    /* Everything the shard allocated came back. */
    assert_int_equal(core_mem_used(), f->mem_before);
    return 0;
}

static size_t key_of(char *buf, size_t cap, const char *prefix, int i)
{
    int n = snprintf(buf, cap, "%s:%d", prefix, i);
    return (size_t)n;
}

static void put_str(struct store_shard *s, int db, const char *k, const char *v, int64_t exp)
{
    assert_int_equal(store_set_str(s, db, k, strlen(k), v, strlen(v), exp, T0), TERSE_OK);
}

static struct store_entry *get(struct store_shard *s, int db, const char *k, int64_t now)
{
    return store_lookup(s, db, k, strlen(k), now, 0);
}

static void assert_val(const struct store_entry *e, const char *want)
{
    size_t len;
    const uint8_t *p;

    assert_non_null(e);
    p = store_entry_val(e, &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(p, want, len);
}

/* The shard's own consistency walk, plus an independent recount of the public figures. */
static void check_stats(struct store_shard *s)
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

/* ---- tests ---- */

static void test_create_args(void **state)
{
    struct store_shard *s = NULL;
    (void)state;
    assert_int_equal(store_shard_create(&s, 0), TERSE_EINVAL);
    assert_int_equal(store_shard_create(&s, STORE_DB_MAX + 1), TERSE_EINVAL);
    assert_int_equal(store_shard_create(&s, STORE_DB_MAX), TERSE_OK);
    assert_int_equal(store_shard_n_db(s), STORE_DB_MAX);
    store_shard_destroy(&s);
    store_shard_destroy(&s); /* NULL-safe */
    store_shard_destroy(NULL);
}

static void test_set_get_delete(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;
    size_t klen;

    put_str(s, 0, "a", "hello", STORE_NO_EXPIRE);
    e = get(s, 0, "a", T0);
    assert_val(e, "hello");
    assert_memory_equal(store_entry_key(e, &klen), "a", 1);
    assert_int_equal(klen, 1);
    assert_int_equal(store_entry_type(e), STORE_TYPE_STRING);
    assert_int_equal(store_entry_enc(e), STORE_ENC_STR);
    assert_int_equal(store_entry_expire(e), STORE_NO_EXPIRE);
    assert_null(get(s, 1, "a", T0)); /* dbs are separate */

    assert_int_equal(store_set_int(s, 0, "a", 1, -42, STORE_NO_EXPIRE, T0), TERSE_OK);
    e = get(s, 0, "a", T0);
    assert_int_equal(store_entry_enc(e), STORE_ENC_INT);
    assert_int_equal(store_entry_int(e), -42);
    assert_int_equal(store_dbsize(s, 0), 1);

    /* Empty key and empty value are legal. */
    assert_int_equal(store_set_str(s, 0, "", 0, "", 0, STORE_NO_EXPIRE, T0), TERSE_OK);
    e = store_lookup(s, 0, "", 0, T0, 0);
    assert_val(e, "");

    assert_int_equal(store_delete(s, 0, "a", 1, T0), 1);
    assert_int_equal(store_delete(s, 0, "a", 1, T0), 0);
    assert_null(get(s, 0, "a", T0));
    assert_int_equal(store_delete(s, 0, "", 0, T0), 1);
    assert_int_equal(store_dbsize(s, 0), 0);

    /* Bad db indexes are refused, not trusted. */
    assert_int_equal(store_set_int(s, 16, "a", 1, 1, STORE_NO_EXPIRE, T0), TERSE_EINVAL);
    assert_int_equal(store_set_int(s, -1, "a", 1, 1, STORE_NO_EXPIRE, T0), TERSE_EINVAL);
    assert_int_equal(store_set_int(s, 0, "a", 1, 1, -3, T0), TERSE_EINVAL);
    assert_null(store_lookup(s, 99, "a", 1, T0, 0));
    check_stats(s);
}

static void test_many_keys_grow_shrink(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_db *d = &s->db[3];
    enum { N = 50000 };
    char k[32];
    char v[32];

    for (int i = 0; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "key", i);
        size_t vl = key_of(v, sizeof(v), "val", i);
        assert_int_equal(store_set_str(s, 3, k, kl, v, vl, STORE_NO_EXPIRE, T0), TERSE_OK);
        if (i % 9973 == 0) {
            check_stats(s);
        }
    }
    assert_int_equal(store_dbsize(s, 3), N);
    store_rehash_step(s, 1000000);
    /* Linear hashing keeps the load between STORE_LOAD_MAX / STORE_LOAD_MIN_DIV and
     * STORE_LOAD_MAX keys per bucket at all times. */
    assert_true(d->n_buckets * STORE_LOAD_MAX >= N);
    assert_true(d->n_buckets * STORE_LOAD_MAX <= (uint64_t)N * STORE_LOAD_MIN_DIV);
    for (int i = 0; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "key", i);
        struct store_entry *e = store_lookup(s, 3, k, kl, T0, 0);
        key_of(v, sizeof(v), "val", i);
        assert_val(e, v);
    }
    check_stats(s);
    /* Delete all but 100: the table must shrink. */
    for (int i = 100; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "key", i);
        assert_int_equal(store_delete(s, 3, k, kl, T0), 1);
    }
    store_rehash_step(s, 1000000);
    store_rehash_step(s, 1000000);
    assert_int_equal(store_dbsize(s, 3), 100);
    assert_true(d->n_buckets * STORE_LOAD_MAX <= 100 * STORE_LOAD_MIN_DIV + STORE_TABLE_MIN *
                                                   STORE_LOAD_MAX);
    for (int i = 0; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "key", i);
        struct store_entry *e = store_lookup(s, 3, k, kl, T0, 0);
        if (i < 100) {
            key_of(v, sizeof(v), "val", i);
            assert_val(e, v);
        } else {
            assert_null(e);
        }
    }
    check_stats(s);
    for (int i = 0; i < 100; i++) {
        size_t kl = key_of(k, sizeof(k), "key", i);
        assert_int_equal(store_delete(s, 3, k, kl, T0), 1);
    }
    /* An empty db holds no table at all. */
    assert_int_equal(d->n_buckets, 0);
    assert_null(d->seg);
    check_stats(s);
}

static void test_overwrite_sizes(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    char big[3000];

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    /* Grow, shrink and switch encodings in place or not; value and stats stay right. */
    for (size_t n = 0; n < sizeof(big); n += 97) {
        char save = big[n];
        big[n] = '\0';
        put_str(s, 0, "k", big, n % 2 ? T0 + 1000 : STORE_NO_EXPIRE);
        assert_val(get(s, 0, "k", T0), big);
        big[n] = save;
        check_stats(s);
        assert_int_equal(store_set_int(s, 0, "k", 1, (int64_t)n, STORE_KEEP_TTL, T0), TERSE_OK);
        assert_int_equal(store_entry_int(get(s, 0, "k", T0)), (int64_t)n);
        assert_int_equal(store_entry_expire(get(s, 0, "k", T0)),
                         n % 2 ? T0 + 1000 : STORE_NO_EXPIRE);
        check_stats(s);
    }
}

static void test_warm_overwrite_no_alloc(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct core_mem_stats a;
    struct core_mem_stats b;

    put_str(s, 0, "counter", "0000000001", STORE_NO_EXPIRE);
    core_mem_stats_get(&a);
    for (int i = 0; i < 1000; i++) {
        char v[16];
        snprintf(v, sizeof(v), "%010d", i);
        put_str(s, 0, "counter", v, STORE_NO_EXPIRE);
        assert_non_null(store_lookup(s, 0, "counter", 7, T0, STORE_LOOKUP_TOUCH));
    }
    core_mem_stats_get(&b);
    assert_int_equal(a.n_alloc, b.n_alloc);
    assert_int_equal(a.n_realloc, b.n_realloc);
}

static void test_lazy_expiry(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_stats st;

    put_str(s, 0, "t", "v", T0 + 1000);
    assert_int_equal(store_db_n_expires(s, 0), 1);
    assert_non_null(get(s, 0, "t", T0 + 999));
    assert_int_equal(store_entry_expire(get(s, 0, "t", T0)), T0 + 1000);
    assert_null(get(s, 0, "t", T0 + 1000)); /* expiry <= now: gone */
    assert_int_equal(store_dbsize(s, 0), 0);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, 1);

    /* delete of an expired key reports 0 and counts it as expired. */
    put_str(s, 0, "t", "v", T0 + 1000);
    assert_int_equal(store_delete(s, 0, "t", 1, T0 + 5000), 0);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, 2);

    /* expire_set: add, change, remove; missing and expired keys give 0. */
    put_str(s, 0, "p", "v", STORE_NO_EXPIRE);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 50, T0), 1);
    assert_int_equal(store_entry_expire(get(s, 0, "p", T0)), T0 + 50);
    assert_val(get(s, 0, "p", T0), "v");
    assert_int_equal(store_db_n_expires(s, 0), 1);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 70, T0), 1);
    assert_int_equal(store_entry_expire(get(s, 0, "p", T0)), T0 + 70);
    assert_int_equal(store_expire_set(s, 0, "p", 1, STORE_NO_EXPIRE, T0), 1);
    assert_int_equal(store_entry_expire(get(s, 0, "p", T0)), STORE_NO_EXPIRE);
    assert_val(get(s, 0, "p", T0), "v");
    assert_int_equal(store_db_n_expires(s, 0), 0);
    assert_int_equal(store_expire_set(s, 0, "nope", 4, T0 + 50, T0), 0);
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0, T0), 1); /* stored as given */
    assert_null(get(s, 0, "p", T0));
    assert_int_equal(store_expire_set(s, 0, "p", 1, T0 + 50, T0), 0);
    assert_int_equal(store_expire_set(s, 0, "p", 1, -5, T0), TERSE_EINVAL);
    check_stats(s);
}

static void test_keep_ttl(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;

    put_str(s, 0, "k", "one", T0 + 10000);
    put_str(s, 0, "k", "two", STORE_KEEP_TTL);
    assert_val(get(s, 0, "k", T0), "two");
    assert_int_equal(store_entry_expire(get(s, 0, "k", T0)), T0 + 10000);
    /* Replacing without KEEP_TTL clears the expiry. */
    put_str(s, 0, "k", "three", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_expire(get(s, 0, "k", T0)), STORE_NO_EXPIRE);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    /* KEEP_TTL on a new key means no expiry. */
    put_str(s, 0, "new", "x", STORE_KEEP_TTL);
    assert_int_equal(store_entry_expire(get(s, 0, "new", T0)), STORE_NO_EXPIRE);
    /* KEEP_TTL over an expired key does not resurrect its expiry. */
    assert_int_equal(store_set_str(s, 0, "e", 1, "a", 1, T0 + 5, T0), TERSE_OK);
    assert_int_equal(store_set_str(s, 0, "e", 1, "b", 1, STORE_KEEP_TTL, T0 + 10), TERSE_OK);
    assert_int_equal(store_entry_expire(get(s, 0, "e", T0 + 10)), STORE_NO_EXPIRE);
    /* Replacing with a new expiry sets it. */
    put_str(s, 0, "k", "four", T0 + 20000);
    assert_int_equal(store_entry_expire(get(s, 0, "k", T0)), T0 + 20000);
    assert_int_equal(store_db_n_expires(s, 0), 1);
    check_stats(s);
}

/* The clock callback takes no argument, so the fake clock's state has to be file scope. */
static uint64_t fake_us;
static uint64_t fake_clock(void)
{
    /* Each read advances the clock by 10 us, so budgets are reached deterministically. */
    fake_us += 10;
    return fake_us;
}

static void test_active_expiry(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    enum { N = 20000 };
    char k[32];
    size_t total = 0;
    struct store_stats st;

    for (int i = 0; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "vol", i);
        /* 3/4 expire at T0 + 1000, 1/4 later, plus persistent keys in between. */
        int64_t exp = (i % 4 == 0) ? T0 + 1000000 : T0 + 1000;
        assert_int_equal(store_set_int(s, 2, k, kl, i, exp, T0), TERSE_OK);
        kl = key_of(k, sizeof(k), "per", i);
        assert_int_equal(store_set_int(s, 2, k, kl, i, STORE_NO_EXPIRE, T0), TERSE_OK);
    }
    assert_int_equal(store_db_n_expires(s, 2), N);
    /* Nothing is due yet: a call deletes nothing. */
    assert_int_equal(store_active_expire(s, T0, 1000000, fake_clock), 0);
    /* With no clock, one bounded sample per db. */
    total = store_active_expire(s, T0 + 2000, 0, NULL);
    assert_true(total <= 20 * 20);
    /* With a generous budget, repeated calls converge to the live set. */
    for (int round = 0; round < 10000 && store_db_n_expires(s, 2) > N / 4; round++) {
        total += store_active_expire(s, T0 + 2000, 1000000, fake_clock);
    }
    assert_int_equal(store_db_n_expires(s, 2), N / 4);
    assert_int_equal(store_dbsize(s, 2), N + N / 4);
    assert_int_equal(total, N - N / 4);
    store_stats_get(s, &st);
    assert_int_equal(st.expired_keys, total);
    check_stats(s);

    /* A tiny budget stops the cycle early. */
    for (int i = 0; i < N; i++) {
        size_t kl = key_of(k, sizeof(k), "vol", i);
        assert_int_equal(store_set_int(s, 2, k, kl, i, T0 + 3000, T0), TERSE_OK);
    }
    total = store_active_expire(s, T0 + 4000, 100, fake_clock);
    assert_true(total > 0);
    assert_true(total < N);
    check_stats(s);
}

static void test_rename(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;

    put_str(s, 0, "a", "va", T0 + 5000);
    put_str(s, 0, "b", "vb", STORE_NO_EXPIRE);
    assert_int_equal(store_rename(s, 0, "a", 1, "b", 1, T0), TERSE_OK);
    assert_null(get(s, 0, "a", T0));
    assert_val(get(s, 0, "b", T0), "va");
    assert_int_equal(store_entry_expire(get(s, 0, "b", T0)), T0 + 5000);
    assert_int_equal(store_dbsize(s, 0), 1);
    assert_int_equal(store_rename(s, 0, "a", 1, "c", 1, T0), TERSE_ENOTFOUND);
    assert_int_equal(store_rename(s, 0, "b", 1, "b", 1, T0), TERSE_OK);
    assert_val(get(s, 0, "b", T0), "va");
    assert_int_equal(store_rename(s, 0, "b", 1, "a-longer-name", 13, T0), TERSE_OK);
    assert_val(get(s, 0, "a-longer-name", T0), "va");
    /* An expired source is not found. */
    assert_int_equal(store_rename(s, 0, "a-longer-name", 13, "z", 1, T0 + 5000), TERSE_ENOTFOUND);
    assert_int_equal(store_dbsize(s, 0), 0);
    check_stats(s);
}

static void test_move(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;

    put_str(s, 0, "m", "vm", T0 + 5000);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_OK);
    assert_null(get(s, 0, "m", T0));
    assert_val(get(s, 1, "m", T0), "vm");
    assert_int_equal(store_entry_expire(get(s, 1, "m", T0)), T0 + 5000);
    assert_int_equal(store_db_n_expires(s, 0), 0);
    assert_int_equal(store_db_n_expires(s, 1), 1);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_ENOTFOUND);
    put_str(s, 0, "m", "other", STORE_NO_EXPIRE);
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0), TERSE_EINVAL);
    assert_val(get(s, 0, "m", T0), "other");
    assert_int_equal(store_move(s, 0, 0, "m", 1, T0), TERSE_EINVAL);
    assert_int_equal(store_move(s, 0, 16, "m", 1, T0), TERSE_EINVAL);
    /* An expired key in dst does not block the move. */
    assert_int_equal(store_move(s, 0, 1, "m", 1, T0 + 6000), TERSE_OK);
    assert_val(get(s, 1, "m", T0 + 6000), "other");
    check_stats(s);
}

static void test_copy(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;

    put_str(s, 0, "src", "payload", T0 + 5000);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 0, T0), TERSE_OK);
    assert_val(get(s, 0, "src", T0), "payload");
    assert_val(get(s, 0, "dst", T0), "payload");
    assert_int_equal(store_entry_expire(get(s, 0, "dst", T0)), T0 + 5000);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 0, T0), TERSE_EINVAL);
    put_str(s, 0, "src", "changed", STORE_NO_EXPIRE);
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "dst", 3, 1, T0), TERSE_OK);
    assert_val(get(s, 0, "dst", T0), "changed");
    assert_int_equal(store_entry_expire(get(s, 0, "dst", T0)), STORE_NO_EXPIRE);
    assert_int_equal(store_copy(s, 0, "src", 3, 5, "src", 3, 0, T0), TERSE_OK);
    assert_val(get(s, 5, "src", T0), "changed");
    assert_int_equal(store_copy(s, 0, "src", 3, 0, "src", 3, 1, T0), TERSE_EINVAL);
    assert_int_equal(store_copy(s, 0, "nope", 4, 0, "x", 1, 1, T0), TERSE_ENOTFOUND);
    assert_int_equal(store_set_int(s, 0, "i", 1, 77, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_copy(s, 0, "i", 1, 1, "j", 1, 0, T0), TERSE_OK);
    assert_int_equal(store_entry_int(get(s, 1, "j", T0)), 77);
    check_stats(s);
}

static void test_swapdb_flush(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    char k[32];

    for (int i = 0; i < 100; i++) {
        size_t kl = key_of(k, sizeof(k), "x", i);
        assert_int_equal(store_set_int(s, 0, k, kl, i, T0 + 100, T0), TERSE_OK);
    }
    put_str(s, 1, "only-in-1", "v", STORE_NO_EXPIRE);
    store_swapdb(s, 0, 1);
    assert_int_equal(store_dbsize(s, 0), 1);
    assert_int_equal(store_dbsize(s, 1), 100);
    assert_int_equal(store_db_n_expires(s, 1), 100);
    assert_non_null(get(s, 0, "only-in-1", T0));
    assert_non_null(get(s, 1, "x:5", T0));
    store_swapdb(s, 0, 99); /* invalid: no-op */
    store_swapdb(s, 1, 1);
    assert_int_equal(store_dbsize(s, 1), 100);
    check_stats(s);
    store_flushdb(s, 1);
    assert_int_equal(store_dbsize(s, 1), 0);
    assert_int_equal(store_db_n_expires(s, 1), 0);
    assert_int_equal(store_dbsize(s, 0), 1);
    check_stats(s);
    store_flushall(s);
    assert_int_equal(store_dbsize(s, 0), 0);
    check_stats(s);
    /* Flushed dbs are usable again. */
    put_str(s, 1, "again", "v", STORE_NO_EXPIRE);
    assert_non_null(get(s, 1, "again", T0));
}

static void test_random(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    char k[32];
    int seen[4] = {0};
    struct store_entry *e;

    assert_null(store_random(s, 0, T0));
    /* A sparse table: 4096 keys inserted, all but 4 deleted without shrinking (lazily
     * expired keys are deleted by lookups, which never resize). */
    for (int i = 0; i < 4096; i++) {
        size_t kl = key_of(k, sizeof(k), "r", i);
        int64_t exp = i < 4 ? STORE_NO_EXPIRE : T0 + 10;
        assert_int_equal(store_set_int(s, 0, k, kl, i, exp, T0), TERSE_OK);
    }
    for (int i = 4; i < 4096; i++) {
        size_t kl = key_of(k, sizeof(k), "r", i);
        assert_null(store_lookup(s, 0, k, kl, T0 + 10, 0));
    }
    assert_int_equal(store_dbsize(s, 0), 4);
    assert_true(s->db[0].n_buckets * STORE_LOAD_MAX >= 4096);
    for (int i = 0; i < 400; i++) {
        e = store_random(s, 0, T0 + 10);
        assert_non_null(e);
        seen[store_entry_int(e)]++;
    }
    for (int i = 0; i < 4; i++) {
        assert_true(seen[i] > 30); /* fair-ish */
    }
    /* Only expired keys: NULL, and they get cleaned up along the way. */
    store_flushdb(s, 0);
    for (int i = 0; i < 50; i++) {
        size_t kl = key_of(k, sizeof(k), "r", i);
        assert_int_equal(store_set_int(s, 0, k, kl, i, T0 + 10, T0), TERSE_OK);
    }
    assert_null(store_random(s, 0, T0 + 10));
    assert_int_equal(store_dbsize(s, 0), 0);
    check_stats(s);
}

static void test_lru_lfu(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;

    /* LRU mode (the default): the access bits are a clock in seconds. */
    put_str(s, 0, "h", "v", STORE_NO_EXPIRE);
    e = get(s, 0, "h", T0 + 30000);
    assert_int_equal(store_entry_idle_s(e, T0 + 30000), 30);
    /* A plain lookup does not touch. */
    assert_int_equal(store_entry_idle_s(get(s, 0, "h", T0 + 40000), T0 + 40000), 40);
    e = store_lookup(s, 0, "h", 1, T0 + 40000, STORE_LOOKUP_TOUCH);
    assert_int_equal(store_entry_idle_s(e, T0 + 45000), 5);
    /* An overwrite is a new object: fresh clock. */
    {
        const char *v = "a-much-longer-value-that-needs-a-new-block";
        assert_int_equal(store_set_str(s, 0, "h", 1, v, strlen(v), STORE_NO_EXPIRE, T0 + 50000),
                         TERSE_OK);
    }
    assert_int_equal(store_entry_idle_s(get(s, 0, "h", T0 + 50000), T0 + 51000), 1);
    /* LRU clock wraps at 2^24 seconds. */
    assert_int_equal(store_entry_idle_s(get(s, 0, "h", T0), T0 + 50000 + 20000000000LL),
                     (20000000000LL / 1000) % (1 << 24));

    /* LFU mode: new keys start at the initial counter, touches count logarithmically. */
    store_access_mode(s, true, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
    put_str(s, 0, "f", "v", STORE_NO_EXPIRE);
    e = get(s, 0, "f", T0);
    assert_int_equal(store_entry_freq(s, e, T0), STORE_LFU_INIT);
    /* The first touches of a new key always increment (probability 1 at the init value). */
    e = store_lookup(s, 0, "f", 1, T0, STORE_LOOKUP_TOUCH);
    assert_int_equal(store_entry_freq(s, e, T0), STORE_LFU_INIT + 1);
    for (int i = 0; i < 100000; i++) {
        store_lookup(s, 0, "f", 1, T0, STORE_LOOKUP_TOUCH);
    }
    e = get(s, 0, "f", T0);
    /* Logarithmic: 100k hits land far below 255 but well above the start. */
    assert_true(store_entry_freq(s, e, T0) > 15);
    assert_true(store_entry_freq(s, e, T0) < 255);
    /* Decay: one point per minute. */
    assert_int_equal(store_entry_freq(s, e, T0 + 3 * 60000), store_entry_freq(s, e, T0) - 3);
    assert_int_equal(store_entry_freq(s, e, T0 + 1000LL * 60000), 0);
    /* lfu-decay-time 0: never decays. */
    store_access_mode(s, true, STORE_LFU_LOG_FACTOR, 0);
    assert_int_equal(store_entry_freq(s, e, T0 + 1000LL * 60000), store_entry_freq(s, e, T0));
    store_access_mode(s, true, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
    /* Overwrite keeps the LFU counter (Redis's dbSetValue), in place or in a new block. */
    unsigned before = store_entry_freq(s, e, T0);
    put_str(s, 0, "f", "a-much-longer-value-that-needs-a-new-block", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_freq(s, get(s, 0, "f", T0), T0), before);
    put_str(s, 0, "f", "a-much-longer-value-that-needs-a-new-blocK", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_freq(s, get(s, 0, "f", T0), T0), before);
    store_access_mode(s, false, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
}

/* Every type survives a write, an in-place rewrite to another type, COPY and RENAME; the types
 * past STORE_TYPE_SET borrow the encoding field, so their value still reads as a stored form. */
static void test_types(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    static const enum store_type types[] = {STORE_TYPE_STRING, STORE_TYPE_HASH, STORE_TYPE_LIST,
                                            STORE_TYPE_SET, STORE_TYPE_ZSET, STORE_TYPE_STREAM};
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        enum store_type t = types[i], u = types[(i + 1) % 6];
        const struct store_entry *e;

        assert_int_equal(store_set_value(s, 0, "k", 1, t, "form", 4, T0 + 5000, T0, 0),
                         TERSE_OK);
        e = get(s, 0, "k", T0);
        assert_int_equal(store_entry_type(e), t);
        assert_int_equal(store_entry_enc(e), STORE_ENC_STR);
        assert_val(e, "form");
        assert_int_equal(store_copy(s, 0, "k", 1, 1, "c", 1, 1, T0), TERSE_OK);
        assert_int_equal(store_entry_type(get(s, 1, "c", T0)), t);
        assert_val(get(s, 1, "c", T0), "form");
        assert_int_equal(store_rename(s, 1, "c", 1, "r", 1, T0), TERSE_OK);
        assert_int_equal(store_entry_type(get(s, 1, "r", T0)), t);
        assert_int_equal(store_entry_expire(get(s, 1, "r", T0)), T0 + 5000);
        /* Same size: rewritten in place as the next type, with its expiry kept. */
        assert_int_equal(store_set_value(s, 0, "k", 1, u, "FORM", 4, STORE_KEEP_TTL, T0,
                                         0),
                         TERSE_OK);
        e = get(s, 0, "k", T0);
        assert_int_equal(store_entry_type(e), u);
        assert_val(e, "FORM");
        assert_int_equal(store_entry_expire(e), T0 + 5000);
        check_stats(s);
    }
    assert_int_equal(store_set_value(s, 0, "k", 1, (enum store_type)(STORE_TYPE_MAX + 1), "x",
                                     1, STORE_NO_EXPIRE, T0, 0),
                     TERSE_EINVAL);
    assert_int_equal(store_set_int(s, 0, "k", 1, 5, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_entry_type(get(s, 0, "k", T0)), STORE_TYPE_STRING);
    assert_int_equal(store_entry_enc(get(s, 0, "k", T0)), STORE_ENC_INT);
    check_stats(s);
}

struct changes {
    int n;
    int db;
    char key[32];
    enum store_change why; /* of the last change */
};

static void on_change(void *arg, int db, const void *key, size_t klen, enum store_change why)
{
    struct changes *c = arg;

    c->n++;
    c->db = db;
    c->why = why;
    snprintf(c->key, sizeof(c->key), "%.*s", (int)klen, (const char *)key);
}

/* Expects exactly n changes since the last call, the last one to key of db, for why. */
static void expect_why(struct changes *c, int n, int db, const char *key, enum store_change why)
{
    assert_int_equal(c->n, n);
    if (n > 0) {
        assert_int_equal(c->db, db);
        assert_string_equal(c->key, key);
        assert_int_equal(c->why, why);
    }
    memset(c, 0, sizeof(*c));
}

static void expect_changes(struct changes *c, int n, int db, const char *key)
{
    expect_why(c, n, db, key, STORE_CHANGE_WRITE);
}

/* The change listener hears every write, expiry change and removal, and nothing else. */
static void test_change_listener(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct changes c;

    memset(&c, 0, sizeof(c));
    store_watch_changes(s, on_change, &c);
    put_str(s, 2, "a", "1", STORE_NO_EXPIRE);
    expect_why(&c, 1, 2, "a", STORE_CHANGE_ADDED);
    put_str(s, 2, "a", "2", STORE_NO_EXPIRE); /* in place */
    expect_changes(&c, 1, 2, "a");
    assert_int_equal(store_set_int(s, 2, "i", 1, 5, STORE_NO_EXPIRE, T0), TERSE_OK);
    expect_why(&c, 1, 2, "i", STORE_CHANGE_ADDED);
    assert_non_null(store_lookup(s, 2, "a", 1, T0, STORE_LOOKUP_TOUCH));
    assert_non_null(store_peek(s, 2, "a", 1));
    store_swapdb(s, 2, 3);
    store_swapdb(s, 2, 3);
    expect_changes(&c, 0, 0, NULL);
    assert_int_equal(store_expire_set(s, 2, "a", 1, T0 + 100, T0), 1);
    expect_changes(&c, 1, 2, "a");
    assert_int_equal(store_expire_set(s, 2, "i", 1, STORE_NO_EXPIRE, T0), 1); /* had none */
    expect_changes(&c, 0, 0, NULL);
    /* A lazy expiry is a removal; the stale key is gone after it. */
    assert_null(store_lookup(s, 2, "a", 1, T0 + 100, 0));
    expect_why(&c, 1, 2, "a", STORE_CHANGE_EXPIRED);
    assert_null(store_peek(s, 2, "a", 1));
    put_str(s, 2, "src", "v", STORE_NO_EXPIRE);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_rename(s, 2, "src", 3, "dst", 3, T0), TERSE_OK);
    expect_why(&c, 2, 2, "dst", STORE_CHANGE_ADDED);
    assert_int_equal(store_copy(s, 2, "dst", 3, 4, "cp", 2, 0, T0), TERSE_OK);
    expect_why(&c, 1, 4, "cp", STORE_CHANGE_ADDED);
    assert_int_equal(store_move(s, 4, 5, "cp", 2, T0), TERSE_OK);
    expect_why(&c, 2, 5, "cp", STORE_CHANGE_ADDED);
    assert_int_equal(store_delete(s, 2, "dst", 3, T0), 1);
    expect_changes(&c, 1, 2, "dst");
    assert_int_equal(store_delete(s, 2, "dst", 3, T0), 0);
    expect_changes(&c, 0, 0, NULL);
    store_flushdb(s, 5);
    expect_changes(&c, 1, 5, "cp");
    /* Active expiry and eviction say why the key went. */
    put_str(s, 1, "x", "v", T0 + 10);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_active_expire(s, T0 + 10, 0, NULL), 1);
    expect_why(&c, 1, 1, "x", STORE_CHANGE_EXPIRED);
    {
        struct store_evict_opts o = {STORE_EVICT_RANDOM, 0, 5, 10, 1};
        size_t n_ev = 0;
        store_flushall(s);
        put_str(s, 1, "ev", "v", STORE_NO_EXPIRE);
        memset(&c, 0, sizeof(c));
        (void)store_evict(s, &o, 1, 1, T0, &n_ev);
        assert_int_equal(n_ev, 1);
        expect_why(&c, 1, 1, "ev", STORE_CHANGE_EVICTED);
    }
    store_watch_changes(s, NULL, NULL);
    put_str(s, 2, "quiet", "v", STORE_NO_EXPIRE);
    expect_changes(&c, 0, 0, NULL);
    check_stats(s);
}

static void test_entry_layout(void **state)
{
    struct fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;
    size_t len;

    (void)len;
    put_str(s, 0, "key", "value", STORE_NO_EXPIRE);
    e = get(s, 0, "key", T0);
    /* 8 fixed bytes, two 1-byte lengths, key, value, rounded up to STORE_ARENA_ALIGN. */
    assert_int_equal(store_entry_mem(e), 18);
    assert_int_equal(store_entry_size(3, 5, false), 18);
    assert_int_equal(store_entry_size(3, 5, true), 26);
    assert_int_equal(store_entry_size(32, 127, false), 8 + 2 + 32 + 127 + 1);
    assert_int_equal(store_entry_size(32, 128, false), 8 + 3 + 32 + 128 + 1);
    assert_int_equal(store_entry_size(32, 16384, false), 8 + 4 + 32 + 16384 + 0);
    /* Val_mut sees the same bytes as val. */
    assert_ptr_equal(store_entry_val_mut(e, &len), store_entry_val(e, &len));
    assert_int_equal(len, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_args),
        cmocka_unit_test_setup_teardown(test_set_get_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_keys_grow_shrink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overwrite_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warm_overwrite_no_alloc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lazy_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keep_ttl, setup, teardown),
        cmocka_unit_test_setup_teardown(test_active_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_move, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swapdb_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_lfu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_change_listener, setup, teardown),
        cmocka_unit_test_setup_teardown(test_entry_layout, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
