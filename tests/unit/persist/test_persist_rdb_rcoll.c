/*
 * An RDB file's big list, hash, set and sorted set read straight into their chunked containers
 * (persist_rdb_rcoll.c): loading 60,000 elements of each (a form of about 2 MiB each) keeps the
 * allocator's peak within a batch or two of what the loaded shard holds at the end, where the
 * value's bytes copied, its whole form and its encoding (several MiB) went before; the
 * containers read back exact; small ones stay forms; a duplicate field or member is
 * TERSE_ECORRUPT with nothing kept (no leak), past the batch as before it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_zset.h"
#include "core/core_mem.h"
#include "persist/persist_rdb.h"
#include "persist/persist_rdb_load.h"
#include "persist_rdb_fixture.h"
#include "store/store.h"
#include "terse/status.h"

#define N_EL 60000
#define T0 1700000000000LL

/* ---- an RDB file, written by hand -------------------------------------------------------- */

struct file {
    uint8_t *p;
    size_t len, cap;
};

static void put(struct file *f, const void *p, size_t n)
{
    if (f->len + n > f->cap) {
        f->cap = (f->len + n) * 2;
        f->p = realloc(f->p, f->cap);
        assert_non_null(f->p);
    }
    memcpy(f->p + f->len, p, n);
    f->len += n;
}

static void put_byte(struct file *f, uint8_t b)
{
    put(f, &b, 1);
}

/* An RDB length: 6, 14 or 32 bits. */
static void put_len(struct file *f, uint32_t n)
{
    uint8_t b[5];

    if (n < 64) {
        put_byte(f, (uint8_t)n);
    } else if (n < 16384) {
        b[0] = (uint8_t)(0x40 | n >> 8);
        b[1] = (uint8_t)n;
        put(f, b, 2);
    } else {
        b[0] = 0x80;
        b[1] = (uint8_t)(n >> 24);
        b[2] = (uint8_t)(n >> 16);
        b[3] = (uint8_t)(n >> 8);
        b[4] = (uint8_t)n;
        put(f, b, 5);
    }
}

static void put_str(struct file *f, const char *s)
{
    put_len(f, (uint32_t)strlen(s));
    put(f, s, strlen(s));
}

/* A list (RDB_TYPE_LIST 1), hash (4), set (2) or sorted set (5, ZSET_2) of n elements named
 * after key; dup_at < n repeats the element before it there. The type byte, then key when not
 * NULL (a file's pair), then the value (a DUMP payload's object when key is NULL). */
static void put_key(struct file *f, uint8_t type, const char *key, int n, int dup_at)
{
    char el[64];

    put_byte(f, type);
    if (key != NULL) {
        put_str(f, key);
    } else {
        key = "payload";
    }
    put_len(f, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        int k = i == dup_at ? i - 1 : i;
        snprintf(el, sizeof(el), "%s element number %d", key, k);
        put_str(f, el);
        if (type == 4) {
            snprintf(el, sizeof(el), "the value of field %d", k);
            put_str(f, el);
        } else if (type == 5) {
            double score = (double)(k % 97); /* RDB_TYPE_ZSET_2: a double, LE (as x86 holds) */
            put(f, &score, sizeof(score));
        }
    }
}

/* "REDIS0010", db 0, the keys, EOF and a zero CRC (not checked). */
static void file_end(struct file *f)
{
    static const uint8_t crc[8];

    put_byte(f, 255);
    put(f, crc, 8);
}

static void file_start(struct file *f)
{
    memset(f, 0, sizeof(*f));
    put(f, "REDIS0010", 9);
    put_byte(f, 254);
    put_len(f, 0);
}

/* ---- loads ----------------------------------------------------------------------------------- */

static int load(struct rdb_fx *x, const struct file *f)
{
    struct persist_load_stats ls;
    struct persist_error err;

    return persist_rdb_load_mem(x->s, 16, &x->w, f->p, f->len, T0, &ls, NULL, &err);
}

static struct coll *coll_of(struct rdb_fx *x, const char *key, enum store_type t)
{
    const struct store_entry *e = store_peek(x->s, 0, key, strlen(key));

    assert_non_null(e);
    assert_int_equal(store_entry_type(e), t);
    assert_int_equal(store_entry_enc(e), STORE_ENC_COLL);
    return store_entry_coll(e);
}

static void test_big_containers_load_in_bounded_memory(void **state)
{
    struct rdb_fx *x = *state;
    struct coll_env *env = store_coll_env(x->s);
    struct core_mem_stats before, after;
    struct coll_list_it it;
    struct coll *c;
    struct file f;
    char want[64];

    file_start(&f);
    put_key(&f, 1, "list", N_EL, N_EL);
    put_key(&f, 4, "hash", N_EL, N_EL);
    put_key(&f, 2, "set", N_EL, N_EL);
    put_key(&f, 5, "zset", N_EL, N_EL);
    put_key(&f, 1, "small", 3, 3);
    file_end(&f);
    assert_true(f.len > 5u << 20);

    core_mem_stats_get(&before);
    core_mem_peak_reset();
    assert_int_equal(load(x, &f), TERSE_OK);
    core_mem_stats_get(&after);
    print_message("file %zu, used %llu -> %llu, peak %llu\n", f.len,
                  (unsigned long long)before.used_bytes, (unsigned long long)after.used_bytes,
                  (unsigned long long)after.peak_bytes);
    /* What the shard holds now, and a few batches and chunks beside it: not a form of MiBs. */
    assert_true(after.peak_bytes < after.used_bytes + (256u << 10));
    assert_true(after.used_bytes > before.used_bytes + (4u << 20));

    c = coll_of(x, "list", STORE_TYPE_LIST);
    assert_int_equal(coll_count(c), N_EL);
    assert_int_equal(coll_list_verify(env, c), TERSE_OK);
    assert_int_equal(coll_list_it_init(env, c, 0, false, &it), TERSE_OK);
    for (int i = 0; i < N_EL; i++) {
        const uint8_t *el;
        size_t len;
        int wl = snprintf(want, sizeof(want), "list element number %d", i);
        assert_int_equal(coll_list_it_next(env, &it, &el, &len), 1);
        assert_int_equal(len, (size_t)wl);
        assert_memory_equal(el, want, len);
    }

    c = coll_of(x, "hash", STORE_TYPE_HASH);
    assert_int_equal(coll_count(c), N_EL);
    assert_int_equal(coll_hash_verify(env, c), TERSE_OK);
    for (int i = 0; i < N_EL; i += 997) {
        const uint8_t *v;
        size_t vl;
        int fl = snprintf(want, sizeof(want), "hash element number %d", i);
        char wv[64];
        int wvl = snprintf(wv, sizeof(wv), "the value of field %d", i);
        assert_int_equal(coll_hash_get(env, c, (const uint8_t *)want, (size_t)fl, &v, &vl), 1);
        assert_int_equal(vl, (size_t)wvl);
        assert_memory_equal(v, wv, vl);
    }

    c = coll_of(x, "set", STORE_TYPE_SET);
    assert_int_equal(coll_count(c), N_EL);
    assert_int_equal(coll_hash_verify(env, c), TERSE_OK);
    assert_int_equal(coll_hash_get(env, c, (const uint8_t *)"set element number 59999", 24, NULL,
                                   NULL), 1);

    c = coll_of(x, "zset", STORE_TYPE_ZSET);
    assert_int_equal(coll_count(c), N_EL);
    assert_int_equal(coll_zset_verify(env, c), TERSE_OK);
    {
        double score = -1;
        assert_int_equal(coll_zset_score(env, c, (const uint8_t *)"zset element number 4321",
                                         24, &score),
                         1);
        assert_true(score == (double)(4321 % 97));
    }

    /* A small one is its form, for the after-load pass to decide. */
    assert_int_equal(store_entry_enc(store_peek(x->s, 0, "small", 5)), STORE_ENC_STR);
    free(f.p);
}

/* A duplicate after the container was made (and one before: the form's own check) fails the
 * load with TERSE_ECORRUPT; nothing is kept, nothing leaks. */
static void test_duplicates_fail_whole(void **state)
{
    struct rdb_fx *x = *state;
    static const struct {
        uint8_t type;
        int dup_at;
    } cases[] = {{4, N_EL - 5}, {2, N_EL - 5}, {5, N_EL - 5}, {4, 10}, {2, 10}, {5, 10}};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t used;
        struct file f;

        coll_env_trim(store_coll_env(x->s), 0);
        used = core_mem_used();

        file_start(&f);
        put_key(&f, 1, "list", 1000, 1000);
        put_key(&f, cases[i].type, "dup", N_EL, cases[i].dup_at);
        file_end(&f);
        assert_int_equal(load(x, &f), TERSE_ECORRUPT);
        assert_null(store_peek(x->s, 0, "list", 4));
        assert_null(store_peek(x->s, 0, "dup", 3));
        persist_rdb_work_trim(&x->w, 0);
        coll_env_trim(store_coll_env(x->s), 0); /* the env's spare blocks and buffers */
        assert_int_equal(core_mem_used(), used);
        free(f.p);
    }
}

/* Without an env (RESTORE's reader, or a caller that sets none) the same file loads as forms. */
static void test_no_env_loads_forms(void **state)
{
    struct rdb_fx *x = *state;
    struct file f;

    x->w.load_ck.env = NULL;
    file_start(&f);
    put_key(&f, 4, "hash", N_EL / 10, N_EL);
    file_end(&f);
    assert_int_equal(load(x, &f), TERSE_OK);
    assert_int_equal(store_entry_enc(store_peek(x->s, 0, "hash", 4)), STORE_ENC_STR);
    free(f.p);
}

/* RESTORE's reader (persist_rdb_value_read_chunked): a big value comes back as its container,
 * built within a batch of what it holds; a duplicate past the batch is TERSE_ECORRUPT with
 * nothing kept; without an env it is a form, as persist_rdb_value_read gives. */
static void test_restore_builds_chunks(void **state)
{
    struct rdb_fx *x = *state;
    struct coll_env *env = store_coll_env(x->s);
    static const uint8_t types[] = {1, 4, 2, 5};
    struct core_mem_stats after;
    struct persist_rdb_value v;
    struct persist_error err;
    struct file f;

    for (size_t i = 0; i < sizeof(types); i++) {
        uint64_t used;

        memset(&f, 0, sizeof(f));
        put_key(&f, types[i], NULL, N_EL, N_EL);
        put(&f, "\x0a\x00zzzzzzzz", 10); /* the footer: read past, not checked here */
        core_mem_peak_reset();
        used = core_mem_used();
        assert_int_equal(persist_rdb_value_read_chunked(&x->w, &x->w.load_ck, f.p, f.len, &v,
                                                        &err),
                         TERSE_OK);
        core_mem_stats_get(&after);
        assert_non_null(v.coll);
        assert_ptr_equal(v.env, env);
        assert_int_equal(coll_count(v.coll), N_EL);
        assert_true(after.peak_bytes < after.used_bytes + (256u << 10));
        assert_true(after.used_bytes > used + (1u << 20));
        coll_destroy(env, v.coll);
        free(f.p);

        memset(&f, 0, sizeof(f));
        put_key(&f, types[i], NULL, N_EL, types[i] == 1 ? N_EL : N_EL - 3);
        put(&f, "\x0a\x00zzzzzzzz", 10);
        if (types[i] != 1) {
            coll_env_trim(env, 0);
            persist_rdb_work_trim(&x->w, 0);
            used = core_mem_used();
            assert_int_equal(persist_rdb_value_read_chunked(&x->w, &x->w.load_ck, f.p, f.len,
                                                            &v, &err),
                             TERSE_ECORRUPT);
            assert_null(v.coll);
            coll_env_trim(env, 0);
            persist_rdb_work_trim(&x->w, 0);
            assert_int_equal(core_mem_used(), used);
        }
        assert_int_equal(persist_rdb_value_read(&x->w, f.p, f.len, &v, &err),
                         types[i] == 1 ? TERSE_OK : TERSE_ECORRUPT);
        assert_null(v.coll);
        free(f.p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_big_containers_load_in_bounded_memory, rdb_fx_setup,
                                        rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_duplicates_fail_whole, rdb_fx_setup, rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_no_env_loads_forms, rdb_fx_setup, rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_restore_builds_chunks, rdb_fx_setup, rdb_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
