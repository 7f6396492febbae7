/*
 * Unit tests of the stream form (store_stream.c): the empty stream and a full one (entries,
 * groups, consumers, pending entries, binary and empty bytes) round-trip byte for byte; the
 * encoder is bounded by its cap; every truncation of a form and every kind of structural
 * corruption (order, counts, consumer index, version, bytes left over) is TERSE_ECORRUPT;
 * every single-byte change is refused or decodes to a model that encodes back to exactly those
 * bytes (one spelling per model); the edits (seek, appends filling nodes, removals emptying
 * them, groups, consumers and their pending entries) keep the invariants; an allocator that fails at each call in turn makes decode
 * return TERSE_ENOMEM and leak nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/codec_varint.h"
#include "store/form/store_stream.h"
#include "terse/status.h"

/* ---- a counting allocator that can fail its Nth call ---------------------------------------- */

struct fail_alloc {
    long fail_at; /* the call that fails (0-based); -1: never */
    long calls;
    long live;    /* blocks not yet freed */
};

static void *fa_alloc(void *opaque, size_t n)
{
    struct fail_alloc *f = opaque;

    if (f->calls++ == f->fail_at) {
        return NULL;
    }
    f->live++;
    return malloc(n);
}

static void fa_free(void *opaque, void *p)
{
    struct fail_alloc *f = opaque;

    if (p != NULL) {
        f->live--;
        free(p);
    }
}

/* ---- building models ------------------------------------------------------------------------ */

/* Writes (len | bytes) pairs of the n strings of kv into out: the pairs of an entry. */
static size_t pairs_make(uint8_t *out, const char *const *kv, const size_t *lens, size_t n)
{
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        len += codec_varint_put(out + len, lens[i]);
        memcpy(out + len, kv[i], lens[i]);
        len += lens[i];
    }
    return len;
}

static uint8_t pairs_buf[3][64];

/* A model with three entries (one with a binary field and an empty value), two groups, the
 * second with three consumers and four pending entries. */
static void model_full(struct store_stream *s, const terse_allocator *a)
{
    static const char *const kv0[] = {"a", "1", "b", "2"};
    static const size_t l0[] = {1, 1, 1, 1};
    static const char *const kv1[] = {"f\0x", ""};
    static const size_t l1[] = {3, 0};
    static const char *const kv2[] = {"\r\n", "\xff\xfe"};
    static const size_t l2[] = {2, 2};
    struct store_stream_entry e;
    struct store_stream_group *g;
    bool found;

    store_stream_init(s, a);
    e = (struct store_stream_entry){{1, 1}, 2, pairs_buf[0], pairs_make(pairs_buf[0], kv0, l0, 4)};
    assert_int_equal(store_stream_append(s, &e, 2, UINT64_MAX), TERSE_OK);
    e = (struct store_stream_entry){{1, 5}, 1, pairs_buf[1], pairs_make(pairs_buf[1], kv1, l1, 2)};
    assert_int_equal(store_stream_append(s, &e, 2, UINT64_MAX), TERSE_OK);
    e = (struct store_stream_entry){{UINT64_MAX - 1, UINT64_MAX}, 1, pairs_buf[2],
                                    pairs_make(pairs_buf[2], kv2, l2, 2)};
    assert_int_equal(store_stream_append(s, &e, 2, UINT64_MAX), TERSE_OK);
    s->last_id = (struct store_stream_id){UINT64_MAX, 3};
    s->entries_added = 7;
    s->max_deleted = (struct store_stream_id){1, 3};
    assert_int_equal(store_stream_group_insert(s, store_stream_group_find(s, (const uint8_t *)"zz",
                                                                          2, &found),
                                               (const uint8_t *)"zz", 2,
                                               (struct store_stream_id){1, 1}, -1),
                     TERSE_OK);
    assert_int_equal(store_stream_group_insert(s, store_stream_group_find(s, (const uint8_t *)"g",
                                                                          1, &found),
                                               (const uint8_t *)"g", 1,
                                               (struct store_stream_id){1, 5}, 2),
                     TERSE_OK);
    assert_true(s->n_groups == 2 && s->groups[0].name_len == 1);
    g = &s->groups[0];
    assert_int_equal(store_stream_consumer_insert(s, g, 0, (const uint8_t *)"c2", 2, 1000),
                     TERSE_OK);
    for (int i = 0; i < 4; i++) {
        struct store_stream_pending p = {{1, (uint64_t)i}, 0, -5 + i, (uint64_t)i + 1};
        bool there;
        assert_int_equal(store_stream_pel_insert(s, g, store_stream_pel_find(g, &p.id, &there), &p),
                         TERSE_OK);
    }
    /* c1 goes before c2: every pending entry's consumer index moves with it */
    assert_int_equal(store_stream_consumer_insert(s, g, 0, (const uint8_t *)"c1", 2,
                                                  INT64_MAX),
                     TERSE_OK);
    assert_int_equal(store_stream_consumer_insert(s, g, 2, (const uint8_t *)"c2x", 3, 0),
                     TERSE_OK);
    {
        struct store_stream_pending p = g->pel[3];
        p.consumer = 0; /* to c1: the counts follow (c1 1, c2 3) */
        store_stream_pel_set(g, 3, &p);
    }
    assert_int_equal(store_stream_consumer_pending(g, 0), 1);
    assert_int_equal(store_stream_consumer_pending(g, 1), 3);
    assert_int_equal(store_stream_consumer_pending(g, 2), 0);
}

static uint8_t *encode_whole(const struct store_stream *s, size_t *len)
{
    size_t need = store_stream_size(s);
    uint8_t *out = malloc(need + 1);

    assert_non_null(out);
    assert_int_equal(store_stream_encode(s, out, need, len), TERSE_OK);
    assert_int_equal(*len, need);
    return out;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_empty_round_trip(void **state)
{
    struct store_stream s, d;
    uint8_t buf[64];
    size_t len;

    (void)state;
    store_stream_init(&s, NULL);
    assert_int_equal(store_stream_encode(&s, buf, sizeof(buf), &len), TERSE_OK);
    assert_int_equal(len, store_stream_size(&s));
    assert_int_equal(store_stream_encode(&s, buf, len - 1, &len), TERSE_ETOOBIG);
    assert_int_equal(store_stream_encode(&s, buf, sizeof(buf), &len), TERSE_OK);
    assert_int_equal(store_stream_decode(&d, NULL, buf, len), TERSE_OK);
    assert_int_equal(d.n_ents, 0);
    assert_int_equal(d.n_groups, 0);
    assert_int_equal(store_stream_decode(&d, NULL, NULL, 0), TERSE_ECORRUPT);
    assert_int_equal(store_stream_decode(&d, NULL, buf, 0), TERSE_ECORRUPT);
    store_stream_deinit(&d);
    store_stream_deinit(&s);
}

static void test_full_round_trip(void **state)
{
    struct store_stream s, d;
    uint8_t *form, *again;
    size_t len, len2;
    const struct store_stream_group *g;

    (void)state;
    model_full(&s, NULL);
    form = encode_whole(&s, &len);
    assert_int_equal(store_stream_encode(&s, form, len - 1, &len2), TERSE_ETOOBIG);
    assert_int_equal(store_stream_encode(&s, form, len, &len2), TERSE_OK);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_OK);
    assert_int_equal(d.n_ents, 3);
    assert_int_equal(d.n_nodes, 2); /* nodes of two slots: the third entry starts one */
    assert_int_equal(d.nodes[0].live, 2);
    assert_int_equal(d.nodes[1].slots, 1);
    assert_true(d.ents[2].id.ms == UINT64_MAX - 1 && d.ents[2].id.seq == UINT64_MAX);
    assert_true(d.last_id.ms == UINT64_MAX && d.last_id.seq == 3);
    assert_int_equal(d.entries_added, 7);
    assert_int_equal(d.ents[1].n_pairs, 1);
    assert_memory_equal(d.ents[1].pairs, s.ents[1].pairs, s.ents[1].pairs_len);
    assert_int_equal(d.n_groups, 2);
    g = &d.groups[0];
    assert_int_equal(g->entries_read, 2);
    assert_int_equal(d.groups[1].entries_read, -1);
    assert_int_equal(g->n_cons, 3);
    assert_memory_equal(g->cons[2].name, "c2x", 3);
    assert_int_equal(g->cons[0].seen_ms, INT64_MAX);
    assert_int_equal(g->n_pel, 4);
    assert_int_equal(g->pel[0].consumer, 1);
    assert_int_equal(g->pel[3].consumer, 0);
    assert_int_equal(g->pel[0].delivery_ms, -5);
    assert_int_equal(store_stream_consumer_pending(g, 1), 3);
    again = encode_whole(&d, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(again, form, len);
    free(again);
    free(form);
    store_stream_deinit(&d);
    store_stream_deinit(&s);
}

static void test_truncations_and_changes(void **state)
{
    struct store_stream s, d;
    uint8_t *form, *copy;
    size_t len;

    (void)state;
    model_full(&s, NULL);
    form = encode_whole(&s, &len);
    for (size_t cut = 0; cut < len; cut++) {
        copy = malloc(cut + 1);
        memcpy(copy, form, cut);
        assert_int_equal(store_stream_decode(&d, NULL, copy, cut), TERSE_ECORRUPT);
        free(copy);
    }
    copy = malloc(len + 1);
    memcpy(copy, form, len);
    copy[len] = 0;
    assert_int_equal(store_stream_decode(&d, NULL, copy, len + 1), TERSE_ECORRUPT);
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, form, len);
            copy[i] ^= (uint8_t)(1u << bit);
            int st = store_stream_decode(&d, NULL, copy, len);
            if (st == TERSE_OK) {
                size_t len2;
                uint8_t *again = encode_whole(&d, &len2);
                assert_int_equal(len2, len);
                assert_memory_equal(again, copy, len);
                free(again);
            } else {
                assert_int_equal(st, TERSE_ECORRUPT);
            }
            store_stream_deinit(&d);
        }
    }
    free(copy);
    free(form);
    store_stream_deinit(&s);
}

/* A form edited into a broken one by f must be refused. */
static void refused(void (*f)(struct store_stream *s))
{
    struct store_stream s, d;
    uint8_t *form;
    size_t len;

    model_full(&s, NULL);
    f(&s);
    form = malloc(store_stream_size(&s));
    /* the encoder writes what it is given; the decoder must catch it */
    assert_int_equal(store_stream_encode(&s, form, store_stream_size(&s), &len), TERSE_OK);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_ECORRUPT);
    free(form);
    store_stream_deinit(&s);
}

static void swap_entries(struct store_stream *s)
{
    struct store_stream_entry t = s->ents[0];

    s->ents[0] = s->ents[1];
    s->ents[1] = t;
}

static void dup_entry(struct store_stream *s)
{
    s->ents[1].id = s->ents[0].id;
}

static void entry_past_last(struct store_stream *s)
{
    s->last_id = (struct store_stream_id){1, 6};
}

static void swap_groups(struct store_stream *s)
{
    struct store_stream_group t = s->groups[0];

    s->groups[0] = s->groups[1];
    s->groups[1] = t;
}

static void dup_consumer(struct store_stream *s)
{
    s->groups[0].cons[1].name = s->groups[0].cons[0].name;
}

static void bad_consumer_index(struct store_stream *s)
{
    s->groups[0].pel[2].consumer = 3;
}

static void pel_order(struct store_stream *s)
{
    s->groups[0].pel[2].id = s->groups[0].pel[1].id;
}

static void no_pairs(struct store_stream *s)
{
    s->ents[1].n_pairs = 0;
    s->ents[1].pairs_len = 0;
}

static void node_sum_short(struct store_stream *s)
{
    s->nodes[1].live = 0; /* one entry in no node, and an empty node */
}

static void node_sum_long(struct store_stream *s)
{
    s->nodes[1].live = 2;
    s->nodes[1].slots = 2;
}

static void node_slots_short(struct store_stream *s)
{
    s->nodes[0].slots = 1;
}

static void test_structure_refused(void **state)
{
    uint8_t bad_version[] = {STORE_STREAM_VERSION + 1, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t v1[] = {1, 0, 0, 0, 0, 0, 0, 0, 0}; /* version 1 forms (no node sizes) still load */
    uint8_t ok[] = {STORE_STREAM_VERSION, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t huge_count[] = {STORE_STREAM_VERSION, 0, 0, 0, 0, 0, 0x80, 0x80, 0x01, 0, 0};
    /* the smallest group: empty name, IDs 0-0, read counter unknown, no consumer, nothing
     * pending: six bytes, the count's bound (a seventh would refuse this sound form) */
    uint8_t small_group[] = {STORE_STREAM_VERSION, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    uint8_t long_varint[] = {STORE_STREAM_VERSION, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0};
    struct store_stream d;

    (void)state;
    refused(swap_entries);
    refused(dup_entry);
    refused(entry_past_last);
    refused(swap_groups);
    refused(dup_consumer);
    refused(bad_consumer_index);
    refused(pel_order);
    refused(no_pairs);
    refused(node_sum_short);
    refused(node_sum_long);
    refused(node_slots_short);
    assert_int_equal(store_stream_decode(&d, NULL, ok, sizeof(ok)), TERSE_OK);
    store_stream_deinit(&d);
    assert_int_equal(store_stream_decode(&d, NULL, v1, sizeof(v1)), TERSE_OK);
    store_stream_deinit(&d);
    assert_int_equal(store_stream_decode(&d, NULL, small_group, sizeof(small_group)), TERSE_OK);
    assert_int_equal(d.n_groups, 1);
    assert_int_equal(d.groups[0].entries_read, -1);
    store_stream_deinit(&d);
    assert_int_equal(store_stream_decode(&d, NULL, bad_version, sizeof(bad_version)),
                     TERSE_ECORRUPT);
    assert_int_equal(store_stream_decode(&d, NULL, huge_count, sizeof(huge_count)),
                     TERSE_ECORRUPT);
    assert_int_equal(store_stream_decode(&d, NULL, long_varint, sizeof(long_varint)),
                     TERSE_ECORRUPT);
}

static void test_edits(void **state)
{
    struct store_stream s;
    struct store_stream_group *g;
    struct store_stream_id id = {1, 2};
    size_t pending;
    bool found;

    (void)state;
    model_full(&s, NULL);
    assert_int_equal(store_stream_seek(&s, &id), 1);
    id = (struct store_stream_id){0, 0};
    assert_int_equal(store_stream_seek(&s, &id), 0);
    id = (struct store_stream_id){UINT64_MAX, UINT64_MAX};
    assert_int_equal(store_stream_seek(&s, &id), 3);
    store_stream_remove(&s, 1, 1); /* inside the first node: it keeps its two slots */
    assert_int_equal(s.n_nodes, 2);
    assert_true(s.nodes[0].live == 1 && s.nodes[0].slots == 2);
    store_stream_remove(&s, 0, 1); /* its last entry: the node goes */
    assert_int_equal(s.n_ents, 1);
    assert_int_equal(s.n_nodes, 1);
    assert_true(s.ents[0].id.ms == UINT64_MAX - 1);
    g = &s.groups[0];
    assert_int_equal(store_stream_consumer_find(g, (const uint8_t *)"c2", 2, &found), 1);
    assert_true(found);
    assert_int_equal(store_stream_consumer_find(g, (const uint8_t *)"c", 1, &found), 0);
    assert_false(found);
    store_stream_consumer_remove(g, 1, &pending); /* c2: three pending entries go */
    assert_int_equal(pending, 3);
    assert_int_equal(g->n_cons, 2);
    assert_int_equal(g->n_pel, 1);
    assert_int_equal(g->pel[0].consumer, 0);
    store_stream_consumer_remove(g, 1, &pending); /* c2x, nothing pending; c1's index stays */
    assert_int_equal(pending, 0);
    assert_int_equal(g->pel[0].consumer, 0);
    store_stream_pel_remove(g, 0);
    assert_int_equal(g->n_pel, 0);
    assert_int_equal(store_stream_group_find(&s, (const uint8_t *)"zz", 2, &found), 1);
    assert_true(found);
    store_stream_group_remove(&s, 0);
    assert_int_equal(s.n_groups, 1);
    assert_memory_equal(s.groups[0].name, "zz", 2);
    assert_true(store_stream_name_cmp((const uint8_t *)"a", 1, (const uint8_t *)"ab", 2) < 0);
    assert_true(store_stream_name_cmp((const uint8_t *)"b", 1, (const uint8_t *)"ab", 2) > 0);
    assert_true(store_stream_name_cmp(NULL, 0, NULL, 0) == 0);
    store_stream_deinit(&s);
}

/* Version 3's consumer counts: checked against the pending list; a meta (the list held
 * apart) keeps them as they are; a count off by one is refused either way. */
static void test_pending_counts(void **state)
{
    struct store_stream s, d;
    uint8_t *form;
    size_t len, n_pel;

    (void)state;
    model_full(&s, NULL);
    form = encode_whole(&s, &len);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_OK);
    assert_int_equal(store_stream_consumer_pending(&d.groups[0], 0), 1);
    assert_int_equal(store_stream_consumer_pending(&d.groups[0], 1), 3);
    store_stream_deinit(&d);
    free(form);
    /* the list left out, the counts kept: a meta's form */
    n_pel = s.groups[0].n_pel;
    s.groups[0].n_pel = 0;
    form = encode_whole(&s, &len);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_ECORRUPT);
    assert_int_equal(store_stream_decode_meta(&d, NULL, form, len), TERSE_OK);
    assert_int_equal(d.groups[0].n_pel, 0);
    assert_int_equal(store_stream_consumer_pending(&d.groups[0], 1), 3);
    store_stream_deinit(&d);
    free(form);
    s.groups[0].n_pel = n_pel;
    s.groups[0].cons[2].n_pending++; /* c2x counts one it does not have */
    form = encode_whole(&s, &len);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_ECORRUPT);
    assert_int_equal(store_stream_decode_meta(&d, NULL, form, len), TERSE_ECORRUPT);
    free(form);
    s.groups[0].cons[2].n_pending--;
    s.groups[0].cons[1].n_pending--;
    s.groups[0].cons[2].n_pending++; /* the right total, the wrong consumer */
    form = encode_whole(&s, &len);
    assert_int_equal(store_stream_decode(&d, NULL, form, len), TERSE_ECORRUPT);
    free(form);
    store_stream_deinit(&s);
}

static void test_decode_oom(void **state)
{
    struct store_stream s, d;
    uint8_t *form;
    size_t len;
    long calls;

    (void)state;
    model_full(&s, NULL);
    form = encode_whole(&s, &len);
    {
        struct fail_alloc f = {-1, 0, 0};
        terse_allocator a = {fa_alloc, fa_free, &f};
        assert_int_equal(store_stream_decode(&d, &a, form, len), TERSE_OK);
        calls = f.calls;
        store_stream_deinit(&d);
        assert_int_equal(f.live, 0);
    }
    assert_true(calls > 0);
    for (long n = 0; n < calls; n++) {
        struct fail_alloc f = {n, 0, 0};
        terse_allocator a = {fa_alloc, fa_free, &f};
        assert_int_equal(store_stream_decode(&d, &a, form, len), TERSE_ENOMEM);
        assert_int_equal(d.n_ents, 0);
        store_stream_deinit(&d);
        assert_int_equal(f.live, 0);
    }
    free(form);
    store_stream_deinit(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_round_trip),
        cmocka_unit_test(test_full_round_trip),
        cmocka_unit_test(test_truncations_and_changes),
        cmocka_unit_test(test_structure_refused),
        cmocka_unit_test(test_edits),
        cmocka_unit_test(test_pending_counts),
        cmocka_unit_test(test_decode_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
