/*
 * cmd_digest: Redis-compatible dataset digests (see cmd_digest.h), on libcrypto's SHA-1
 * (codec_sha1).
 */
#include "cmd/admin/cmd_digest.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "codec/codec_sha1.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "store/form/store_list.h"
#include "store/form/store_zset.h"
#include "store/form/store_stream.h"
#include "terse/status.h"

_Static_assert(CMD_DIGEST_LEN == CODEC_SHA1_LEN, "a digest is one SHA-1");

void cmd_sha1(const void *p, size_t n, uint8_t out[CMD_DIGEST_LEN])
{
    if (codec_sha1(p, n, out) != TERSE_OK) {
        memset(out, 0, CMD_DIGEST_LEN); /* libcrypto out of memory: a digest that matches
                                           nothing rather than stale bytes */
    }
}

/* ---- digests ------------------------------------------------------------------------------ */

static void digest_xor(uint8_t d[CMD_DIGEST_LEN], const void *p, size_t n)
{
    uint8_t h[CMD_DIGEST_LEN];

    cmd_sha1(p, n, h);
    for (int i = 0; i < CMD_DIGEST_LEN; i++) {
        d[i] ^= h[i];
    }
}

static void digest_mix(uint8_t d[CMD_DIGEST_LEN], const void *p, size_t n)
{
    digest_xor(d, p, n);
    cmd_sha1(d, CMD_DIGEST_LEN, d);
}

static void be32(uint8_t out[4], uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

/* Redis's numbers for its object types (OBJ_STRING ... OBJ_STREAM), which the digest mixes in,
 * by enum store_type. */
static const uint32_t digest_obj_type[] = {
    [STORE_TYPE_STRING] = 0, [STORE_TYPE_LIST] = 1, [STORE_TYPE_SET] = 2,
    [STORE_TYPE_ZSET] = 3,   [STORE_TYPE_HASH] = 4, [STORE_TYPE_STREAM] = 6};

/* What a hash form's value is to the digest. */
enum digest_val {
    DIGEST_VAL_NONE,  /* a set: members alone */
    DIGEST_VAL_BYTES, /* a hash: the value's bytes */
    DIGEST_VAL_SCORE  /* a zset: the score, spelled "%.17g" as Redis's debug.c spells it */
};

/*
 * A hash, a set or a zset (each a hash form: store_hash.h, store_zset.h), as Redis digests
 * one, in no order: a set's members each xored in by their own digest; a hash's field and
 * value, or a zset's member and score, mixed into a digest of their own, the pairs' digests
 * xored together.
 */
static int fields_part(const uint8_t *form, size_t len, enum digest_val val,
                       uint8_t d[CMD_DIGEST_LEN])
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    int rc;

    if (store_hash_open(form, len, &it, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        uint8_t pair[CMD_DIGEST_LEN] = {0};
        char buf[RESP_G17_MAX];

        if (val == DIGEST_VAL_NONE) {
            digest_xor(d, kv.f, kv.flen);
            continue;
        }
        if (val == DIGEST_VAL_SCORE) {
            if (kv.vlen != STORE_ZSET_SCORE_LEN) {
                return TERSE_ECORRUPT;
            }
            kv.vlen = resp_fmt_g17(buf, store_zset_score(kv.v));
            kv.v = (const uint8_t *)buf;
        }
        digest_mix(pair, kv.f, kv.flen);
        digest_mix(pair, kv.v, kv.vlen);
        digest_xor(d, pair, sizeof(pair));
    }
    return rc == 0 ? TERSE_OK : TERSE_ECORRUPT;
}

/* A list, as Redis digests one: its elements mixed in order, head first. */
static int list_part(const uint8_t *form, size_t len, uint8_t d[CMD_DIGEST_LEN])
{
    struct store_list_it it;
    const uint8_t *el;
    size_t el_len;
    uint64_t n;
    int rc;

    if (store_list_open(form, len, &it, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    while ((rc = store_list_next(&it, &el, &el_len)) == 1) {
        digest_mix(d, el, el_len);
    }
    return rc == 0 ? TERSE_OK : TERSE_ECORRUPT;
}

/* A stream, as Redis digests one: each entry's ID as "ms.seq", then its fields and values,
 * mixed in order, oldest first. Groups are not part of Redis's digest. */
static int stream_part(struct cmd_call *c, const uint8_t *form, size_t len,
                       uint8_t d[CMD_DIGEST_LEN])
{
    struct store_stream s;
    int rc = store_stream_decode(&s, &c->srv->alloc, form, len);

    for (size_t i = 0; rc == TERSE_OK && i < s.n_ents; i++) {
        const struct store_stream_entry *e = &s.ents[i];
        const uint8_t *p = e->pairs, *end = e->pairs + e->pairs_len, *b;
        char id[48];
        size_t n;
        int idlen = snprintf(id, sizeof(id), "%llu.%llu", (unsigned long long)e->id.ms,
                             (unsigned long long)e->id.seq);

        digest_mix(d, id, (size_t)idlen);
        for (uint64_t k = 0; rc == TERSE_OK && k < e->n_pairs * 2; k++) {
            rc = store_stream_pair_next(&p, end, &b, &n);
            if (rc == TERSE_OK) {
                digest_mix(d, b, n);
            }
        }
    }
    store_stream_deinit(&s);
    return rc;
}

/* Mixes the value part of e (type, original bytes, expiry mark) into d. */
static int value_part(struct cmd_call *c, const struct store_entry *e, uint8_t d[CMD_DIGEST_LEN])
{
    uint8_t type[4];
    const uint8_t *p;
    size_t len;
    int rc;
    enum store_type t = store_entry_type(e);

    be32(type, digest_obj_type[t]);
    digest_mix(d, type, sizeof(type));
    rc = cmd_value_get(c, e, &p, &len);
    if (rc != TERSE_OK) {
        return rc;
    }
    switch (t) {
    case STORE_TYPE_STRING:
        digest_mix(d, p, len);
        break;
    case STORE_TYPE_HASH:
        rc = fields_part(p, len, DIGEST_VAL_BYTES, d);
        break;
    case STORE_TYPE_LIST:
        rc = list_part(p, len, d);
        break;
    case STORE_TYPE_SET:
        rc = fields_part(p, len, DIGEST_VAL_NONE, d);
        break;
    case STORE_TYPE_ZSET:
        rc = fields_part(p, len, DIGEST_VAL_SCORE, d);
        break;
    case STORE_TYPE_STREAM:
        rc = stream_part(c, p, len, d);
        break;
    }
    if (rc != TERSE_OK) {
        return rc;
    }
    if (store_entry_expire(e) != STORE_NO_EXPIRE) {
        digest_xor(d, "!!expire!!", 10);
    }
    return TERSE_OK;
}

int cmd_digest_value(struct cmd_call *c, const struct store_entry *e,
                     uint8_t out[CMD_DIGEST_LEN])
{
    memset(out, 0, CMD_DIGEST_LEN);
    return value_part(c, e, out);
}

struct digest_walk {
    struct cmd_call *c;
    uint8_t *final;
    int status;
    const struct store_entry *bad;
};

static void digest_one(void *arg, const struct store_entry *e)
{
    struct digest_walk *w = arg;
    uint8_t d[CMD_DIGEST_LEN];
    size_t klen;
    const uint8_t *key = store_entry_key(e, &klen);
    int rc;

    if (w->status != TERSE_OK) {
        return;
    }
    memset(d, 0, sizeof(d));
    digest_mix(d, key, klen);
    rc = value_part(w->c, e, d);
    if (rc != TERSE_OK) {
        w->status = rc;
        w->bad = e;
        return;
    }
    digest_xor(w->final, d, sizeof(d));
}

int cmd_digest_dataset(struct cmd_call *c, uint8_t out[CMD_DIGEST_LEN],
                       const struct store_entry **bad)
{
    struct store_shard *s = c->srv->shard;
    struct digest_walk w = {c, out, TERSE_OK, NULL};

    memset(out, 0, CMD_DIGEST_LEN);
    for (int db = 0; db < store_shard_n_db(s) && w.status == TERSE_OK; db++) {
        uint64_t cursor = 0;
        uint8_t id[4];

        if (store_dbsize(s, db) == 0) {
            continue;
        }
        be32(id, (uint32_t)db);
        digest_mix(out, id, sizeof(id));
        do {
            cursor = store_scan(s, db, cursor, 1024, c->now_ms, digest_one, &w);
        } while (cursor != 0 && w.status == TERSE_OK);
    }
    if (bad != NULL) {
        *bad = w.bad;
    }
    return w.status;
}
