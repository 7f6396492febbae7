/*
 * fuzz target list_form: hostile bytes as a list's element form (store_list.h).
 *
 * The input is taken as a form. Properties checked on every input:
 *   - nothing reads past the input (libFuzzer and the replay driver give a block of exactly
 *     its size) and no edit writes past its cap (every output is a heap block of exactly the
 *     cap, so ASan sees an over-write);
 *   - store_list_check accepts exactly the forms that iterate cleanly (open, then n elements,
 *     then 0, with n > 0); an iteration that ended keeps answering the same;
 *   - store_list_skip agrees with next;
 *   - every edit (splice, range, remove) and store_list_count refuse exactly the forms check
 *     refuses (TERSE_ECORRUPT), whatever their arguments; on a valid form each gives what a
 *     plain model (an array of slices) gives, with TERSE_EINVAL exactly when the arguments
 *     pass the list's end; its result is a valid form (or empty exactly when no element is
 *     left); the exact result length is enough and one byte less is TERSE_ETOOBIG;
 *   - the writer, fed the model's elements with a wrong count hint, gives the same bytes.
 * Several edits run in a row, each on the previous result, with arguments drawn from the input.
 */
#include "store/form/store_list.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_ROUNDS 4   /* edits in a row */
#define FZ_MAX_INS 12 /* elements one splice inserts */

/* What iteration makes of a form. */
struct fz_list {
    struct store_list_el *el; /* the elements iterated, in order */
    size_t n;
    bool valid; /* open, the count's elements, then 0, count > 0 */
};

static void fz_iterate(const uint8_t *form, size_t len, struct fz_list *l)
{
    struct store_list_it it, it2;
    const uint8_t *p;
    size_t plen;
    uint64_t count = 0;
    int rc;

    memset(l, 0, sizeof(*l));
    l->el = malloc((len + 1) * sizeof(*l->el)); /* an element takes a byte at least */
    fz_check(l->el != NULL);
    rc = store_list_open(form, len, &it, &count);
    if (rc != TERSE_OK) {
        fz_check(rc == TERSE_ECORRUPT);
        fz_check(store_list_check(form, len) == TERSE_ECORRUPT);
        return;
    }
    it2 = it;
    while ((rc = store_list_next(&it, &p, &plen)) == 1) {
        fz_check(l->n < len);
        fz_check(p >= form && p + plen <= form + len);
        l->el[l->n++] = (struct store_list_el){p, plen};
    }
    fz_check(rc == 0 || rc == TERSE_ECORRUPT);
    fz_check(store_list_next(&it, &p, &plen) == rc); /* the end, or the error, stays */
    l->valid = rc == 0 && count > 0;
    if (rc == 0) {
        fz_check(l->n == count);
    }
    fz_check((store_list_check(form, len) == TERSE_OK) == l->valid);
    /* skip agrees with next: over all of them when the form is clean, else it fails */
    rc = store_list_skip(&it2, l->n);
    fz_check(rc == TERSE_OK);
    if (count > l->n) {
        fz_check(store_list_skip(&it2, 1) == TERSE_ECORRUPT);
    }
}

/* Builds the form of the model's elements with store_list_w (hint as given): heap, *len. */
static uint8_t *fz_build(const struct store_list_el *el, size_t n, uint64_t hint, size_t *len)
{
    size_t cap = STORE_LIST_COUNT_MAX * 2;
    struct store_list_w w;
    uint8_t *out;

    for (size_t i = 0; i < n; i++) {
        cap += store_list_el_size(el[i].len);
    }
    out = malloc(cap);
    fz_check(out != NULL);
    store_list_w_init(&w, out, cap, hint);
    for (size_t i = 0; i < n; i++) {
        store_list_w_push(&w, el[i].p, el[i].len);
    }
    fz_check(store_list_w_finish(&w, len) == TERSE_OK);
    return out;
}

/* Checks a result (out, out_len) against the model want (n elements). */
static void fz_expect(const uint8_t *out, size_t out_len, const struct store_list_el *want,
                      size_t n, struct fz_rng *r)
{
    struct fz_list got;
    uint8_t *again;
    size_t again_len;

    if (n == 0) {
        fz_check(out_len == 0);
        return;
    }
    fz_iterate(out, out_len, &got);
    fz_check(got.valid && got.n == n);
    for (size_t i = 0; i < n; i++) {
        fz_check(fz_eq(got.el[i].p, got.el[i].len, want[i].p, want[i].len));
    }
    free(got.el);
    /* the writer with a wrong hint gives the same bytes */
    again = fz_build(want, n, fz_next(r) >> (fz_next(r) % 64), &again_len);
    fz_check(again_len == out_len && memcmp(again, out, out_len) == 0);
    free(again);
}

/* Slices of data, the list's own elements, or emptiness. */
static struct store_list_el fz_draw(struct fz_rng *r, const struct fz_list *l,
                                    const uint8_t *data, size_t size)
{
    unsigned how = (unsigned)(fz_next(r) % 4);
    struct store_list_el e = {NULL, 0};

    if (how < 2 && l->n > 0) {
        e = l->el[fz_next(r) % l->n];
    } else if (how < 3 && size > 0) {
        size_t off = (size_t)(fz_next(r) % size);
        e.p = data + off;
        e.len = (size_t)(fz_next(r) % (fz_next(r) % 8 == 0 ? 400 : 6));
        e.len = e.len > size - off ? size - off : e.len;
    }
    return e;
}

/* An index around the list's length (sometimes past it). */
static uint64_t fz_index(struct fz_rng *r, size_t n)
{
    switch (fz_next(r) % 8) {
    case 0:
        return UINT64_MAX - fz_next(r) % 3;
    case 1:
        return n + 1 + fz_next(r) % 3;
    default:
        return fz_next(r) % (n + 1);
    }
}

/* Runs f with a heap output of exactly cap bytes. */
typedef int fz_edit_fn(const void *arg, uint8_t *out, size_t cap, size_t *out_len);

/* Runs an edit at the bound, then at the exact length (same bytes) and one byte short.
 * Returns the status at the bound; *out the result (caller frees), *out_len its length. */
static int fz_run(fz_edit_fn *f, const void *arg, size_t bound, uint8_t **out, size_t *out_len)
{
    uint8_t *a = malloc(bound != 0 ? bound : 1), *b;
    size_t len2;
    int rc = f(arg, bound != 0 ? a : NULL, bound, out_len);

    fz_check(a != NULL);
    *out = a;
    if (rc != TERSE_OK) {
        return rc;
    }
    fz_check(*out_len <= bound);
    b = malloc(*out_len != 0 ? *out_len : 1);
    fz_check(b != NULL);
    fz_check(f(arg, *out_len != 0 ? b : NULL, *out_len, &len2) == TERSE_OK);
    fz_check(len2 == *out_len && (len2 == 0 || memcmp(a, b, len2) == 0));
    free(b);
    if (*out_len > 0) {
        b = malloc(*out_len - 1 != 0 ? *out_len - 1 : 1);
        fz_check(b != NULL);
        fz_check(f(arg, b, *out_len - 1, &len2) == TERSE_ETOOBIG);
        free(b);
    }
    return rc;
}

struct fz_splice {
    const uint8_t *form;
    size_t len;
    uint64_t at, n_del;
    const struct store_list_el *ins;
    size_t n_ins;
};

static int fz_splice_fn(const void *arg, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct fz_splice *s = arg;

    return store_list_splice(s->form, s->len, s->at, s->n_del, s->ins, s->n_ins, out, cap,
                             out_len);
}

struct fz_range {
    const uint8_t *form;
    size_t len;
    uint64_t at, n_keep;
};

static int fz_range_fn(const void *arg, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct fz_range *s = arg;

    return store_list_range(s->form, s->len, s->at, s->n_keep, out, cap, out_len);
}

struct fz_remove {
    const uint8_t *form;
    size_t len;
    struct store_list_el el;
    uint64_t skip, max;
    uint64_t *removed;
};

static int fz_remove_fn(const void *arg, uint8_t *out, size_t cap, size_t *out_len)
{
    const struct fz_remove *s = arg;

    return store_list_remove(s->form, s->len, s->el.p, s->el.len, s->skip, s->max, out, cap,
                             out_len, s->removed);
}

/* One edit of form (iterated as l), drawn from r; returns the next form (heap) or NULL. */
static uint8_t *fz_edit(const uint8_t *form, size_t len, const struct fz_list *l,
                        const uint8_t *data, size_t size, struct fz_rng *r, size_t *next_len)
{
    struct store_list_el *want = malloc((l->n + FZ_MAX_INS + 1) * sizeof(*want));
    size_t n_want = 0, out_len = 0;
    uint8_t *out = NULL;
    unsigned op = (unsigned)(fz_next(r) % 3);
    bool empty = form == NULL && len == 0;
    int rc;

    fz_check(want != NULL);
    if (op == 0 || empty) {
        struct store_list_el ins[FZ_MAX_INS];
        struct fz_splice s = {form, len, fz_index(r, l->n), fz_index(r, l->n), ins,
                              (size_t)(fz_next(r) % (FZ_MAX_INS + 1))};
        size_t bound = len + STORE_LIST_COUNT_MAX;

        if (fz_next(r) % 2 == 0 && s.at <= l->n) {
            s.n_del = fz_next(r) % (l->n - s.at + 1);
        }
        for (size_t i = 0; i < s.n_ins; i++) {
            ins[i] = fz_draw(r, l, data, size);
            bound += store_list_el_size(ins[i].len);
        }
        rc = fz_run(fz_splice_fn, &s, bound, &out, &out_len);
        if (!empty && !l->valid) {
            fz_check(rc == TERSE_ECORRUPT);
        } else if (s.at > l->n || s.n_del > l->n - s.at) {
            fz_check(rc == TERSE_EINVAL);
        } else {
            fz_check(rc == TERSE_OK);
            for (size_t i = 0; i < s.at; i++) {
                want[n_want++] = l->el[i];
            }
            for (size_t i = 0; i < s.n_ins; i++) {
                want[n_want++] = ins[i];
            }
            for (size_t i = s.at + s.n_del; i < l->n; i++) {
                want[n_want++] = l->el[i];
            }
        }
    } else if (op == 1) {
        struct fz_range s = {form, len, fz_index(r, l->n), fz_index(r, l->n)};

        if (fz_next(r) % 2 == 0 && s.at <= l->n) {
            s.n_keep = fz_next(r) % (l->n - s.at + 1);
        }
        rc = fz_run(fz_range_fn, &s, len, &out, &out_len);
        if (!l->valid) {
            fz_check(rc == TERSE_ECORRUPT);
        } else if (s.at > l->n || s.n_keep > l->n - s.at) {
            fz_check(rc == TERSE_EINVAL);
        } else {
            fz_check(rc == TERSE_OK);
            for (size_t i = s.at; i < s.at + s.n_keep; i++) {
                want[n_want++] = l->el[i];
            }
        }
    } else {
        uint64_t removed = 0, count = 0, seen = 0, gone = 0;
        struct fz_remove s = {form, len, fz_draw(r, l, data, size), fz_next(r) % 3,
                              fz_next(r) % 4, &removed};
        int rc_count = store_list_count(form, len, s.el.p, s.el.len, &count);

        s.max = s.max == 3 ? UINT64_MAX : s.max;
        rc = fz_run(fz_remove_fn, &s, len, &out, &out_len);
        fz_check(rc == rc_count);
        if (!l->valid) {
            fz_check(rc == TERSE_ECORRUPT);
        } else {
            fz_check(rc == TERSE_OK);
            for (size_t i = 0; i < l->n; i++) {
                bool eq = fz_eq(l->el[i].p, l->el[i].len, s.el.p, s.el.len);
                seen += eq;
                if (eq && gone < s.max && seen > s.skip) {
                    gone++;
                    continue;
                }
                want[n_want++] = l->el[i];
            }
            fz_check(removed == gone && count == seen);
        }
    }
    if (rc != TERSE_OK) {
        free(out);
        free(want);
        return NULL;
    }
    fz_expect(out, out_len, want, n_want, r);
    free(want);
    if (out_len == 0) {
        free(out);
        return NULL;
    }
    *next_len = out_len;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz_rng r;
    struct fz_list l;
    struct fz_chain c;

    fz_rng_init(&r, data, size);
    fz_chain_init(&c, data, size);
    fz_iterate(data, size, &l);
    for (int round = 0; round < FZ_ROUNDS; round++) {
        size_t next_len = 0;
        /* an empty input is the empty list for splice */
        uint8_t *next = fz_edit(c.len != 0 ? c.form : NULL, c.len, &l, data, size, &r,
                                &next_len);

        free(l.el);
        if (!fz_chain_take(&c, next, next_len)) {
            return 0;
        }
        fz_iterate(c.form, c.len, &l);
        fz_check(l.valid);
    }
    free(l.el);
    fz_chain_deinit(&c);
    return 0;
}
