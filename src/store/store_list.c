/*
 * store_list: reads the element form of a list (specified in store_list.h). Bounded by the
 * bytes given; no allocation.
 */
#include "store/store_list.h"

#include "store/store_varint.h"
#include "terse/status.h"

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

int store_list_next(struct store_list_it *it, const uint8_t **el, size_t *el_len)
{
    uint64_t l;

    if (it->left == 0) {
        return it->p == it->end ? 0 : TERSE_ECORRUPT;
    }
    if (store_varint_read(&it->p, it->end, &l) != 0 || l > (uint64_t)(it->end - it->p)) {
        return TERSE_ECORRUPT;
    }
    *el = it->p;
    *el_len = (size_t)l;
    it->p += l;
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
