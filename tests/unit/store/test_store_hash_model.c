/*
 * Unit tests of the hash field-list form at size: a 100000-field hash (built, checked, edited,
 * each in bounded time), and random edits of every size class (linear, one table, blocks)
 * against a plain model. Edits are checked at every capacity by store_hash_fixture.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "codec/codec_varint.h"
#include "store/form/store_hash.h"
#include "store_hash_fixture.h"
#include "terse/status.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_hundred_thousand_fields(void **state)
{
    enum { N = 100000 };
    struct store_hash_kv *kv = malloc(N * sizeof(*kv));
    char(*names)[16] = malloc(N * sizeof(*names));
    struct store_hash_kv more[] = {KV("k7", "seven"), KV("brand new", "x"), KV("k99999", "")};
    struct store_hash_kv *del = malloc(5000 * sizeof(*del));
    size_t cap, len, len2, added, removed;
    struct store_hash_kv got;
    uint8_t *form, *form2;
    double t0, t_edit, t_check, t_more;

    (void)state;
    for (int i = 0; i < N; i++) {
        kv[i].flen = (size_t)snprintf(names[i], sizeof(names[i]), "k%d", i);
        kv[i].f = (const uint8_t *)names[i];
        kv[i].v = kv[i].f;
        kv[i].vlen = kv[i].flen;
    }
    cap = store_hash_fixture_bound(0, kv, N);
    form = malloc(cap);
    t0 = now_s();
    assert_int_equal(store_hash_edit(NULL, 0, kv, N, NULL, 0, form, cap, &len, &added, &removed),
                     TERSE_OK);
    t_edit = now_s() - t0;
    assert_int_equal(added, N);
    t0 = now_s();
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    t_check = now_s() - t0;
    store_hash_fixture_expect(form, len, kv, N);

    /* A few sets on the big hash, then 5000 deletions (blocks over old fields and `del`). */
    t0 = now_s();
    cap = store_hash_fixture_bound(len, more, 3);
    form2 = malloc(cap);
    assert_int_equal(store_hash_edit(form, len, more, 3, NULL, 0, form2, cap, &len2, &added,
                                     &removed),
                     TERSE_OK);
    assert_int_equal(added, 1);
    assert_int_equal(store_hash_find(form2, len2, (const uint8_t *)"k7", 2, &got), 1);
    assert_memory_equal(got.v, "seven", 5);
    for (int i = 0; i < 5000; i++) {
        del[i] = kv[i * 20];
    }
    free(form);
    form = malloc(len2);
    assert_int_equal(store_hash_edit(form2, len2, NULL, 0, del, 5000, form, len2, &len,
                                     &added, &removed),
                     TERSE_OK);
    t_more = now_s() - t0;
    assert_int_equal(removed, 5000);
    assert_int_equal(store_hash_check(form, len), TERSE_OK);
    assert_int_equal(store_hash_find(form, len, (const uint8_t *)"k20", 3, &got), 0);
    assert_int_equal(store_hash_find(form, len, (const uint8_t *)"k21", 3, &got), 1);
    print_message("# 100000 fields: edit %.1f ms, check %.1f ms, then set 3 + del 5000 %.1f ms\n",
                  t_edit * 1e3, t_check * 1e3, t_more * 1e3);
    free(kv);
    free(names);
    free(del);
    free(form);
    free(form2);
}

/* ---- random edits against a model ------------------------------------------------------- */

#define ID_MAX 40000

struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* Field names of ids: "" for 0, NUL bytes for 1 and 2, decimal text otherwise. */
static size_t field_of(uint32_t id, uint8_t *buf)
{
    if (id < 3) {
        memset(buf, 0, id);
        return id;
    }
    return (size_t)snprintf((char *)buf, 12, "%u", id);
}

/* Values of value ids: 0 to 199 bytes (some take a 2-byte length). */
static size_t value_of(uint32_t vid, uint8_t *buf)
{
    size_t len = vid % 200;

    for (size_t k = 0; k < len; k++) {
        buf[k] = (uint8_t)(vid + k * 31);
    }
    return len;
}

struct model {
    int64_t val[ID_MAX]; /* value id, -1: absent */
    uint32_t order[ID_MAX];
    size_t n;
};

struct args {
    struct store_hash_kv *kv;
    uint32_t *id;
    uint32_t *vid;
    uint8_t *pool;
};

static void args_make(struct args *a, struct rng *r, size_t n, uint32_t id_range, bool values)
{
    uint8_t *p;

    a->kv = malloc((n + 1) * sizeof(*a->kv));
    a->id = malloc((n + 1) * sizeof(*a->id));
    a->vid = malloc((n + 1) * sizeof(*a->vid));
    a->pool = malloc((n + 1) * 216);
    p = a->pool;
    for (size_t i = 0; i < n; i++) {
        a->id[i] = (uint32_t)(rng_next(r) % id_range);
        a->vid[i] = (uint32_t)rng_next(r);
        a->kv[i].f = p;
        a->kv[i].flen = field_of(a->id[i], p);
        p += a->kv[i].flen;
        a->kv[i].v = values ? p : NULL;
        a->kv[i].vlen = values ? value_of(a->vid[i], p) : 0;
        p += a->kv[i].vlen;
    }
}

static void args_free(struct args *a)
{
    free(a->kv);
    free(a->id);
    free(a->vid);
    free(a->pool);
}

/* The form holds the model's fields, in its order, with its values. */
static void expect_model(const uint8_t *form, size_t len, const struct model *md)
{
    struct store_hash_it it;
    struct store_hash_kv got;
    uint8_t f[16], v[256];
    uint64_t count;

    if (md->n == 0) {
        assert_int_equal(len, 0);
        return;
    }
    assert_int_equal(store_hash_open(form, len, &it, &count), TERSE_OK);
    assert_int_equal(count, md->n);
    for (size_t i = 0; i < md->n; i++) {
        uint32_t id = md->order[i];
        size_t fl = field_of(id, f), vl = value_of((uint32_t)md->val[id], v);

        assert_int_equal(store_hash_next(&it, &got), 1);
        assert_int_equal(got.flen, fl);
        assert_int_equal(got.vlen, vl);
        assert_memory_equal(got.f, f, fl);
        assert_memory_equal(got.v, v, vl);
    }
    assert_int_equal(store_hash_next(&it, &got), 0);
}

/* Sets, then deletions, in the model; the counts store_hash_edit must give. */
static void model_apply(struct model *md, const struct args *set, size_t n,
                        const struct args *del, size_t m, size_t *added, size_t *removed)
{
    bool *was = calloc(ID_MAX, sizeof(*was));
    size_t w = 0;

    assert_non_null(was);
    for (size_t i = 0; i < md->n; i++) {
        was[md->order[i]] = true;
    }
    *added = 0;
    *removed = 0;
    for (size_t i = 0; i < n; i++) {
        if (md->val[set->id[i]] < 0) {
            md->order[md->n++] = set->id[i];
        }
        md->val[set->id[i]] = set->vid[i];
    }
    for (size_t d = 0; d < m; d++) {
        if (md->val[del->id[d]] >= 0) {
            *removed += was[del->id[d]];
            md->val[del->id[d]] = -1;
        }
    }
    for (size_t i = 0; i < md->n; i++) {
        uint32_t id = md->order[i];

        if (md->val[id] >= 0) {
            md->order[w++] = id;
            *added += !was[id];
        }
    }
    free(was);
    md->n = w;
}

/* One random edit of sizes (n, m) over ids below id_range, on the model's hash. */
static void random_edit(struct rng *r, struct model *md, uint8_t **form, size_t *len, size_t n,
                        size_t m, uint32_t id_range)
{
    struct args set, del;
    size_t out_len, added, removed, want_added, want_removed;
    uint8_t *out;

    args_make(&set, r, n, id_range, true);
    args_make(&del, r, m, id_range, false);
    out = store_hash_fixture_edit(*form, *len, set.kv, n, del.kv, m, &out_len, &added, &removed);
    model_apply(md, &set, n, &del, m, &want_added, &want_removed);
    assert_int_equal(added, want_added);
    assert_int_equal(removed, want_removed);
    expect_model(out, out_len, md);
    free(*form);
    *form = out;
    *len = out_len;
    args_free(&set);
    args_free(&del);
}

static void test_random_edits_match_model(void **state)
{
    /* (n, m, id range): linear, one table, blocks (old and `set`, with and without the
     * in-old bitmap, many deletions), each a few times on a hash that carries over. */
    static const size_t sizes[][3] = {
        {3, 0, 8},        {5, 3, 12},       {0, 8, 12},     {8, 0, 16},    {2, 2, 4},
        {40, 10, 64},     {300, 50, 500},   {2000, 0, 3000}, {1000, 1560, 2000},
        {3000, 0, 4000},  {2000, 1000, 5000}, {9000, 100, 12000}, {10, 3000, 12000},
        {6000, 10, 20000}, {1, 1, 20000},   {9, 0, 20000},
    };
    struct model *md = malloc(sizeof(*md));
    struct rng r = {0x9e3779b97f4a7c15ull};
    uint8_t *form = NULL;
    size_t len = 0;

    (void)state;
    for (size_t i = 0; i < ID_MAX; i++) {
        md->val[i] = -1;
    }
    md->n = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            random_edit(&r, md, &form, &len, sizes[i][0], sizes[i][1], (uint32_t)sizes[i][2]);
        }
    }
    free(form);
    free(md);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hundred_thousand_fields),
        cmocka_unit_test(test_random_edits_match_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
