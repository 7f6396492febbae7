/*
 * cmd_zset: the sorted-set read and commit steps the family shares, the encoding Redis would
 * give a zset, the single-member writes (ZADD, ZINCRBY, ZREM; the single-member reads are
 * in cmd_zset_read.c) and the family's command table. See cmd_zset.h for the files and buffers.
 *
 * A zset is one codec value: its members and scores in the store_zset.h form, in Redis's
 * order, compressed and checksummed like a string, verified on every read. A write decodes it
 * into an array, edits the array (binary search for a score's place, a linear look for a
 * member), and writes the form anew: time in proportion to the zset's size, as Redis's
 * listpack encoding (which Redis uses up to 128 members by default). A skiplist-encoded zset
 * past terse-chunk-bytes is held in chunks (cmd_zset_coll.h): ZADD and ZREM then cost
 * O(log n) chunks, as Redis's skiplist costs O(log n).
 *
 * OBJECT ENCODING answers what Redis 7.0 would hold: "listpack" until a ZADD adds a member
 * when the zset passes zset-max-listpack-entries or the member is longer than
 * zset-max-listpack-value, then "skiplist" for good (the entry's raw mark); removals never
 * convert back. A result Redis builds afresh (the STORE forms, a load) is decided from its
 * contents (cmd_zset_is_table).
 */
#include "cmd/zset/cmd_zset.h"

#include <math.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"
#include "cmd/zset/cmd_zset_coll.h"
#include "cmd/zset/cmd_zset_form.h"

#define ERR_XX_NX "ERR XX and NX options at the same time are not compatible"
#define ERR_GT_LT_NX "ERR GT, LT, and/or NX options at the same time are not compatible"
#define ERR_INCR_PAIR "ERR INCR option supports a single increment-element pair"

/* ---- ZADD, ZINCRBY ------------------------------------------------------------------------ */

enum zadd_flags {
    ZADD_NX = 1 << 0,
    ZADD_XX = 1 << 1,
    ZADD_GT = 1 << 2,
    ZADD_LT = 1 << 3,
    ZADD_INCR = 1 << 4,
    ZADD_CH = 1 << 5
};

static void remove_at(struct store_zset_el *a, size_t *n, size_t i)
{
    memmove(&a[i], &a[i + 1], (*n - i - 1) * sizeof(*a));
    (*n)--;
}

/* Inserts el at its place in a[0..n) (room for one more). */
static void insert_sorted(struct store_zset_el *a, size_t *n, const struct store_zset_el *el)
{
    size_t at = store_zset_lower_bound(a, *n, el);

    memmove(&a[at + 1], &a[at], (*n - at) * sizeof(*a));
    a[at] = *el;
    (*n)++;
}

/* What one ZADD pair did. */
enum zadd_out { ZADD_OUT_NOP, ZADD_OUT_ADDED, ZADD_OUT_UPDATED, ZADD_OUT_SAME, ZADD_OUT_NAN };

/* Applies one score-member pair to a[0..*n) as Redis's zsetAdd; *score becomes the new score. */
static enum zadd_out zadd_one(struct store_zset_el *a, size_t *n, unsigned flags, double *score,
                              const struct resp_slice *m)
{
    size_t i = cmd_zset_find(a, *n, m->p, m->len);
    struct store_zset_el el = {m->p, m->len, *score};

    if (i == *n) {
        if (flags & ZADD_XX) {
            return ZADD_OUT_NOP;
        }
        insert_sorted(a, n, &el);
        return ZADD_OUT_ADDED;
    }
    if (flags & ZADD_NX) {
        return ZADD_OUT_NOP;
    }
    if (flags & ZADD_INCR) {
        el.score += a[i].score;
        if (isnan(el.score)) {
            return ZADD_OUT_NAN;
        }
    }
    if (((flags & ZADD_LT) && el.score >= a[i].score) ||
        ((flags & ZADD_GT) && el.score <= a[i].score)) {
        return ZADD_OUT_NOP;
    }
    *score = el.score;
    if (el.score == a[i].score) {
        return ZADD_OUT_SAME;
    }
    el.m = a[i].m; /* keep the form's copy: the request's bytes are the same */
    remove_at(a, n, i);
    insert_sorted(a, n, &el);
    return ZADD_OUT_UPDATED;
}

/* The options from argv[2]: *first gets the first score's index. -1 when it replied. */
static int zadd_opts_or_reply(struct cmd_call *c, unsigned *flags, size_t *first)
{
    static const struct {
        const char *name;
        unsigned flag;
    } opts[] = {{"nx", ZADD_NX}, {"xx", ZADD_XX},     {"ch", ZADD_CH},
                {"incr", ZADD_INCR}, {"gt", ZADD_GT}, {"lt", ZADD_LT}};
    size_t j = 2, pairs;

    for (bool more = true; more && j < c->argc;) {
        uint8_t c0 = c->argv[j].len > 0 ? c->argv[j].p[0] : 0;

        more = false;
        if ((c0 >= '0' && c0 <= '9') || c0 == '-' || c0 == '+' || c0 == '.') {
            break; /* a score: no option starts so */
        }
        for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
            if (cmd_arg_is(c, j, opts[k].name)) {
                *flags |= opts[k].flag;
                more = true;
                j++;
                break;
            }
        }
    }
    pairs = (c->argc - j) / 2;
    if ((c->argc - j) % 2 != 0 || pairs == 0) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
    } else if ((*flags & ZADD_NX) && (*flags & ZADD_XX)) {
        cmd_reply_err(c, ERR_XX_NX);
    } else if (((*flags & (ZADD_GT | ZADD_LT)) && (*flags & ZADD_NX)) ||
               ((*flags & ZADD_GT) && (*flags & ZADD_LT))) {
        cmd_reply_err(c, ERR_GT_LT_NX);
    } else if ((*flags & ZADD_INCR) && pairs > 1) {
        cmd_reply_err(c, ERR_INCR_PAIR);
    } else {
        *first = j;
        return 0;
    }
    return -1;
}

/* What a ZADD did to a chunked zset. */
struct zadd_tally {
    size_t added, updated, processed;
    double score; /* the last pair's new score (the INCR reply) */
};

/* The pairs from argv[first] applied to the chunked zset co as zadd_one applies them to an
 * array: each member looked up in the map, moved or added in the ordered chunks. TERSE_OK,
 * 1 when the INCR made a NaN (nothing changed: INCR takes one pair), or a status (the pairs
 * before the failing one stay applied). */
static int zadd_coll(struct cmd_call *c, struct coll *co, unsigned flags, size_t first,
                     size_t pairs, struct zadd_tally *t)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    int st = TERSE_OK;

    for (size_t j = 0; j < pairs && st == TERSE_OK; j++) {
        const struct resp_slice *m = &c->argv[first + 2 * j + 1];
        enum coll_zset_result r = COLL_ZSET_UNTOUCHED;
        struct coll_zset_hint hint;
        double score = 0, cur = 0, old = 0;
        int found;

        (void)cmd_parse_double(c->argv[first + 2 * j].p, c->argv[first + 2 * j].len, &score);
        found = coll_zset_score_hint(env, co, m->p, m->len, &cur, &hint);
        if (found < 0) {
            return found;
        }
        if (found ? (flags & ZADD_NX) != 0 : (flags & ZADD_XX) != 0) {
            continue;
        }
        if (found && (flags & ZADD_INCR)) {
            score += cur;
            if (isnan(score)) {
                return 1;
            }
        }
        if (found && (((flags & ZADD_LT) && score >= cur) || ((flags & ZADD_GT) && score <= cur))) {
            continue;
        }
        t->score = score;
        t->processed++;
        if (found && score == cur) {
            continue; /* the same score (-0 is 0): nothing moves */
        }
        old = cur;
        st = coll_zset_add_hint(env, co, m->p, m->len, score,
                                found ? COLL_ZSET_KNOWN_AT : COLL_ZSET_KNOWN_ABSENT, &r, &old,
                                &hint);
        t->added += r == COLL_ZSET_ADDED;
        t->updated += r == COLL_ZSET_UPDATED;
    }
    if (t->added + t->updated > 0) {
        cmd_coll_edited(c, &c->argv[1]);
    }
    return st;
}

static void zadd_generic(struct cmd_call *c, unsigned flags)
{
    const struct resp_slice *key = &c->argv[1];
    const struct store_entry *e;
    struct store_zset_el *a;
    const uint8_t *form;
    size_t first = 0, pairs, n, flen, added = 0, updated = 0, processed = 0;
    double score = 0;
    int st = TERSE_OK;

    if (zadd_opts_or_reply(c, &flags, &first) != 0) {
        return;
    }
    pairs = (c->argc - first) / 2;
    /* Every score is checked before anything changes, as Redis does. */
    for (size_t j = 0; j < pairs; j++) {
        if (cmd_zset_score_or_reply(c, first + 2 * j, &score, NULL) != 0) {
            return;
        }
    }
    if (cmd_value_read_form(c, key, STORE_TYPE_ZSET, 1, &e, &form, &flen) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        struct zadd_tally t = {0, 0, 0, 0};
        st = zadd_coll(c, cmd_zset_coll_of(e), flags, first, pairs, &t);
        if (st == 1) {
            cmd_reply_err(c, CMD_ZSET_ERR_NAN);
            return;
        }
        added = t.added;
        updated = t.updated;
        processed = t.processed;
        score = t.score;
    } else if (cmd_zset_decode_or_reply(c, key, form, flen, pairs, &a, &n) != 0) {
        return;
    } else if (e != NULL || !(flags & ZADD_XX)) {
        /* Redis converts a listpack to a skiplist just before the insert that would pass its
         * limits, and a listpack holds a score of -0 as 0: a pair written while the zset is
         * still a listpack keeps 0, one written after the conversion keeps -0. */
        bool table = cmd_zset_entry_is_table(e);
        for (size_t j = 0; j < pairs; j++) {
            const struct resp_slice *m = &c->argv[first + 2 * j + 1];
            enum zadd_out out;

            (void)cmd_parse_double(c->argv[first + 2 * j].p, c->argv[first + 2 * j].len, &score);
            out = zadd_one(a, &n, flags, &score, m);
            if (out == ZADD_OUT_NAN) {
                cmd_reply_err(c, CMD_ZSET_ERR_NAN);
                return; /* INCR takes one pair: nothing changed */
            }
            added += out == ZADD_OUT_ADDED;
            updated += out == ZADD_OUT_UPDATED;
            processed += out != ZADD_OUT_NOP;
            if (!table && out == ZADD_OUT_ADDED && cmd_zset_is_table(c->srv, n, m->len)) {
                table = true;
            }
            if (!table && (out == ZADD_OUT_ADDED || out == ZADD_OUT_UPDATED) && score == 0) {
                a[cmd_zset_find(a, n, m->p, m->len)].score = 0.0;
            }
        }
        if (added + updated > 0) {
            st = cmd_zset_commit(c, key, a, n, table);
        }
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st);
        return;
    }
    if (added + updated > 0) {
        cmd_changed(c, CMD_NOTIFY_ZSET, (flags & ZADD_INCR) ? "zincr" : "zadd", key);
    }
    if (!(flags & ZADD_INCR)) {
        resp_write_int(c->out, (long long)((flags & ZADD_CH) ? added + updated : added));
    } else if (processed > 0) {
        resp_write_double(c->out, score);
    } else {
        resp_write_null(c->out);
    }
}

static void zset_zadd(struct cmd_call *c)
{
    zadd_generic(c, 0);
}

static void zset_zincrby(struct cmd_call *c)
{
    zadd_generic(c, ZADD_INCR);
}

/* ---- ZREM ---------------------------------------------------------------------------------- */

/* ZREM key member [member ...] */
static void zset_zrem(struct cmd_call *c)
{
    const struct store_entry *e;
    struct store_zset_el *a;
    const uint8_t *form;
    size_t n, flen, deleted = 0;
    int st = TERSE_OK;

    if (cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 1, &e, &form, &flen) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        struct coll *co = cmd_zset_coll_of(e);
        for (size_t j = 2; j < c->argc && st == TERSE_OK; j++) {
            st = coll_zset_rem(cmd_coll_env(c, &c->argv[1]), co, c->argv[j].p, c->argv[j].len);
            deleted += st == 1;
            st = st < 0 ? st : TERSE_OK;
        }
        if (deleted > 0) {
            int st2 = cmd_zset_coll_settle(c, &c->argv[1], co);
            st = st != TERSE_OK ? st : st2;
        }
    } else if (cmd_zset_decode_or_reply(c, &c->argv[1], form, flen, 0, &a, &n) != 0) {
        return;
    } else {
        for (size_t j = 2; j < c->argc && n > 0; j++) {
            size_t i = cmd_zset_find(a, n, c->argv[j].p, c->argv[j].len);
            if (i < n) {
                remove_at(a, &n, i);
                deleted++;
            }
        }
        if (deleted > 0) {
            st = cmd_zset_commit(c, &c->argv[1], a, n, cmd_zset_entry_is_table(e));
        }
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    if (deleted > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_ZSET, "zrem", &c->argv[1]);
    }
    resp_write_int(c->out, (long long)deleted);
}

/* ---- the table ---------------------------------------------------------------------------- */

#define W_FAST (CMD_WRITE | CMD_DENYOOM | CMD_FAST)
#define R_FAST (CMD_READONLY | CMD_FAST)
#define WS_MOV (CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS)
#define RS_MOV (CMD_READONLY | CMD_MOVABLE_KEYS)
#define ACL_WF "@write @sortedset @fast"
#define ACL_WS "@write @sortedset @slow"
#define ACL_RF "@read @sortedset @fast"
#define ACL_RS "@read @sortedset @slow"
#define G "sorted-set"

/* Rows generated from redis-server 7.0.15's COMMAND INFO and COMMAND DOCS. */
const struct cmd_def cmd_zset_defs[] = {
    {"zadd", -4, W_FAST, 1, 1, 1, zset_zadd, ACL_WF,
     "Add one or more members to a sorted set, or update its score if it already exists",
     "1.2.0", G, NULL},
    {"zincrby", 4, W_FAST, 1, 1, 1, zset_zincrby, ACL_WF,
     "Increment the score of a member in a sorted set", "1.2.0", G, NULL},
    {"zrem", -3, CMD_WRITE | CMD_FAST, 1, 1, 1, zset_zrem, ACL_WF,
     "Remove one or more members from a sorted set", "1.2.0", G, NULL},
    {"zcard", 2, R_FAST, 1, 1, 1, cmd_zset_zcard, ACL_RF, "Get the number of members in a sorted set",
     "1.2.0", G, NULL},
    {"zscore", 3, R_FAST, 1, 1, 1, cmd_zset_zscore, ACL_RF,
     "Get the score associated with the given member in a sorted set", "1.2.0", G, NULL},
    {"zmscore", -3, R_FAST, 1, 1, 1, cmd_zset_zmscore, ACL_RF,
     "Get the score associated with the given members in a sorted set", "6.2.0", G, NULL},
    {"zrank", 3, R_FAST, 1, 1, 1, cmd_zset_zrank, ACL_RF,
     "Determine the index of a member in a sorted set", "2.0.0", G, NULL},
    {"zrevrank", 3, R_FAST, 1, 1, 1, cmd_zset_zrevrank, ACL_RF,
     "Determine the index of a member in a sorted set, with scores ordered from high to low",
     "2.0.0", G, NULL},
    {"zrange", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrange, ACL_RS,
     "Return a range of members in a sorted set", "1.2.0", G, NULL},
    {"zrangebyscore", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrangebyscore, ACL_RS,
     "Return a range of members in a sorted set, by score", "1.0.5", G, NULL},
    {"zrevrangebyscore", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrevrangebyscore, ACL_RS,
     "Return a range of members in a sorted set, by score, with scores ordered from high to low",
     "2.2.0", G, NULL},
    {"zrangebylex", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrangebylex, ACL_RS,
     "Return a range of members in a sorted set, by lexicographical range", "2.8.9", G, NULL},
    {"zrevrangebylex", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrevrangebylex, ACL_RS,
     "Return a range of members in a sorted set, by lexicographical range, ordered from higher "
     "to lower strings.",
     "2.8.9", G, NULL},
    {"zrevrange", -4, CMD_READONLY, 1, 1, 1, cmd_zset_zrevrange, ACL_RS,
     "Return a range of members in a sorted set, by index, with scores ordered from high to low",
     "1.2.0", G, NULL},
    {"zrangestore", -5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, cmd_zset_zrangestore, ACL_WS,
     "Store a range of members from sorted set into another key", "6.2.0", G, NULL},
    {"zcount", 4, R_FAST, 1, 1, 1, cmd_zset_zcount, ACL_RF,
     "Count the members in a sorted set with scores within the given values", "2.0.0", G, NULL},
    {"zlexcount", 4, R_FAST, 1, 1, 1, cmd_zset_zlexcount, ACL_RF,
     "Count the number of members in a sorted set between a given lexicographical range",
     "2.8.9", G, NULL},
    {"zpopmin", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_zset_zpopmin, ACL_WF,
     "Remove and return members with the lowest scores in a sorted set", "5.0.0", G, NULL},
    {"zpopmax", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_zset_zpopmax, ACL_WF,
     "Remove and return members with the highest scores in a sorted set", "5.0.0", G, NULL},
    {"zmpop", -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_zset_zmpop, ACL_WS,
     "Remove and return members with scores in a sorted set", "7.0.0", G, NULL},
    {"bzpopmin", -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, 1, -2, 1,
     cmd_zset_bzpopmin, "@write @sortedset @fast @blocking",
     "Remove and return the member with the lowest score from one or more sorted sets, or "
     "block until one is available",
     "5.0.0", G, NULL},
    {"bzpopmax", -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, 1, -2, 1,
     cmd_zset_bzpopmax, "@write @sortedset @fast @blocking",
     "Remove and return the member with the highest score from one or more sorted sets, or "
     "block until one is available",
     "5.0.0", G, NULL},
    {"bzmpop", -5, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_zset_bzmpop,
     "@write @sortedset @slow @blocking",
     "Remove and return members with scores in a sorted set or block until one is available",
     "7.0.0", G, NULL},
    {"zremrangebyrank", 4, CMD_WRITE, 1, 1, 1, cmd_zset_zremrangebyrank, ACL_WS,
     "Remove all members in a sorted set within the given indexes", "2.0.0", G, NULL},
    {"zremrangebyscore", 4, CMD_WRITE, 1, 1, 1, cmd_zset_zremrangebyscore, ACL_WS,
     "Remove all members in a sorted set within the given scores", "1.2.0", G, NULL},
    {"zremrangebylex", 4, CMD_WRITE, 1, 1, 1, cmd_zset_zremrangebylex, ACL_WS,
     "Remove all members in a sorted set between the given lexicographical range", "2.8.9", G,
     NULL},
    {"zrandmember", -2, CMD_READONLY, 1, 1, 1, cmd_zset_zrandmember, ACL_RS,
     "Get one or multiple random elements from a sorted set", "6.2.0", G, NULL},
    {"zscan", -3, CMD_READONLY, 1, 1, 1, cmd_zset_zscan, ACL_RS,
     "Incrementally iterate sorted sets elements and associated scores", "2.8.0", G, NULL},
    {"zunion", -3, RS_MOV, 0, 0, 0, cmd_zset_zunion, ACL_RS, "Add multiple sorted sets", "6.2.0",
     G, NULL},
    {"zinter", -3, RS_MOV, 0, 0, 0, cmd_zset_zinter, ACL_RS, "Intersect multiple sorted sets",
     "6.2.0", G, NULL},
    {"zdiff", -3, RS_MOV, 0, 0, 0, cmd_zset_zdiff, ACL_RS, "Subtract multiple sorted sets",
     "6.2.0", G, NULL},
    {"zunionstore", -4, WS_MOV, 1, 1, 1, cmd_zset_zunionstore, ACL_WS,
     "Add multiple sorted sets and store the resulting sorted set in a new key", "2.0.0", G,
     NULL},
    {"zinterstore", -4, WS_MOV, 1, 1, 1, cmd_zset_zinterstore, ACL_WS,
     "Intersect multiple sorted sets and store the resulting sorted set in a new key", "2.0.0",
     G, NULL},
    {"zdiffstore", -4, WS_MOV, 1, 1, 1, cmd_zset_zdiffstore, ACL_WS,
     "Subtract multiple sorted sets and store the resulting sorted set in a new key", "6.2.0", G,
     NULL},
    {"zintercard", -3, RS_MOV, 0, 0, 0, cmd_zset_zintercard, ACL_RS,
     "Intersect multiple sorted sets and return the cardinality of the result", "7.0.0", G,
     NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
