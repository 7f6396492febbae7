/*
 * persist_rdb_wcoll: a container held in chunks (coll.h) as an RDB object, written a chunk at
 * a time, so an RDB file of a big container (a full resync, the AOF's base) needs no buffer of
 * its whole form: the extra memory is one decoded chunk (the env's decode buffer).
 *
 *   list  RDB_TYPE_LIST_QUICKLIST_2: one node per chunk and per open end (an end's form built
 *         by coll_list_end_form)
 *   hash  RDB_TYPE_HASH: the count, then field and value strings, chunk after chunk
 *   set   RDB_TYPE_SET: the count, then the members
 *   zset  RDB_TYPE_ZSET_2: the count, then member and score (IEEE 754 double, LE), in the
 *         order's chunks (ascending, as Redis writes a skiplist's)
 *   stream  RDB_TYPE_STREAM_LISTPACKS_2: a listpack per node chunk, then the meta chunk's IDs
 *         and groups (persist_rdb_wstream.c)
 *
 * Each chunk is read verified (coll_chunk_peek: its checksum) and its element count checked
 * against its descriptor and, in sum, against the count written first, so a bad chunk fails the
 * write (TERSE_ECORRUPT) rather than giving an RDB that lies about its length.
 */
#include "persist/persist_rdb_internal.h"


#include "coll/coll_list.h"
#include "store/form/store_hash.h"
#include "store/form/store_list.h"
#include "terse/status.h"

/* One quicklist node of every element of a list form (a chunk, or an end of a chunked list). */
static int write_node(struct rdb_w *w, const uint8_t *form, size_t len)
{
    struct store_list_it it, at;
    const uint8_t *el;
    size_t el_len, bytes = 0, count = 0;
    uint64_t n;
    int rc;

    if (store_list_open(form, len, &it, &n) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    at = it;
    while ((rc = store_list_next(&it, &el, &el_len)) == 1) {
        bytes += rdb_lp_str_size(el, el_len);
        count++;
    }
    if (rc < 0 || count != n) {
        return TERSE_ECORRUPT;
    }
    rdb_w_len(w, RDB_QUICKLIST_PACKED);
    rdb_w_len(w, RDB_LP_HEADER + bytes + 1);
    rdb_lp_put_header(w, RDB_LP_HEADER + bytes + 1, count);
    while (store_list_next(&at, &el, &el_len) == 1) {
        rdb_lp_put_str(w, el, el_len);
    }
    rdb_w_byte(w, 0xFF);
    return TERSE_OK;
}

static int write_list_coll(struct rdb_w *w, const uint8_t *key, size_t klen,
                           struct coll_env *env, struct coll *c)
{
    const uint8_t *form;
    size_t len;
    uint64_t hn, tn;
    struct coll_it it;
    int st;

    rdb_w_byte(w, RDB_TYPE_LIST_QUICKLIST_2);
    if (key != NULL) {
        rdb_w_string(w, key, klen);
    }
    /* The ends' counts first (a form built for one is gone once the other is built). */
    st = coll_list_end_form(env, c, true, &form, &len, &hn);
    if (st == TERSE_OK) {
        st = coll_list_end_form(env, c, false, &form, &len, &tn);
    }
    if (st != TERSE_OK) {
        return st;
    }
    rdb_w_len(w, c->tree.n_chunks + (hn > 0) + (tn > 0));
    if (hn > 0) {
        st = coll_list_end_form(env, c, true, &form, &len, &hn);
        if (st == TERSE_OK) {
            st = write_node(w, form, len);
        }
    }
    for (it = coll_tree_begin(&c->tree); st == TERSE_OK && coll_it_valid(&it);
         coll_tree_next(&it)) {
        st = coll_chunk_peek(env, coll_tree_desc(&it)->chunk, &form, &len);
        if (st == TERSE_OK) {
            st = write_node(w, form, len);
        }
    }
    if (st == TERSE_OK && tn > 0) {
        st = coll_list_end_form(env, c, false, &form, &len, &tn);
        if (st == TERSE_OK) {
            st = write_node(w, form, len);
        }
    }
    return st != TERSE_OK ? st : w->st;
}

/* The records of one hash-form chunk of d: field (and value, or score for a zset) strings. */
static int write_chunk_records(struct rdb_w *w, struct coll_env *env, const struct coll_desc *d,
                               enum store_type type)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    const uint8_t *form;
    uint64_t n, got = 0;
    size_t len;
    int rc = coll_chunk_peek(env, d->chunk, &form, &len);

    if (rc != TERSE_OK) {
        return rc;
    }
    if (len != d->raw_len || store_hash_open(form, len, &it, &n) != TERSE_OK || n != d->count) {
        return TERSE_ECORRUPT;
    }
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        if (type == STORE_TYPE_ZSET) {
            if (rdb_w_zset_pair(w, &kv) != TERSE_OK) {
                return TERSE_ECORRUPT;
            }
        } else {
            rdb_w_string(w, kv.f, kv.flen);
            if (type == STORE_TYPE_HASH) {
                rdb_w_string(w, kv.v, kv.vlen);
            }
        }
        got++;
    }
    return rc < 0 || got != n ? TERSE_ECORRUPT : TERSE_OK;
}

int rdb_write_coll(struct rdb_w *w, const uint8_t *key, size_t klen, enum store_type type,
                   struct coll_env *env, struct coll *c)
{
    uint64_t sum = 0;
    int st = TERSE_OK;

    if (type == STORE_TYPE_LIST) {
        return write_list_coll(w, key, klen, env, c);
    }
    if (type == STORE_TYPE_STREAM) {
        rdb_w_byte(w, RDB_TYPE_STREAM_LISTPACKS_2);
        if (key != NULL) {
            rdb_w_string(w, key, klen);
        }
        st = rdb_write_stream_coll(w, env, c);
        return st != TERSE_OK ? st : w->st;
    }
    if (type != STORE_TYPE_HASH && type != STORE_TYPE_SET && type != STORE_TYPE_ZSET) {
        return TERSE_EINVAL;
    }
    rdb_w_byte(w, type == STORE_TYPE_HASH  ? RDB_TYPE_HASH
                  : type == STORE_TYPE_SET ? RDB_TYPE_SET
                                           : RDB_TYPE_ZSET_2);
    if (key != NULL) {
        rdb_w_string(w, key, klen);
    }
    rdb_w_len(w, coll_count(c));
    for (struct coll_it it = coll_tree_begin(&c->tree); st == TERSE_OK && coll_it_valid(&it);
         coll_tree_next(&it)) {
        st = write_chunk_records(w, env, coll_tree_desc(&it), type);
        sum += coll_tree_desc(&it)->count;
    }
    if (st == TERSE_OK && sum != coll_count(c)) {
        st = TERSE_ECORRUPT;
    }
    return st != TERSE_OK ? st : w->st;
}
