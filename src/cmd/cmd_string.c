/*
 * cmd_string: the string command family (GET, SET and its variants, MGET/MSET, APPEND,
 * STRLEN, GETRANGE/SETRANGE, SETBIT/GETBIT, the INCR family; LCS's algorithm is in cmd_lcs.c)
 * with Redis 7.0's syntax, replies and error texts.
 *
 * A string entry is either an int64 (STORE_ENC_INT) or the codec's stored form
 * (STORE_ENC_STR, possibly compressed). Whole-value reads decode straight into the reply
 * (cmd_reply_value). Commands that edit a value decode it into the server's scratch buffer,
 * edit it in place there and hand it to cmd_value_set, which re-encodes it into scratch2:
 *
 *   srv->scratch (compose)                          srv->scratch2 (cmd_value_set)
 *   +---------------------+------------------+      +-------------------------------+
 *   | decoded old value   | edit / appended  |  ->  | header | payload (LZ4 or raw) | -> store
 *   +---------------------+------------------+      +-------------------------------+
 *   0                    olen             new_len (<= settings.proto_max_bulk_len)
 *
 * Invariants:
 * - A command that replies an error changes nothing: every check runs before the first write.
 * - A value that fails its checksum is never replied nor rewritten; the command replies the
 *   CORRUPT error (counted once, through cmd_reply_corrupt) and leaves the key as it is.
 * - Steady state allocates nothing: the scratch buffers are reused.
 * - Keys are reached through cmd_shard() only; the db is the client's.
 */
#include "cmd/cmd.h"

#include "cmd/cmd_lcs.h"
#include "cmd/cmd_util.h"
#include "codec/codec_value.h"
#include "resp/resp_write.h"
#include "store/store.h"
#include "terse/status.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LL_STR_CAP 24 /* a long long in decimal, sign and NUL */

/* Redis's texts for the errors only this family replies. */
#define ERR_OFFSET_RANGE "ERR offset is out of range"
#define ERR_DECR_OVERFLOW "ERR decrement would overflow"
#define ERR_NAN_INF "ERR increment would produce NaN or Infinity"

/* ---- value helpers ------------------------------------------------------------------------ */

static struct store_shard *key_shard(struct cmd_call *c, const struct resp_slice *key)
{
    return cmd_shard(c, key->p, key->len);
}

/* Replies the error for a failed read of key's value: CORRUPT for a checksum or structure
 * failure (the one place it is counted), the status text otherwise. */
static void reply_read_error(struct cmd_call *c, const struct resp_slice *key, int st)
{
    if (st == TERSE_ECORRUPT || st == TERSE_EDSTSIZE || st == TERSE_ELENGTH) {
        cmd_reply_corrupt(c, key->p, key->len);
    } else {
        cmd_reply_status(c, st);
    }
}

/* The original length of e (header only). Replies the error itself on failure. */
static int value_len_or_reply(struct cmd_call *c, const struct store_entry *e,
                              const struct resp_slice *key, size_t *len)
{
    int st = cmd_value_len(c, e, len);

    if (st != TERSE_OK) {
        reply_read_error(c, key, st);
    }
    return st;
}

/*
 * Decodes e into srv->scratch, reserved for at least cap bytes (cap >= the value's length,
 * from value_len_or_reply), so the caller can grow the value in place. *p is valid until the
 * next scratch reserve. Replies the error itself on failure.
 */
static int value_decode_or_reply(struct cmd_call *c, const struct store_entry *e,
                                 const struct resp_slice *key, size_t cap, uint8_t **p,
                                 size_t *len)
{
    const uint8_t *stored;
    size_t stored_len = 0;
    int st;

    st = cmd_scratch_reserve(c->srv, cap < LL_STR_CAP ? LL_STR_CAP : cap);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return st;
    }
    *p = c->srv->scratch;
    if (store_entry_enc(e) == STORE_ENC_INT) {
        *len = cmd_format_ll((char *)*p, store_entry_int(e));
        return TERSE_OK;
    }
    stored = store_entry_val(e, &stored_len);
    st = codec_value_decode(c->srv->codec, stored, stored_len, *p, c->srv->scratch_cap, len);
    if (st != TERSE_OK) {
        reply_read_error(c, key, st);
    }
    return st;
}

/* Replies e's value (decoding straight into the reply). Returns 1 when the value was sent,
 * 0 when an error (corruption, a dead connection) was written instead. */
static int reply_value_sent(struct cmd_call *c, const struct store_entry *e,
                            const struct resp_slice *key)
{
    size_t mark = c->out->len;

    cmd_reply_value(c, e, key);
    return !c->out->err && c->out->len > mark && c->out->p[mark] != '-';
}

/* Redis's checkStringLength: may a value of size bytes grow by append bytes? Replies the
 * error itself when not. */
static int length_ok_or_reply(struct cmd_call *c, unsigned long long size,
                              unsigned long long append)
{
    long long max = c->srv->settings.proto_max_bulk_len;
    unsigned long long total = size + append;

    if (max > 0 && (total < size || total > (unsigned long long)max)) {
        cmd_reply_err(c, CMD_ERR_STRING_TOO_LONG);
        return TERSE_ETOOBIG;
    }
    return TERSE_OK;
}

/* ---- GET, MGET, STRLEN, GETRANGE --------------------------------------------------------- */

static void str_get(struct cmd_call *c)
{
    int replied = 0;
    struct store_entry *e = cmd_lookup_read(c, &c->argv[1], &replied);

    if (replied) {
        return;
    }
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    cmd_reply_value(c, e, &c->argv[1]);
}

static void str_mget(struct cmd_call *c)
{
    resp_write_array(c->out, c->argc - 1);
    for (size_t i = 1; i < c->argc; i++) {
        size_t mark = c->out->len;
        int replied = 0;
        struct store_entry *e = cmd_lookup_read(c, &c->argv[i], &replied);

        if (replied) {
            /* MGET answers nil for a key of another type, not WRONGTYPE. */
            c->out->len = mark;
            e = NULL;
        }
        if (e == NULL) {
            resp_write_null(c->out);
        } else {
            cmd_reply_value(c, e, &c->argv[i]);
        }
    }
}

static void str_strlen(struct cmd_call *c)
{
    int replied = 0;
    size_t len = 0;
    struct store_entry *e = cmd_lookup_read(c, &c->argv[1], &replied);

    if (replied) {
        return;
    }
    if (e != NULL && value_len_or_reply(c, e, &c->argv[1], &len) != TERSE_OK) {
        return;
    }
    resp_write_int(c->out, (long long)len);
}

/* GETRANGE and SUBSTR: negative indexes count from the end, both ends inclusive. */
static void str_getrange(struct cmd_call *c)
{
    long long start, end, n;
    size_t len = 0, got = 0;
    uint8_t *p;
    int replied = 0;
    struct store_entry *e;

    if (cmd_ll_or_reply(c, 2, &start, CMD_ERR_NOT_INT) != 0 ||
        cmd_ll_or_reply(c, 3, &end, CMD_ERR_NOT_INT) != 0) {
        return;
    }
    e = cmd_lookup_read(c, &c->argv[1], &replied);
    if (replied) {
        return;
    }
    if (e == NULL) {
        resp_write_bulk(c->out, "", 0);
        return;
    }
    if (value_len_or_reply(c, e, &c->argv[1], &len) != TERSE_OK) {
        return;
    }
    n = (long long)len;
    if (start < 0 && end < 0 && start > end) {
        resp_write_bulk(c->out, "", 0);
        return;
    }
    start = start < 0 ? (start + n < 0 ? 0 : start + n) : start;
    end = end < 0 ? (end + n < 0 ? 0 : end + n) : end;
    if (end >= n) {
        end = n - 1;
    }
    if (n == 0 || start > end) {
        resp_write_bulk(c->out, "", 0);
        return;
    }
    if (value_decode_or_reply(c, e, &c->argv[1], len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == len);
    resp_write_bulk(c->out, p + start, (size_t)(end - start + 1));
}

/* ---- SET family ---------------------------------------------------------------------------- */

enum set_flag {
    SET_NX = 1 << 0,
    SET_XX = 1 << 1,
    SET_GET = 1 << 2,
    SET_KEEPTTL = 1 << 3,
    SET_PERSIST = 1 << 4, /* GETEX only */
    SET_EX = 1 << 5,
    SET_PX = 1 << 6,
    SET_EXAT = 1 << 7,
    SET_PXAT = 1 << 8
};

#define SET_ANY_EXPIRE (SET_EX | SET_PX | SET_EXAT | SET_PXAT)

enum set_cmd { FOR_SET = 1, FOR_GETEX = 2 };

/* The options SET and GETEX take: which command accepts each, and which options already seen
 * make it a syntax error (Redis accepts a repeated option; the last expire value wins). */
static const struct set_opt {
    const char *name;
    unsigned flag;
    unsigned conflicts;
    unsigned cmds;  /* enum set_cmd */
    int takes_arg;
} set_opts[] = {
    {"nx", SET_NX, SET_XX, FOR_SET, 0},
    {"xx", SET_XX, SET_NX, FOR_SET, 0},
    {"get", SET_GET, 0, FOR_SET, 0},
    {"keepttl", SET_KEEPTTL, SET_PERSIST | SET_ANY_EXPIRE, FOR_SET, 0},
    {"persist", SET_PERSIST, SET_KEEPTTL | SET_ANY_EXPIRE, FOR_GETEX, 0},
    {"ex", SET_EX, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_EX), FOR_SET | FOR_GETEX, 1},
    {"px", SET_PX, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_PX), FOR_SET | FOR_GETEX, 1},
    {"exat", SET_EXAT, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_EXAT),
     FOR_SET | FOR_GETEX, 1},
    {"pxat", SET_PXAT, SET_KEEPTTL | SET_PERSIST | (SET_ANY_EXPIRE & ~SET_PXAT),
     FOR_SET | FOR_GETEX, 1},
};

struct set_args {
    unsigned flags;     /* enum set_flag */
    size_t expire_argi; /* argument holding the expire time; 0 when none */
    const char *name;   /* command name for "invalid expire time in '<name>' command" */
};

/* Parses options argv[first..argc) as Redis's parseExtendedStringArgumentsOrReply. */
static int set_args_parse_or_reply(struct cmd_call *c, size_t first, unsigned cmd,
                                   struct set_args *a)
{
    for (size_t i = first; i < c->argc; i++) {
        const struct set_opt *o = NULL;

        for (size_t k = 0; k < sizeof(set_opts) / sizeof(set_opts[0]); k++) {
            if (cmd_arg_is(c, i, set_opts[k].name)) {
                o = &set_opts[k];
                break;
            }
        }
        if (o == NULL || !(o->cmds & cmd) || (a->flags & o->conflicts) ||
            (o->takes_arg && i + 1 >= c->argc)) {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return TERSE_EINVAL;
        }
        a->flags |= o->flag;
        if (o->takes_arg) {
            a->expire_argi = ++i;
        }
    }
    return TERSE_OK;
}

/* The absolute expiry (unix ms) the options ask for, as Redis's getExpireMillisecondsOrReply:
 * the time must be positive and must not overflow once scaled and offset by now. */
static int expire_ms_or_reply(struct cmd_call *c, const struct set_args *a, int64_t *out)
{
    long long v;
    int secs = (a->flags & (SET_EX | SET_EXAT)) != 0;

    if (cmd_ll_or_reply(c, a->expire_argi, &v, CMD_ERR_NOT_INT) != 0) {
        return TERSE_EINVAL;
    }
    if (v <= 0 || (secs && v > LLONG_MAX / 1000)) {
        goto invalid;
    }
    if (secs) {
        v *= 1000;
    }
    if (a->flags & (SET_EX | SET_PX)) {
        if (v > LLONG_MAX - c->now_ms) {
            goto invalid;
        }
        v += c->now_ms;
    }
    *out = v;
    return TERSE_OK;
invalid:
    resp_write_errorf(c->out, "ERR invalid expire time in '%s' command", a->name);
    return TERSE_EINVAL;
}

/*
 * SET and its variants. int_reply: SETNX's :1/:0 instead of +OK/nil. An expire time in the
 * past is stored as given: the key is gone at its next lookup, as in Redis 7.0.
 */
static void set_generic(struct cmd_call *c, const struct resp_slice *key,
                        const struct resp_slice *val, const struct set_args *a, int int_reply)
{
    int64_t expire_ms = STORE_NO_EXPIRE;
    struct store_entry *e;
    size_t mark = c->out->len;
    int replied = 0, st;

    if (a->expire_argi != 0 && expire_ms_or_reply(c, a, &expire_ms) != TERSE_OK) {
        return;
    }
    if (a->flags & SET_KEEPTTL) {
        expire_ms = STORE_KEEP_TTL;
    }
    if (a->flags & SET_GET) {
        e = cmd_lookup_read(c, key, &replied);
        if (replied) {
            return;
        }
        if (e == NULL) {
            resp_write_null(c->out);
        } else if (!reply_value_sent(c, e, key)) {
            return;
        }
    } else {
        e = cmd_lookup_write(c, key, &replied);
        if (replied) {
            return;
        }
    }
    if (((a->flags & SET_NX) && e != NULL) || ((a->flags & SET_XX) && e == NULL)) {
        if (int_reply) {
            resp_write_int(c->out, 0);
        } else if (!(a->flags & SET_GET)) {
            resp_write_null(c->out);
        }
        return;
    }
    st = cmd_value_set(c, key, val->p, val->len, expire_ms);
    if (st != TERSE_OK) {
        /* The old value may already be in the reply (GET): take it back so the client sees
         * the error alone. Nothing else was written since mark. */
        c->out->len = mark;
        cmd_reply_status(c, st);
        return;
    }
    if (int_reply) {
        resp_write_int(c->out, 1);
    } else if (!(a->flags & SET_GET)) {
        resp_write_ok(c->out);
    }
}

static void str_set(struct cmd_call *c)
{
    struct set_args a = {0, 0, "set"};

    if (set_args_parse_or_reply(c, 3, FOR_SET, &a) != TERSE_OK) {
        return;
    }
    set_generic(c, &c->argv[1], &c->argv[2], &a, 0);
}

static void str_setnx(struct cmd_call *c)
{
    struct set_args a = {SET_NX, 0, "setnx"};

    set_generic(c, &c->argv[1], &c->argv[2], &a, 1);
}

static void str_setex(struct cmd_call *c)
{
    struct set_args a = {SET_EX, 2, "setex"};

    set_generic(c, &c->argv[1], &c->argv[3], &a, 0);
}

static void str_psetex(struct cmd_call *c)
{
    struct set_args a = {SET_PX, 2, "psetex"};

    set_generic(c, &c->argv[1], &c->argv[3], &a, 0);
}

static void str_getset(struct cmd_call *c)
{
    struct set_args a = {SET_GET, 0, "getset"};

    set_generic(c, &c->argv[1], &c->argv[2], &a, 0);
}

static void str_getdel(struct cmd_call *c)
{
    int replied = 0;
    struct store_entry *e = cmd_lookup_read(c, &c->argv[1], &replied);

    if (replied) {
        return;
    }
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    if (reply_value_sent(c, e, &c->argv[1])) {
        (void)store_delete(key_shard(c, &c->argv[1]), c->cl->db, c->argv[1].p, c->argv[1].len,
                           c->now_ms);
    }
}

/* GETEX: the value, then the expiry change. EXAT/PXAT at or before now deletes the key. */
static void str_getex(struct cmd_call *c)
{
    struct set_args a = {0, 0, "getex"};
    const struct resp_slice *key = &c->argv[1];
    struct store_shard *s = key_shard(c, key);
    int64_t when_ms = STORE_NO_EXPIRE;
    struct store_entry *e;
    int replied = 0;

    if (set_args_parse_or_reply(c, 2, FOR_GETEX, &a) != TERSE_OK) {
        return;
    }
    e = cmd_lookup_read(c, key, &replied);
    if (replied) {
        return;
    }
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    if (a.expire_argi != 0 && expire_ms_or_reply(c, &a, &when_ms) != TERSE_OK) {
        return;
    }
    if (!reply_value_sent(c, e, key)) {
        return;
    }
    if ((a.flags & (SET_EXAT | SET_PXAT)) && when_ms <= c->now_ms) {
        (void)store_delete(s, c->cl->db, key->p, key->len, c->now_ms);
    } else if (a.expire_argi != 0) {
        (void)store_expire_set(s, c->cl->db, key->p, key->len, when_ms, c->now_ms);
    } else if (a.flags & SET_PERSIST) {
        (void)store_expire_set(s, c->cl->db, key->p, key->len, STORE_NO_EXPIRE, c->now_ms);
    }
}

/* MSET and MSETNX: the pairs count must be whole (the table's arity only says "at least"). */
static int pairs_ok_or_reply(struct cmd_call *c, const char *name)
{
    if (c->argc % 2 == 0) {
        resp_write_errorf(c->out, "ERR wrong number of arguments for '%s' command", name);
        return TERSE_EINVAL;
    }
    return TERSE_OK;
}

static int mset_pairs(struct cmd_call *c)
{
    for (size_t i = 1; i + 1 < c->argc; i += 2) {
        int st = cmd_value_set(c, &c->argv[i], c->argv[i + 1].p, c->argv[i + 1].len,
                               STORE_NO_EXPIRE);
        if (st != TERSE_OK) {
            cmd_reply_status(c, st);
            return st;
        }
    }
    return TERSE_OK;
}

static void str_mset(struct cmd_call *c)
{
    if (pairs_ok_or_reply(c, "mset") != TERSE_OK || mset_pairs(c) != TERSE_OK) {
        return;
    }
    resp_write_ok(c->out);
}

static void str_msetnx(struct cmd_call *c)
{
    if (pairs_ok_or_reply(c, "msetnx") != TERSE_OK) {
        return;
    }
    for (size_t i = 1; i < c->argc; i += 2) {
        if (cmd_lookup_write(c, &c->argv[i], NULL) != NULL) {
            resp_write_int(c->out, 0);
            return;
        }
    }
    if (mset_pairs(c) != TERSE_OK) {
        return;
    }
    resp_write_int(c->out, 1);
}

/* ---- APPEND, SETRANGE -------------------------------------------------------------------- */

static void str_append(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1], *add = &c->argv[2];
    size_t olen = 0, got = 0;
    uint8_t *p;
    int replied = 0, st;
    struct store_entry *e = cmd_lookup_write(c, key, &replied);

    if (replied) {
        return;
    }
    if (e == NULL) {
        st = cmd_value_set(c, key, add->p, add->len, STORE_NO_EXPIRE);
        if (st != TERSE_OK) {
            cmd_reply_status(c, st);
            return;
        }
        resp_write_int(c->out, (long long)add->len);
        return;
    }
    if (value_len_or_reply(c, e, key, &olen) != TERSE_OK ||
        length_ok_or_reply(c, olen, add->len) != TERSE_OK ||
        value_decode_or_reply(c, e, key, olen + add->len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == olen);
    memcpy(p + olen, add->p, add->len);
    st = cmd_value_store(c, c->cl->db, key, p, olen + add->len, STORE_KEEP_TTL, CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_int(c->out, (long long)(olen + add->len));
}

static void str_setrange(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1], *val = &c->argv[3];
    long long offset;
    size_t olen = 0, got = 0, nlen, off;
    uint8_t *p;
    int replied = 0, st;
    struct store_entry *e;

    if (cmd_ll_or_reply(c, 2, &offset, CMD_ERR_NOT_INT) != 0) {
        return;
    }
    if (offset < 0) {
        cmd_reply_err(c, ERR_OFFSET_RANGE);
        return;
    }
    e = cmd_lookup_write(c, key, &replied);
    if (replied) {
        return;
    }
    if (e != NULL && value_len_or_reply(c, e, key, &olen) != TERSE_OK) {
        return;
    }
    if (val->len == 0) {
        /* Nothing to write: a missing key stays missing. */
        resp_write_int(c->out, (long long)olen);
        return;
    }
    if (length_ok_or_reply(c, (unsigned long long)offset, val->len) != TERSE_OK) {
        return;
    }
    off = (size_t)offset;
    nlen = off + val->len > olen ? off + val->len : olen;
    if (e != NULL) {
        if (value_decode_or_reply(c, e, key, nlen, &p, &got) != TERSE_OK) {
            return;
        }
        assert(got == olen);
    } else {
        st = cmd_scratch_reserve(c->srv, nlen);
        if (st != TERSE_OK) {
            cmd_reply_status(c, st);
            return;
        }
        p = c->srv->scratch;
    }
    if (off > olen) {
        memset(p + olen, 0, off - olen);
    }
    memcpy(p + off, val->p, val->len);
    st = cmd_value_store(c, c->cl->db, key, p, nlen, e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE,
                         CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_int(c->out, (long long)nlen);
}

/* ---- SETBIT, GETBIT ---------------------------------------------------------------------- */

#define ERR_BIT_OFFSET "ERR bit offset is not an integer or out of range"
#define ERR_BIT_VALUE "ERR bit is not an integer or out of range"

/* Redis's getBitOffsetFromArgument (no '#' form): 0 <= offset, offset / 8 below
 * proto-max-bulk-len (0: no bound). Replies the error itself. */
static int bit_offset_or_reply(struct cmd_call *c, size_t argi, uint64_t *offset)
{
    long long max = c->srv->settings.proto_max_bulk_len;
    long long v;

    if (cmd_ll_or_reply(c, argi, &v, ERR_BIT_OFFSET) != 0) {
        return TERSE_EINVAL;
    }
    if (v < 0 || (max > 0 && ((unsigned long long)v >> 3) >= (unsigned long long)max)) {
        cmd_reply_err(c, ERR_BIT_OFFSET);
        return TERSE_EINVAL;
    }
    *offset = (uint64_t)v;
    return TERSE_OK;
}

/* SETBIT: the old bit. The value grows with zero bytes to reach the offset; an existing key
 * keeps its TTL and, as Redis's dbUnshareStringValue leaves it, is stored raw. */
static void str_setbit(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1];
    uint64_t offset;
    long long on;
    size_t olen = 0, got = 0, byte, nlen;
    uint8_t *p, mask;
    int replied = 0, st, old;
    struct store_entry *e;

    if (bit_offset_or_reply(c, 2, &offset) != TERSE_OK ||
        cmd_ll_or_reply(c, 3, &on, ERR_BIT_VALUE) != 0) {
        return;
    }
    if (on & ~1LL) {
        cmd_reply_err(c, ERR_BIT_VALUE);
        return;
    }
    e = cmd_lookup_write(c, key, &replied);
    if (replied) {
        return;
    }
    byte = (size_t)(offset >> 3);
    if (e != NULL && value_len_or_reply(c, e, key, &olen) != TERSE_OK) {
        return;
    }
    nlen = byte + 1 > olen ? byte + 1 : olen;
    if (e != NULL) {
        if (value_decode_or_reply(c, e, key, nlen, &p, &got) != TERSE_OK) {
            return;
        }
        assert(got == olen);
    } else {
        st = cmd_scratch_reserve(c->srv, nlen);
        if (st != TERSE_OK) {
            cmd_reply_status(c, st);
            return;
        }
        p = c->srv->scratch;
    }
    if (nlen > olen) {
        memset(p + olen, 0, nlen - olen);
    }
    mask = (uint8_t)(1u << (7 - (offset & 7)));
    old = (p[byte] & mask) != 0;
    p[byte] = on ? (uint8_t)(p[byte] | mask) : (uint8_t)(p[byte] & ~mask);
    st = cmd_value_store(c, c->cl->db, key, p, nlen, e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE,
                         CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_int(c->out, old);
}

/* GETBIT: 0 past the end of the value or for a missing key. */
static void str_getbit(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1];
    uint64_t offset;
    size_t len = 0, got = 0, byte;
    uint8_t *p;
    int replied = 0;
    struct store_entry *e;

    if (bit_offset_or_reply(c, 2, &offset) != TERSE_OK) {
        return;
    }
    e = cmd_lookup_read(c, key, &replied);
    if (replied) {
        return;
    }
    byte = (size_t)(offset >> 3);
    if (e == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    if (value_len_or_reply(c, e, key, &len) != TERSE_OK) {
        return;
    }
    if (byte >= len) {
        resp_write_int(c->out, 0);
        return;
    }
    if (value_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == len);
    resp_write_int(c->out, (p[byte] >> (7 - (offset & 7))) & 1);
}

/* ---- INCR family ------------------------------------------------------------------------- */

/* cmd_parse_ld, rejecting an embedded NUL: strtold stops there and would take "1\0x" for 1,
 * where Redis's string2ld requires the whole slice to be consumed. */
static int parse_ld_whole(const uint8_t *p, size_t len, long double *v)
{
    return memchr(p, '\0', len) == NULL && cmd_parse_ld(p, len, v);
}

/* The integer held by e, as Redis's getLongLongFromObjectOrReply. */
static int entry_ll_or_reply(struct cmd_call *c, const struct store_entry *e,
                             const struct resp_slice *key, long long *v)
{
    size_t len = 0, got = 0;
    uint8_t *p;

    if (store_entry_enc(e) == STORE_ENC_INT) {
        *v = store_entry_int(e);
        return TERSE_OK;
    }
    if (value_len_or_reply(c, e, key, &len) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (len > LL_STR_CAP) {
        /* Too long to be an integer: no need to decode it. */
        cmd_reply_err(c, CMD_ERR_NOT_INT);
        return TERSE_EINVAL;
    }
    if (value_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (!cmd_parse_ll(p, got, v)) {
        cmd_reply_err(c, CMD_ERR_NOT_INT);
        return TERSE_EINVAL;
    }
    return TERSE_OK;
}

static void incr_generic(struct cmd_call *c, long long incr)
{
    const struct resp_slice *key = &c->argv[1];
    long long v = 0;
    int replied = 0, st;
    struct store_entry *e = cmd_lookup_write(c, key, &replied);

    if (replied) {
        return;
    }
    if (e != NULL && entry_ll_or_reply(c, e, key, &v) != TERSE_OK) {
        return;
    }
    if ((incr < 0 && v < 0 && incr < LLONG_MIN - v) ||
        (incr > 0 && v > 0 && incr > LLONG_MAX - v)) {
        cmd_reply_err(c, CMD_ERR_OVERFLOW);
        return;
    }
    v += incr;
    st = store_set_int(key_shard(c, key), c->cl->db, key->p, key->len, v,
                       e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE, c->now_ms);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_int(c->out, v);
}

static void str_incr(struct cmd_call *c)
{
    incr_generic(c, 1);
}

static void str_decr(struct cmd_call *c)
{
    incr_generic(c, -1);
}

static void str_incrby(struct cmd_call *c)
{
    long long incr;

    if (cmd_ll_or_reply(c, 2, &incr, CMD_ERR_NOT_INT) != 0) {
        return;
    }
    incr_generic(c, incr);
}

static void str_decrby(struct cmd_call *c)
{
    long long decr;

    if (cmd_ll_or_reply(c, 2, &decr, CMD_ERR_NOT_INT) != 0) {
        return;
    }
    if (decr == LLONG_MIN) {
        cmd_reply_err(c, ERR_DECR_OVERFLOW);
        return;
    }
    incr_generic(c, -decr);
}

/* INCRBYFLOAT stores the formatted result (a string; an integral one is held as an int). */
static void str_incrbyfloat(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1];
    char buf[CMD_LD_STR_MAX];
    long double v = 0, incr;
    size_t len = 0, got = 0, n;
    uint8_t *p;
    int replied = 0, st;
    struct store_entry *e = cmd_lookup_write(c, key, &replied);

    if (replied) {
        return;
    }
    if (e != NULL && store_entry_enc(e) == STORE_ENC_INT) {
        v = (long double)store_entry_int(e);
    } else if (e != NULL) {
        if (value_len_or_reply(c, e, key, &len) != TERSE_OK) {
            return;
        }
        if (len >= CMD_LD_STR_MAX) {
            cmd_reply_err(c, CMD_ERR_NOT_FLOAT);
            return;
        }
        if (value_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
            return;
        }
        if (!parse_ld_whole(p, got, &v)) {
            cmd_reply_err(c, CMD_ERR_NOT_FLOAT);
            return;
        }
    }
    if (!parse_ld_whole(c->argv[2].p, c->argv[2].len, &incr)) {
        cmd_reply_err(c, CMD_ERR_NOT_FLOAT);
        return;
    }
    v += incr;
    if (isnan(v) || isinf(v)) {
        cmd_reply_err(c, ERR_NAN_INF);
        return;
    }
    n = cmd_format_ld(buf, sizeof(buf), v);
    st = cmd_value_set(c, key, (const uint8_t *)buf, n,
                       e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_bulk(c->out, buf, n);
}

/* ---- the table --------------------------------------------------------------------------- */

#define ACL_RF "@read @string @fast"
#define ACL_RS "@read @string @slow"
#define ACL_WF "@write @string @fast"
#define ACL_WS "@write @string @slow"
#define W_OOM (CMD_WRITE | CMD_DENYOOM)

const struct cmd_def cmd_string_defs[] = {
    {"get", 2, CMD_READONLY | CMD_FAST, 1, 1, 1, str_get, ACL_RF, "Get the value of a key",
     "1.0.0", "string", NULL},
    {"set", -3, W_OOM, 1, 1, 1, str_set, ACL_WS, "Set the string value of a key", "1.0.0",
     "string", NULL},
    {"setnx", 3, W_OOM | CMD_FAST, 1, 1, 1, str_setnx, ACL_WF,
     "Set the value of a key, only if the key does not exist", "1.0.0", "string", NULL},
    {"setex", 4, W_OOM, 1, 1, 1, str_setex, ACL_WS, "Set the value and expiration of a key",
     "2.0.0", "string", NULL},
    {"psetex", 4, W_OOM, 1, 1, 1, str_psetex, ACL_WS,
     "Set the value and expiration in milliseconds of a key", "2.6.0", "string", NULL},
    {"getset", 3, W_OOM | CMD_FAST, 1, 1, 1, str_getset, ACL_WF,
     "Set the string value of a key and return its old value", "1.0.0", "string", NULL},
    {"getdel", 2, CMD_WRITE | CMD_FAST, 1, 1, 1, str_getdel, ACL_WF,
     "Get the value of a key and delete the key", "6.2.0", "string", NULL},
    {"getex", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, str_getex, ACL_WF,
     "Get the value of a key and optionally set its expiration", "6.2.0", "string", NULL},
    {"mget", -2, CMD_READONLY | CMD_FAST, 1, -1, 1, str_mget, ACL_RF,
     "Get the values of all the given keys", "1.0.0", "string", NULL},
    {"mset", -3, W_OOM, 1, -1, 2, str_mset, ACL_WS, "Set multiple keys to multiple values",
     "1.0.1", "string", NULL},
    {"msetnx", -3, W_OOM, 1, -1, 2, str_msetnx, ACL_WS,
     "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "string",
     NULL},
    {"append", 3, W_OOM | CMD_FAST, 1, 1, 1, str_append, ACL_WF, "Append a value to a key",
     "2.0.0", "string", NULL},
    {"strlen", 2, CMD_READONLY | CMD_FAST, 1, 1, 1, str_strlen, ACL_RF,
     "Get the length of the value stored in a key", "2.2.0", "string", NULL},
    {"getrange", 4, CMD_READONLY, 1, 1, 1, str_getrange, ACL_RS,
     "Get a substring of the string stored at a key", "2.4.0", "string", NULL},
    {"substr", 4, CMD_READONLY, 1, 1, 1, str_getrange, ACL_RS,
     "Get a substring of the string stored at a key", "1.0.0", "string", NULL},
    {"setrange", 4, W_OOM, 1, 1, 1, str_setrange, ACL_WS,
     "Overwrite part of a string at key starting at the specified offset", "2.2.0", "string",
     NULL},
    {"setbit", 4, W_OOM, 1, 1, 1, str_setbit, "@write @bitmap @slow",
     "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "bitmap",
     NULL},
    {"getbit", 3, CMD_READONLY | CMD_FAST, 1, 1, 1, str_getbit, "@read @bitmap @fast",
     "Returns the bit value at offset in the string value stored at key", "2.2.0", "bitmap",
     NULL},
    {"incr", 2, W_OOM | CMD_FAST, 1, 1, 1, str_incr, ACL_WF,
     "Increment the integer value of a key by one", "1.0.0", "string", NULL},
    {"decr", 2, W_OOM | CMD_FAST, 1, 1, 1, str_decr, ACL_WF,
     "Decrement the integer value of a key by one", "1.0.0", "string", NULL},
    {"incrby", 3, W_OOM | CMD_FAST, 1, 1, 1, str_incrby, ACL_WF,
     "Increment the integer value of a key by the given amount", "1.0.0", "string", NULL},
    {"decrby", 3, W_OOM | CMD_FAST, 1, 1, 1, str_decrby, ACL_WF,
     "Decrement the integer value of a key by the given number", "1.0.0", "string", NULL},
    {"incrbyfloat", 3, W_OOM | CMD_FAST, 1, 1, 1, str_incrbyfloat, ACL_WF,
     "Increment the float value of a key by the given amount", "2.6.0", "string", NULL},
    {"lcs", -3, CMD_READONLY, 1, 2, 1, cmd_lcs_proc, ACL_RS, "Find longest common substring",
     "7.0.0", "string", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
