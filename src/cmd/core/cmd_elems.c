/*
 * cmd_elems: the element-walking helpers the hash and set families share (see cmd_elems.h).
 * Each decodes the container's form once into the server's scratch (cmd_value_read_form,
 * checksum verified) and writes the reply from there into the connection's output buffer. A
 * form found corrupt part way through a reply withdraws what was written (the output is cut
 * back to where the reply began) and answers the CORRUPT error instead.
 */
#include "cmd/core/cmd_elems.h"

#include "cmd/core/cmd_elems_coll.h"

#include <limits.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "store/form/store_zset.h"
#include "terse/status.h"
#include "cmd/core/cmd_glob.h"

#define ERR_RAND_RANGE                                                                        \
    "ERR value is out of range, value must between -9223372036854775807 and "                \
    "9223372036854775807"

#define ERR_OUT_OF_RANGE "ERR value is out of range"

void cmd_elems_withdraw(struct cmd_call *c, size_t mark, int status)
{
    c->out->len = mark;
    cmd_value_reply_bad(c, &c->argv[1], status);
}

/* The value of every set member: empty, but never a NULL pointer (store_hash_edit copies it). */
static const uint8_t empty_value[1] = {0};

struct store_hash_kv *cmd_elems_from_args(struct cmd_call *c, size_t first, bool with_values,
                                          size_t *n)
{
    size_t step = with_values ? 2 : 1;
    struct store_hash_kv *kv;

    *n = (c->argc - first) / step;
    if (cmd_scratch3_reserve(c->srv, *n * sizeof(*kv)) != TERSE_OK) {
        return NULL;
    }
    kv = (struct store_hash_kv *)(void *)c->srv->scratch3;
    for (size_t i = 0; i < *n; i++) {
        const struct resp_slice *f = &c->argv[first + step * i];
        kv[i] = (struct store_hash_kv){f->p, f->len, empty_value, 0};
        if (with_values) {
            kv[i].v = f[1].p;
            kv[i].vlen = f[1].len;
        }
    }
    return kv;
}

int cmd_elems_open_or_reply(struct cmd_call *c, const uint8_t *form, size_t len,
                            struct store_hash_it *it, uint64_t *n)
{
    if (store_hash_open(form, len, it, n) != TERSE_OK || *n == 0) {
        cmd_value_reply_bad(c, &c->argv[1], TERSE_ECORRUPT);
        return -1;
    }
    return 0;
}

int cmd_elems_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len,
                            long long max_entries,
                            bool (*too_big)(const struct cmd_server *srv,
                                            const struct store_hash_kv *kv))
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t n;
    int st = store_hash_open(form, len, &it, &n);

    if (st != TERSE_OK) {
        return st;
    }
    if (n > (uint64_t)max_entries) {
        return 1;
    }
    while ((st = store_hash_next(&it, &kv)) == 1) {
        if (too_big(srv, &kv)) {
            return 1;
        }
    }
    return st < 0 ? st : 0;
}

/* The container of type at argv[1] for a read, opened: *e NULL when missing (*n 0), else
 * *form, *len, *it, *n. 0 to go on, -1 when it replied (WRONGTYPE, CORRUPT). */
static int read_open(struct cmd_call *c, enum store_type type, const struct store_entry **e,
                     const uint8_t **form, size_t *len, struct store_hash_it *it, uint64_t *n)
{
    int st;

    *n = 0;
    if (cmd_value_read_form(c, &c->argv[1], type, 0, e, form, len) != 0) {
        return -1;
    }
    if (*e != NULL && store_entry_enc(*e) == STORE_ENC_COLL) {
        *n = coll_count(store_entry_coll(*e)); /* a hash's, set's or sorted set's elements */
        return 0;
    }
    if (*e != NULL && (st = store_hash_open(*form, *len, it, n)) != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return -1;
    }
    return 0;
}

void cmd_elems_card(struct cmd_call *c, enum store_type type)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    uint64_t n;
    size_t len;

    if (read_open(c, type, &e, &form, &len, &it, &n) == 0) {
        resp_write_int(c->out, (long long)n);
    }
}

void cmd_elems_find_each(struct cmd_call *c, enum store_type type, bool with_values)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len, mark;

    if (cmd_value_read_form(c, &c->argv[1], type, 0, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        cmd_elems_coll_find_each(c, cmd_elems_coll_of(e), with_values);
        return;
    }
    mark = c->out->len;
    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        struct store_hash_kv kv;
        int st = e != NULL ? store_hash_find(form, len, c->argv[i].p, c->argv[i].len, &kv) : 0;
        if (st < 0) {
            cmd_elems_withdraw(c, mark, st);
            return;
        }
        if (!with_values) {
            resp_write_int(c->out, st);
        } else if (st == 1) {
            resp_write_bulk(c->out, kv.v, kv.vlen);
        } else {
            resp_write_null(c->out);
        }
    }
}

void cmd_elems_all(struct cmd_call *c, enum store_type type, enum cmd_elems_all_kind kind)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    struct store_hash_kv kv;
    bool fields = kind != CMD_ELEMS_ALL_VALUES;
    bool values = kind == CMD_ELEMS_ALL_PAIRS || kind == CMD_ELEMS_ALL_VALUES;
    uint64_t n;
    size_t len, mark;
    int st;

    if (read_open(c, type, &e, &form, &len, &it, &n) != 0) {
        return;
    }
    mark = c->out->len;
    if (kind == CMD_ELEMS_ALL_PAIRS) {
        resp_write_map(c->out, (size_t)n);
    } else if (kind == CMD_ELEMS_ALL_MEMBERS) {
        resp_write_set(c->out, (size_t)n);
    } else {
        resp_write_array(c->out, (size_t)n);
    }
    if (e == NULL) {
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        st = cmd_elems_coll_all(c, cmd_elems_coll_of(e), fields, values);
        if (st < 0) {
            cmd_elems_withdraw(c, mark, st);
        }
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
        cmd_elems_withdraw(c, mark, st);
    }
}

/* ---- SCAN ---------------------------------------------------------------------------------- */

void cmd_elems_write_scan_value(struct cmd_call *c, const struct store_hash_kv *kv,
                                enum cmd_elems_val vals)
{
    char buf[RESP_G17_MAX];

    if (vals == CMD_ELEMS_VAL_SCORE) {
        double d = kv->vlen == STORE_ZSET_SCORE_LEN ? store_zset_score(kv->v) : 0;
        resp_write_bulk(c->out, buf, resp_fmt_g17(buf, d));
    } else {
        resp_write_bulk(c->out, kv->v, kv->vlen);
    }
}

/* The MATCH and COUNT options from argv[3]: *pat NULL for none (or "*"), *count (10 by
 * default). -1 when it replied. */
static int scan_opts_or_reply(struct cmd_call *c, const uint8_t **pat, size_t *pat_len,
                              long long *count_out)
{
    long long count = 10;

    *pat = NULL;
    *pat_len = 0;
    for (size_t i = 3; i < c->argc; i += 2) {
        if (i + 1 < c->argc && cmd_arg_is(c, i, "count")) {
            if (cmd_ll_or_reply(c, i + 1, &count, NULL) != 0) {
                return -1;
            }
            if (count < 1) {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return -1;
            }
        } else if (i + 1 < c->argc && cmd_arg_is(c, i, "match")) {
            *pat = c->argv[i + 1].p;
            *pat_len = c->argv[i + 1].len;
            if (*pat_len == 1 && (*pat)[0] == '*') {
                *pat = NULL;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    *count_out = count;
    return 0;
}

void cmd_elems_scan(struct cmd_call *c, enum store_type type, enum cmd_elems_val vals)
{
    const struct store_entry *e;
    const uint8_t *form, *pat = NULL;
    size_t len, pat_len = 0, at, matched = 0, mark;
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t cursor, n;
    long long count = 10;
    int st;

    if (!cmd_scan_parse_cursor(c->argv[2].p, c->argv[2].len, &cursor)) {
        cmd_reply_err(c, CMD_SCAN_ERR_CURSOR);
        return;
    }
    if (cmd_value_read_form(c, &c->argv[1], type, 0, &e, &form, &len) != 0) {
        return;
    }
    if (e != NULL && scan_opts_or_reply(c, &pat, &pat_len, &count) != 0) {
        return;
    }
    if (e != NULL && store_entry_enc(e) == STORE_ENC_COLL) {
        /* A chunked one: incremental, the cursor a hash value (COUNT a hint, as Redis's). */
        cmd_elems_coll_scan(c, store_entry_coll(e), cursor, (size_t)count, pat, pat_len, vals);
        return;
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
        if (vals != CMD_ELEMS_VAL_NONE) {
            cmd_elems_write_scan_value(c, &kv, vals);
            matched++;
        }
    }
    if (st < 0) {
        cmd_elems_withdraw(c, mark, st);
        return;
    }
    resp_write_deferred_end(c->out, at, '*', matched);
}

/* ---- random picks -------------------------------------------------------------------------- */

int cmd_elems_rand_count_or_reply(struct cmd_call *c, size_t argi, long long *count)
{
    if (cmd_ll_or_reply(c, argi, count, NULL) != 0) {
        return -1;
    }
    if (*count == LLONG_MIN) {
        cmd_reply_err(c, ERR_RAND_RANGE);
        return -1;
    }
    return 0;
}

int cmd_elems_rand_args_or_reply(struct cmd_call *c, const char *with_word, long long *count,
                                 bool *with)
{
    *with = false;
    /* Redis's order: the count, then the syntax, then the count's range with the option. */
    if (c->argc >= 3 && cmd_elems_rand_count_or_reply(c, 2, count) != 0) {
        return -1;
    }
    if (c->argc >= 4 && (c->argc > 4 || !cmd_arg_is(c, 3, with_word))) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    *with = c->argc == 4;
    if (*with && (*count < -(LLONG_MAX / 2) || *count > LLONG_MAX / 2)) {
        cmd_reply_err(c, ERR_OUT_OF_RANGE); /* count * 2 replies must fit */
        return -1;
    }
    return 0;
}

int cmd_elems_mpop_args_or_reply(struct cmd_call *c, size_t at, const char *end_a,
                                 const char *end_b, size_t *nkeys, bool *is_a, long long *count)
{
    long long numkeys;
    size_t where;

    *count = 1;
    if (!cmd_parse_ll(c->argv[at].p, c->argv[at].len, &numkeys) || numkeys < 1) {
        cmd_reply_err(c, "ERR numkeys should be greater than 0");
        return -1;
    }
    if ((unsigned long long)numkeys >= c->argc - at - 1) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    where = at + 1 + (size_t)numkeys;
    *is_a = cmd_arg_is(c, where, end_a);
    if (!*is_a && !cmd_arg_is(c, where, end_b)) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    for (size_t j = where + 1; j < c->argc; j++) {
        if (j == where + 1 && j + 1 < c->argc && cmd_arg_is(c, j, "count")) {
            j++;
            if (!cmd_parse_ll(c->argv[j].p, c->argv[j].len, count) || *count < 1) {
                cmd_reply_err(c, "ERR count should be greater than 0");
                return -1;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    *nkeys = (size_t)numkeys;
    return 0;
}

void cmd_elems_rand_reply_none(struct cmd_call *c, bool with_count)
{
    if (with_count) {
        resp_write_array(c->out, 0);
    } else {
        resp_write_null(c->out);
    }
}

void cmd_elems_write_pick(struct cmd_call *c, const struct store_hash_kv *kv,
                          enum cmd_elems_val vals)
{
    if (vals != CMD_ELEMS_VAL_NONE && c->out->proto == 3) {
        resp_write_array(c->out, 2);
    }
    resp_write_bulk(c->out, kv->f, kv->flen);
    if (vals == CMD_ELEMS_VAL_BULK) {
        resp_write_bulk(c->out, kv->v, kv->vlen);
    } else if (vals == CMD_ELEMS_VAL_SCORE) {
        resp_write_double(c->out, kv->vlen == STORE_ZSET_SCORE_LEN ? store_zset_score(kv->v) : 0);
    }
}

/* The reply's array header for count picks. */
static void write_picks_header(struct cmd_call *c, size_t count, enum cmd_elems_val vals)
{
    resp_write_array(c->out, vals != CMD_ELEMS_VAL_NONE && c->out->proto == 2 ? count * 2 : count);
}

/* One uniformly random element as a bulk. */
static int rand_one(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    uint64_t k = store_rand(cmd_shard(c, c->argv[1].p, c->argv[1].len)) % n;
    int st = store_hash_open(form, len, &it, &n);

    while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1 && k > 0) {
        st = TERSE_OK;
        k--;
    }
    if (st != 1) {
        return TERSE_ECORRUPT;
    }
    resp_write_bulk(c->out, kv.f, kv.flen);
    return TERSE_OK;
}

/*
 * count picks with repetition: the start offset of every element is laid out in scratch3
 * first, so each pick is one random index. TERSE_OK, TERSE_ETOOBIG past
 * CMD_ELEMS_RAND_REPLY_MAX, or a status.
 */
static int rand_repeat(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                       uint64_t count, enum cmd_elems_val vals)
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
    write_picks_header(c, (size_t)count, vals);
    for (uint64_t i = 0; i < count && !c->out->err; i++) {
        struct store_hash_it at = {form + off[store_rand(s) % n], form + len, 1};
        if (store_hash_next(&at, &kv) != 1) {
            return TERSE_ECORRUPT;
        }
        cmd_elems_write_pick(c, &kv, vals);
        if (c->out->len > CMD_ELEMS_RAND_REPLY_MAX) {
            return TERSE_ETOOBIG;
        }
    }
    return TERSE_OK;
}

/* min(count, n) distinct picks in the form's order (selection sampling, Knuth's algorithm S:
 * each element is taken with probability wanted / left; every element when count >= n). */
static int rand_distinct(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t count,
                         enum cmd_elems_val vals)
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
    write_picks_header(c, (size_t)wanted, vals);
    for (left = n; wanted > 0 && (st = store_hash_next(&it, &kv)) == 1; left--) {
        if (count >= n || store_rand(s) % left < wanted) {
            cmd_elems_write_pick(c, &kv, vals);
            wanted--;
        }
    }
    return st < 0 ? st : (wanted == 0 ? TERSE_OK : TERSE_ECORRUPT);
}

void cmd_elems_rand_reply(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                          bool single, long long count, enum cmd_elems_val vals,
                          const char *err_too_big)
{
    size_t mark = c->out->len;
    int st;

    if (single) {
        st = rand_one(c, form, len, n);
    } else if (count < 0) {
        st = rand_repeat(c, form, len, n, (uint64_t)-count, vals);
    } else {
        st = rand_distinct(c, form, len, (uint64_t)count, vals);
    }
    if (st == TERSE_ETOOBIG) {
        c->out->len = mark;
        cmd_reply_err(c, err_too_big);
    } else if (st != TERSE_OK) {
        cmd_elems_withdraw(c, mark, st);
    }
}
