/*
 * persist_rdb_write: a terse value as an RDB object (type byte and value), and DUMP's payload.
 *
 *   string  RDB_TYPE_STRING: an integer encoding for a canonical integer in 32 bits, else the
 *           bytes (LZF in a file sink that compresses)
 *   hash    RDB_TYPE_HASH: n, then field and value strings, in the form's order
 *   set     RDB_TYPE_SET: n, then the members
 *   zset    RDB_TYPE_ZSET_2: n, then member string and score (IEEE 754 double, LE)
 *   list    RDB_TYPE_LIST_QUICKLIST_2: n_nodes, then per node PACKED (2) and a listpack of
 *           the next elements, closed before it would pass RDB_LIST_NODE_BYTES
 *
 * Redis 7.0 decides the in-memory encoding of what it loads from these (listpack or
 * hashtable, intset, listpack or skiplist) by its own *-max-* settings, as for any RDB.
 *
 * A list is walked three times (count the nodes, then per node measure it and write it): the
 * listpack's size leads it, and no copy of a node is made. A container held in chunks is
 * written a chunk at a time by persist_rdb_wcoll.c instead (a stream from its whole form).
 */
#include "persist/persist_rdb_internal.h"


#include "store/form/store_hash.h"
#include "store/form/store_list.h"
#include "terse/status.h"

static int write_hash(struct rdb_w *w, const uint8_t *form, size_t len, bool values)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    int rc;

    if (store_hash_open(form, len, &it, &n) != TERSE_OK || n == 0) {
        return TERSE_ECORRUPT;
    }
    rdb_w_len(w, n);
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        rdb_w_string(w, kv.f, kv.flen);
        if (values) {
            rdb_w_string(w, kv.v, kv.vlen);
        }
    }
    return rc < 0 ? TERSE_ECORRUPT : TERSE_OK;
}

static int write_zset(struct rdb_w *w, const uint8_t *form, size_t len)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    int rc;

    if (store_hash_open(form, len, &it, &n) != TERSE_OK || n == 0) {
        return TERSE_ECORRUPT;
    }
    rdb_w_len(w, n);
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        if (rdb_w_zset_pair(w, &kv) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
    }
    return rc < 0 ? TERSE_ECORRUPT : TERSE_OK;
}

/* Takes the elements of one list node from it: *count of them, *bytes of listpack entries.
 * 1 when a node was taken, 0 at the end, TERSE_ECORRUPT. */
static int node_take(struct store_list_it *it, size_t *count, size_t *bytes)
{
    *count = 0;
    *bytes = 0;
    for (;;) {
        struct store_list_it before = *it;
        const uint8_t *el;
        size_t el_len, sz;
        int rc = store_list_next(it, &el, &el_len);

        if (rc < 0) {
            return TERSE_ECORRUPT;
        }
        if (rc == 0) {
            break;
        }
        sz = rdb_lp_str_size(el, el_len);
        if (*count > 0 && RDB_LP_HEADER + *bytes + sz + 1 > RDB_LIST_NODE_BYTES) {
            *it = before; /* this element opens the next node */
            break;
        }
        *bytes += sz;
        (*count)++;
    }
    return *count > 0 ? 1 : 0;
}

static int write_list(struct rdb_w *w, const uint8_t *form, size_t len)
{
    struct store_list_it it, at;
    uint64_t n, n_nodes = 0;
    size_t count, bytes;
    int rc;

    if (store_list_open(form, len, &it, &n) != TERSE_OK || n == 0) {
        return TERSE_ECORRUPT;
    }
    at = it;
    while ((rc = node_take(&it, &count, &bytes)) == 1) {
        n_nodes++;
    }
    if (rc < 0) {
        return rc;
    }
    rdb_w_len(w, n_nodes);
    it = at;
    for (uint64_t i = 0; i < n_nodes; i++) {
        at = it;
        if (node_take(&it, &count, &bytes) != 1) {
            return TERSE_ECORRUPT;
        }
        rdb_w_len(w, RDB_QUICKLIST_PACKED);
        rdb_w_len(w, RDB_LP_HEADER + bytes + 1);
        rdb_lp_put_header(w, RDB_LP_HEADER + bytes + 1, count);
        for (size_t k = 0; k < count; k++) {
            const uint8_t *el;
            size_t el_len;

            if (store_list_next(&at, &el, &el_len) != 1) {
                return TERSE_ECORRUPT;
            }
            rdb_lp_put_str(w, el, el_len);
        }
        rdb_w_byte(w, 0xFF);
    }
    return TERSE_OK;
}

static const uint8_t rdb_type_of[STORE_TYPE_MAX + 1] = {
    [STORE_TYPE_STRING] = RDB_TYPE_STRING, [STORE_TYPE_HASH] = RDB_TYPE_HASH,
    [STORE_TYPE_LIST] = RDB_TYPE_LIST_QUICKLIST_2, [STORE_TYPE_SET] = RDB_TYPE_SET,
    [STORE_TYPE_ZSET] = RDB_TYPE_ZSET_2, [STORE_TYPE_STREAM] = RDB_TYPE_STREAM_LISTPACKS_2};

int rdb_write_object(struct rdb_w *w, const struct persist_rdb_value *v, const uint8_t *key,
                     size_t klen)
{
    int st = TERSE_OK;

    if ((unsigned)v->type > STORE_TYPE_MAX) {
        return TERSE_EINVAL;
    }
    rdb_w_byte(w, rdb_type_of[v->type]);
    if (key != NULL) {
        rdb_w_string(w, key, klen);
    }
    switch (v->type) {
    case STORE_TYPE_STRING:
        if (v->is_int) {
            rdb_w_string_ll(w, v->ival);
        } else {
            rdb_w_string(w, v->p, v->len);
        }
        break;
    case STORE_TYPE_HASH:
        st = write_hash(w, v->p, v->len, true);
        break;
    case STORE_TYPE_SET:
        st = write_hash(w, v->p, v->len, false);
        break;
    case STORE_TYPE_ZSET:
        st = write_zset(w, v->p, v->len);
        break;
    case STORE_TYPE_LIST:
        st = write_list(w, v->p, v->len);
        break;
    case STORE_TYPE_STREAM:
        st = rdb_write_stream(w, v->p, v->len);
        break;
    }
    return st != TERSE_OK ? st : w->st;
}

int persist_rdb_dump(const struct persist_rdb_value *v, const terse_allocator *alloc,
                     uint8_t *dst, size_t cap, size_t *out_len)
{
    struct rdb_w w = {.buf = dst, .cap = dst != NULL ? cap : 0, .fd = -1, .alloc = alloc};
    uint8_t foot[2];
    uint64_t crc;
    int st = v->coll != NULL ? rdb_write_coll(&w, NULL, 0, v->type, v->env, v->coll)
                             : rdb_write_object(&w, v, NULL, 0);

    if (st != TERSE_OK) {
        return st;
    }
    rdb_put_le(foot, PERSIST_RDB_VERSION, 2);
    rdb_w_put(&w, foot, sizeof(foot));
    *out_len = w.len + 8;
    if (*out_len > w.cap) {
        return TERSE_ETOOBIG;
    }
    crc = persist_rdb_crc64(0, dst, w.len);
    rdb_put_le(dst + w.len, crc, 8);
    return TERSE_OK;
}

int persist_rdb_payload_check(const uint8_t *payload, size_t len)
{
    const uint8_t *foot;

    if (len < PERSIST_RDB_FOOTER_LEN) {
        return TERSE_ECORRUPT;
    }
    foot = payload + len - PERSIST_RDB_FOOTER_LEN;
    if (rdb_get_le(foot, 2) > PERSIST_RDB_VERSION) {
        return TERSE_ECORRUPT;
    }
    if (persist_rdb_crc64(0, payload, len - 8) != rdb_get_le(foot + 2, 8)) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}
