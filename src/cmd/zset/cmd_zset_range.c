/*
 * cmd_zset_range: ranges of a sorted set by rank, score or member bytes: ZRANGE (and its
 * older forms ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX), ZRANGESTORE, ZCOUNT,
 * ZLEXCOUNT, ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX.
 *
 * The zset is decoded into its array (cmd_zset_read), so every range is a run a[lo..lo+cnt):
 * rank ranges by index, score and lex ranges found as Redis's listpack walk finds them (the
 * first element at or past min, then on while at or before max; a lex range over members of
 * different scores answers what Redis's listpack answers). A reply goes forward or backward
 * over the run; a store writes the run as a new zset (cmd_zset_commit); a removal cuts it out.
 * A chunked zset (cmd_zset_coll.h) finds the run's ends by two seeks of its tree and reads only
 * the run (cmd_zset_coll_slice); a removal drops it from the chunks (coll_zset_remove_range).
 * Argument checks follow Redis 7.0's zrangeGenericCommand order: options, then conflicts,
 * then the range, then the key.
 */
#include "cmd/zset/cmd_zset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/zset/cmd_zset_coll.h"
#include "cmd/zset/cmd_zset_form.h"

#define ERR_LIMIT_RANK                                                                        \
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
#define ERR_WITHSCORES_LEX "ERR syntax error, WITHSCORES not supported in combination with BYLEX"

enum range_type { RANGE_AUTO, RANGE_RANK, RANGE_SCORE, RANGE_LEX };
enum range_dir { DIR_AUTO, DIR_FORWARD, DIR_REVERSE };

/* One end of a lex range: a sentinel ("-" below everything, "+" above) or bytes. */
struct lex_bound {
    int kind; /* -1 "-", 1 "+", 0 bytes */
    const uint8_t *p;
    size_t len;
    bool ex;
};

/* A parsed range. */
struct range {
    enum range_type type;
    double min, max; /* RANGE_SCORE */
    bool minex, maxex;
    struct lex_bound lmin, lmax; /* RANGE_LEX */
};

/* ---- parsing ------------------------------------------------------------------------------ */

/* One end of a score range as Redis's zslParseRange reads it: "(" for exclusive, then strtod
 * up to a NUL (so "" is 0 and an overflow is inf), not NaN. */
static bool parse_score_bound(const struct resp_slice *s, double *v, bool *ex)
{
    char buf[CMD_LD_STR_MAX];
    char *end;
    size_t skip = s->len > 0 && s->p[0] == '(';

    if (s->len >= sizeof(buf)) {
        return false;
    }
    memcpy(buf, s->p, s->len);
    buf[s->len] = '\0';
    *ex = skip != 0;
    *v = strtod(buf + skip, &end);
    return *end == '\0' && !isnan(*v);
}

static bool parse_score_range(const struct resp_slice *min, const struct resp_slice *max,
                              struct range *r)
{
    return parse_score_bound(min, &r->min, &r->minex) && parse_score_bound(max, &r->max, &r->maxex);
}

/* One end of a lex range as Redis's zslParseLexRangeItem: "+", "-", "(bytes" or "[bytes".
 * Redis reads the item as a C string, so "+" or "-" followed by a NUL byte counts as bare. */
static bool parse_lex_bound(const struct resp_slice *s, struct lex_bound *b)
{
    if (s->len == 0) {
        return false;
    }
    *b = (struct lex_bound){0, s->p + 1, s->len - 1, false};
    switch (s->p[0]) {
    case '+':
    case '-':
        b->kind = s->p[0] == '+' ? 1 : -1;
        b->ex = true;
        return s->len == 1 || s->p[1] == '\0';
    case '(':
        b->ex = true;
        return true;
    case '[':
        return true;
    default:
        return false;
    }
}

static bool parse_lex_range(const struct resp_slice *min, const struct resp_slice *max,
                            struct range *r)
{
    return parse_lex_bound(min, &r->lmin) && parse_lex_bound(max, &r->lmax);
}

/* ---- membership --------------------------------------------------------------------------- */

/* Redis's sdscmplex of a member against a bound. */
static int lex_cmp(const struct store_zset_el *el, const struct lex_bound *b)
{
    if (b->kind != 0) {
        return -b->kind;
    }
    return store_zset_member_cmp(el->m, el->mlen, b->p, b->len);
}

/* sdscmplex of two bounds (equal sentinels are equal). */
static int lex_bounds_cmp(const struct lex_bound *a, const struct lex_bound *b)
{
    if (a->kind != 0 || b->kind != 0) {
        return a->kind == b->kind ? 0 : (a->kind == -1 || b->kind == 1) ? -1 : 1;
    }
    return store_zset_member_cmp(a->p, a->len, b->p, b->len);
}

static bool gte_min(const struct range *r, const struct store_zset_el *el)
{
    if (r->type == RANGE_LEX) {
        int cmp = lex_cmp(el, &r->lmin);
        return r->lmin.ex ? cmp > 0 : cmp >= 0;
    }
    return r->minex ? el->score > r->min : el->score >= r->min;
}

static bool lte_max(const struct range *r, const struct store_zset_el *el)
{
    if (r->type == RANGE_LEX) {
        int cmp = lex_cmp(el, &r->lmax);
        return r->lmax.ex ? cmp < 0 : cmp <= 0;
    }
    return r->maxex ? el->score < r->max : el->score <= r->max;
}

/* Whether the range can hold anything at all, and a[0..n) reaches into it (zslIsInRange). */
static bool in_range_at_all(const struct range *r, const struct store_zset_el *a, size_t n)
{
    if (r->type == RANGE_LEX) {
        int cmp = lex_bounds_cmp(&r->lmin, &r->lmax);
        if (cmp > 0 || (cmp == 0 && (r->lmin.ex || r->lmax.ex))) {
            return false;
        }
    } else if (r->min > r->max || (r->min == r->max && (r->minex || r->maxex))) {
        return false;
    }
    return n > 0 && gte_min(r, &a[n - 1]) && lte_max(r, &a[0]);
}

/*
 * The run of a[0..n) in range r, as Redis's listpack walk finds it: forward from the first
 * element at or past min while at or before max, or backward from the last element at or
 * before max while at or past min (rev); offset elements skipped first (a negative offset
 * skips them all), then at most limit taken (negative: no limit). *lo and *cnt describe it.
 */
static void find_run(const struct range *r, const struct store_zset_el *a, size_t n, bool rev,
                     long long offset, long long limit, size_t *lo, size_t *cnt)
{
    size_t i, k = 0;

    *lo = 0;
    *cnt = 0;
    if (!in_range_at_all(r, a, n) || offset < 0) {
        return;
    }
    if (!rev) {
        for (i = 0; i < n && !gte_min(r, &a[i]); i++) {
        }
        if (i == n || !lte_max(r, &a[i]) || (size_t)offset >= n - i) {
            return;
        }
        i += (size_t)offset;
        while (i + k < n && (limit < 0 || (long long)k < limit) && lte_max(r, &a[i + k])) {
            k++;
        }
        *lo = i;
        *cnt = k;
        return;
    }
    for (i = n; i > 0 && !lte_max(r, &a[i - 1]); i--) {
    }
    if (i == 0 || !gte_min(r, &a[i - 1]) || (size_t)offset >= i) {
        return;
    }
    i -= (size_t)offset; /* the run ends before i */
    while (k < i && (limit < 0 || (long long)k < limit) && gte_min(r, &a[i - 1 - k])) {
        k++;
    }
    *lo = i - k;
    *cnt = k;
}

/* The run [i, j) of ranks in range, with offset elements skipped first from its start (from its
 * end when rev; a negative offset skips them all) and at most limit taken (negative: no
 * limit): *lo and *cnt, as find_run gives them. */
static void limit_run(uint64_t i, uint64_t j, bool rev, long long offset, long long limit,
                      size_t *lo, size_t *cnt)
{
    uint64_t k;

    *lo = 0;
    *cnt = 0;
    if (offset < 0 || j <= i || (uint64_t)offset >= j - i) {
        return;
    }
    k = j - i - (uint64_t)offset;
    if (limit >= 0 && (uint64_t)limit < k) {
        k = (uint64_t)limit;
    }
    *cnt = (size_t)k;
    *lo = (size_t)(rev ? j - (uint64_t)offset - k : i + (uint64_t)offset);
}

/* The ranks [*i, *j) of the chunked zset co that range r holds: two seeks. TERSE_OK or a
 * status. */
static int coll_bounds(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                       const struct range *r, uint64_t *i, uint64_t *j)
{
    struct coll_env *env = cmd_coll_env(c, key);
    uint64_t n = coll_count(co);
    int st;

    if (r->type == RANGE_SCORE) {
        st = coll_zset_seek_score(env, co, r->min, r->minex, i);
        return st != TERSE_OK ? st : coll_zset_seek_score(env, co, r->max, !r->maxex, j);
    }
    if (r->lmin.kind != 0) {
        *i = r->lmin.kind < 0 ? 0 : n;
        st = TERSE_OK;
    } else {
        st = coll_zset_seek_lex(env, co, r->lmin.p, r->lmin.len, r->lmin.ex, i);
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (r->lmax.kind != 0) {
        *j = r->lmax.kind < 0 ? 0 : n;
        return TERSE_OK;
    }
    return coll_zset_seek_lex(env, co, r->lmax.p, r->lmax.len, !r->lmax.ex, j);
}

/* A rank range start..end (negative from the end) of n elements, reversed ranks when rev. */
static void rank_run(long long start, long long end, size_t n, bool rev, size_t *lo, size_t *cnt)
{
    long long len = (long long)n;

    *lo = 0;
    *cnt = 0;
    if (start < 0) {
        start += len;
    }
    if (end < 0) {
        end += len;
    }
    if (start < 0) {
        start = 0;
    }
    if (start > end || start >= len) {
        return;
    }
    if (end >= len) {
        end = len - 1;
    }
    *cnt = (size_t)(end - start + 1);
    *lo = rev ? (size_t)(len - 1 - end) : (size_t)start;
}

/* ---- ZRANGE and its forms ----------------------------------------------------------------- */

/* Stores a[0..cnt) at argv[1] in place of what was there (0: deletes it), replies the count. */
static void store_run(struct cmd_call *c, struct store_zset_el *a, size_t cnt)
{
    const struct resp_slice *dst = &c->argv[1];
    int st;

    /* An overwrite without dst's expiry, not a delete and an add (Redis's setKey reports no
     * new key); dropping an expiry never allocates. */
    (void)store_expire_set(cmd_shard(c, dst->p, dst->len), c->cl->db, dst->p, dst->len,
                           STORE_NO_EXPIRE, c->now_ms);
    st = cmd_zset_commit(c, dst, a, cnt, cmd_zset_is_table(c->srv, cnt, cmd_zset_max_len(a, cnt)));
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, dst, st);
        return;
    }
    cmd_changed_stored(c, CMD_NOTIFY_ZSET, "zrangestore", dst, cnt > 0);
    resp_write_int(c->out, (long long)cnt);
}

/* The options after <src> <min> <max> (from argv[first + 3]). -1 when it replied. */
static int range_opts_or_reply(struct cmd_call *c, size_t first, bool store, enum range_type *type,
                               enum range_dir *dir, bool *withscores, long long *offset,
                               long long *limit)
{
    for (size_t j = first + 3; j < c->argc; j++) {
        size_t left = c->argc - j - 1;
        if (!store && cmd_arg_is(c, j, "withscores")) {
            *withscores = true;
        } else if (cmd_arg_is(c, j, "limit") && left >= 2) {
            if (cmd_ll_or_reply(c, j + 1, offset, NULL) != 0 ||
                cmd_ll_or_reply(c, j + 2, limit, NULL) != 0) {
                return -1;
            }
            j += 2;
        } else if (*dir == DIR_AUTO && cmd_arg_is(c, j, "rev")) {
            *dir = DIR_REVERSE;
        } else if (*type == RANGE_AUTO && cmd_arg_is(c, j, "bylex")) {
            *type = RANGE_LEX;
        } else if (*type == RANGE_AUTO && cmd_arg_is(c, j, "byscore")) {
            *type = RANGE_SCORE;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* Redis's zrangeGenericCommand: <src> <min> <max> [BYSCORE|BYLEX] [REV] [WITHSCORES]
 * [LIMIT offset count] from argv[first]; store: ZRANGESTORE into argv[1]. */
static void zrange_generic(struct cmd_call *c, size_t first, bool store, enum range_type type,
                           enum range_dir dir)
{
    const struct resp_slice *key = &c->argv[first];
    const struct resp_slice *min = &c->argv[first + 1], *max = &c->argv[first + 2];
    const struct store_entry *e;
    struct store_zset_el *a = NULL;
    const uint8_t *form;
    struct range r = {0};
    bool withscores = false, ok = true;
    long long offset = 0, limit = -1, start = 0, end = 0;
    size_t n, len, lo = 0, cnt = 0;

    if (range_opts_or_reply(c, first, store, &type, &dir, &withscores, &offset, &limit) != 0) {
        return;
    }
    r.type = type == RANGE_AUTO ? RANGE_RANK : type;
    dir = dir == DIR_AUTO ? DIR_FORWARD : dir;
    if (limit != -1 && r.type == RANGE_RANK) {
        cmd_reply_err(c, ERR_LIMIT_RANK);
        return;
    }
    if (withscores && r.type == RANGE_LEX) {
        cmd_reply_err(c, ERR_WITHSCORES_LEX);
        return;
    }
    if (dir == DIR_REVERSE && r.type != RANGE_RANK) {
        const struct resp_slice *t = min; /* given as max, min */
        min = max;
        max = t;
    }
    if (r.type == RANGE_RANK) {
        if (cmd_ll_or_reply(c, first + 1, &start, NULL) != 0 ||
            cmd_ll_or_reply(c, first + 2, &end, NULL) != 0) {
            return;
        }
    } else {
        ok = r.type == RANGE_SCORE ? parse_score_range(min, max, &r) : parse_lex_range(min, max, &r);
    }
    if (!ok) {
        cmd_reply_err(c, r.type == RANGE_SCORE ? CMD_ZSET_ERR_MINMAX : CMD_ZSET_ERR_LEX);
        return;
    }
    if (cmd_value_read_form(c, key, STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        /* Chunked: the run from two seeks (or the ranks), then only its elements read. */
        struct coll *co = cmd_zset_coll_of(e);
        uint64_t i = 0, j = 0;
        int st = TERSE_OK;
        if (r.type == RANGE_RANK) {
            rank_run(start, end, (size_t)coll_count(co), dir == DIR_REVERSE, &lo, &cnt);
        } else if ((st = coll_bounds(c, key, co, &r, &i, &j)) == TERSE_OK) {
            limit_run(i, j, dir == DIR_REVERSE, offset, limit, &lo, &cnt);
        }
        if (st == TERSE_OK) {
            st = cmd_zset_coll_slice(c, key, co, lo, cnt, &a);
        }
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, key, st);
            return;
        }
        lo = 0;
    } else if (cmd_zset_decode_or_reply(c, key, form, len, 0, &a, &n) != 0) {
        return;
    } else if (r.type == RANGE_RANK) {
        rank_run(start, end, n, dir == DIR_REVERSE, &lo, &cnt);
    } else {
        find_run(&r, a, n, dir == DIR_REVERSE, offset, limit, &lo, &cnt);
    }
    if (store) {
        store_run(c, a + lo, cnt);
    } else {
        cmd_zset_reply_els(c, a + lo, cnt, dir == DIR_REVERSE, withscores);
    }
}

void cmd_zset_zrange(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_AUTO, DIR_AUTO);
}

void cmd_zset_zrangestore(struct cmd_call *c)
{
    zrange_generic(c, 2, true, RANGE_AUTO, DIR_AUTO);
}

void cmd_zset_zrevrange(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_RANK, DIR_REVERSE);
}

void cmd_zset_zrangebyscore(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_SCORE, DIR_FORWARD);
}

void cmd_zset_zrevrangebyscore(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_SCORE, DIR_REVERSE);
}

void cmd_zset_zrangebylex(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_LEX, DIR_FORWARD);
}

void cmd_zset_zrevrangebylex(struct cmd_call *c)
{
    zrange_generic(c, 1, false, RANGE_LEX, DIR_REVERSE);
}

/* ---- ZCOUNT, ZLEXCOUNT, ZREMRANGEBY* ------------------------------------------------------ */

/* Parses argv[2], argv[3] as a range of type; -1 when it replied. */
static int range_or_reply(struct cmd_call *c, enum range_type type, struct range *r,
                          long long *start, long long *end)
{
    r->type = type;
    if (type == RANGE_RANK) {
        return cmd_ll_or_reply(c, 2, start, NULL) != 0 || cmd_ll_or_reply(c, 3, end, NULL) != 0
                   ? -1
                   : 0;
    }
    if (type == RANGE_SCORE ? parse_score_range(&c->argv[2], &c->argv[3], r)
                            : parse_lex_range(&c->argv[2], &c->argv[3], r)) {
        return 0;
    }
    cmd_reply_err(c, type == RANGE_SCORE ? CMD_ZSET_ERR_MINMAX : CMD_ZSET_ERR_LEX);
    return -1;
}

/* ZCOUNT, ZLEXCOUNT key min max */
static void count_generic(struct cmd_call *c, enum range_type type)
{
    const struct store_entry *e;
    struct store_zset_el *a;
    const uint8_t *form;
    struct range r = {0};
    size_t n, len, lo, cnt;

    if (range_or_reply(c, type, &r, NULL, NULL) != 0 ||
        cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 0, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        uint64_t i = 0, j = 0;
        int st = coll_bounds(c, &c->argv[1], cmd_zset_coll_of(e), &r, &i, &j);
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, &c->argv[1], st);
            return;
        }
        resp_write_int(c->out, j > i ? (long long)(j - i) : 0);
        return;
    }
    if (cmd_zset_decode_or_reply(c, &c->argv[1], form, len, 0, &a, &n) != 0) {
        return;
    }
    find_run(&r, a, n, false, 0, -1, &lo, &cnt);
    resp_write_int(c->out, (long long)cnt);
}

void cmd_zset_zcount(struct cmd_call *c)
{
    count_generic(c, RANGE_SCORE);
}

void cmd_zset_zlexcount(struct cmd_call *c)
{
    count_generic(c, RANGE_LEX);
}

/* ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX key min max */
static void remrange_generic(struct cmd_call *c, enum range_type type)
{
    const struct store_entry *e;
    struct store_zset_el *a;
    const uint8_t *form;
    struct range r = {0};
    long long start = 0, end = 0;
    size_t n, len, lo = 0, cnt = 0;
    int st = TERSE_OK;

    if (range_or_reply(c, type, &r, &start, &end) != 0 ||
        cmd_value_read_form(c, &c->argv[1], STORE_TYPE_ZSET, 1, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_zset_coll_of(e) != NULL) {
        struct coll *co = cmd_zset_coll_of(e);
        uint64_t i = 0, j = 0, removed = 0;
        if (type == RANGE_RANK) {
            rank_run(start, end, (size_t)coll_count(co), false, &lo, &cnt);
        } else if ((st = coll_bounds(c, &c->argv[1], co, &r, &i, &j)) == TERSE_OK) {
            limit_run(i, j, false, 0, -1, &lo, &cnt);
        }
        if (st == TERSE_OK && cnt > 0) {
            st = coll_zset_remove_range(cmd_coll_env(c, &c->argv[1]), co, lo, cnt, NULL, NULL,
                                        &removed);
            cnt = (size_t)removed;
            if (removed > 0) {
                int st2 = cmd_zset_coll_settle(c, &c->argv[1], co);
                st = st != TERSE_OK ? st : st2;
            }
        }
    } else if (cmd_zset_decode_or_reply(c, &c->argv[1], form, len, 0, &a, &n) != 0) {
        return;
    } else {
        if (type == RANGE_RANK) {
            rank_run(start, end, n, false, &lo, &cnt);
        } else {
            find_run(&r, a, n, false, 0, -1, &lo, &cnt);
        }
        if (cnt > 0) {
            memmove(&a[lo], &a[lo + cnt], (n - lo - cnt) * sizeof(*a));
            st = cmd_zset_commit(c, &c->argv[1], a, n - cnt, cmd_zset_entry_is_table(e));
        }
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    if (cnt > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_ZSET,
                        type == RANGE_RANK    ? "zremrangebyrank"
                        : type == RANGE_SCORE ? "zremrangebyscore"
                                              : "zremrangebylex",
                        &c->argv[1]);
    }
    resp_write_int(c->out, (long long)cnt);
}

void cmd_zset_zremrangebyrank(struct cmd_call *c)
{
    remrange_generic(c, RANGE_RANK);
}

void cmd_zset_zremrangebyscore(struct cmd_call *c)
{
    remrange_generic(c, RANGE_SCORE);
}

void cmd_zset_zremrangebylex(struct cmd_call *c)
{
    remrange_generic(c, RANGE_LEX);
}
