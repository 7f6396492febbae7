/*
 * coll_hash_fixture: the model and checks of the coll_hash tests (test_coll_hash.c: random
 * runs and scans; test_coll_hash_edge.c: corruption, bad forms, failed allocations, steady
 * state): a model of a hash (an array of fields and values, searched linearly), field and value
 * generators, and the checks that a container holds exactly the model (lookups, a walk, every
 * rank, the whole form and a container built back from it).
 *
 * Linked into every tests/unit/coll/test_*.c by the Makefile (the *_fixture.c files of a
 * test's folder). The random generator keeps its state here, shared by the calls of one test
 * executable.
 */
#ifndef TERSE_TEST_COLL_HASH_FIXTURE_H
#define TERSE_TEST_COLL_HASH_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll_hash.h"

#define FMAX 300  /* longest field */
#define VMAX 3072 /* longest value */

struct el {
    uint8_t f[FMAX];
    size_t flen;
    uint8_t *v; /* malloc'd, VMAX bytes */
    size_t vlen;
};

struct model {
    struct el *e; /* malloc'd, cap of them, n in use (in no order) */
    size_t n, cap;
};

/* A test's state (cmocka's *state): an env with a codec, the model, core_mem_used at setup. */
struct fix {
    struct coll_env *env;
    struct codec_ctx *codec;
    struct model m;
    uint64_t mem0;
};

uint64_t hfx_rnd(void);
/* cmocka setup and teardown; teardown asserts that core_mem_used is back where it was. */
int hfx_setup(void **state);
int hfx_teardown(void **state);

void hfx_reset(struct model *m);
/* The index of field in m, or -1. */
long hfx_find(const struct model *m, const uint8_t *f, size_t flen);
void hfx_put(struct model *m, const uint8_t *f, size_t flen, const uint8_t *v, size_t vlen);
/* Removes element i (the last one takes its place). */
void hfx_del(struct model *m, long i);

/* Field number id (always the same bytes): 0..FMAX bytes, mostly short. Returns its length. */
size_t hfx_field(uint8_t *b, uint64_t id);
/* A random value (empty for a set): mostly short, some up to VMAX. Returns its length. */
size_t hfx_value(uint8_t *b, bool set);

/* c gives e's value for e's field. */
void hfx_expect_get(struct fix *f, struct coll *c, const struct el *e);
/* kv is in the model with its value: returns its index. */
long hfx_expect_in(const struct model *m, const struct store_hash_kv *kv);
/* A walk and every rank of c each give every element of the model once, and nothing else. */
void hfx_check_walks(struct fix *f, struct coll *c);
/* c verifies and holds exactly the model: lookups, walks, its form (store_hash_check, then a
 * container built from it with shape sh holds the model too). */
void hfx_check_all(struct fix *f, struct coll *c, const struct coll_hash_shape *sh);
/* 1 when some chunk of c is held compressed. */
int hfx_some_compressed(const struct coll *c);
/* A container of type with chunks of chunk bytes holding n elements put one by one (fields
 * hfx_field(1..n)); the model is reset to hold them. */
struct coll *hfx_build(struct fix *f, enum coll_type type, uint32_t chunk, size_t n);

#endif /* TERSE_TEST_COLL_HASH_FIXTURE_H */
