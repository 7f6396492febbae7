/*
 * OOM injection for store/: every allocation an operation makes is failed in turn
 * (core_mem_fail_after(n) for n = 1, 2, ... until the operation makes fewer than n
 * allocations). Each failure must either return TERSE_ENOMEM with the shard unchanged (same
 * keys, values, expiries and counters) or, where the failed allocation was only an
 * optimisation (a table grow below STORE_FORCE_GROW_RATIO), succeed completely. Nothing may
 * leak: the shard's bytes return to the baseline when it is destroyed.
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

#define T0 1700000040000LL

/* The state an operation may change, captured before and compared after a failure. */
struct snap {
    struct store_stats st;
    size_t dbsize[2];
    size_t n_expires[2];
    uint64_t h; /* hash over every (db, key, value, expiry) */
};

static void snap_entry(void *arg, const struct store_entry *e)
{
    uint64_t *h = arg;
    size_t klen;
    size_t vlen = 8;
    const uint8_t *k = store_entry_key(e, &klen);
    const uint8_t *v;
    int64_t iv = 0;
    int64_t exp = store_entry_expire(e);
    uint64_t x = 1469598103934665603ULL;

    if (store_entry_enc(e) == STORE_ENC_INT) {
        iv = store_entry_int(e);
        v = (const uint8_t *)&iv;
    } else {
        v = store_entry_val(e, &vlen);
    }
    for (size_t i = 0; i < klen; i++) {
        x = (x ^ k[i]) * 1099511628211ULL;
    }
    x = (x ^ 0xff) * 1099511628211ULL;
    for (size_t i = 0; i < vlen; i++) {
        x = (x ^ v[i]) * 1099511628211ULL;
    }
    x ^= (uint64_t)exp * 31;
    *h += x; /* order-independent: SCAN order changes with the table */
}

static void take(struct store_shard *s, struct snap *out)
{
    memset(out, 0, sizeof(*out));
    store_stats_get(s, &out->st);
    for (int db = 0; db < 2; db++) {
        uint64_t c = 0;
        uint64_t h = 0;
        out->dbsize[db] = store_dbsize(s, db);
        out->n_expires[db] = store_db_n_expires(s, db);
        do {
            c = store_scan(s, db, c, 100, T0, snap_entry, &h);
        } while (c != 0);
        out->h += h * (uint64_t)(db + 1);
    }
}

static void assert_same(const struct snap *a, const struct snap *b)
{
    assert_int_equal(a->h, b->h);
    assert_int_equal(a->st.n_keys, b->st.n_keys);
    assert_int_equal(a->st.entry_bytes, b->st.entry_bytes);
    assert_int_equal(a->st.value_bytes, b->st.value_bytes);
    assert_int_equal(a->st.expired_keys, b->st.expired_keys);
    for (int db = 0; db < 2; db++) {
        assert_int_equal(a->dbsize[db], b->dbsize[db]);
        assert_int_equal(a->n_expires[db], b->n_expires[db]);
    }
}

static uint64_t n_allocs(void)
{
    struct core_mem_stats st;
    core_mem_stats_get(&st);
    return st.n_alloc + st.n_realloc;
}

enum op {
    OP_SET_NEW,      /* a new key, on a table about to grow */
    OP_SET_FIRST,    /* the first key of an empty db (table + entry) */
    OP_SET_BIGGER,   /* overwrite with a value that needs a new block */
    OP_EXPIRE_ADD,   /* add an expiry to a key without slack */
    OP_RENAME,
    OP_COPY_NEW,
    OP_COPY_REPLACE,
    OP_MOVE,
    OP_COUNT
};

/* Builds the shard an op runs against; deterministic, so every n starts from the same state. */
static struct store_shard *build(void)
{
    struct store_shard *s = NULL;
    char k[32];

    assert_int_equal(store_shard_create(&s, 2), TERSE_OK);
    /* 16 keys: the table is exactly full, so the next new key wants a grow. */
    for (int i = 0; i < 16; i++) {
        size_t kl = (size_t)snprintf(k, sizeof(k), "k:%d", i);
        assert_int_equal(store_set_str(s, 0, k, kl, "v", 1, i % 2 ? T0 + 99999 : STORE_NO_EXPIRE,
                                       T0),
                         TERSE_OK);
    }
    for (int i = 0; i < 4; i++) {
        size_t kl = (size_t)snprintf(k, sizeof(k), "o:%d", i);
        assert_int_equal(store_set_int(s, 1, k, kl, i, STORE_NO_EXPIRE, T0), TERSE_OK);
    }
    store_rehash_step(s, 1 << 20);
    return s;
}

/* Gives k:0 a value that fills its block, so adding an expiry must reallocate. */
static void size_for_expire(struct store_shard *s)
{
    char exact[64];

    memset(exact, 'e', sizeof(exact));
    for (size_t n = 1; n < sizeof(exact); n++) {
        struct store_entry *e;
        assert_int_equal(store_set_str(s, 0, "k:0", 3, exact, n, STORE_NO_EXPIRE, T0), TERSE_OK);
        e = store_lookup(s, 0, "k:0", 3, T0, 0);
        if (store_entry_size(3, n, true) > store_entry_mem(e)) {
            return;
        }
    }
    fail_msg("no value length leaves k:0 without slack");
}

static int run_op(struct store_shard *s, enum op op)
{
    static const char big[] = "a value long enough that the old block cannot hold it at all";

    switch (op) {
    case OP_SET_NEW:
        return store_set_str(s, 0, "fresh", 5, "new", 3, STORE_NO_EXPIRE, T0);
    case OP_SET_FIRST:
        store_flushdb(s, 1);
        return store_set_int(s, 1, "first", 5, 1, T0 + 5, T0);
    case OP_SET_BIGGER:
        return store_set_str(s, 0, "k:3", 3, big, sizeof(big) - 1, STORE_KEEP_TTL, T0);
    case OP_EXPIRE_ADD:
        return store_expire_set(s, 0, "k:0", 3, T0 + 777, T0);
    case OP_RENAME:
        return store_rename(s, 0, "k:1", 3, "renamed-to-a-longer-key", 23, T0);
    case OP_COPY_NEW:
        return store_copy(s, 0, "k:1", 3, 0, "copied", 6, 0, T0);
    case OP_COPY_REPLACE:
        return store_copy(s, 0, "k:1", 3, 1, "o:2", 3, 1, T0);
    case OP_MOVE:
        /* db 1 holds 4 keys in 4 buckets: one more wants a grow. */
        return store_move(s, 0, 1, "k:5", 3, T0);
    case OP_COUNT:
        break;
    }
    return TERSE_EINVAL;
}

static void test_oom_each_allocation(void **state)
{
    uint64_t base = core_mem_used();

    (void)state;
    for (int op = 0; op < OP_COUNT; op++) {
        int n_enomem = 0;
        for (uint64_t nth = 1;; nth++) {
            struct store_shard *s = build();
            struct snap before;
            struct snap after;
            uint64_t a0;
            uint64_t made;
            int rc;

            if (op == OP_SET_FIRST) {
                store_flushdb(s, 1); /* the op's own flush must not count as a change */
            }
            if (op == OP_EXPIRE_ADD) {
                size_for_expire(s);
            }
            /* The next entry needs a fresh arena span, so it is an allocation to fail. */
            store_arena_seal(s);
            take(s, &before);
            a0 = n_allocs();
            core_mem_fail_after(nth);
            rc = run_op(s, (enum op)op);
            core_mem_fail_after(0);
            made = n_allocs() - a0;
            assert_int_equal(store_verify(s), TERSE_OK);
            if (rc == TERSE_ENOMEM) {
                n_enomem++;
                take(s, &after);
                assert_same(&before, &after);
            } else {
                assert_true(rc == TERSE_OK || rc == 1);
            }
            store_shard_destroy(&s);
            assert_int_equal(core_mem_used(), base);
            if (made < nth) {
                break; /* the nth allocation was never reached: every one has been failed */
            }
        }
        /* Every op that allocates reported at least one failure (a failed table grow may be
         * absorbed, a failed entry allocation never is). */
        if (n_enomem == 0 && op != OP_MOVE) { /* MOVE only allocates for a grow */
            fail_msg("op %d never returned TERSE_ENOMEM", op);
        }
    }
}

static void test_oom_create(void **state)
{
    uint64_t base = core_mem_used();

    (void)state;
    for (uint64_t nth = 1; nth <= 2; nth++) {
        struct store_shard *s = NULL;
        core_mem_fail_after(nth);
        assert_int_equal(store_shard_create(&s, 4), TERSE_ENOMEM);
        core_mem_fail_after(0);
        assert_null(s);
        assert_int_equal(core_mem_used(), base);
    }
}

static void test_grow_failure_absorbed(void **state)
{
    struct store_shard *s = NULL;
    struct store_db *d;
    struct store_entry *e;
    char k[32];
    int i = 0;
    uint64_t nb;

    (void)state;
    assert_int_equal(store_shard_create(&s, 1), TERSE_OK);
    d = &s->db[0];
    /* Fill until the next insert wants a split into a new segment (a fresh allocation; the
     * growth of segment 0 may be absorbed by realloc slack, which is no allocation). */
    do {
        size_t kl = (size_t)snprintf(k, sizeof(k), "g:%d", i++);
        assert_int_equal(store_set_int(s, 0, k, kl, i, STORE_NO_EXPIRE, T0), TERSE_OK);
    } while (!(d->n_buckets == STORE_SEG_BUCKETS &&
               (d->n_keys + 1) > d->n_buckets * STORE_LOAD_MAX));
    nb = d->n_buckets;
    store_arena_seal(s);
    /* The span allocation succeeds, the segment allocation fails: the write still happens,
     * on a table one split short. */
    core_mem_fail_after(2);
    assert_int_equal(store_set_str(s, 0, "fresh", 5, "new", 3, STORE_NO_EXPIRE, T0), TERSE_OK);
    core_mem_fail_after(0);
    e = store_lookup(s, 0, "fresh", 5, T0, 0);
    assert_non_null(e);
    assert_int_equal(d->n_buckets, nb);
    assert_int_equal(store_verify(s), TERSE_OK);
    /* The next insert splits as usual. */
    assert_int_equal(store_set_str(s, 0, "fresh2", 6, "new", 3, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_true(d->n_buckets > nb);
    assert_int_equal(store_verify(s), TERSE_OK);
    store_shard_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oom_each_allocation),
        cmocka_unit_test(test_oom_create),
        cmocka_unit_test(test_grow_failure_absorbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
