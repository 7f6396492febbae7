/*
 * store_zset: reads, checks and writes the sorted-set form (specified in store_zset.h).
 *
 * The form is a hash form (store_hash.h) whose values are the 8-byte scores, so the reader
 * walks it with store_hash_next and adds what a zset needs on top: the value width, no NaN,
 * and the order. store_zset_check adds store_hash_check's member uniqueness. A score is kept
 * as the bits of its double, little-endian whatever the host, so -0 keeps its sign and a
 * snapshot reads the same everywhere.
 */
#include "store/form/store_zset.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "codec/codec_varint.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

void store_zset_score_put(uint8_t *p, double d)
{
    uint64_t bits;

    memcpy(&bits, &d, sizeof(bits));
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(bits >> (8 * i));
    }
}

int store_zset_member_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t min = alen < blen ? alen : blen;
    int c = min == 0 ? 0 : memcmp(a, b, min);

    if (c != 0) {
        return c;
    }
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

int store_zset_count(const uint8_t *form, size_t len, uint64_t *n)
{
    const uint8_t *p = form;

    if (form == NULL || len == 0 || store_varint_read(&p, form + len, n) != 0) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}

/* The next pair of the cursor, checked against the one before (prev, NULL for the first):
 * 1, 0 at the end, or TERSE_ECORRUPT. */
static int next_el(struct store_hash_it *it, const struct store_zset_el *prev,
                   struct store_zset_el *el)
{
    struct store_hash_kv kv;
    int rc = store_hash_next(it, &kv);

    if (rc != 1) {
        return rc;
    }
    if (kv.vlen != STORE_ZSET_SCORE_LEN) {
        return TERSE_ECORRUPT;
    }
    el->m = kv.f;
    el->mlen = kv.flen;
    el->score = store_zset_score(kv.v);
    if (isnan(el->score) || (prev != NULL && store_zset_cmp(prev, el) >= 0)) {
        return TERSE_ECORRUPT;
    }
    return 1;
}

int store_zset_decode(const uint8_t *form, size_t len, struct store_zset_el *a, size_t cap,
                      size_t *n)
{
    struct store_hash_it it;
    uint64_t count;
    size_t i = 0;
    int rc;

    *n = 0;
    if (len == 0) {
        return TERSE_OK;
    }
    if (store_hash_open(form, len, &it, &count) != TERSE_OK || count == 0 || count > len) {
        return TERSE_ECORRUPT; /* each pair takes more than a byte: a bigger count lies */
    }
    *n = (size_t)count;
    if (count > cap) {
        return TERSE_ETOOBIG;
    }
    while ((rc = next_el(&it, i == 0 ? NULL : &a[i - 1], &a[i])) == 1) {
        i++;
    }
    if (rc < 0 || i != count) {
        *n = 0;
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}

int store_zset_check(const uint8_t *form, size_t len)
{
    struct store_hash_it it;
    struct store_zset_el prev, el;
    uint64_t count, i = 0;
    int rc;

    if (store_hash_check(form, len) != TERSE_OK ||
        store_hash_open(form, len, &it, &count) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    while ((rc = next_el(&it, i == 0 ? NULL : &prev, &el)) == 1) {
        prev = el;
        i++;
    }
    return rc == 0 && i == count ? TERSE_OK : TERSE_ECORRUPT;
}

size_t store_zset_form_size(const struct store_zset_el *a, size_t n)
{
    size_t size = n == 0 ? 0 : codec_varint_len(n);

    for (size_t i = 0; i < n; i++) {
        size += codec_varint_len(a[i].mlen) + a[i].mlen + 1 + STORE_ZSET_SCORE_LEN;
    }
    return size;
}

int store_zset_form_write(const struct store_zset_el *a, size_t n, uint8_t *out, size_t cap,
                          size_t *out_len)
{
    size_t at;

    *out_len = 0;
    if (n == 0) {
        return TERSE_OK;
    }
    if (store_zset_form_size(a, n) > cap) {
        return TERSE_ETOOBIG;
    }
    at = codec_varint_put(out, n);
    for (size_t i = 0; i < n; i++) {
        at += codec_varint_put(out + at, a[i].mlen);
        if (a[i].mlen > 0) {
            memcpy(out + at, a[i].m, a[i].mlen);
        }
        at += a[i].mlen;
        out[at++] = STORE_ZSET_SCORE_LEN;
        store_zset_score_put(out + at, a[i].score);
        at += STORE_ZSET_SCORE_LEN;
    }
    *out_len = at;
    return TERSE_OK;
}

size_t store_zset_lower_bound(const struct store_zset_el *a, size_t n,
                              const struct store_zset_el *el)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (store_zset_cmp(&a[mid], el) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* ---- sorting ------------------------------------------------------------------------------ */

static void swap_items(uint8_t *a, uint8_t *b, size_t size)
{
    uint8_t t[STORE_ZSET_SORT_ITEM_MAX];

    memcpy(t, a, size);
    memcpy(a, b, size);
    memcpy(b, t, size);
}

static void sift_down(uint8_t *base, size_t i, size_t n, size_t size,
                      int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;

        if (l < n && cmp(base + l * size, base + big * size) > 0) {
            big = l;
        }
        if (r < n && cmp(base + r * size, base + big * size) > 0) {
            big = r;
        }
        if (big == i) {
            return;
        }
        swap_items(base + i * size, base + big * size, size);
        i = big;
    }
}

void store_zset_sort(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b))
{
    uint8_t *b = base;

    assert(size <= STORE_ZSET_SORT_ITEM_MAX);
    for (size_t i = n / 2; i > 0; i--) {
        sift_down(b, i - 1, n, size, cmp);
    }
    for (size_t end = n; end > 1; end--) {
        swap_items(b, b + (end - 1) * size, size);
        sift_down(b, 0, end - 1, size, cmp);
    }
}
