/*
 * cmd_list_read: the list family's reads (LLEN, LRANGE, LINDEX, LPOS). Each decodes the
 * list's elements once into the server's scratch (cmd_list_read, checksum verified) and writes
 * the reply from there into the connection's output buffer. A form found corrupt part way
 * through a reply withdraws what was written (the output is cut back to where the reply
 * began) and answers the CORRUPT error instead.
 *
 * The form reads head to tail only (an element's length comes before its bytes), so what
 * Redis walks from the tail (LPOS with a negative RANK) is found walking from the head: the
 * positions of the matches are noted in scratch3, then answered tail first.
 */

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/list/cmd_list_coll.h"
#include "cmd/list/cmd_list_form.h"
#include "coll/coll_list.h"
#include "store/store.h"

#define ERR_RANK_ZERO                                                                      \
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or " \
    "use negative to start from the end of the list"
#define ERR_COUNT_NEG "ERR COUNT can't be negative"
#define ERR_MAXLEN_NEG "ERR MAXLEN can't be negative"

/* Withdraws a reply begun at mark and answers the status (CORRUPT for a bad form). */
static void withdraw(struct cmd_call *c, size_t mark, int status)
{
    c->out->len = mark;
    cmd_list_reply_bad(c, &c->argv[1], status);
}

/* LLEN key */
void cmd_list_llen(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len;
    uint64_t n;

    if (cmd_list_read(c, &c->argv[1], 0, &e, &form, &len, &n) == 0) {
        resp_write_int(c->out, (long long)n);
    }
}

/* LRANGE key start stop */
void cmd_list_lrange(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form, *el;
    struct store_list_it it;
    long long start, end, llen;
    size_t len, el_len, mark;
    uint64_t n;
    int st;

    if (cmd_ll_or_reply(c, 2, &start, NULL) != 0 || cmd_ll_or_reply(c, 3, &end, NULL) != 0 ||
        cmd_list_read(c, &c->argv[1], 0, &e, &form, &len, &n) != 0) {
        return;
    }
    llen = (long long)n;
    start = start < 0 ? llen + start : start;
    end = end < 0 ? llen + end : end;
    start = start < 0 ? 0 : start;
    if (e == NULL || start > end || start >= llen) {
        resp_write_array(c->out, 0);
        return;
    }
    end = end >= llen ? llen - 1 : end;
    if (form == NULL) {
        (void)cmd_list_coll_range(c, &c->argv[1], store_entry_coll(e), (uint64_t)start,
                                  (uint64_t)end);
        return;
    }
    mark = c->out->len;
    (void)store_list_open(form, len, &it, &n);
    st = store_list_skip(&it, (uint64_t)start);
    resp_write_array(c->out, (size_t)(end - start + 1));
    for (long long i = start; st == TERSE_OK && i <= end; i++) {
        st = store_list_next(&it, &el, &el_len) == 1 ? TERSE_OK : TERSE_ECORRUPT;
        if (st == TERSE_OK) {
            resp_write_bulk(c->out, el, el_len);
        }
    }
    if (st != TERSE_OK) {
        withdraw(c, mark, st);
    }
}

/* LINDEX key index */
void cmd_list_lindex(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form, *el;
    long long index;
    size_t len, el_len;
    uint64_t n, at;
    int st;

    /* Redis's order: the key first (a missing key answers null whatever the index). */
    if (cmd_list_read(c, &c->argv[1], 0, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    if (cmd_ll_or_reply(c, 2, &index, NULL) != 0) {
        return;
    }
    if (!cmd_list_index(index, n, &at)) {
        resp_write_null(c->out);
        return;
    }
    if (form == NULL) {
        (void)cmd_list_coll_reply_at(c, &c->argv[1], store_entry_coll(e), at);
        return;
    }
    st = cmd_list_at(form, len, at, &el, &el_len);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_bulk(c->out, el, el_len);
}

/* ---- LPOS ---------------------------------------------------------------------------------- */

struct lpos_opts {
    long long rank;   /* 1-based rank of the first match answered; negative: from the tail */
    long long count;  /* -1: no COUNT (answer one index or null); 0: every match */
    long long maxlen; /* elements compared at most, from the start side; 0: all */
};

/* A count of 0 or more at argv[i] (Redis's getPositiveLongFromObjectOrReply with a message: the
 * same error for no integer and for a negative one). -1 when it replied. */
static int nonneg_or_reply(struct cmd_call *c, size_t i, long long *v, const char *err)
{
    if (!cmd_parse_ll(c->argv[i].p, c->argv[i].len, v) || *v < 0) {
        cmd_reply_err(c, err);
        return -1;
    }
    return 0;
}

/* Parses RANK, COUNT and MAXLEN as Redis does, in order, the first error winning. -1 when it
 * replied. */
static int lpos_parse(struct cmd_call *c, struct lpos_opts *o)
{
    o->rank = 1;
    o->count = -1;
    o->maxlen = 0;
    for (size_t j = 3; j < c->argc; j++) {
        bool more = j + 1 < c->argc;

        if (more && cmd_arg_is(c, j, "rank")) {
            if (cmd_ll_or_reply(c, ++j, &o->rank, NULL) != 0) {
                return -1;
            }
            if (o->rank == 0) {
                cmd_reply_err(c, ERR_RANK_ZERO);
                return -1;
            }
        } else if (more && cmd_arg_is(c, j, "count")) {
            if (nonneg_or_reply(c, ++j, &o->count, ERR_COUNT_NEG) != 0) {
                return -1;
            }
        } else if (more && cmd_arg_is(c, j, "maxlen")) {
            if (nonneg_or_reply(c, ++j, &o->maxlen, ERR_MAXLEN_NEG) != 0) {
                return -1;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/*
 * Whether the answer is complete after `answered` indexes of `matches` seen, as Redis's loop
 * decides: a single answer (no COUNT) ends at the first match of rank; COUNT n ends after n.
 * Redis computes matches - rank + 1 in a long, where RANK -LONG_MIN stays negative and the
 * sum wraps: that rank answers every match under a COUNT, as Redis does.
 */
static bool lpos_done(const struct lpos_opts *o, uint64_t rank, uint64_t answered)
{
    if (o->count == -1) {
        return answered >= 1;
    }
    if (o->count == 0 || rank > (uint64_t)LLONG_MAX) {
        return false;
    }
    return answered >= (uint64_t)o->count;
}

/* Answers the match at element index i: noted as the single answer (no COUNT) or written.
 * Whether the answer is then complete (lpos_done). */
static bool lpos_answer(struct cmd_call *c, const struct lpos_opts *o, uint64_t rank,
                        long long i, uint64_t *answered, long long *single)
{
    (*answered)++;
    if (o->count == -1) {
        *single = i;
    } else {
        resp_write_int(c->out, i);
    }
    return lpos_done(o, rank, *answered);
}

/* Whether element el is the one LPOS looks for (argv[2]). */
static bool lpos_is(const struct cmd_call *c, const uint8_t *el, size_t el_len)
{
    const struct resp_slice *ele = &c->argv[2];

    return el_len == ele->len && (el_len == 0 || memcmp(el, ele->p, el_len) == 0);
}

/* Head to tail: each match of rank or beyond is answered as it is found. */
static int lpos_forward(struct cmd_call *c, const uint8_t *form, size_t len,
                        const struct lpos_opts *o, uint64_t *answered, long long *single)
{
    struct store_list_it it;
    const uint8_t *el;
    size_t el_len;
    uint64_t n, matches = 0, rank = (uint64_t)o->rank;
    int st = store_list_open(form, len, &it, &n);

    for (uint64_t i = 0; st == TERSE_OK && (o->maxlen == 0 || i < (uint64_t)o->maxlen); i++) {
        st = store_list_next(&it, &el, &el_len);
        if (st != 1) {
            return st == 0 ? TERSE_OK : TERSE_ECORRUPT;
        }
        st = TERSE_OK;
        if (lpos_is(c, el, el_len) && ++matches >= rank &&
            lpos_answer(c, o, rank, (long long)i, answered, single)) {
            break;
        }
    }
    return st;
}

/* Tail to head: the matches among the last maxlen elements are noted head to tail in
 * scratch3 (element indexes), then answered from the last. */
static int lpos_backward(struct cmd_call *c, const uint8_t *form, size_t len,
                         const struct lpos_opts *o, uint64_t *answered, long long *single)
{
    struct store_list_it it;
    const uint8_t *el;
    size_t el_len;
    uint64_t n, first = 0, k = 0;
    /* -LONG_MIN is LONG_MIN in Redis: a rank every match reaches */
    uint64_t rank = o->rank == LLONG_MIN ? (uint64_t)1 << 63 : (uint64_t)-o->rank;
    uint32_t *at;
    int st = store_list_open(form, len, &it, &n);

    if (st != TERSE_OK) {
        return st;
    }
    if (o->maxlen != 0 && (uint64_t)o->maxlen < n) {
        first = n - (uint64_t)o->maxlen;
    }
    st = store_list_skip(&it, first);
    for (uint64_t i = first; st == TERSE_OK && i < n; i++) {
        st = store_list_next(&it, &el, &el_len) == 1 ? TERSE_OK : TERSE_ECORRUPT;
        if (st != TERSE_OK || !lpos_is(c, el, el_len)) {
            continue;
        }
        st = cmd_scratch3_reserve(c->srv, (size_t)(k + 1) * sizeof(*at));
        if (st == TERSE_OK) {
            /* An element takes a byte at least and a form at most 4 GiB: an index fits. */
            ((uint32_t *)(void *)c->srv->scratch3)[k++] = (uint32_t)i;
        }
    }
    if (st != TERSE_OK) {
        return st;
    }
    at = (uint32_t *)(void *)c->srv->scratch3;
    for (uint64_t m = 1; m <= k; m++) {
        if (m < rank && o->rank != LLONG_MIN) {
            continue;
        }
        if (lpos_answer(c, o, rank, (long long)at[k - m], answered, single)) {
            break;
        }
    }
    return TERSE_OK;
}

/* LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
/* LPOS over a chunked list: the same rules, walking the container. TERSE_OK or a status. */
static int lpos_chunked(struct cmd_call *c, struct coll *co, const struct lpos_opts *o,
                        uint64_t *answered, long long *single)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);
    uint64_t n = coll_count(co), matches = 0, rank, seen = 0;
    bool back = o->rank < 0;
    struct coll_list_it it;
    const uint8_t *el;
    size_t el_len;
    int st;

    rank = !back ? (uint64_t)o->rank
                 : o->rank == LLONG_MIN ? (uint64_t)1 << 63 : (uint64_t)-o->rank;
    st = coll_list_it_init(env, co, back ? n - 1 : 0, back, &it);
    if (st != TERSE_OK) {
        return st;
    }
    while (o->maxlen == 0 || seen < (uint64_t)o->maxlen) {
        st = coll_list_it_next(env, &it, &el, &el_len);
        if (st <= 0) {
            return st;
        }
        seen++;
        if (lpos_is(c, el, el_len) && (++matches >= rank || (back && o->rank == LLONG_MIN)) &&
            lpos_answer(c, o, rank, (long long)(back ? n - seen : seen - 1), answered, single)) {
            break;
        }
    }
    return TERSE_OK;
}

void cmd_list_lpos(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct lpos_opts o;
    long long single = -1;
    uint64_t n, answered = 0;
    size_t len, mark, at = 0;
    int st;

    if (lpos_parse(c, &o) != 0 || cmd_list_read(c, &c->argv[1], 0, &e, &form, &len, &n) != 0) {
        return;
    }
    if (e == NULL) {
        if (o.count != -1) {
            resp_write_array(c->out, 0);
        } else {
            resp_write_null(c->out);
        }
        return;
    }
    mark = c->out->len;
    if (o.count != -1) {
        at = resp_write_deferred_begin(c->out);
    }
    if (form == NULL) {
        st = lpos_chunked(c, store_entry_coll(e), &o, &answered, &single);
    } else {
        st = o.rank > 0 ? lpos_forward(c, form, len, &o, &answered, &single)
                        : lpos_backward(c, form, len, &o, &answered, &single);
    }
    if (st != TERSE_OK) {
        withdraw(c, mark, st);
    } else if (o.count != -1) {
        resp_write_deferred_end(c->out, at, '*', (size_t)answered);
    } else if (single >= 0) {
        resp_write_int(c->out, single);
    } else {
        resp_write_null(c->out);
    }
}
