/*
 * store_list: reads and writes the element form of a list (specified in store_list.h).
 * Bounded by the bytes given and the room given; no allocation.
 *
 * Writing. Elements are written front to back after room for the count at the width of a
 * hint (most edits know their result's count before they write, so the hint is exact and
 * nothing slides; store_list_remove guesses the old count, never too narrow); runs of old
 * elements are copied as bytes, in one memcpy per run, after the reader has checked each of
 * their lengths. When room runs out the elements first slide down to offset 1, so a cap that
 * fits the result is never refused (the hash form's writer does the same).
 */
#include "store/form/store_list.h"

#include "codec/codec_varint.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#include <assert.h>
#include <string.h>

int store_list_open(const uint8_t *form, size_t len, struct store_list_it *it, uint64_t *n)
{
    const uint8_t *p = form;

    if (form == NULL || store_varint_read(&p, form + len, n) != 0 || *n == 0) {
        return TERSE_ECORRUPT;
    }
    it->p = p;
    it->end = form + len;
    it->left = *n;
    return TERSE_OK;
}

uint64_t store_list_n(const uint8_t *form, size_t len)
{
    struct store_list_it it;
    uint64_t n = 0;

    return store_list_open(form, len, &it, &n) == TERSE_OK ? n : 0;
}

int store_list_next(struct store_list_it *it, const uint8_t **el, size_t *el_len)
{
    const uint8_t *p = it->p;
    uint64_t l;

    if (it->left == 0) {
        return it->p == it->end ? 0 : TERSE_ECORRUPT;
    }
    /* The cursor moves only past a whole element: an error stays (the same bytes fail again). */
    if (store_varint_read(&p, it->end, &l) != 0 || l > (uint64_t)(it->end - p)) {
        return TERSE_ECORRUPT;
    }
    *el = p;
    *el_len = (size_t)l;
    it->p = p + l;
    it->left--;
    return 1;
}

int store_list_check(const uint8_t *form, size_t len)
{
    struct store_list_it it;
    const uint8_t *el;
    size_t el_len;
    uint64_t n;
    int st = store_list_open(form, len, &it, &n);

    while (st == TERSE_OK && (st = store_list_next(&it, &el, &el_len)) == 1) {
        st = TERSE_OK;
    }
    return st == 0 ? TERSE_OK : st;
}

/* ---- writing -------------------------------------------------------------------------------- */

size_t store_list_el_size(size_t len)
{
    return codec_varint_len(len) + len;
}

void store_list_w_init(struct store_list_w *w, uint8_t *out, size_t cap, uint64_t n_hint)
{
    w->out = out;
    w->cap = cap;
    w->head = codec_varint_len(n_hint);
    w->len = w->head;
    w->n = 0;
    w->st = TERSE_OK; /* the count's room is needed only once an element comes */
}

/* Makes room for need more bytes: when cap runs out and the count's room is wider than one
 * byte, the elements slide down to offset 1 first (finish slides them back up by what the
 * count needs), so any cap that holds the result is enough, whatever the hint. */
static int w_room(struct store_list_w *w, size_t need)
{
    if (w->st != TERSE_OK) {
        return w->st;
    }
    if (w->len <= w->cap && need <= w->cap - w->len) {
        return TERSE_OK;
    }
    if (w->head > 1) {
        memmove(w->out + 1, w->out + w->head, w->len - w->head);
        w->len -= w->head - 1;
        w->head = 1;
        if (w->len <= w->cap && need <= w->cap - w->len) {
            return TERSE_OK;
        }
    }
    w->st = TERSE_ETOOBIG;
    return w->st;
}

void store_list_w_push(struct store_list_w *w, const uint8_t *el, size_t len)
{
    size_t vl = codec_varint_len(len);

    if (len > SIZE_MAX - vl || w_room(w, vl + len) != TERSE_OK) {
        w->st = TERSE_ETOOBIG;
        return;
    }
    w->len += codec_varint_put(w->out + w->len, len);
    if (len != 0) {
        memcpy(w->out + w->len, el, len);
    }
    w->len += len;
    w->n++;
}

void store_list_w_copy(struct store_list_w *w, const uint8_t *from, const uint8_t *to,
                       uint64_t n)
{
    size_t bytes = (size_t)(to - from);

    assert(to >= from && (n == 0) == (bytes == 0));
    if (bytes == 0 || w_room(w, bytes) != TERSE_OK) {
        return;
    }
    memcpy(w->out + w->len, from, bytes);
    w->len += bytes;
    w->n += n;
}

int store_list_w_finish(struct store_list_w *w, size_t *out_len)
{
    size_t width, body;

    *out_len = 0;
    if (w->st != TERSE_OK) {
        return w->st;
    }
    if (w->n == 0) {
        return TERSE_OK;
    }
    width = codec_varint_len(w->n);
    body = w->len - w->head;
    if (width != w->head) {
        /* The hint's width was wrong (or room ran out): slide the elements once. */
        if (width > w->head && (w->len > w->cap || width - w->head > w->cap - w->len)) {
            w->st = TERSE_ETOOBIG;
            return w->st;
        }
        memmove(w->out + width, w->out + w->head, body);
    }
    codec_varint_put(w->out, w->n);
    *out_len = width + body;
    return TERSE_OK;
}

int store_list_skip(struct store_list_it *it, uint64_t k)
{
    const uint8_t *el;
    size_t el_len;

    if (k > it->left) {
        return TERSE_ECORRUPT;
    }
    while (k-- > 0) {
        if (store_list_next(it, &el, &el_len) != 1) {
            return TERSE_ECORRUPT;
        }
    }
    return TERSE_OK;
}

int store_list_splice(const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                      const struct store_list_el *ins, size_t n_ins, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    struct store_list_w w;
    struct store_list_it it = {NULL, NULL, 0};
    const uint8_t *run, *el;
    size_t el_len;
    uint64_t n = 0;
    int st;

    *out_len = 0;
    if (form != NULL || len != 0) {
        st = store_list_open(form, len, &it, &n);
        if (st != TERSE_OK) {
            return st;
        }
    }
    if (at > n || n_del > n - at) {
        /* A corrupt form is reported as such whatever the arguments. */
        st = n == 0 ? TERSE_OK : store_list_check(form, len);
        return st == TERSE_OK ? TERSE_EINVAL : st;
    }
    store_list_w_init(&w, out, cap, n - n_del + n_ins);
    run = it.p;
    if (store_list_skip(&it, at) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    store_list_w_copy(&w, run, it.p, at);
    for (size_t i = 0; i < n_ins; i++) {
        store_list_w_push(&w, ins[i].p, ins[i].len);
    }
    if (store_list_skip(&it, n_del) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    /* The tail is copied as one run, after every length in it was checked. */
    run = it.p;
    while ((st = store_list_next(&it, &el, &el_len)) == 1) {
    }
    if (st != 0) {
        return TERSE_ECORRUPT;
    }
    store_list_w_copy(&w, run, it.p, n - at - n_del);
    return store_list_w_finish(&w, out_len);
}

int store_list_range(const uint8_t *form, size_t len, uint64_t at, uint64_t n_keep,
                     uint8_t *out, size_t cap, size_t *out_len)
{
    struct store_list_w w;
    struct store_list_it it;
    const uint8_t *run, *el;
    size_t el_len;
    uint64_t n;
    int st;

    *out_len = 0;
    st = store_list_check(form, len);
    if (st != TERSE_OK) {
        return st;
    }
    (void)store_list_open(form, len, &it, &n);
    if (at > n || n_keep > n - at) {
        return TERSE_EINVAL;
    }
    store_list_w_init(&w, out, cap, n_keep);
    (void)store_list_skip(&it, at);
    run = it.p;
    for (uint64_t i = 0; i < n_keep; i++) {
        (void)store_list_next(&it, &el, &el_len);
    }
    store_list_w_copy(&w, run, it.p, n_keep);
    return store_list_w_finish(&w, out_len);
}

static int el_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

int store_list_count(const uint8_t *form, size_t len, const uint8_t *el, size_t el_len,
                     uint64_t *count)
{
    struct store_list_it it;
    const uint8_t *p;
    size_t plen;
    uint64_t n;
    int st = store_list_open(form, len, &it, &n);

    *count = 0;
    while (st == TERSE_OK && (st = store_list_next(&it, &p, &plen)) == 1) {
        *count += (uint64_t)el_eq(p, plen, el, el_len);
        st = TERSE_OK;
    }
    return st == 0 ? TERSE_OK : TERSE_ECORRUPT;
}

int store_list_remove(const uint8_t *form, size_t len, const uint8_t *el, size_t el_len,
                      uint64_t skip, uint64_t max, uint8_t *out, size_t cap, size_t *out_len,
                      uint64_t *removed)
{
    struct store_list_w w;
    struct store_list_it it;
    const uint8_t *run, *at, *p;
    size_t plen;
    uint64_t n, kept = 0;
    int st = store_list_open(form, len, &it, &n);

    *out_len = 0;
    *removed = 0;
    if (st != TERSE_OK) {
        return st;
    }
    /* The old count's width: the result's is never wider, so finish only slides down. */
    store_list_w_init(&w, out, cap, n);
    run = it.p;
    for (;;) {
        at = it.p;
        st = store_list_next(&it, &p, &plen);
        if (st != 1) {
            break;
        }
        if (*removed < max && el_eq(p, plen, el, el_len)) {
            if (skip > 0) {
                skip--;
            } else {
                store_list_w_copy(&w, run, at, kept);
                run = it.p;
                kept = 0;
                (*removed)++;
                continue;
            }
        }
        kept++;
    }
    if (st != 0) {
        *removed = 0;
        return TERSE_ECORRUPT;
    }
    store_list_w_copy(&w, run, it.p, kept);
    return store_list_w_finish(&w, out_len);
}
