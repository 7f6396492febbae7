/*
 * cmd_list: the list writes that push or edit in place (LPUSH, RPUSH, LPUSHX, RPUSHX, LSET,
 * LINSERT, LREM, LTRIM) and the family's command table. The steps the family shares (read,
 * store, splice) are in cmd_list_form.c, the pops and moves (LPOP, RPOP, LMPOP, LMOVE,
 * RPOPLPUSH) in cmd_list_pop.c, the reads in cmd_list_read.c, the blocking pops and moves
 * (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH) in cmd_list_block.c.
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
 * Buffers: scratch, scratch2 and scratch3 belong to the cmd_server (cmd_value.h) and hold
 * nothing between commands; the elements of a push are slices of the request, described by an
 * array in scratch3. Nothing is allocated per request once the scratches have grown.
 */
#include "cmd/list/cmd_list.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/list/cmd_list_coll.h"
#include "cmd/list/cmd_list_form.h"
#include "coll/coll.h"
#include "store/store.h"

#define ERR_INDEX_RANGE "ERR index out of range"

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
    if (e != NULL && form == NULL) {
        if (cmd_list_coll_push(c, store_entry_coll(e), left, 2) == 0) {
            cmd_changed(c, CMD_NOTIFY_LIST, left ? "lpush" : "rpush", &c->argv[1]);
        }
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
    st = cmd_list_splice_store(c, &c->argv[1], form, len, left ? 0 : n, 0, ins, k);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_LIST, left ? "lpush" : "rpush", &c->argv[1]);
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
    if (form == NULL) {
        if (cmd_list_coll_set(c, &c->argv[1], store_entry_coll(e), at, &c->argv[3]) == 0) {
            cmd_changed(c, CMD_NOTIFY_LIST, "lset", &c->argv[1]);
            resp_write_ok(c->out);
        }
        return;
    }
    st = cmd_list_splice_store(c, &c->argv[1], form, len, at, 1, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_LIST, "lset", &c->argv[1]);
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
    if (form == NULL) {
        int found;
        struct coll *co = store_entry_coll(e);
        if (cmd_list_coll_insert(c, &c->argv[1], co, pivot, after, &c->argv[4], &found) != 0) {
            return;
        }
        if (found) {
            cmd_changed(c, CMD_NOTIFY_LIST, "linsert", &c->argv[1]);
        }
        resp_write_int(c->out, found ? (long long)coll_count(co) : -1);
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
    st = cmd_list_splice_store(c, &c->argv[1], form, len, after ? at + 1 : at, 0, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_LIST, "linsert", &c->argv[1]);
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
    if (form == NULL) {
        if (cmd_list_coll_rem(c, &c->argv[1], store_entry_coll(e), count, ele, &removed) != 0) {
            return;
        }
        if (removed > 0) {
            cmd_changed_edit(c, CMD_NOTIFY_LIST, "lrem", &c->argv[1]);
        }
        resp_write_int(c->out, (long long)removed);
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
        st = cmd_list_store(c, &c->argv[1], out_len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    if (removed > 0) {
        cmd_changed_edit(c, CMD_NOTIFY_LIST, "lrem", &c->argv[1]);
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
    if (ltrim + rtrim > 0 && form == NULL) {
        if (cmd_list_coll_trim(c, &c->argv[1], store_entry_coll(e), ltrim, rtrim) != 0) {
            return;
        }
    } else if (ltrim + rtrim > 0) {
        st = cmd_scratch2_reserve(c->srv, len);
        if (st == TERSE_OK) {
            st = store_list_range(form, len, ltrim, n - ltrim - rtrim, c->srv->scratch2, len,
                                  &out_len);
        }
        if (st == TERSE_OK) {
            st = cmd_list_store(c, &c->argv[1], out_len);
        }
        if (st != TERSE_OK) {
            cmd_list_reply_bad(c, &c->argv[1], st);
            return;
        }
    }
    cmd_changed_edit(c, CMD_NOTIFY_LIST, "ltrim", &c->argv[1]);
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
    {"lpop", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_list_lpop, "@write @list @fast",
     "Remove and get the first elements in a list", "1.0.0", "list", NULL},
    {"rpop", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_list_rpop, "@write @list @fast",
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
    {"lmove", 5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, cmd_list_lmove, "@write @list @slow",
     "Pop an element from a list, push it to another list and return it", "6.2.0", "list",
     NULL},
    {"rpoplpush", 3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, cmd_list_rpoplpush, "@write @list @slow",
     "Remove the last element in a list, prepend it to another list and return it", "1.2.0",
     "list", NULL},
    {"lmpop", -4, CMD_WRITE | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_list_lmpop, "@write @list @slow",
     "Pop elements from a list", "7.0.0", "list", NULL},
    {"blpop", -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, 1, -2, 1, cmd_list_blpop,
     "@write @list @slow @blocking",
     "Remove and get the first element in a list, or block until one is available", "2.0.0",
     "list", NULL},
    {"brpop", -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, 1, -2, 1, cmd_list_brpop,
     "@write @list @slow @blocking",
     "Remove and get the last element in a list, or block until one is available", "2.0.0",
     "list", NULL},
    {"blmpop", -5, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_list_blmpop,
     "@write @list @slow @blocking",
     "Pop elements from a list, or block until one is available", "7.0.0", "list", NULL},
    {"blmove", 6, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, 1, 2, 1,
     cmd_list_blmove, "@write @list @slow @blocking",
     "Pop an element from a list, push it to another list and return it; or block until one "
     "is available",
     "6.2.0", "list", NULL},
    {"brpoplpush", 4, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, 1, 2, 1,
     cmd_list_brpoplpush, "@write @list @slow @blocking",
     "Pop an element from a list, push it to another list and return it; or block until one "
     "is available",
     "2.2.0", "list", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
