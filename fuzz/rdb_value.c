/*
 * fuzz target rdb_value: hostile bytes as a DUMP payload (persist_rdb.h).
 *
 * The input is taken as a whole payload: the footer check runs on it (its answer is not
 * asserted: a random CRC rarely matches), then the object reader on the bytes before the
 * footer, and on the whole input as well (so inputs need no valid CRC to reach the reader).
 * Properties checked on every input:
 *   - nothing reads past the input (the replay driver and libFuzzer give a block of exactly
 *     its size), nothing crashes or leaks, every failure is TERSE_ECORRUPT, TERSE_ETOOBIG or
 *     TERSE_ENOMEM;
 *   - a value read is one the store accepts: a string, or a form its checker passes (the
 *     reader checks that; here the round trip below relies on it);
 *   - DUMP of the value read gives a payload whose footer checks, and reading that payload
 *     gives the same value: the same type and bytes (a stream: the same type; its node slots
 *     may shrink, deleted entries are not written). The exact payload size is enough and one
 *     byte less is TERSE_ETOOBIG.
 *   - RESTORE's reader that builds a big list, hash, set, sorted set or stream in chunks
 *     (persist_rdb_value_read_chunked, with chunks and a batch small enough for a fuzzer's
 *     inputs) answers the same status as the form reader, and a container it gives verifies
 *     and holds the form's element count (a stream: its whole form is the form's, byte for
 *     byte).
 * The reader's working memory is kept from one input to the next, as the server keeps it.
 */
#include "persist/persist_rdb.h"

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_stream.h"
#include "coll/coll_zset.h"
#include "store/form/store_varint.h"
#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct persist_rdb_chunking fuzz_ck;

/* A chunked stream verifies and its whole form is v's. */
static void check_stream(const struct persist_rdb_value *c, const struct persist_rdb_value *v)
{
    size_t cap = coll_stream_form_size(c->coll), len = 0;
    uint8_t *f = malloc(cap);

    if (f == NULL) {
        return;
    }
    if (coll_stream_verify(c->env, c->coll) != TERSE_OK ||
        coll_stream_to_form(c->env, c->coll, f, cap, &len) != TERSE_OK || len != v->len ||
        memcmp(f, v->p, len) != 0) {
        abort();
    }
    free(f);
}

/* The chunked read of the same bytes: the same status as the form read (st, its value v), and
 * a container that verifies and holds v's element count. */
static void check_chunked(struct persist_rdb_work *w, const uint8_t *p, size_t n, int st,
                          const struct persist_rdb_value *v)
{
    struct persist_rdb_value c;
    const uint8_t *at = v->p;
    uint64_t count = 0;

    if (st == TERSE_OK && v->type != STORE_TYPE_STRING) {
        (void)store_varint_read(&at, v->p + v->len, &count); /* every form starts with it */
    }
    if (persist_rdb_value_read_chunked(w, &fuzz_ck, p, n, &c, NULL) != st) {
        abort();
    }
    if (c.coll == NULL) {
        return;
    }
    if (c.env != fuzz_ck.env || c.type != v->type) {
        abort();
    }
    if (c.type == STORE_TYPE_STREAM) {
        check_stream(&c, v);
        coll_destroy(c.env, c.coll);
        return;
    }
    if (coll_count(c.coll) != count ||
        (c.type == STORE_TYPE_LIST   ? coll_list_verify(c.env, c.coll)
         : c.type == STORE_TYPE_ZSET ? coll_zset_verify(c.env, c.coll)
                                     : coll_hash_verify(c.env, c.coll)) != TERSE_OK) {
        abort();
    }
    coll_destroy(c.env, c.coll);
}

static void check_one(struct persist_rdb_work *w, struct persist_rdb_work *w2, const uint8_t *p,
                      size_t n)
{
    struct persist_rdb_value v, v2;
    size_t len = 0, len2 = 0;
    uint8_t *buf;
    int st = persist_rdb_value_read(w, p, n, &v, NULL);

    if (fuzz_ck.env != NULL) {
        /* before w is read again: v's form lives in w */
        check_chunked(w2, p, n, st, &v);
    }
    if (st != TERSE_OK) {
        if (st != TERSE_ECORRUPT && st != TERSE_ETOOBIG && st != TERSE_ENOMEM) {
            abort();
        }
        return;
    }
    if (persist_rdb_dump(&v, NULL, NULL, 0, &len) != TERSE_ETOOBIG || len < 11) {
        abort();
    }
    buf = malloc(len);
    if (buf == NULL) {
        return;
    }
    if (persist_rdb_dump(&v, NULL, buf, len - 1, &len2) != TERSE_ETOOBIG || len2 != len ||
        persist_rdb_dump(&v, NULL, buf, len, &len2) != TERSE_OK || len2 != len ||
        persist_rdb_payload_check(buf, len) != TERSE_OK ||
        persist_rdb_value_read(w2, buf, len - PERSIST_RDB_FOOTER_LEN, &v2, NULL) != TERSE_OK ||
        v2.type != v.type) {
        abort();
    }
    if (v.type != STORE_TYPE_STREAM &&
        (v2.is_int != v.is_int || v2.len != v.len || (v.len > 0 && memcmp(v.p, v2.p, v.len)))) {
        abort();
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct persist_rdb_work w, w2;
    static int ready;

    static struct codec_ctx *codec;

    if (!ready) {
        persist_rdb_work_init(&w, NULL);
        persist_rdb_work_init(&w2, NULL);
        if (coll_env_create(&fuzz_ck.env) == TERSE_OK &&
            codec_ctx_create(&codec, NULL) == TERSE_OK) {
            coll_env_set_codec(fuzz_ck.env, codec);
            fuzz_ck.list = (struct coll_list_shape){64, 4, 0};
            fuzz_ck.elems = (struct coll_hash_shape){64};
            fuzz_ck.batch = 32;
        } else {
            coll_env_destroy(&fuzz_ck.env); /* the chunked check is left out */
        }
        ready = 1;
    }
    if (persist_rdb_payload_check(data, size) == TERSE_OK) {
        check_one(&w, &w2, data, size - PERSIST_RDB_FOOTER_LEN);
    }
    check_one(&w, &w2, data, size);
    persist_rdb_work_trim(&w, 1 << 20);
    persist_rdb_work_trim(&w2, 1 << 20);
    return 0;
}
