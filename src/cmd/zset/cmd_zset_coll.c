/*
 * cmd_zset_coll: chunked sorted sets in the command layer (cmd_zset_coll.h): the moves between
 * one value and chunks, and the slices the range commands reply from.
 *
 * Buffers (the cmd_server's, cmd_value.h; nothing kept between commands): scratch2 holds a
 * form on its way in or out of one value, scratch the whole form for an O(n) reader or the
 * member bytes of a slice, scratch3 a slice's array.
 */
#include "cmd/zset/cmd_zset_coll.h"

#include <string.h>

#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_value.h"
#include "store/store.h"
#include "terse/status.h"

struct coll *cmd_zset_coll_of(const struct store_entry *e)
{
    struct coll *c;

    if (e == NULL || store_entry_enc(e) != STORE_ENC_COLL) {
        return NULL;
    }
    c = store_entry_coll(e);
    return c->type == COLL_ZSET ? c : NULL;
}

/* The shape zsets are cut to: terse-chunk-bytes, as hashes and sets. */
static void zset_shape(const struct cmd_server *srv, struct coll_zset_shape *out)
{
    struct coll_hash_shape sh;

    cmd_elems_coll_shape(srv, &sh);
    out->chunk_bytes = sh.chunk_bytes;
}

bool cmd_zset_wants_chunks(const struct cmd_server *srv, bool table, size_t len)
{
    return cmd_elems_wants_chunks(srv, table, len);
}

int cmd_zset_coll_store_form(struct cmd_call *c, const struct resp_slice *key, size_t len)
{
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll_zset_shape sh;
    struct coll *co;
    int st;

    zset_shape(c->srv, &sh);
    st = coll_zset_from_form(env, c->srv->scratch2, len, &sh, &co);
    return st == TERSE_OK ? cmd_coll_store(c, key, co) : st;
}

int cmd_zset_coll_settle(struct cmd_call *c, const struct resp_slice *key, struct coll *co)
{
    struct coll_zset_shape sh;

    zset_shape(c->srv, &sh);
    /* Still a skiplist to Redis when it is one value again: the raw mark stays. */
    return cmd_coll_settle(c, key, STORE_TYPE_ZSET, co,
                           coll_zset_form_size(co) < sh.chunk_bytes / 4, STORE_SET_RAW);
}

int cmd_zset_coll_slice(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                        uint64_t lo, size_t cnt, struct store_zset_el **a)
{
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll_zset_it it;
    struct store_zset_el el;
    size_t bytes = 0, used = 0, i = 0;
    int st;

    *a = NULL;
    /* Two walks: the first sizes the member bytes (a reserve keeps nothing), the second copies
     * them, since the views of one walk do not outlive the next chunk read. */
    st = coll_zset_it_init(env, co, lo, false, &it);
    while (st == TERSE_OK && i < cnt && (st = coll_zset_it_next(env, &it, &el)) == 1) {
        bytes += el.mlen;
        i++;
        st = TERSE_OK;
    }
    if (st < 0) {
        return st;
    }
    if (i != cnt) {
        return TERSE_ECORRUPT; /* the counts promised more */
    }
    if (cmd_scratch_reserve(c->srv, bytes + 1) != TERSE_OK ||
        cmd_scratch3_reserve(c->srv, (cnt + 1) * sizeof(**a)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    *a = (struct store_zset_el *)(void *)c->srv->scratch3;
    st = coll_zset_it_init(env, co, lo, false, &it);
    for (i = 0; st == TERSE_OK && i < cnt && (st = coll_zset_it_next(env, &it, &el)) == 1; i++) {
        if (el.mlen > bytes - used) {
            return TERSE_ECORRUPT; /* the container changed under the walk: cannot be */
        }
        if (el.mlen > 0) {
            memcpy(c->srv->scratch + used, el.m, el.mlen);
        }
        (*a)[i] = (struct store_zset_el){c->srv->scratch + used, el.mlen, el.score};
        used += el.mlen;
        st = TERSE_OK;
    }
    return st < 0 ? st : (i == cnt ? TERSE_OK : TERSE_ECORRUPT);
}
