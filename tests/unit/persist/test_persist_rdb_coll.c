/*
 * An RDB file of containers held in chunks (persist_rdb_wcoll.c): a hash, a set and a sorted
 * set of 60,000 elements each are written a chunk at a time, so the writer's own memory stays
 * at its block buffer (the whole forms, about a MiB each, are never built), and the file loads
 * back (persist_rdb_load_mem) to the same elements: counts, a field's value, the sorted set's
 * order and scores.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/codec_value.h"
#include "coll/coll_form.h"
#include "coll/coll_hash.h"
#include "coll/coll_zset.h"
#include "persist/persist_rdb.h"
#include "persist/persist_rdb_load.h"
#include "store/form/store_hash.h"
#include "store/form/store_zset.h"
#include "store/store.h"
#include "terse/status.h"

#define N_EL 60000
#define T0 1700000000000LL

/* An allocator that keeps the peak of its live bytes. */
struct peak_alloc {
    size_t live, peak;
};

static void *pa_alloc(void *opaque, size_t n)
{
    struct peak_alloc *a = opaque;
    void *p = malloc(n);

    if (p != NULL) {
        a->live += malloc_usable_size(p);
        a->peak = a->live > a->peak ? a->live : a->peak;
    }
    return p;
}

static void pa_free(void *opaque, void *p)
{
    struct peak_alloc *a = opaque;

    if (p != NULL) {
        a->live -= malloc_usable_size(p);
    }
    free(p);
}

static void fill(struct store_shard *s, struct codec_ctx *codec)
{
    struct coll_env *env = store_coll_env(s);
    struct coll_hash_shape hs = {4096};
    struct coll_zset_shape zs = {4096};
    struct coll *h, *set, *z;
    char f[32], v[64];

    coll_env_set_codec(env, codec);
    assert_int_equal(coll_hash_create(env, COLL_HASH, &hs, &h), TERSE_OK);
    assert_int_equal(coll_hash_create(env, COLL_SET, &hs, &set), TERSE_OK);
    assert_int_equal(coll_zset_create(env, &zs, &z), TERSE_OK);
    for (int i = 0; i < N_EL; i++) {
        enum coll_hash_result hr;
        enum coll_zset_result zr;
        double old;
        int fl = snprintf(f, sizeof(f), "field:%d", i);
        int vl = snprintf(v, sizeof(v), "value number %d of the hash", i);

        assert_int_equal(coll_hash_put(env, h, (uint8_t *)f, (size_t)fl, (uint8_t *)v,
                                       (size_t)vl, 0, &hr), TERSE_OK);
        assert_int_equal(coll_hash_put(env, set, (uint8_t *)f, (size_t)fl, NULL, 0, 0, &hr),
                         TERSE_OK);
        assert_int_equal(coll_zset_add(env, z, (uint8_t *)f, (size_t)fl, (double)(i % 977) / 4,
                                       0, &zr, &old), TERSE_OK);
    }
    assert_int_equal(store_set_coll(s, 0, "h", 1, h, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_set_coll(s, 0, "s", 1, set, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_set_coll(s, 0, "z", 1, z, STORE_NO_EXPIRE, T0), TERSE_OK);
}

/* The form of key k of a loaded shard (decoded into out), its element count in *n. */
static size_t loaded_form(struct store_shard *s, struct codec_ctx *codec, const char *k,
                          enum store_type type, uint8_t *out, size_t cap, uint64_t *n)
{
    struct store_entry *e = store_lookup(s, 0, k, strlen(k), T0, 0);
    struct store_hash_it it;
    const uint8_t *stored;
    size_t slen, len;

    assert_non_null(e);
    assert_int_equal(store_entry_type(e), type);
    if (store_entry_enc(e) == STORE_ENC_COLL) {
        assert_int_equal(coll_to_form(store_coll_env(s), store_entry_coll(e), out, cap, &len),
                         TERSE_OK);
    } else {
        stored = store_entry_val(e, &slen);
        assert_int_equal(codec_value_decode(codec, stored, slen, out, cap, &len), TERSE_OK);
    }
    assert_int_equal(store_hash_open(out, len, &it, n), TERSE_OK);
    return len;
}

static void test_containers_stream_and_load_back(void **state)
{
    static uint8_t file[8 << 20], form[4 << 20];
    struct peak_alloc pa = {0, 0};
    terse_allocator a = {pa_alloc, pa_free, &pa};
    struct store_shard *s, *back;
    struct codec_ctx *codec;
    struct persist_save_stats st;
    struct persist_load_stats ls;
    struct persist_rdb_work w;
    struct persist_error err;
    struct store_hash_it it;
    struct store_hash_kv kv;
    struct store_zset_el prev = {NULL, 0, 0}, el;
    char path[] = "/tmp/terse-rdb-coll-XXXXXX";
    uint64_t n;
    size_t len;
    ssize_t got;
    int fd;

    (void)state;
    assert_int_equal(store_shard_create(&s, 16), TERSE_OK);
    assert_int_equal(codec_ctx_create(&codec, NULL), TERSE_OK);
    fill(s, codec);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(persist_rdb_save_fd(s, codec, fd, T0, 0, NULL, &a, &st, &err), TERSE_OK);
    assert_int_equal(st.n_keys, 3);
    /* The block buffer and little else: not one whole form (each over a MiB). */
    assert_true(pa.peak < 160 * 1024);
    assert_int_equal(pa.live, 0);
    got = pread(fd, file, sizeof(file), 0);
    assert_true(got > 0 && (size_t)got == st.file_bytes);
    close(fd);
    unlink(path);

    assert_int_equal(store_shard_create(&back, 16), TERSE_OK);
    coll_env_set_codec(store_coll_env(back), codec);
    persist_rdb_work_init(&w, NULL);
    assert_int_equal(persist_rdb_load_mem(back, 16, &w, file, (size_t)got, T0, &ls, NULL, &err),
                     TERSE_OK);
    persist_rdb_work_deinit(&w);
    assert_int_equal(ls.n_loaded, 3);

    len = loaded_form(back, codec, "h", STORE_TYPE_HASH, form, sizeof(form), &n);
    assert_int_equal(n, N_EL);
    assert_int_equal(store_hash_open(form, len, &it, &n), TERSE_OK);
    assert_int_equal(store_hash_it_find(&it, (const uint8_t *)"field:4321", 10, &kv,
                                        &(const uint8_t *){NULL}), 1);
    assert_int_equal(kv.vlen, strlen("value number 4321 of the hash"));
    assert_memory_equal(kv.v, "value number 4321 of the hash", kv.vlen);

    (void)loaded_form(back, codec, "s", STORE_TYPE_SET, form, sizeof(form), &n);
    assert_int_equal(n, N_EL);

    len = loaded_form(back, codec, "z", STORE_TYPE_ZSET, form, sizeof(form), &n);
    assert_int_equal(n, N_EL);
    assert_int_equal(store_hash_open(form, len, &it, &n), TERSE_OK);
    for (uint64_t i = 0; i < n; i++) {
        char want[32];
        int wl;

        assert_int_equal(store_hash_next(&it, &kv), 1);
        el = (struct store_zset_el){kv.f, kv.flen, store_zset_score(kv.v)};
        wl = snprintf(want, sizeof(want), "%.*s", (int)kv.flen, (const char *)kv.f);
        assert_true(wl > 6);
        /* member "field:i" has score (i % 977) / 4 */
        assert_true(el.score == (double)(atoi(want + 6) % 977) / 4);
        assert_true(i == 0 || store_zset_cmp(&prev, &el) < 0);
        prev = el;
    }
    store_shard_destroy(&back);
    codec_ctx_destroy(&codec);
    store_shard_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_containers_stream_and_load_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
