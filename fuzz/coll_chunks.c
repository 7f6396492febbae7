/*
 * fuzz target coll_chunks: hostile chunk forms and a hostile directory under a chunked
 * container (coll/), as a snapshot's CHUNKED record hands them to the load.
 *
 * The input's first byte picks the type (list, hash, set) and the chunk size; then each chunk
 * is `u16 len | u8 count | u8 flags | len bytes`: the bytes are taken as the chunk's form (of
 * any shape: a count that lies, lengths past the end, repeated fields, a set member with a
 * value), stored RAW with a valid checksum (or, when flags says so, with one byte flipped
 * after the checksum, which every read must refuse) and adopted with coll_adopt_chunk, its
 * descriptor's count from the input and its key (a hash range's low bound) as the loader
 * takes them: 0 first, then increasing, the elements in them anywhere.
 * The container is then read every way the commands read it and edited, and must never crash,
 * read past a buffer (ASan) or answer bytes a checksum or a count refused:
 *   - verify says TERSE_OK or TERSE_ECORRUPT; when TERSE_OK, a whole walk gives exactly the
 *     container's count and to_form gives a form the small form's check accepts;
 *   - a walk stops at TERSE_ECORRUPT at the latest at the first bad chunk, and gives no more
 *     elements than the count;
 *   - point reads (index, get, at, scan) and edits (push, pop, set, insert, put, del) answer
 *     an element, its absence or a status, and after them verify is still TERSE_OK or
 *     TERSE_ECORRUPT; a container that verified before an edit that succeeded still verifies;
 *     the directory's counts add up to the container's after every edit, failed or not.
 * Everything is freed at the end (LeakSanitizer).
 */
#include "coll/coll.h"
#include "coll/coll_form.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "codec/codec_value.h"
#include "store/form/store_hash.h"
#include "store/form/store_list.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_CHUNKS_MAX 64
#define FZ_OPS 48

/* A field or element for a read or an edit: a slice of the input, or a short made-up one. */
static void fz_pick(struct fz_rng *r, const uint8_t *data, size_t size, const uint8_t **p,
                    size_t *n, uint8_t *tmp)
{
    uint64_t x = fz_next(r);

    if (size > 0 && (x & 3) != 0) {
        size_t at = (size_t)(x >> 8) % size;
        size_t len = (size_t)(x >> 40) % 24;
        *p = data + at;
        *n = len < size - at ? len : size - at;
        return;
    }
    memcpy(tmp, &x, 8);
    *p = tmp;
    *n = (size_t)(x >> 60) % 9;
}

/* Adopts the input's chunks into c; returns how many it read. */
static size_t adopt_all(struct coll_env *env, struct coll *c, const uint8_t *data, size_t size,
                        bool ranged, struct fz_rng *r)
{
    size_t at = 1, n = 0, adopted = 0;
    uint64_t low = 0;

    while (n < FZ_CHUNKS_MAX && size - at >= 4) {
        size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;
        uint32_t count = data[at + 2];
        uint8_t flags = data[at + 3];
        size_t cap, stored_len = 0;
        uint8_t *stored;
        struct coll_key key = {0, 0};

        at += 4;
        len = len < size - at ? len : size - at;
        cap = codec_value_bound(len);
        stored = malloc(cap);
        fz_check(stored != NULL);
        if (codec_value_encode_raw(data + at, len, stored, cap, &stored_len) == TERSE_OK) {
            if ((flags & 1) && stored_len > 0) {
                stored[(size_t)fz_next(r) % stored_len] ^= (uint8_t)(1u << (flags >> 5));
            }
            if (ranged) {
                /* Low bounds as the loader takes them: 0 first, then strictly increasing (a
                 * chunk's elements may still lie outside its range: only a read can tell). */
                low = adopted == 0 ? 0 : low + ((flags & 2) ? 1 : (fz_next(r) >> 8) + 1);
                key.k = low;
            }
            if (coll_adopt_chunk(env, c, stored, stored_len, count, &key) == TERSE_OK) {
                adopted++;
            }
        }
        free(stored);
        at += len;
        n++;
    }
    return n;
}

/* A whole walk of a list or a hash/set: the elements it gave, or -1 when it stopped on a
 * status. */
static long long walk(struct coll_env *env, struct coll *c, bool list, bool reverse)
{
    long long got = 0;
    int st;

    if (list) {
        struct coll_list_it it;
        const uint8_t *el;
        size_t len;
        /* A reverse walk starts at the last index and goes to the head. */
        st = coll_list_it_init(env, c, reverse && coll_count(c) > 0 ? coll_count(c) - 1 : 0,
                               reverse, &it);
        while (st == TERSE_OK && (st = coll_list_it_next(env, &it, &el, &len)) == 1) {
            got++;
            st = TERSE_OK;
        }
    } else {
        struct coll_hash_it it;
        struct store_hash_kv kv;
        st = coll_hash_it_init(env, c, &it);
        while (st == TERSE_OK && (st = coll_hash_it_next(env, &it, &kv)) == 1) {
            got++;
            st = TERSE_OK;
        }
    }
    fz_check(got <= (long long)coll_count(c));
    return st == 0 ? got : -1;
}

static int scan_count(void *arg, const struct store_hash_kv *kv)
{
    (void)kv;
    ++*(size_t *)arg;
    return 0;
}

/* verify, and when it passes, a walk of exactly the count and a form the small check takes. */
static bool check_whole(struct coll_env *env, struct coll *c, bool list)
{
    int st = list ? coll_list_verify(env, c) : coll_hash_verify(env, c);
    size_t cap, len = 0;
    uint8_t *form;

    fz_check(st == TERSE_OK || st == TERSE_ECORRUPT);
    if (st != TERSE_OK) {
        (void)walk(env, c, list, false);
        return false;
    }
    fz_check(walk(env, c, list, false) == (long long)coll_count(c));
    if (list) {
        fz_check(walk(env, c, list, true) == (long long)coll_count(c));
    }
    cap = coll_form_size(c) + 1;
    form = malloc(cap);
    fz_check(form != NULL);
    st = coll_to_form(env, c, form, cap, &len);
    fz_check(st == TERSE_OK);
    if (len > 0) {
        struct store_hash_it hit;
        uint64_t n = 0;
        fz_check(list ? store_list_check(form, len) == TERSE_OK
                      : store_hash_check(form, len) == TERSE_OK);
        if (list) {
            n = store_list_n(form, len);
        } else {
            fz_check(store_hash_open(form, len, &hit, &n) == TERSE_OK);
        }
        fz_check(n == coll_count(c));
    }
    free(form);
    return true;
}

static void ops(struct coll_env *env, struct coll *c, bool list, bool set, const uint8_t *data,
                size_t size, struct fz_rng *r)
{
    uint8_t tmp[8], copy[32];

    for (int i = 0; i < FZ_OPS; i++) {
        uint64_t x = fz_next(r), n = coll_count(c);
        const uint8_t *p, *el = NULL;
        size_t len, el_len = 0;
        bool was_ok = (x & 0x100) ? false : (list ? coll_list_verify(env, c) : coll_hash_verify(env, c)) == TERSE_OK;
        int st = TERSE_OK;

        fz_pick(r, data, size, &p, &len, tmp);
        memcpy(copy, p, len); /* edits take no view of the env's buffers */
        switch (x % 6) {
        case 0: /* a point read */
            if (list) {
                st = n > 0 ? coll_list_index(env, c, (x >> 16) % n, &el, &el_len) : TERSE_OK;
            } else {
                st = coll_hash_get(env, c, copy, len, &el, &el_len);
                if (st == 1) {
                    st = TERSE_OK;
                }
            }
            break;
        case 1: /* a rank read, or a scan step */
            if (list || n == 0) {
                break;
            }
            if (x & 0x200) {
                struct store_hash_kv kv;
                st = coll_hash_at(env, c, (x >> 16) % n, &kv);
            } else {
                size_t got = 0;
                uint64_t next = 0;
                st = coll_hash_scan(env, c, fz_next(r), (x >> 20) % 16, scan_count, &got, &next);
            }
            break;
        case 2: /* a write */
            if (list) {
                st = coll_list_push(env, c, (x >> 16) & 1, copy, len);
            } else {
                enum coll_hash_result res;
                st = coll_hash_put(env, c, copy, len, set ? NULL : copy, set ? 0 : len,
                                   ((x >> 16) & 1 ? COLL_HASH_NX : 0) |
                                       ((x >> 17) & 1 ? COLL_HASH_BULK : 0),
                                   &res);
            }
            break;
        case 3: /* a removal */
            if (list) {
                st = n > 0 ? coll_list_pop(env, c, (x >> 16) & 1, &el, &el_len) : TERSE_OK;
                st = st == 1 ? TERSE_OK : st;
            } else {
                st = coll_hash_del(env, c, copy, len);
                st = st >= 0 ? TERSE_OK : st;
            }
            break;
        case 4: /* an edit in the middle */
            if (list && n > 0) {
                st = (x >> 16) & 1 ? coll_list_set(env, c, (x >> 20) % n, copy, len)
                                   : coll_list_insert(env, c, (x >> 20) % n, copy, len);
            }
            break;
        default:
            (void)walk(env, c, list, (x >> 16) & 1);
            break;
        }
        fz_check(st >= TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM ||
                 st == TERSE_ETOOBIG || st == TERSE_EINVAL);
        /* The counts agree whatever an edit met (a failed one changes nothing). */
        fz_check(coll_tree_total(&c->tree) + c->head.n + c->tail.n == coll_count(c));
        if (was_ok && st == TERSE_OK) {
            fz_check((list ? coll_list_verify(env, c) : coll_hash_verify(env, c)) == TERSE_OK);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct coll_env *env = NULL;
    struct codec_ctx *codec = NULL;
    struct coll *c = NULL;
    struct fz_rng r;
    uint8_t kind;
    bool list, set;
    int st;

    if (size < 1) {
        return 0;
    }
    fz_rng_init(&r, data, size);
    kind = data[0];
    list = kind % 3 == 0;
    set = kind % 3 == 2;
    fz_check(coll_env_create(&env) == TERSE_OK);
    fz_check(codec_ctx_create(&codec, NULL) == TERSE_OK);
    coll_env_set_codec(env, codec);
    coll_env_set_seed(env, 0x5eed);
    if (list) {
        struct coll_list_shape sh = {(uint32_t)(32 + (kind >> 2) * 8), (uint32_t)(kind >> 6), 1};
        st = coll_list_create(env, &sh, &c);
    } else {
        struct coll_hash_shape sh = {(uint32_t)(32 + (kind >> 2) * 8)};
        st = coll_hash_create(env, set ? COLL_SET : COLL_HASH, &sh, &c);
    }
    fz_check(st == TERSE_OK);
    (void)adopt_all(env, c, data, size, !list, &r);
    (void)check_whole(env, c, list);
    ops(env, c, list, set, data, size, &r);
    if ((kind & 0x80) && check_whole(env, c, list)) {
        /* Compressed by the background pass, then read again: the LZ4 paths. */
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
    }
    (void)check_whole(env, c, list);
    coll_destroy(env, c);
    coll_env_destroy(&env);
    codec_ctx_destroy(&codec);
    return 0;
}
