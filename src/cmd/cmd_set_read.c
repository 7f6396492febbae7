/*
 * cmd_set_read: the set family's reads (SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SRANDMEMBER,
 * SSCAN). Each decodes the set's form once into the server's scratch (cmd_set_read, checksum
 * verified) and writes the reply from there into the connection's output buffer. A form found
 * corrupt part way through a reply withdraws what was written (the output is cut back to where
 * the reply began) and answers the CORRUPT error instead.
 *
 * Order: the form's (cmd_set.c): ascending numeric while every member is an integer, which is
 * Redis's order for an intset; insertion order otherwise (Redis: its dict's order).
 */
#include "cmd/cmd_set.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cmd_scan.h"
#include "cmd/cmd_util.h"
#include "cmd/cmd_value.h"
#include "resp/resp_write.h"
#include "store/store_hash.h"
#include "terse/status.h"

/* SRANDMEMBER with a negative count repeats members, so its reply has no natural bound (Redis
 * 7.0 grows it until the output limit closes the client); terse stops past this many reply
 * bytes, as HRANDFIELD does. */
#define SET_RAND_REPLY_MAX ((size_t)1 << 30)
#define ERR_RAND_REPLY "ERR SRANDMEMBER reply would pass 1 GiB"
#define ERR_RAND_RANGE                                                                        \
    "ERR value is out of range, value must between -9223372036854775807 and "                \
    "9223372036854775807"

/* Withdraws a reply begun at mark and answers the status (CORRUPT for a bad form). */
static void withdraw(struct cmd_call *c, size_t mark, int status)
{
    c->out->len = mark;
    cmd_value_reply_bad(c, &c->argv[1], status);
}

/* SMEMBERS key: Redis 7.0 runs SINTER of the one key, so the reply is a set (RESP3 ~). */
void cmd_set_smembers(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n = 0;
    size_t len, mark;
    int st;

    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL && (st = store_hash_open(form, len, &it, &n)) != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    mark = c->out->len;
    resp_write_set(c->out, (size_t)n);
    if (e == NULL) {
        return;
    }
    while ((st = store_hash_next(&it, &kv)) == 1) {
        resp_write_bulk(c->out, kv.f, kv.flen);
    }
    if (st < 0) {
        withdraw(c, mark, st);
    }
}

/* SISMEMBER key member */
void cmd_set_sismember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_kv kv;
    size_t len;
    int st = 0;

    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL) {
        st = store_hash_find(form, len, c->argv[2].p, c->argv[2].len, &kv);
    }
    if (st < 0) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, st);
}

/* SMISMEMBER key member [member ...] */
void cmd_set_smismember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len, mark;

    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    mark = c->out->len;
    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        struct store_hash_kv kv;
        int st = e != NULL ? store_hash_find(form, len, c->argv[i].p, c->argv[i].len, &kv) : 0;
        if (st < 0) {
            withdraw(c, mark, st);
            return;
        }
        resp_write_int(c->out, st);
    }
}

/* SCARD key */
void cmd_set_scard(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    uint64_t n = 0;
    size_t len;
    int st;

    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL && (st = store_hash_open(form, len, &it, &n)) != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, (long long)n);
}

/* ---- SRANDMEMBER --------------------------------------------------------------------------- */

/* count picks with repetition: the start offset of every member is laid out in scratch3
 * first, so each pick is one random index. */
static int rand_repeat(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                       uint64_t count)
{
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint32_t *off;
    uint64_t k = 0;
    int st;

    if (len > UINT32_MAX) {
        return TERSE_ETOOBIG;
    }
    st = cmd_scratch3_reserve(c->srv, (size_t)n * sizeof(*off));
    if (st != TERSE_OK) {
        return st;
    }
    off = (uint32_t *)(void *)c->srv->scratch3;
    st = store_hash_open(form, len, &it, &n);
    while (st == TERSE_OK && k < n) {
        off[k] = (uint32_t)(it.p - form);
        st = store_hash_next(&it, &kv) == 1 ? TERSE_OK : TERSE_ECORRUPT;
        k++;
    }
    if (st != TERSE_OK) {
        return st;
    }
    resp_write_array(c->out, (size_t)count);
    for (uint64_t i = 0; i < count && !c->out->err; i++) {
        struct store_hash_it at = {form + off[store_rand(s) % n], form + len, 1};
        if (store_hash_next(&at, &kv) != 1) {
            return TERSE_ECORRUPT;
        }
        resp_write_bulk(c->out, kv.f, kv.flen);
        if (c->out->len > SET_RAND_REPLY_MAX) {
            return TERSE_ETOOBIG;
        }
    }
    return TERSE_OK;
}

/* min(count, n) distinct picks in the form's order (selection sampling: each member is taken
 * with probability wanted / left; every member when count >= n). */
static int rand_distinct(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t count)
{
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n, left, wanted;
    int st = store_hash_open(form, len, &it, &n);

    if (st != TERSE_OK) {
        return st;
    }
    wanted = count < n ? count : n;
    resp_write_array(c->out, (size_t)wanted);
    for (left = n; wanted > 0 && (st = store_hash_next(&it, &kv)) == 1; left--) {
        if (count >= n || store_rand(s) % left < wanted) {
            resp_write_bulk(c->out, kv.f, kv.flen);
            wanted--;
        }
    }
    return st < 0 ? st : (wanted == 0 ? TERSE_OK : TERSE_ECORRUPT);
}

/* SRANDMEMBER key [count] */
void cmd_set_srandmember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    struct store_hash_kv kv;
    long long l = 1;
    uint64_t n;
    size_t len, mark;
    int st;

    if (c->argc > 3) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc == 3) {
        if (cmd_ll_or_reply(c, 2, &l, NULL) != 0) {
            return;
        }
        if (l == LLONG_MIN) {
            cmd_reply_err(c, ERR_RAND_RANGE);
            return;
        }
    }
    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL || (c->argc == 3 && l == 0)) {
        if (c->argc == 3) {
            resp_write_array(c->out, 0);
        } else {
            resp_write_null(c->out);
        }
        return;
    }
    st = store_hash_open(form, len, &it, &n);
    if (st != TERSE_OK || n == 0) {
        cmd_value_reply_bad(c, &c->argv[1], TERSE_ECORRUPT);
        return;
    }
    mark = c->out->len;
    if (c->argc == 2) {
        uint64_t k = store_rand(cmd_shard(c, c->argv[1].p, c->argv[1].len)) % n;
        while ((st = store_hash_next(&it, &kv)) == 1 && k > 0) {
            k--;
        }
        if (st == 1) {
            resp_write_bulk(c->out, kv.f, kv.flen);
            return;
        }
        st = TERSE_ECORRUPT;
    } else if (l < 0 || l == 1) {
        st = rand_repeat(c, form, len, n, l < 0 ? (uint64_t)-l : 1);
    } else {
        st = rand_distinct(c, form, len, (uint64_t)l);
    }
    if (st == TERSE_ETOOBIG) {
        c->out->len = mark;
        cmd_reply_err(c, ERR_RAND_REPLY);
    } else if (st != TERSE_OK) {
        withdraw(c, mark, st);
    }
}

/* ---- SSCAN --------------------------------------------------------------------------------- */

/*
 * SSCAN key cursor [MATCH pattern] [COUNT count]. A set is one block, so one call returns
 * every member (cursor 0), as Redis does for a set held as an intset; the guarantee that a
 * member present for the whole iteration is returned holds trivially. As in Redis the cursor
 * is parsed first, then the key looked up (a missing key answers an empty scan whatever the
 * options), then the options.
 */
void cmd_set_sscan(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form, *pat = NULL;
    size_t len, pat_len = 0, at, matched = 0, mark;
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t cursor, n;
    long long count;
    int st;

    if (!cmd_scan_parse_cursor(c->argv[2].p, c->argv[2].len, &cursor)) {
        cmd_reply_err(c, CMD_SCAN_ERR_CURSOR);
        return;
    }
    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    for (size_t i = 3; e != NULL && i < c->argc; i += 2) {
        if (i + 1 < c->argc && cmd_arg_is(c, i, "count")) {
            if (cmd_ll_or_reply(c, i + 1, &count, NULL) != 0) {
                return;
            }
            if (count < 1) {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return;
            }
        } else if (i + 1 < c->argc && cmd_arg_is(c, i, "match")) {
            pat = c->argv[i + 1].p;
            pat_len = c->argv[i + 1].len;
            if (pat_len == 1 && pat[0] == '*') {
                pat = NULL;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    mark = c->out->len;
    resp_write_array(c->out, 2);
    resp_write_bulk(c->out, "0", 1);
    if (e == NULL) {
        resp_write_array(c->out, 0);
        return;
    }
    st = store_hash_open(form, len, &it, &n);
    at = resp_write_deferred_begin(c->out);
    while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1) {
        st = TERSE_OK;
        if (pat != NULL && !cmd_glob_match(pat, pat_len, kv.f, kv.flen, 0)) {
            continue;
        }
        resp_write_bulk(c->out, kv.f, kv.flen);
        matched++;
    }
    if (st < 0) {
        withdraw(c, mark, st);
        return;
    }
    resp_write_deferred_end(c->out, at, '*', matched);
}
