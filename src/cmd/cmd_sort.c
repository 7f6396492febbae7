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
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_internal.h"
#include "cmd/cmd_list.h"
#include "cmd/cmd_util.h"
#include "cmd/cmd_value.h"
#include "cmd/cmd_zset.h"
#include "store/store_hash.h"
#include "store/store_list.h"
#include "terse/status.h"

#define ERR_SCORE "ERR One or more scores can't be converted into double"
#define SORT_DOUBLE_MAX 256 /* longest BY value or element read as a double */

struct sort_opts {
    const struct resp_slice *by; /* NULL: sort by the elements */
    bool dontsort;               /* BY without '*' */
    bool alpha, desc;
    long start, count;           /* LIMIT, -1 count: to the end */
    const struct resp_slice *store;
    size_t *gets;                /* argv indexes of the GET patterns (owned by the run) */
    size_t n_get, cap_get;
};

/* One element: offsets into run.bytes (the element, and its BY value under ALPHA). */
struct sort_el {
    size_t off, len;
    size_t by_off, by_len;
    bool has_by;
    double score;
};

/* A growing byte buffer from the server's allocator. */
struct sort_buf {
    uint8_t *p;
    size_t len, cap;
};

/* Everything one SORT call allocates; sort_run_free frees it. */
struct sort_run {
    struct cmd_call *c;
    struct sort_buf bytes; /* element and BY bytes */
    struct sort_buf key;   /* a key name a pattern makes */
    struct sort_buf out;   /* STORE: the output elements' bytes */
    struct sort_el *v;
    size_t n, cap;
    const struct sort_opts *o;
};

static int buf_reserve(struct cmd_server *srv, struct sort_buf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 256;
    uint8_t *p;

    if (b->len + more <= b->cap) {
        return TERSE_OK;
    }
    while (cap < b->len + more) {
        cap *= 2;
    }
    p = srv->alloc.alloc(srv->alloc.opaque, cap);
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    if (b->len > 0) {
        memcpy(p, b->p, b->len);
    }
    srv->alloc.free(srv->alloc.opaque, b->p);
    b->p = p;
    b->cap = cap;
    return TERSE_OK;
}

static int buf_add(struct cmd_server *srv, struct sort_buf *b, const void *p, size_t n)
{
    if (buf_reserve(srv, b, n) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    if (n > 0) {
        memcpy(b->p + b->len, p, n);
    }
    b->len += n;
    return TERSE_OK;
}

static void sort_run_free(struct sort_run *r)
{
    struct cmd_server *srv = r->c->srv;

    srv->alloc.free(srv->alloc.opaque, r->bytes.p);
    srv->alloc.free(srv->alloc.opaque, r->key.p);
    srv->alloc.free(srv->alloc.opaque, r->out.p);
    srv->alloc.free(srv->alloc.opaque, r->v);
}

/* Notes the GET pattern at argv[i]. TERSE_OK or TERSE_ENOMEM. */
static int add_get(struct cmd_server *srv, struct sort_opts *o, size_t i)
{
    if (o->n_get == o->cap_get) {
        size_t cap = o->cap_get ? o->cap_get * 2 : 8;
        size_t *g = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*g));
        if (g == NULL) {
            return TERSE_ENOMEM;
        }
        if (o->n_get > 0) {
            memcpy(g, o->gets, o->n_get * sizeof(*g));
        }
        srv->alloc.free(srv->alloc.opaque, o->gets);
        o->gets = g;
        o->cap_get = cap;
    }
    o->gets[o->n_get++] = i;
    return TERSE_OK;
}

static int add_el(struct sort_run *r, const uint8_t *p, size_t len)
{
    struct cmd_server *srv = r->c->srv;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct sort_el *v = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*v));
        if (v == NULL) {
            return TERSE_ENOMEM;
        }
        if (r->n > 0) {
            memcpy(v, r->v, r->n * sizeof(*v));
        }
        srv->alloc.free(srv->alloc.opaque, r->v);
        r->v = v;
        r->cap = cap;
    }
    memset(&r->v[r->n], 0, sizeof(r->v[0]));
    r->v[r->n].off = r->bytes.len;
    r->v[r->n].len = len;
    r->n++;
    return buf_add(srv, &r->bytes, p, len);
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

/* ---- patterns ---------------------------------------------------------------------------- */

/*
 * The value pattern names for the element el (Redis's lookupKeyByPattern): 1 with *val, *len
 * (valid until the next lookup or scratch use), 0 when there is none (no '*', a missing key or
 * field, a key of another type), -1 when it replied an error (a corrupt value).
 */
static int pattern_value(struct sort_run *r, const struct resp_slice *pat, const uint8_t *el,
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
    if (buf_add(c->srv, &r->key, pat->p, (size_t)(star - pat->p)) != TERSE_OK ||
        buf_add(c->srv, &r->key, el, el_len) != TERSE_OK ||
        buf_add(c->srv, &r->key, star + 1, name_end - (size_t)(star + 1 - pat->p)) !=
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
        st = store_hash_find(form, flen, arrow + 2, (size_t)(end - arrow - 2), &kv);
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

/* ---- loading and sorting ----------------------------------------------------------------- */

static void reverse(struct sort_run *r)
{
    for (size_t i = 0, j = r->n; i + 1 < j; i++, j--) {
        struct sort_el t = r->v[i];
        r->v[i] = r->v[j - 1];
        r->v[j - 1] = t;
    }
}

/* Copies the elements of key (a list, set or zset) into r. 0, or -1 when it replied. A list
 * or zset that is not to be sorted keeps its order, reversed under DESC. */
static int load(struct sort_run *r, const struct resp_slice *key, const struct store_entry *e)
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
        if (cmd_list_read(c, key, 0, &e, &form, &len, &n) != 0) {
            return -1;
        }
        st = store_list_open(form, len, &it, &n);
        while (st == TERSE_OK && (st = store_list_next(&it, &el, &el_len)) == 1) {
            st = add_el(r, el, el_len);
        }
        if (st == 0 && r->o->dontsort && r->o->desc) {
            reverse(r); /* unsorted, a list is read from its tail under DESC, as in Redis */
        }
    } else if (store_entry_type(e) == STORE_TYPE_SET) {
        struct store_hash_it it;
        struct store_hash_kv kv;
        if (cmd_value_read_form(c, key, STORE_TYPE_SET, 0, &e, &form, &len) != 0) {
            return -1;
        }
        st = store_hash_open(form, len, &it, &n);
        while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1) {
            st = add_el(r, kv.f, kv.flen);
        }
    } else {
        struct store_zset_el *a;
        size_t cnt;
        if (cmd_zset_read(c, key, 0, 0, &e, &a, &cnt) != 0) {
            return -1;
        }
        for (size_t i = 0; i < cnt && st == TERSE_OK; i++) {
            const struct store_zset_el *z = &a[r->o->dontsort && r->o->desc ? cnt - 1 - i : i];
            st = add_el(r, z->m, z->mlen);
        }
    }
    if (st < 0 || st == TERSE_ENOMEM) {
        cmd_value_reply_bad(c, key, st < 0 ? st : TERSE_ENOMEM);
        return -1;
    }
    return 0;
}

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
            int got = pattern_value(r, o->by, r->bytes.p + s->off, s->len, &val, &len);
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
                if (buf_add(r->c->srv, &r->bytes, val, len) != TERSE_OK) {
                    cmd_reply_err(r->c, CMD_ERR_OOM);
                    return -1;
                }
                continue;
            }
        } else if (o->alpha) {
            continue;
        }
        if (!parse_score(val, len, &s->score)) {
            cmd_reply_err(r->c, ERR_SCORE);
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

/* ---- output ------------------------------------------------------------------------------ */

/* Replies (or, for STORE, collects in r->out) elements [start, end] with their GETs. 0, or -1
 * when it replied an error. *n_out gets the number of outputs. */
static int emit(struct sort_run *r, long start, long end, size_t *n_out)
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
        for (size_t g = 0; g < per; g++) {
            const uint8_t *val = r->bytes.p + s->off;
            size_t len = s->len;
            int got = 1;
            if (o->n_get > 0) {
                size_t before = c->out->len;
                got = pattern_value(r, &c->argv[o->gets[g]], r->bytes.p + s->off, s->len, &val,
                                    &len);
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
                if (buf_add(c->srv, &r->out, &l, sizeof(l)) != TERSE_OK ||
                    buf_add(c->srv, &r->out, val, got ? len : 0) != TERSE_OK) {
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
static int store_outputs(struct sort_run *r, size_t n_out)
{
    struct cmd_call *c = r->c;
    struct cmd_server *srv = c->srv;
    struct store_list_el *ins;
    size_t pos = 0;
    int st;

    (void)store_delete(srv->shard, c->cl->db, r->o->store->p, r->o->store->len, c->now_ms);
    if (n_out == 0) {
        return 0;
    }
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
    return 0;
}

/* Redis's LIMIT arithmetic: the range [*start, *end] of n elements (empty when end < start). */
static void limit_range(const struct sort_opts *o, size_t n, long *start, long *end)
{
    long vlen = (long)n;

    *start = o->start < 0 ? 0 : o->start;
    *end = o->count < 0 ? vlen - 1 : *start + o->count - 1;
    if (*start >= vlen) {
        *start = vlen - 1;
        *end = vlen - 2;
    }
    if (*end >= vlen) {
        *end = vlen - 1;
    }
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
    /* A set has no order of its own: stored, it is sorted as ALPHA (Redis does the same). */
    if (o.dontsort && e != NULL && store_entry_type(e) == STORE_TYPE_SET && o.store != NULL) {
        o.dontsort = false;
        o.alpha = true;
        o.by = NULL;
    }
    if (e != NULL && load(&r, &c->argv[1], e) != 0) {
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
    if (emit(&r, start, end, &n_out) != 0) {
        goto done;
    }
    if (o.store != NULL && store_outputs(&r, n_out) == 0) {
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
