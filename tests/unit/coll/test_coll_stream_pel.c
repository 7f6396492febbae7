/*
 * Unit tests for coll_stream_pel: a chunked stream's groups' pending entries held in PELs
 * (coll_pel.h) chained from the stream, the meta keeping only the consumers' counts.
 *
 * A model stream (three nodes, two groups, a few hundred pending entries over three consumers)
 * is made chunked with tiny PEL chunks: the whole form written back (coll_stream_to_form) is the
 * model's form byte for byte, before and after a snapshot's round trip (the meta with the
 * pending entries inline, adopted and moved out again); the chain follows groups added and
 * dropped; and a PEL that disagrees with the meta (an entry of a consumer the group lacks, an
 * entry the counts miss, a PEL too few) fails verification.
 */
#include "coll/coll_pel.h"
#include "coll/coll_stream.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_stream.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define N_ENTS 30
#define N_PEL 300
#define CHUNK 64 /* PEL chunks of 32 bytes: one or two entries each */

static const uint8_t pairs[] = {1, 'f', 1, 'v'};

struct fix {
    struct coll_env *env;
    struct codec_ctx *codec;
    struct store_stream s;
    uint64_t mem_before;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));
    bool found;

    assert_non_null(f);
    f->mem_before = core_mem_used();
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    assert_int_equal(coll_env_create(&f->env), TERSE_OK);
    coll_env_set_codec(f->env, f->codec);
    store_stream_init(&f->s, NULL);
    for (uint64_t i = 1; i <= N_ENTS; i++) {
        struct store_stream_entry e = {{i, 0}, 1, pairs, sizeof(pairs)};
        assert_int_equal(store_stream_append(&f->s, &e, 10, UINT64_MAX), TERSE_OK);
    }
    f->s.last_id = (struct store_stream_id){N_ENTS, 0};
    f->s.entries_added = N_ENTS;
    for (int gi = 0; gi < 2; gi++) {
        const uint8_t *name = (const uint8_t *)(gi == 0 ? "g1" : "g2");
        size_t at = store_stream_group_find(&f->s, name, 2, &found);
        assert_int_equal(store_stream_group_insert(&f->s, at, name, 2,
                                                   (struct store_stream_id){N_ENTS, 0}, -1),
                         TERSE_OK);
    }
    for (int ci = 0; ci < 3; ci++) {
        static const char *const names[] = {"alice", "bob", "carol"};
        assert_int_equal(store_stream_consumer_insert(&f->s, &f->s.groups[0], (size_t)ci,
                                                      (const uint8_t *)names[ci],
                                                      strlen(names[ci]), 1000 + ci),
                         TERSE_OK);
    }
    for (uint64_t i = 0; i < N_PEL; i++) {
        struct store_stream_pending p = {{1 + i / 10, i % 10}, (size_t)(i * 7 % 3),
                                         (int64_t)(5000 + i), 1 + i % 4};
        assert_int_equal(store_stream_pel_insert(&f->s, &f->s.groups[0],
                                                 f->s.groups[0].n_pel, &p),
                         TERSE_OK);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;

    store_stream_deinit(&f->s);
    coll_env_destroy(&f->env);
    codec_ctx_destroy(&f->codec);
    assert_int_equal(core_mem_used(), f->mem_before);
    free(f);
    return 0;
}

/* The model's whole form (malloc'd). */
static uint8_t *model_form(const struct store_stream *s, size_t *len)
{
    size_t need = store_stream_size(s);
    uint8_t *out = malloc(need + 1);

    assert_non_null(out);
    assert_int_equal(store_stream_encode(s, out, need, len), TERSE_OK);
    return out;
}

/* c's whole form equals the model's, byte for byte. */
static void same_as_model(struct fix *f, struct coll *c)
{
    size_t want_len, got_len, cap = coll_stream_form_size(c);
    uint8_t *want = model_form(&f->s, &want_len), *got = malloc(cap + 1);

    assert_non_null(got);
    assert_int_equal(coll_stream_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_stream_to_form(f->env, c, got, cap, &got_len), TERSE_OK);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    free(want);
    free(got);
}

static void test_from_model_and_back(void **state)
{
    struct fix *f = *state;
    struct coll *c;

    assert_int_equal(coll_stream_from_model(f->env, &f->s, CHUNK, &c), TERSE_OK);
    assert_int_equal(coll_stream_n_pels(c), 2);
    assert_int_equal(coll_count(coll_stream_pel(c, 0)), N_PEL);
    assert_true(coll_stream_pel(c, 0)->tree.n_chunks >= N_PEL / 4); /* tiny chunks */
    assert_int_equal(coll_count(coll_stream_pel(c, 1)), 0);
    assert_null(coll_stream_pel(c, 2));
    same_as_model(f, c);
    /* compressed PEL chunks read back the same */
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    same_as_model(f, c);
    /* a copy carries its PELs; freeing either leaves the other whole */
    {
        struct coll *d;
        assert_int_equal(coll_copy(f->env, c, &d), TERSE_OK);
        assert_int_equal(coll_stream_n_pels(d), 2);
        assert_true(coll_stream_pel(d, 0) != coll_stream_pel(c, 0));
        coll_release(f->env, c);
        (void)coll_free_step(f->env, 0);
        same_as_model(f, d);
        coll_destroy(f->env, d);
    }
}

static void test_snapshot_round_trip(void **state)
{
    struct fix *f = *state;
    struct coll *c, *l;
    uint8_t *meta, *stored;
    size_t mlen, slen = 0;

    assert_int_equal(coll_stream_from_model(f->env, &f->s, CHUNK, &c), TERSE_OK);
    assert_int_equal(coll_stream_meta_full(f->env, c, &meta, &mlen), TERSE_OK);
    stored = malloc(codec_value_bound(mlen));
    assert_non_null(stored);
    assert_int_equal(codec_value_encode_raw(meta, mlen, stored, codec_value_bound(mlen), &slen),
                     TERSE_OK);
    /* a load: the meta as the snapshot holds it (pending entries inline), the nodes as held */
    assert_int_equal(coll_stream_create(f->env, CHUNK, &l), TERSE_OK);
    assert_int_equal(coll_stream_adopt_meta(f->env, l, stored, slen), TERSE_OK);
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        assert_int_equal(coll_adopt_chunk(f->env, l, d->chunk->data, d->chunk->len, d->count,
                                          &d->key),
                         TERSE_OK);
    }
    assert_int_equal(coll_stream_verify(f->env, l), TERSE_ECORRUPT); /* no PEL chain yet */
    assert_int_equal(coll_stream_adopt_pels(f->env, l), TERSE_OK);
    assert_int_equal(coll_count(coll_stream_pel(l, 0)), N_PEL);
    same_as_model(f, l);
    assert_true(l->meta->raw < mlen); /* the meta holds counts, not the entries */
    coll_stream_meta_full_free(meta);
    free(stored);
    coll_destroy(f->env, l);
    coll_destroy(f->env, c);
}

static void test_groups_added_and_dropped(void **state)
{
    struct fix *f = *state;
    struct coll *c, *p0;

    assert_int_equal(coll_stream_from_model(f->env, &f->s, CHUNK, &c), TERSE_OK);
    p0 = coll_stream_pel(c, 0);
    assert_int_equal(coll_stream_pel_add(f->env, c, 0), TERSE_OK); /* a group before g1 */
    assert_int_equal(coll_stream_n_pels(c), 3);
    assert_ptr_equal(coll_stream_pel(c, 1), p0);
    assert_int_equal(coll_stream_pel_add(f->env, c, 4), TERSE_EINVAL);
    coll_stream_pel_drop(f->env, c, 0);
    assert_ptr_equal(coll_stream_pel(c, 0), p0);
    same_as_model(f, c);
    coll_stream_pel_drop(f->env, c, 0); /* g1's PEL of 300: released (lazy free) */
    (void)coll_free_step(f->env, 0);
    assert_int_equal(coll_stream_n_pels(c), 1);
    assert_int_equal(coll_stream_verify(f->env, c), TERSE_ECORRUPT); /* the meta has 2 groups */
    coll_destroy(f->env, c);
}

static void test_disagreement_refused(void **state)
{
    struct fix *f = *state;
    struct coll *c;
    struct coll_pel_rec r = {{999, 0}, (const uint8_t *)"mallory", 7, 1, 1};
    bool found;

    /* an entry of a consumer the group does not have */
    assert_int_equal(coll_stream_from_model(f->env, &f->s, CHUNK, &c), TERSE_OK);
    assert_int_equal(coll_pel_put(f->env, coll_stream_pel(c, 0), &r, NULL), TERSE_OK);
    assert_int_equal(coll_stream_verify(f->env, c), TERSE_ECORRUPT);
    {
        uint8_t *meta;
        size_t mlen;
        assert_int_equal(coll_stream_meta_full(f->env, c, &meta, &mlen), TERSE_ECORRUPT);
    }
    assert_int_equal(coll_pel_del(f->env, coll_stream_pel(c, 0), &r.id, &found), TERSE_OK);
    assert_true(found);
    assert_int_equal(coll_stream_verify(f->env, c), TERSE_OK);
    /* an entry the counts do not know (alice's, one more than the meta says) */
    r.name = (const uint8_t *)"alice";
    r.name_len = 5;
    assert_int_equal(coll_pel_put(f->env, coll_stream_pel(c, 0), &r, NULL), TERSE_OK);
    assert_int_equal(coll_stream_verify(f->env, c), TERSE_ECORRUPT);
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_from_model_and_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_groups_added_and_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disagreement_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
