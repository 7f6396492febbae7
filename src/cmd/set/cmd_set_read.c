/*
 * cmd_set_read: the set family's reads (SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SRANDMEMBER,
 * SSCAN). Each decodes the set's form once into the server's scratch (cmd_set_read, checksum
 * verified) and writes the reply from there into the connection's output buffer. A form found
 * corrupt part way through a reply withdraws what was written (the output is cut back to where
 * the reply began) and answers the CORRUPT error instead.
 *
 * Order: the form's (cmd_set_store.c): ascending numeric while every member is an integer, which is
 * Redis's order for an intset; insertion order otherwise (Redis: its dict's order).
 */
#include "cmd/set/cmd_set.h"

#include <stdbool.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "store/form/store_hash.h"
#include "terse/status.h"

/* SRANDMEMBER with a negative count repeats members, so its reply has no natural bound (Redis
 * 7.0 grows it until the output limit closes the client); terse stops past
 * CMD_ELEMS_RAND_REPLY_MAX reply bytes, as HRANDFIELD does. */
#define ERR_RAND_REPLY "ERR SRANDMEMBER reply would pass 1 GiB"

/* SMEMBERS key: Redis 7.0 runs SINTER of the one key, so the reply is a set (RESP3 ~). */
void cmd_set_smembers(struct cmd_call *c)
{
    cmd_elems_all(c, STORE_TYPE_SET, CMD_ELEMS_ALL_MEMBERS);
}

/* SISMEMBER key member */
void cmd_set_sismember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_kv kv;
    size_t len;
    int st = 0;

    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        st = coll_hash_get(cmd_coll_env(c, &c->argv[1]), cmd_elems_coll_of(e), c->argv[2].p,
                           c->argv[2].len, NULL, NULL);
    } else if (e != NULL) {
        st = store_hash_find(form, len, c->argv[2].p, c->argv[2].len, &kv);
    }
    if (st < 0) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        return;
    }
    resp_write_int(c->out, st);
}

/* SMISMEMBER key member [member ...] */
void cmd_set_smismember(struct cmd_call *c)
{
    cmd_elems_find_each(c, STORE_TYPE_SET, false);
}

/* SCARD key */
void cmd_set_scard(struct cmd_call *c)
{
    cmd_elems_card(c, STORE_TYPE_SET);
}

/* SRANDMEMBER key [count] */
void cmd_set_srandmember(struct cmd_call *c)
{
    const struct store_entry *e;
    const uint8_t *form;
    struct store_hash_it it;
    long long l = 1;
    uint64_t n;
    size_t len;

    if (c->argc > 3) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc == 3 && cmd_elems_rand_count_or_reply(c, 2, &l) != 0) {
        return;
    }
    if (cmd_set_read(c, &c->argv[1], 0, &e, &form, &len) != 0) {
        return;
    }
    if (e == NULL || (c->argc == 3 && l == 0)) {
        cmd_elems_rand_reply_none(c, c->argc == 3);
        return;
    }
    if (cmd_elems_coll_of(e) != NULL) {
        cmd_elems_coll_rand_reply(c, cmd_elems_coll_of(e), c->argc == 2, l == 1 ? -1 : l,
                                  CMD_ELEMS_VAL_NONE,
                                  ERR_RAND_REPLY);
        return;
    }
    if (cmd_elems_open_or_reply(c, form, len, &it, &n) == 0) {
        /* Redis 7.0 answers a count of 1 as it does a negative count (its "case 1"). */
        cmd_elems_rand_reply(c, form, len, n, c->argc == 2, l == 1 ? -1 : l,
                             CMD_ELEMS_VAL_NONE, ERR_RAND_REPLY);
    }
}

/* SSCAN key cursor [MATCH pattern] [COUNT count] (cmd_elems_scan) */
void cmd_set_sscan(struct cmd_call *c)
{
    cmd_elems_scan(c, STORE_TYPE_SET, CMD_ELEMS_VAL_NONE);
}
