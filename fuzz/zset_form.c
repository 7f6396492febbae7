/*
 * fuzz target zset_form: hostile bytes as a sorted set's form (store_zset.h).
 *
 * The input is taken as a form. Properties checked on every input:
 *   - nothing reads past the input (libFuzzer and the replay driver give a block of exactly
 *     its size) and no write passes its cap (every output is a heap block of exactly the cap);
 *   - store_zset_count, store_zset_decode and store_zset_check never crash; check accepts
 *     exactly the forms decode accepts (count > 0) whose members are all distinct (compared
 *     pairwise here); decode with too small an array says so and gives the count;
 *   - a form decode accepts is canonical: writing its elements back gives the same bytes,
 *     and the exact size is enough while one byte less is TERSE_ETOOBIG;
 *   - edits in a row (add a member drawn from the input with a drawn score, or remove one;
 *     heapsort, write) give a form check accepts that decodes to the model's elements.
 */
#include "store/form/store_zset.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_ROUNDS 4     /* edits in a row */
#define FZ_PAIRWISE 512 /* distinctness compared pairwise up to this many elements */

static int fz_el_cmp(const void *a, const void *b)
{
    return store_zset_cmp(a, b);
}

static bool fz_distinct(const struct store_zset_el *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (fz_eq(a[i].m, a[i].mlen, a[j].m, a[j].mlen)) {
                return false;
            }
        }
    }
    return true;
}

/* Writes a[0..n) into a heap block of exactly its size: the block, *len. */
static uint8_t *fz_write(const struct store_zset_el *a, size_t n, size_t *len)
{
    size_t size = store_zset_form_size(a, n);
    uint8_t *out = malloc(size ? size : 1);

    fz_check(out != NULL);
    if (size > 0) {
        fz_check(store_zset_form_write(a, n, out, size - 1, len) == TERSE_ETOOBIG);
    }
    fz_check(store_zset_form_write(a, n, out, size, len) == TERSE_OK);
    fz_check(*len == size);
    return out;
}

/* A score drawn from the input: often small integers (ties), sometimes extremes. */
static double fz_score(struct fz_rng *r)
{
    uint64_t k = fz_next(r);

    switch (k % 8) {
    case 0:
        return INFINITY;
    case 1:
        return -INFINITY;
    case 2:
        return -0.0;
    case 3: {
        double d;
        uint64_t bits = fz_next(r);
        memcpy(&d, &bits, sizeof(d));
        return isnan(d) ? 0.5 : d;
    }
    default:
        return (double)(int)(k % 5) - 2;
    }
}

static void fz_edits(const uint8_t *data, size_t size, struct store_zset_el *model, size_t n,
                     size_t cap)
{
    struct fz_rng r;
    struct store_zset_el *got = malloc((cap + 1) * sizeof(*got));

    fz_check(got != NULL);
    fz_rng_init(&r, data, size);
    for (int round = 0; round < FZ_ROUNDS; round++) {
        uint64_t k = fz_next(&r);
        size_t len = 0, got_n = 0, at;
        uint8_t *form;

        if (n > 0 && k % 3 == 0) {
            at = (size_t)(fz_next(&r) % n);
            memmove(&model[at], &model[at + 1], (n - at - 1) * sizeof(*model));
            n--;
        } else if (n < cap && size > 0) {
            size_t off = (size_t)(fz_next(&r) % size), mlen = (size_t)(fz_next(&r) % 9);
            struct store_zset_el el;
            mlen = mlen > size - off ? size - off : mlen;
            el = (struct store_zset_el){data + off, mlen, fz_score(&r)};
            for (at = 0; at < n && !fz_eq(model[at].m, model[at].mlen, el.m, el.mlen); at++) {
            }
            if (at < n) {
                model[at].score = el.score; /* an update: the member moves */
            } else {
                model[n++] = el;
            }
        }
        store_zset_sort(model, n, sizeof(*model), fz_el_cmp);
        form = fz_write(model, n, &len);
        fz_check(n == 0 ? len == 0 : store_zset_check(form, len) == TERSE_OK);
        fz_check(store_zset_decode(form, len, got, cap + 1, &got_n) == TERSE_OK);
        fz_check(got_n == n);
        for (size_t i = 0; i < n; i++) {
            fz_check(fz_eq(got[i].m, got[i].mlen, model[i].m, model[i].mlen));
            fz_check(memcmp(&got[i].score, &model[i].score, sizeof(double)) == 0);
        }
        free(form);
    }
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cap = size + 8, n = 0, len = 0;
    struct store_zset_el *a = malloc(cap * sizeof(*a));
    uint64_t count = 0;
    int rc, check;

    fz_check(a != NULL);
    (void)store_zset_count(data, size, &count);
    rc = store_zset_decode(data, size, a, cap, &n);
    fz_check(rc == TERSE_OK || rc == TERSE_ECORRUPT);
    check = store_zset_check(data, size);
    fz_check(check == TERSE_OK || check == TERSE_ECORRUPT);
    if (rc == TERSE_OK && n > 0) {
        uint8_t *back;
        struct store_zset_el one;
        size_t n2 = 0;

        fz_check(n == count);
        if (n <= FZ_PAIRWISE) {
            fz_check((check == TERSE_OK) == fz_distinct(a, n));
        }
        back = fz_write(a, n, &len);
        fz_check(fz_eq(back, len, data, size)); /* one form per zset */
        free(back);
        if (n > 1) {
            fz_check(store_zset_decode(data, size, &one, 1, &n2) == TERSE_ETOOBIG && n2 == n);
        }
    } else {
        fz_check(check == TERSE_ECORRUPT);
    }
    if (rc != TERSE_OK || check != TERSE_OK) {
        n = 0; /* edits start from the empty zset */
    }
    fz_edits(data, size, a, n, cap - 1);
    free(a);
    return 0;
}
