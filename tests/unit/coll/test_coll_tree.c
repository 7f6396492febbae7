/*
 * Unit tests for coll_tree: the counted B+tree of chunk descriptors.
 *
 * A model (a plain array of descriptors) receives the same random inserts, removals, count and
 * key changes as the tree; after every step the tree must verify (coll_tree_verify) and agree
 * with the model: the descriptors in order, seeks by rank and by key, ranks of positions, walks
 * both ways. The allocator can fail its Nth call: a failed insert leaves the tree as it was.
 */
#include "coll/coll_tree.h"

#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static long t_live;
static long t_calls;
static long t_fail_at = -1;

static void *t_alloc(void *opaque, size_t n)
{
    (void)opaque;
    if (t_calls++ == t_fail_at) {
        return NULL;
    }
    t_live++;
    return malloc(n);
}

static void t_free(void *opaque, void *p)
{
    (void)opaque;
    if (p != NULL) {
        t_live--;
    }
    free(p);
}

static const struct coll_alloc t_alloc_ops = {t_alloc, t_free, NULL};

/* Fake chunks: distinct non-NULL pointers, one per descriptor ever made. */
static uint8_t t_chunks[1 << 16];
static size_t t_next_chunk;

static struct coll_chunk *fake_chunk(void)
{
    return (struct coll_chunk *)(void *)&t_chunks[t_next_chunk++ % sizeof(t_chunks)];
}

#define MODEL_MAX 6000
struct model {
    struct coll_desc d[MODEL_MAX];
    size_t n;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int order(const struct coll_key *a, const struct coll_key *b)
{
    return a->k < b->k ? -1 : a->k > b->k ? 1 : (a->aux < b->aux ? -1 : a->aux > b->aux);
}

static int cmp_target(void *arg, const struct coll_key *key)
{
    return order(arg, key);
}

static struct coll_it nth(const struct coll_tree *t, size_t i)
{
    struct coll_it it = coll_tree_begin(t);
    while (i-- > 0 && coll_it_valid(&it)) {
        coll_tree_next(&it);
    }
    return it;
}

static void check_same(const struct coll_tree *t, const struct model *m, int keyed)
{
    struct coll_it it = coll_tree_begin(t);
    uint64_t total = 0;

    assert_int_equal(coll_tree_verify(t, keyed ? order : NULL), TERSE_OK);
    assert_int_equal(t->n_chunks, m->n);
    for (size_t i = 0; i < m->n; i++) {
        assert_true(coll_it_valid(&it));
        assert_ptr_equal(coll_tree_desc(&it)->chunk, m->d[i].chunk);
        assert_int_equal(coll_tree_desc(&it)->count, m->d[i].count);
        assert_int_equal(coll_tree_rank_of(&it), total);
        total += m->d[i].count;
        coll_tree_next(&it);
    }
    assert_false(coll_it_valid(&it));
    assert_int_equal(coll_tree_total(t), total);
    /* backwards */
    it = coll_tree_end(t);
    for (size_t i = m->n; i-- > 0;) {
        assert_true(coll_it_valid(&it));
        assert_ptr_equal(coll_tree_desc(&it)->chunk, m->d[i].chunk);
        coll_tree_prev(&it);
    }
    assert_false(coll_it_valid(&it));
}

static void check_seeks(const struct coll_tree *t, const struct model *m, int keyed)
{
    uint64_t total = coll_tree_total(t), within;
    struct coll_it it;

    for (int k = 0; k < 20 && total > 0; k++) {
        uint64_t r = rnd() % total, acc = 0;
        size_t i = 0;
        assert_true(coll_tree_seek_rank(t, r, &it, &within));
        while (acc + m->d[i].count <= r) {
            acc += m->d[i++].count;
        }
        assert_ptr_equal(coll_tree_desc(&it)->chunk, m->d[i].chunk);
        assert_int_equal(within, r - acc);
    }
    assert_false(coll_tree_seek_rank(t, total, &it, &within));
    if (keyed && m->n > 0) {
        for (int k = 0; k < 20; k++) {
            struct coll_key target = {rnd() % 1000000, 0};
            size_t want = 0;
            for (size_t i = 0; i < m->n; i++) {
                if (order(&m->d[i].key, &target) <= 0) {
                    want = i;
                }
            }
            assert_true(coll_tree_seek_key(t, cmp_target, &target, &it));
            assert_ptr_equal(coll_tree_desc(&it)->chunk, m->d[want].chunk);
        }
    }
}

static void model_insert(struct model *m, size_t i, const struct coll_desc *d)
{
    memmove(&m->d[i + 1], &m->d[i], (m->n - i) * sizeof(m->d[0]));
    m->d[i] = *d;
    m->n++;
}

static void model_remove(struct model *m, size_t i)
{
    memmove(&m->d[i], &m->d[i + 1], (m->n - i - 1) * sizeof(m->d[0]));
    m->n--;
}

/* A key between the neighbours' keys at position i (keyed trees stay ordered). */
static struct coll_key key_at(const struct model *m, size_t i)
{
    uint64_t lo = i > 0 ? m->d[i - 1].key.k : 0;
    uint64_t hi = i < m->n ? m->d[i].key.k : 1000000;
    struct coll_key k = {lo + (hi > lo ? rnd() % (hi - lo + 1) : 0), 0};
    if (k.k > hi) {
        k.k = hi;
    }
    return k;
}

static void run_random(int keyed, size_t steps, size_t max_n)
{
    static struct model m;
    struct coll_tree t;

    memset(&m, 0, sizeof(m));
    t_live = 0;
    coll_tree_init(&t, &t_alloc_ops);
    for (size_t s = 0; s < steps; s++) {
        unsigned op = (unsigned)(rnd() % 100);
        if ((op < 55 && m.n < max_n) || m.n == 0) {
            size_t i = m.n > 0 ? rnd() % (m.n + 1) : 0;
            struct coll_desc d = {fake_chunk(), (uint32_t)(1 + rnd() % 100), 64, {0, 0}};
            struct coll_it it = nth(&t, i);
            if (keyed) {
                d.key = key_at(&m, i);
            }
            assert_int_equal(coll_tree_insert(&t, &it, &d), TERSE_OK);
            assert_ptr_equal(coll_tree_desc(&it)->chunk, d.chunk);
            model_insert(&m, i, &d);
        } else if (op < 90) {
            size_t i = rnd() % m.n;
            struct coll_it it = nth(&t, i);
            coll_tree_remove(&t, &it);
            assert_false(coll_it_valid(&it));
            model_remove(&m, i);
        } else if (op < 96) {
            size_t i = rnd() % m.n;
            struct coll_it it = nth(&t, i);
            uint32_t c = (uint32_t)(1 + rnd() % 1000);
            coll_tree_set_count(&t, &it, c);
            m.d[i].count = c;
        } else {
            size_t i = rnd() % m.n;
            struct coll_it it = nth(&t, i);
            struct coll_key k = m.d[i].key;
            if (keyed) {
                model_remove(&m, i);
                k = key_at(&m, i);
                model_insert(&m, i, &(struct coll_desc){coll_tree_desc(&it)->chunk,
                                                        coll_tree_desc(&it)->count, 64, k});
            }
            coll_tree_set_key(&t, &it, &k);
        }
        if (s % 7 == 0 || m.n < 80) {
            check_same(&t, &m, keyed);
            check_seeks(&t, &m, keyed);
        }
    }
    check_same(&t, &m, keyed);
    coll_tree_deinit(&t);
    assert_int_equal(t.bytes, 0);
    assert_int_equal(t_live, 0);
}

static void test_random_positional(void **state)
{
    (void)state;
    run_random(0, 30000, 3000);
}

static void test_random_keyed(void **state)
{
    (void)state;
    run_random(1, 30000, 3000);
}

static void test_grow_and_drain(void **state)
{
    /* Four levels of nodes by appending, then removal from the front to empty: every merge. */
    struct coll_tree t;
    struct coll_it it;
    size_t n = (size_t)COLL_TREE_FAN * COLL_TREE_FAN * 4;

    (void)state;
    t_live = 0;
    coll_tree_init(&t, &t_alloc_ops);
    for (size_t i = 0; i < n; i++) {
        struct coll_desc d = {fake_chunk(), 2, 10, {i, 0}};
        it.leaf = NULL;
        assert_int_equal(coll_tree_insert(&t, &it, &d), TERSE_OK);
    }
    assert_int_equal(coll_tree_verify(&t, order), TERSE_OK);
    assert_int_equal(coll_tree_total(&t), 2 * n);
    for (size_t i = 0; i < n; i++) {
        it = coll_tree_begin(&t);
        assert_int_equal(coll_tree_desc(&it)->key.k, i);
        coll_tree_remove(&t, &it);
        if (i % 97 == 0) {
            assert_int_equal(coll_tree_verify(&t, order), TERSE_OK);
        }
    }
    assert_null(t.root);
    assert_int_equal(coll_tree_verify(&t, order), TERSE_OK);
    assert_int_equal(t_live, 0);
}

static void test_oom_insert_leaves_tree_unchanged(void **state)
{
    static struct model m;
    struct coll_tree t;

    (void)state;
    memset(&m, 0, sizeof(m));
    t_live = 0;
    t_fail_at = -1;
    coll_tree_init(&t, &t_alloc_ops);
    /* A tree big enough that inserts split leaves and inner nodes. */
    for (size_t i = 0; i < 2500; i++) {
        struct coll_desc d = {fake_chunk(), 1, 1, {0, 0}};
        struct coll_it it = nth(&t, i % (m.n + 1));
        assert_int_equal(coll_tree_insert(&t, &it, &d), TERSE_OK);
        model_insert(&m, i % (m.n + 1), &d);
    }
    for (int k = 0; k < 400; k++) {
        size_t i = rnd() % (m.n + 1);
        struct coll_desc d = {fake_chunk(), 3, 1, {0, 0}};
        struct coll_it it = nth(&t, i);
        t_calls = 0;
        t_fail_at = (long)(rnd() % 3);
        if (coll_tree_insert(&t, &it, &d) == TERSE_OK) {
            model_insert(&m, i, &d);
        }
        t_fail_at = -1;
        check_same(&t, &m, 0);
    }
    coll_tree_deinit(&t);
    assert_int_equal(t_live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_positional),
        cmocka_unit_test(test_random_keyed),
        cmocka_unit_test(test_grow_and_drain),
        cmocka_unit_test(test_oom_insert_leaves_tree_unchanged),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
