/*
 * Unit tests for coll_pel: a consumer group's pending entries as a chunked container (1/2).
 *
 * A model (a sorted array of records, coll_pel_fixture.h) takes the same random puts (appends
 * past every ID, inserts between IDs, replacements), deletes (present and absent), seeks and
 * chunk reads as PELs with tiny chunks (chunk_max 64 and 256, so chunks split and merge all
 * the time) and a roomier one with compression steps in between; each edit checks the size
 * rules as it happens (a new last chunk for an append that does not fit, a split for an insert
 * that does not fit, a merge for a delete that leaves a chunk under chunk_max / 8 beside one it
 * fits with); after each step the PEL verifies, every record read chunk by chunk equals the
 * model's, and no chunk holds more than chunk_max / 2 raw bytes unless it holds one record.
 * Then: bulk builds of 0, 1 and 10,000 records (filled chunks; unordered records refused), and
 * compressed chunks read and edit back the same.
 */
#include "coll/coll_pel.h"

#include "coll_pel_fixture.h"

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void random_run(struct pfx_fix *f, uint32_t chunk_max, int steps, size_t long_name,
                       bool compress)
{
    struct coll *c;
    struct pfx_model *m = &f->m;

    m->n = 0;
    assert_int_equal(coll_pel_create(f->env, chunk_max, &c), TERSE_OK);
    for (int k = 0; k < steps; k++) {
        unsigned op = (unsigned)(pfx_rnd() % 100);
        bool growing = (k / 1500) % 2 == 0; /* phases: grow (splits), then shrink (merges) */
        struct pfx_rec r;

        if (op < (growing ? 70u : 20u)) {
            pfx_make_rec(&r, pfx_pick_id(m, (unsigned)(pfx_rnd() % 5) % 3), long_name);
            pfx_put(f, c, &r);
        } else if (op < 80u) {
            pfx_del(f, c, pfx_pick_id(m, pfx_rnd() % 4 == 0 ? 2 : 1));
        } else if (op < 90) {
            struct store_stream_id id = pfx_pick_id(m, (unsigned)(pfx_rnd() % 3));
            uint64_t rank;
            bool found;
            size_t i = pfx_lower(m, &id);
            assert_int_equal(coll_pel_seek(f->env, c, &id, &rank, &found), TERSE_OK);
            assert_int_equal(rank, i);
            assert_int_equal(found, i < m->n && pfx_id_cmp(&m->r[i].id, &id) == 0);
        } else if (m->n > 0) {
            uint64_t at = pfx_rnd() % m->n;
            struct coll_pel_chunk ch;
            assert_int_equal(coll_pel_read_chunk(f->env, c, at, &ch, &f->recs, &f->cap),
                             TERSE_OK);
            assert_true(ch.first_rank <= at && at < ch.first_rank + ch.n);
            for (size_t i = 0; i < ch.n; i++) {
                pfx_expect_rec(&f->recs[i], &m->r[ch.first_rank + i]);
            }
        }
        if (compress && k % 50 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        pfx_check_all(f, c);
    }
    while (m->n > 0) {
        pfx_del(f, c, m->r[pfx_rnd() % m->n].id);
        if (m->n % 16 == 0) {
            pfx_check_all(f, c);
        }
    }
    pfx_check_all(f, c);
    assert_int_equal(c->tree.n_chunks, 0);
    coll_destroy(f->env, c);
}

static void test_random_64(void **state)
{
    random_run(*state, 64, 10000, 40, false);
}

static void test_random_256(void **state)
{
    random_run(*state, 256, 10000, 150, false);
}

static void test_random_compressed(void **state)
{
    random_run(*state, 4096, 4000, 180, true);
}

static void test_from_recs(void **state)
{
    struct pfx_fix *f = *state;
    static const size_t sizes[] = {0, 1, 10000};
    struct coll *c;

    for (size_t s = 0; s < 3; s++) {
        struct coll_pel_rec *v;
        pfx_fill_model(&f->m, sizes[s]);
        v = pfx_model_views(&f->m);
        assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 256, &c), TERSE_OK);
        pfx_check_all(f, c);
        for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it);
             coll_tree_next(&it)) {
            struct coll_it nx = it;
            coll_tree_next(&nx);
            if (coll_it_valid(&nx)) { /* filled: the next chunk's first record did not fit */
                uint64_t first = coll_tree_rank_of(&nx);
                const struct coll_desc *d = coll_tree_desc(&it);
                struct coll_pel_rec r = v[first];
                size_t rsz = codec_varint_len(r.id.ms) + codec_varint_len(r.id.seq) +
                             codec_varint_len(r.name_len) + r.name_len +
                             codec_varint_len((uint64_t)r.delivery_ms) +
                             codec_varint_len(r.delivery_count);
                assert_true(d->raw_len - codec_varint_len(d->count) +
                                codec_varint_len(d->count + 1) + rsz >
                            128);
            }
        }
        coll_destroy(f->env, c);
        if (f->m.n > 1) { /* not increasing: refused */
            v[1].id = v[0].id;
            c = (struct coll *)&c;
            assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 256, &c), TERSE_EINVAL);
            assert_null(c);
        }
        free(v);
    }
    assert_int_equal(coll_pel_from_recs(f->env, NULL, 0, 0, &c), TERSE_EINVAL);
    assert_int_equal(coll_pel_create(f->env, 0, &c), TERSE_EINVAL);
}

/* Compressed chunks: every record still reads back after a full pass; edits on them too. */
static void test_compressed(void **state)
{
    struct pfx_fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;
    struct coll_env_stats st;
    size_t compressed = 0;

    pfx_fill_model(&f->m, 5000);
    v = pfx_model_views(&f->m);
    assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 8192, &c), TERSE_OK);
    free(v);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_pending, 0);
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        struct codec_value_info info;
        const struct coll_chunk *ch = coll_tree_desc(&it)->chunk;
        assert_int_equal(codec_value_info(ch->data, ch->len, &info), TERSE_OK);
        compressed += info.kind != CODEC_RAW;
    }
    assert_true(compressed > 0);
    pfx_check_all(f, c);
    for (int k = 0; k < 500; k++) {
        struct pfx_rec nr;
        if (k % 2 == 0) {
            pfx_make_rec(&nr, pfx_pick_id(&f->m, (unsigned)(pfx_rnd() % 3)), 100);
            pfx_put(f, c, &nr);
        } else {
            pfx_del(f, c, pfx_pick_id(&f->m, 1));
        }
        if (k % 100 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            pfx_check_all(f, c);
        }
    }
    pfx_check_all(f, c);
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_64, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_256, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_compressed, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_from_recs, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_compressed, pfx_setup, pfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
