/*
 * cmd_set: set writes (SADD, SREM, SPOP, SMOVE), the read step the family shares, and its
 * command table. How a written set is stored (its order, its encoding) is in cmd_set_store.c,
 * the reads in cmd_set_read.c, SINTER/SUNION/SDIFF and their forms in cmd_set_algebra.c.
 *
 * A set is one codec value: its members as the fields of a store_hash.h form whose values are
 * all empty, compressed and checksummed like a string, verified on every read. A write decodes
 * the form into scratch, builds the next form in scratch2 (store_hash_edit), encodes that into
 * scratch and stores it in place of the old entry (cmd_set_commit). So a write costs time in
 * proportion to the set's size, as Redis's intset does (a sorted array, which Redis uses up to
 * 512 integer members by default). A hashtable-encoded set whose form passes terse-chunk-bytes
 * is held in chunks instead (cmd_elems_coll.h): SADD, SREM, SPOP and SMOVE then cost the chunk
 * of each member they touch.
 *
 * Buffers: scratch, scratch2 and scratch3 belong to the cmd_server (cmd_value.h) and hold
 * nothing between commands; the members of a write are slices of the request or of the
 * decoded form, described by an array in scratch3. Nothing is allocated per request once the
 * scratches have grown.
 */
#include "cmd/set/cmd_set.h"

#include <string.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"
#include "cmd/set/cmd_set_store.h"

#define ERR_NOT_POSITIVE "ERR value is out of range, must be positive"
/* SPOP with a count moves the remaining members to a new set (Redis's "case 3", which builds
 * the new set afresh) when remaining * this <= count. */
#define SPOP_MOVE_STRATEGY_MUL 5

static const uint8_t empty_value[1] = {0};

int cmd_set_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                 const struct store_entry **e, const uint8_t **form, size_t *len)
{
    return cmd_value_read_form(c, key, STORE_TYPE_SET, for_write, e, form, len);
}

/*
 * Edits the set old (form, len: decoded, or NULL, 0) with the n members of `add` added and the
 * m of `del` removed, into scratch2; *out_len as store_hash_edit, as are *added, *removed.
 */
static int set_edit(struct cmd_call *c, const uint8_t *form, size_t len,
                    const struct store_hash_kv *add, size_t n, const struct store_hash_kv *del,
                    size_t m, size_t *out_len, size_t *added, size_t *removed)
{
    size_t cap = len + 10;
    int st;

    for (size_t i = 0; i < n; i++) {
        cap += store_hash_pair_overhead(add[i].flen, 0) + add[i].flen;
    }
    st = cmd_scratch2_reserve(c->srv, cap);
    if (st != TERSE_OK) {
        return st;
    }
    return store_hash_edit(form, len, add, n, del, m, c->srv->scratch2, cap, out_len, added,
                           removed);
}

/* The n members added to (add) or removed from the chunked set co at key in turn: *done
 * of them were. The store hears of the edit; a set left small or empty is settled
 * (cmd_elems_coll_settle). TERSE_OK or a status (the members before the failing one stay
 * done). */
static int coll_add_remove(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                           const struct store_hash_kv *kv, size_t n, bool add, size_t *done)
{
    struct coll_env *env = cmd_coll_env(c, key);
    int st = TERSE_OK, st2;

    *done = 0;
    for (size_t i = 0; i < n && st == TERSE_OK; i++) {
        if (add) {
            enum coll_hash_result r = COLL_HASH_UNTOUCHED;
            st = coll_hash_put(env, co, kv[i].f, kv[i].flen, NULL, 0, COLL_HASH_NX, &r);
            *done += r == COLL_HASH_ADDED;
        } else {
            st = coll_hash_del(env, co, kv[i].f, kv[i].flen);
            *done += st == 1;
            st = st < 0 ? st : TERSE_OK;
        }
    }
    if (*done == 0) {
        return st;
    }
    if (add) {
        cmd_coll_edited(c, key);
        return st;
    }
    st2 = cmd_elems_coll_settle(c, key, STORE_TYPE_SET, co);
    return st != TERSE_OK ? st : st2;
}

/* SADD (add) and SREM key member [member ...]: the number of members added or removed. */
static void set_add_remove(struct cmd_call *c, bool add)
{
    const struct store_entry *e;
    const struct store_hash_kv *kv;
    const uint8_t *form;
    size_t len, n, out_len = 0, added = 0, removed = 0;
    struct coll *coll;
    int st;

    if (cmd_set_read(c, &c->argv[1], 1, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL && !add) {
        resp_write_int(c->out, 0);
        return;
    }
    kv = cmd_elems_from_args(c, 2, false, &n);
    if (kv == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    coll = cmd_elems_coll_of(e);
    if (coll != NULL) {
        st = coll_add_remove(c, &c->argv[1], coll, kv, n, add, add ? &added : &removed);
    } else {
        st = add ? set_edit(c, form, len, kv, n, NULL, 0, &out_len, &added, &removed)
                 : set_edit(c, form, len, NULL, 0, kv, n, &out_len, &added, &removed);
    }
    if (st == TERSE_OK && coll == NULL && (add ? added : removed) > 0) {
        st = cmd_set_commit(c, &c->argv[1], out_len, add ? CMD_SET_ENC_GROW : CMD_SET_ENC_KEEP,
                            e != NULL && store_entry_is_raw(e));
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    if ((add ? added : removed) > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_SET, add ? "sadd" : "srem", &c->argv[1]);
    }
    resp_write_int(c->out, (long long)(add ? added : removed));
}

static void set_sadd(struct cmd_call *c)
{
    set_add_remove(c, true);
}

static void set_srem(struct cmd_call *c)
{
    set_add_remove(c, false);
}

/* ---- SPOP ---------------------------------------------------------------------------------- */

/* SPOP is fed as the members it took, one "SREM key member" each (Redis 7.0), or as DEL
 * when it took them all: a replica must remove the same ones. */
static void feed_srem(struct cmd_call *c, const struct store_hash_kv *kv)
{
    struct resp_slice a[3] = {cmd_feed_str("SREM"), c->argv[1], {kv->f, kv->flen}};

    c->feed |= CMD_FEED_PREVENT;
    cmd_feed_op(c, c->cl->db, a, 3);
}

/* One random member of the form (n members) removed: replied as a bulk, then the rest stored. */
static int spop_one(struct cmd_call *c, const struct store_entry *e, const uint8_t *form,
                    size_t len, uint64_t n)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t k = store_rand(cmd_shard(c, c->argv[1].p, c->argv[1].len)) % n;
    size_t out_len = 0, added = 0, removed = 0;
    int st = store_hash_open(form, len, &it, &n);

    while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1 && k > 0) {
        st = TERSE_OK;
        k--;
    }
    if (st != 1) {
        return st < 0 ? st : TERSE_ECORRUPT;
    }
    st = set_edit(c, form, len, NULL, 0, &kv, 1, &out_len, &added, &removed);
    if (st != TERSE_OK) {
        return st;
    }
    /* kv points into scratch, which the commit's encoding overwrites: reply first. */
    resp_write_bulk(c->out, kv.f, kv.flen);
    feed_srem(c, &kv);
    return cmd_set_commit(c, &c->argv[1], out_len, CMD_SET_ENC_KEEP, store_entry_is_raw(e));
}

/* count < n distinct random members removed (selection sampling: each member is taken with
 * probability wanted / left), replied as a set in the form's order, the rest stored. */
static int spop_some(struct cmd_call *c, const struct store_entry *e, const uint8_t *form,
                     size_t len, uint64_t n, uint64_t count)
{
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    struct store_hash_it it;
    struct store_hash_kv *del;
    uint64_t left = n, wanted = count, remaining = n - count;
    size_t m = 0, out_len = 0, added = 0, removed = 0;
    int st;

    if (cmd_scratch3_reserve(c->srv, (size_t)count * sizeof(*del)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    del = (struct store_hash_kv *)(void *)c->srv->scratch3;
    st = store_hash_open(form, len, &it, &n);
    while (st == TERSE_OK && wanted > 0 && (st = store_hash_next(&it, &del[m])) == 1) {
        st = TERSE_OK;
        if (store_rand(s) % left < wanted) {
            m++;
            wanted--;
        }
        left--;
    }
    if (st < 0 || m != count) {
        return st < 0 ? st : TERSE_ECORRUPT;
    }
    st = set_edit(c, form, len, NULL, 0, del, m, &out_len, &added, &removed);
    if (st != TERSE_OK) {
        return st;
    }
    resp_write_set(c->out, m);
    for (size_t i = 0; i < m; i++) {
        resp_write_bulk(c->out, del[i].f, del[i].flen);
        feed_srem(c, &del[i]);
    }
    return cmd_set_commit(c, &c->argv[1], out_len,
                          remaining * SPOP_MOVE_STRATEGY_MUL > count ? CMD_SET_ENC_KEEP
                                                                     : CMD_SET_ENC_FRESH,
                          store_entry_is_raw(e));
}

/* Every member replied as a set, in the form's order, and the key deleted. */
static int spop_all(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    int st = store_hash_open(form, len, &it, &n);

    resp_write_set(c->out, (size_t)n);
    while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1) {
        st = TERSE_OK;
        resp_write_bulk(c->out, kv.f, kv.flen);
    }
    if (st < 0) {
        return st;
    }
    cmd_feed_rewrite_del(c, &c->argv[1]);
    return cmd_set_commit(c, &c->argv[1], 0, CMD_SET_ENC_KEEP, false);
}

/* SPOP on a chunked set co of n members: one member (no count) or count of them, each drawn
 * uniformly from what is left, replied, fed as an SREM and removed (Redis's cases 1 and 2; a
 * count of n or more takes them all and deletes the key). A failure part way (a corrupt chunk)
 * answers the error; the members taken before it stay taken and are fed. */
static void spop_coll(struct cmd_call *c, struct coll *co, bool with_count, uint64_t count)
{
    const struct resp_slice *key = &c->argv[1];
    struct coll_env *env = cmd_coll_env(c, key);
    uint64_t n = coll_count(co), taken = 0;
    size_t mark = c->out->len;
    int st = TERSE_OK, st2;

    if (with_count && count >= n) {
        resp_write_set(c->out, (size_t)n);
        st = cmd_elems_coll_all(c, co, true, false);
        if (st != TERSE_OK) {
            c->out->len = mark;
            cmd_value_reply_bad(c, key, st);
            return;
        }
        cmd_feed_rewrite_del(c, key);
        c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                  c->now_ms);
        cmd_changed_edit(c, CMD_NOTIFY_SET, "spop", key);
        return;
    }
    if (with_count) {
        resp_write_set(c->out, (size_t)count);
    } else {
        count = 1;
    }
    for (; taken < count && st == TERSE_OK; taken++) {
        struct store_hash_kv kv;

        st = cmd_elems_coll_pick(c, co, &kv);
        if (st == TERSE_OK) {
            st = cmd_scratch3_reserve(c->srv, kv.flen + 1);
        }
        if (st != TERSE_OK) {
            break;
        }
        /* kv is a view of the env's buffers, which the delete rewrites: copied first. */
        memcpy(c->srv->scratch3, kv.f, kv.flen);
        kv.f = c->srv->scratch3;
        st = coll_hash_del(env, co, kv.f, kv.flen);
        if (st != 1) {
            st = st < 0 ? st : TERSE_ECORRUPT;
            break;
        }
        st = TERSE_OK;
        resp_write_bulk(c->out, kv.f, kv.flen);
        feed_srem(c, &kv);
    }
    st2 = taken > 0 ? cmd_elems_coll_settle(c, key, STORE_TYPE_SET, co) : TERSE_OK;
    st = st != TERSE_OK ? st : st2;
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_value_reply_bad(c, key, st);
    }
    if (taken > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_SET, "spop", key);
    }
}

/* SPOP key [count] */
static void set_spop(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    long long count = 0;
    uint64_t n;
    size_t len, mark, feed_mark;
    int st;

    if (c->argc > 3) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc == 3 && (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0)) {
        cmd_reply_err(c, ERR_NOT_POSITIVE);
        return;
    }
    if (cmd_set_read(c, &c->argv[1], 1, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL || (c->argc == 3 && count == 0)) {
        if (c->argc == 3) {
            resp_write_set(c->out, 0);
        } else {
            resp_write_null(c->out);
        }
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        spop_coll(c, cmd_elems_coll_of(e), c->argc == 3, (uint64_t)count);
        return;
    }
    if (cmd_elems_open_or_reply(c, form, len, &it, &n) != 0) {
        return;
    }
    mark = c->out->len;
    feed_mark = c->srv->feed.n_ops;
    if (c->argc == 2) {
        st = spop_one(c, e, form, len, n);
    } else if ((uint64_t)count >= n) {
        st = spop_all(c, form, len, n);
    } else {
        st = spop_some(c, e, form, len, n, (uint64_t)count);
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_feed_undo(c->srv, feed_mark); /* nothing was taken */
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    cmd_changed_edit(c, CMD_NOTIFY_SET, "spop", &c->argv[1]);
}

/* ---- SMOVE --------------------------------------------------------------------------------- */

static bool same_key(const struct resp_slice *a, const struct resp_slice *b)
{
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* SMOVE source destination member */
static void set_smove(struct cmd_call *c)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct store_hash_kv ele = {c->argv[3].p, c->argv[3].len, empty_value, 0};
    const struct store_entry *e, *de;
    const uint8_t *form;
    size_t len, out_len = 0, added = 0, removed = 0;
    int st;

    /* Redis's order: a missing source answers 0 before either type is checked. */
    e = store_lookup(cmd_shard(c, src->p, src->len), c->cl->db, src->p, src->len, c->now_ms, 0);
    if (e == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    de = store_lookup(cmd_shard(c, dst->p, dst->len), c->cl->db, dst->p, dst->len, c->now_ms, 0);
    if (store_entry_type(e) != STORE_TYPE_SET ||
        (de != NULL && store_entry_type(de) != STORE_TYPE_SET)) {
        cmd_reply_err(c, CMD_ERR_WRONGTYPE);
        return;
    }
    /* A destination that fails its checksum is reported before the source changes. */
    if (de != NULL && !same_key(src, dst) && cmd_set_read(c, dst, 1, &de, &form, &len) != 0) {
        return;
    }
    if (cmd_set_read(c, src, 1, &e, &form, &len) != 0) {
        return;
    }
    if (same_key(src, dst)) {
        struct store_hash_kv got;
        st = cmd_elems_coll_of(e) != NULL
                 ? coll_hash_get(cmd_coll_env(c, src), cmd_elems_coll_of(e), ele.f, ele.flen,
                                 NULL, NULL)
                 : store_hash_find(form, len, ele.f, ele.flen, &got);
        if (st < 0) {
            cmd_value_reply_bad(c, src, st);
        } else {
            resp_write_int(c->out, st);
        }
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        struct coll *co = cmd_elems_coll_of(e);
        st = coll_hash_del(cmd_coll_env(c, src), co, ele.f, ele.flen);
        removed = st == 1;
        st = st < 0 ? st : TERSE_OK;
        if (st == TERSE_OK && removed) {
            st = cmd_elems_coll_settle(c, src, STORE_TYPE_SET, co);
        }
    } else {
        st = set_edit(c, form, len, NULL, 0, &ele, 1, &out_len, &added, &removed);
        if (st == TERSE_OK && removed > 0) {
            st = cmd_set_commit(c, src, out_len, CMD_SET_ENC_KEEP, store_entry_is_raw(e));
        }
    }
    if (st == TERSE_OK && removed == 0) {
        resp_write_int(c->out, 0);
        return;
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, src, st);
        return;
    }
    cmd_changed_edit(c, CMD_NOTIFY_SET, "srem", src);
    if (cmd_set_read(c, dst, 1, &de, &form, &len) != 0) {
        return;
    }
    if (cmd_elems_coll_of(de) != NULL) {
        enum coll_hash_result r = COLL_HASH_UNTOUCHED;
        st = coll_hash_put(cmd_coll_env(c, dst), cmd_elems_coll_of(de), ele.f, ele.flen, NULL, 0,
                           COLL_HASH_NX, &r);
        added = r == COLL_HASH_ADDED;
        if (added) {
            cmd_coll_edited(c, dst);
        }
    } else {
        st = set_edit(c, form, len, &ele, 1, NULL, 0, &out_len, &added, &removed);
        if (st == TERSE_OK && added > 0) {
            st = cmd_set_commit(c, dst, out_len, CMD_SET_ENC_GROW,
                                de != NULL && store_entry_is_raw(de));
        }
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, dst, st);
        return;
    }
    if (added > 0) {
        cmd_changed(c, CMD_NOTIFY_SET, "sadd", dst);
    }
    resp_write_int(c->out, 1);
}

#define W_FAST (CMD_WRITE | CMD_DENYOOM | CMD_FAST)
#define R_FAST (CMD_READONLY | CMD_FAST)
#define ACL_WF "@write @set @fast"
#define ACL_WS "@write @set @slow"
#define ACL_RF "@read @set @fast"
#define ACL_RS "@read @set @slow"

/* Rows generated from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS. */
const struct cmd_def cmd_set_defs[] = {
    {"sadd", -3, W_FAST, 1, 1, 1, set_sadd, ACL_WF, "Add one or more members to a set", "1.0.0",
     "set", NULL},
    {"srem", -3, CMD_WRITE | CMD_FAST, 1, 1, 1, set_srem, ACL_WF,
     "Remove one or more members from a set", "1.0.0", "set", NULL},
    {"smembers", 2, CMD_READONLY, 1, 1, 1, cmd_set_smembers, ACL_RS,
     "Get all the members in a set", "1.0.0", "set", NULL},
    {"sismember", 3, R_FAST, 1, 1, 1, cmd_set_sismember, ACL_RF,
     "Determine if a given value is a member of a set", "1.0.0", "set", NULL},
    {"smismember", -3, R_FAST, 1, 1, 1, cmd_set_smismember, ACL_RF,
     "Returns the membership associated with the given elements for a set", "6.2.0", "set",
     NULL},
    {"scard", 2, R_FAST, 1, 1, 1, cmd_set_scard, ACL_RF, "Get the number of members in a set",
     "1.0.0", "set", NULL},
    {"spop", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, set_spop, ACL_WF,
     "Remove and return one or multiple random members from a set", "1.0.0", "set", NULL},
    {"srandmember", -2, CMD_READONLY, 1, 1, 1, cmd_set_srandmember, ACL_RS,
     "Get one or multiple random members from a set", "1.0.0", "set", NULL},
    {"smove", 4, CMD_WRITE | CMD_FAST, 1, 2, 1, set_smove, ACL_WF,
     "Move a member from one set to another", "1.0.0", "set", NULL},
    {"sinter", -2, CMD_READONLY, 1, -1, 1, cmd_set_sinter, ACL_RS, "Intersect multiple sets",
     "1.0.0", "set", NULL},
    {"sintercard", -3, CMD_READONLY | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_set_sintercard, ACL_RS,
     "Intersect multiple sets and return the cardinality of the result", "7.0.0", "set", NULL},
    {"sinterstore", -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, cmd_set_sinterstore, ACL_WS,
     "Intersect multiple sets and store the resulting set in a key", "1.0.0", "set", NULL},
    {"sunion", -2, CMD_READONLY, 1, -1, 1, cmd_set_sunion, ACL_RS, "Add multiple sets", "1.0.0",
     "set", NULL},
    {"sunionstore", -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, cmd_set_sunionstore, ACL_WS,
     "Add multiple sets and store the resulting set in a key", "1.0.0", "set", NULL},
    {"sdiff", -2, CMD_READONLY, 1, -1, 1, cmd_set_sdiff, ACL_RS, "Subtract multiple sets",
     "1.0.0", "set", NULL},
    {"sdiffstore", -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, cmd_set_sdiffstore, ACL_WS,
     "Subtract multiple sets and store the resulting set in a key", "1.0.0", "set", NULL},
    {"sscan", -3, CMD_READONLY, 1, 1, 1, cmd_set_sscan, ACL_RS,
     "Incrementally iterate Set elements", "2.8.0", "set", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
