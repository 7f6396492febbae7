/*
 * cmd_bitfield: BITFIELD and BITFIELD_RO, integers of 1 to 64 bits (u1..u63, i1..i64) at any
 * bit offset of a string value, with Redis 7.0's syntax, replies, overflow rules (WRAP, SAT,
 * FAIL) and error texts. Every operation is parsed before anything runs; a write decodes the
 * value into the server's scratch buffer, grown with zero bytes to the farthest bit written,
 * and stores it back once (an existing key keeps its TTL, as SETBIT's does).
 */
#include "cmd/string/cmd_bitfield.h"

#include <stdint.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"

#define ERR_TYPE                                                                                 \
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but " \
    "i64 is."
#define ERR_OFFSET "ERR bit offset is not an integer or out of range"

enum bf_op { BF_GET, BF_SET, BF_INCRBY };
enum bf_overflow { BF_WRAP, BF_SAT, BF_FAIL };

struct bf {
    enum bf_op op;
    enum bf_overflow ow;
    int sign;        /* i (1) or u (0) */
    int bits;        /* 1..64 */
    uint64_t offset; /* in bits */
    long long arg;   /* SET's value, INCRBY's increment */
};

/* The unsigned field of bits at bit offset of p (len bytes; zero past the end). */
static uint64_t field_get(const uint8_t *p, size_t len, uint64_t offset, int bits)
{
    uint64_t v = 0;

    for (int i = 0; i < bits; i++, offset++) {
        uint64_t byte = offset >> 3;
        int b = byte < len ? (p[byte] >> (7 - (offset & 7))) & 1 : 0;
        v = (v << 1) | (uint64_t)b;
    }
    return v;
}

static void field_set(uint8_t *p, uint64_t offset, int bits, uint64_t v)
{
    for (int i = bits - 1; i >= 0; i--, offset++) {
        uint8_t mask = (uint8_t)(1u << (7 - (offset & 7)));
        if ((v >> i) & 1) {
            p[offset >> 3] |= mask;
        } else {
            p[offset >> 3] &= (uint8_t)~mask;
        }
    }
}

/* The field's value as a signed number (two's complement of bits). */
static int64_t as_signed(uint64_t v, int bits)
{
    if (bits < 64 && (v >> (bits - 1)) & 1) {
        v |= ~(uint64_t)0 << bits;
    }
    return (int64_t)v;
}

/* value + incr within the field's range. Returns 0 (in range), 1 (overflow) or -1
 * (underflow), *out the value to write under ow (WRAP: the low bits; SAT: the bound). */
static int field_add(const struct bf *f, __int128 value, long long incr, uint64_t *out)
{
    __int128 max, min, sum = value + incr;
    int r = 0;

    if (f->sign) {
        max = f->bits == 64 ? (__int128)INT64_MAX : ((__int128)1 << (f->bits - 1)) - 1;
        min = -max - 1;
    } else {
        max = ((__int128)1 << f->bits) - 1; /* u63 at most */
        min = 0;
    }
    r = sum > max ? 1 : sum < min ? -1 : 0;
    if (r == 0 || f->ow == BF_WRAP) {
        uint64_t u = (uint64_t)sum;
        if (f->bits < 64) {
            u &= ~(~(uint64_t)0 << f->bits);
        }
        *out = u;
    } else {
        *out = (uint64_t)(r > 0 ? max : min);
        if (f->bits < 64) {
            *out &= ~(~(uint64_t)0 << f->bits);
        }
    }
    return r;
}

/* The type at argv[i] (i8, u16...). 0, or -1 after the error reply. */
static int type_or_reply(struct cmd_call *c, size_t i, struct bf *f)
{
    const struct resp_slice *a = &c->argv[i];
    long long bits;

    if (a->len < 2 || (a->p[0] != 'i' && a->p[0] != 'u') ||
        !cmd_parse_ll(a->p + 1, a->len - 1, &bits) || bits < 1 ||
        bits > (a->p[0] == 'i' ? 64 : 63)) {
        cmd_reply_err(c, ERR_TYPE);
        return -1;
    }
    f->sign = a->p[0] == 'i';
    f->bits = (int)bits;
    return 0;
}

/* The offset at argv[i]: a bit offset, or "#n" for the n-th field of this type. */
static int offset_or_reply(struct cmd_call *c, size_t i, struct bf *f)
{
    const struct resp_slice *a = &c->argv[i];
    int hash = a->len > 0 && a->p[0] == '#';
    long long v;

    if (!cmd_parse_ll(a->p + hash, a->len - (size_t)hash, &v)) {
        cmd_reply_err(c, ERR_OFFSET);
        return -1;
    }
    if (hash && __builtin_mul_overflow(v, (long long)f->bits, &v)) {
        cmd_reply_err(c, ERR_OFFSET); /* far past any value's size */
        return -1;
    }
    if (v < 0 ||
        (unsigned long long)(v >> 3) >= (unsigned long long)c->srv->settings.proto_max_bulk_len) {
        cmd_reply_err(c, ERR_OFFSET);
        return -1;
    }
    f->offset = (uint64_t)v;
    return 0;
}

/* Parses every operation into scratch3 (*ops, *n). 0, or -1 after the error reply. */
static int parse_or_reply(struct cmd_call *c, struct bf **ops, size_t *n, int *writes,
                          uint64_t *last_bit)
{
    enum bf_overflow ow = BF_WRAP;
    struct bf *v;

    if (cmd_scratch3_reserve(c->srv, (c->argc / 2 + 1) * sizeof(**ops)) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return -1;
    }
    v = (struct bf *)(void *)c->srv->scratch3;
    *n = 0;
    *writes = 0;
    *last_bit = 0;
    for (size_t j = 2; j < c->argc;) {
        size_t left = c->argc - j - 1;
        struct bf f = {.ow = ow};
        if (cmd_arg_is(c, j, "get") && left >= 2) {
            f.op = BF_GET;
        } else if (cmd_arg_is(c, j, "set") && left >= 3) {
            f.op = BF_SET;
        } else if (cmd_arg_is(c, j, "incrby") && left >= 3) {
            f.op = BF_INCRBY;
        } else if (cmd_arg_is(c, j, "overflow") && left >= 1) {
            if (cmd_arg_is(c, j + 1, "wrap")) {
                ow = BF_WRAP;
            } else if (cmd_arg_is(c, j + 1, "sat")) {
                ow = BF_SAT;
            } else if (cmd_arg_is(c, j + 1, "fail")) {
                ow = BF_FAIL;
            } else {
                cmd_reply_err(c, "ERR Invalid OVERFLOW type specified");
                return -1;
            }
            j += 2;
            continue;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
        if (type_or_reply(c, j + 1, &f) != 0 || offset_or_reply(c, j + 2, &f) != 0) {
            return -1;
        }
        if (f.op != BF_GET) {
            *writes = 1;
            if (f.offset + (uint64_t)f.bits - 1 > *last_bit) {
                *last_bit = f.offset + (uint64_t)f.bits - 1;
            }
            if (cmd_ll_or_reply(c, j + 3, &f.arg, NULL) != 0) {
                return -1;
            }
        }
        v[(*n)++] = f;
        j += f.op == BF_GET ? 3 : 4;
    }
    *ops = v;
    return 0;
}

static void reply_get(struct cmd_call *c, const struct bf *f, const uint8_t *p, size_t len)
{
    uint64_t u = field_get(p, len, f->offset, f->bits);

    resp_write_int(c->out, f->sign ? (long long)as_signed(u, f->bits) : (long long)u);
}

static void bitfield(struct cmd_call *c, int ro)
{
    const struct resp_slice *key = &c->argv[1];
    struct bf *ops;
    size_t n, olen = 0, nlen, got = 0, mark;
    uint64_t last_bit;
    uint8_t *p = NULL;
    int writes, replied = 0, changes = 0, st;
    struct store_entry *e;

    if (parse_or_reply(c, &ops, &n, &writes, &last_bit) != 0) {
        return;
    }
    if (!writes) {
        e = cmd_lookup_read_type(c, key, STORE_TYPE_STRING, &replied);
        if (replied || (e != NULL && (cmd_string_len_or_reply(c, e, key, &olen) != TERSE_OK ||
                                      cmd_string_decode_or_reply(c, e, key, olen, &p, &got) !=
                                          TERSE_OK))) {
            return;
        }
        resp_write_array(c->out, n);
        for (size_t i = 0; i < n; i++) {
            reply_get(c, &ops[i], p, olen);
        }
        return;
    }
    if (ro) {
        cmd_reply_err(c, "ERR BITFIELD_RO only supports the GET subcommand");
        return;
    }
    e = cmd_lookup_write_type(c, key, STORE_TYPE_STRING, &replied);
    if (replied || (e != NULL && cmd_string_len_or_reply(c, e, key, &olen) != TERSE_OK)) {
        return;
    }
    nlen = (size_t)(last_bit >> 3) + 1 > olen ? (size_t)(last_bit >> 3) + 1 : olen;
    if (e != NULL) {
        if (cmd_string_decode_or_reply(c, e, key, nlen, &p, &got) != TERSE_OK) {
            return;
        }
    } else if (cmd_scratch_reserve(c->srv, nlen) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    } else {
        p = c->srv->scratch;
    }
    memset(p + olen, 0, nlen - olen);
    mark = c->out->len;
    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        const struct bf *f = &ops[i];
        uint64_t old, nv;
        __int128 from;
        int r;
        if (f->op == BF_GET) {
            reply_get(c, f, p, nlen);
            continue;
        }
        old = field_get(p, nlen, f->offset, f->bits);
        from = f->sign ? (__int128)as_signed(old, f->bits) : (__int128)old;
        if (f->op == BF_INCRBY) {
            r = field_add(f, from, f->arg, &nv);
        } else {
            /* SET of a negative value into an unsigned field: the value as an unsigned 64-bit
             * number, out of range, as Redis takes it. */
            r = field_add(f, f->sign ? (__int128)f->arg : (__int128)(uint64_t)f->arg, 0, &nv);
        }
        if (r != 0 && f->ow == BF_FAIL) {
            resp_write_null(c->out);
            continue;
        }
        if (f->op == BF_INCRBY) {
            resp_write_int(c->out, f->sign ? (long long)as_signed(nv, f->bits) : (long long)nv);
        } else {
            resp_write_int(c->out, f->sign ? (long long)as_signed(old, f->bits) : (long long)old);
        }
        field_set(p, f->offset, f->bits, nv);
        changes += nv != old || nlen > olen || e == NULL;
    }
    if (changes == 0 && nlen == olen && e != NULL) {
        c->unchanged = 1; /* nothing written (FAIL overflows, same values): Redis's dirty */
        return;
    }
    st = cmd_value_store(c, c->cl->db, key, p, nlen, e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE,
                         CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        c->out->len = mark; /* the results go: the error alone, nothing written */
        cmd_reply_status(c, st);
        return;
    }
    if (changes > 0) {
        cmd_changed(c, CMD_NOTIFY_STRING, "setbit", key);
    }
}

void cmd_bitfield(struct cmd_call *c)
{
    bitfield(c, 0);
}

void cmd_bitfield_ro(struct cmd_call *c)
{
    bitfield(c, 1);
}
