/*
 * cmd_list: list writes (LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LSET, LINSERT, LREM, LTRIM,
 * LMOVE, RPOPLPUSH, LMPOP), the read step the family shares, and the family's command table.
 * The reads are in cmd_list_read.c.
 *
 * A list is one codec value: its elements in the form of store_list.h, compressed and
 * checksummed like a string, verified on every read. A write decodes the form into scratch,
 * builds the next form in scratch2 (store_list_splice, _range, _remove), encodes that into
 * scratch and stores it in place of the old entry. So every write costs time in proportion to
 * the list's size, at either end alike: an LPUSH or an RPOP on a list of a million elements
 * decodes, checks, copies and re-encodes all of them. Redis's quicklist pays that only inside
 * one node (8 KiB by default) and makes a push or pop at the ends O(1); terse matches it on
 * lists of a few KiB, the common cached case, and falls behind as lists grow. A chunked form
 * (nodes of their own, as a quicklist) is not built yet (README).
 *
 * Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP) need clients that wait, which
 * terse does not have: they are not in the table, so they answer as unknown commands.
 *
 * Two keys (LMOVE, RPOPLPUSH): the moved element and the source's next form are kept in
 * scratch3 while the destination is decoded into scratch and rebuilt in scratch2; the
 * destination is written first, so a failure part way leaves the element in both lists,
 * never in neither.
 *
 * Buffers: scratch, scratch2 and scratch3 belong to the cmd_server (cmd_value.h) and hold
 * nothing between commands; the elements of a push are slices of the request, described by an
 * array in scratch3. Nothing is allocated per request once the scratches have grown.
 */
#include "cmd/cmd_list.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cmd_util.h"
#include "cmd/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"

#define ERR_INDEX_RANGE "ERR index out of range"
#define ERR_POSITIVE "ERR value is out of range, must be positive"
#define ERR_NUMKEYS "ERR numkeys should be greater than 0"
#define ERR_MPOP_COUNT "ERR count should be greater than 0"

void cmd_list_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status)
{
    cmd_value_reply_bad(c, key, status);
}

int cmd_list_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                  const struct store_entry **e, const uint8_t **form, size_t *len, uint64_t *n)
{
    struct store_list_it it;
    int st;

    *n = 0;
    if (cmd_value_read_form(c, key, STORE_TYPE_LIST, for_write, e, form, len) != 0) {
        return -1;
    }
    if (*e == NULL) {
        return 0;
    }
    st = store_list_open(*form, *len, &it, n);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, key, st);
        return -1;
    }
    return 0;
}

/* Stores the form in scratch2 (out_len bytes) as key's list, keeping its expiry, or deletes
 * the key when out_len is 0 (an empty list is no key). TERSE_OK or a status. */
static int list_store(struct cmd_call *c, const struct resp_slice *key, size_t out_len)
{
    if (out_len == 0) {
        (void)store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                           c->now_ms);
        return TERSE_OK;
    }
    return cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_LIST, out_len, 0);
}

/* Replaces the elements [at, at + n_del) of the list at key (form, len: its decoded form, or
 * NULL, 0) by the n_ins elements of ins, and stores the result. TERSE_OK or a status. */
static int list_splice_store(struct cmd_call *c, const struct resp_slice *key,
                             const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                             const struct store_list_el *ins, size_t n_ins)
{
    size_t cap = len + STORE_LIST_COUNT_MAX, out_len = 0;
    int st;

    for (size_t i = 0; i < n_ins; i++) {
        cap += store_list_el_size(ins[i].len);
    }
    st = cmd_scratch2_reserve(c->srv, cap);
    if (st == TERSE_OK) {
        st = store_list_splice(form, len, at, n_del, ins, n_ins, c->srv->scratch2, cap,
                               &out_len);
    }
    return st == TERSE_OK ? list_store(c, key, out_len) : st;
}

bool cmd_list_index(long long index, uint64_t n, uint64_t *at)
{
    if (index < 0) {
        index += (long long)n;
    }
    if (index < 0 || (uint64_t)index >= n) {
        return false;
    }
    *at = (uint64_t)index;
    return true;
}

int cmd_list_at(const uint8_t *form, size_t len, uint64_t i, const uint8_t **el,
                size_t *el_len)
{
    struct store_list_it it;
    uint64_t n;
    int st = store_list_open(form, len, &it, &n);

    if (st == TERSE_OK) {
        st = store_list_skip(&it, i);
    }
    if (st == TERSE_OK && store_list_next(&it, el, el_len) != 1) {
        st = TERSE_ECORRUPT;
    }
    return st;
}

static void write_bulk(struct cmd_call *c, const uint8_t *p, size_t len)
{
    resp_write_bulk(c->out, len != 0 ? (const void *)p : (const void *)"", len);
}

/* ---- pushes -------------------------------------------------------------------------------- */

/* LPUSH, RPUSH, LPUSHX, RPUSHX key element [element ...]: the new length, or 0 for a missing
 * key under X. LPUSH a b c puts c first, as pushing a, b, c one by one does. */
static void list_push(struct cmd_call *c, bool left, bool xx)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_list_el *ins;
    size_t len, k = c->argc - 2;
    uint64_t n;
    int st;

    if (cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL && xx) {
        resp_write_int(c->out, 0);
        return;
    }
    if (cmd_scratch3_reserve(c->srv, k * sizeof(*ins)) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    ins = (struct store_list_el *)(void *)c->srv->scratch3;
    for (size_t i = 0; i < k; i++) {
        const struct resp_slice *a = &c->argv[left ? c->argc - 1 - i : 2 + i];
        ins[i] = (struct store_list_el){a->p, a->len};
    }
    st = list_splice_store(c, &c->argv[1], form, len, left ? 0 : n, 0, ins, k);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, (long long)(n + k));
}

static void list_lpush(struct cmd_call *c)
{
    list_push(c, true, false);
}

static void list_rpush(struct cmd_call *c)
{
    list_push(c, false, false);
}

static void list_lpushx(struct cmd_call *c)
{
    list_push(c, true, true);
}

static void list_rpushx(struct cmd_call *c)
{
    list_push(c, false, true);
}

/* ---- pops ---------------------------------------------------------------------------------- */

/*
 * Writes count elements (1 <= count <= n) taken from one end of the form, in the order they
 * leave the list (from the right: the last first), as a bulk when single, else an array.
 * From the right, the elements' offsets are noted in scratch3 first (the form reads head to
 * tail only). TERSE_OK or a status (the caller withdraws what was written).
 */
static int pop_reply(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                     bool left, uint64_t count, bool single)
{
    struct store_list_it it;
    const uint8_t *el;
    size_t el_len;
    uint32_t *off;
    int st = store_list_open(form, len, &it, &n);

    if (st == TERSE_OK && !left) {
        st = store_list_skip(&it, n - count);
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (single) {
        st = store_list_next(&it, &el, &el_len) == 1 ? TERSE_OK : TERSE_ECORRUPT;
        if (st == TERSE_OK) {
            write_bulk(c, el, el_len);
        }
        return st;
    }
    resp_write_array(c->out, (size_t)count);
    if (left) {
        for (uint64_t i = 0; i < count; i++) {
            if (store_list_next(&it, &el, &el_len) != 1) {
                return TERSE_ECORRUPT;
            }
            write_bulk(c, el, el_len);
        }
        return TERSE_OK;
    }
    st = cmd_scratch3_reserve(c->srv, (size_t)count * sizeof(*off));
    if (st != TERSE_OK) {
        return st;
    }
    off = (uint32_t *)(void *)c->srv->scratch3;
    for (uint64_t i = 0; i < count; i++) {
        off[i] = (uint32_t)(it.p - form); /* a form is at most 4 GiB */
        if (store_list_next(&it, &el, &el_len) != 1) {
            return TERSE_ECORRUPT;
        }
    }
    for (uint64_t i = count; i-- > 0;) {
        struct store_list_it one = {form + off[i], form + len, 1};
        if (store_list_next(&one, &el, &el_len) != 1) {
            return TERSE_ECORRUPT;
        }
        write_bulk(c, el, el_len);
    }
    return TERSE_OK;
}

/*
 * Pops count elements (1 <= count, at most the n there are) from one end of the list at key
 * (form, len: its decoded form) and replies them (after the key, in LMPOP's shape, when
 * with_key), then stores what is left. -1 when it replied an error.
 */
static int pop_and_store(struct cmd_call *c, const struct resp_slice *key, const uint8_t *form,
                         size_t len, uint64_t n, bool left, uint64_t count, bool single,
                         bool with_key)
{
    size_t out_len = 0, mark = c->out->len;
    int st;

    count = count > n ? n : count;
    st = cmd_scratch2_reserve(c->srv, len);
    if (st == TERSE_OK) {
        st = store_list_range(form, len, left ? count : 0, n - count, c->srv->scratch2, len,
                              &out_len);
    }
    if (st == TERSE_OK) {
        if (with_key) {
            resp_write_array(c->out, 2);
            resp_write_bulk(c->out, key->p, key->len);
        }
        st = pop_reply(c, form, len, n, left, count, single);
    }
    if (st == TERSE_OK) {
        st = list_store(c, key, out_len);
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_list_reply_bad(c, key, st);
        return -1;
    }
    return 0;
}

/* LPOP, RPOP key [count] */
static void list_pop(struct cmd_call *c, bool left)
{
    const struct store_entry *e;
    const uint8_t *form;
    long long count = 0;
    uint64_t n;
    size_t len;

    if (c->argc > 3) {
        resp_write_errorf(c->out, "ERR wrong number of arguments for '%s' command",
                          left ? "lpop" : "rpop");
        return;
    }
    if (c->argc == 3 && (!cmd_parse_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0)) {
        cmd_reply_err(c, ERR_POSITIVE); /* Redis's text for no integer too */
        return;
    }
    if (cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        if (c->argc == 3) {
            resp_write_null_array(c->out);
        } else {
            resp_write_null(c->out);
        }
        return;
    }
    if (c->argc == 3 && count == 0) {
        resp_write_array(c->out, 0);
        return;
    }
    (void)pop_and_store(c, &c->argv[1], form, len, n, left, c->argc == 3 ? (uint64_t)count : 1,
                        c->argc == 2, false);
}

static void list_lpop(struct cmd_call *c)
{
    list_pop(c, true);
}

static void list_rpop(struct cmd_call *c)
{
    list_pop(c, false);
}

/* LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] */
static void list_lmpop(struct cmd_call *c)
{
    long long numkeys, count = -1;
    size_t where_idx;
    bool left;

    if (!cmd_parse_ll(c->argv[1].p, c->argv[1].len, &numkeys) || numkeys < 1) {
        cmd_reply_err(c, ERR_NUMKEYS);
        return;
    }
    if ((unsigned long long)numkeys >= c->argc - 2) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    where_idx = 2 + (size_t)numkeys;
    if (cmd_arg_is(c, where_idx, "left") || cmd_arg_is(c, where_idx, "right")) {
        left = cmd_arg_is(c, where_idx, "left");
    } else {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    for (size_t j = where_idx + 1; j < c->argc; j++) {
        if (count == -1 && j + 1 < c->argc && cmd_arg_is(c, j, "count")) {
            j++;
            if (!cmd_parse_ll(c->argv[j].p, c->argv[j].len, &count) || count < 1) {
                cmd_reply_err(c, ERR_MPOP_COUNT);
                return;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    for (size_t j = 2; j < where_idx; j++) {
        const struct store_entry *e;
        const uint8_t *form;
        size_t len;
        uint64_t n;

        if (cmd_list_read(c, &c->argv[j], 1, &e, &form, &len, &n) != 0) {
            return;
        }
        if (e != NULL) {
            (void)pop_and_store(c, &c->argv[j], form, len, n, left,
                                count == -1 ? 1 : (uint64_t)count, false, true);
            return;
        }
    }
    resp_write_null_array(c->out);
}

/* ---- LMOVE, RPOPLPUSH ---------------------------------------------------------------------- */

/* LMOVE l l: one list, rotated (or unchanged when the element goes back where it came from).
 * el points into form (scratch): the reply is written before the store overwrites it. */
static void move_within(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                        bool from_left, bool to_left, const uint8_t *el, size_t el_len)
{
    struct store_list_w w;
    struct store_list_it it;
    size_t out_len = 0, mark = c->out->len;
    const uint8_t *run;
    int st;

    write_bulk(c, el, el_len);
    if (n == 1 || from_left == to_left) {
        return;
    }
    st = cmd_scratch2_reserve(c->srv, len);
    if (st == TERSE_OK) {
        /* From the left: elements 1..n-1, then the first. From the right: the last, then
         * elements 0..n-2. */
        store_list_w_init(&w, c->srv->scratch2, len, n);
        (void)store_list_open(form, len, &it, &n);
        if (!from_left) {
            store_list_w_push(&w, el, el_len);
        } else {
            st = store_list_skip(&it, 1);
        }
        run = it.p;
        if (st == TERSE_OK) {
            st = store_list_skip(&it, n - 1);
        }
        if (st == TERSE_OK) {
            store_list_w_copy(&w, run, it.p, n - 1);
        }
        if (from_left) {
            store_list_w_push(&w, el, el_len);
        }
    }
    if (st == TERSE_OK) {
        st = store_list_w_finish(&w, &out_len);
    }
    if (st == TERSE_OK) {
        st = list_store(c, &c->argv[1], out_len);
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_list_reply_bad(c, &c->argv[1], st);
    }
}

/* Moves one element from an end of the list argv[1] to an end of argv[2], and replies it. */
static void list_move(struct cmd_call *c, bool from_left, bool to_left)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    const struct store_entry *e;
    const uint8_t *form, *el;
    size_t len, el_len, src_len = 0;
    struct store_list_el ins;
    uint8_t *keep;
    uint64_t n;
    int replied = 0, st;

    if (cmd_list_read(c, src, 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    if (src->len == dst->len && memcmp(src->p, dst->p, src->len) == 0) {
        st = cmd_list_at(form, len, from_left ? 0 : n - 1, &el, &el_len);
        if (st != TERSE_OK) {
            cmd_list_reply_bad(c, src, st);
            return;
        }
        move_within(c, form, len, n, from_left, to_left, el, el_len);
        return;
    }
    (void)cmd_lookup_write_type(c, dst, STORE_TYPE_LIST, &replied);
    if (replied) {
        return;
    }
    /* scratch3 = the element | the source's next form, while dst takes scratch and scratch2. */
    st = cmd_list_at(form, len, from_left ? 0 : n - 1, &el, &el_len);
    if (st == TERSE_OK) {
        st = cmd_scratch2_reserve(c->srv, len);
    }
    if (st == TERSE_OK) {
        st = store_list_range(form, len, from_left ? 1 : 0, n - 1, c->srv->scratch2, len,
                              &src_len);
    }
    if (st == TERSE_OK) {
        st = cmd_scratch3_reserve(c->srv, el_len + src_len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, src, st);
        return;
    }
    keep = c->srv->scratch3;
    if (el_len != 0) {
        memcpy(keep, el, el_len);
    }
    if (src_len != 0) {
        memcpy(keep + el_len, c->srv->scratch2, src_len);
    }
    if (cmd_list_read(c, dst, 1, &e, &form, &len, &n) != 0) {
        return;
    }
    ins = (struct store_list_el){keep, el_len};
    st = list_splice_store(c, dst, form, len, to_left ? 0 : n, 0, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, dst, st);
        return;
    }
    st = cmd_scratch2_reserve(c->srv, src_len);
    if (st == TERSE_OK) {
        if (src_len != 0) {
            memcpy(c->srv->scratch2, keep + el_len, src_len);
        }
        st = list_store(c, src, src_len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, src, st);
        return;
    }
    write_bulk(c, keep, el_len);
}

/* LEFT or RIGHT at argv[i]: 0 with *left, or -1 when it replied the syntax error. */
static int side_or_reply(struct cmd_call *c, size_t i, bool *left)
{
    if (cmd_arg_is(c, i, "left") || cmd_arg_is(c, i, "right")) {
        *left = cmd_arg_is(c, i, "left");
        return 0;
    }
    cmd_reply_err(c, CMD_ERR_SYNTAX);
    return -1;
}

/* LMOVE source destination LEFT|RIGHT LEFT|RIGHT */
static void list_lmove(struct cmd_call *c)
{
    bool from_left, to_left;

    if (side_or_reply(c, 3, &from_left) == 0 && side_or_reply(c, 4, &to_left) == 0) {
        list_move(c, from_left, to_left);
    }
}

/* RPOPLPUSH source destination */
static void list_rpoplpush(struct cmd_call *c)
{
    list_move(c, false, true);
}

/* ---- edits in place ------------------------------------------------------------------------ */

/* LSET key index element */
static void list_lset(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_list_el ins = {c->argv[3].p, c->argv[3].len};
    long long index;
    size_t len;
    uint64_t n, at;
    int st;

    if (cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
        return;
    }
    if (cmd_ll_or_reply(c, 2, &index, NULL) != 0) {
        return;
    }
    if (!cmd_list_index(index, n, &at)) {
        cmd_reply_err(c, ERR_INDEX_RANGE);
        return;
    }
    st = list_splice_store(c, &c->argv[1], form, len, at, 1, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_ok(c->out);
}

/* LINSERT key BEFORE|AFTER pivot element: the new length, -1 without the pivot, 0 without
 * the key. */
static void list_linsert(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form, *el;
    const struct resp_slice *pivot = &c->argv[3];
    struct store_list_el ins = {c->argv[4].p, c->argv[4].len};
    struct store_list_it it;
    size_t len, el_len;
    uint64_t n, at = 0;
    bool after;
    int st;

    if (cmd_arg_is(c, 2, "after") || cmd_arg_is(c, 2, "before")) {
        after = cmd_arg_is(c, 2, "after");
    } else {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    (void)store_list_open(form, len, &it, &n);
    while ((st = store_list_next(&it, &el, &el_len)) == 1) {
        if (el_len == pivot->len && (el_len == 0 || memcmp(el, pivot->p, el_len) == 0)) {
            break;
        }
        at++;
    }
    if (st < 0) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    if (st == 0) {
        resp_write_int(c->out, -1);
        return;
    }
    st = list_splice_store(c, &c->argv[1], form, len, after ? at + 1 : at, 0, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, (long long)(n + 1));
}

/* LREM key count element: removes the first count matches (count < 0: the last -count; 0:
 * all). The last ones are found head to tail: all matches counted, the first ones skipped. */
static void list_lrem(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    const struct resp_slice *ele = &c->argv[3];
    long long count;
    size_t len, out_len = 0;
    uint64_t n, skip = 0, max = UINT64_MAX, removed = 0;
    int st;

    if (cmd_ll_or_reply(c, 2, &count, NULL) != 0 ||
        cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    st = cmd_scratch2_reserve(c->srv, len);
    if (st == TERSE_OK && count < 0) {
        /* -LLONG_MIN: more than any list holds, so all */
        uint64_t want = count == LLONG_MIN ? (uint64_t)1 << 63 : (uint64_t)-count, matches;
        st = store_list_count(form, len, ele->p, ele->len, &matches);
        skip = matches > want ? matches - want : 0;
    } else if (count > 0) {
        max = (uint64_t)count;
    }
    if (st == TERSE_OK) {
        st = store_list_remove(form, len, ele->p, ele->len, skip, max, c->srv->scratch2, len,
                               &out_len, &removed);
    }
    if (st == TERSE_OK && removed > 0) {
        st = list_store(c, &c->argv[1], out_len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, (long long)removed);
}

/* LTRIM key start stop */
static void list_ltrim(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    long long start, end, llen;
    uint64_t n, ltrim, rtrim;
    size_t len, out_len = 0;
    int st;

    if (cmd_ll_or_reply(c, 2, &start, NULL) != 0 || cmd_ll_or_reply(c, 3, &end, NULL) != 0 ||
        cmd_list_read(c, &c->argv[1], 1, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_ok(c->out);
        return;
    }
    llen = (long long)n;
    start = start < 0 ? llen + start : start;
    end = end < 0 ? llen + end : end;
    start = start < 0 ? 0 : start;
    if (start > end || start >= llen) {
        ltrim = n;
        rtrim = 0;
    } else {
        end = end >= llen ? llen - 1 : end;
        ltrim = (uint64_t)start;
        rtrim = (uint64_t)(llen - end - 1);
    }
    if (ltrim + rtrim > 0) {
        st = cmd_scratch2_reserve(c->srv, len);
        if (st == TERSE_OK) {
            st = store_list_range(form, len, ltrim, n - ltrim - rtrim, c->srv->scratch2, len,
                                  &out_len);
        }
        if (st == TERSE_OK) {
            st = list_store(c, &c->argv[1], out_len);
        }
        if (st != TERSE_OK) {
            cmd_list_reply_bad(c, &c->argv[1], st);
            return;
        }
    }
    resp_write_ok(c->out);
}

/* ---- the table ----------------------------------------------------------------------------- */

/* Generated from the oracle's COMMAND INFO and COMMAND DOCS (Redis 7.0.15). */
const struct cmd_def cmd_list_defs[] = {
    {"lpush", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, list_lpush, "@write @list @fast",
     "Prepend one or multiple elements to a list", "1.0.0", "list", NULL},
    {"rpush", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, list_rpush, "@write @list @fast",
     "Append one or multiple elements to a list", "1.0.0", "list", NULL},
    {"lpushx", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, list_lpushx,
     "@write @list @fast", "Prepend an element to a list, only if the list exists", "2.2.0",
     "list", NULL},
    {"rpushx", -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, list_rpushx,
     "@write @list @fast", "Append an element to a list, only if the list exists", "2.2.0",
     "list", NULL},
    {"lpop", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, list_lpop, "@write @list @fast",
     "Remove and get the first elements in a list", "1.0.0", "list", NULL},
    {"rpop", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, list_rpop, "@write @list @fast",
     "Remove and get the last elements in a list", "1.0.0", "list", NULL},
    {"llen", 2, CMD_READONLY | CMD_FAST, 1, 1, 1, cmd_list_llen, "@read @list @fast",
     "Get the length of a list", "1.0.0", "list", NULL},
    {"lrange", 4, CMD_READONLY, 1, 1, 1, cmd_list_lrange, "@read @list @slow",
     "Get a range of elements from a list", "1.0.0", "list", NULL},
    {"lindex", 3, CMD_READONLY, 1, 1, 1, cmd_list_lindex, "@read @list @slow",
     "Get an element from a list by its index", "1.0.0", "list", NULL},
    {"lset", 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, list_lset, "@write @list @slow",
     "Set the value of an element in a list by its index", "1.0.0", "list", NULL},
    {"linsert", 5, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, list_linsert, "@write @list @slow",
     "Insert an element before or after another element in a list", "2.2.0", "list", NULL},
    {"lrem", 4, CMD_WRITE, 1, 1, 1, list_lrem, "@write @list @slow",
     "Remove elements from a list", "1.0.0", "list", NULL},
    {"ltrim", 4, CMD_WRITE, 1, 1, 1, list_ltrim, "@write @list @slow",
     "Trim a list to the specified range", "1.0.0", "list", NULL},
    {"lpos", -3, CMD_READONLY, 1, 1, 1, cmd_list_lpos, "@read @list @slow",
     "Return the index of matching elements on a list", "6.0.6", "list", NULL},
    {"lmove", 5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, list_lmove, "@write @list @slow",
     "Pop an element from a list, push it to another list and return it", "6.2.0", "list",
     NULL},
    {"rpoplpush", 3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, list_rpoplpush, "@write @list @slow",
     "Remove the last element in a list, prepend it to another list and return it", "1.2.0",
     "list", NULL},
    {"lmpop", -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0, 0, list_lmpop, "@write @list @slow",
     "Pop elements from a list", "7.0.0", "list", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
