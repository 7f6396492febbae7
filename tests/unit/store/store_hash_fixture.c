/*
 * store_hash_fixture: the form helpers of the store_hash tests (see store_hash_fixture.h).
 */
#include "store_hash_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec/codec_varint.h"
#include "terse/status.h"

#define GUARD 64 /* bytes past cap that must stay untouched */

size_t store_hash_fixture_form(uint8_t *out, uint64_t count, const struct store_hash_kv *kv,
                               size_t n)
{
    size_t len = codec_varint_put(out, count);

    for (size_t i = 0; i < n; i++) {
        len += codec_varint_put(out + len, kv[i].flen);
        memcpy(out + len, kv[i].f, kv[i].flen);
        len += kv[i].flen;
        len += codec_varint_put(out + len, kv[i].vlen);
        memcpy(out + len, kv[i].v, kv[i].vlen);
        len += kv[i].vlen;
    }
    return len;
}

size_t store_hash_fixture_bound(size_t len, const struct store_hash_kv *set, size_t n)
{
    size_t b = len + 10;

    for (size_t i = 0; i < n; i++) {
        b += store_hash_pair_overhead(set[i].flen, set[i].vlen) + set[i].flen + set[i].vlen;
    }
    return b;
}

uint8_t *store_hash_fixture_edit(const uint8_t *form, size_t len, const struct store_hash_kv *set,
                                 size_t n, const struct store_hash_kv *del, size_t m,
                                 size_t *out_len, size_t *added, size_t *removed)
{
    size_t cap = store_hash_fixture_bound(len, set, n);
    uint8_t *out = malloc(cap + GUARD);
    uint8_t *again;
    size_t len2, a2, r2;

    assert_non_null(out);
    memset(out + cap, 0xa5, GUARD);
    assert_int_equal(
        store_hash_edit(form, len, set, n, del, m, out, cap, out_len, added, removed),
        TERSE_OK);
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(out[cap + i], 0xa5);
    }
    assert_true(*out_len <= cap);
    for (size_t c = *out_len; c + 2 > *out_len && c != SIZE_MAX; c--) {
        again = malloc(c + GUARD);
        assert_non_null(again);
        memset(again + c, 0x5a, GUARD);
        if (c == *out_len) {
            assert_int_equal(
                store_hash_edit(form, len, set, n, del, m, again, c, &len2, &a2, &r2), TERSE_OK);
            assert_int_equal(len2, *out_len);
            assert_int_equal(a2, *added);
            assert_int_equal(r2, *removed);
            if (len2 != 0) {
                assert_memory_equal(again, out, len2);
            }
        } else {
            assert_int_equal(
                store_hash_edit(form, len, set, n, del, m, again, c, &len2, &a2, &r2),
                TERSE_ETOOBIG);
        }
        for (size_t i = 0; i < GUARD; i++) {
            assert_int_equal(again[c + i], 0x5a);
        }
        free(again);
    }
    if (*out_len == 0) {
        free(out);
        return NULL;
    }
    assert_int_equal(store_hash_check(out, *out_len), TERSE_OK);
    return out;
}

void store_hash_fixture_expect(const uint8_t *form, size_t len, const struct store_hash_kv *kv,
                               size_t n)
{
    struct store_hash_it it;
    struct store_hash_kv got;
    uint64_t count;

    assert_int_equal(store_hash_open(form, len, &it, &count), TERSE_OK);
    assert_int_equal(count, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(store_hash_next(&it, &got), 1);
        assert_int_equal(got.flen, kv[i].flen);
        assert_int_equal(got.vlen, kv[i].vlen);
        if (got.flen != 0) {
            assert_memory_equal(got.f, kv[i].f, got.flen);
        }
        if (got.vlen != 0) {
            assert_memory_equal(got.v, kv[i].v, got.vlen);
        }
    }
    assert_int_equal(store_hash_next(&it, &got), 0);
    assert_int_equal(store_hash_next(&it, &got), 0);
}
