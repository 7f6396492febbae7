/*
 * Unit tests for the AOF's parsers: the manifest (persist_aof_manifest.c), the AOF command
 * reader (persist_aof_read.c) and the whole-file RDB loader (persist_rdb_load.c).
 *
 * Manifest: Redis's lines parse, with quoting; every rule refuses with Redis's text and the
 * line number; format and parse round trip; every prefix of a valid manifest is refused or
 * parses to a prefix of its entries. Reader: commands whole, at every cut (incomplete, never
 * an error), annotations, malformed heads. RDB loader: a file redis-server 7.0 wrote (every
 * type, expiries, two dbs) and one terse wrote load with the right keys; every truncation and
 * every flipped byte is refused or loads, never crashes, and a refusal inserts nothing; a db
 * beyond the shard's count is refused. Run under ASan by make test: no leak, no over-read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "persist/persist_aof_manifest.h"
#include "persist/persist_aof_read.h"
#include "persist/persist_rdb.h"
#include "persist/persist_rdb_load.h"
#include "store/store.h"
#include "terse/status.h"

#define T0 1700000000000LL
#define N_DB 16

/* ---- the manifest ------------------------------------------------------------------------ */

static const char GOOD[] = "file appendonly.aof.2.base.rdb seq 2 type b\n"
                           "# a comment\n"
                           "file appendonly.aof.1.incr.aof seq 1 type h\n"
                           "file appendonly.aof.3.incr.aof seq 3 type i\n"
                           "file \"with space.aof\" seq 4 type i startoffset 0 endoffset 9\n";

static int parse(struct persist_aof_manifest *m, const char *text, struct persist_error *err)
{
    return persist_aof_manifest_parse(m, (const uint8_t *)text, strlen(text), err);
}

static void test_manifest_parses(void **state)
{
    struct persist_aof_manifest m;
    struct persist_error err;
    char out[1024];
    size_t n;

    (void)state;
    persist_aof_manifest_init(&m, NULL);
    assert_int_equal(parse(&m, GOOD, &err), TERSE_OK);
    assert_true(m.has_base);
    assert_string_equal(m.base.name, "appendonly.aof.2.base.rdb");
    assert_int_equal(m.base_seq, 2);
    assert_int_equal(m.n_hist, 1);
    assert_int_equal(m.n_incr, 2);
    assert_string_equal(m.incr[1].name, "with space.aof");
    assert_int_equal(m.incr_seq, 4);
    /* written as Redis writes it (base, history, incr), and read back the same */
    n = persist_aof_manifest_format(&m, out, sizeof(out));
    assert_int_equal(n, persist_aof_manifest_size(&m));
    out[n] = '\0';
    assert_string_equal(out, "file appendonly.aof.2.base.rdb seq 2 type b\n"
                             "file appendonly.aof.1.incr.aof seq 1 type h\n"
                             "file appendonly.aof.3.incr.aof seq 3 type i\n"
                             "file \"with space.aof\" seq 4 type i\n");
    assert_int_equal(persist_aof_manifest_format(&m, out, n - 1), 0);
    assert_int_equal(parse(&m, out, &err), TERSE_OK);
    assert_int_equal(m.n_incr, 2);
    /* a rewrite: the base and the incr files become history */
    assert_int_equal(persist_aof_manifest_retire(&m), TERSE_OK);
    assert_false(m.has_base);
    assert_int_equal(m.n_incr, 0);
    assert_int_equal(m.n_hist, 4);
    assert_int_equal(persist_aof_manifest_add(&m, PERSIST_AOF_INCR, "x", 4), TERSE_EINVAL);
    assert_int_equal(persist_aof_manifest_add(&m, PERSIST_AOF_INCR, "a/b", 5), TERSE_EINVAL);
    assert_int_equal(persist_aof_manifest_add(&m, PERSIST_AOF_INCR, "x", 5), TERSE_OK);
    persist_aof_manifest_deinit(&m);
}

static void expect_bad(const char *text, const char *reason, uint64_t line)
{
    struct persist_aof_manifest m;
    struct persist_error err;

    persist_aof_manifest_init(&m, NULL);
    assert_int_equal(parse(&m, text, &err), TERSE_ECORRUPT);
    assert_string_equal(err.reason, reason);
    assert_int_equal(err.offset, line);
    assert_false(m.has_base);
    assert_int_equal(m.n_incr, 0);
    persist_aof_manifest_deinit(&m);
}

static void test_manifest_rules(void **state)
{
    char longline[PERSIST_AOF_LINE_MAX + 64];

    (void)state;
    expect_bad("", "Found an empty AOF manifest", 0);
    expect_bad("file a seq 1 type b", "The AOF manifest file contains too long line", 1);
    expect_bad("\n", "Invalid AOF manifest file format", 1);
    expect_bad("file a seq 1 type\n", "Invalid AOF manifest file format", 1);
    expect_bad("file a seq 1 xx b\n", "Invalid AOF manifest file format", 1);
    expect_bad("file a seq 0 type b\n", "Invalid AOF manifest file format", 1);
    expect_bad("file a seq x type b\n", "Invalid AOF manifest file format", 1);
    expect_bad("file \"a seq 1 type b\n", "Invalid AOF manifest file format", 1);
    expect_bad("file \"a\"b seq 1 type b\n", "Invalid AOF manifest file format", 1);
    expect_bad("file d/a seq 1 type b\n", "File can't be a path, just a filename", 1);
    expect_bad("file a seq 1 type b\nfile b seq 2 type b\n",
               "Found duplicate base file information", 2);
    expect_bad("file a seq 2 type i\nfile b seq 2 type i\n",
               "Found a non-monotonic sequence number", 2);
    expect_bad("file a seq 1 type x\n", "Unknown AOF file type", 1);
    memset(longline, 'a', sizeof(longline));
    memcpy(longline, "file ", 5);
    strcpy(longline + PERSIST_AOF_LINE_MAX, " seq 1 type b\n");
    expect_bad(longline, "The AOF manifest file contains too long line", 1);
}

static void test_manifest_every_prefix(void **state)
{
    struct persist_aof_manifest m;
    struct persist_error err;
    size_t len = strlen(GOOD);

    (void)state;
    persist_aof_manifest_init(&m, NULL);
    for (size_t cut = 0; cut <= len; cut++) {
        int rc = persist_aof_manifest_parse(&m, (const uint8_t *)GOOD, cut, &err);
        if (cut > 0 && GOOD[cut - 1] == '\n') {
            assert_int_equal(rc, TERSE_OK);
        } else {
            /* a line without its '\n', or nothing: refused (a comment line excepted) */
            assert_true(rc == TERSE_ECORRUPT || rc == TERSE_OK);
            if (rc == TERSE_ECORRUPT) {
                assert_false(m.has_base);
            }
        }
    }
    persist_aof_manifest_deinit(&m);
}

/* ---- the command reader ------------------------------------------------------------------ */

static const char CMDS[] = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                           "#TS:1700000000\r\n"
                           "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"
                           "*1\r\n$4\r\nEXEC\r\n";

static void test_reader_commands(void **state)
{
    struct persist_aof_reader r;
    const uint8_t *p = (const uint8_t *)CMDS;
    size_t len = sizeof(CMDS) - 1, off = 0, used, n = 0;
    const char *why;

    (void)state;
    persist_aof_reader_init(&r, NULL);
    while (off < len) {
        assert_int_equal(persist_aof_read_cmd(&r, p + off, len - off, &used, &why), TERSE_OK);
        if (n == 0) {
            assert_int_equal(r.argc, 2);
            assert_memory_equal(r.argv[0].p, "SELECT", 6);
        } else if (n == 1) {
            assert_int_equal(r.argc, 0); /* the annotation */
        } else if (n == 2) {
            assert_int_equal(r.argc, 3);
            assert_int_equal(r.argv[2].len, 0);
        }
        off += used;
        n++;
    }
    assert_int_equal(n, 4);
    /* every cut inside a command is incomplete, never an error */
    off = 0;
    for (size_t cut = 0; cut < len; cut++) {
        int rc = persist_aof_read_cmd(&r, p, cut, &used, &why);
        assert_true(rc == TERSE_OK || rc == TERSE_MORE);
        if (rc == TERSE_MORE) {
            assert_int_equal(used, 0);
        }
    }
    persist_aof_reader_deinit(&r);
}

static void test_reader_malformed(void **state)
{
    static const char *const bad[] = {"+OK\r\n", "*0\r\n", "*x\r\n", "*1\r\n+x\r\n",
                                      "*1\r\n$-1\r\n", "*1\r\n$1x\r\n"};
    struct persist_aof_reader r;
    size_t used;
    const char *why = NULL;

    (void)state;
    persist_aof_reader_init(&r, NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(persist_aof_read_cmd(&r, (const uint8_t *)bad[i], strlen(bad[i]),
                                              &used, &why),
                         TERSE_EPROTO);
        assert_non_null(why);
    }
    /* a huge count in a short input is incomplete, and sizes nothing for it */
    assert_int_equal(persist_aof_read_cmd(&r, (const uint8_t *)"*999999999999\r\n", 16, &used,
                                          &why),
                     TERSE_MORE);
    assert_true(r.argv_cap < 1000);
    persist_aof_reader_deinit(&r);
}

/* ---- the RDB loader ---------------------------------------------------------------------- */

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    p = malloc((size_t)n);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static size_t total_keys(struct store_shard *s)
{
    size_t n = 0;

    for (int db = 0; db < N_DB; db++) {
        n += store_dbsize(s, db);
    }
    return n;
}

static void test_rdb_from_redis(void **state)
{
    struct store_shard *s;
    struct persist_rdb_work w;
    struct persist_load_stats st;
    struct persist_error err;
    size_t len, used = 0;
    uint8_t *buf = read_file("fuzz/corpus/persist_rdb_load/redis_all_types.rdb", &len);

    (void)state;
    persist_rdb_work_init(&w, NULL);
    assert_int_equal(store_shard_create(&s, N_DB), TERSE_OK);
    assert_int_equal(persist_rdb_load_mem(s, 0, &w, buf, len, T0, &st, &used, &err), TERSE_OK);
    assert_int_equal(used, len);
    assert_int_equal(st.n_loaded, 13);
    assert_int_equal(store_dbsize(s, 0), 12);
    assert_int_equal(store_dbsize(s, 5), 1);
    /* a later clock: the keys with an expiry are skipped, the others load */
    store_flushall(s);
    assert_int_equal(persist_rdb_load_mem(s, 0, &w, buf, len, INT64_MAX / 2, &st, NULL, &err),
                     TERSE_OK);
    assert_int_equal(st.n_expired, 2);
    assert_int_equal(total_keys(s), 11);
    /* fewer databases than the file uses: refused, nothing inserted */
    store_shard_destroy(&s);
    assert_int_equal(store_shard_create(&s, 4), TERSE_OK);
    assert_int_equal(persist_rdb_load_mem(s, 0, &w, buf, len, T0, &st, NULL, &err),
                     TERSE_ECORRUPT);
    assert_non_null(strstr(err.reason, "database"));
    for (int db = 0; db < 4; db++) {
        assert_int_equal(store_dbsize(s, db), 0);
    }
    store_shard_destroy(&s);
    persist_rdb_work_deinit(&w);
    free(buf);
}

/* Every truncation refused; every flipped byte refused or loaded; no refusal inserts. */
static void damage(const char *path)
{
    struct store_shard *s;
    struct persist_rdb_work w;
    struct persist_load_stats st;
    struct persist_error err;
    size_t len;
    uint8_t *buf = read_file(path, &len);
    uint8_t *cut;

    persist_rdb_work_init(&w, NULL);
    assert_int_equal(store_shard_create(&s, N_DB), TERSE_OK);
    for (size_t n = 0; n < len; n++) {
        cut = malloc(n > 0 ? n : 1); /* exactly n bytes: ASan sees any over-read */
        assert_non_null(cut);
        memcpy(cut, buf, n);
        assert_int_equal(persist_rdb_load_mem(s, 0, &w, cut, n, T0, &st, NULL, &err),
                         TERSE_ECORRUPT);
        assert_true(err.offset <= n);
        assert_int_equal(total_keys(s), 0);
        free(cut);
    }
    for (size_t i = 0; i < len; i++) {
        int rc;
        buf[i] ^= 0x5a;
        rc = persist_rdb_load_mem(s, 0, &w, buf, len, T0, &st, NULL, &err);
        if (rc != TERSE_OK) {
            assert_true(rc == TERSE_ECORRUPT || rc == TERSE_ETOOBIG || rc == TERSE_ENOMEM);
            assert_int_equal(total_keys(s), 0);
        }
        store_flushall(s);
        buf[i] ^= 0x5a;
    }
    store_shard_destroy(&s);
    persist_rdb_work_deinit(&w);
    free(buf);
}

static void test_rdb_damage_redis(void **state)
{
    (void)state;
    damage("fuzz/corpus/persist_rdb_load/redis_all_types.rdb");
}

static void test_rdb_damage_terse(void **state)
{
    (void)state;
    damage("fuzz/corpus/persist_rdb_load/terse_base.rdb");
}

/* What persist_rdb_save_fd writes, persist_rdb_load_mem reads back (with RDB preamble bytes
 * after it left for the caller). */
static void test_rdb_round_trip_with_tail(void **state)
{
    struct store_shard *a, *b;
    struct persist_rdb_work w;
    struct persist_load_stats st;
    struct persist_error err;
    FILE *f = tmpfile();
    uint8_t *buf;
    size_t len, used = 0;
    long n;

    (void)state;
    assert_non_null(f);
    assert_int_equal(store_shard_create(&a, N_DB), TERSE_OK);
    assert_int_equal(store_shard_create(&b, N_DB), TERSE_OK);
    for (int i = 0; i < 100; i++) {
        char key[32];
        snprintf(key, sizeof(key), "k%d", i);
        assert_int_equal(store_set_int(a, i % N_DB, key, strlen(key), i * 7, i % 3 ? -1 : T0 +
                                       100000, T0),
                         TERSE_OK);
    }
    assert_int_equal(persist_rdb_save_fd(a, NULL, fileno(f), T0, 0, NULL, NULL, NULL, &err),
                     TERSE_OK);
    fflush(f);
    n = ftell(f);
    buf = malloc((size_t)n + 5);
    assert_non_null(buf);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    memcpy(buf + n, "*1\r\n", 5);
    len = (size_t)n + 5;
    fclose(f);
    persist_rdb_work_init(&w, NULL);
    assert_true(persist_rdb_is_rdb(buf, len));
    assert_int_equal(persist_rdb_load_mem(b, 0, &w, buf, len, T0, &st, &used, &err), TERSE_OK);
    assert_int_equal(used, (size_t)n);
    assert_int_equal(st.n_loaded, 100);
    assert_int_equal(total_keys(b), 100);
    /* verification alone */
    assert_int_equal(persist_rdb_load_mem(NULL, N_DB, &w, buf, len, T0, &st, NULL, &err),
                     TERSE_OK);
    persist_rdb_work_deinit(&w);
    store_shard_destroy(&a);
    store_shard_destroy(&b);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest_parses),
        cmocka_unit_test(test_manifest_rules),
        cmocka_unit_test(test_manifest_every_prefix),
        cmocka_unit_test(test_reader_commands),
        cmocka_unit_test(test_reader_malformed),
        cmocka_unit_test(test_rdb_from_redis),
        cmocka_unit_test(test_rdb_damage_redis),
        cmocka_unit_test(test_rdb_damage_terse),
        cmocka_unit_test(test_rdb_round_trip_with_tail),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
