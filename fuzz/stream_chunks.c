/*
 * fuzz target stream_chunks: hostile node chunks and a hostile meta under a chunked stream
 * (coll/coll_stream.h), as a snapshot's CHUNKED stream record hands them to the load.
 *
 * The input's first byte sets the node limits; then a meta form and the nodes, each
 * `u16 len | u8 count | u8 flags | len bytes`, stored RAW with a valid checksum (or, when
 * flags says so, with a byte flipped after it) and adopted as the load adopts them, keyed by
 * made-up IDs; the groups' pending entries the meta holds inline move into their PELs, as a
 * load moves them. The stream is then verified, read and edited every way the commands do, and
 * must never crash, read past a buffer (ASan) or leak (LeakSanitizer):
 *   - verify says TERSE_OK or TERSE_ECORRUPT (or ENOMEM); when TERSE_OK, the whole form it
 *     writes (within coll_stream_form_size) decodes as a stream form with the same entry
 *     count;
 *   - seeks, node reads, appends and removals answer a rank, entries or a status, the
 *     descriptors' counts always adding up to the stream's count;
 *   - a stream that verified before a removal that succeeded still verifies.
 */
#include "coll/coll.h"
#include "coll/coll_stream.h"
#include "codec/codec_value.h"
#include "store/form/store_stream.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_CHUNKS_MAX 48
#define FZ_OPS 40

static const uint8_t fz_pairs[] = {1, 'f', 2, 'v', 'v'};

/* Adopts `len u16 | count u8 | flags u8 | bytes` records: the first as the meta. */
static void adopt_all(struct coll_env *env, struct coll *c, const uint8_t *data, size_t size)
{
    size_t at = 1;
    uint64_t ms = 1;

    for (int i = 0; i < FZ_CHUNKS_MAX && at + 4 <= size; i++) {
        size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;
        uint8_t count = data[at + 2], flags = data[at + 3];
        uint8_t *stored;
        size_t cap, slen = 0;
        struct coll_key key = {ms, flags & 7};

        at += 4;
        len = len < size - at ? len : size - at;
        cap = codec_value_bound(len);
        stored = malloc(cap);
        fz_check(stored != NULL);
        fz_check(codec_value_encode_raw(data + at, len, stored, cap, &slen) == TERSE_OK);
        if ((flags & 0x80) && slen > 0) {
            stored[slen - 1] ^= 0x40;
        }
        if (i == 0) {
            (void)coll_stream_adopt_meta(env, c, stored, slen);
        } else {
            (void)coll_adopt_chunk(env, c, stored, slen, count, &key);
        }
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

static bool check_whole(struct coll_env *env, struct coll *c)
{
    int st = coll_stream_verify(env, c);
    size_t need, len = 0;
    uint8_t *out;
    struct store_stream s;

    fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
    fz_check(tree_total(c) == coll_count(c));
    if (st != TERSE_OK) {
        return false;
    }
    need = coll_stream_form_size(c);
    out = malloc(need + 1);
    fz_check(out != NULL);
    fz_check(coll_stream_to_form(env, c, out, need, &len) == TERSE_OK && len <= need);
    fz_check(store_stream_decode(&s, NULL, out, len) == TERSE_OK);
    fz_check(s.n_ents == coll_count(c) && s.n_nodes == c->tree.n_chunks);
    store_stream_deinit(&s);
    free(out);
    return true;
}

static void ops(struct coll_env *env, struct coll *c, struct fz_rng *r)
{
    struct store_stream_entry *ents = NULL;
    size_t cap = 0;
    struct store_stream_id next = {1u << 20, 0};

    for (int i = 0; i < FZ_OPS; i++) {
        uint64_t x = fz_next(r), n = coll_count(c);
        bool was_ok = (x & 0x100) ? false : coll_stream_verify(env, c) == TERSE_OK;
        struct coll_stream_node nd;
        uint64_t rank;
        int st = TERSE_OK;

        switch (x % 4) {
        case 0: {
            struct store_stream_id id = {(x >> 9) % (1u << 21), (x >> 40) % 4};
            st = coll_stream_seek(env, c, &id, &rank);
            fz_check(st != TERSE_OK || rank <= n);
            break;
        }
        case 1:
            if (n > 0) {
                st = coll_stream_read_node(env, c, (x >> 9) % n, &nd, &ents, &cap);
                fz_check(st != TERSE_OK || (nd.n == nd.nd.live && nd.first_rank < n));
            }
            break;
        case 2: {
            struct store_stream_entry e = {next, 1, fz_pairs, sizeof(fz_pairs)};
            next.seq++;
            st = coll_stream_append(env, c, &e, (size_t)((x >> 9) % 6), (x >> 12) % 300);
            break;
        }
        default:
            if (n > 0) {
                uint64_t at = (x >> 9) % n;
                st = coll_stream_remove(env, c, at, (x >> 30) % (n - at + 1));
            }
            break;
        }
        fz_check(tree_total(c) == coll_count(c));
        if (was_ok && st == TERSE_OK && (x % 4) == 3) {
            fz_check(coll_stream_verify(env, c) == TERSE_OK);
        }
    }
    coll_stream_ents_free(ents);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct coll_env *env = NULL;
    struct codec_ctx *codec = NULL;
    struct coll *c = NULL;
    struct fz_rng r;

    if (size < 1) {
        return 0;
    }
    fz_rng_init(&r, data, size);
    fz_check(coll_env_create(&env) == TERSE_OK);
    fz_check(codec_ctx_create(&codec, NULL) == TERSE_OK);
    coll_env_set_codec(env, codec);
    fz_check(coll_stream_create(env, 4096, &c) == TERSE_OK);
    adopt_all(env, c, data, size);
    if (c->meta != NULL && coll_stream_adopt_pels(env, c) == TERSE_OK) {
        (void)check_whole(env, c);
        ops(env, c, &r);
        if ((data[0] & 0x80) && check_whole(env, c)) {
            (void)coll_compress_step(env, 0, NULL, NULL, 0);
        }
        (void)check_whole(env, c);
    }
    coll_destroy(env, c);
    coll_env_destroy(&env);
    codec_ctx_destroy(&codec);
    return 0;
}
