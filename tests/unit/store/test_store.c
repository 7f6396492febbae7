/*
 * Unit tests for store/: set/get/delete across growth and shrink, overwrites of every size
 * (a warm overwrite loop allocates nothing), LRU/LFU, the value types, the change listener and
 * the entry layout. White-box where it helps: store_internal.h exposes table sizes. Expiry is
 * tested in test_store_expiry.c, whole-key operations in test_store_keyspace.c; the shard
 * fixture and its checks (every byte back at teardown, store_verify) are in store_fixture.c.
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
#include "store_fixture.h"
#include "terse/status.h"

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
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;
    size_t klen;

    store_fixture_put_str(s, 0, "a", "hello", STORE_NO_EXPIRE);
    e = store_fixture_get(s, 0, "a", T0);
    store_fixture_assert_val(e, "hello");
    assert_memory_equal(store_entry_key(e, &klen), "a", 1);
    assert_int_equal(klen, 1);
    assert_int_equal(store_entry_type(e), STORE_TYPE_STRING);
    assert_int_equal(store_entry_enc(e), STORE_ENC_STR);
    assert_int_equal(store_entry_expire(e), STORE_NO_EXPIRE);
    assert_null(store_fixture_get(s, 1, "a", T0)); /* dbs are separate */

    assert_int_equal(store_set_int(s, 0, "a", 1, -42, STORE_NO_EXPIRE, T0), TERSE_OK);
    e = store_fixture_get(s, 0, "a", T0);
    assert_int_equal(store_entry_enc(e), STORE_ENC_INT);
    assert_int_equal(store_entry_int(e), -42);
    assert_int_equal(store_dbsize(s, 0), 1);

    /* Empty key and empty value are legal. */
    assert_int_equal(store_set_str(s, 0, "", 0, "", 0, STORE_NO_EXPIRE, T0), TERSE_OK);
    e = store_lookup(s, 0, "", 0, T0, 0);
    store_fixture_assert_val(e, "");

    assert_int_equal(store_delete(s, 0, "a", 1, T0), 1);
    assert_int_equal(store_delete(s, 0, "a", 1, T0), 0);
    assert_null(store_fixture_get(s, 0, "a", T0));
    assert_int_equal(store_delete(s, 0, "", 0, T0), 1);
    assert_int_equal(store_dbsize(s, 0), 0);

    /* Bad db indexes are refused, not trusted. */
    assert_int_equal(store_set_int(s, 16, "a", 1, 1, STORE_NO_EXPIRE, T0), TERSE_EINVAL);
    assert_int_equal(store_set_int(s, -1, "a", 1, 1, STORE_NO_EXPIRE, T0), TERSE_EINVAL);
    assert_int_equal(store_set_int(s, 0, "a", 1, 1, -3, T0), TERSE_EINVAL);
    assert_null(store_lookup(s, 99, "a", 1, T0, 0));
    store_fixture_check_stats(s);
}

static void test_many_keys_grow_shrink(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_db *d = &s->db[3];
    enum { N = 50000 };
    char k[32];
    char v[32];

    for (int i = 0; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "key", i);
        size_t vl = store_fixture_key(v, sizeof(v), "val", i);
        assert_int_equal(store_set_str(s, 3, k, kl, v, vl, STORE_NO_EXPIRE, T0), TERSE_OK);
        if (i % 9973 == 0) {
            store_fixture_check_stats(s);
        }
    }
    assert_int_equal(store_dbsize(s, 3), N);
    store_rehash_step(s, 1000000);
    /* Linear hashing keeps the load between STORE_LOAD_MAX / STORE_LOAD_MIN_DIV and
     * STORE_LOAD_MAX keys per bucket at all times. */
    assert_true(d->n_buckets * STORE_LOAD_MAX >= N);
    assert_true(d->n_buckets * STORE_LOAD_MAX <= (uint64_t)N * STORE_LOAD_MIN_DIV);
    for (int i = 0; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "key", i);
        struct store_entry *e = store_lookup(s, 3, k, kl, T0, 0);
        store_fixture_key(v, sizeof(v), "val", i);
        store_fixture_assert_val(e, v);
    }
    store_fixture_check_stats(s);
    /* Delete all but 100: the table must shrink. */
    for (int i = 100; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "key", i);
        assert_int_equal(store_delete(s, 3, k, kl, T0), 1);
    }
    store_rehash_step(s, 1000000);
    store_rehash_step(s, 1000000);
    assert_int_equal(store_dbsize(s, 3), 100);
    assert_true(d->n_buckets * STORE_LOAD_MAX <= 100 * STORE_LOAD_MIN_DIV + STORE_TABLE_MIN *
                                                   STORE_LOAD_MAX);
    for (int i = 0; i < N; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "key", i);
        struct store_entry *e = store_lookup(s, 3, k, kl, T0, 0);
        if (i < 100) {
            store_fixture_key(v, sizeof(v), "val", i);
            store_fixture_assert_val(e, v);
        } else {
            assert_null(e);
        }
    }
    store_fixture_check_stats(s);
    for (int i = 0; i < 100; i++) {
        size_t kl = store_fixture_key(k, sizeof(k), "key", i);
        assert_int_equal(store_delete(s, 3, k, kl, T0), 1);
    }
    /* An empty db holds no table at all. */
    assert_int_equal(d->n_buckets, 0);
    assert_null(d->seg);
    store_fixture_check_stats(s);
}

static void test_overwrite_sizes(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    char big[3000];

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    /* Grow, shrink and switch encodings in place or not; value and stats stay right. */
    for (size_t n = 0; n < sizeof(big); n += 97) {
        char save = big[n];
        big[n] = '\0';
        store_fixture_put_str(s, 0, "k", big, n % 2 ? T0 + 1000 : STORE_NO_EXPIRE);
        store_fixture_assert_val(store_fixture_get(s, 0, "k", T0), big);
        big[n] = save;
        store_fixture_check_stats(s);
        assert_int_equal(store_set_int(s, 0, "k", 1, (int64_t)n, STORE_KEEP_TTL, T0), TERSE_OK);
        assert_int_equal(store_entry_int(store_fixture_get(s, 0, "k", T0)), (int64_t)n);
        assert_int_equal(store_entry_expire(store_fixture_get(s, 0, "k", T0)),
                         n % 2 ? T0 + 1000 : STORE_NO_EXPIRE);
        store_fixture_check_stats(s);
    }
}

static void test_warm_overwrite_no_alloc(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct core_mem_stats a;
    struct core_mem_stats b;

    store_fixture_put_str(s, 0, "counter", "0000000001", STORE_NO_EXPIRE);
    core_mem_stats_get(&a);
    for (int i = 0; i < 1000; i++) {
        char v[16];
        snprintf(v, sizeof(v), "%010d", i);
        store_fixture_put_str(s, 0, "counter", v, STORE_NO_EXPIRE);
        assert_non_null(store_lookup(s, 0, "counter", 7, T0, STORE_LOOKUP_TOUCH));
    }
    core_mem_stats_get(&b);
    assert_int_equal(a.n_alloc, b.n_alloc);
    assert_int_equal(a.n_realloc, b.n_realloc);
}

static void test_lru_lfu(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;

    /* LRU mode (the default): the access bits are a clock in seconds. */
    store_fixture_put_str(s, 0, "h", "v", STORE_NO_EXPIRE);
    e = store_fixture_get(s, 0, "h", T0 + 30000);
    assert_int_equal(store_entry_idle_s(e, T0 + 30000), 30);
    /* A plain lookup does not touch. */
    assert_int_equal(store_entry_idle_s(store_fixture_get(s, 0, "h", T0 + 40000), T0 + 40000), 40);
    e = store_lookup(s, 0, "h", 1, T0 + 40000, STORE_LOOKUP_TOUCH);
    assert_int_equal(store_entry_idle_s(e, T0 + 45000), 5);
    /* An overwrite is a new object: fresh clock. */
    {
        const char *v = "a-much-longer-value-that-needs-a-new-block";
        assert_int_equal(store_set_str(s, 0, "h", 1, v, strlen(v), STORE_NO_EXPIRE, T0 + 50000),
                         TERSE_OK);
    }
    assert_int_equal(store_entry_idle_s(store_fixture_get(s, 0, "h", T0 + 50000), T0 + 51000), 1);
    /* LRU clock wraps at 2^24 seconds. */
    assert_int_equal(
        store_entry_idle_s(store_fixture_get(s, 0, "h", T0), T0 + 50000 + 20000000000LL),
        (20000000000LL / 1000) % (1 << 24));

    /* LFU mode: new keys start at the initial counter, touches count logarithmically. */
    store_access_mode(s, true, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
    store_fixture_put_str(s, 0, "f", "v", STORE_NO_EXPIRE);
    e = store_fixture_get(s, 0, "f", T0);
    assert_int_equal(store_entry_freq(s, e, T0), STORE_LFU_INIT);
    /* The first touches of a new key always increment (probability 1 at the init value). */
    e = store_lookup(s, 0, "f", 1, T0, STORE_LOOKUP_TOUCH);
    assert_int_equal(store_entry_freq(s, e, T0), STORE_LFU_INIT + 1);
    for (int i = 0; i < 100000; i++) {
        store_lookup(s, 0, "f", 1, T0, STORE_LOOKUP_TOUCH);
    }
    e = store_fixture_get(s, 0, "f", T0);
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
    store_fixture_put_str(s, 0, "f", "a-much-longer-value-that-needs-a-new-block", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_freq(s, store_fixture_get(s, 0, "f", T0), T0), before);
    store_fixture_put_str(s, 0, "f", "a-much-longer-value-that-needs-a-new-blocK", STORE_NO_EXPIRE);
    assert_int_equal(store_entry_freq(s, store_fixture_get(s, 0, "f", T0), T0), before);
    store_access_mode(s, false, STORE_LFU_LOG_FACTOR, STORE_LFU_DECAY_MIN);
}

/* Every type survives a write, an in-place rewrite to another type, COPY and RENAME; the types
 * past STORE_TYPE_SET borrow the encoding field, so their value still reads as a stored form. */
static void test_types(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    static const enum store_type types[] = {STORE_TYPE_STRING, STORE_TYPE_HASH, STORE_TYPE_LIST,
                                            STORE_TYPE_SET, STORE_TYPE_ZSET, STORE_TYPE_STREAM};
    size_t i;

    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        enum store_type t = types[i], u = types[(i + 1) % 6];
        const struct store_entry *e;

        assert_int_equal(store_set_value(s, 0, "k", 1, t, "form", 4, T0 + 5000, T0, 0),
                         TERSE_OK);
        e = store_fixture_get(s, 0, "k", T0);
        assert_int_equal(store_entry_type(e), t);
        assert_int_equal(store_entry_enc(e), STORE_ENC_STR);
        store_fixture_assert_val(e, "form");
        assert_int_equal(store_copy(s, 0, "k", 1, 1, "c", 1, 1, T0), TERSE_OK);
        assert_int_equal(store_entry_type(store_fixture_get(s, 1, "c", T0)), t);
        store_fixture_assert_val(store_fixture_get(s, 1, "c", T0), "form");
        assert_int_equal(store_rename(s, 1, "c", 1, "r", 1, T0), TERSE_OK);
        assert_int_equal(store_entry_type(store_fixture_get(s, 1, "r", T0)), t);
        assert_int_equal(store_entry_expire(store_fixture_get(s, 1, "r", T0)), T0 + 5000);
        /* Same size: rewritten in place as the next type, with its expiry kept. */
        assert_int_equal(store_set_value(s, 0, "k", 1, u, "FORM", 4, STORE_KEEP_TTL, T0,
                                         0),
                         TERSE_OK);
        e = store_fixture_get(s, 0, "k", T0);
        assert_int_equal(store_entry_type(e), u);
        store_fixture_assert_val(e, "FORM");
        assert_int_equal(store_entry_expire(e), T0 + 5000);
        store_fixture_check_stats(s);
    }
    assert_int_equal(store_set_value(s, 0, "k", 1, (enum store_type)(STORE_TYPE_MAX + 1), "x",
                                     1, STORE_NO_EXPIRE, T0, 0),
                     TERSE_EINVAL);
    assert_int_equal(store_set_int(s, 0, "k", 1, 5, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_entry_type(store_fixture_get(s, 0, "k", T0)), STORE_TYPE_STRING);
    assert_int_equal(store_entry_enc(store_fixture_get(s, 0, "k", T0)), STORE_ENC_INT);
    store_fixture_check_stats(s);
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
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct changes c;

    memset(&c, 0, sizeof(c));
    store_watch_changes(s, on_change, &c);
    store_fixture_put_str(s, 2, "a", "1", STORE_NO_EXPIRE);
    expect_why(&c, 1, 2, "a", STORE_CHANGE_ADDED);
    store_fixture_put_str(s, 2, "a", "2", STORE_NO_EXPIRE); /* in place */
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
    store_fixture_put_str(s, 2, "src", "v", STORE_NO_EXPIRE);
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
    store_fixture_put_str(s, 1, "x", "v", T0 + 10);
    memset(&c, 0, sizeof(c));
    assert_int_equal(store_active_expire(s, T0 + 10, 0, NULL), 1);
    expect_why(&c, 1, 1, "x", STORE_CHANGE_EXPIRED);
    {
        struct store_evict_opts o = {STORE_EVICT_RANDOM, 0, 5, 10, 1};
        size_t n_ev = 0;
        store_flushall(s);
        store_fixture_put_str(s, 1, "ev", "v", STORE_NO_EXPIRE);
        memset(&c, 0, sizeof(c));
        (void)store_evict(s, &o, 1, 1, T0, &n_ev);
        assert_int_equal(n_ev, 1);
        expect_why(&c, 1, 1, "ev", STORE_CHANGE_EVICTED);
    }
    store_watch_changes(s, NULL, NULL);
    store_fixture_put_str(s, 2, "quiet", "v", STORE_NO_EXPIRE);
    expect_changes(&c, 0, 0, NULL);
    store_fixture_check_stats(s);
}

static void test_entry_layout(void **state)
{
    struct store_fixture *f = *state;
    struct store_shard *s = f->s;
    struct store_entry *e;
    size_t len;

    (void)len;
    store_fixture_put_str(s, 0, "key", "value", STORE_NO_EXPIRE);
    e = store_fixture_get(s, 0, "key", T0);
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
        STORE_FIXTURE_TEST(test_set_get_delete),
        STORE_FIXTURE_TEST(test_many_keys_grow_shrink),
        STORE_FIXTURE_TEST(test_overwrite_sizes),
        STORE_FIXTURE_TEST(test_warm_overwrite_no_alloc),
        STORE_FIXTURE_TEST(test_lru_lfu),
        STORE_FIXTURE_TEST(test_types),
        STORE_FIXTURE_TEST(test_change_listener),
        STORE_FIXTURE_TEST(test_entry_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
