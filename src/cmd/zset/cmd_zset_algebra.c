/*
 * cmd_zset_algebra: ZUNION, ZINTER, ZDIFF, ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE, ZINTERCARD
 * (Redis's zunionInterDiffGenericCommand). A set among the inputs counts as a zset whose
 * members all score 1.
 *
 * As Redis: every key is looked up (and type-checked) before the options are parsed; the
 * inputs of a union or intersection are taken smallest first (a stable order by size), and
 * the scores of a member are aggregated in that order, so a SUM rounds as Redis's does.
 *
 * Buffers, all the server's (cmd_value.h), nothing allocated per request once grown:
 *
 *   scratch3: [struct src * nkeys][decoded form of each input]  (the next read decodes into
 *             scratch, so each form is copied here)
 *   scratch:  struct item per member of every input, pointing into scratch3: sorted by
 *             (member, input), each run of one member is folded into one result element,
 *             written over the front of the same array, then sorted by (score, member)
 *
 * Time O(m log m) for m members in all, no hashing; a result is stored (cmd_zset_commit) or
 * replied as ZRANGE replies.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"
#include "cmd/zset/cmd_zset_form.h"

#define ERR_WEIGHT "ERR weight value is not a float"
#define ERR_LIMIT "ERR LIMIT can't be negative"

enum zop { ZOP_UNION, ZOP_INTER, ZOP_DIFF };
enum aggr { AGGR_SUM, AGGR_MIN, AGGR_MAX };

/* One input key, at the head of scratch3. */
struct src {
    size_t argi;          /* its argument */
    enum store_type type; /* STORE_TYPE_ZSET or STORE_TYPE_SET; its form's kind */
    bool present;
    size_t off;    /* its form in scratch3 */
    size_t len;    /* form bytes; 0 when missing */
    uint64_t n;    /* members */
    double weight; /* WEIGHTS, 1 by default */
};

/* One member of one input. */
struct item {
    struct store_zset_el el;
    size_t src; /* the input's position in the order its scores aggregate */
};

struct zop_args {
    enum zop op;
    bool store;    /* the STORE forms: argv[1] is the destination */
    bool card;     /* ZINTERCARD */
    size_t first;  /* first key's argument */
    size_t nkeys;
    enum aggr aggr;
    bool withscores;
    long long limit; /* ZINTERCARD LIMIT, 0: none */
};

static struct src *srcs(struct cmd_call *c)
{
    return (struct src *)(void *)c->srv->scratch3;
}

/* ---- arguments ---------------------------------------------------------------------------- */

/* numkeys at argv[first - 1]: 0 with *nkeys, or -1 when it replied. */
static int numkeys_or_reply(struct cmd_call *c, size_t at, size_t *nkeys)
{
    long long v;

    if (cmd_ll_or_reply(c, at, &v, NULL) != 0) {
        return -1;
    }
    if (v < 1) {
        char msg[96];
        snprintf(msg, sizeof(msg), "ERR at least 1 input key is needed for '%.*s' command",
                 (int)c->argv[0].len > 40 ? 40 : (int)c->argv[0].len,
                 (const char *)c->argv[0].p);
        for (char *p = msg; *p != '\0'; p++) {
            *p = (p > msg + 4 && *p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
        }
        cmd_reply_err(c, msg);
        return -1;
    }
    if ((unsigned long long)v > c->argc - at - 1) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    *nkeys = (size_t)v;
    return 0;
}

/* Looks every key up, as Redis does before the options: the head of scratch3. -1: replied. */
static int lookup_keys_or_reply(struct cmd_call *c, const struct zop_args *z)
{
    if (cmd_scratch3_reserve(c->srv, z->nkeys * sizeof(struct src)) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return -1;
    }
    for (size_t j = 0; j < z->nkeys; j++) {
        const struct store_entry *e =
            cmd_lookup_read_type(c, &c->argv[z->first + j], STORE_TYPE_ZSET, NULL);
        if (e != NULL && store_entry_type(e) != STORE_TYPE_ZSET &&
            store_entry_type(e) != STORE_TYPE_SET) {
            cmd_reply_err(c, CMD_ERR_WRONGTYPE);
            return -1;
        }
        srcs(c)[j] = (struct src){z->first + j, e != NULL ? store_entry_type(e) : STORE_TYPE_ZSET,
                                  e != NULL, 0, 0, 0, 1.0};
    }
    return 0;
}

/* WEIGHTS, AGGREGATE, WITHSCORES, LIMIT after the keys. -1 when it replied. */
static int options_or_reply(struct cmd_call *c, struct zop_args *z)
{
    size_t j = z->first + z->nkeys;
    bool full = z->op != ZOP_DIFF && !z->card;

    while (j < c->argc) {
        size_t left = c->argc - j;
        if (full && left >= z->nkeys + 1 && cmd_arg_is(c, j, "weights")) {
            j++;
            for (size_t i = 0; i < z->nkeys; i++, j++) {
                if (cmd_zset_score_or_reply(c, j, &srcs(c)[i].weight, ERR_WEIGHT) != 0) {
                    return -1;
                }
            }
        } else if (full && left >= 2 && cmd_arg_is(c, j, "aggregate")) {
            j++;
            if (cmd_arg_is(c, j, "sum")) {
                z->aggr = AGGR_SUM;
            } else if (cmd_arg_is(c, j, "min")) {
                z->aggr = AGGR_MIN;
            } else if (cmd_arg_is(c, j, "max")) {
                z->aggr = AGGR_MAX;
            } else {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return -1;
            }
            j++;
        } else if (!z->store && !z->card && cmd_arg_is(c, j, "withscores")) {
            z->withscores = true;
            j++;
        } else if (z->card && left >= 2 && cmd_arg_is(c, j, "limit")) {
            if (!cmd_parse_ll(c->argv[j + 1].p, c->argv[j + 1].len, &z->limit) || z->limit < 0) {
                cmd_reply_err(c, ERR_LIMIT);
                return -1;
            }
            j += 2;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* ---- inputs ------------------------------------------------------------------------------- */

/* Copies each present input's decoded form into scratch3 after the head. -1: replied. */
static int load_forms_or_reply(struct cmd_call *c, const struct zop_args *z)
{
    size_t used = z->nkeys * sizeof(struct src), cap = used;
    struct src *s;

    for (size_t j = 0; j < z->nkeys; j++) {
        const struct resp_slice *k = &c->argv[z->first + j];
        const struct store_entry *e =
            store_lookup(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, c->now_ms, 0);
        size_t len = 0;
        if (e != NULL && cmd_value_len(c, e, &len) == TERSE_OK) {
            cap += len;
        }
    }
    /* Growing scratch3 keeps nothing: save the head on the stack's worth at a time. */
    if (cap > c->srv->scratch3_cap) {
        size_t head = used;
        if (cmd_scratch_reserve(c->srv, head) != TERSE_OK) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
        memcpy(c->srv->scratch, c->srv->scratch3, head);
        if (cmd_scratch3_reserve(c->srv, cap) != TERSE_OK) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
        memcpy(c->srv->scratch3, c->srv->scratch, head);
    }
    for (size_t j = 0; j < z->nkeys; j++) {
        const struct resp_slice *k;
        const struct store_entry *e;
        const uint8_t *form;
        size_t len;
        int st;

        s = &srcs(c)[j];
        if (!s->present) {
            continue;
        }
        k = &c->argv[s->argi];
        e = store_lookup(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, c->now_ms, 0);
        st = e == NULL ? TERSE_ECORRUPT : cmd_value_get(c, e, &form, &len);
        if (st == TERSE_OK && (len > cap - used || store_zset_count(form, len, &s->n) != 0 ||
                               s->n == 0 || s->n > len)) {
            st = TERSE_ECORRUPT;
        }
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, k, st);
            return -1;
        }
        memcpy(c->srv->scratch3 + used, form, len);
        s->off = used;
        s->len = len;
        used += len;
    }
    return 0;
}

/* Appends the members of input s (its position in aggregation order: pos) to items from *m
 * on, each scored weight * score (sets: weight * 1). TERSE_OK or TERSE_ECORRUPT. */
static int append_items(struct cmd_call *c, const struct src *s, size_t pos, struct item *items,
                        size_t *m)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    int rc;

    if (s->len == 0) {
        return TERSE_OK;
    }
    if (store_hash_open(c->srv->scratch3 + s->off, s->len, &it, &n) != TERSE_OK || n != s->n) {
        return TERSE_ECORRUPT;
    }
    while ((rc = store_hash_next(&it, &kv)) == 1) {
        double score = 1.0;
        if (s->type == STORE_TYPE_ZSET) {
            if (kv.vlen != STORE_ZSET_SCORE_LEN) {
                return TERSE_ECORRUPT;
            }
            score = store_zset_score(kv.v);
            if (isnan(score)) {
                return TERSE_ECORRUPT;
            }
        }
        items[(*m)++] = (struct item){{kv.f, kv.flen, s->weight * score}, pos};
    }
    return rc;
}

/* ---- computing ---------------------------------------------------------------------------- */

static int item_cmp(const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;
    int cmp = store_zset_member_cmp(a->el.m, a->el.mlen, b->el.m, b->el.mlen);

    return cmp != 0 ? cmp : (a->src < b->src ? -1 : a->src > b->src);
}

static int el_cmp(const void *a, const void *b)
{
    return store_zset_cmp(a, b);
}

static void aggregate(double *target, double v, enum aggr how)
{
    if (how == AGGR_SUM) {
        *target += v;
        if (isnan(*target)) {
            *target = 0.0;
        }
    } else if (how == AGGR_MIN) {
        *target = v < *target ? v : *target;
    } else {
        *target = v > *target ? v : *target;
    }
}

/* The aggregation order: the inputs' indexes, smallest first for a union or intersection
 * (stable: Redis's qsort by size keeps ties in order), as given for a difference. */
static void order_inputs(const struct src *s, size_t nkeys, enum zop op, size_t *order)
{
    for (size_t i = 0; i < nkeys; i++) {
        size_t j = i;
        while (op != ZOP_DIFF && j > 0 && s[order[j - 1]].n > s[i].n) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

/*
 * Computes the result into scratch: *out (elements in store_zset_cmp order), *n of them.
 * For ZINTERCARD only *n is meaningful (capped at the limit).
 */
static int compute(struct cmd_call *c, const struct zop_args *z, struct store_zset_el **out,
                   size_t *n)
{
    size_t total = 0, m = 0, k = 0, *order;
    struct item *items;
    int st = TERSE_OK;

    for (size_t j = 0; j < z->nkeys; j++) {
        total += (size_t)srcs(c)[j].n;
    }
    if (cmd_scratch_reserve(c->srv, total * sizeof(*items) + z->nkeys * sizeof(*order)) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    items = (struct item *)(void *)c->srv->scratch;
    order = (size_t *)(void *)(items + total);
    order_inputs(srcs(c), z->nkeys, z->op, order);
    for (size_t p = 0; p < z->nkeys && st == TERSE_OK; p++) {
        st = append_items(c, &srcs(c)[order[p]], p, items, &m);
    }
    if (st != TERSE_OK) {
        return st;
    }
    store_zset_sort(items, m, sizeof(*items), item_cmp);
    for (size_t i = 0; i < m;) {
        size_t r = i + 1;
        double score = items[i].el.score;
        bool keep;

        if (z->op != ZOP_DIFF && isnan(score)) {
            score = 0; /* Redis: a weight times a score that makes NaN counts as 0 */
        }
        while (r < m && store_zset_member_cmp(items[r].el.m, items[r].el.mlen, items[i].el.m,
                                              items[i].el.mlen) == 0) {
            double v = items[r].el.score;
            if (z->op == ZOP_UNION && isnan(v)) {
                v = 0;
            }
            aggregate(&score, v, z->aggr);
            r++;
        }
        keep = z->op == ZOP_UNION || (z->op == ZOP_INTER && r - i == z->nkeys) ||
               (z->op == ZOP_DIFF && r - i == 1 && items[i].src == 0);
        if (keep) {
            /* k <= i: the result overwrites items already read */
            struct store_zset_el el = {items[i].el.m, items[i].el.mlen, score};
            ((struct store_zset_el *)(void *)items)[k++] = el;
        }
        i = r;
        if (z->card && z->limit > 0 && k >= (size_t)z->limit) {
            break;
        }
    }
    *out = (struct store_zset_el *)(void *)items;
    *n = k;
    if (!z->card) {
        store_zset_sort(*out, k, sizeof(**out), el_cmp);
    }
    return TERSE_OK;
}

/* ---- the commands ------------------------------------------------------------------------- */

static void zop_generic(struct cmd_call *c, struct zop_args z)
{
    const struct resp_slice *dst = &c->argv[1];
    struct store_zset_el *a = NULL;
    size_t n = 0;
    int st;

    if (numkeys_or_reply(c, z.first - 1, &z.nkeys) != 0 || lookup_keys_or_reply(c, &z) != 0 ||
        options_or_reply(c, &z) != 0 || load_forms_or_reply(c, &z) != 0) {
        return;
    }
    st = compute(c, &z, &a, &n);
    if (st == TERSE_OK && z.store) {
        /* An overwrite without dst's expiry (Redis's setKey: no new key); dropping an expiry
         * never allocates. */
        (void)store_expire_set(cmd_shard(c, dst->p, dst->len), c->cl->db, dst->p, dst->len,
                               STORE_NO_EXPIRE, c->now_ms);
        st = cmd_zset_commit(c, dst, a, n, cmd_zset_is_table(c->srv, n, cmd_zset_max_len(a, n)));
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, z.store ? dst : &c->argv[z.first], st);
        return;
    }
    if (z.store) {
        cmd_changed_stored(c, CMD_NOTIFY_ZSET,
                          z.op == ZOP_UNION   ? "zunionstore"
                          : z.op == ZOP_INTER ? "zinterstore"
                                              : "zdiffstore",
                          dst, n > 0);
    }
    if (z.store || z.card) {
        resp_write_int(c->out, (long long)n);
    } else {
        cmd_zset_reply_els(c, a, n, false, z.withscores);
    }
}

void cmd_zset_zunion(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_UNION, .first = 2});
}

void cmd_zset_zinter(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_INTER, .first = 2});
}

void cmd_zset_zdiff(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_DIFF, .first = 2});
}

void cmd_zset_zunionstore(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_UNION, .store = true, .first = 3});
}

void cmd_zset_zinterstore(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_INTER, .store = true, .first = 3});
}

void cmd_zset_zdiffstore(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_DIFF, .store = true, .first = 3});
}

void cmd_zset_zintercard(struct cmd_call *c)
{
    zop_generic(c, (struct zop_args){.op = ZOP_INTER, .card = true, .first = 2});
}
