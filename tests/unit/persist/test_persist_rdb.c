/*
 * Unit tests for persist_rdb (Redis's RDB serialization): the CRC-64 check value; DUMP and
 * read back of every type (strings raw, empty, integer-looking, int64 extremes, LZF; lists of
 * every listpack entry width over many nodes; hashes; sets of members and of integers; sorted
 * sets with infinities; streams with groups, consumers and PELs); hand-built payloads in the
 * encodings Redis no longer writes (ziplist, intset of each width, zipmap, LZF); every corrupt
 * class: wrong version, every flipped byte of the CRC'd bytes, truncation at every offset,
 * lengths and counts past the payload, LZF sizes that lie, duplicates, NaN, empty
 * collections; allocation failure at every allocation; and the whole-file writer (magic,
 * SELECTDB, expired keys left out, the file's CRC, a write error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <liblzf/lzf.h>

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "persist/persist_rdb.h"
#include "persist/persist_rdb_internal.h"
#include "store/form/store_list.h"
#include "store/form/store_stream.h"
#include "store/form/store_zset.h"
#include "terse/status.h"

#define T0 1700000000000LL

/* ---- a counting allocator that can fail its Nth call -------------------------------------- */

struct fail_alloc {
    long n_live;
    long fail_at; /* -1: never */
    long calls;
};

static void *fa_alloc(void *opaque, size_t n)
{
    struct fail_alloc *f = opaque;
    if (f->fail_at >= 0 && f->calls++ == f->fail_at) {
        return NULL;
    }
    f->n_live++;
    return malloc(n);
}

static void fa_free(void *opaque, void *p)
{
    struct fail_alloc *f = opaque;
    if (p != NULL) {
        f->n_live--;
    }
    free(p);
}

/* ---- forms -------------------------------------------------------------------------------- */

struct buf {
    uint8_t p[1 << 20];
    size_t len;
};

static void put_el(struct buf *b, const void *p, size_t n)
{
    b->len += codec_varint_put(b->p + b->len, n);
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* A hash form of n pairs <prefix><i> -> val<7i> (values empty for a set). */
static void hash_form(struct buf *b, size_t n, int values, const char *prefix)
{
    char f[32], v[32];

    b->len = codec_varint_put(b->p, n);
    for (size_t i = 0; i < n; i++) {
        int fl = snprintf(f, sizeof(f), "%s%zu", prefix, i);
        int vl = snprintf(v, sizeof(v), "val%zu", i * 7);
        put_el(b, f, (size_t)fl);
        put_el(b, v, values ? (size_t)vl : 0);
    }
}

static uint8_t payload[1 << 21];

/* DUMP v, check the footer, read it back: the value read. */
static void round_trip(struct persist_rdb_work *w, const struct persist_rdb_value *v,
                       struct persist_rdb_value *back, size_t *plen)
{
    size_t need = 0, len = 0;

    assert_int_equal(persist_rdb_dump(v, NULL, NULL, 0, &need), TERSE_ETOOBIG);
    assert_true(need <= sizeof(payload));
    assert_int_equal(persist_rdb_dump(v, NULL, payload, need - 1, &len), TERSE_ETOOBIG);
    assert_int_equal(persist_rdb_dump(v, NULL, payload, need, &len), TERSE_OK);
    assert_int_equal(len, need);
    assert_int_equal(persist_rdb_payload_check(payload, len), TERSE_OK);
    assert_int_equal(persist_rdb_value_read(w, payload, len - PERSIST_RDB_FOOTER_LEN, back, NULL),
                     TERSE_OK);
    assert_int_equal(back->type, v->type);
    *plen = len;
}

static void same_bytes(const struct persist_rdb_value *v, const struct persist_rdb_value *back)
{
    assert_int_equal(back->len, v->len);
    assert_memory_equal(back->p, v->p, v->len);
}

/* Every truncation of the object fails, and every single flipped byte fails the footer. */
static void corrupt_all(struct persist_rdb_work *w, size_t len)
{
    struct persist_rdb_value v;
    uint8_t *copy = malloc(len);

    assert_non_null(copy);
    for (size_t k = 0; k < len - PERSIST_RDB_FOOTER_LEN; k++) {
        memcpy(copy, payload, k); /* exactly k bytes: ASan sees any read past them */
        assert_int_not_equal(persist_rdb_value_read(w, copy, k, &v, NULL), TERSE_OK);
    }
    for (size_t k = 0; k < len; k++) {
        memcpy(copy, payload, len);
        copy[k] ^= 0x20;
        assert_int_equal(persist_rdb_payload_check(copy, len), TERSE_ECORRUPT);
    }
    free(copy);
}

static void test_crc64(void **state)
{
    (void)state;
    assert_true(persist_rdb_crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
    assert_true(persist_rdb_crc64(persist_rdb_crc64(0, "1234", 4), "56789", 5) ==
                0xe9c6d914c4b8d9caULL);
}

static void test_strings(void **state)
{
    static uint8_t big[100000];
    struct persist_rdb_work w;
    struct persist_rdb_value back, v = {.type = STORE_TYPE_STRING};
    const char *texts[] = {"", "hello", "123", "-2147483648", "2147483648", "0123", "-0",
                           "12345678901234567890"};
    size_t len;

    (void)state;
    persist_rdb_work_init(&w, NULL);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        v.p = (const uint8_t *)texts[i];
        v.len = strlen(texts[i]);
        round_trip(&w, &v, &back, &len);
        same_bytes(&v, &back);
        corrupt_all(&w, len);
    }
    for (size_t i = 0; i < sizeof(big); i++) {
        big[i] = (uint8_t)(i * 31 + (i >> 8));
    }
    v.p = big;
    v.len = sizeof(big);
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back);
    v.is_int = 1;
    for (int i = 0; i < 3; i++) {
        char num[24];
        int64_t ints[] = {INT64_MIN, INT64_MAX, -5};
        v.ival = ints[i];
        round_trip(&w, &v, &back, &len);
        assert_int_equal(back.len, (size_t)snprintf(num, sizeof(num), "%lld", (long long)v.ival));
        assert_memory_equal(back.p, num, back.len);
    }
    persist_rdb_work_deinit(&w);
}

static void test_lzf_string(void **state)
{
    static uint8_t src[5000], comp[6000], obj[7000];
    struct persist_rdb_work w;
    struct persist_rdb_value v;
    unsigned clen;
    size_t n = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(src); i++) {
        src[i] = (uint8_t)("abcabcabd"[i % 9]);
    }
    clen = lzf_compress(src, sizeof(src), comp, sizeof(comp));
    assert_true(clen > 0);
    obj[n++] = RDB_TYPE_STRING;
    obj[n++] = 0xC3;
    obj[n++] = 0x40 | (uint8_t)(clen >> 8);
    obj[n++] = (uint8_t)clen;
    obj[n++] = 0x40 | (uint8_t)(sizeof(src) >> 8);
    obj[n++] = (uint8_t)sizeof(src);
    memcpy(obj + n, comp, clen);
    n += clen;
    persist_rdb_work_init(&w, NULL);
    assert_int_equal(persist_rdb_value_read(&w, obj, n, &v, NULL), TERSE_OK);
    assert_int_equal(v.len, sizeof(src));
    assert_memory_equal(v.p, src, sizeof(src));
    /* a declared length that is not what the block gives */
    obj[5] = (uint8_t)(sizeof(src) + 1);
    assert_int_equal(persist_rdb_value_read(&w, obj, n, &v, NULL), TERSE_ECORRUPT);
    /* a declared length beyond the ratio cap: refused before anything is allocated */
    obj[4] = 0x80;
    memcpy(obj + 5, "\x10\x00\x00\x00", 4);
    assert_int_equal(persist_rdb_value_read(&w, obj, 9, &v, NULL), TERSE_ECORRUPT);
    persist_rdb_work_deinit(&w);
}

static void test_list(void **state)
{
    static struct buf b;
    static uint8_t el[20000];
    struct persist_rdb_work w;
    struct persist_rdb_value back, v = {.type = STORE_TYPE_LIST};
    struct store_list_w lw;
    const char *ints[] = {"0", "127", "-1", "4095", "-4096", "32767", "-32768", "8388607",
                          "-8388608", "2147483647", "-2147483648", "9223372036854775807",
                          "-9223372036854775808", "007", "1.5"};
    size_t len;

    (void)state;
    memset(el, 'q', sizeof(el));
    store_list_w_init(&lw, b.p, sizeof(b.p), 0);
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
            store_list_w_push(&lw, (const uint8_t *)ints[i], strlen(ints[i]));
        }
        store_list_w_push(&lw, el, (size_t)round * 500); /* 6-bit, 12-bit and 32-bit lengths */
    }
    assert_int_equal(store_list_w_finish(&lw, &b.len), TERSE_OK);
    v.p = b.p;
    v.len = b.len;
    persist_rdb_work_init(&w, NULL);
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back);
    /* small: every truncation */
    store_list_w_init(&lw, b.p, sizeof(b.p), 0);
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        store_list_w_push(&lw, (const uint8_t *)ints[i], strlen(ints[i]));
    }
    assert_int_equal(store_list_w_finish(&lw, &b.len), TERSE_OK);
    v.len = b.len;
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back);
    corrupt_all(&w, len);
    persist_rdb_work_deinit(&w);
}

static void test_hash_set_zset(void **state)
{
    static struct buf b;
    static struct store_zset_el els[300];
    static char names[300][16];
    struct persist_rdb_work w;
    struct persist_rdb_value back, v;
    size_t len;

    (void)state;
    persist_rdb_work_init(&w, NULL);
    for (size_t n = 1; n <= 300; n += 299) {
        v = (struct persist_rdb_value){.type = STORE_TYPE_HASH};
        hash_form(&b, n, 1, "field");
        v.p = b.p;
        v.len = b.len;
        round_trip(&w, &v, &back, &len);
        same_bytes(&v, &back);
        if (n == 1) {
            corrupt_all(&w, len);
        }
        v.type = STORE_TYPE_SET; /* members in insertion order */
        hash_form(&b, n, 0, "m");
        v.len = b.len;
        round_trip(&w, &v, &back, &len);
        same_bytes(&v, &back);
        hash_form(&b, n, 0, ""); /* integers: ascending, as written */
        v.len = b.len;
        round_trip(&w, &v, &back, &len);
        same_bytes(&v, &back);
    }
    for (size_t i = 0; i < 300; i++) {
        els[i].mlen = (size_t)snprintf(names[i], sizeof(names[i]), "m%03zu", i);
        els[i].m = (const uint8_t *)names[i];
        els[i].score = i == 0 ? -1.0 / 0.0 : i == 299 ? 1.0 / 0.0 : (double)i / 3;
    }
    assert_int_equal(store_zset_form_write(els, 300, b.p, sizeof(b.p), &b.len), TERSE_OK);
    v = (struct persist_rdb_value){.type = STORE_TYPE_ZSET, .p = b.p, .len = b.len};
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back);
    assert_int_equal(store_zset_form_write(els, 3, b.p, sizeof(b.p), &b.len), TERSE_OK);
    v.len = b.len;
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back);
    corrupt_all(&w, len);
    persist_rdb_work_deinit(&w);
}

/* A stream: 50 entries over 3 nodes, two groups with consumers and pending entries. */
static void stream_form(struct buf *b)
{
    static uint8_t pairs[50][64];
    struct store_stream s;
    bool found;

    store_stream_init(&s, NULL);
    s.entries_added = 60;
    s.max_deleted = (struct store_stream_id){3, 0};
    for (size_t i = 0; i < 50; i++) {
        size_t n = 0;
        char val[16];
        int vl = snprintf(val, sizeof(val), "%zu", i * 1000);
        struct store_stream_entry e = {.id = {10 + i, i % 3}, .n_pairs = i % 5 == 0 ? 2 : 1};

        n += codec_varint_put(pairs[i] + n, 1);
        pairs[i][n++] = 'a';
        n += codec_varint_put(pairs[i] + n, (uint64_t)vl);
        memcpy(pairs[i] + n, val, (size_t)vl);
        n += (size_t)vl;
        if (e.n_pairs == 2) {
            n += codec_varint_put(pairs[i] + n, 2);
            memcpy(pairs[i] + n, "bb", 2);
            n += 2;
            n += codec_varint_put(pairs[i] + n, 0);
        }
        e.pairs = pairs[i];
        e.pairs_len = n;
        assert_int_equal(store_stream_append(&s, &e, 20, UINT64_MAX), TERSE_OK);
        s.last_id = e.id;
    }
    for (int g = 0; g < 2; g++) {
        struct store_stream_group *gr;
        size_t at = store_stream_group_find(&s, (const uint8_t *)(g ? "g2" : "g1"), 2, &found);
        assert_int_equal(store_stream_group_insert(&s, at, (const uint8_t *)(g ? "g2" : "g1"), 2,
                                                   (struct store_stream_id){20, 1}, g ? -1 : 11),
                         TERSE_OK);
        gr = &s.groups[at];
        assert_int_equal(store_stream_consumer_insert(&s, gr, 0, (const uint8_t *)"bob", 3, T0),
                         TERSE_OK);
        assert_int_equal(store_stream_consumer_insert(&s, gr, 0, (const uint8_t *)"al", 2, T0 + 1),
                         TERSE_OK);
        for (size_t i = 0; i < 6; i++) {
            struct store_stream_pending p = {.id = {10 + i, i % 3}, .consumer = i % 2,
                                             .delivery_ms = T0 - (int64_t)i, .delivery_count = i};
            assert_int_equal(store_stream_pel_insert(&s, gr, i, &p), TERSE_OK);
        }
    }
    assert_int_equal(store_stream_encode(&s, b->p, sizeof(b->p), &b->len), TERSE_OK);
    store_stream_deinit(&s);
}

static void test_stream(void **state)
{
    static struct buf b;
    struct persist_rdb_work w;
    struct persist_rdb_value back, v = {.type = STORE_TYPE_STREAM};
    size_t len;

    (void)state;
    stream_form(&b);
    v.p = b.p;
    v.len = b.len;
    persist_rdb_work_init(&w, NULL);
    round_trip(&w, &v, &back, &len);
    same_bytes(&v, &back); /* no deleted entries: the nodes' slots come back the same */
    corrupt_all(&w, len);
    persist_rdb_work_deinit(&w);
}

/* Objects in the encodings Redis no longer writes, against the form they must give. */
static void expect_form(struct persist_rdb_work *w, const uint8_t *obj, size_t n,
                        enum store_type type, const char *const *els, size_t n_els)
{
    struct persist_rdb_value v;
    uint8_t want[512];
    size_t wl = codec_varint_put(want, n_els / (type == STORE_TYPE_LIST ? 1 : 2));

    for (size_t i = 0; i < n_els; i++) {
        wl += codec_varint_put(want + wl, strlen(els[i]));
        memcpy(want + wl, els[i], strlen(els[i]));
        wl += strlen(els[i]);
    }
    assert_int_equal(persist_rdb_value_read(w, obj, n, &v, NULL), TERSE_OK);
    assert_int_equal(v.type, type);
    assert_int_equal(v.len, wl);
    assert_memory_equal(v.p, want, wl);
}

static void test_legacy(void **state)
{
    /* ziplist: "ab", 5 (immediate), -2 (int8), 300 (int16), 70000 (int24), 2^31 (int64) */
    static const uint8_t zl_list[] = {
        RDB_TYPE_LIST_ZIPLIST, 39, 39, 0, 0, 0, 28, 0, 0, 0, 6, 0,
        0, 0x02, 'a', 'b', 4, 0xF6, 2, 0xFE, 0xFE, 3, 0xC0, 0x2C, 0x01,
        4, 0xF0, 0x70, 0x11, 0x01, 5, 0xE0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0xFF};
    static const char *const zl_want[] = {"ab", "5", "-2", "300", "70000", "2147483648"};
    /* intset of int32: -7, 1, 100000 */
    static const uint8_t is32[] = {RDB_TYPE_SET_INTSET, 20, 4, 0, 0, 0, 3, 0, 0, 0,
                                   0xF9, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 0xA0, 0x86, 0x01, 0};
    static const char *const is_want[] = {"-7", "", "1", "", "100000", ""};
    /* zipmap: a -> 1, bb -> "" */
    static const uint8_t zm[] = {RDB_TYPE_HASH_ZIPMAP, 13, 2, 1, 'a', 1, 0, '1',
                                 2, 'b', 'b', 0, 1, 'x', 0xFF};
    static const char *const zm_want[] = {"a", "1", "bb", ""};
    struct persist_rdb_work w;
    struct persist_rdb_value v;
    uint8_t bad[64];

    (void)state;
    persist_rdb_work_init(&w, NULL);
    expect_form(&w, zl_list, sizeof(zl_list), STORE_TYPE_LIST, zl_want, 6);
    expect_form(&w, is32, sizeof(is32), STORE_TYPE_SET, is_want, 6);
    expect_form(&w, zm, sizeof(zm), STORE_TYPE_HASH, zm_want, 4);
    /* an intset not strictly ascending holds a member twice */
    memcpy(bad, is32, sizeof(is32));
    memcpy(bad + 14, "\xF9\xFF\xFF\xFF", 4);
    assert_int_equal(persist_rdb_value_read(&w, bad, sizeof(is32), &v, NULL), TERSE_ECORRUPT);
    /* a ziplist whose total length lies */
    memcpy(bad, zl_list, sizeof(zl_list));
    bad[2] = 40;
    assert_int_equal(persist_rdb_value_read(&w, bad, sizeof(zl_list), &v, NULL),
                     TERSE_ECORRUPT);
    persist_rdb_work_deinit(&w);
}

static void test_corrupt_classes(void **state)
{
    struct {
        const char *obj;
        size_t n;
    } bad[] = {
        {"\x00\x81\xff\xff\xff\xff\xff\xff\xff\xff", 10},   /* string of 2^64 - 1 bytes */
        {"\x01\x80\x7f\xff\xff\xff\x01" "a", 8},               /* list count past the payload */
        {"\x01\x00", 2},                                    /* empty list */
        {"\x02\x02\x01" "a\x01" "a", 6},                          /* set member twice */
        {"\x04\x02\x01" "f\x01v\x01" "f\x01w", 10},               /* hash field twice */
        {"\x05\x01\x01m\x00\x00\x00\x00\x00\x00\xf8\x7f", 12}, /* NaN score */
        {"\x03\x01\x01m\xfd", 5},                           /* NaN score, string form */
        {"\x03\x01\x01m\x03" "abc", 8},                        /* score that is no number */
        {"\x07\x05", 2},                                    /* a module value */
        {"\x14\x01", 2},                                    /* Redis 7.2's set listpack */
        {"\x12\x01\x03\x01x", 5},                           /* unknown quicklist container */
        {"\x00\xc4", 2},                                    /* unknown string encoding */
        {"\x0b\x08\x02\x00\x00\x00\x05\x00\x00\x00", 10},   /* intset count past its bytes */
    };
    struct persist_rdb_work w;
    struct persist_rdb_value v;
    struct persist_error err;
    uint8_t foot[PERSIST_RDB_FOOTER_LEN + 1] = {0};

    (void)state;
    persist_rdb_work_init(&w, NULL);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t *copy = malloc(bad[i].n);
        memcpy(copy, bad[i].obj, bad[i].n);
        assert_int_equal(persist_rdb_value_read(&w, copy, bad[i].n, &v, &err), TERSE_ECORRUPT);
        assert_true(err.reason[0] != '\0');
        assert_true(err.offset <= bad[i].n);
        free(copy);
    }
    /* version 11 is refused, 9 accepted (its CRC made right) */
    foot[0] = 0;
    for (int ver = 9; ver <= 11; ver += 2) {
        uint64_t crc;
        foot[1] = (uint8_t)ver;
        foot[2] = 0;
        crc = persist_rdb_crc64(0, foot, 3);
        rdb_put_le(foot + 3, crc, 8);
        assert_int_equal(persist_rdb_payload_check(foot, sizeof(foot)),
                         ver == 9 ? TERSE_OK : TERSE_ECORRUPT);
    }
    assert_int_equal(persist_rdb_payload_check(foot, 9), TERSE_ECORRUPT);
    persist_rdb_work_deinit(&w);
}

static void test_oom(void **state)
{
    static struct buf b;
    struct persist_rdb_value v = {.type = STORE_TYPE_STREAM}, back;
    size_t len;
    int done = 0;

    (void)state;
    stream_form(&b);
    v.p = b.p;
    v.len = b.len;
    {
        struct persist_rdb_work w;
        persist_rdb_work_init(&w, NULL);
        round_trip(&w, &v, &back, &len);
        persist_rdb_work_deinit(&w);
    }
    for (long n = 0; !done; n++) {
        struct fail_alloc fa = {0, n, 0};
        terse_allocator a = {fa_alloc, fa_free, &fa};
        struct persist_rdb_work w;
        int st;

        persist_rdb_work_init(&w, &a);
        st = persist_rdb_value_read(&w, payload, len - PERSIST_RDB_FOOTER_LEN, &back, NULL);
        assert_true(st == TERSE_OK || st == TERSE_ENOMEM);
        done = st == TERSE_OK;
        persist_rdb_work_deinit(&w);
        assert_int_equal(fa.n_live, 0);
        st = persist_rdb_dump(&v, &a, payload, sizeof(payload), &len);
        assert_true(st == TERSE_OK || st == TERSE_ENOMEM);
        assert_int_equal(fa.n_live, 0);
    }
}

static void test_save_fd(void **state)
{
    static struct buf b;
    static uint8_t stored[1 << 16], file[1 << 20];
    struct store_shard *s;
    struct codec_ctx *codec;
    struct persist_save_stats st;
    struct persist_error err;
    char path[] = "/tmp/terse-rdb-XXXXXX";
    size_t slen;
    ssize_t n;
    int fd;

    (void)state;
    assert_int_equal(store_shard_create(&s, 16), TERSE_OK);
    assert_int_equal(codec_ctx_create(&codec, NULL), TERSE_OK);
    hash_form(&b, 10, 1, "f");
    assert_int_equal(codec_value_encode(codec, b.p, b.len, stored, sizeof(stored), &slen),
                     TERSE_OK);
    assert_int_equal(store_set_value(s, 0, "h", 1, STORE_TYPE_HASH, stored, slen, T0 + 5000, T0,
                                     0), TERSE_OK);
    assert_int_equal(store_set_int(s, 3, "n", 1, 42, STORE_NO_EXPIRE, T0), TERSE_OK);
    assert_int_equal(store_set_int(s, 3, "expired-key", 11, 1, T0 - 1, T0 - 10), TERSE_OK);
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(persist_rdb_save_fd(s, codec, fd, T0, 1234, NULL, NULL, &st, &err),
                     TERSE_OK);
    assert_int_equal(st.n_keys, 2);
    n = pread(fd, file, sizeof(file), 0);
    assert_int_equal((size_t)n, st.file_bytes);
    assert_memory_equal(file, "REDIS0010", 9);
    assert_true(persist_rdb_crc64(0, file, (size_t)n - 8) == rdb_get_le(file + n - 8, 8));
    assert_int_equal(file[n - 9], RDB_OPCODE_EOF);
    assert_null(memmem(file, (size_t)n, "expired-key", 11));
    assert_non_null(memmem(file, (size_t)n, "\xfe\x03\xfb\x02\x01", 5)); /* db 3: 2 keys, 1 ttl */
    close(fd);
    unlink(path);
    /* a write error: a descriptor open for reading only */
    fd = open("/dev/null", O_RDONLY);
    assert_int_equal(persist_rdb_save_fd(s, codec, fd, T0, 0, NULL, NULL, &st, &err), TERSE_EIO);
    assert_true(err.reason[0] != '\0');
    close(fd);
    codec_ctx_destroy(&codec);
    store_shard_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc64),       cmocka_unit_test(test_strings),
        cmocka_unit_test(test_lzf_string),  cmocka_unit_test(test_list),
        cmocka_unit_test(test_hash_set_zset), cmocka_unit_test(test_stream),
        cmocka_unit_test(test_legacy),      cmocka_unit_test(test_corrupt_classes),
        cmocka_unit_test(test_oom),         cmocka_unit_test(test_save_fd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
