/*
 * coll_form: a container's whole form, by its type's engine (coll_form.h).
 */
#include "coll/coll_form.h"

#include <string.h>

#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_stream.h"
#include "coll/coll_zset.h"
#include "codec/codec_varint.h"
#include "terse/status.h"

size_t coll_form_size(const struct coll *c)
{
    switch ((enum coll_type)c->type) {
    case COLL_LIST:
        return coll_list_form_size(c);
    case COLL_HASH:
    case COLL_SET:
        return coll_hash_form_size(c);
    case COLL_ZSET:
        return coll_zset_form_size(c);
    case COLL_STREAM:
        return coll_stream_form_size(c);
    case COLL_PEL: /* a part of a stream's: no form of its own */
        break;
    }
    return 0;
}

int coll_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap, size_t *len)
{
    switch ((enum coll_type)c->type) {
    case COLL_LIST:
        return coll_list_to_form(env, c, out, cap, len);
    case COLL_HASH:
    case COLL_SET:
        return coll_hash_to_form(env, c, out, cap, len);
    case COLL_ZSET:
        return coll_zset_to_form(env, c, out, cap, len);
    case COLL_STREAM:
        return coll_stream_to_form(env, c, out, cap, len);
    case COLL_PEL:
        break;
    }
    return TERSE_EINVAL;
}

int coll_join_forms(struct coll_env *env, struct coll *c, coll_chunk_open_fn *open,
                    uint8_t *out, size_t cap, size_t *out_len)
{
    struct coll_it it;
    uint64_t total = 0;
    size_t at;

    *out_len = 0;
    if (c->count == 0) {
        return TERSE_OK;
    }
    if (cap < codec_varint_len(c->count)) {
        return TERSE_ETOOBIG;
    }
    at = codec_varint_put(out, c->count);
    for (it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        struct store_hash_it fit;
        const uint8_t *form;
        size_t len, body;
        int st = open(env, d, &form, &len, &fit);

        if (st != TERSE_OK) {
            return st;
        }
        body = len - (size_t)(fit.p - form);
        if (body > cap - at) {
            return TERSE_ETOOBIG;
        }
        memcpy(out + at, fit.p, body);
        at += body;
        total += d->count;
    }
    if (total != c->count) {
        coll_env_count_corrupt(env);
        return TERSE_ECORRUPT;
    }
    *out_len = at;
    return TERSE_OK;
}
