/*
 * cmd_hash_read: the hash family's reads (HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS,
 * HSTRLEN, HRANDFIELD, HSCAN). Each decodes the hash's fields once into the server's scratch
 * (cmd_hash_read, checksum verified) and writes the reply from there into the connection's
 * output buffer. A form found corrupt part way through a reply withdraws what was written
 * (the output is cut back to where the reply began) and answers the CORRUPT error instead.
 */
#include "cmd/hash/cmd_hash_read.h"

#include "cmd/hash/cmd_hash.h"

#include <limits.h>
#include <stdbool.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* HRANDFIELD with a negative count repeats fields, so its reply has no natural bound (Redis
 * 7.0 runs out of memory on -4611686018427387903); terse stops past CMD_ELEMS_RAND_REPLY_MAX
 * reply bytes. */
#define ERR_RAND_REPLY "ERR HRANDFIELD reply would pass 1 GiB"

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
    if (cmd_elems_coll_of(e) != NULL) {
        kv->f = c->argv[2].p;
        kv->flen = c->argv[2].len;
        st = coll_hash_get(cmd_coll_env(c, &c->argv[1]), cmd_elems_coll_of(e), kv->f, kv->flen,
                           &kv->v, &kv->vlen);
        if (st < 0) {
            cmd_hash_reply_bad(c, st);
            return -1;
        }
        return st;
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
    cmd_elems_find_each(c, STORE_TYPE_HASH, true);
}

/* HLEN key */
void cmd_hash_hlen(struct cmd_call *c)
{
    cmd_elems_card(c, STORE_TYPE_HASH);
}

void cmd_hash_hgetall(struct cmd_call *c)
{
    cmd_elems_all(c, STORE_TYPE_HASH, CMD_ELEMS_ALL_PAIRS);
}

void cmd_hash_hkeys(struct cmd_call *c)
{
    cmd_elems_all(c, STORE_TYPE_HASH, CMD_ELEMS_ALL_FIELDS);
}

void cmd_hash_hvals(struct cmd_call *c)
{
    cmd_elems_all(c, STORE_TYPE_HASH, CMD_ELEMS_ALL_VALUES);
}

/* ---- HRANDFIELD, HSCAN ------------------------------------------------------------------- */

/* HRANDFIELD key [count [WITHVALUES]] */
void cmd_hash_hrandfield(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    long long l = 1;
    bool withvalues;
    uint64_t n;
    size_t len;

    if (cmd_elems_rand_args_or_reply(c, "withvalues", &l, &withvalues) != 0) {
        return;
    }
    if (cmd_hash_read(c, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL) {
        cmd_elems_rand_reply_none(c, c->argc >= 3);
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        cmd_elems_coll_rand_reply(c, cmd_elems_coll_of(e), c->argc == 2, l,
                                  withvalues ? CMD_ELEMS_VAL_BULK : CMD_ELEMS_VAL_NONE,
                                  ERR_RAND_REPLY);
        return;
    }
    if (cmd_elems_open_or_reply(c, form, len, &it, &n) == 0) {
        /* Redis 7.0 repeats fields for a negative count only (a count of 1 is one distinct). */
        cmd_elems_rand_reply(c, form, len, n, c->argc == 2, l,
                             withvalues ? CMD_ELEMS_VAL_BULK : CMD_ELEMS_VAL_NONE, ERR_RAND_REPLY);
    }
}

/* HSCAN key cursor [MATCH pattern] [COUNT count] (cmd_elems_scan) */
void cmd_hash_hscan(struct cmd_call *c)
{
    cmd_elems_scan(c, STORE_TYPE_HASH, CMD_ELEMS_VAL_BULK);
}
