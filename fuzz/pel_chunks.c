/*
 * fuzz target pel_chunks: hostile chunks under a consumer group's PEL (coll/coll_pel.h), as a
 * snapshot's chunked record would hand them to the load.
 *
 * The input's first byte sets chunk_max and whether to compress; then chunks, each
 * `u16 len | u8 count | u8 flags | len bytes`, stored RAW with a valid checksum (or, when flags
 * says so, with a byte flipped after it) and adopted as the load adopts them: with count and
 * the key given by the input, or (flags bits 0x40, 0x20) with the count and the first ID the
 * form itself claims, so that well-formed chunks verify. The PEL is then verified, sought,
 * read, put to and deleted from as the group commands would, and must never crash, read past
 * a buffer (ASan) or leak (LeakSanitizer):
 *   - every call answers TERSE_OK or a status; the descriptors' counts always add up to the
 *     PEL's count;
 *   - when verify says TERSE_OK, reading every chunk succeeds, the chunks' records add up to
 *     the count, their ranks follow each other and their IDs increase, and seeking each
 *     chunk's first ID finds it at its rank;
 *   - a PEL that verified before a put or a delete that succeeded still verifies.
 */
#include "coll/coll.h"
#include "coll/coll_pel.h"
#include "codec/codec_value.h"
#include "store/form/store_varint.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_CHUNKS_MAX 48
#define FZ_OPS 60

static const uint8_t fz_names[] = "alice-bob-carol-dave-erin-frank-grace-heidi";

/* The count and first ID the form claims (false when it does not parse that far). */
static bool form_claims(const uint8_t *form, size_t len, uint32_t *count, struct coll_key *key)
{
    const uint8_t *p = form, *end = form + len;
    uint64_t n, ms, seq;

    if (store_varint_read(&p, end, &n) != 0 || n == 0 || n > UINT32_MAX ||
        store_varint_read(&p, end, &ms) != 0 || store_varint_read(&p, end, &seq) != 0) {
        return false;
    }
    *count = (uint32_t)n;
    key->k = ms;
    key->aux = seq;
    return true;
}

static void adopt_all(struct coll_env *env, struct coll *c, const uint8_t *data, size_t size)
{
    size_t at = 1;
    uint64_t ms = 1;

    for (int i = 0; i < FZ_CHUNKS_MAX && at + 4 <= size; i++) {
        size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;
        uint8_t flags = data[at + 3];
        uint32_t count = data[at + 2], ccount;
        uint8_t *stored;
        size_t cap, slen = 0;
        struct coll_key key = {ms, flags & 7}, ckey;

        at += 4;
        len = len < size - at ? len : size - at;
        if (form_claims(data + at, len, &ccount, &ckey)) {
            count = (flags & 0x40) ? ccount : count;
            key = (flags & 0x20) ? ckey : key;
        }
        cap = codec_value_bound(len);
        stored = malloc(cap);
        fz_check(stored != NULL);
        fz_check(codec_value_encode_raw(data + at, len, stored, cap, &slen) == TERSE_OK);
        if ((flags & 0x80) && slen > 0) {
            stored[slen - 1 - (flags & 0x18) % slen] ^= 0x40;
        }
        (void)coll_adopt_chunk(env, c, stored, slen, count, &key);
        free(stored);
        ms += 1 + (flags >> 3);
        at += len;
    }
}

static uint64_t tree_total(const struct coll *c)
{
    uint64_t n = 0;

    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        n += coll_tree_desc(&it)->count;
    }
    return n;
}

/* Verifies c; when it verifies, reads it whole and checks what it reads. Whether it did. */
static bool check_whole(struct coll_env *env, struct coll *c, struct coll_pel_rec **recs,
                        size_t *cap)
{
    int st = coll_pel_verify(env, c);
    uint64_t rank = 0;
    struct store_stream_id last = {0, 0};

    fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
    fz_check(tree_total(c) == coll_count(c));
    if (st != TERSE_OK) {
        return false;
    }
    while (rank < coll_count(c)) {
        struct coll_pel_chunk ch;
        struct store_stream_id first;
        uint64_t at;
        bool found;

        fz_check(coll_pel_read_chunk(env, c, rank, &ch, recs, cap) == TERSE_OK);
        fz_check(ch.first_rank == rank && ch.n >= 1);
        for (size_t i = 0; i < ch.n; i++) {
            fz_check((rank == 0 && i == 0) || store_stream_id_cmp(&last, &(*recs)[i].id) < 0);
            last = (*recs)[i].id;
        }
        first = (*recs)[0].id;
        fz_check(coll_pel_seek(env, c, &first, &at, &found) == TERSE_OK);
        fz_check(found && at == rank);
        rank += ch.n;
    }
    fz_check(rank == coll_count(c));
    return true;
}

/* An ID near those the PEL holds: from a chunk read, or made up. */
static struct store_stream_id pick_id(struct coll_env *env, struct coll *c, uint64_t x,
                                      struct coll_pel_rec **recs, size_t *cap)
{
    struct store_stream_id id = {(x >> 20) % 64, (x >> 28) % 4};
    struct coll_pel_chunk ch;

    if ((x & 0x30000) != 0 && coll_count(c) > 0 &&
        coll_pel_read_chunk(env, c, (x >> 32) % coll_count(c), &ch, recs, cap) == TERSE_OK) {
        id = (*recs)[(x >> 40) % ch.n].id;
        if ((x & 0x30000) == 0x10000) {
            id.seq++; /* just after a held one */
        }
    }
    return id;
}

static void ops(struct coll_env *env, struct coll *c, struct fz_rng *r)
{
    struct coll_pel_rec *recs = NULL;
    size_t cap = 0;

    for (int i = 0; i < FZ_OPS; i++) {
        uint64_t x = fz_next(r), n = coll_count(c), rank;
        bool was_ok = (x & 0x100) ? false : coll_pel_verify(env, c) == TERSE_OK, flag;
        struct store_stream_id id = pick_id(env, c, x, &recs, &cap);
        struct coll_pel_chunk ch;
        int st = TERSE_OK;

        switch (x % 5) {
        case 0:
            st = coll_pel_seek(env, c, &id, &rank, &flag);
            fz_check(st != TERSE_OK || rank <= n);
            break;
        case 1:
            st = coll_pel_read_chunk(env, c, n > 0 ? (x >> 9) % (n + 1) : 0, &ch, &recs, &cap);
            fz_check(st != TERSE_OK || (ch.n >= 1 && ch.first_rank + ch.n <= n));
            break;
        case 2:
        case 3: {
            struct coll_pel_rec pr = {id, fz_names + (x >> 44) % 8, (x >> 48) % 36,
                                      (int64_t)(x >> 12) - (1 << 20), (x >> 52) % 7};
            st = coll_pel_put(env, c, &pr, &flag);
            fz_check(st != TERSE_OK || coll_count(c) == n + (flag ? 0 : 1));
            break;
        }
        default:
            st = coll_pel_del(env, c, &id, &flag);
            fz_check(st != TERSE_OK || coll_count(c) == n - (flag ? 1 : 0));
            break;
        }
        fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM ||
                 (st == TERSE_EINVAL && x % 5 == 1));
        fz_check(tree_total(c) == coll_count(c));
        if (was_ok && st == TERSE_OK && x % 5 >= 2) {
            fz_check(coll_pel_verify(env, c) == TERSE_OK);
        }
    }
    coll_pel_recs_free(recs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct coll_env *env = NULL;
    struct codec_ctx *codec = NULL;
    struct coll *c = NULL;
    struct coll_pel_rec *recs = NULL;
    size_t cap = 0;
    struct fz_rng r;

    if (size < 1) {
        return 0;
    }
    fz_rng_init(&r, data, size);
    fz_check(coll_env_create(&env) == TERSE_OK);
    fz_check(codec_ctx_create(&codec, NULL) == TERSE_OK);
    coll_env_set_codec(env, codec);
    fz_check(coll_pel_create(env, 16 + (uint32_t)(data[0] & 0x3f) * 32, &c) == TERSE_OK);
    adopt_all(env, c, data, size);
    (void)check_whole(env, c, &recs, &cap);
    ops(env, c, &r);
    if ((data[0] & 0x80) && check_whole(env, c, &recs, &cap)) {
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
        fz_check(check_whole(env, c, &recs, &cap));
    }
    (void)check_whole(env, c, &recs, &cap);
    coll_pel_recs_free(recs);
    coll_destroy(env, c);
    coll_env_destroy(&env);
    codec_ctx_destroy(&codec);
    return 0;
}
