/*
 * cmd_set_algebra: SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE.
 *
 * Each reads every key first, as Redis does (a missing key is an empty set, a key of another
 * type answers WRONGTYPE even after a missing one), then computes the result form in scratch2
 * with store_hash_edit, then replies it (a set: RESP3 ~) or stores it. Buffers, all the
 * server's (cmd_value.h), nothing allocated per request once they have grown:
 *
 *   scratch3:  [struct src * nkeys][form of key 0][form of key 1]...   (each decoded form is
 *              copied here, since the next read decodes into scratch)
 *   scratch:   arrays of members (struct store_hash_kv, pointing into scratch3 or scratch2)
 *   scratch2:  the result form; SINTER's intermediate forms in three slots of it
 *
 *   SUNION: store_hash_edit(first form, add = members of the others): one pass.
 *   SDIFF:  store_hash_edit(first form, del = members of the others): one pass.
 *   SINTER: R = the smallest set; for each other set B, R = R - (R - B): two edits, each
 *           O(|R| + |B|) for up to a block of members (store_hash.c). The result keeps the
 *           smallest set's order, as Redis iterates it.
 *
 * A result whose members are all integers is put in numeric order (cmd_set_normalize), the
 * order Redis's intset-encoded result set answers in. A STORE form replaces the destination
 * (its TTL goes, as with Redis's setKey) with a set whose encoding is decided afresh, or
 * deletes it when the result is empty. Time: proportional to the sizes of the sets involved
 * (and the rewrite of the destination), as in Redis, but each member of a set costs a
 * decode and a copy, and more than 2560 members against each other go in blocks (store_hash.c).
 */
#include "cmd/set/cmd_set.h"

#include <limits.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"
#include "cmd/set/cmd_set_store.h"

#define ERR_NUMKEYS "ERR numkeys should be greater than 0"
#define ERR_NUMKEYS_ARGS "ERR Number of keys can't be greater than number of args"
#define ERR_LIMIT "ERR LIMIT can't be negative"

enum set_op { SET_OP_INTER, SET_OP_UNION, SET_OP_DIFF };

/* One source key, at the head of scratch3. */
struct src {
    size_t off;   /* its form's offset in scratch3 */
    size_t len;   /* form bytes; 0 when the key is missing */
    uint64_t n;   /* members */
    size_t argi;  /* its argument */
};

static struct src *srcs(struct cmd_call *c)
{
    return (struct src *)(void *)c->srv->scratch3;
}

/* Bytes the decoded forms of the set keys among the nkeys from argv[first] take: a look with
 * no side effect (no hit or miss counted, no access recorded), so that scratch3, whose growth
 * keeps nothing, is grown once before any form is copied in. */
static size_t sources_size(struct cmd_call *c, size_t first, size_t nkeys)
{
    size_t total = 0;

    for (size_t j = 0; j < nkeys; j++) {
        const struct resp_slice *k = &c->argv[first + j];
        const struct store_entry *e =
            store_lookup(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, c->now_ms, 0);
        size_t len = 0;

        if (e != NULL && store_entry_type(e) == STORE_TYPE_SET &&
            cmd_value_len(c, e, &len) == TERSE_OK) {
            total += len;
        }
    }
    return total;
}

/*
 * Reads the nkeys keys from argv[first], copying each form into scratch3. Returns 0 to go on,
 * -1 when it replied (WRONGTYPE, CORRUPT, or an error for a status).
 */
static int load_sources(struct cmd_call *c, size_t first, size_t nkeys)
{
    size_t used = nkeys * sizeof(struct src);
    size_t cap = used + sources_size(c, first, nkeys);
    int st;

    if (cmd_scratch3_reserve(c->srv, cap) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return -1;
    }
    for (size_t j = 0; j < nkeys; j++) {
        const struct store_entry *e;
        const uint8_t *form;
        struct store_hash_it it;
        uint64_t n = 0;
        size_t len;

        if (cmd_set_read(c, &c->argv[first + j], 0, &e, &form, &len) != 0) {
            return -1;
        }
        if (cmd_elems_coll_of(e) != NULL &&
            (st = cmd_coll_whole(c, &c->argv[first + j], cmd_elems_coll_of(e), &form,
                                       &len)) != TERSE_OK) {
            cmd_value_reply_bad(c, &c->argv[first + j], st);
            return -1;
        }
        if (e == NULL) {
            len = 0;
        } else if ((st = store_hash_open(form, len, &it, &n)) != TERSE_OK || n == 0 ||
                   len > cap - used) {
            cmd_value_reply_bad(c, &c->argv[first + j], TERSE_ECORRUPT);
            return -1;
        }
        if (len > 0) {
            memcpy(c->srv->scratch3 + used, form, len);
        }
        srcs(c)[j] = (struct src){used, len, n, first + j};
        used += len;
    }
    return 0;
}

/* Appends the members of form (len bytes) to the kv array in scratch from index *n on; *bytes
 * grows by what they add to a form. The caller reserved room for them (a reserve of scratch
 * keeps nothing). */
static int members_append(struct cmd_call *c, const uint8_t *form, size_t len, size_t *n,
                          size_t *bytes)
{
    struct store_hash_it it;
    struct store_hash_kv *kv = (struct store_hash_kv *)(void *)c->srv->scratch;
    uint64_t count;
    size_t i = *n;
    int st = store_hash_open(form, len, &it, &count);

    if (st != TERSE_OK) {
        return st;
    }
    if (count > len || (*n + (size_t)count) > c->srv->scratch_cap / sizeof(*kv)) {
        return TERSE_ECORRUPT;
    }
    while (i < *n + count && (st = store_hash_next(&it, &kv[i])) == 1) {
        *bytes += store_hash_pair_overhead(kv[i].flen, 0) + kv[i].flen;
        i++;
    }
    if (st < 0 || i < *n + count) {
        return TERSE_ECORRUPT;
    }
    *n = i;
    return TERSE_OK;
}

/* SUNION and SDIFF: the first present set (SDIFF: the first key's), edited with the members
 * of the others added or removed, into scratch2. */
static int union_diff(struct cmd_call *c, size_t nkeys, enum set_op op, size_t *out_len)
{
    const struct src *s = srcs(c);
    const uint8_t *base = NULL;
    size_t j0 = 0, n = 0, bytes = 0, added = 0, removed = 0, cap, len0;
    const struct store_hash_kv *kv;
    int st;

    *out_len = 0;
    while (j0 < nkeys && s[j0].len == 0) {
        if (op == SET_OP_DIFF) {
            return TERSE_OK; /* nothing to subtract from */
        }
        j0++;
    }
    if (j0 == nkeys) {
        return TERSE_OK;
    }
    for (size_t j = j0 + 1; j < nkeys; j++) {
        n += (size_t)s[j].n;
    }
    if (cmd_scratch_reserve(c->srv, n * sizeof(*kv)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    n = 0;
    for (size_t j = j0 + 1; j < nkeys; j++) {
        if (s[j].len > 0) {
            st = members_append(c, c->srv->scratch3 + s[j].off, s[j].len, &n, &bytes);
            if (st != TERSE_OK) {
                return st;
            }
        }
    }
    len0 = s[j0].len;
    cap = len0 + 10 + (op == SET_OP_UNION ? bytes : 0);
    if (cmd_scratch2_reserve(c->srv, cap) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    base = c->srv->scratch3 + s[j0].off;
    kv = (const struct store_hash_kv *)(const void *)c->srv->scratch;
    if (op == SET_OP_UNION) {
        return store_hash_edit(base, len0, kv, n, NULL, 0, c->srv->scratch2, cap, out_len,
                               &added, &removed);
    }
    return store_hash_edit(base, len0, NULL, 0, kv, n, c->srv->scratch2, cap, out_len, &added,
                           &removed);
}

/* R - B for the form r (rlen bytes) and the form b, into out (cap bytes). */
static int subtract(struct cmd_call *c, const uint8_t *r, size_t rlen, const uint8_t *b,
                    size_t blen, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t n = 0, bytes = 0, added = 0, removed = 0;
    struct store_hash_it it;
    uint64_t count;
    int st = store_hash_open(b, blen, &it, &count);

    if (st != TERSE_OK) {
        return st;
    }
    if (count > blen) {
        return TERSE_ECORRUPT;
    }
    if (cmd_scratch_reserve(c->srv, (size_t)count * sizeof(struct store_hash_kv)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    st = members_append(c, b, blen, &n, &bytes);
    if (st != TERSE_OK) {
        return st;
    }
    return store_hash_edit(r, rlen, NULL, 0, (const struct store_hash_kv *)(void *)c->srv->scratch,
                           n, out, cap, out_len, &added, &removed);
}

/* SINTER: R = the smallest set (the first of the smallest, as Redis's qsort leaves it), then
 * R = R - (R - B) for each other set B, into scratch2. */
static int inter(struct cmd_call *c, size_t nkeys, size_t *out_len)
{
    const struct src *s = srcs(c);
    size_t small = 0, slot, rlen, tlen = 0, r_at;
    uint8_t *w;
    int st;

    *out_len = 0;
    for (size_t j = 0; j < nkeys; j++) {
        if (s[j].len == 0) {
            return TERSE_OK;
        }
        if (s[j].n < s[small].n) {
            small = j;
        }
    }
    /* Three slots of the first form's size (+ a count's width) in scratch2: R, R - B, next R. */
    rlen = s[small].len;
    slot = rlen + 10;
    if (cmd_scratch2_reserve(c->srv, 3 * slot) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    w = c->srv->scratch2;
    memcpy(w, c->srv->scratch3 + s[small].off, rlen);
    r_at = 0;
    for (size_t j = 0; j < nkeys && rlen > 0; j++) {
        size_t t_at = (r_at + 1) % 3, n_at = (r_at + 2) % 3, nlen = 0;
        if (j == small) {
            continue;
        }
        s = srcs(c);
        st = subtract(c, w + r_at * slot, rlen, c->srv->scratch3 + s[j].off, s[j].len,
                      w + t_at * slot, slot, &tlen);
        if (st != TERSE_OK) {
            return st;
        }
        if (tlen == 0) {
            continue; /* B holds all of R */
        }
        st = subtract(c, w + r_at * slot, rlen, w + t_at * slot, tlen, w + n_at * slot, slot,
                      &nlen);
        if (st != TERSE_OK) {
            return st;
        }
        r_at = n_at;
        rlen = nlen;
    }
    memmove(w, w + r_at * slot, rlen);
    *out_len = rlen;
    return TERSE_OK;
}

/* Replies the result form in scratch2 as a set, or the error for st. */
static void reply_result(struct cmd_call *c, int st, size_t len)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    bool all_int;
    size_t mark = c->out->len;

    if (st == TERSE_OK) {
        st = cmd_set_normalize(c->srv, len, &len, &n, &all_int);
    }
    if (st == TERSE_OK && len == 0) {
        resp_write_set(c->out, 0);
        return;
    }
    if (st == TERSE_OK) {
        st = store_hash_open(c->srv->scratch2, len, &it, &n);
    }
    if (st == TERSE_OK) {
        resp_write_set(c->out, (size_t)n);
        while ((st = store_hash_next(&it, &kv)) == 1) {
            resp_write_bulk(c->out, kv.f, kv.flen);
        }
        st = st < 0 ? st : TERSE_OK;
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_value_reply_bad(c, &c->argv[1], st);
    }
}

/* Stores the result form in scratch2 at argv[1] (replacing what was there) and replies its
 * member count, or the error for st. event: the command's notification. */
static void store_result(struct cmd_call *c, int st, size_t len, const char *event)
{
    const struct resp_slice *dst = &c->argv[1];
    struct store_hash_it it;
    uint64_t n = 0;

    if (st == TERSE_OK && len > 0) {
        st = store_hash_open(c->srv->scratch2, len, &it, &n);
    }
    if (st == TERSE_OK) {
        /* The result replaces dst without its expiry (an overwrite, not a delete and an add:
         * Redis's setKey, which reports no new key). Dropping an expiry never allocates. */
        (void)store_expire_set(cmd_shard(c, dst->p, dst->len), c->cl->db, dst->p, dst->len,
                               STORE_NO_EXPIRE, c->now_ms);
        st = cmd_set_commit(c, dst, len, CMD_SET_ENC_FRESH, false);
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, dst, st);
        return;
    }
    cmd_changed_stored(c, CMD_NOTIFY_SET, event, dst, len > 0);
    resp_write_int(c->out, (long long)n);
}

/* The command on argv[first..argc): replied, or stored at argv[1] when store. */
static void set_op(struct cmd_call *c, size_t first, enum set_op op, bool store)
{
    size_t nkeys = c->argc - first, len = 0;
    int st;

    if (load_sources(c, first, nkeys) != 0) {
        return;
    }
    st = op == SET_OP_INTER ? inter(c, nkeys, &len) : union_diff(c, nkeys, op, &len);
    if (store) {
        store_result(c, st, len,
                     op == SET_OP_INTER   ? "sinterstore"
                     : op == SET_OP_UNION ? "sunionstore"
                                          : "sdiffstore");
    } else {
        reply_result(c, st, len);
    }
}

void cmd_set_sinter(struct cmd_call *c)
{
    set_op(c, 1, SET_OP_INTER, false);
}

void cmd_set_sinterstore(struct cmd_call *c)
{
    set_op(c, 2, SET_OP_INTER, true);
}

void cmd_set_sunion(struct cmd_call *c)
{
    set_op(c, 1, SET_OP_UNION, false);
}

void cmd_set_sunionstore(struct cmd_call *c)
{
    set_op(c, 2, SET_OP_UNION, true);
}

void cmd_set_sdiff(struct cmd_call *c)
{
    set_op(c, 1, SET_OP_DIFF, false);
}

void cmd_set_sdiffstore(struct cmd_call *c)
{
    set_op(c, 2, SET_OP_DIFF, true);
}

/* SINTERCARD numkeys key [key ...] [LIMIT limit] */
void cmd_set_sintercard(struct cmd_call *c)
{
    long long numkeys, limit = 0;
    struct store_hash_it it;
    uint64_t n = 0;
    size_t len = 0;
    int st;

    if (!cmd_parse_ll(c->argv[1].p, c->argv[1].len, &numkeys) || numkeys < 1) {
        cmd_reply_err(c, ERR_NUMKEYS);
        return;
    }
    if (numkeys > (long long)c->argc - 2) {
        cmd_reply_err(c, ERR_NUMKEYS_ARGS);
        return;
    }
    for (size_t j = 2 + (size_t)numkeys; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "limit") && j + 1 < c->argc) {
            j++;
            if (!cmd_parse_ll(c->argv[j].p, c->argv[j].len, &limit) || limit < 0) {
                cmd_reply_err(c, ERR_LIMIT);
                return;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (load_sources(c, 2, (size_t)numkeys) != 0) {
        return;
    }
    st = inter(c, (size_t)numkeys, &len);
    if (st == TERSE_OK && len > 0) {
        st = store_hash_open(c->srv->scratch2, len, &it, &n);
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[2], st);
        return;
    }
    resp_write_int(c->out, (long long)(limit > 0 && (uint64_t)limit < n ? (uint64_t)limit : n));
}
