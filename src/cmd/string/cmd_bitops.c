/*
 * cmd_bitops: the bitmap commands over string values, BITCOUNT, BITPOS and BITOP, with Redis
 * 7.0's syntax, replies and error texts (SETBIT and GETBIT are in cmd_strmod.c, BITFIELD in
 * cmd_bitfield.c). Bits are numbered from the most significant bit of the first byte, as in
 * Redis. A value is decoded into the server's scratch buffer (cmd_string_decode_or_reply),
 * whatever its codec; BITOP builds its result in scratch3 and decodes each source in turn
 * into scratch (the store encodes through scratch2). The buffers are the server's, reused from
 * command to command.
 */
#include <stdint.h>
#include <string.h>

#include "cmd/string/cmd_bitops.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"
#include "cmd/string/cmd_bitfield.h"

/* The string value of key for reading: 1 with *p (scratch) and *len set, 0 when the key is
 * missing (nothing replied), -1 when an error (WRONGTYPE, a read failure) was replied. */
static int read_value(struct cmd_call *c, const struct resp_slice *key, uint8_t **p, size_t *len)
{
    int replied = 0;
    size_t got = 0;
    const struct store_entry *e = cmd_lookup_read_type(c, key, STORE_TYPE_STRING, &replied);

    if (replied) {
        return -1;
    }
    if (e == NULL) {
        return 0;
    }
    if (cmd_string_len_or_reply(c, e, key, len) != TERSE_OK ||
        cmd_string_decode_or_reply(c, e, key, *len, p, &got) != TERSE_OK) {
        return -1;
    }
    return 1;
}

static uint64_t popcount(const uint8_t *p, size_t n)
{
    uint64_t count = 0;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        count += (uint64_t)__builtin_popcountll(w);
    }
    for (; i < n; i++) {
        count += (uint64_t)__builtin_popcount(p[i]);
    }
    return count;
}

/* The range arguments of BITCOUNT and BITPOS as Redis normalises them: negative indexes from
 * the end, clamped into the value; in bits when bit, else in bytes. Sets *lo and *hi (hi < lo:
 * an empty range). */
static void normalise(long long *lo, long long *hi, long long total)
{
    if (*lo < 0) {
        *lo += total;
    }
    if (*hi < 0) {
        *hi += total;
    }
    if (*lo < 0) {
        *lo = 0;
    }
    if (*hi < 0) {
        *hi = 0;
    }
    if (*hi >= total) {
        *hi = total - 1;
    }
}

/* The BYTE|BIT argument at argv[i]: 0 or 1, or -1 after replying a syntax error. */
static int unit_or_reply(struct cmd_call *c, size_t i)
{
    if (cmd_arg_is(c, i, "bit")) {
        return 1;
    }
    if (cmd_arg_is(c, i, "byte")) {
        return 0;
    }
    cmd_reply_err(c, CMD_ERR_SYNTAX);
    return -1;
}

static int bit_at(const uint8_t *p, uint64_t i)
{
    return (p[i >> 3] >> (7 - (i & 7))) & 1;
}

/* Bits set in bits [lo, hi] of p. */
static uint64_t count_bits(const uint8_t *p, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;

    while (lo <= hi && (lo & 7) != 0) {
        n += (uint64_t)bit_at(p, lo++);
    }
    if (lo + 7 <= hi) {
        uint64_t bytes = (hi + 1 - lo) >> 3;
        n += popcount(p + (lo >> 3), (size_t)bytes);
        lo += bytes << 3;
    }
    while (lo <= hi) {
        n += (uint64_t)bit_at(p, lo++);
    }
    return n;
}

/* BITCOUNT key [start end [BYTE|BIT]] */
static void cmd_bitcount(struct cmd_call *c)
{
    long long lo, hi, total;
    uint8_t *p = NULL;
    size_t len = 0;
    int bit = 0, r = read_value(c, &c->argv[1], &p, &len);

    if (r <= 0) {
        if (r == 0) {
            resp_write_int(c->out, 0); /* a missing key counts no bit, whatever the range */
        }
        return;
    }
    if (c->argc == 2) {
        resp_write_int(c->out, (long long)popcount(p, len));
        return;
    }
    if (c->argc != 4 && c->argc != 5) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (cmd_ll_or_reply(c, 2, &lo, NULL) != 0 || cmd_ll_or_reply(c, 3, &hi, NULL) != 0) {
        return;
    }
    if (lo < 0 && hi < 0 && lo > hi) {
        resp_write_int(c->out, 0);
        return;
    }
    if (c->argc == 5 && (bit = unit_or_reply(c, 4)) < 0) {
        return;
    }
    total = bit ? (long long)len * 8 : (long long)len;
    normalise(&lo, &hi, total);
    if (lo > hi) {
        resp_write_int(c->out, 0);
        return;
    }
    if (!bit) {
        lo *= 8;
        hi = hi * 8 + 7;
    }
    resp_write_int(c->out, (long long)count_bits(p, (uint64_t)lo, (uint64_t)hi));
}

/* The first bit equal to want in bits [lo, hi] of p, or -1. */
static long long find_bit(const uint8_t *p, uint64_t lo, uint64_t hi, int want)
{
    uint8_t skip = want ? 0x00 : 0xff;

    while (lo <= hi && (lo & 7) != 0) {
        if (bit_at(p, lo) == want) {
            return (long long)lo;
        }
        lo++;
    }
    while (lo + 7 <= hi && p[lo >> 3] == skip) {
        lo += 8;
    }
    for (; lo <= hi; lo++) {
        if (bit_at(p, lo) == want) {
            return (long long)lo;
        }
    }
    return -1;
}

/* BITPOS key bit [start [end [BYTE|BIT]]] */
static void cmd_bitpos(struct cmd_call *c)
{
    long long want, lo = 0, hi, total, pos;
    uint8_t *p = NULL;
    size_t len = 0;
    int bit = 0, end_given = c->argc >= 5, r;

    if (cmd_ll_or_reply(c, 2, &want, NULL) != 0) {
        return;
    }
    if (want != 0 && want != 1) {
        cmd_reply_err(c, "ERR The bit argument must be 1 or 0.");
        return;
    }
    r = read_value(c, &c->argv[1], &p, &len);
    if (r <= 0) {
        if (r == 0) {
            resp_write_int(c->out, want ? -1 : 0); /* a missing key: endless zero bits */
        }
        return;
    }
    if (c->argc > 6) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc >= 4 && cmd_ll_or_reply(c, 3, &lo, NULL) != 0) {
        return;
    }
    if (c->argc == 6 && (bit = unit_or_reply(c, 5)) < 0) {
        return;
    }
    if (end_given && cmd_ll_or_reply(c, 4, &hi, NULL) != 0) {
        return;
    }
    total = bit ? (long long)len * 8 : (long long)len;
    if (!end_given) {
        hi = total - 1;
    }
    normalise(&lo, &hi, total);
    if (lo > hi) {
        resp_write_int(c->out, -1);
        return;
    }
    if (!bit) {
        lo *= 8;
        hi = hi * 8 + 7;
    }
    pos = find_bit(p, (uint64_t)lo, (uint64_t)hi, (int)want);
    if (pos < 0 && want == 0 && !end_given) {
        /* Looking for a clear bit with no end: the value continues with zero bits. */
        pos = hi + 1;
    }
    resp_write_int(c->out, pos);
}

enum bitop { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

/* BITOP AND|OR|XOR|NOT destkey key [key ...]: the result, as long as the longest source (a
 * shorter one counts as zero bytes past its end), stored at destkey; an empty one deletes it. */
static void cmd_bitop(struct cmd_call *c)
{
    static const char *const names[] = {"and", "or", "xor", "not"};
    const struct resp_slice *dest = &c->argv[2];
    size_t n_src = c->argc - 3, maxlen = 0;
    enum bitop op = BITOP_AND;
    int st, found = 0;

    for (size_t k = 0; k < 4; k++) {
        if (cmd_arg_is(c, 1, names[k])) {
            op = (enum bitop)k;
            found = 1;
        }
    }
    if (!found) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (op == BITOP_NOT && n_src != 1) {
        cmd_reply_err(c, "ERR BITOP NOT must be called with a single source key.");
        return;
    }
    /* First pass: types and the result's length (every source checked before any write). */
    for (size_t k = 0; k < n_src; k++) {
        int replied = 0;
        size_t len = 0;
        const struct store_entry *e =
            cmd_lookup_read_type(c, &c->argv[3 + k], STORE_TYPE_STRING, &replied);
        if (replied) {
            return;
        }
        if (e != NULL && cmd_string_len_or_reply(c, e, &c->argv[3 + k], &len) != TERSE_OK) {
            return;
        }
        maxlen = len > maxlen ? len : maxlen;
    }
    if (maxlen == 0) {
        if (store_delete(cmd_shard(c, dest->p, dest->len), c->cl->db, dest->p, dest->len,
                         c->now_ms)) {
            cmd_changed(c, CMD_NOTIFY_GENERIC, "del", dest);
        }
        resp_write_int(c->out, 0);
        return;
    }
    /* The result in scratch3: sources decode into scratch, the store encodes in scratch2. */
    if (cmd_scratch3_reserve(c->srv, maxlen) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    for (size_t k = 0; k < n_src; k++) {
        uint8_t *res = c->srv->scratch3, *p = NULL;
        size_t len = 0;
        if (read_value(c, &c->argv[3 + k], &p, &len) < 0) {
            return;
        }
        for (size_t i = 0; i < maxlen; i++) {
            uint8_t b = i < len ? p[i] : 0;
            if (k == 0) {
                res[i] = op == BITOP_NOT ? (uint8_t)~b : b;
            } else if (op == BITOP_AND) {
                res[i] &= b;
            } else if (op == BITOP_OR) {
                res[i] |= b;
            } else {
                res[i] ^= b;
            }
        }
    }
    st = cmd_value_store(c, c->cl->db, dest, c->srv->scratch3, maxlen, STORE_NO_EXPIRE, 0);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "set", dest);
    resp_write_int(c->out, (long long)maxlen);
}

#define BIT_R (CMD_READONLY)
#define BIT_W (CMD_WRITE | CMD_DENYOOM)

const struct cmd_def cmd_bitmap_defs[] = {
    {"bitcount", -2, BIT_R, 1, 1, 1, cmd_bitcount, "@read @bitmap @slow",
     "Count set bits in a string", "2.6.0", "bitmap", NULL},
    {"bitfield", -2, BIT_W, 1, 1, 1, cmd_bitfield, "@write @bitmap @slow",
     "Perform arbitrary bitfield integer operations on strings", "3.2.0", "bitmap", NULL},
    {"bitfield_ro", -2, BIT_R | CMD_FAST, 1, 1, 1, cmd_bitfield_ro, "@read @bitmap @fast",
     "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
     "6.0.0", "bitmap", NULL},
    {"bitop", -4, BIT_W, 2, -1, 1, cmd_bitop, "@write @bitmap @slow",
     "Perform bitwise operations between strings", "2.6.0", "bitmap", NULL},
    {"bitpos", -3, BIT_R, 1, 1, 1, cmd_bitpos, "@read @bitmap @slow",
     "Find first bit set or clear in a string", "2.8.7", "bitmap", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
