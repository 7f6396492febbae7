/*
 * coll_zset_fixture: the oracle and checks of the coll_zset tests (test_coll_zset.c: the
 * randomized differential runs; test_coll_zset_edge.c: corruption, failed allocations, life,
 * long runs of one score). The oracle is a sorted array of (score, member) in Redis's order
 * (store_zset_lower_bound), each member a malloc'd copy it owns; the checks compare a sorted
 * set with it by every read the engine has. The env, codec and leak check are the hash
 * fixture's (hfx_setup, hfx_teardown, hfx_rnd), linked into every test of this folder.
 */
#ifndef TERSE_TEST_COLL_ZSET_FIXTURE_H
#define TERSE_TEST_COLL_ZSET_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll_zset.h"
#include "coll_hash_fixture.h"

#define ZMMAX 700 /* longest member the generators make */

struct zoracle {
    struct store_zset_el *e; /* malloc'd, n in order; each e[i].m malloc'd (owned) */
    size_t n, cap;
};

void zfx_free(struct zoracle *o);
/* The index of member m, or -1 (linear). */
long zfx_find(const struct zoracle *o, const uint8_t *m, size_t mlen);
/* Inserts a new member (absent) at its place. */
void zfx_insert(struct zoracle *o, const uint8_t *m, size_t mlen, double score);
/* Removes the element at index i. */
void zfx_remove(struct zoracle *o, size_t i);
/* ZADD's semantics on the oracle: what coll_zset_add must answer (result, old). */
void zfx_add(struct zoracle *o, const uint8_t *m, size_t mlen, double score, unsigned flags,
             enum coll_zset_result *result, bool *had, double *old);
/* The first index whose score is >= s (> when exclusive); whose member is >= m (> ...). */
size_t zfx_seek_score(const struct zoracle *o, double s, bool exclusive);
size_t zfx_seek_lex(const struct zoracle *o, const uint8_t *m, size_t mlen, bool exclusive);

/* Member number id: deterministic bytes, 0..ZMMAX long (id 0 is ""), mostly short; big false
 * keeps it under 40 bytes. Returns its length. */
size_t zfx_member(uint8_t *b, uint64_t id, bool big);
/* A random score of a mode: 0 all zero (+0 and -0), 1 a few small integers with +-0 and
 * +-inf, 2 wide doubles with +-inf, 3 a mix. */
double zfx_score(unsigned mode);

/* el is o's element i: same member bytes, same score bits. */
void zfx_expect_el(const struct store_zset_el *el, const struct zoracle *o, size_t i);
/* c verifies and holds exactly o: count, the whole form byte for byte, both walks from random
 * ranks, ranks and scores of a sample, and a set built from its form (chunk bytes) equal. */
void zfx_check_all(struct fix *f, struct coll *c, const struct zoracle *o, uint32_t chunk);
/* A set with chunks of chunk bytes, n members added one by one with scores of mode (o made to
 * hold them). */
struct coll *zfx_build(struct fix *f, struct zoracle *o, uint32_t chunk, size_t n, unsigned mode,
                       bool big);

#endif /* TERSE_TEST_COLL_ZSET_FIXTURE_H */
