/*
 * store_set: the set form writer (store_set.h). The form is store_hash.h's:
 *
 *   n varint | (mlen varint | member | 0x00) * n
 *
 * (each value is empty: a zero length and no bytes). LEB128 varints in their shortest spelling
 * (codec_varint_put), so the bytes equal what store_hash_edit writes for the same members in
 * the same order.
 *
 * Sorting (store_set_form_sorted) runs in the caller's array: an all-integer set gains a few
 * members at its end between rewrites, so the ascending prefix is kept, the tail heapsorted
 * (in place, bounded stack, unlike qsort, which may allocate), and the two merged into the
 * array's second half; the members then move to the front as plain store_hash_kv (smaller
 * than store_set_num, so the copy never overtakes what it reads) for store_set_form_write.
 */
#include "store/form/store_set.h"

#include <string.h>

#include "codec/codec_varint.h"
#include "terse/status.h"

size_t store_set_form_size(const struct store_hash_kv *m, size_t n)
{
    size_t size = n == 0 ? 0 : codec_varint_len(n);

    for (size_t i = 0; i < n; i++) {
        size += codec_varint_len(m[i].flen) + m[i].flen + 1;
    }
    return size;
}

int store_set_form_write(const struct store_hash_kv *m, size_t n, uint8_t *out, size_t cap,
                         size_t *out_len)
{
    size_t at;

    *out_len = 0;
    if (n == 0) {
        return TERSE_OK;
    }
    if (store_set_form_size(m, n) > cap) {
        return TERSE_ETOOBIG;
    }
    at = codec_varint_put(out, n);
    for (size_t i = 0; i < n; i++) {
        at += codec_varint_put(out + at, m[i].flen);
        memcpy(out + at, m[i].f, m[i].flen);
        at += m[i].flen;
        out[at++] = 0;
    }
    *out_len = at;
    return TERSE_OK;
}

static void sift_down(struct store_set_num *a, size_t i, size_t n)
{
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;
        struct store_set_num t;

        if (l < n && a[l].v > a[big].v) {
            big = l;
        }
        if (r < n && a[r].v > a[big].v) {
            big = r;
        }
        if (big == i) {
            return;
        }
        t = a[i];
        a[i] = a[big];
        a[big] = t;
        i = big;
    }
}

static void heap_sort(struct store_set_num *a, size_t n)
{
    for (size_t i = n / 2; i > 0; i--) {
        sift_down(a, i - 1, n);
    }
    for (size_t end = n; end > 1; end--) {
        struct store_set_num t = a[0];
        a[0] = a[end - 1];
        a[end - 1] = t;
        sift_down(a, 0, end - 1);
    }
}

int store_set_form_sorted(struct store_set_num *a, size_t n, uint8_t *out, size_t cap,
                          size_t *out_len)
{
    struct store_set_num *b = a + n;
    struct store_hash_kv *m = (struct store_hash_kv *)(void *)a;
    size_t k = 1, i, j, o;

    _Static_assert(sizeof(struct store_hash_kv) <= sizeof(struct store_set_num),
                   "the members move to the front without overtaking their source");
    if (n == 0) {
        *out_len = 0;
        return TERSE_OK;
    }
    while (k < n && a[k - 1].v < a[k].v) {
        k++;
    }
    heap_sort(a + k, n - k);
    for (i = 0, j = k, o = 0; o < n; o++) {
        b[o] = (j >= n || (i < k && a[i].v < a[j].v)) ? a[i++] : a[j++];
    }
    for (i = 0; i < n; i++) {
        m[i] = b[i].kv;
    }
    return store_set_form_write(m, n, out, cap, out_len);
}
