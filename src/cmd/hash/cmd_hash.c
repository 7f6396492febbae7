/*
 * cmd_hash: hash writes (HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT), the read step the
 * family shares, and the family's command table. The reads are in cmd_hash_read.c.
 *
 * A hash is one codec value: its fields in the form of store_hash.h, compressed and
 * checksummed like a string, verified on every read. A write decodes the form into scratch,
 * builds the next form in scratch2 (store_hash_edit), encodes that into scratch and stores it
 * in place of the old entry. So a write costs time in proportion to the hash's size, as
 * Redis's listpack encoding does (which Redis uses up to 512 fields by default).
 *
 * OBJECT ENCODING answers what Redis would hold: "listpack" until the hash has more than
 * hash-max-listpack-entries fields or a write brings a field or value longer than
 * hash-max-listpack-value bytes, then "hashtable" for good (the entry's raw mark; Redis never
 * converts back either, except when it loads the hash from a snapshot:
 * cmd_value_after_load). A hashtable-encoded hash whose form passes terse-chunk-bytes is held
 * in chunks instead (cmd_elems_coll.h): a write then costs the one chunk its field is in.
 *
 * Buffers: scratch, scratch2 and scratch3 belong to the cmd_server (cmd_value.h) and hold
 * nothing between commands; the field/value pairs of a write are slices of the request and
 * of the decoded form, described by an array in scratch3. Nothing is allocated per request
 * once the scratches have grown.
 */
#include "cmd/hash/cmd_hash.h"

#include <math.h>
#include <stdbool.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "codec/codec_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/hash/cmd_hash_read.h"

#define ERR_HASH_NOT_INT "ERR hash value is not an integer"
#define ERR_HASH_NOT_FLOAT "ERR hash value is not a float"
#define ERR_VALUE_NAN_INF "ERR value is NaN or Infinity"
void cmd_hash_reply_bad(struct cmd_call *c, int status)
{
    cmd_value_reply_bad(c, &c->argv[1], status);
}

int cmd_hash_read(struct cmd_call *c, const struct store_entry **e, const uint8_t **form,
                  size_t *len)
{
    return cmd_value_read_form(c, &c->argv[1], STORE_TYPE_HASH, 0, e, form, len);
}

/* The same for a write: no hit or miss counted, no access recorded. */
static int hash_read_for_write(struct cmd_call *c, const struct store_entry **e,
                               const uint8_t **form, size_t *len)
{
    return cmd_value_read_form(c, &c->argv[1], STORE_TYPE_HASH, 1, e, form, len);
}

/* Whether a field or value of the n pairs is longer than hash-max-listpack-value. */
static bool pairs_too_long(const struct cmd_server *srv, const struct store_hash_kv *kv,
                           size_t n)
{
    long long max_value = srv->settings.hash_max_listpack_value;

    for (size_t i = 0; i < n; i++) {
        if ((long long)kv[i].flen > max_value || (long long)kv[i].vlen > max_value) {
            return true;
        }
    }
    return false;
}

const char *cmd_hash_encoding(const struct store_entry *e)
{
    return store_entry_is_raw(e) || store_entry_enc(e) == STORE_ENC_COLL ? "hashtable"
                                                                         : "listpack";
}

/* Whether a listpack cannot hold the pair (cmd_elems_form_is_table's test). */
static bool pair_too_long(const struct cmd_server *srv, const struct store_hash_kv *kv)
{
    return pairs_too_long(srv, kv, 1);
}

int cmd_hash_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len)
{
    return cmd_elems_form_is_table(srv, form, len, srv->settings.hash_max_listpack_entries,
                                   pair_too_long);
}

/* Whether Redis would hold the hash after this write as a hashtable (see the top). */
static bool hash_is_table(const struct cmd_call *c, const struct store_entry *old,
                          uint64_t n_fields, const struct store_hash_kv *set, size_t n)
{
    return (old != NULL && store_entry_is_raw(old)) ||
           n_fields > (uint64_t)c->srv->settings.hash_max_listpack_entries ||
           pairs_too_long(c->srv, set, n);
}

/*
 * Applies n pairs to set and m fields to delete to the hash old (form, len: its decoded
 * fields, or NULL, 0), then stores the result, or deletes the key when no field is left.
 * *added and *removed as store_hash_edit. TERSE_OK or a status for cmd_hash_reply_bad.
 */
static int hash_apply(struct cmd_call *c, const struct store_entry *old, const uint8_t *form,
                      size_t len, const struct store_hash_kv *set, size_t n,
                      const struct store_hash_kv *del, size_t m, size_t *added, size_t *removed)
{
    const struct resp_slice *key = &c->argv[1];
    size_t cap = len + 10, out_len = 0;
    struct store_hash_it it;
    uint64_t n_fields;
    int st;

    for (size_t i = 0; i < n; i++) {
        cap += store_hash_pair_overhead(set[i].flen, set[i].vlen) + set[i].flen + set[i].vlen;
    }
    st = cmd_scratch2_reserve(c->srv, cap);
    if (st != TERSE_OK) {
        return st;
    }
    st = store_hash_edit(form, len, set, n, del, m, c->srv->scratch2, cap, &out_len, added,
                         removed);
    if (st != TERSE_OK) {
        return st;
    }
    c->emptied = 0;
    if (out_len == 0) {
        if (old != NULL) {
            c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p,
                                      key->len, c->now_ms);
        }
        return TERSE_OK;
    }
    if (old != NULL && *added == 0 && *removed == 0 && n == 0) {
        return TERSE_OK; /* HDEL of fields that are not there: nothing to write */
    }
    st = store_hash_open(c->srv->scratch2, out_len, &it, &n_fields);
    if (st != TERSE_OK) {
        return st;
    }
    if (cmd_elems_wants_chunks(c->srv, hash_is_table(c, old, n_fields, set, n), out_len)) {
        return cmd_elems_coll_store_form(c, key, STORE_TYPE_HASH, out_len);
    }
    return cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_HASH, out_len,
                                hash_is_table(c, old, n_fields, set, n) ? (unsigned)STORE_SET_RAW
                                                                        : 0u);
}

/* The n pairs written to a chunked hash in turn, under flags (COLL_HASH_NX...): *added new
 * fields. The store hears of the edit when anything changed. TERSE_OK or a status (the pairs
 * before the failing one stay written). */
static int coll_put_pairs(struct cmd_call *c, struct coll *co, const struct store_hash_kv *kv,
                          size_t n, unsigned flags, size_t *added)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    size_t changed = 0;
    int st = TERSE_OK;

    *added = 0;
    for (size_t i = 0; i < n && st == TERSE_OK; i++) {
        enum coll_hash_result r = COLL_HASH_UNTOUCHED;
        st = coll_hash_put(env, co, kv[i].f, kv[i].flen, kv[i].v, kv[i].vlen, flags, &r);
        *added += r == COLL_HASH_ADDED;
        changed += r != COLL_HASH_UNTOUCHED;
    }
    if (changed > 0) {
        cmd_coll_edited(c, &c->argv[1]);
    }
    return st;
}

/* HSET and HMSET: key field value [field value ...]; reply is the new-field count or +OK. */
static void hash_set_pairs(struct cmd_call *c, bool ok_reply)
{
    const struct store_entry *e;
    const struct store_hash_kv *kv;
    const uint8_t *form;
    size_t len, n, added = 0, removed = 0;
    int st;

    if (c->argc % 2 != 0) {
        resp_write_errorf(c->out, "ERR wrong number of arguments for '%s' command",
                          ok_reply ? "hmset" : "hset");
        return;
    }
    if (hash_read_for_write(c, &e, &form, &len) != 0) {
        return;
    }
    kv = cmd_elems_from_args(c, 2, true, &n);
    if (kv == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    st = cmd_elems_coll_of(e) != NULL
             ? coll_put_pairs(c, cmd_elems_coll_of(e), kv, n, 0, &added)
             : hash_apply(c, e, form, len, kv, n, NULL, 0, &added, &removed);
    if (st != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_HASH, "hset", &c->argv[1]);
    if (ok_reply) {
        resp_write_ok(c->out);
    } else {
        resp_write_int(c->out, (long long)added);
    }
}

static void hash_hset(struct cmd_call *c)
{
    hash_set_pairs(c, false);
}

static void hash_hmset(struct cmd_call *c)
{
    hash_set_pairs(c, true);
}

/* HSETNX key field value */
static void hash_hsetnx(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len, added = 0, removed = 0;
    struct store_hash_kv kv = {c->argv[2].p, c->argv[2].len, c->argv[3].p, c->argv[3].len};
    struct store_hash_kv got;
    int st;

    if (hash_read_for_write(c, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        st = coll_put_pairs(c, cmd_elems_coll_of(e), &kv, 1, COLL_HASH_NX, &added);
        if (st != TERSE_OK) {
            cmd_hash_reply_bad(c, st);
            return;
        }
        if (added > 0) {
            cmd_changed(c, CMD_NOTIFY_HASH, "hset", &c->argv[1]);
        }
        resp_write_int(c->out, (long long)added);
        return;
    }
    if (e != NULL) {
        st = store_hash_find(form, len, kv.f, kv.flen, &got);
        if (st < 0) {
            cmd_hash_reply_bad(c, st);
            return;
        }
        if (st == 1) {
            resp_write_int(c->out, 0);
            return;
        }
    }
    st = hash_apply(c, e, form, len, &kv, 1, NULL, 0, &added, &removed);
    if (st != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_HASH, "hset", &c->argv[1]);
    resp_write_int(c->out, 1);
}

/* HDEL key field [field ...] */
static void hash_hdel(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_kv *del;
    size_t len, added = 0, removed = 0, m;
    int st;

    if (hash_read_for_write(c, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    del = cmd_elems_from_args(c, 2, false, &m);
    if (del == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        struct coll *co = cmd_elems_coll_of(e);
        st = TERSE_OK;
        for (size_t i = 0; i < m && st == TERSE_OK; i++) {
            st = coll_hash_del(cmd_coll_env(c, &c->argv[1]), co, del[i].f, del[i].flen);
            removed += st == 1;
            st = st < 0 ? st : TERSE_OK;
        }
        if (removed > 0) {
            int st2 = cmd_elems_coll_settle(c, &c->argv[1], STORE_TYPE_HASH, co);
            st = st != TERSE_OK ? st : st2;
        }
    } else {
        st = hash_apply(c, e, form, len, NULL, 0, del, m, &added, &removed);
    }
    if (st != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return;
    }
    if (removed > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_HASH, "hdel", &c->argv[1]);
    }
    resp_write_int(c->out, (long long)removed);
}

/*
 * The field argv[2] of the hash at argv[1] for an increment: *e, *form, *len as
 * hash_read_for_write, *cur the field's value when *found. -1 when it replied.
 */
static int incr_field(struct cmd_call *c, const struct store_entry **e, const uint8_t **form,
                      size_t *len, struct store_hash_kv *cur, bool *found)
{
    int st;

    *found = false;
    if (hash_read_for_write(c, e, form, len) != 0) {
        return -1;
    }
    if (*e == NULL) {
        return 0;
    }
    if (cmd_elems_coll_of(*e) != NULL) {
        st = coll_hash_get(cmd_coll_env(c, &c->argv[1]), cmd_elems_coll_of(*e), c->argv[2].p,
                           c->argv[2].len, &cur->v, &cur->vlen);
        if (st < 0) {
            cmd_hash_reply_bad(c, st);
            return -1;
        }
        *found = st == 1;
        return 0;
    }
    st = store_hash_find(*form, *len, c->argv[2].p, c->argv[2].len, cur);
    if (st < 0) {
        cmd_hash_reply_bad(c, st);
        return -1;
    }
    *found = st == 1;
    return 0;
}

/* Stores the new value text of argv[2] (after an increment); -1 when it replied an error. */
static int incr_store(struct cmd_call *c, const struct store_entry *e, const uint8_t *form,
                      size_t len, const char *text, size_t text_len, const char *event)
{
    struct store_hash_kv kv = {c->argv[2].p, c->argv[2].len, (const uint8_t *)text, text_len};
    size_t added = 0, removed = 0;
    int st = cmd_elems_coll_of(e) != NULL
                 ? coll_put_pairs(c, cmd_elems_coll_of(e), &kv, 1, 0, &added)
                 : hash_apply(c, e, form, len, &kv, 1, NULL, 0, &added, &removed);

    if (st != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return -1;
    }
    cmd_changed(c, CMD_NOTIFY_HASH, event, &c->argv[1]);
    return 0;
}

/* HINCRBY key field increment */
static void hash_hincrby(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_kv cur;
    long long incr, v = 0;
    char buf[24];
    size_t len, n;
    bool found;

    if (cmd_ll_or_reply(c, 3, &incr, NULL) != 0 || incr_field(c, &e, &form, &len, &cur, &found)) {
        return;
    }
    if (found && !cmd_parse_ll(cur.v, cur.vlen, &v)) {
        cmd_reply_err(c, ERR_HASH_NOT_INT);
        return;
    }
    if (cmd_ll_add_or_reply(c, &v, incr) != 0) {
        return;
    }
    n = cmd_format_ll(buf, v);
    if (incr_store(c, e, form, len, buf, n, "hincrby") == 0) {
        resp_write_int(c->out, v);
    }
}

/* HINCRBYFLOAT key field increment */
static void hash_hincrbyfloat(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_kv cur;
    long double incr, v = 0;
    char buf[CMD_LD_STR_MAX];
    size_t len, n;
    bool found;

    if (cmd_ld_or_reply(c, 3, &incr, NULL) != 0) {
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        cmd_reply_err(c, ERR_VALUE_NAN_INF);
        return;
    }
    if (incr_field(c, &e, &form, &len, &cur, &found) != 0) {
        return;
    }
    if (found && !cmd_parse_ld(cur.v, cur.vlen, &v)) {
        cmd_reply_err(c, ERR_HASH_NOT_FLOAT);
        return;
    }
    if (cmd_ld_add_or_reply(c, &v, incr) != 0) {
        return;
    }
    n = cmd_format_ld(buf, sizeof(buf), v);
    if (incr_store(c, e, form, len, buf, n, "hincrbyfloat") == 0) {
        struct resp_slice a[4] = {cmd_feed_str("HSET"), c->argv[1], c->argv[2],
                                  {(const uint8_t *)buf, n}};
        cmd_feed_rewrite(c, a, 4); /* the value it gave, as Redis feeds it */
        resp_write_bulk(c->out, buf, n);
    }
}

#define W_FAST (CMD_WRITE | CMD_DENYOOM | CMD_FAST)
#define R_FAST (CMD_READONLY | CMD_FAST)
#define ACL_WF "@write @hash @fast"
#define ACL_RF "@read @hash @fast"
#define ACL_RS "@read @hash @slow"

const struct cmd_def cmd_hash_defs[] = {
    {"hset", -4, W_FAST, 1, 1, 1, hash_hset, ACL_WF, "Set the string value of a hash field",
     "2.0.0", "hash", NULL},
    {"hsetnx", 4, W_FAST, 1, 1, 1, hash_hsetnx, ACL_WF,
     "Set the value of a hash field, only if the field does not exist", "2.0.0", "hash", NULL},
    {"hmset", -4, W_FAST, 1, 1, 1, hash_hmset, ACL_WF,
     "Set multiple hash fields to multiple values", "2.0.0", "hash", NULL},
    {"hget", 3, R_FAST, 1, 1, 1, cmd_hash_hget, ACL_RF, "Get the value of a hash field", "2.0.0",
     "hash", NULL},
    {"hmget", -3, R_FAST, 1, 1, 1, cmd_hash_hmget, ACL_RF,
     "Get the values of all the given hash fields", "2.0.0", "hash", NULL},
    {"hgetall", 2, CMD_READONLY, 1, 1, 1, cmd_hash_hgetall, ACL_RS,
     "Get all the fields and values in a hash", "2.0.0", "hash", NULL},
    {"hkeys", 2, CMD_READONLY, 1, 1, 1, cmd_hash_hkeys, ACL_RS, "Get all the fields in a hash",
     "2.0.0", "hash", NULL},
    {"hvals", 2, CMD_READONLY, 1, 1, 1, cmd_hash_hvals, ACL_RS, "Get all the values in a hash",
     "2.0.0", "hash", NULL},
    {"hlen", 2, R_FAST, 1, 1, 1, cmd_hash_hlen, ACL_RF, "Get the number of fields in a hash",
     "2.0.0", "hash", NULL},
    {"hexists", 3, R_FAST, 1, 1, 1, cmd_hash_hexists, ACL_RF, "Determine if a hash field exists",
     "2.0.0", "hash", NULL},
    {"hdel", -3, CMD_WRITE | CMD_FAST, 1, 1, 1, hash_hdel, ACL_WF,
     "Delete one or more hash fields", "2.0.0", "hash", NULL},
    {"hstrlen", 3, R_FAST, 1, 1, 1, cmd_hash_hstrlen, ACL_RF,
     "Get the length of the value of a hash field", "3.2.0", "hash", NULL},
    {"hincrby", 4, W_FAST, 1, 1, 1, hash_hincrby, ACL_WF,
     "Increment the integer value of a hash field by the given number", "2.0.0", "hash", NULL},
    {"hincrbyfloat", 4, W_FAST, 1, 1, 1, hash_hincrbyfloat, ACL_WF,
     "Increment the float value of a hash field by the given amount", "2.6.0", "hash", NULL},
    {"hrandfield", -2, CMD_READONLY, 1, 1, 1, cmd_hash_hrandfield, ACL_RS,
     "Get one or multiple random fields from a hash", "6.2.0", "hash", NULL},
    {"hscan", -3, CMD_READONLY, 1, 1, 1, cmd_hash_hscan, ACL_RS,
     "Incrementally iterate hash fields and associated values", "2.8.0", "hash", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
