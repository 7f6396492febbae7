/*
 * coll_pel_fixture: the oracle and checks of the coll_pel tests (test_coll_pel.c: the
 * randomized model runs, bulk builds and compression; test_coll_pel_edge.c: bad forms,
 * flipped bytes, failed allocations). The oracle is a sorted array of records (struct
 * pfx_model); pfx_put and pfx_del apply an edit to a PEL and the oracle and check the size
 * rules as they happen (an append that does not fit starts a chunk, an insert that does not
 * fit splits, a delete under chunk_max / 8 merges with a neighbour it fits with); pfx_check_all
 * compares a PEL with the oracle through every chunk. The fixture (pfx_setup, pfx_teardown)
 * holds the env, its codec and the leak check.
 */
#ifndef TERSE_TEST_COLL_PEL_FIXTURE_H
#define TERSE_TEST_COLL_PEL_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll_pel.h"

#define PFX_MAXN 12000
#define PFX_NAMEMAX 200

struct pfx_rec {
    struct store_stream_id id;
    uint8_t name[PFX_NAMEMAX];
    size_t nlen;
    int64_t dms;
    uint64_t dcount;
};

struct pfx_model {
    struct pfx_rec r[PFX_MAXN];
    size_t n;
};

struct pfx_fix {
    struct coll_env *env;
    struct codec_ctx *codec;
    struct pfx_model m;
    struct coll_pel_rec *recs; /* read_chunk's array (core_realloc'd) */
    size_t cap;
    uint64_t mem_before;
};

/* xorshift64: the tests' draws, reproducible. */
uint64_t pfx_rnd(void);

/* A struct pfx_fix with an env and its codec; teardown frees them and checks core_mem_used
 * is back where setup found it. */
int pfx_setup(void **state);
int pfx_teardown(void **state);

/* Stream ID order: < 0, 0, > 0. */
int pfx_id_cmp(const struct store_stream_id *a, const struct store_stream_id *b);

/* The model's first record whose ID is >= id. */
size_t pfx_lower(const struct pfx_model *m, const struct store_stream_id *id);

/* A random record of id: a short name (from a few, so names repeat), sometimes a long one,
 * a delivery time sometimes negative (a ten-byte varint). */
void pfx_make_rec(struct pfx_rec *r, struct store_stream_id id, size_t long_name);

/* r as the engine takes it (name borrowed from r). */
struct coll_pel_rec pfx_view_of(const struct pfx_rec *r);

/* got (read from a PEL) equals want. */
void pfx_expect_rec(const struct coll_pel_rec *got, const struct pfx_rec *want);

/* Every chunk a write made: at most chunk_max / 2 raw bytes, or one record. */
void pfx_chunks_within(const struct coll *c);

/* The PEL verifies and holds the model's records, read chunk by chunk. */
void pfx_check_all(struct pfx_fix *f, struct coll *c);

/* r put into the model: whether its ID was there. */
bool pfx_m_put(struct pfx_model *m, const struct pfx_rec *r);

/* id deleted from the model: whether it was there. */
bool pfx_m_del(struct pfx_model *m, const struct store_stream_id *id);

/* Bytes of r's record in a chunk form. */
size_t pfx_rec_size(const struct pfx_rec *r);

/* The descriptor of the chunk holding record rank (< count). */
const struct coll_desc *pfx_desc_at(const struct coll *c, uint64_t rank, struct coll_it *it);

/* A put of r into the PEL and the model; an append past every ID that does not fit the last
 * chunk starts a new one, an insert that does not fit splits. */
void pfx_put(struct pfx_fix *f, struct coll *c, const struct pfx_rec *r);

/* A delete of id from the PEL and the model; a chunk emptied leaves the tree, one left under
 * chunk_max / 8 merges with a neighbour it fits with. */
void pfx_del(struct pfx_fix *f, struct coll *c, struct store_stream_id id);

/* An ID: past every one, between two, or one the model holds. */
struct store_stream_id pfx_pick_id(const struct pfx_model *m, unsigned how);

/* A model of n records, IDs increasing from 1-0. */
void pfx_fill_model(struct pfx_model *m, size_t n);

/* The model's records as the engine takes them (malloc'd: free it; names borrowed). */
struct coll_pel_rec *pfx_model_views(const struct pfx_model *m);

#endif /* TERSE_TEST_COLL_PEL_FIXTURE_H */
