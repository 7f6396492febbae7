/*
 * cmd_sort_io: SORT's reads and writes (cmd_sort.h): the run's buffers, the values its BY and
 * GET patterns name, the elements it loads, and the reply or the list STORE writes.
 */
#include "cmd/keyspace/cmd_sort.h"

#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "store/form/store_hash.h"
#include "store/form/store_list.h"
#include "terse/status.h"
#include "cmd/list/cmd_list_coll.h"
#include "cmd/list/cmd_list_form.h"
#include "cmd/zset/cmd_zset_form.h"

static int sort_buf_reserve(struct cmd_server *srv, struct sort_buf *b, size_t more)
{
    return cmd_grow(srv, (void **)&b->p, &b->cap, b->len + more, 1, 256);
}

int sort_buf_add(struct cmd_server *srv, struct sort_buf *b, const void *p, size_t n)
{
    if (sort_buf_reserve(srv, b, n) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (n > 0) {
        memcpy(b->p + b->len, p, n);
    }
    b->len += n;
    return TERSE_OK;
}

void sort_run_free(struct sort_run *r)
{
    struct cmd_server *srv = r->c->srv;

    srv->alloc.free(srv->alloc.opaque, r->bytes.p);
    srv->alloc.free(srv->alloc.opaque, r->key.p);
    srv->alloc.free(srv->alloc.opaque, r->out.p);
    srv->alloc.free(srv->alloc.opaque, r->v);
}

static int sort_add_el(struct sort_run *r, const uint8_t *p, size_t len)
{
    struct cmd_server *srv = r->c->srv;

    if (cmd_grow(srv, (void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v), 64) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memset(&r->v[r->n], 0, sizeof(r->v[0]));
    r->v[r->n].off = r->bytes.len;
    r->v[r->n].len = len;
    r->n++;
    /* A byte more than the element: the buffer exists even when every element is empty, so
     * the offsets into it are never taken from a null pointer. */
    if (sort_buf_reserve(srv, &r->bytes, len + 1) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    return sort_buf_add(srv, &r->bytes, p, len);
}

/* ---- patterns ---------------------------------------------------------------------------- */

/*
 * The value pattern names for the element el (Redis's lookupKeyByPattern): 1 with *val, *len
 * (valid until the next lookup or scratch use), 0 when there is none (no '*', a missing key or
 * field, a key of another type), -1 when it replied an error (a corrupt value).
 */
int sort_pattern_value(struct sort_run *r, const struct resp_slice *pat, const uint8_t *el,
                         size_t el_len, const uint8_t **val, size_t *len)
{
    struct cmd_call *c = r->c;
    const uint8_t *star, *arrow = NULL, *end = pat->p + pat->len;
    const struct store_entry *e;
    size_t name_end;
    int st;

    if (pat->len == 1 && pat->p[0] == '#') {
        *val = el;
        *len = el_len;
        return 1;
    }
    star = memchr(pat->p, '*', pat->len);
    if (star == NULL) {
        return 0;
    }
    for (const uint8_t *q = star + 1; q + 2 < end; q++) {
        if (q[0] == '-' && q[1] == '>') {
            arrow = q; /* the first "->" with a field name after it */
            break;
        }
    }
    name_end = (size_t)((arrow != NULL ? arrow : end) - pat->p);
    r->key.len = 0;
    if (sort_buf_add(c->srv, &r->key, pat->p, (size_t)(star - pat->p)) != TERSE_OK ||
        sort_buf_add(c->srv, &r->key, el, el_len) != TERSE_OK ||
        sort_buf_add(c->srv, &r->key, star + 1, name_end - (size_t)(star + 1 - pat->p)) !=
            TERSE_OK) {
        cmd_reply_err(c, CMD_ERR_OOM);
        return -1;
    }
    e = store_lookup(c->srv->shard, c->cl->db, r->key.p, r->key.len, c->now_ms,
                     STORE_LOOKUP_TOUCH);
    if (e == NULL) {
        return 0;
    }
    if (arrow == NULL) {
        if (store_entry_type(e) != STORE_TYPE_STRING) {
            return 0;
        }
        st = cmd_value_get(c, e, val, len);
    } else {
        const struct resp_slice key = {r->key.p, r->key.len};
        const uint8_t *form;
        size_t flen;
        struct store_hash_kv kv;

        if (store_entry_type(e) != STORE_TYPE_HASH) {
            return 0;
        }
        if (cmd_value_read_form(c, &key, STORE_TYPE_HASH, 1, &e, &form, &flen) != 0) {
            return -1;
        }
        if (e != NULL && cmd_elems_coll_of(e) != NULL) {
            st = coll_hash_get(cmd_coll_env(c, &key), cmd_elems_coll_of(e), arrow + 2,
                               (size_t)(end - arrow - 2), &kv.v, &kv.vlen);
        } else {
            st = store_hash_find(form, flen, arrow + 2, (size_t)(end - arrow - 2), &kv);
        }
        if (st == 0) {
            return 0;
        }
        if (st == 1) {
            *val = kv.v;
            *len = kv.vlen;
            return 1;
        }
        cmd_value_reply_bad(c, &key, st);
        return -1;
    }
    if (st != TERSE_OK) {
        const struct resp_slice key = {r->key.p, r->key.len};
        cmd_value_reply_bad(c, &key, st);
        return -1;
    }
    return 1;
}

static void sort_reverse(struct sort_run *r)
{
    for (size_t i = 0, j = r->n; i + 1 < j; i++, j--) {
        struct sort_el t = r->v[i];
        r->v[i] = r->v[j - 1];
        r->v[j - 1] = t;
    }
}

/* Copies the elements of key (a list, set or zset) into r (see cmd_sort.h). A list
 * or zset that is not to be sorted keeps its order, reversed under DESC. */
int sort_load(struct sort_run *r, const struct resp_slice *key, const struct store_entry *e)
{
    struct cmd_call *c = r->c;
    const uint8_t *form;
    size_t len;
    uint64_t n;
    int st = TERSE_OK;

    if (store_entry_type(e) == STORE_TYPE_LIST) {
        struct store_list_it it;
        const uint8_t *el;
        size_t el_len;
        if (cmd_list_read_whole(c, key, 0, &e, &form, &len, &n) != 0) {
            return -1;
        }
        st = store_list_open(form, len, &it, &n);
        while (st == TERSE_OK && (st = store_list_next(&it, &el, &el_len)) == 1) {
            st = sort_add_el(r, el, el_len);
        }
        if (st == 0 && r->o->dontsort && r->o->desc) {
            sort_reverse(r); /* unsorted, a list is read from its tail under DESC, as in Redis */
        }
    } else if (store_entry_type(e) == STORE_TYPE_SET) {
        struct store_hash_it it;
        struct store_hash_kv kv;
        if (cmd_value_read_form(c, key, STORE_TYPE_SET, 0, &e, &form, &len) != 0) {
            return -1;
        }
        if (e != NULL && cmd_elems_coll_of(e) != NULL) {
            st = cmd_coll_whole(c, key, cmd_elems_coll_of(e), &form, &len);
            if (st != TERSE_OK) {
                cmd_value_reply_bad(c, key, st);
                return -1;
            }
        }
        st = store_hash_open(form, len, &it, &n);
        while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1) {
            st = sort_add_el(r, kv.f, kv.flen);
        }
    } else {
        struct store_zset_el *a;
        size_t cnt;
        if (cmd_zset_read(c, key, 0, 0, &e, &a, &cnt) != 0) {
            return -1;
        }
        for (size_t i = 0; i < cnt && st == TERSE_OK; i++) {
            const struct store_zset_el *z = &a[r->o->dontsort && r->o->desc ? cnt - 1 - i : i];
            st = sort_add_el(r, z->m, z->mlen);
        }
    }
    if (st < 0 || st == TERSE_ENOMEM) {
        cmd_value_reply_bad(c, key, st < 0 ? st : TERSE_ENOMEM);
        return -1;
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------------------ */

/* Replies (or, for STORE, collects in r->out) elements [start, end] with their GETs. 0, or -1
 * when it replied an error. *n_out gets the number of outputs. */
int sort_emit(struct sort_run *r, long start, long end, size_t *n_out)
{
    struct cmd_call *c = r->c;
    const struct sort_opts *o = r->o;
    size_t per = o->n_get ? o->n_get : 1, mark = c->out->len;

    *n_out = end >= start ? (size_t)(end - start + 1) * per : 0;
    if (o->store == NULL) {
        resp_write_array(c->out, *n_out);
    }
    for (long i = start; i <= end; i++) {
        const struct sort_el *s = &r->v[i];
        const uint8_t *el = r->bytes.p + s->off;
        for (size_t g = 0; g < per; g++) {
            const uint8_t *val = el;
            size_t len = s->len;
            int got = 1;
            if (o->n_get > 0) {
                size_t before = c->out->len;
                got = sort_pattern_value(r, &c->argv[o->gets[g]], el, s->len, &val, &len);
                if (got < 0) {
                    /* Withdraw the array so far, keep the error pattern_value wrote. */
                    size_t err_len = c->out->len - before;
                    memmove(c->out->p + mark, c->out->p + before, err_len);
                    c->out->len = mark + err_len;
                    return -1;
                }
            }
            if (o->store != NULL) {
                uint32_t l = got ? (uint32_t)len : 0; /* a missing GET stores "" */
                if (sort_buf_add(c->srv, &r->out, &l, sizeof(l)) != TERSE_OK ||
                    sort_buf_add(c->srv, &r->out, val, got ? len : 0) != TERSE_OK) {
                    cmd_reply_err(c, CMD_ERR_OOM);
                    return -1;
                }
            } else if (got) {
                resp_write_bulk(c->out, val, len);
            } else {
                resp_write_null(c->out);
            }
        }
    }
    return 0;
}

/* Stores the outputs collected in r->out (STORE) as a list at dst, replacing it (no expiry
 * kept, as Redis's setKey), or deletes dst when there are none. 0, or -1 when it replied. */
int sort_store_outputs(struct sort_run *r, size_t n_out)
{
    struct cmd_call *c = r->c;
    struct cmd_server *srv = c->srv;
    struct store_list_el *ins;
    size_t pos = 0;
    int st;

    if (n_out == 0) {
        c->emptied =
            store_delete(srv->shard, c->cl->db, r->o->store->p, r->o->store->len, c->now_ms);
        cmd_changed_stored(c, CMD_NOTIFY_LIST, "sortstore", r->o->store, 0);
        return 0;
    }
    /* An overwrite without dst's expiry (Redis's setKey: no new key for an existing one). */
    (void)store_expire_set(srv->shard, c->cl->db, r->o->store->p, r->o->store->len,
                           STORE_NO_EXPIRE, c->now_ms);
    ins = srv->alloc.alloc(srv->alloc.opaque, n_out * sizeof(*ins));
    if (ins == NULL) {
        cmd_reply_err(c, CMD_ERR_OOM);
        return -1;
    }
    for (size_t i = 0; i < n_out; i++) {
        uint32_t l;
        memcpy(&l, r->out.p + pos, sizeof(l));
        ins[i].p = r->out.p + pos + sizeof(l);
        ins[i].len = l;
        pos += sizeof(l) + l;
    }
    st = cmd_list_splice_store(c, r->o->store, NULL, 0, 0, 0, ins, n_out);
    srv->alloc.free(srv->alloc.opaque, ins);
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, r->o->store, st);
        return -1;
    }
    cmd_changed(c, CMD_NOTIFY_LIST, "sortstore", r->o->store);
    return 0;
}

