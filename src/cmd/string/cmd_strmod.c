/*
 * cmd_strmod: the string commands that edit part of a value (APPEND, SETRANGE, SETBIT) and
 * GETBIT, with Redis 7.0's syntax, replies and error texts. Their rows are in
 * cmd_string_defs (cmd_string.c).
 *
 * An edit decodes the old value into the server's scratch buffer, reserved for the new length,
 * edits it there and hands it to cmd_value_store (see cmd_string.c for the buffers' layout).
 *
 * Invariants:
 * - A command that replies an error changes nothing: every check (offsets, the
 *   proto-max-bulk-len bound) runs before the first write.
 * - An edited value is stored raw (CMD_VALUE_RAW), as Redis's edited strings are; an existing
 *   key keeps its TTL.
 */
#include "cmd/string/cmd_strmod.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "store/store.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"

#define ERR_OFFSET_RANGE "ERR offset is out of range"

/* The buffer SETRANGE and SETBIT edit, nlen bytes of room: the olen bytes of e's value
 * decoded into the scratch buffer, or, for a missing key (e NULL), the bare scratch buffer.
 * TERSE_OK with *p set, or the error, replied. */
static int edit_buf_or_reply(struct cmd_call *c, const struct store_entry *e,
                             const struct resp_slice *key, size_t olen, size_t nlen, uint8_t **p)
{
    size_t got = 0;
    int st;

    if (e != NULL) {
        st = cmd_string_decode_or_reply(c, e, key, nlen, p, &got);
        if (st != TERSE_OK) {
            return st;
        }
        assert(got == olen);
        return TERSE_OK;
    }
    st = cmd_scratch_reserve(c->srv, nlen);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return st;
    }
    *p = c->srv->scratch;
    return TERSE_OK;
}

/* ---- APPEND, SETRANGE -------------------------------------------------------------------- */

void cmd_append_proc(struct cmd_call *c)
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
        cmd_changed(c, CMD_NOTIFY_STRING, "append", key);
        resp_write_int(c->out, (long long)add->len);
        return;
    }
    if (cmd_string_len_or_reply(c, e, key, &olen) != TERSE_OK ||
        cmd_string_length_ok_or_reply(c, olen, add->len) != TERSE_OK ||
        cmd_string_decode_or_reply(c, e, key, olen + add->len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == olen);
    memcpy(p + olen, add->p, add->len);
    st = cmd_value_store(c, c->cl->db, key, p, olen + add->len, STORE_KEEP_TTL, CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "append", key);
    resp_write_int(c->out, (long long)(olen + add->len));
}

void cmd_setrange_proc(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1], *val = &c->argv[3];
    long long offset;
    size_t olen = 0, nlen, off;
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
    if (e != NULL && cmd_string_len_or_reply(c, e, key, &olen) != TERSE_OK) {
        return;
    }
    if (val->len == 0) {
        /* Nothing to write: a missing key stays missing. */
        resp_write_int(c->out, (long long)olen);
        return;
    }
    if (cmd_string_length_ok_or_reply(c, (unsigned long long)offset, val->len) != TERSE_OK) {
        return;
    }
    off = (size_t)offset;
    nlen = off + val->len > olen ? off + val->len : olen;
    if (edit_buf_or_reply(c, e, key, olen, nlen, &p) != TERSE_OK) {
        return;
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
    cmd_changed(c, CMD_NOTIFY_STRING, "setrange", key);
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
void cmd_setbit_proc(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1];
    uint64_t offset;
    long long on;
    size_t olen = 0, byte, nlen;
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
    if (e != NULL && cmd_string_len_or_reply(c, e, key, &olen) != TERSE_OK) {
        return;
    }
    nlen = byte + 1 > olen ? byte + 1 : olen;
    if (edit_buf_or_reply(c, e, key, olen, nlen, &p) != TERSE_OK) {
        return;
    }
    if (nlen > olen) {
        memset(p + olen, 0, nlen - olen);
    }
    mask = (uint8_t)(1u << (7 - (offset & 7)));
    old = (p[byte] & mask) != 0;
    if (e != NULL && nlen == olen && old == (on != 0)) {
        c->unchanged = 1; /* the same bit: nothing stored, nor counted (Redis's dirty) */
        resp_write_int(c->out, old);
        return;
    }
    p[byte] = on ? (uint8_t)(p[byte] | mask) : (uint8_t)(p[byte] & ~mask);
    st = cmd_value_store(c, c->cl->db, key, p, nlen, e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE,
                         CMD_VALUE_RAW);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "setbit", key);
    resp_write_int(c->out, old);
}

/* GETBIT: 0 past the end of the value or for a missing key. */
void cmd_getbit_proc(struct cmd_call *c)
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
    if (cmd_string_len_or_reply(c, e, key, &len) != TERSE_OK) {
        return;
    }
    if (byte >= len) {
        resp_write_int(c->out, 0);
        return;
    }
    if (cmd_string_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == len);
    resp_write_int(c->out, (p[byte] >> (7 - (offset & 7))) & 1);
}

