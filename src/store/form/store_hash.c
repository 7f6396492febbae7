/*
 * store_hash: reads and checks the field-list form of a hash (the format is specified in
 * store_hash.h); store_hash_edit.c writes it. Everything runs over the caller's buffers in a
 * bounded amount of stack: no allocation, whatever the number of fields.
 *
 * Reading. Every field goes through rec_read (store_hash_internal.h): a length past the bytes
 * or a varint spelled longer than needed is TERSE_ECORRUPT, never read past.
 *
 * Checking. Duplicates are found through the stack table (store_hash_internal.h):
 *
 *   check: block b's fields go in the table, then every field after the block is looked up.
 *          n <= CHECK_PAIRWISE: pairwise; n <= one block (5120): one pass, O(n); beyond:
 *          about n^2 / (2 * 5120) lookups of ~20 ns (measured: 100000 fields 24 ms, 1M fields
 *          2.4 s). Finding a duplicate in a read-only list with fixed memory has no O(n log n)
 *          method (element distinctness: T * S >= n^(2-o(1)) for comparison-based methods),
 *          so the choice is which constant. A bloom-like bit table does not change the shape:
 *          a 64 KiB filter holding 1M fields flags nearly all of them, and the candidates it
 *          leaves still need an exact pass per block of them; per byte of stack, exact blocks
 *          that look only forward come out as well or better, with less code.
 */
#include "store/form/store_hash.h"

#include "store/form/store_hash_internal.h"
#include "terse/status.h"

#include <stdbool.h>
#include <string.h>

#define CHECK_PAIRWISE 16 /* store_hash_check compares up to this many fields pairwise */

/* ---- reading ---------------------------------------------------------------------------- */

int store_hash_open(const uint8_t *form, size_t len, struct store_hash_it *it, uint64_t *n)
{
    const uint8_t *body;

    if (form_head(form, len, &body, n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    it->p = body;
    it->end = form + len;
    it->left = *n;
    return TERSE_OK;
}

int store_hash_next(struct store_hash_it *it, struct store_hash_kv *kv)
{
    const uint8_t *p = it->p;

    if (it->left == 0) {
        return it->p == it->end ? 0 : TERSE_ECORRUPT;
    }
    if (rec_read(&p, it->end, kv) != 0) {
        return TERSE_ECORRUPT;
    }
    it->p = p;
    it->left--;
    return 1;
}

/* a and b (n bytes each) are equal; the last 8 bytes first, where keys sharing a prefix
 * ("user:1001", "user:1002") differ. */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n >= 8) {
        uint64_t x, y;

        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y && memcmp(a, b, n - 8) == 0;
    }
    return n == 0 || memcmp(a, b, n) == 0;
}

int store_hash_it_find(struct store_hash_it *it, const uint8_t *f, size_t flen,
                       struct store_hash_kv *kv, const uint8_t **at)
{
    const uint8_t *p = it->p, *end = it->end;
    uint64_t left = it->left;

    for (; left > 0; left--) {
        const uint8_t *rec = p, *fp;
        size_t room = (size_t)(end - p);
        uint64_t fl, vl;

        /* Both lengths one byte (fields under 128 bytes, values under 128 or none): the
         * lengths are read and bounded in four tests, the common record. */
        if (room >= 2 && p[0] < 0x80 && (fl = p[0]) <= room - 2 && p[1 + fl] < 0x80) {
            vl = p[1 + fl];
            if (vl > room - 2 - fl) {
                return TERSE_ECORRUPT;
            }
            fp = p + 1;
            p = fp + fl + 1;
        } else {
            if (store_varint_read(&p, end, &fl) != 0 || fl > (uint64_t)(end - p)) {
                return TERSE_ECORRUPT;
            }
            fp = p;
            p += fl;
            if (store_varint_read(&p, end, &vl) != 0 || vl > (uint64_t)(end - p)) {
                return TERSE_ECORRUPT;
            }
        }
        if (fl == flen && same_bytes(fp, f, flen)) {
            *kv = (struct store_hash_kv){fp, (size_t)fl, p, (size_t)vl};
            *at = rec;
            it->p = p + vl;
            it->left = left - 1;
            return 1;
        }
        p += vl;
    }
    it->p = p;
    it->left = 0;
    return p == end ? 0 : TERSE_ECORRUPT;
}

int store_hash_find(const uint8_t *form, size_t len, const uint8_t *f, size_t flen,
                    struct store_hash_kv *kv)
{
    struct store_hash_it it;
    const uint8_t *at;
    uint64_t n;

    if (store_hash_open(form, len, &it, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    return store_hash_it_find(&it, f, flen, kv, &at);
}

/* ---- checking --------------------------------------------------------------------------- */

static int unique_pairwise(const uint8_t *body, const uint8_t *end)
{
    const uint8_t *p = body;

    while (p != end) {
        struct store_hash_kv a, b;
        const uint8_t *q;

        if (rec_read(&p, end, &a) != 0) {
            return TERSE_ECORRUPT;
        }
        for (q = p; q != end;) {
            if (rec_read(&q, end, &b) != 0 || kv_eq(&a, &b)) {
                return TERSE_ECORRUPT;
            }
        }
    }
    return TERSE_OK;
}

/* Each block of fields goes in the table, and every later field is looked up in it. */
static int unique_blocks(const uint8_t *form, const uint8_t *body, const uint8_t *end,
                         uint64_t n)
{
    uint64_t words[STORE_HASH_TAB_WORDS];
    struct tab_src src = {.form = form, .end = end};
    struct tab t;
    const uint8_t *p = body;
    uint64_t left = n;

    while (left > 1) {
        size_t take = left < tab_cap(STORE_HASH_TAB_WORDS) ? (size_t)left
                                                           : tab_cap(STORE_HASH_TAB_WORDS);
        struct store_hash_kv kv;
        const uint8_t *q;

        tab_init(&t, words, STORE_HASH_TAB_WORDS, take, false, &src);
        for (size_t i = 0; i < take; i++) {
            uint64_t ref = (uint64_t)(p - form);
            bool fresh;

            if (rec_read(&p, end, &kv) != 0) {
                return TERSE_ECORRUPT;
            }
            (void)tab_add(&t, &kv, ref, &fresh);
            if (!fresh) {
                return TERSE_ECORRUPT;
            }
        }
        left -= take;
        for (q = p; q != end;) {
            if (rec_read(&q, end, &kv) != 0 || tab_find(&t, &kv) != SIZE_MAX) {
                return TERSE_ECORRUPT;
            }
        }
    }
    return TERSE_OK;
}

int store_hash_check(const uint8_t *form, size_t len)
{
    const uint8_t *body;
    uint64_t n;

    if (form_scan(form, len, &body, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (n <= CHECK_PAIRWISE) {
        return unique_pairwise(body, form + len);
    }
    /* References are 48 bits; no machine holds a form that long. */
    if (len > REF_MAX) {
        return TERSE_ECORRUPT;
    }
    return unique_blocks(form, body, form + len, n);
}
