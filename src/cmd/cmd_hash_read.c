/*
 * cmd_hash_read: the hash family's reads (HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS,
 * HSTRLEN, HRANDFIELD, HSCAN). Each decodes the hash's fields once into the server's scratch
 * (cmd_hash_read, checksum verified) and writes the reply from there into the connection's
 * output buffer. A form found corrupt part way through a reply withdraws what was written
 * (the output is cut back to where the reply began) and answers the CORRUPT error instead.
 */
#include "cmd/cmd_hash.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cmd_scan.h"
#include "cmd/cmd_util.h"
#include "cmd/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* HRANDFIELD with a negative count repeats fields, so its reply has no natural bound (Redis
 * 7.0 runs out of memory on -4611686018427387903); terse stops past this many reply bytes. */
#define HASH_RAND_REPLY_MAX ((size_t)1 << 30)
#define ERR_RAND_REPLY "ERR HRANDFIELD reply would pass 1 GiB"
#define ERR_OUT_OF_RANGE "ERR value is out of range"

/* Withdraws a reply begun at mark and answers the status (CORRUPT for a bad form). */
static void withdraw(struct cmd_call *c, size_t mark, int status)
{
    c->out->len = mark;
    cmd_hash_reply_bad(c, status);
}

/* The field argv[2] of the hash at argv[1]: 1 found, 0 not (or no key), -1 replied. */
static int find_arg_field(struct cmd_call *c, struct store_hash_kv *kv)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len;
    int st;

    if (cmd_hash_read(c, &e, &form, &len) != 0) {
        return -1;
    }
    if (e == NULL) {
        return 0;
    }
    st = store_hash_find(form, len, c->argv[2].p, c->argv[2].len, kv);
    if (st < 0) {
        cmd_hash_reply_bad(c, st);
        return -1;
    }
    return st;
}

/* HGET key field */
void cmd_hash_hget(struct cmd_call *c)
{
    struct store_hash_kv kv;
    int got = find_arg_field(c, &kv);

    if (got == 1) {
        resp_write_bulk(c->out, kv.v, kv.vlen);
    } else if (got == 0) {
        resp_write_null(c->out);
    }
}

/* HEXISTS key field */
void cmd_hash_hexists(struct cmd_call *c)
{
    struct store_hash_kv kv;
    int got = find_arg_field(c, &kv);

    if (got >= 0) {
        resp_write_int(c->out, got);
    }
}

/* HSTRLEN key field */
void cmd_hash_hstrlen(struct cmd_call *c)
{
    struct store_hash_kv kv;
    int got = find_arg_field(c, &kv);

    if (got >= 0) {
        resp_write_int(c->out, got == 1 ? (long long)kv.vlen : 0);
    }
}

/* HMGET key field [field ...] */
void cmd_hash_hmget(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len, mark;

    if (cmd_hash_read(c, &e, &form, &len) != 0) {
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
        if (st == 1) {
            resp_write_bulk(c->out, kv.v, kv.vlen);
        } else {
            resp_write_null(c->out);
        }
    }
}

/* HLEN key */
void cmd_hash_hlen(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    uint64_t n = 0;
    size_t len;
    int st;

    if (cmd_hash_read(c, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL && (st = store_hash_open(form, len, &it, &n)) != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return;
    }
    resp_write_int(c->out, (long long)n);
}

/* HGETALL, HKEYS, HVALS: every field, value, or both (a map in RESP3), in the hash's order. */
static void hash_all(struct cmd_call *c, bool fields, bool values)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n = 0;
    size_t len, mark;
    int st;

    if (cmd_hash_read(c, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL && (st = store_hash_open(form, len, &it, &n)) != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
        return;
    }
    mark = c->out->len;
    if (fields && values) {
        resp_write_map(c->out, (size_t)n);
    } else {
        resp_write_array(c->out, (size_t)n);
    }
    if (e == NULL) {
        return;
    }
    while ((st = store_hash_next(&it, &kv)) == 1) {
        if (fields) {
            resp_write_bulk(c->out, kv.f, kv.flen);
        }
        if (values) {
            resp_write_bulk(c->out, kv.v, kv.vlen);
        }
    }
    if (st < 0) {
        withdraw(c, mark, st);
    }
}

void cmd_hash_hgetall(struct cmd_call *c)
{
    hash_all(c, true, true);
}

void cmd_hash_hkeys(struct cmd_call *c)
{
    hash_all(c, true, false);
}

void cmd_hash_hvals(struct cmd_call *c)
{
    hash_all(c, false, true);
}

/* ---- HRANDFIELD ---------------------------------------------------------------------------- */

/* The field at byte offset off of form (an offset store_hash_next started a field at). */
static int field_at(const uint8_t *form, size_t len, uint32_t off, struct store_hash_kv *kv)
{
    struct store_hash_it it = {form + off, form + len, 1};
    int st = store_hash_next(&it, kv);

    return st == 1 ? TERSE_OK : TERSE_ECORRUPT;
}

/* Writes one pick: the field, or the field and its value (a pair of its own in RESP3). */
static void write_pick(struct cmd_call *c, const struct store_hash_kv *kv, bool withvalues)
{
    if (withvalues && c->out->proto == 3) {
        resp_write_array(c->out, 2);
    }
    resp_write_bulk(c->out, kv->f, kv->flen);
    if (withvalues) {
        resp_write_bulk(c->out, kv->v, kv->vlen);
    }
}

/* The reply's array header for count picks. */
static void write_picks_header(struct cmd_call *c, size_t count, bool withvalues)
{
    resp_write_array(c->out, withvalues && c->out->proto == 2 ? count * 2 : count);
}

/*
 * count picks with repetition (a negative count): the start offset of every field is laid
 * out in scratch3 first, so each pick is one random index. TERSE_OK or a status.
 */
static int rand_repeat(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                       uint64_t count, bool withvalues)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    uint32_t *off;
    uint64_t k = 0;
    int st;

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
    write_picks_header(c, (size_t)count, withvalues);
    for (uint64_t i = 0; i < count && !c->out->err; i++) {
        st = field_at(form, len, off[store_rand(s) % n], &kv);
        if (st != TERSE_OK) {
            return st;
        }
        write_pick(c, &kv, withvalues);
        if (c->out->len > HASH_RAND_REPLY_MAX) {
            return TERSE_ETOOBIG;
        }
    }
    return TERSE_OK;
}

/* count distinct picks (count < n), in the hash's order: selection sampling (Knuth's
 * algorithm S) takes each field with probability wanted / left. */
static int rand_distinct(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t count,
                         bool withvalues)
{
    struct store_shard *s = cmd_shard(c, c->argv[1].p, c->argv[1].len);
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n, left, wanted = count;
    int st = store_hash_open(form, len, &it, &n);

    if (st != TERSE_OK) {
        return st;
    }
    write_picks_header(c, (size_t)(count < n ? count : n), withvalues);
    for (left = n; wanted > 0 && (st = store_hash_next(&it, &kv)) == 1; left--) {
        if (count >= n || store_rand(s) % left < wanted) {
            write_pick(c, &kv, withvalues);
            wanted--;
        }
    }
    return st < 0 ? st : TERSE_OK;
}

/* HRANDFIELD key [count [WITHVALUES]] */
void cmd_hash_hrandfield(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    struct store_hash_kv kv;
    long long l = 1;
    bool withvalues = false;
    uint64_t n;
    size_t len, mark;
    int st;

    /* Redis's order: the count, then the syntax, then the count's range with WITHVALUES. */
    if (c->argc >= 3) {
        if (cmd_ll_or_reply(c, 2, &l, NULL) != 0) {
            return;
        }
        if (l == LLONG_MIN) {
            cmd_reply_err(c, "ERR value is out of range, value must between "
                             "-9223372036854775807 and 9223372036854775807");
            return;
        }
    }
    if (c->argc >= 4 && (c->argc > 4 || !cmd_arg_is(c, 3, "withvalues"))) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    withvalues = c->argc == 4;
    if (withvalues && (l < -(LLONG_MAX / 2) || l > LLONG_MAX / 2)) {
        cmd_reply_err(c, ERR_OUT_OF_RANGE); /* count * 2 replies must fit */
        return;
    }
    if (cmd_hash_read(c, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL) {
        if (c->argc >= 3) {
            resp_write_array(c->out, 0);
        } else {
            resp_write_null(c->out);
        }
        return;
    }
    st = store_hash_open(form, len, &it, &n);
    if (st != TERSE_OK) {
        cmd_hash_reply_bad(c, st);
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
    } else if (l < 0) {
        st = rand_repeat(c, form, len, n, (uint64_t)-l, withvalues);
    } else {
        st = rand_distinct(c, form, len, (uint64_t)l, withvalues);
    }
    if (st == TERSE_ETOOBIG) {
        c->out->len = mark;
        cmd_reply_err(c, ERR_RAND_REPLY);
    } else if (st != TERSE_OK) {
        withdraw(c, mark, st);
    }
}

/* ---- HSCAN --------------------------------------------------------------------------------- */

/*
 * HSCAN key cursor [MATCH pattern] [COUNT count]. A hash is one block, so one call returns
 * every field (cursor 0), as Redis does for a hash held as a listpack; the guarantee that a
 * field present for the whole iteration is returned holds trivially. As in Redis the cursor
 * is parsed first, then the key looked up (a missing key answers an empty scan whatever the
 * options), then the options.
 */
void cmd_hash_hscan(struct cmd_call *c)
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
    if (cmd_hash_read(c, &e, &form, &len) != 0) {
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
        resp_write_bulk(c->out, kv.v, kv.vlen);
        matched += 2;
    }
    if (st < 0) {
        withdraw(c, mark, st);
        return;
    }
    resp_write_deferred_end(c->out, at, '*', matched);
}
