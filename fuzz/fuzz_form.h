/*
 * fuzz_form: what the byte-form fuzz targets (hash_form, list_form) share: the abort-on-failure
 * check, the input-seeded random draws that pick each edit's arguments, byte equality for
 * comparing a form's slices with a model's, and the chain of forms that edits in a row run on
 * (each on the previous result).
 *
 * A header of static functions rather than a .c, as fuzz_codec.h: every fuzz/<name>.c but
 * fuzz_replay.c is a target of its own, and each target is built from its one .c, for
 * libFuzzer and for replay.
 */
#ifndef TERSE_FUZZ_FORM_H
#define TERSE_FUZZ_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fz_check(int cond)
{
    if (!cond) {
        abort();
    }
}

/* splitmix64, seeded from the input: the draws follow from the input, so a crash replays. */
struct fz_rng {
    uint64_t s;
};

static inline void fz_rng_init(struct fz_rng *r, const uint8_t *data, size_t size)
{
    r->s = XXH3_64bits(size != 0 ? (const void *)data : (const void *)"", size);
}

static inline uint64_t fz_next(struct fz_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Whether a[0..alen) and b[0..blen) hold the same bytes (either may be NULL when empty). */
static inline bool fz_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* The form a round of edits works on: the input at first, then each round's result, a heap
 * block the chain owns until the next result replaces it. */
struct fz_chain {
    const uint8_t *form;
    size_t len;
    uint8_t *owned; /* form when it is a result, else NULL */
};

static inline void fz_chain_init(struct fz_chain *c, const uint8_t *data, size_t size)
{
    c->form = data;
    c->len = size;
    c->owned = NULL;
}

/* Frees the previous result and takes next (heap, next_len bytes) as the form: true, or false
 * when next is NULL (the rounds stop; nothing is left to free). */
static inline bool fz_chain_take(struct fz_chain *c, uint8_t *next, size_t next_len)
{
    free(c->owned);
    c->owned = next;
    c->form = next;
    c->len = next_len;
    return next != NULL;
}

static inline void fz_chain_deinit(struct fz_chain *c)
{
    (void)fz_chain_take(c, NULL, 0);
}

#endif /* TERSE_FUZZ_FORM_H */
