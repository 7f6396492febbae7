/*
 * cmd_lcs: LCS, the longest common subsequence of two string values, as Redis 7.0 computes
 * and reports it (the same table walk, so IDX ranges come out identical).
 *
 * The table t holds, at t[i * (blen + 1) + j], the LCS length of a[0..i) and b[0..j):
 *
 *          j=0  1  ...  blen
 *   i=0  [  0   0  ...   0  ]
 *   i=1  [  0   .        .  ]     row i: (blen + 1) uint32 cells
 *   ...  [  0   .        .  ]
 *   alen [  0   .   LCS(a,b)]
 *
 * The walk goes back from (alen, blen): on equal bytes it steps diagonally (the byte is part
 * of the subsequence), otherwise towards the larger neighbour, in b on a tie. Consecutive
 * diagonal steps form one match range; ranges are reported from the end of the strings.
 *
 * The two values are decoded into the server's two scratch buffers (b into scratch2, then a
 * into scratch: a reserve of one never disturbs the other). The subsequence itself is written
 * straight into the reply.
 */
#include "cmd/string/cmd_lcs.h"

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "codec/codec_value.h"
#include "resp/resp_write.h"
#include "store/store.h"
#include "terse/status.h"

#include <stddef.h>
#include <stdint.h>

#define LL_STR_CAP 24 /* a long long in decimal, sign and NUL */

#define ERR_LCS_BOTH "ERR If you want both the length and indexes, please just use IDX."
#define ERR_LCS_TOO_LONG "ERR String too long for LCS"
#define ERR_LCS_MEMORY \
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"

struct lcs_args {
    int want_len;             /* LEN */
    int want_idx;             /* IDX */
    int with_match_len;       /* WITHMATCHLEN */
    long long min_match_len;  /* MINMATCHLEN, >= 0 */
};

static int lcs_args_parse_or_reply(struct cmd_call *c, struct lcs_args *a)
{
    for (size_t i = 3; i < c->argc; i++) {
        if (cmd_arg_is(c, i, "idx")) {
            a->want_idx = 1;
        } else if (cmd_arg_is(c, i, "len")) {
            a->want_len = 1;
        } else if (cmd_arg_is(c, i, "withmatchlen")) {
            a->with_match_len = 1;
        } else if (cmd_arg_is(c, i, "minmatchlen") && i + 1 < c->argc) {
            if (cmd_ll_or_reply(c, i + 1, &a->min_match_len, CMD_ERR_NOT_INT) != 0) {
                return TERSE_EINVAL;
            }
            if (a->min_match_len < 0) {
                a->min_match_len = 0;
            }
            i++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return TERSE_EINVAL;
        }
    }
    if (a->want_idx && a->want_len) {
        cmd_reply_err(c, ERR_LCS_BOTH);
        return TERSE_EINVAL;
    }
    return TERSE_OK;
}

/* Decodes key's value (a missing key is the empty string) into the scratch buffer chosen by
 * which (0: scratch, 1: scratch2), sized from the header first. */
static int lcs_value_or_reply(struct cmd_call *c, const struct store_entry *e,
                              const struct resp_slice *key, int which, const uint8_t **p,
                              size_t *len)
{
    const uint8_t *stored;
    size_t stored_len = 0, n = 0;
    uint8_t *dst;
    int st;

    *p = (const uint8_t *)"";
    *len = 0;
    if (e == NULL) {
        return TERSE_OK;
    }
    st = cmd_value_len(c, e, &n);
    if (st != TERSE_OK) {
        cmd_reply_corrupt(c, key->p, key->len);
        return st;
    }
    st = which ? cmd_scratch2_reserve(c->srv, n + LL_STR_CAP)
               : cmd_scratch_reserve(c->srv, n + LL_STR_CAP);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return st;
    }
    dst = which ? c->srv->scratch2 : c->srv->scratch;
    if (store_entry_enc(e) == STORE_ENC_INT) {
        *len = cmd_format_ll((char *)dst, store_entry_int(e));
    } else {
        stored = store_entry_val(e, &stored_len);
        st = codec_value_decode(c->srv->codec, stored, stored_len, dst, n, len);
        if (st != TERSE_OK) {
            /* Any failure here (checksum, length) means the stored form is bad. */
            cmd_reply_corrupt(c, key->p, key->len);
            return st;
        }
    }
    *p = dst;
    return TERSE_OK;
}

/* One match range of the IDX reply: a[a0..a1] == b[b0..b1]. */
static void lcs_reply_range(struct resp_out *o, size_t a0, size_t a1, size_t b0, size_t b1,
                            int with_len)
{
    resp_write_array(o, with_len ? 3 : 2);
    resp_write_array(o, 2);
    resp_write_int(o, (long long)a0);
    resp_write_int(o, (long long)a1);
    resp_write_array(o, 2);
    resp_write_int(o, (long long)b0);
    resp_write_int(o, (long long)b1);
    if (with_len) {
        resp_write_int(o, (long long)(a1 - a0 + 1));
    }
}

/*
 * Walks the table back from (alen, blen) as Redis does (on a tie, step in b), filling the
 * common subsequence backwards into out (when not NULL) and replying the match ranges (when
 * idx). Ranges come out from the end of the strings towards their start. Returns the number
 * of ranges replied.
 */
static size_t lcs_walk(struct resp_out *o, const uint32_t *t, const uint8_t *a, size_t alen,
                       const uint8_t *b, size_t blen, uint8_t *out, const struct lcs_args *args)
{
    size_t i = alen, j = blen, k = t[alen * (blen + 1) + blen], n_ranges = 0;
    size_t a_end = 0, b_end = 0, run = 0; /* the range being grown: a[i..a_end], run bytes */

    while (i > 0 && j > 0) {
        int close;

        if (a[i - 1] == b[j - 1]) {
            if (out != NULL) {
                out[--k] = a[i - 1];
            }
            if (run == 0) {
                a_end = i - 1;
                b_end = j - 1;
            }
            run++;
            i--;
            j--;
            close = (i == 0 || j == 0);
        } else {
            if (t[(i - 1) * (blen + 1) + j] > t[i * (blen + 1) + j - 1]) {
                i--;
            } else {
                j--;
            }
            close = run > 0;
        }
        if (close && run > 0) {
            size_t a0 = a_end + 1 - run, b0 = b_end + 1 - run;
            if (args->want_idx && run >= (unsigned long long)args->min_match_len) {
                lcs_reply_range(o, a0, a_end, b0, b_end, args->with_match_len);
                n_ranges++;
            }
            run = 0;
        }
    }
    return n_ranges;
}

/* Fills the table (layout in the file comment): row 0 and column 0 are empty prefixes. */
static void lcs_fill(uint32_t *t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    for (size_t j = 0; j <= blen; j++) {
        t[j] = 0;
    }
    for (size_t i = 1; i <= alen; i++) {
        uint32_t *row = t + i * (blen + 1);
        const uint32_t *up = row - (blen + 1);

        row[0] = 0;
        for (size_t j = 1; j <= blen; j++) {
            if (a[i - 1] == b[j - 1]) {
                row[j] = up[j - 1] + 1;
            } else {
                row[j] = up[j] > row[j - 1] ? up[j] : row[j - 1];
            }
        }
    }
}

void cmd_lcs_proc(struct cmd_call *c)
{
    struct lcs_args args = {0, 0, 0, 0};
    const struct resp_slice *ka = &c->argv[1], *kb = &c->argv[2];
    const uint8_t *a, *b;
    size_t alen, blen, cells, total, at = 0, n_ranges;
    uint32_t *t;
    uint8_t *dst = NULL;
    struct store_entry *ea, *eb;
    long long max;

    ea = cmd_lookup_read(c, ka, NULL);
    eb = cmd_lookup_read(c, kb, NULL);
    if ((ea != NULL && store_entry_type(ea) != STORE_TYPE_STRING) ||
        (eb != NULL && store_entry_type(eb) != STORE_TYPE_STRING)) {
        cmd_reply_err(c, "ERR The specified keys must contain string values");
        return;
    }
    if (lcs_args_parse_or_reply(c, &args) != TERSE_OK) {
        return;
    }
    /* b goes to scratch2 first: a reserve never disturbs the other buffer. */
    if (lcs_value_or_reply(c, eb, kb, 1, &b, &blen) != TERSE_OK ||
        lcs_value_or_reply(c, ea, ka, 0, &a, &alen) != TERSE_OK) {
        return;
    }
    if (alen >= UINT32_MAX - 1 || blen >= UINT32_MAX - 1) {
        cmd_reply_err(c, ERR_LCS_TOO_LONG);
        return;
    }
    /* The table is transient memory: Redis bounds it by proto-max-bulk-len. */
    max = c->srv->settings.proto_max_bulk_len;
    cells = (alen + 1) * (blen + 1);
    if (cells / (blen + 1) != alen + 1 || cells > SIZE_MAX / sizeof(uint32_t) ||
        (max > 0 && cells * sizeof(uint32_t) > (unsigned long long)max) ||
        (t = c->srv->alloc.alloc(c->srv->alloc.opaque, cells * sizeof(uint32_t))) == NULL) {
        cmd_reply_err(c, ERR_LCS_MEMORY);
        return;
    }
    lcs_fill(t, a, alen, b, blen);
    total = t[alen * (blen + 1) + blen];
    if (args.want_len) {
        resp_write_int(c->out, (long long)total);
    } else if (args.want_idx) {
        resp_write_map(c->out, 2);
        resp_write_cstr(c->out, "matches");
        at = resp_write_deferred_begin(c->out);
        n_ranges = lcs_walk(c->out, t, a, alen, b, blen, NULL, &args);
        resp_write_deferred_end(c->out, at, '*', n_ranges);
        resp_write_cstr(c->out, "len");
        resp_write_int(c->out, (long long)total);
    } else {
        resp_write_bulk_header(c->out, total);
        dst = resp_out_reserve(c->out, total);
        if (dst != NULL) {
            (void)lcs_walk(c->out, t, a, alen, b, blen, dst, &args);
            resp_out_commit(c->out, total);
            resp_write_crlf(c->out);
        }
    }
    c->srv->alloc.free(c->srv->alloc.opaque, t);
}
