/*
 * cmd_list_pop: the list writes that take elements off an end: LPOP, RPOP and LMPOP, which
 * reply them, and LMOVE and RPOPLPUSH, which push the element on an end of another list (or
 * the same one, rotated) and reply it. The shared read and store steps are in cmd_list.c.
 *
 * The form reads head to tail only, so elements taken from the right are found by their
 * offsets, noted in scratch3 on the way, then replied last first.
 *
 * Two keys (LMOVE, RPOPLPUSH): the moved element and the source's next form are kept in
 * scratch3 while the destination is decoded into scratch and rebuilt in scratch2; the
 * destination is written first, so a failure part way leaves the element in both lists,
 * never in neither.
 *
 * Buffers: scratch, scratch2 and scratch3 belong to the cmd_server (cmd_value.h) and hold
 * nothing between commands. Nothing is allocated per request once the scratches have grown.
 */
#include "cmd/list/cmd_list_pop.h"


#include <stdbool.h>
#include <string.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/list/cmd_list_coll.h"
#include "cmd/list/cmd_list_form.h"
#include "coll/coll_list.h"
#include "store/store.h"

#define ERR_POSITIVE "ERR value is out of range, must be positive"

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
            cmd_list_write_bulk(c, el, el_len);
        }
        return st;
    }
    resp_write_array(c->out, (size_t)count);
    if (left) {
        for (uint64_t i = 0; i < count; i++) {
            if (store_list_next(&it, &el, &el_len) != 1) {
                return TERSE_ECORRUPT;
            }
            cmd_list_write_bulk(c, el, el_len);
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
        cmd_list_write_bulk(c, el, el_len);
    }
    return TERSE_OK;
}

int cmd_list_pop_and_store(struct cmd_call *c, const struct resp_slice *key,
                           const struct store_entry *e, const uint8_t *form, size_t len,
                           uint64_t n, bool left, uint64_t count, bool single, bool with_key)
{
    size_t out_len = 0, mark = c->out->len;
    int st;

    if (form == NULL) {
        return cmd_list_coll_pop(c, key, store_entry_coll(e), left, count, single, with_key);
    }
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
        st = cmd_list_store(c, key, out_len);
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_list_reply_bad(c, key, st);
        return -1;
    }
    cmd_changed_edit(c, CMD_NOTIFY_LIST, left ? "lpop" : "rpop", key);
    if (with_key && cmd_feed_on(c)) {
        /* BLPOP, BRPOP, LMPOP, BLMPOP are fed as the plain pop they did (a replica must not
         * block, nor pop from another key). */
        char num[CMD_FEED_NUM];
        struct resp_slice a[3] = {cmd_feed_str(left ? "LPOP" : "RPOP"), *key,
                                  cmd_feed_ll(num, (long long)count)};
        cmd_feed_rewrite(c, a, single ? 2 : 3);
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
    (void)cmd_list_pop_and_store(c, &c->argv[1], e, form, len, n, left,
                                 c->argc == 3 ? (uint64_t)count : 1, c->argc == 2, false);
}

void cmd_list_lpop(struct cmd_call *c)
{
    list_pop(c, true);
}

void cmd_list_rpop(struct cmd_call *c)
{
    list_pop(c, false);
}

void cmd_list_mpop(struct cmd_call *c, size_t at, bool blocking, int64_t timeout_ms)
{
    const struct store_entry *e;
    const uint8_t *form;
    long long count;
    size_t nkeys, j, len;
    uint64_t n;
    bool left;
    int has;

    if (cmd_elems_mpop_args_or_reply(c, at, "left", "right", &nkeys, &left, &count) != 0) {
        return;
    }
    /* Not blocking, a retry never happens: a key of another type answers WRONGTYPE. */
    has = cmd_block_first_ready(c, at + 1, nkeys, STORE_TYPE_LIST, &j);
    if (has > 0) {
        if (cmd_list_read(c, &c->argv[j], 1, &e, &form, &len, &n) == 0 && e != NULL) {
            (void)cmd_list_pop_and_store(c, &c->argv[j], e, form, len, n, left, (uint64_t)count,
                                         false, true);
        }
    } else if (has == 0 && (!blocking || cmd_block(c, at + 1, nkeys, 1, timeout_ms) == 0)) {
        resp_write_null_array(c->out);
    }
}

/* LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void cmd_list_lmpop(struct cmd_call *c)
{
    cmd_list_mpop(c, 1, false, 0);
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

    cmd_list_write_bulk(c, el, el_len);
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
        st = cmd_list_store(c, &c->argv[1], out_len);
    }
    if (st != TERSE_OK) {
        c->out->len = mark;
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    /* Redis pushes onto the destination before it reports the pop from the source. */
    cmd_changed(c, CMD_NOTIFY_LIST, to_left ? "lpush" : "rpush", &c->argv[1]);
    cmd_changed(c, CMD_NOTIFY_LIST, from_left ? "lpop" : "rpop", &c->argv[1]);
}

/* The move out of a chunked source: the element popped (copied to scratch3), pushed onto the
 * destination (the source itself, or another list of either form), the source settled. */
static void move_chunked(struct cmd_call *c, struct coll *co, bool from_left, bool to_left)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct coll_env *env = cmd_coll_env(c, src);
    const struct store_entry *e;
    const uint8_t *el, *form;
    struct store_list_el ins;
    size_t el_len, len;
    uint64_t n;
    int replied = 0, st;
    bool same = src->len == dst->len && memcmp(src->p, dst->p, src->len) == 0;

    if (!same) {
        (void)cmd_lookup_write_type(c, dst, STORE_TYPE_LIST, &replied);
        if (replied) {
            return;
        }
    }
    st = coll_list_pop(env, co, from_left, &el, &el_len);
    if (st != 1) {
        cmd_list_reply_bad(c, src, st == 0 ? TERSE_ECORRUPT : st);
        return;
    }
    st = cmd_scratch3_reserve(c->srv, el_len);
    if (st != TERSE_OK) {
        (void)coll_list_push(env, co, from_left, el, el_len); /* put back */
        cmd_list_reply_bad(c, src, st);
        return;
    }
    if (el_len != 0) {
        memcpy(c->srv->scratch3, el, el_len);
    }
    el = c->srv->scratch3;
    if (same) {
        st = coll_list_push(env, co, to_left, el, el_len);
        if (st == TERSE_OK) {
            cmd_coll_edited(c, src);
        }
    } else if (cmd_list_read(c, dst, 1, &e, &form, &len, &n) != 0) {
        (void)coll_list_push(env, co, from_left, el, el_len);
        return;
    } else if (e != NULL && form == NULL) {
        st = coll_list_push(env, store_entry_coll(e), to_left, el, el_len);
        if (st == TERSE_OK) {
            cmd_coll_edited(c, dst);
        }
    } else {
        ins = (struct store_list_el){el, el_len};
        st = cmd_list_splice_store(c, dst, form, len, to_left ? 0 : n, 0, &ins, 1);
    }
    if (st != TERSE_OK) {
        (void)coll_list_push(env, co, from_left, el, el_len);
        cmd_list_reply_bad(c, dst, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_LIST, to_left ? "lpush" : "rpush", dst);
    if (!same) {
        st = cmd_list_coll_settle(c, src, co);
        if (st != TERSE_OK) {
            cmd_list_reply_bad(c, src, st);
            return;
        }
    }
    if (same) {
        cmd_changed(c, CMD_NOTIFY_LIST, from_left ? "lpop" : "rpop", src);
    } else {
        cmd_changed_edit(c, CMD_NOTIFY_LIST, from_left ? "lpop" : "rpop", src);
    }
    cmd_list_write_bulk(c, el, el_len);
}

void cmd_list_move(struct cmd_call *c, bool from_left, bool to_left)
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
    if (form == NULL) {
        move_chunked(c, store_entry_coll(e), from_left, to_left);
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
    st = form == NULL && e != NULL
             ? coll_list_push(cmd_coll_env(c, dst),
                              store_entry_coll(e), to_left, keep, el_len)
             : cmd_list_splice_store(c, dst, form, len, to_left ? 0 : n, 0, &ins, 1);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, dst, st);
        return;
    }
    if (form == NULL && e != NULL) {
        cmd_coll_edited(c, dst);
    }
    cmd_changed(c, CMD_NOTIFY_LIST, to_left ? "lpush" : "rpush", dst);
    st = cmd_scratch2_reserve(c->srv, src_len);
    if (st == TERSE_OK) {
        if (src_len != 0) {
            memcpy(c->srv->scratch2, keep + el_len, src_len);
        }
        st = cmd_list_store(c, src, src_len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, src, st);
        return;
    }
    cmd_changed_edit(c, CMD_NOTIFY_LIST, from_left ? "lpop" : "rpop", src);
    cmd_list_write_bulk(c, keep, el_len);
}

int cmd_list_side_or_reply(struct cmd_call *c, size_t i, bool *left)
{
    if (cmd_arg_is(c, i, "left") || cmd_arg_is(c, i, "right")) {
        *left = cmd_arg_is(c, i, "left");
        return 0;
    }
    cmd_reply_err(c, CMD_ERR_SYNTAX);
    return -1;
}

/* LMOVE source destination LEFT|RIGHT LEFT|RIGHT */
void cmd_list_lmove(struct cmd_call *c)
{
    bool from_left, to_left;

    if (cmd_list_side_or_reply(c, 3, &from_left) == 0 &&
        cmd_list_side_or_reply(c, 4, &to_left) == 0) {
        cmd_list_move(c, from_left, to_left);
    }
}

/* RPOPLPUSH source destination */
void cmd_list_rpoplpush(struct cmd_call *c)
{
    cmd_list_move(c, false, true);
}
