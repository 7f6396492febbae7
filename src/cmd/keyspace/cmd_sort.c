/*
 * cmd_sort: SORT and SORT_RO, as Redis 7.0's sortCommandGeneric runs them.
 *
 *   SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
 *        [STORE destination]
 *
 * The elements of a list, set or sorted set are copied out of the decoded value (the lookups
 * of BY and GET patterns decode other values into the same scratch), given a score (the
 * element or its BY value read as a double, or compared as bytes under ALPHA), sorted, cut by
 * LIMIT, and replied or stored as a list. Equal scores fall back to the elements' bytes, as in
 * Redis, so the order is deterministic. A pattern names other keys by replacing its first '*'
 * with the element: "weight_*" reads a string, "obj_*->field" a hash field, "#" is the element
 * itself; a pattern without '*' finds nothing (and as BY, it means "do not sort").
 *
 * Unlike the rest of the command table, SORT allocates per call: its working set is the whole
 * value plus what the patterns fetch (owned by struct sort_run, freed before it returns).
 * ALPHA compares bytes (Redis uses strcoll, the same under the C locale it runs in by default).
 */
#include "cmd/keyspace/cmd_sort.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "terse/status.h"

#define SORT_DOUBLE_MAX 256 /* longest BY value or element read as a double */

/* Notes the GET pattern at argv[i]. TERSE_OK or TERSE_ENOMEM. */
static int add_get(struct cmd_server *srv, struct sort_opts *o, size_t i)
{
    if (cmd_grow(srv, (void **)&o->gets, &o->cap_get, o->n_get + 1, sizeof(*o->gets), 8) !=
        TERSE_OK) {
        return TERSE_ENOMEM;
    }
    o->gets[o->n_get++] = i;
    return TERSE_OK;
}

/* ---- options ----------------------------------------------------------------------------- */

/* Parses SORT's options (argv[2..]) into *o (zeroed by the caller; o->gets to free after).
 * 0, or -1 when it replied an error. */
static int parse_opts(struct cmd_call *c, bool ro, struct sort_opts *o)
{
    o->count = -1;
    for (size_t j = 2; j < c->argc; j++) {
        size_t left = c->argc - j - 1;
        if (cmd_arg_is(c, j, "asc")) {
            o->desc = false;
        } else if (cmd_arg_is(c, j, "desc")) {
            o->desc = true;
        } else if (cmd_arg_is(c, j, "alpha")) {
            o->alpha = true;
        } else if (cmd_arg_is(c, j, "limit") && left >= 2) {
            long long start, count;
            if (!cmd_parse_ll(c->argv[j + 1].p, c->argv[j + 1].len, &start) ||
                !cmd_parse_ll(c->argv[j + 2].p, c->argv[j + 2].len, &count) ||
                start < LONG_MIN || start > LONG_MAX || count < LONG_MIN || count > LONG_MAX) {
                cmd_reply_err(c, CMD_ERR_NOT_INT);
                return -1;
            }
            o->start = (long)start;
            o->count = (long)count;
            j += 2;
        } else if (cmd_arg_is(c, j, "store") && left >= 1 && !ro) {
            o->store = &c->argv[++j];
        } else if (cmd_arg_is(c, j, "by") && left >= 1) {
            o->by = &c->argv[++j];
            /* No '*': nothing to look up, so nothing to sort by. */
            o->dontsort = memchr(o->by->p, '*', o->by->len) == NULL;
        } else if (cmd_arg_is(c, j, "get") && left >= 1) {
            if (add_get(c->srv, o, ++j) != TERSE_OK) {
                cmd_reply_err(c, CMD_ERR_OOM);
                return -1;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* ---- loading and sorting ----------------------------------------------------------------- */

/* A string as Redis reads a sort score (strtod over the whole C string, not NaN or ERANGE). */
static bool parse_score(const uint8_t *p, size_t len, double *out)
{
    char buf[SORT_DOUBLE_MAX];
    char *end;

    if (len >= sizeof(buf)) {
        return false;
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    *out = strtod(buf, &end);
    return *end == '\0' && errno != ERANGE && !isnan(*out);
}

/* Scores every element (BY value or the element), or copies its BY value under ALPHA. 0, or
 * -1 when it replied. */
static int score_all(struct sort_run *r)
{
    const struct sort_opts *o = r->o;

    for (size_t i = 0; i < r->n; i++) {
        struct sort_el *s = &r->v[i];
        const uint8_t *val = r->bytes.p + s->off;
        size_t len = s->len;

        if (o->by != NULL) {
            int got = sort_pattern_value(r, o->by, r->bytes.p + s->off, s->len, &val, &len);
            if (got < 0) {
                return -1;
            }
            if (got == 0) {
                continue; /* score 0, no BY value */
            }
            if (o->alpha) {
                s->by_off = r->bytes.len;
                s->by_len = len;
                s->has_by = true;
                if (sort_buf_add(r->c->srv, &r->bytes, val, len) != TERSE_OK) {
                    cmd_reply_err(r->c, CMD_ERR_OOM);
                    return -1;
                }
                continue;
            }
        } else if (o->alpha) {
            continue;
        }
        if (!parse_score(val, len, &s->score)) {
            cmd_reply_err(r->c, ERR_SORT_SCORE);
            return -1;
        }
    }
    return 0;
}

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int d = memcmp(a, b, alen < blen ? alen : blen);

    return d != 0 ? d : (alen > blen) - (alen < blen);
}

/* Redis's sortCompare. */
static int el_cmp(const void *pa, const void *pb, void *arg)
{
    const struct sort_run *r = arg;
    const struct sort_el *a = pa, *b = pb;
    const uint8_t *base = r->bytes.p;
    int cmp;

    if (!r->o->alpha) {
        cmp = a->score > b->score ? 1 : a->score < b->score ? -1 : 0;
        if (cmp == 0) {
            cmp = bytes_cmp(base + a->off, a->len, base + b->off, b->len);
        }
    } else if (r->o->by != NULL) {
        if (!a->has_by || !b->has_by) {
            cmp = a->has_by == b->has_by ? 0 : a->has_by ? 1 : -1;
        } else {
            cmp = bytes_cmp(base + a->by_off, a->by_len, base + b->by_off, b->by_len);
        }
    } else {
        cmp = bytes_cmp(base + a->off, a->len, base + b->off, b->len);
    }
    return r->o->desc ? -cmp : cmp;
}

/* Redis's LIMIT arithmetic: the range [*start, *end] of n elements (empty when end < start). */
static void limit_range(const struct sort_opts *o, size_t n, long *start, long *end)
{
    long vlen = (long)n;

    *start = o->start < 0 ? 0 : o->start;
    if (*start >= vlen) {
        *start = vlen - 1;
        *end = vlen - 2;
        return;
    }
    /* Redis adds start + count in a long, which a huge count overflows; the end is capped at
     * the last element either way. */
    *end = o->count < 0 || o->count > vlen - *start ? vlen - 1 : *start + o->count - 1;
}

static void sort_generic(struct cmd_call *c, bool ro)
{
    struct sort_opts o;
    struct sort_run r;
    const struct store_entry *e;
    long start, end;
    size_t n_out;

    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    r.c = c;
    r.o = &o;
    if (parse_opts(c, ro, &o) != 0) {
        goto done;
    }
    e = store_lookup(c->srv->shard, c->cl->db, c->argv[1].p, c->argv[1].len, c->now_ms, 0);
    if (e != NULL && store_entry_type(e) != STORE_TYPE_LIST &&
        store_entry_type(e) != STORE_TYPE_SET && store_entry_type(e) != STORE_TYPE_ZSET) {
        cmd_reply_err(c, CMD_ERR_WRONGTYPE);
        goto done;
    }
    /* A set has no order of its own: stored, or replied to a script, it is sorted as ALPHA
     * (Redis does the same, so replicas and scripts see one order). */
    if (o.dontsort && e != NULL && store_entry_type(e) == STORE_TYPE_SET &&
        (o.store != NULL || (c->cl->flags & CMD_CLIENT_SCRIPT))) {
        o.dontsort = false;
        o.alpha = true;
        o.by = NULL;
    }
    if (e != NULL && sort_load(&r, &c->argv[1], e) != 0) {
        goto done;
    }
    if (!o.dontsort) {
        if (score_all(&r) != 0) {
            goto done;
        }
        if (r.n > 1) {
            qsort_r(r.v, r.n, sizeof(r.v[0]), el_cmp, &r);
        }
    }
    limit_range(&o, r.n, &start, &end);
    if (sort_emit(&r, start, end, &n_out) != 0) {
        goto done;
    }
    if (o.store != NULL && sort_store_outputs(&r, n_out) == 0) {
        resp_write_int(c->out, (long long)n_out);
    }
done:
    c->srv->alloc.free(c->srv->alloc.opaque, o.gets);
    sort_run_free(&r);
}

static void cmd_sort(struct cmd_call *c)
{
    sort_generic(c, false);
}

static void cmd_sort_ro(struct cmd_call *c)
{
    sort_generic(c, true);
}

const struct cmd_def cmd_sort_defs[] = {
    {"sort", -2, CMD_WRITE | CMD_DENYOOM | CMD_MOVABLE_KEYS, 1, 1, 1, cmd_sort,
     "@write @set @sortedset @list @slow @dangerous",
     "Sort the elements in a list, set or sorted set", "1.0.0", "generic", NULL},
    {"sort_ro", -2, CMD_READONLY | CMD_MOVABLE_KEYS, 1, 1, 1, cmd_sort_ro,
     "@read @set @sortedset @list @slow @dangerous",
     "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "7.0.0",
     "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
