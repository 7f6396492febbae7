/*
 * fuzz target hash_form: hostile bytes as a hash's field-list form (store_hash.h).
 *
 * The input is taken as a form. Properties checked on every input:
 *   - nothing reads past the input (libFuzzer and the replay driver give a block of exactly
 *     its size) and no edit writes past its cap (every output is a heap block of exactly the
 *     cap, so ASan sees an over-write);
 *   - store_hash_check accepts exactly the forms that iterate cleanly (open, then n fields,
 *     then 0, with n > 0) and hold no field twice;
 *   - store_hash_find agrees with iteration: each field iterated is found, at its first
 *     occurrence; a field not iterated is absent (0) on a clean form, TERSE_ECORRUPT otherwise;
 *   - store_hash_edit, with set and del pairs drawn from the input (its own fields, slices of
 *     its bytes, repeats, empty fields), refuses exactly the forms iteration refuses, and
 *     otherwise gives what a plain model of the edit gives, counts included (a form holding a
 *     field twice may outgrow the header's bound, which counts one replacement a pair: there
 *     TERSE_ETOOBIG is allowed); its result is a form store_hash_check accepts when the input
 *     was one; the result's exact length is enough and one byte less is TERSE_ETOOBIG. Three
 *     edits run in a row, each on the previous result.
 *
 * Two builds of store_hash.c and store_hash_edit.c run side by side and must agree byte for
 * byte: the server's (linked from the library) and a copy included below under other names with
 * a 32-word table and a 64-bit in-old bitmap, so that inputs of a few hundred bytes reach the
 * block paths the server reaches at thousands of fields. The code is the same, only the sizes
 * differ.
 */
#include "store/form/store_hash.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the small build ---------------------------------------------------------------------- */

#define store_hash_check small_hash_check
#define store_hash_open small_hash_open
#define store_hash_next small_hash_next
#define store_hash_find small_hash_find
#define store_hash_it_find small_hash_it_find
#define store_hash_pair_overhead small_hash_pair_overhead
#define store_hash_edit small_hash_edit
#define STORE_HASH_TAB_WORDS 32
#define STORE_HASH_IN_OLD_BITS 64

/* store_hash.h is in already, under the real names: each small function's definition is its
 * declaration, and each is defined before its first use. */
#include "store/form/store_hash.c"
#include "store/form/store_hash_edit.c"

#undef store_hash_check
#undef store_hash_open
#undef store_hash_next
#undef store_hash_find
#undef store_hash_it_find
#undef store_hash_pair_overhead
#undef store_hash_edit

/* ---- the target --------------------------------------------------------------------------- */

#define FZ_MAX_SET 80  /* pairs of one edit, above the small build's block and bitmap sizes */
#define FZ_MAX_DEL 40
#define FZ_ROUNDS 3    /* edits in a row, each on the previous result */
#define FZ_FIND_MAX 64 /* fields looked up one by one (find is linear: keep runs fast) */

/* What iteration makes of a form. */
struct fz_fields {
    struct store_hash_kv *kv; /* the fields iterated, in order */
    size_t n;
    bool opened;              /* store_hash_open said TERSE_OK */
    bool clean;               /* ... and next gave the count's fields, then 0 */
    bool unique;              /* no field twice among kv */
};

static bool fz_kv_eq(const struct store_hash_kv *a, const struct store_hash_kv *b)
{
    return fz_eq(a->f, a->flen, b->f, b->flen);
}

static int fz_cmp(const void *pa, const void *pb)
{
    const struct store_hash_kv *a = pa, *b = pb;
    size_t n = a->flen < b->flen ? a->flen : b->flen;
    int c = n != 0 ? memcmp(a->f, b->f, n) : 0;

    if (c != 0) {
        return c;
    }
    return (a->flen > b->flen) - (a->flen < b->flen);
}

static void fz_iterate(const uint8_t *form, size_t len, struct fz_fields *fl)
{
    struct store_hash_it it, it_small;
    struct store_hash_kv kv, kv_small;
    uint64_t count = 0, count_small = 0;
    int rc, rc_small;

    memset(fl, 0, sizeof(*fl));
    fl->kv = malloc((len / 2 + 1) * sizeof(*fl->kv)); /* a field takes at least 2 bytes */
    fz_check(fl->kv != NULL);
    rc = store_hash_open(form, len, &it, &count);
    fz_check(small_hash_open(form, len, &it_small, &count_small) == rc);
    if (rc != TERSE_OK) {
        fz_check(rc == TERSE_ECORRUPT);
        return;
    }
    fz_check(count == count_small);
    fl->opened = true;
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        fz_check(fl->n < len / 2 + 1);
        fz_check(kv.f >= form && kv.f + kv.flen <= kv.v && kv.v + kv.vlen <= form + len);
        fz_check(small_hash_next(&it_small, &kv_small) == 1);
        fz_check(kv_small.f == kv.f && kv_small.v == kv.v && kv_small.vlen == kv.vlen);
        fl->kv[fl->n++] = kv;
    }
    fz_check(rc == 0 || rc == TERSE_ECORRUPT);
    rc_small = small_hash_next(&it_small, &kv_small);
    fz_check(rc_small == rc);
    fz_check(store_hash_next(&it, &kv) == rc); /* the end, or the error, stays */
    fl->clean = rc == 0;
    if (fl->clean) {
        fz_check(fl->n == count);
    }
    {
        struct store_hash_kv *sorted = malloc((fl->n + 1) * sizeof(*sorted));

        fz_check(sorted != NULL);
        memcpy(sorted, fl->kv, fl->n * sizeof(*sorted));
        qsort(sorted, fl->n, sizeof(*sorted), fz_cmp);
        fl->unique = true;
        for (size_t i = 1; i < fl->n; i++) {
            fl->unique = fl->unique && !fz_kv_eq(&sorted[i - 1], &sorted[i]);
        }
        free(sorted);
    }
}

/* Looks f up in both builds: they agree, and agree with iteration. */
static void fz_find(const uint8_t *form, size_t len, const struct fz_fields *fl,
                    const uint8_t *f, size_t flen)
{
    struct store_hash_kv want = {.f = f, .flen = flen}, got, got_small;
    int rc = store_hash_find(form, len, f, flen, &got);

    fz_check(small_hash_find(form, len, f, flen, &got_small) == rc);
    for (size_t i = 0; i < fl->n; i++) {
        if (fz_kv_eq(&fl->kv[i], &want)) {
            fz_check(rc == 1);
            fz_check(got.f == fl->kv[i].f && got.v == fl->kv[i].v && got.vlen == fl->kv[i].vlen);
            fz_check(got_small.f == got.f && got_small.v == got.v);
            return;
        }
    }
    fz_check(rc == (fl->clean ? 0 : TERSE_ECORRUPT));
}

static void fz_finds(const uint8_t *form, size_t len, const struct fz_fields *fl,
                     struct fz_rng *r)
{
    for (size_t k = 0; k < fl->n && k < FZ_FIND_MAX; k++) {
        size_t i = fl->n <= FZ_FIND_MAX ? k : (size_t)(fz_next(r) % fl->n);
        const struct store_hash_kv *kv = &fl->kv[i];

        fz_find(form, len, fl, kv->f, kv->flen);
        if (kv->flen > 0) {
            fz_find(form, len, fl, kv->f, kv->flen - 1);
        }
        if (kv->f + kv->flen < form + len) {
            fz_find(form, len, fl, kv->f, kv->flen + 1);
        }
    }
    fz_find(form, len, fl, NULL, 0);
    if (len > 0) {
        size_t off = (size_t)(fz_next(r) % len);

        fz_find(form, len, fl, form + off, (size_t)(fz_next(r) % (len - off + 1)));
    }
}

/* A slice of data, at most max bytes (NULL when data is empty). */
static void fz_slice(struct fz_rng *r, const uint8_t *data, size_t size, size_t max,
                     const uint8_t **p, size_t *len)
{
    size_t off;

    if (size == 0) {
        *p = NULL;
        *len = 0;
        return;
    }
    off = (size_t)(fz_next(r) % size);
    *p = data + off;
    *len = (size_t)(fz_next(r) % (max + 1));
    if (*len > size - off) {
        *len = size - off;
    }
}

/* n fields drawn from the form's own fields, earlier draws, slices of data and emptiness. */
static void fz_draw(struct fz_rng *r, const struct fz_fields *fl, const uint8_t *data,
                    size_t size, struct store_hash_kv *kv, size_t n, bool values)
{
    for (size_t i = 0; i < n; i++) {
        unsigned how = (unsigned)(fz_next(r) % 8);

        memset(&kv[i], 0, sizeof(kv[i]));
        if (how < 3 && fl->n > 0) {
            kv[i] = fl->kv[fz_next(r) % fl->n];
        } else if (how < 5 && i > 0) {
            kv[i] = kv[fz_next(r) % i];
        } else if (how < 7) {
            fz_slice(r, data, size, 8, &kv[i].f, &kv[i].flen);
        }
        kv[i].v = NULL;
        kv[i].vlen = 0;
        if (values && fz_next(r) % 4 != 0) {
            fz_slice(r, data, size, fz_next(r) % 4 == 0 ? 300 : 8, &kv[i].v, &kv[i].vlen);
        }
    }
}

static bool fz_in(const struct store_hash_kv *kv, const struct store_hash_kv *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fz_kv_eq(kv, &list[i])) {
            return true;
        }
    }
    return false;
}

/* The value set gives f last, or NULL. */
static const struct store_hash_kv *fz_last(const struct store_hash_kv *f,
                                           const struct store_hash_kv *set, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (fz_kv_eq(f, &set[i])) {
            return &set[i];
        }
    }
    return NULL;
}

/* The model: old fields in place (dropped if deleted, else the last value set), then the new
 * fields in order of first appearance with their last value. Fills want (old->n + n room). */
static void fz_model(const struct fz_fields *old, const struct store_hash_kv *set, size_t n,
                     const struct store_hash_kv *del, size_t m, struct store_hash_kv *want,
                     size_t *n_want, size_t *added, size_t *removed)
{
    *n_want = 0;
    *added = 0;
    *removed = 0;
    for (size_t i = 0; i < old->n; i++) {
        const struct store_hash_kv *s = fz_last(&old->kv[i], set, n);

        if (fz_in(&old->kv[i], del, m)) {
            (*removed)++;
            continue;
        }
        want[*n_want] = old->kv[i];
        if (s != NULL) {
            want[*n_want].v = s->v;
            want[*n_want].vlen = s->vlen;
        }
        (*n_want)++;
    }
    for (size_t i = 0; i < n; i++) {
        const struct store_hash_kv *s = fz_last(&set[i], set, n);

        if (fz_in(&set[i], set, i) || fz_in(&set[i], old->kv, old->n) ||
            fz_in(&set[i], del, m)) {
            continue;
        }
        want[*n_want] = set[i];
        want[*n_want].v = s->v;
        want[*n_want].vlen = s->vlen;
        (*n_want)++;
        (*added)++;
    }
}

/* Edits into a heap block of exactly cap bytes with both builds: they agree; returns the
 * production status, *out the result (caller frees), *out_len its length. */
static int fz_edit_cap(const uint8_t *form, size_t len, const struct store_hash_kv *set,
                       size_t n, const struct store_hash_kv *del, size_t m, size_t cap,
                       uint8_t **out, size_t *out_len, size_t *added, size_t *removed)
{
    uint8_t *a = malloc(cap != 0 ? cap : 1), *b = malloc(cap != 0 ? cap : 1);
    size_t len_b, added_b, removed_b;
    int rc, rc_b;

    fz_check(a != NULL && b != NULL);
    rc = store_hash_edit(form, len, set, n, del, m, cap != 0 ? a : NULL, cap, out_len, added,
                         removed);
    rc_b = small_hash_edit(form, len, set, n, del, m, cap != 0 ? b : NULL, cap, &len_b, &added_b,
                           &removed_b);
    fz_check(rc == rc_b);
    fz_check(rc == TERSE_OK || rc == TERSE_ECORRUPT || rc == TERSE_ETOOBIG);
    if (rc == TERSE_OK) {
        fz_check(*out_len <= cap && len_b == *out_len);
        fz_check(added_b == *added && removed_b == *removed);
        fz_check(*out_len == 0 || memcmp(a, b, *out_len) == 0);
    }
    free(b);
    *out = a;
    return rc;
}

/* One edit of form (iterated as old), drawn from r; returns the result as the next form. */
static uint8_t *fz_edit(const uint8_t *form, size_t len, const struct fz_fields *old,
                        const uint8_t *data, size_t size, struct fz_rng *r, size_t *next_len)
{
    size_t n = (size_t)(fz_next(r) % (fz_next(r) % 4 == 0 ? FZ_MAX_SET + 1 : 10));
    size_t m = (size_t)(fz_next(r) % (fz_next(r) % 4 == 0 ? FZ_MAX_DEL + 1 : 4));
    struct store_hash_kv set[FZ_MAX_SET], del[FZ_MAX_DEL];
    struct store_hash_kv *want = malloc((old->n + n + 1) * sizeof(*want));
    bool valid = len == 0 || (old->clean && old->n > 0);
    size_t cap = len + 10, out_len, added, removed, n_want, want_added, want_removed;
    size_t len2, added2, removed2;
    uint8_t *out, *out2;
    struct fz_fields got;
    int rc;

    fz_check(want != NULL);
    fz_draw(r, old, data, size, set, n, true);
    fz_draw(r, old, data, size, del, m, false);
    for (size_t i = 0; i < n; i++) {
        cap += store_hash_pair_overhead(set[i].flen, set[i].vlen) + set[i].flen + set[i].vlen;
    }
    rc = fz_edit_cap(len != 0 ? form : NULL, len, set, n, del, m, cap, &out, &out_len, &added,
                     &removed);
    if (!valid) {
        fz_check(rc == TERSE_ECORRUPT);
        free(out);
        free(want);
        return NULL;
    }
    if (rc == TERSE_ETOOBIG && !old->unique) {
        /* The bound counts one replacement per pair: a field held twice can take two. */
        free(out);
        free(want);
        return NULL;
    }
    fz_check(rc == TERSE_OK);
    fz_model(old, set, n, del, m, want, &n_want, &want_added, &want_removed);
    fz_check(added == want_added && removed == want_removed);
    fz_iterate(out, out_len, &got);
    if (n_want == 0) {
        fz_check(out_len == 0);
    } else {
        fz_check(got.clean && got.n == n_want);
        for (size_t i = 0; i < n_want; i++) {
            fz_check(fz_kv_eq(&got.kv[i], &want[i]));
            fz_check(fz_eq(got.kv[i].v, got.kv[i].vlen, want[i].v, want[i].vlen));
        }
        /* A valid form edits into a valid form. */
        if (old->unique) {
            fz_check(got.unique);
            fz_check(store_hash_check(out, out_len) == TERSE_OK);
            fz_check(small_hash_check(out, out_len) == TERSE_OK);
        }
    }
    free(got.kv);
    free(want);
    /* The exact length is enough, one byte less is not. */
    fz_check(fz_edit_cap(len != 0 ? form : NULL, len, set, n, del, m, out_len, &out2, &len2,
                         &added2, &removed2) == TERSE_OK);
    fz_check(len2 == out_len && (len2 == 0 || memcmp(out2, out, len2) == 0));
    free(out2);
    if (out_len > 0) {
        fz_check(fz_edit_cap(len != 0 ? form : NULL, len, set, n, del, m, out_len - 1, &out2,
                             &len2, &added2, &removed2) == TERSE_ETOOBIG);
        free(out2);
    }
    *next_len = out_len;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_rng r;
    struct fz_fields fl;
    struct fz_chain c;
    int rc;

    fz_rng_init(&r, data, size);
    fz_chain_init(&c, data, size);
    fz_iterate(data, size, &fl);
    rc = store_hash_check(data, size);
    fz_check(small_hash_check(data, size) == rc);
    fz_check((rc == TERSE_OK) == (fl.opened && fl.clean && fl.n > 0 && fl.unique));
    fz_check(rc == TERSE_OK || rc == TERSE_ECORRUPT);
    fz_finds(data, size, &fl, &r);
    for (int round = 0; round < FZ_ROUNDS; round++) {
        size_t next_len = 0;
        uint8_t *next = fz_edit(c.form, c.len, &fl, data, size, &r, &next_len);

        free(fl.kv);
        if (!fz_chain_take(&c, next, next_len)) {
            return 0;
        }
        fz_iterate(c.form, c.len, &fl);
    }
    free(fl.kv);
    fz_chain_deinit(&c);
    return 0;
}
