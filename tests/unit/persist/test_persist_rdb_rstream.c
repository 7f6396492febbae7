/*
 * A big stream of an RDB file or a RESTORE payload read straight into its chunked stream
 * (persist_rdb_rstream.c, persist_rdb_rcoll.c), past a 64 KiB batch: node by node, each of the
 * payload's listpacks one chunk, then its groups, consumers and pending entries as the meta and the
 * groups' PELs. The container's whole form is byte for byte the form the one-form path reads from
 * the same payload (entries, nodes' live, slots and lp, IDs, counters, groups, consumers with their
 * pending counts, PELs), the allocator's peak stays within a batch or two of what the loaded shard
 * holds, and a corrupt payload (entries out of order, the last entry above the last ID, a pending
 * entry no consumer claims, a payload cut short) is refused with nothing kept and nothing leaked,
 * past the batch as before it.
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
#include "codec/codec_varint.h"
#include "coll/coll.h"
#include "coll/coll_stream.h"
#include "core/core_mem.h"
#include "persist/persist_rdb.h"
#include "persist/persist_rdb_load.h"
#include "persist_rdb_fixture.h"
#include "store/form/store_stream.h"
#include "store/store.h"
#include "terse/status.h"

#define N_ENT 40000
#define N_PEL 3000
#define T0 1700000000000LL

/* ---- a stream, its form and its DUMP payload ---------------------------------------------- */

/* What a payload is made from: its model and the bytes the model borrows. */
struct src {
    struct store_stream s;
    uint8_t *pairs; /* every entry's pairs */
    uint8_t *payload;
    size_t len;
};

/* How a payload is made corrupt, in its bytes (the writer refuses a bad model). */
enum harm { HARM_NONE, HARM_ORDER, HARM_LAST_ID, HARM_PEL, HARM_CUT_NODES, HARM_CUT_GROUPS };

static size_t put_bytes(uint8_t *p, const char *s)
{
    size_t n = strlen(s), k = codec_varint_put(p, n);

    memcpy(p + k, s, n);
    return k + n;
}

/* An RDB length at *at (6, 14 or 32 bits: what the writer uses here), *at moved past it. */
static uint64_t get_len(const uint8_t *p, size_t *at)
{
    uint8_t b = p[*at];

    if ((b >> 6) == 0) {
        *at += 1;
        return b & 63;
    }
    if ((b >> 6) == 1) {
        *at += 2;
        return (uint64_t)(b & 63) << 8 | p[*at - 1];
    }
    assert_int_equal(b, 0x80);
    *at += 5;
    return (uint64_t)p[*at - 4] << 24 | (uint64_t)p[*at - 3] << 16 | (uint64_t)p[*at - 2] << 8 |
           p[*at - 1];
}

/* Where the payload's nodes end (its length field), and where its k-th node's key is. */
static size_t walk_nodes(const uint8_t *p, size_t k, size_t *key_at)
{
    size_t at = 1;
    uint64_t n = get_len(p, &at);

    for (uint64_t i = 0; i < n; i++) {
        uint64_t len = get_len(p, &at);
        assert_int_equal(len, 16);
        if (i == k) {
            *key_at = at;
        }
        at += 16;
        len = get_len(p, &at);
        at += len;
    }
    return at;
}

/* n entries in nodes of at most 100 entries or 4 KiB (Redis's defaults), two groups: "g" with N_PEL
 * pending entries of three consumers, "h" with none and one consumer; its DUMP payload, harmed as
 * asked. */
static void src_make(struct src *x, int n, enum harm harm)
{
    static const char *cons[] = {"alice", "bob", "carol"};
    struct store_stream_group *g;
    struct persist_rdb_value v = {.type = STORE_TYPE_STREAM};
    bool found;
    uint8_t *p, *form;
    size_t len = 0, gi, at, key = 0;
    char num[40];
    size_t n_pel = (size_t)n / 2 < N_PEL ? (size_t)n / 2 : N_PEL;

    memset(x, 0, sizeof(*x));
    store_stream_init(&x->s, NULL);
    x->pairs = malloc((size_t)n * 80);
    assert_non_null(x->pairs);
    p = x->pairs;
    for (int i = 0; i < n; i++) {
        struct store_stream_entry e = {{1000 + (uint64_t)i / 3, (uint64_t)i % 3}, 2, p, 0};
        p += put_bytes(p, "sensor");
        snprintf(num, sizeof(num), "%d", i % 977);
        p += put_bytes(p, num);
        /* a node's entries mostly with its first's fields (SAMEFIELDS), some not */
        p += put_bytes(p, i % 5 == 0 ? "note" : "reading");
        snprintf(num, sizeof(num), "value number %d", i);
        p += put_bytes(p, num);
        e.pairs_len = (size_t)(p - e.pairs);
        assert_int_equal(store_stream_append(&x->s, &e, 100, 4096), TERSE_OK);
    }
    x->s.last_id = (struct store_stream_id){x->s.ents[n - 1].id.ms + 20000, 7};
    x->s.entries_added = (uint64_t)n + 12;
    x->s.max_deleted = (struct store_stream_id){999, 4};
    gi = store_stream_group_find(&x->s, (const uint8_t *)"h", 1, &found);
    assert_int_equal(
        store_stream_group_insert(&x->s, gi, (const uint8_t *)"h", 1, x->s.ents[10].id, 11),
        TERSE_OK);
    assert_int_equal(store_stream_consumer_insert(&x->s, &x->s.groups[gi], 0,
                                                  (const uint8_t *)"solo", 4, T0 + 5),
                     TERSE_OK);
    gi = store_stream_group_find(&x->s, (const uint8_t *)"g", 1, &found);
    assert_int_equal(store_stream_group_insert(&x->s, gi, (const uint8_t *)"g", 1,
                                               x->s.ents[2 * n_pel - 1].id, -1),
                     TERSE_OK);
    g = &x->s.groups[gi];
    for (size_t c = 0; c < 3; c++) {
        assert_int_equal(store_stream_consumer_insert(&x->s, g, c, (const uint8_t *)cons[c],
                                                      strlen(cons[c]), T0 + (int64_t)c),
                         TERSE_OK);
    }
    for (size_t i = 0; i < n_pel; i++) {
        struct store_stream_pending pe = {x->s.ents[2 * i].id, i % 3, T0 - (int64_t)i, 1 + i % 4};
        assert_int_equal(store_stream_pel_insert(&x->s, g, g->n_pel, &pe), TERSE_OK);
    }
    v.len = store_stream_size(&x->s);
    form = malloc(v.len);
    assert_non_null(form);
    assert_int_equal(store_stream_encode(&x->s, form, v.len, &len), TERSE_OK);
    v.p = form;
    assert_int_equal(persist_rdb_dump(&v, NULL, NULL, 0, &x->len), TERSE_ETOOBIG);
    x->payload = malloc(x->len);
    assert_non_null(x->payload);
    assert_int_equal(persist_rdb_dump(&v, NULL, x->payload, x->len, &x->len), TERSE_OK);
    free(form);
    at = walk_nodes(x->payload, x->s.n_nodes - 2, &key);
    switch (harm) {
    case HARM_ORDER:
        /* a late node's master ID lowered: its entries fall below the node before it, read after
         * the nodes before it went into chunks */
        x->payload[key + 7] -= 2;
        break;
    case HARM_LAST_ID:
        (void)get_len(x->payload, &at); /* the length; then the last ID's ms (32 bits) */
        assert_int_equal(x->payload[at], 0x80);
        memset(x->payload + at + 1, 0, 4); /* ms 0: below every entry */
        break;
    case HARM_PEL:
        /* carol's own PEL's first ID (after her name, seen time and count) made one the group's PEL
         * does not hold */
        p = memmem(x->payload, x->len,
                   "\x05"
                   "carol",
                   6);
        assert_non_null(p);
        at = (size_t)(p - x->payload) + 6 + 8;
        assert_true(get_len(x->payload, &at) > 0);
        x->payload[at + 15] ^= 1;
        break;
    case HARM_CUT_NODES:
        x->len = key + 100; /* inside a late node */
        break;
    case HARM_CUT_GROUPS:
        x->len = at + 200; /* inside the groups */
        break;
    default:
        break;
    }
}

static void src_free(struct src *x)
{
    store_stream_deinit(&x->s);
    free(x->pairs);
    free(x->payload);
}

/* ---- loads ------------------------------------------------------------------------------- */

/* The whole form of c, as DUMP and DEBUG DIGEST-VALUE read it: malloc'd, *len bytes. */
static uint8_t *form_of(struct coll_env *env, struct coll *c, size_t *len)
{
    size_t cap = coll_stream_form_size(c);
    uint8_t *f = malloc(cap);

    assert_non_null(f);
    assert_int_equal(coll_stream_to_form(env, c, f, cap, len), TERSE_OK);
    return f;
}

/* c holds exactly the stream the one-form path reads from the same payload. */
static void same_as_form(struct rdb_fx *x, struct coll *c, const struct src *src)
{
    struct coll_env *env = store_coll_env(x->s);
    struct persist_rdb_value v;
    struct persist_error err;
    size_t len = 0;
    uint8_t *got;

    assert_int_equal(coll_stream_verify(env, c), TERSE_OK);
    assert_int_equal(coll_count(c), src->s.n_ents);
    assert_int_equal(c->tree.n_chunks, src->s.n_nodes); /* a chunk per listpack */
    assert_int_equal(coll_stream_n_pels(c), 2);
    got = form_of(env, c, &len);
    assert_int_equal(persist_rdb_value_read(&x->w, src->payload, src->len, &v, &err), TERSE_OK);
    assert_int_equal(v.len, len);
    assert_memory_equal(v.p, got, len);
    free(got);
}

static void test_restore_builds_nodes_in_bounded_memory(void **state)
{
    struct rdb_fx *x = *state;
    struct coll_env *env = store_coll_env(x->s);
    struct core_mem_stats before, after;
    struct persist_rdb_value v;
    struct persist_error err;
    struct coll *whole = NULL;
    struct store_stream m;
    uint64_t one_peak, used;
    struct src src;

    src_make(&src, N_ENT, HARM_NONE);
    assert_true(src.len > 1u << 20);

    /* the one-form path, and what the after-load pass makes of its form: the peak then */
    persist_rdb_work_trim(&x->w, 0);
    used = core_mem_used();
    core_mem_peak_reset();
    assert_int_equal(persist_rdb_value_read(&x->w, src.payload, src.len, &v, &err), TERSE_OK);
    assert_int_equal(store_stream_decode(&m, NULL, v.p, v.len), TERSE_OK);
    assert_int_equal(coll_stream_from_model(env, &m, 4096, &whole), TERSE_OK);
    store_stream_deinit(&m);
    core_mem_stats_get(&after);
    one_peak = after.peak_bytes - used;
    persist_rdb_work_trim(&x->w, 0);

    /* node by node */
    core_mem_stats_get(&before);
    core_mem_peak_reset();
    assert_int_equal(
        persist_rdb_value_read_chunked(&x->w, &x->w.load_ck, src.payload, src.len, &v, &err),
        TERSE_OK);
    core_mem_stats_get(&after);
    print_message("payload %zu: one form peak +%llu; in nodes used +%llu, peak +%llu\n", src.len,
                  (unsigned long long)one_peak,
                  (unsigned long long)(after.used_bytes - before.used_bytes),
                  (unsigned long long)(after.peak_bytes - before.used_bytes));
    assert_non_null(v.coll);
    assert_ptr_equal(v.env, env);
    assert_int_equal(v.type, STORE_TYPE_STREAM);
    /* what it holds, and a batch beside it and the groups' model (3,000 pending entries, checked as
     * a form and made PELs): not the form, its records and its model */
    assert_true(after.peak_bytes < after.used_bytes + (512u << 10));
    assert_true(after.peak_bytes - before.used_bytes < one_peak / 2);
    /* the container the after-load pass would have made, within a few chunks */
    assert_true(coll_mem(v.coll) < coll_mem(whole) + (16u << 10) &&
                coll_mem(whole) < coll_mem(v.coll) + (16u << 10));
    same_as_form(x, v.coll, &src);
    coll_destroy(env, v.coll);
    coll_destroy(env, whole);
    src_free(&src);
}

/* A key of an RDB file: the payload's type, the key, the value without the DUMP footer. */
static size_t put_file_key(uint8_t *f, const char *key, const struct src *src)
{
    size_t n = strlen(key);

    f[0] = src->payload[0];
    f[1] = (uint8_t)n;
    memcpy(f + 2, key, n);
    memcpy(f + 2 + n, src->payload + 1, src->len - 11);
    return 2 + n + src->len - 11;
}

/* An RDB file: the big stream is the key's chunked stream, a small one stays its form (the
 * after-load pass decides it). */
static void test_file_load(void **state)
{
    struct rdb_fx *x = *state;
    struct persist_load_stats ls;
    struct persist_error err;
    const struct store_entry *e;
    struct src big, small;
    uint8_t *f;
    size_t n = 11;

    src_make(&big, N_ENT, HARM_NONE);
    src_make(&small, 50, HARM_NONE);
    f = malloc(big.len + small.len + 64);
    assert_non_null(f);
    memcpy(f, "REDIS0010\xfe\x00", 11);
    n += put_file_key(f + n, "big", &big);
    n += put_file_key(f + n, "small", &small);
    f[n++] = 0xff;
    memset(f + n, 0, 8);
    n += 8;
    assert_int_equal(persist_rdb_load_mem(x->s, 16, &x->w, f, n, T0, &ls, NULL, &err), TERSE_OK);
    e = store_peek(x->s, 0, "big", 3);
    assert_non_null(e);
    assert_int_equal(store_entry_type(e), STORE_TYPE_STREAM);
    assert_int_equal(store_entry_enc(e), STORE_ENC_COLL);
    same_as_form(x, store_entry_coll(e), &big);
    assert_int_equal(store_entry_enc(store_peek(x->s, 0, "small", 5)), STORE_ENC_STR);
    free(f);
    src_free(&big);
    src_free(&small);
}

/* A stream the after-load pass would leave one value (its form under stream_min) is read as its
 * form, past the batch as it is. */
static void test_under_stream_min_stays_form(void **state)
{
    struct rdb_fx *x = *state;
    struct persist_rdb_value v;
    struct persist_error err;
    struct src src;

    src_make(&src, N_ENT, HARM_NONE);
    x->w.load_ck.stream_min = 64u << 20;
    assert_int_equal(
        persist_rdb_value_read_chunked(&x->w, &x->w.load_ck, src.payload, src.len, &v, &err),
        TERSE_OK);
    assert_null(v.coll);
    assert_int_equal(v.type, STORE_TYPE_STREAM);
    src_free(&src);
}

/* Every corrupt payload is TERSE_ECORRUPT from both readers, nothing kept, nothing leaked. */
static void test_corrupt_refused_whole(void **state)
{
    struct rdb_fx *x = *state;
    struct coll_env *env = store_coll_env(x->s);
    static const enum harm harms[] = {HARM_ORDER, HARM_LAST_ID, HARM_PEL, HARM_CUT_NODES,
                                      HARM_CUT_GROUPS};

    for (size_t i = 0; i < sizeof(harms) / sizeof(harms[0]); i++) {
        struct persist_rdb_value v;
        struct persist_error err;
        struct src src;
        uint64_t used;

        src_make(&src, N_ENT, harms[i]);
        coll_env_trim(env, 0);
        persist_rdb_work_trim(&x->w, 0);
        used = core_mem_used();
        assert_int_equal(
            persist_rdb_value_read_chunked(&x->w, &x->w.load_ck, src.payload, src.len, &v, &err),
            TERSE_ECORRUPT);
        print_message("harm %d: %s at %llu\n", (int)harms[i], err.reason,
                      (unsigned long long)err.offset);
        assert_null(v.coll);
        coll_env_trim(env, 0);
        persist_rdb_work_trim(&x->w, 0);
        assert_int_equal(core_mem_used(), used);
        assert_int_equal(persist_rdb_value_read(&x->w, src.payload, src.len, &v, &err),
                         TERSE_ECORRUPT);
        src_free(&src);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_restore_builds_nodes_in_bounded_memory, rdb_fx_setup,
                                        rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_file_load, rdb_fx_setup, rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_under_stream_min_stays_form, rdb_fx_setup,
                                        rdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_refused_whole, rdb_fx_setup, rdb_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
