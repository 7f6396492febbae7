/*
 * cmd_incr: the INCR family of the string commands (INCR, DECR, INCRBY, DECRBY,
 * INCRBYFLOAT), with Redis 7.0's syntax, replies and error texts. Their rows are in
 * cmd_string_defs (cmd_string.c).
 *
 * Invariants:
 * - The integer arithmetic never overflows: a result out of long long range is refused with
 *   Redis's error before anything is written.
 * - An integer result is stored as an int (STORE_ENC_INT); INCRBYFLOAT stores its formatted
 *   result as SET would. An existing key keeps its TTL.
 */
#include "cmd/string/cmd_incr.h"

#include <limits.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "store/store.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"

#define ERR_DECR_OVERFLOW "ERR decrement would overflow"

/* ---- INCR family ------------------------------------------------------------------------- */

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
    if (cmd_string_len_or_reply(c, e, key, &len) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (len > CMD_STRING_LL_CAP) {
        /* Too long to be an integer: no need to decode it. */
        cmd_reply_err(c, CMD_ERR_NOT_INT);
        return TERSE_EINVAL;
    }
    if (cmd_string_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
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
    if (cmd_ll_add_or_reply(c, &v, incr) != 0) {
        return;
    }
    st = store_set_int(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len, v,
                       e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE, c->now_ms);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "incrby", key);
    resp_write_int(c->out, v);
}

void cmd_incr_proc(struct cmd_call *c)
{
    incr_generic(c, 1);
}

void cmd_decr_proc(struct cmd_call *c)
{
    incr_generic(c, -1);
}

void cmd_incrby_proc(struct cmd_call *c)
{
    long long incr;

    if (cmd_ll_or_reply(c, 2, &incr, CMD_ERR_NOT_INT) != 0) {
        return;
    }
    incr_generic(c, incr);
}

void cmd_decrby_proc(struct cmd_call *c)
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

/* INCRBYFLOAT stores the formatted result as a string, an integral one too (as Redis:
 * OBJECT ENCODING says embstr). */
void cmd_incrbyfloat_proc(struct cmd_call *c)
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
        if (cmd_string_len_or_reply(c, e, key, &len) != TERSE_OK) {
            return;
        }
        if (len >= CMD_LD_STR_MAX) {
            cmd_reply_err(c, CMD_ERR_NOT_FLOAT);
            return;
        }
        if (cmd_string_decode_or_reply(c, e, key, len, &p, &got) != TERSE_OK) {
            return;
        }
        if (!cmd_parse_ld(p, got, &v)) {
            cmd_reply_err(c, CMD_ERR_NOT_FLOAT);
            return;
        }
    }
    if (cmd_ld_or_reply(c, 2, &incr, NULL) != 0 || cmd_ld_add_or_reply(c, &v, incr) != 0) {
        return;
    }
    n = cmd_format_ld(buf, sizeof(buf), v);
    st = cmd_value_store(c, c->cl->db, key, (const uint8_t *)buf, n,
                         e != NULL ? STORE_KEEP_TTL : STORE_NO_EXPIRE, CMD_VALUE_STR);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    cmd_changed(c, CMD_NOTIFY_STRING, "incrbyfloat", key);
    if (cmd_feed_on(c)) {
        /* Fed as the value it gave, so no replica's float arithmetic can differ. */
        struct resp_slice a[4] = {cmd_feed_str("SET"), *key, {(const uint8_t *)buf, n},
                                  cmd_feed_str("KEEPTTL")};
        cmd_feed_rewrite(c, a, 4);
    }
    resp_write_bulk(c->out, buf, n);
}

