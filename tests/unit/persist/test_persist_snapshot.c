/*
 * Unit tests for persist (snapshot save and load): round trips of every value kind (int,
 * raw, LZ4, empty, binary, 1 MiB+, raw mark) with expiry across all 16 dbs; expired keys are
 * neither saved nor loaded; identical values are written once and load as copies; every
 * flipped byte and every truncation of a snapshot is refused with TERSE_ECORRUPT and an
 * offset inside the file, leaving the shard untouched; a db beyond the server's is refused;
 * persist_save_file leaves no temporary file and replaces the old snapshot; a chunked hash
 * whose chunk passes its checksum but is not well formed (a crafted file) refuses the load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "coll/coll_hash.h"
#include "coll/coll_tree.h"
#include "persist/persist.h"
#include "persist/persist_internal.h"
#include "store/store.h"
#include "terse/status.h"

#define T0 1700000000000LL
#define N_DB 16
#define BIG_LEN ((size_t)1536 * 1024) /* a value above 1 MiB, beyond one block */

struct fix {
    struct store_shard *s;
    struct codec_ctx *codec;
    char dir[64];
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    assert_int_equal(store_shard_create(&f->s, N_DB), TERSE_OK);
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    snprintf(f->dir, sizeof(f->dir), "/tmp/terse-persist-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    char cmd[128];

    store_shard_destroy(&f->s);
    codec_ctx_destroy(&f->codec);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* Stores the codec form of v under key in db. */
static void put_str(struct fix *f, int db, const char *key, const void *v, size_t n, int64_t exp)
{
    size_t cap = codec_value_bound(n), len = 0;
    uint8_t *st = malloc(cap);

    assert_non_null(st);
    assert_int_equal(codec_value_encode(f->codec, v, n, st, cap, &len), TERSE_OK);
    assert_int_equal(store_set_str(f->s, db, key, strlen(key), st, len, exp, T0), TERSE_OK);
    free(st);
}

/* Incompressible bytes (xorshift64). */
static void fill_random(void *dst, size_t n, uint64_t seed)
{
    uint8_t *p = dst;
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

/* Every value kind in every db, some with an expiry, one expired, one big. */
static void fill(struct fix *f)
{
    static const uint8_t bin[] = {0, 1, 2, 0xff, '\r', '\n', 0, 0x80};
    char text[4096], key[64];
    uint8_t *big = malloc(BIG_LEN);

    assert_non_null(big);
    for (size_t i = 0; i < sizeof(text); i++) {
        text[i] = "the quick brown fox jumps over the lazy dog "[i % 44];
    }
    fill_random(big, BIG_LEN, 42);
    for (int db = 0; db < N_DB; db++) {
        for (int i = 0; i < 50; i++) {
            snprintf(key, sizeof(key), "int:%d", i);
            assert_int_equal(store_set_int(f->s, db, key, strlen(key),
                                           i % 2 ? INT64_MIN + i : INT64_MAX - i * 1000003LL,
                                           i % 3 ? STORE_NO_EXPIRE : T0 + 1000000 + i, T0),
                             TERSE_OK);
            snprintf(key, sizeof(key), "raw:%d:%d", db, i);
            put_str(f, db, key, text + i, 10 + (size_t)i, i % 4 ? STORE_NO_EXPIRE : T0 + 5000);
            snprintf(key, sizeof(key), "lz4:%d", i);
            put_str(f, db, key, text, 1000 + (size_t)i * 50, STORE_NO_EXPIRE);
        }
        put_str(f, db, "empty", "", 0, STORE_NO_EXPIRE);
        put_str(f, db, "bin", bin, sizeof(bin), T0 + 99);
        {
            size_t n = 0;
            uint8_t st[64];
            assert_int_equal(codec_value_encode(f->codec, "appended", 8, st, sizeof(st), &n),
                             TERSE_OK);
            assert_int_equal(store_set_str_flags(f->s, db, "rawmark", 7, st, n,
                                                 STORE_NO_EXPIRE, T0, STORE_SET_RAW),
                             TERSE_OK);
            /* One key of every other type (the snapshot does not read their byte form). */
            for (int t = STORE_TYPE_HASH; t <= STORE_TYPE_MAX; t++) {
                snprintf(key, sizeof(key), "type:%d", t);
                assert_int_equal(store_set_value(f->s, db, key, strlen(key), (enum store_type)t,
                                                 st, n, t % 2 ? T0 + 7000 : STORE_NO_EXPIRE, T0,
                                                 0),
                                 TERSE_OK);
            }
        }
    }
    put_str(f, 5, "big", big, BIG_LEN, STORE_NO_EXPIRE);
    put_str(f, 15, "big2", big, BIG_LEN, T0 + 123456);
    free(big);
}

struct collect {
    size_t n;
    uint64_t sum;   /* order-independent hash of every (db, key, type, enc, value, expiry, raw) */
    int db;
};

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static uint64_t bytes_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ULL;
    }
    return h;
}

static void on_entry(void *arg, const struct store_entry *e)
{
    struct collect *c = arg;
    size_t klen, vlen = 0;
    const uint8_t *k = store_entry_key(e, &klen);
    uint64_t h = bytes_hash(k, klen) * 31 + (uint64_t)c->db;

    h = h * 31 + (uint64_t)store_entry_expire(e);
    h = h * 31 + (uint64_t)store_entry_type(e);
    if (store_entry_enc(e) == STORE_ENC_INT) {
        h = h * 31 + (uint64_t)store_entry_int(e);
    } else {
        const uint8_t *v = store_entry_val(e, &vlen);
        h = h * 31 + bytes_hash(v, vlen) + (uint64_t)store_entry_is_raw(e);
    }
    c->n++;
    c->sum += mix(h);
}

static struct collect collect_all(struct store_shard *s, int64_t now)
{
    struct collect c = {0, 0, 0};

    for (c.db = 0; c.db < store_shard_n_db(s); c.db++) {
        uint64_t cur = 0;
        do {
            cur = store_scan(s, c.db, cur, 100, now, on_entry, &c);
        } while (cur != 0);
    }
    return c;
}

/* Saves f->s to a file and maps it; *len receives its size. */
static uint8_t *save_to_mem(struct fix *f, int64_t now, size_t *len,
                            struct persist_save_stats *st)
{
    char path[128], tmp[128];
    struct persist_error err;
    struct stat sb;
    FILE *fp;
    uint8_t *buf;

    snprintf(path, sizeof(path), "%s/dump.terse", f->dir);
    snprintf(tmp, sizeof(tmp), "%s/temp-1.terse", f->dir);
    assert_int_equal(persist_save_file(f->s, path, tmp, now, NULL, st, &err), TERSE_OK);
    assert_int_equal(stat(tmp, &sb), -1);
    assert_int_equal(stat(path, &sb), 0);
    *len = (size_t)sb.st_size;
    buf = malloc(*len);
    fp = fopen(path, "rb");
    assert_non_null(buf);
    assert_non_null(fp);
    assert_int_equal(fread(buf, 1, *len, fp), *len);
    fclose(fp);
    return buf;
}

static void test_round_trip_all_kinds(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_load_stats ls;
    struct persist_error err;
    struct store_shard *s2 = NULL;
    struct collect before, after;
    size_t len;
    uint8_t *buf;
    char path[128];

    fill(f);
    before = collect_all(f->s, T0);
    buf = save_to_mem(f, T0, &len, &st);
    assert_int_equal(st.n_keys, before.n);
    assert_int_equal(st.file_bytes, len);
    assert_true(len > BIG_LEN / 4); /* the big value is there; its twin is a reference */
    assert_true(st.n_dedup >= 1);
    assert_int_equal(store_shard_create(&s2, N_DB), TERSE_OK);
    snprintf(path, sizeof(path), "%s/dump.terse", f->dir);
    assert_int_equal(persist_load_file(s2, path, T0, &ls, &err), TERSE_OK);
    assert_string_equal(err.reason, "");
    assert_int_equal(ls.n_loaded, before.n);
    assert_int_equal(ls.n_expired, 0);
    after = collect_all(s2, T0);
    assert_int_equal(after.n, before.n);
    assert_true(after.sum == before.sum);
    store_shard_destroy(&s2);
    free(buf);
}

static void test_expired_not_saved_nor_loaded(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_load_stats ls;
    struct persist_error err;
    struct store_shard *s2 = NULL;
    size_t len;
    uint8_t *buf;

    assert_int_equal(store_set_int(f->s, 0, "gone", 4, 1, T0 + 10, T0), TERSE_OK);
    assert_int_equal(store_set_int(f->s, 0, "later", 5, 2, T0 + 1000, T0), TERSE_OK);
    assert_int_equal(store_set_int(f->s, 3, "kept", 4, 3, STORE_NO_EXPIRE, T0), TERSE_OK);
    buf = save_to_mem(f, T0 + 10, &len, &st); /* "gone" expired at save time */
    assert_int_equal(st.n_keys, 2);
    assert_int_equal(store_shard_create(&s2, N_DB), TERSE_OK);
    /* "later" expired by load time: skipped and counted */
    assert_int_equal(persist_load_mem(s2, buf, len, T0 + 1000, &ls, &err), TERSE_OK);
    assert_int_equal(ls.n_loaded, 1);
    assert_int_equal(ls.n_expired, 1);
    assert_non_null(store_lookup(s2, 3, "kept", 4, T0 + 1000, 0));
    assert_int_equal(store_dbsize(s2, 0), 0);
    store_shard_destroy(&s2);
    free(buf);
}

static void test_dedup_identical_values(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_load_stats ls;
    struct persist_error err;
    struct store_shard *s2 = NULL;
    char v[3000], key[32];
    size_t len;
    uint8_t *buf;
    struct collect before, after;

    memset(v, 'q', sizeof(v));
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        put_str(f, i % 3, key, v, sizeof(v) - (size_t)(i % 2), STORE_NO_EXPIRE);
    }
    before = collect_all(f->s, T0);
    buf = save_to_mem(f, T0, &len, &st);
    assert_int_equal(st.n_keys, 200);
    assert_int_equal(st.n_dedup, 198); /* two distinct values */
    assert_int_equal(store_shard_create(&s2, N_DB), TERSE_OK);
    assert_int_equal(persist_load_mem(s2, buf, len, T0, &ls, &err), TERSE_OK);
    after = collect_all(s2, T0);
    assert_int_equal(after.n, 200);
    assert_true(after.sum == before.sum);
    store_shard_destroy(&s2);
    free(buf);
}

static void test_empty_dataset(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_load_stats ls;
    struct persist_error err;
    size_t len;
    uint8_t *buf = save_to_mem(f, T0, &len, &st);

    assert_int_equal(len, PERSIST_HEADER_LEN + PERSIST_BLOCK_HEADER_LEN +
                              PERSIST_END_PAYLOAD_LEN + PERSIST_BLOCK_TRAILER_LEN);
    assert_int_equal(persist_load_mem(f->s, buf, len, T0, &ls, &err), TERSE_OK);
    assert_int_equal(ls.n_loaded, 0);
    assert_int_equal(persist_load_mem(f->s, NULL, 0, T0, &ls, &err), TERSE_ECORRUPT);
    free(buf);
}

/* Every single flipped byte and every truncation is refused, with an offset in the file, and
 * the shard stays empty. */
static void test_every_flip_and_truncation_refused(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_error err;
    struct store_shard *s2 = NULL;
    char key[32];
    size_t len;
    uint8_t *buf;

    for (int i = 0; i < 40; i++) {
        snprintf(key, sizeof(key), "key:%d", i);
        if (i % 2) {
            put_str(f, i % 4, key, "some value bytes that repeat, repeat, repeat", 44,
                    i % 5 ? STORE_NO_EXPIRE : T0 + 100000);
        } else {
            assert_int_equal(store_set_int(f->s, i % 4, key, strlen(key), i * 1000, -1, T0), 0);
        }
    }
    buf = save_to_mem(f, T0, &len, &st);
    assert_int_equal(store_shard_create(&s2, N_DB), TERSE_OK);
    for (size_t off = 0; off < len; off++) {
        for (int bit = 0; bit < 8; bit += 3) {
            buf[off] ^= (uint8_t)(1u << bit);
            assert_int_equal(persist_load_mem(s2, buf, len, T0, NULL, &err), TERSE_ECORRUPT);
            assert_true(err.offset <= len);
            assert_true(err.reason[0] != '\0');
            assert_int_equal(store_dbsize(s2, off % 4), 0);
            buf[off] ^= (uint8_t)(1u << bit);
        }
    }
    for (size_t cut = 0; cut < len; cut++) {
        assert_int_equal(persist_load_mem(s2, buf, cut, T0, NULL, &err), TERSE_ECORRUPT);
        assert_true(err.offset <= cut);
    }
    assert_int_equal(persist_load_mem(s2, buf, len, T0, NULL, &err), TERSE_OK);
    store_shard_destroy(&s2);
    free(buf);
}

static void test_block_error_names_its_offset(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_error err;
    char key[32], v[2000];
    size_t len;
    uint8_t *buf;

    for (int i = 0; i < 400; i++) {
        snprintf(key, sizeof(key), "key:%d", i);
        fill_random(v, sizeof(v), (uint64_t)i + 1);
        put_str(f, 0, key, v, sizeof(v), STORE_NO_EXPIRE); /* several blocks */
    }
    buf = save_to_mem(f, T0, &len, &st);
    assert_true(len > 2 * PERSIST_BLOCK_TARGET / 8);
    buf[len / 2] ^= 0x40;
    assert_int_equal(persist_verify_mem(buf, len, N_DB, &err), TERSE_ECORRUPT);
    assert_string_equal(err.reason, "block checksum mismatch");
    assert_true(err.offset <= len / 2);
    assert_true(err.offset > PERSIST_HEADER_LEN);
    free(buf);
}

static void test_db_beyond_server_refused(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_error err;
    struct store_shard *s2 = NULL;
    size_t len;
    uint8_t *buf;

    assert_int_equal(store_set_int(f->s, 0, "a", 1, 1, -1, T0), TERSE_OK);
    assert_int_equal(store_set_int(f->s, 9, "b", 1, 2, -1, T0), TERSE_OK);
    buf = save_to_mem(f, T0, &len, &st);
    assert_int_equal(store_shard_create(&s2, 4), TERSE_OK);
    assert_int_equal(persist_load_mem(s2, buf, len, T0, NULL, &err), TERSE_ECORRUPT);
    assert_non_null(strstr(err.reason, "db 9"));
    assert_int_equal(store_dbsize(s2, 0), 0); /* nothing half-loaded */
    store_shard_destroy(&s2);
    free(buf);
}

static void test_missing_file_and_bad_magic(void **state)
{
    struct fix *f = *state;
    struct persist_error err;
    char path[128];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/nothing.terse", f->dir);
    assert_int_equal(persist_load_file(f->s, path, T0, NULL, &err), TERSE_ENOTFOUND);
    fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs("REDIS0009 certainly not ours, but long enough for a header", fp);
    fclose(fp);
    assert_int_equal(persist_load_file(f->s, path, T0, NULL, &err), TERSE_ECORRUPT);
    assert_string_equal(err.reason, "not a terse snapshot (bad magic)");
    assert_int_equal(err.offset, 0);
}

static void test_version_byte_checked(void **state)
{
    struct fix *f = *state;
    struct persist_save_stats st;
    struct persist_error err;
    size_t len;
    uint8_t *buf = save_to_mem(f, T0, &len, &st);

    buf[8] = PERSIST_VERSION + 1;
    assert_int_equal(persist_verify_mem(buf, len, N_DB, &err), TERSE_ECORRUPT);
    assert_int_equal(err.offset, 8);
    assert_non_null(strstr(err.reason, "unsupported snapshot version"));
    free(buf);
}

/* A chunked hash of 300 fields whose first chunk is rewritten (its checksum with it) before the
 * save: as it was (loads), with its second field made the first's, or with its last value's
 * length one past the chunk's end. A write copies the bytes after the field it edits unread,
 * so the load must refuse the defects the checksum cannot see, and keep nothing. */
static void test_crafted_hash_chunk_refused(void **state)
{
    struct fix *f = *state;
    struct coll_env *env = store_coll_env(f->s);
    struct coll_hash_shape hs = {1024};
    struct persist_save_stats st;
    struct persist_error err;
    uint8_t crafted[1024], *buf;

    coll_env_set_codec(env, f->codec);
    for (int defect = 0; defect < 3; defect++) {
        struct store_shard *s2 = NULL;
        enum coll_hash_result hr;
        struct coll *h;
        struct coll_it it;
        struct coll_desc *d;
        const uint8_t *form;
        size_t len, p, last = 0;

        store_flushall(f->s);
        assert_int_equal(coll_hash_create(env, COLL_HASH, &hs, &h), TERSE_OK);
        for (int i = 0; i < 300; i++) {
            char k[16], v[16];
            int kl = snprintf(k, sizeof(k), "f%03d", i), vl = snprintf(v, sizeof(v), "v%d", i);

            assert_int_equal(coll_hash_put(env, h, (uint8_t *)k, (size_t)kl, (uint8_t *)v,
                                           (size_t)vl, 0, &hr), TERSE_OK);
        }
        /* the first chunk of two fields or more (the env's seed, random per shard, places
         * them: a chunk of one may come first) */
        for (it = coll_tree_begin(&h->tree); coll_tree_desc(&it)->count < 2;
             coll_tree_next(&it)) {
        }
        d = coll_tree_desc(&it);
        assert_true(d->count >= 2 && d->count < 128 && h->tree.n_chunks >= 2);
        assert_int_equal(coll_chunk_read(env, d->chunk, &form, &len), TERSE_OK);
        assert_true(len <= sizeof(crafted));
        memcpy(crafted, form, len);
        /* | count | then records | 4 | 4-byte field | vlen | value |, every length one byte */
        for (p = 1; p < len; p += 1 + 4 + 1 + crafted[p + 5]) {
            assert_int_equal(crafted[p], 4);
            last = p;
        }
        assert_int_equal(p, len);
        if (defect == 1) {
            memcpy(crafted + 1 + 6 + crafted[6] + 1, crafted + 2, 4);
        } else if (defect == 2) {
            crafted[last + 5]++;
        }
        assert_int_equal(coll_chunk_rewrite(env, h, &d->chunk, crafted, len), TERSE_OK);
        assert_int_equal(store_set_coll(f->s, 0, "h", 1, h, STORE_NO_EXPIRE, T0), TERSE_OK);
        buf = save_to_mem(f, T0, &len, &st);
        assert_int_equal(store_shard_create(&s2, N_DB), TERSE_OK);
        if (defect == 0) {
            assert_int_equal(persist_load_mem(s2, buf, len, T0, NULL, &err), TERSE_OK);
            assert_int_equal(store_dbsize(s2, 0), 1);
        } else {
            assert_int_equal(persist_load_mem(s2, buf, len, T0, NULL, &err), TERSE_ECORRUPT);
            assert_non_null(strstr(err.reason, "fail verification"));
            assert_int_equal(store_dbsize(s2, 0), 0);
        }
        store_shard_destroy(&s2);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_all_kinds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expired_not_saved_nor_loaded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dedup_identical_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_dataset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_flip_and_truncation_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_block_error_names_its_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_db_beyond_server_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_file_and_bad_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_byte_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crafted_hash_chunk_refused, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
