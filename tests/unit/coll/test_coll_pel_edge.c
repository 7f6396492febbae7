/*
 * Unit tests for coll_pel: a consumer group's pending entries as a chunked container (2/2: the
 * edges).
 *
 * Bad forms under a descriptor (a count, a key that disagree, IDs out of order, a byte left
 * over, a record cut short) and a flipped byte in a RAW or a compressed chunk answer
 * TERSE_ECORRUPT (counted) to every read and to every write of that chunk, which change
 * nothing, while other chunks still answer; each allocation of a bulk build, a put and a
 * delete failing in turn answers TERSE_ENOMEM, leaves the PEL as it was (it verifies and
 * equals the model) and leaks nothing.
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

/* A chunk form of the model's records [a, b) into buf: its length. */
static size_t form_of(const struct pfx_model *m, size_t a, size_t b, uint8_t *buf)
{
    uint8_t *p = buf + codec_varint_put(buf, b - a);

    for (size_t i = a; i < b; i++) {
        const struct pfx_rec *r = &m->r[i];
        p += codec_varint_put(p, r->id.ms);
        p += codec_varint_put(p, r->id.seq);
        p += codec_varint_put(p, r->nlen);
        memcpy(p, r->name, r->nlen);
        p += r->nlen;
        p += codec_varint_put(p, (uint64_t)r->dms);
        p += codec_varint_put(p, r->dcount);
    }
    return (size_t)(p - buf);
}

/* A PEL of one adopted chunk of form (len bytes), count and key as given. */
static struct coll *adopt_one(struct pfx_fix *f, const uint8_t *form, size_t len, uint32_t count,
                              struct store_stream_id key)
{
    uint8_t stored[4096];
    size_t slen;
    struct coll *c;
    struct coll_key k = {key.ms, key.seq};

    assert_int_equal(codec_value_encode_raw(form, len, stored, sizeof(stored), &slen), TERSE_OK);
    assert_int_equal(coll_pel_create(f->env, 4096, &c), TERSE_OK);
    assert_int_equal(coll_adopt_chunk(f->env, c, stored, slen, count, &k), TERSE_OK);
    return c;
}

/* Every read of c fails TERSE_ECORRUPT (counted), every write to it too, changing nothing. */
static void expect_corrupt(struct pfx_fix *f, struct coll *c, struct store_stream_id in)
{
    struct coll_env_stats before, after;
    struct coll_pel_chunk ch;
    struct coll_pel_rec r = {in, (const uint8_t *)"x", 1, 5, 1};
    uint64_t rank, count = coll_count(c), raw = c->raw;
    bool found, replaced;

    coll_env_stats_get(f->env, &before);
    assert_int_equal(coll_pel_verify(f->env, c), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_read_chunk(f->env, c, 0, &ch, &f->recs, &f->cap), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_seek(f->env, c, &in, &rank, &found), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_put(f->env, c, &r, &replaced), TERSE_ECORRUPT);
    assert_int_equal(coll_pel_del(f->env, c, &in, &found), TERSE_ECORRUPT);
    coll_env_stats_get(f->env, &after);
    assert_true(after.n_corrupt >= before.n_corrupt + 5);
    assert_int_equal(coll_count(c), count);
    assert_int_equal(c->raw, raw);
}

static void test_bad_forms(void **state)
{
    struct pfx_fix *f = *state;
    uint8_t form[2048];
    size_t len;
    struct coll *c;
    struct store_stream_id first;

    pfx_fill_model(&f->m, 5);
    first = f->m.r[0].id;
    len = form_of(&f->m, 0, 5, form);
    c = adopt_one(f, form, len, 5, first); /* a good one: verifies */
    assert_int_equal(coll_pel_verify(f->env, c), TERSE_OK);
    coll_destroy(f->env, c);
    c = adopt_one(f, form, len, 4, first); /* count disagrees */
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    c = adopt_one(f, form, len, 5, f->m.r[1].id); /* key disagrees */
    expect_corrupt(f, c, f->m.r[1].id);
    coll_destroy(f->env, c);
    form[len] = 0; /* a byte left over */
    c = adopt_one(f, form, len + 1, 5, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    f->m.r[3].id = f->m.r[2].id; /* IDs not increasing */
    len = form_of(&f->m, 0, 5, form);
    c = adopt_one(f, form, len, 5, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
    len = form_of(&f->m, 0, 2, form); /* truncated: a record cut */
    c = adopt_one(f, form, len - 1, 2, first);
    expect_corrupt(f, c, first);
    coll_destroy(f->env, c);
}

/* A flipped byte in one chunk: reads and writes of it fail and change nothing; other chunks
 * still answer; the byte flipped back, the PEL is as it was. RAW, then compressed. */
static void test_flipped_byte(void **state)
{
    struct pfx_fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;

    pfx_fill_model(&f->m, 3000);
    v = pfx_model_views(&f->m);
    assert_int_equal(coll_pel_from_recs(f->env, v, f->m.n, 1024, &c), TERSE_OK);
    free(v);
    for (int round = 0; round < 2; round++) {
        struct coll_it it;
        uint64_t within, rank = f->m.n / 2, other;
        struct coll_chunk *ch;
        uint32_t at;
        struct coll_pel_chunk pc;

        if (round == 1) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        assert_true(coll_tree_seek_rank(&c->tree, rank, &it, &within));
        ch = coll_tree_desc(&it)->chunk;
        at = ch->len - 1 - (uint32_t)(pfx_rnd() % (ch->len / 2));
        ch->data[at] ^= 0x20;
        rank -= within;
        other = rank == 0 ? coll_tree_desc(&it)->count : 0;
        {
            struct coll_env_stats before, after;
            uint64_t r2;
            bool found, replaced;
            struct pfx_rec nr;
            struct coll_pel_rec pr;
            pfx_make_rec(&nr, f->m.r[rank + 1].id, 10);
            pr = pfx_view_of(&nr);
            coll_env_stats_get(f->env, &before);
            assert_int_equal(coll_pel_read_chunk(f->env, c, rank, &pc, &f->recs, &f->cap),
                             TERSE_ECORRUPT);
            assert_int_equal(coll_pel_seek(f->env, c, &f->m.r[rank].id, &r2, &found),
                             TERSE_ECORRUPT);
            assert_int_equal(coll_pel_put(f->env, c, &pr, &replaced), TERSE_ECORRUPT);
            assert_int_equal(coll_pel_del(f->env, c, &f->m.r[rank].id, &found), TERSE_ECORRUPT);
            assert_int_equal(coll_pel_verify(f->env, c), TERSE_ECORRUPT);
            coll_env_stats_get(f->env, &after);
            assert_true(after.n_corrupt >= before.n_corrupt + 5);
            assert_int_equal(coll_pel_read_chunk(f->env, c, other, &pc, &f->recs, &f->cap),
                             TERSE_OK);
            pfx_expect_rec(&f->recs[0], &f->m.r[pc.first_rank]);
        }
        ch->data[at] ^= 0x20;
        pfx_check_all(f, c);
    }
    coll_corrupt(c);
    expect_corrupt(f, c, f->m.r[0].id);
    coll_destroy(f->env, c);
}

/* Each allocation of a put, a delete and a bulk build failing in turn: TERSE_ENOMEM, the PEL
 * as it was, nothing leaked. */
static void test_oom(void **state)
{
    struct pfx_fix *f = *state;
    struct coll *c;
    struct coll_pel_rec *v;
    size_t failed = 0;

    pfx_fill_model(&f->m, 2000);
    v = pfx_model_views(&f->m);
    for (uint64_t nth = 1;; nth++) {
        uint64_t before;
        int r;
        coll_env_trim(f->env, 0);
        before = core_mem_used();
        core_mem_fail_after(nth);
        r = coll_pel_from_recs(f->env, v, f->m.n, 128, &c);
        core_mem_fail_after(0);
        if (r != TERSE_ENOMEM) {
            assert_int_equal(r, TERSE_OK);
            break;
        }
        assert_null(c);
        coll_env_trim(f->env, 0);
        assert_int_equal(core_mem_used(), before);
        failed++;
    }
    free(v);
    pfx_check_all(f, c);
    for (int k = 0; k < 400; k++) {
        unsigned op = (unsigned)(pfx_rnd() % 4);
        struct pfx_rec nr;
        struct store_stream_id id = pfx_pick_id(&f->m, op == 3 ? 1 : op);
        struct coll_pel_rec pr;
        bool flag = false;
        int r;

        pfx_make_rec(&nr, id, 100);
        pr = pfx_view_of(&nr);
        if (k % 9 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        for (uint64_t nth = 1;; nth++) {
            flag = false;
            coll_env_trim(f->env, 0); /* no spare blocks: every block is allocated, and may fail */
            core_mem_fail_after(nth);
            r = op == 3 ? coll_pel_del(f->env, c, &id, &flag) : coll_pel_put(f->env, c, &pr, &flag);
            core_mem_fail_after(0);
            if (r != TERSE_ENOMEM) {
                assert_int_equal(r, TERSE_OK);
                break;
            }
            assert_false(flag);
            failed++;
            pfx_check_all(f, c);
        }
        assert_int_equal(flag, op == 3 ? pfx_m_del(&f->m, &id) : pfx_m_put(&f->m, &nr));
        if (k % 20 == 0) {
            pfx_check_all(f, c);
        }
    }
    pfx_check_all(f, c);
    assert_true(failed > 400);
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_forms, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_flipped_byte, pfx_setup, pfx_teardown),
        cmocka_unit_test_setup_teardown(test_oom, pfx_setup, pfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
