/*
 * cmd_string: the string command family's table (cmd_string_defs), its shared value helpers
 * (cmd_string.h) and its plain reads (GET, MGET, STRLEN, GETRANGE/SUBSTR), with Redis 7.0's
 * syntax, replies and error texts. The other handlers live in cmd_strset.c (the SET family,
 * MSET), cmd_strmod.c (APPEND, SETRANGE, SETBIT, GETBIT), cmd_incr.c (the INCR family) and
 * cmd_lcs.c (LCS).
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
#include "cmd/string/cmd_string.h"

#include "cmd/string/cmd_incr.h"
#include "cmd/string/cmd_lcs.h"
#include "cmd/string/cmd_strmod.h"
#include "cmd/string/cmd_strset.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "codec/codec_value.h"
#include "resp/resp_write.h"
#include "store/store.h"
#include "terse/status.h"
#include "cmd/string/cmd_string_form.h"

#include <assert.h>
#include <stdint.h>

/* ---- GET, MGET, STRLEN, GETRANGE --------------------------------------------------------- */

static void str_get(struct cmd_call *c)
{
    struct store_entry *e = cmd_string_lookup_or_reply(c, &c->argv[1]);

    if (e != NULL) {
        cmd_reply_value(c, e, &c->argv[1]);
    }
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
    if (e != NULL && cmd_string_len_or_reply(c, e, &c->argv[1], &len) != TERSE_OK) {
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
    if (cmd_string_len_or_reply(c, e, &c->argv[1], &len) != TERSE_OK) {
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
    if (cmd_string_decode_or_reply(c, e, &c->argv[1], len, &p, &got) != TERSE_OK) {
        return;
    }
    assert(got == len);
    resp_write_bulk(c->out, p + start, (size_t)(end - start + 1));
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
    {"set", -3, W_OOM, 1, 1, 1, cmd_set_proc, ACL_WS, "Set the string value of a key", "1.0.0",
     "string", NULL},
    {"setnx", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_setnx_proc, ACL_WF,
     "Set the value of a key, only if the key does not exist", "1.0.0", "string", NULL},
    {"setex", 4, W_OOM, 1, 1, 1, cmd_setex_proc, ACL_WS, "Set the value and expiration of a key",
     "2.0.0", "string", NULL},
    {"psetex", 4, W_OOM, 1, 1, 1, cmd_psetex_proc, ACL_WS,
     "Set the value and expiration in milliseconds of a key", "2.6.0", "string", NULL},
    {"getset", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_getset_proc, ACL_WF,
     "Set the string value of a key and return its old value", "1.0.0", "string", NULL},
    {"getdel", 2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_getdel_proc, ACL_WF,
     "Get the value of a key and delete the key", "6.2.0", "string", NULL},
    {"getex", -2, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_getex_proc, ACL_WF,
     "Get the value of a key and optionally set its expiration", "6.2.0", "string", NULL},
    {"mget", -2, CMD_READONLY | CMD_FAST, 1, -1, 1, str_mget, ACL_RF,
     "Get the values of all the given keys", "1.0.0", "string", NULL},
    {"mset", -3, W_OOM, 1, -1, 2, cmd_mset_proc, ACL_WS, "Set multiple keys to multiple values",
     "1.0.1", "string", NULL},
    {"msetnx", -3, W_OOM, 1, -1, 2, cmd_msetnx_proc, ACL_WS,
     "Set multiple keys to multiple values, only if none of the keys exist", "1.0.1", "string",
     NULL},
    {"append", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_append_proc, ACL_WF, "Append a value to a key",
     "2.0.0", "string", NULL},
    {"strlen", 2, CMD_READONLY | CMD_FAST, 1, 1, 1, str_strlen, ACL_RF,
     "Get the length of the value stored in a key", "2.2.0", "string", NULL},
    {"getrange", 4, CMD_READONLY, 1, 1, 1, str_getrange, ACL_RS,
     "Get a substring of the string stored at a key", "2.4.0", "string", NULL},
    {"substr", 4, CMD_READONLY, 1, 1, 1, str_getrange, ACL_RS,
     "Get a substring of the string stored at a key", "1.0.0", "string", NULL},
    {"setrange", 4, W_OOM, 1, 1, 1, cmd_setrange_proc, ACL_WS,
     "Overwrite part of a string at key starting at the specified offset", "2.2.0", "string",
     NULL},
    {"setbit", 4, W_OOM, 1, 1, 1, cmd_setbit_proc, "@write @bitmap @slow",
     "Sets or clears the bit at offset in the string value stored at key", "2.2.0", "bitmap",
     NULL},
    {"getbit", 3, CMD_READONLY | CMD_FAST, 1, 1, 1, cmd_getbit_proc, "@read @bitmap @fast",
     "Returns the bit value at offset in the string value stored at key", "2.2.0", "bitmap",
     NULL},
    {"incr", 2, W_OOM | CMD_FAST, 1, 1, 1, cmd_incr_proc, ACL_WF,
     "Increment the integer value of a key by one", "1.0.0", "string", NULL},
    {"decr", 2, W_OOM | CMD_FAST, 1, 1, 1, cmd_decr_proc, ACL_WF,
     "Decrement the integer value of a key by one", "1.0.0", "string", NULL},
    {"incrby", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_incrby_proc, ACL_WF,
     "Increment the integer value of a key by the given amount", "1.0.0", "string", NULL},
    {"decrby", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_decrby_proc, ACL_WF,
     "Decrement the integer value of a key by the given number", "1.0.0", "string", NULL},
    {"incrbyfloat", 3, W_OOM | CMD_FAST, 1, 1, 1, cmd_incrbyfloat_proc, ACL_WF,
     "Increment the float value of a key by the given amount", "2.6.0", "string", NULL},
    {"lcs", -3, CMD_READONLY, 1, 2, 1, cmd_lcs_proc, ACL_RS, "Find longest common substring",
     "7.0.0", "string", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};

