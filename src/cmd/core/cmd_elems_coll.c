/*
 * cmd_elems_coll: chunked hashes and sets in the command layer (cmd_elems_coll.h): the moves
 * between one value and chunks, and the element walks on a chunked one.
 *
 * Buffers: element views come from the container (a RAW chunk, or the shard's decode buffer)
 * and are written to the reply at once; scratch2 holds a form on its way in or out of one
 * value, scratch the whole form for an O(n) reader, scratch3 the ranks of random picks.
 */
#include "cmd/core/cmd_elems_coll.h"

#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_glob.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "coll/coll_hash.h"
#include "coll/coll_zset.h"
#include "resp/resp_write.h"
#include "store/store.h"
#include "terse/status.h"

struct coll *cmd_elems_coll_of(const struct store_entry *e)
{
    struct coll *c;

    if (e == NULL || store_entry_enc(e) != STORE_ENC_COLL) {
        return NULL;
    }
    c = store_entry_coll(e);
    return c->type == COLL_HASH || c->type == COLL_SET ? c : NULL;
}

void cmd_elems_coll_shape(const struct cmd_server *srv, struct coll_hash_shape *out)
{
    out->chunk_bytes = srv->settings.coll_chunk_bytes != 0 ? srv->settings.coll_chunk_bytes
                                                           : 4096u;
}

bool cmd_elems_wants_chunks(const struct cmd_server *srv, bool is_table, size_t len)
{
    struct coll_hash_shape sh;

    cmd_elems_coll_shape(srv, &sh);
    return is_table && len > sh.chunk_bytes;
}

static enum coll_type coll_type_of(enum store_type type)
{
    return type == STORE_TYPE_SET ? COLL_SET : COLL_HASH;
}

int cmd_elems_coll_store_form(struct cmd_call *c, const struct resp_slice *key,
                              enum store_type type, size_t len)
{
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll_hash_shape sh;
    struct coll *co;
    int st;

    cmd_elems_coll_shape(c->srv, &sh);
    st = coll_hash_from_form(env, coll_type_of(type), c->srv->scratch2, len, &sh, &co);
    return st == TERSE_OK ? cmd_coll_store(c, key, co) : st;
}

int cmd_elems_coll_settle(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                          struct coll *co)
{
    struct coll_hash_shape sh;

    cmd_elems_coll_shape(c->srv, &sh);
    /* Still a hashtable to Redis when it is one value again: the raw mark stays. */
    return cmd_coll_settle(c, key, type, co, coll_hash_form_size(co) < sh.chunk_bytes / 4,
                           STORE_SET_RAW);
}

/* ---- walks ----------------------------------------------------------------------------------- */

void cmd_elems_coll_find_each(struct cmd_call *c, struct coll *co, bool with_values)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    size_t mark = c->out->len;

    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        const uint8_t *v = NULL;
        size_t vlen = 0;
        int st = coll_hash_get(env, co, c->argv[i].p, c->argv[i].len, &v, &vlen);
        if (st < 0) {
            cmd_elems_withdraw(c, mark, st);
            return;
        }
        if (!with_values) {
            resp_write_int(c->out, st);
        } else if (st == 1) {
            resp_write_bulk(c->out, v, vlen);
        } else {
            resp_write_null(c->out);
        }
    }
}

int cmd_elems_coll_all(struct cmd_call *c, struct coll *co, bool fields, bool values)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    struct coll_hash_it it;
    struct store_hash_kv kv;
    int st = coll_hash_it_init(env, co, &it);

    while (st == TERSE_OK && (st = coll_hash_it_next(env, &it, &kv)) == 1) {
        if (fields) {
            resp_write_bulk(c->out, kv.f, kv.flen);
        }
        if (values) {
            resp_write_bulk(c->out, kv.v, kv.vlen);
        }
        st = TERSE_OK;
    }
    return st;
}

struct scan_ctx {
    struct cmd_call *c;
    const uint8_t *pat;
    size_t pat_len;
    enum cmd_elems_val vals;
    size_t n; /* bulks written */
};

static int scan_one(void *arg, const struct store_hash_kv *kv)
{
    struct scan_ctx *s = arg;

    if (s->pat != NULL && !cmd_glob_match(s->pat, s->pat_len, kv->f, kv->flen, 0)) {
        return 0;
    }
    resp_write_bulk(s->c->out, kv->f, kv->flen);
    s->n++;
    if (s->vals != CMD_ELEMS_VAL_NONE) {
        cmd_elems_write_scan_value(s->c, kv, s->vals);
        s->n++;
    }
    return 0;
}

/* A sorted set's element as a hash's pair: its score as the 8 bytes of sc (a store_zset
 * form's). */
static void zset_kv(const struct store_zset_el *el, uint8_t sc[STORE_ZSET_SCORE_LEN],
                    struct store_hash_kv *kv)
{
    store_zset_score_put(sc, el->score);
    *kv = (struct store_hash_kv){el->m, el->mlen, sc, STORE_ZSET_SCORE_LEN};
}

static int scan_zset_one(void *arg, const struct store_zset_el *el)
{
    uint8_t sc[STORE_ZSET_SCORE_LEN];
    struct store_hash_kv kv;

    zset_kv(el, sc, &kv);
    return scan_one(arg, &kv);
}

void cmd_elems_coll_scan(struct cmd_call *c, struct coll *co, uint64_t cursor, size_t count,
                         const uint8_t *pat, size_t pat_len, enum cmd_elems_val vals)
{
    struct scan_ctx s = {c, pat, pat_len, vals, 0};
    size_t mark = c->out->len, cur_at, at, n;
    uint64_t next = 0;
    char num[48];
    uint8_t *room;
    int st;

    resp_write_array(c->out, 2);
    cur_at = c->out->len; /* the next cursor goes here once the walk has found it */
    at = resp_write_deferred_begin(c->out);
    st = co->type == COLL_ZSET
             ? coll_zset_scan(cmd_coll_env(c, &c->argv[1]), co, cursor, count, scan_zset_one, &s,
                              &next)
             : coll_hash_scan(cmd_coll_env(c, &c->argv[1]), co, cursor, count, scan_one, &s,
                              &next);
    if (st != TERSE_OK) {
        cmd_elems_withdraw(c, mark, st);
        return;
    }
    resp_write_deferred_end(c->out, at, '*', s.n);
    {
        char digits[24];
        size_t d = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)next);
        n = (size_t)snprintf(num, sizeof(num), "$%zu\r\n%s\r\n", d, digits);
    }
    room = resp_out_reserve(c->out, n);
    if (room == NULL) {
        return; /* the output's sticky error answers for it */
    }
    memmove(c->out->p + cur_at + n, c->out->p + cur_at, c->out->len - cur_at);
    memcpy(c->out->p + cur_at, num, n);
    resp_out_commit(c->out, n);
}

/* ---- random picks ---------------------------------------------------------------------------- */

/* The element at rank of a hash, set or sorted set (a sorted set's score in sc). */
static int elem_at(struct coll_env *env, struct coll *co, uint64_t rank,
                   struct store_hash_kv *kv, uint8_t sc[STORE_ZSET_SCORE_LEN])
{
    struct store_zset_el el;
    int st;

    if (co->type != COLL_ZSET) {
        return coll_hash_at(env, co, rank, kv);
    }
    st = coll_zset_at(env, co, rank, &el);
    if (st == TERSE_OK) {
        zset_kv(&el, sc, kv);
    }
    return st;
}

/* A walk over every element of a hash, set or sorted set. */
struct elem_walk {
    struct coll_hash_it h;
    struct coll_zset_it z;
    uint8_t sc[STORE_ZSET_SCORE_LEN];
};

static int walk_init(struct coll_env *env, struct coll *co, struct elem_walk *w)
{
    return co->type == COLL_ZSET ? coll_zset_it_init(env, co, 0, false, &w->z)
                                 : coll_hash_it_init(env, co, &w->h);
}

static int walk_next(struct coll_env *env, struct coll *co, struct elem_walk *w,
                     struct store_hash_kv *kv)
{
    struct store_zset_el el;
    int st;

    if (co->type != COLL_ZSET) {
        return coll_hash_it_next(env, &w->h, kv);
    }
    st = coll_zset_it_next(env, &w->z, &el);
    if (st == 1) {
        zset_kv(&el, w->sc, kv);
    }
    return st;
}

int cmd_elems_coll_pick(struct cmd_call *c, struct coll *co, struct store_hash_kv *kv)
{
    uint64_t r = store_rand(cmd_shard(c, c->argv[1].p, c->argv[1].len)) % coll_count(co);

    return coll_hash_at(cmd_coll_env(c, &c->argv[1]), co, r, kv);
}

/* Sorts a[0..n) ascending (heapsort: no allocation, O(n log n)). */
static void sort_u64(uint64_t *a, size_t n)
{
    for (size_t start = n / 2; n > 1;) {
        size_t root, end = n;
        if (start > 0) {
            start--;
        } else {
            n--;
            end = n;
            uint64_t t = a[0];
            a[0] = a[n];
            a[n] = t;
        }
        root = start;
        while (2 * root + 1 < end) {
            size_t child = 2 * root + 1;
            if (child + 1 < end && a[child] < a[child + 1]) {
                child++;
            }
            if (a[root] >= a[child]) {
                break;
            }
            uint64_t t = a[root];
            a[root] = a[child];
            a[child] = t;
            root = child;
        }
    }
}

/* count distinct ranks of [0, n) drawn uniformly (count * 3 <= n), sorted, in scratch3. */
static int distinct_ranks(struct cmd_call *c, uint64_t n, uint64_t count, uint64_t **out)
{
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    uint64_t *r;
    size_t have = 0;
    int st = cmd_scratch3_reserve(c->srv, (size_t)count * sizeof(*r));

    if (st != TERSE_OK) {
        return st;
    }
    r = (uint64_t *)(void *)c->srv->scratch3;
    while (have < count) {
        size_t k = 0;
        for (size_t i = have; i < count; i++) {
            r[i] = store_rand(s) % n;
        }
        sort_u64(r, (size_t)count);
        for (size_t i = 0; i < count; i++) {
            if (k == 0 || r[i] != r[k - 1]) {
                r[k++] = r[i];
            }
        }
        have = k;
    }
    *out = r;
    return TERSE_OK;
}

static int coll_rand(struct cmd_call *c, struct coll *co, bool single, long long count,
                     enum cmd_elems_val vals)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    uint64_t n = coll_count(co);
    uint8_t sc[STORE_ZSET_SCORE_LEN];
    struct store_hash_kv kv;
    int st = TERSE_OK;

    if (single) {
        st = elem_at(env, co, store_rand(s) % n, &kv, sc);
        if (st == TERSE_OK) {
            resp_write_bulk(c->out, kv.f, kv.flen);
        }
        return st;
    }
    if (count < 0) {
        uint64_t k = (uint64_t)-count;
        resp_write_array(c->out, vals != CMD_ELEMS_VAL_NONE && c->out->proto == 2 ? k * 2 : k);
        for (uint64_t i = 0; i < k && st == TERSE_OK && !c->out->err; i++) {
            st = elem_at(env, co, store_rand(s) % n, &kv, sc);
            if (st == TERSE_OK) {
                cmd_elems_write_pick(c, &kv, vals);
                if (c->out->len > CMD_ELEMS_RAND_REPLY_MAX) {
                    return TERSE_ETOOBIG;
                }
            }
        }
        return st;
    }
    if ((uint64_t)count * 3 > n) {
        /* Many of them: selection sampling over one walk (Knuth's algorithm S), as the small
         * form does; every element when count >= n. */
        struct elem_walk it;
        uint64_t wanted = (uint64_t)count < n ? (uint64_t)count : n, left = n;
        resp_write_array(c->out, vals != CMD_ELEMS_VAL_NONE && c->out->proto == 2 ? wanted * 2 : wanted);
        st = walk_init(env, co, &it);
        while (st == TERSE_OK && wanted > 0 && (st = walk_next(env, co, &it, &kv)) == 1) {
            if ((uint64_t)count >= n || store_rand(s) % left < wanted) {
                cmd_elems_write_pick(c, &kv, vals);
                wanted--;
            }
            left--;
            st = TERSE_OK;
        }
        return st < 0 ? st : (wanted == 0 ? TERSE_OK : TERSE_ECORRUPT);
    }
    {
        /* A few: distinct random ranks, each found by the tree's counts. */
        uint64_t *r;
        st = distinct_ranks(c, n, (uint64_t)count, &r);
        if (st != TERSE_OK) {
            return st;
        }
        resp_write_array(c->out, vals != CMD_ELEMS_VAL_NONE && c->out->proto == 2 ? (uint64_t)count * 2
                                                                  : (uint64_t)count);
        for (uint64_t i = 0; i < (uint64_t)count && st == TERSE_OK; i++) {
            st = elem_at(env, co, r[i], &kv, sc);
            if (st == TERSE_OK) {
                cmd_elems_write_pick(c, &kv, vals);
            }
        }
        return st;
    }
}

void cmd_elems_coll_rand_reply(struct cmd_call *c, struct coll *co, bool single, long long count,
                               enum cmd_elems_val vals, const char *err_too_big)
{
    size_t mark = c->out->len;
    int st = coll_rand(c, co, single, count, vals);

    if (st == TERSE_ETOOBIG) {
        c->out->len = mark;
        cmd_reply_err(c, err_too_big);
    } else if (st != TERSE_OK) {
        cmd_elems_withdraw(c, mark, st);
    }
}
