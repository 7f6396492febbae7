/*
 * cmd_list_block: the blocking list commands, BLPOP, BRPOP, BLMPOP, BLMOVE and BRPOPLPUSH.
 *
 * Each runs as its non-blocking twin when a list is there to take from; otherwise the client
 * waits (cmd_block.c), and the same handler runs again when one of its keys is written, in
 * CMD_CALL_RETRY mode: then a key of another type counts as empty (the client keeps waiting,
 * as in Redis) instead of answering WRONGTYPE.
 */

#include <stdbool.h>

#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "terse/status.h"
#include "cmd/list/cmd_list_form.h"
#include "cmd/list/cmd_list_pop.h"

/* BLPOP, BRPOP key [key ...] timeout */
static void blocking_pop(struct cmd_call *c, bool left)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t n_keys = c->argc - 2, at, len;
    int64_t timeout_ms;
    uint64_t n;
    int has;

    if (cmd_block_timeout(c, c->argc - 1, &timeout_ms) != 0) {
        return;
    }
    has = cmd_block_first_ready(c, 1, n_keys, STORE_TYPE_LIST, &at);
    if (has > 0) {
        if (cmd_list_read(c, &c->argv[at], 1, &e, &form, &len, &n) == 0 && e != NULL) {
            (void)cmd_list_pop_and_store(c, &c->argv[at], e, form, len, n, left, 1, true, true);
        }
    } else if (has == 0 && cmd_block(c, 1, n_keys, 1, timeout_ms) == 0) {
        resp_write_null_array(c->out);
    }
}

void cmd_list_blpop(struct cmd_call *c)
{
    blocking_pop(c, true);
}

void cmd_list_brpop(struct cmd_call *c)
{
    blocking_pop(c, false);
}

/* BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void cmd_list_blmpop(struct cmd_call *c)
{
    int64_t timeout_ms;

    if (cmd_block_timeout(c, 1, &timeout_ms) == 0) {
        cmd_list_mpop(c, 2, true, timeout_ms);
    }
}

/* The move of BLMOVE and BRPOPLPUSH once the timeout at argv[ti] is read. */
static void blocking_move(struct cmd_call *c, size_t ti, bool from_left, bool to_left)
{
    int64_t timeout_ms;
    int has;

    if (cmd_block_timeout(c, ti, &timeout_ms) != 0) {
        return;
    }
    has = cmd_block_ready(c, &c->argv[1], STORE_TYPE_LIST);
    if (has > 0) {
        cmd_list_move(c, from_left, to_left);
        if (cmd_feed_changed(c)) { /* fed as the LMOVE or RPOPLPUSH it did */
            struct resp_slice a[5] = {cmd_feed_str(ti == 3 ? "RPOPLPUSH" : "LMOVE"), c->argv[1],
                                      c->argv[2], c->argv[3], c->argv[4]};
            cmd_feed_rewrite(c, a, ti == 3 ? 3 : 5);
        }
    } else if (has == 0 && cmd_block(c, 1, 1, 1, timeout_ms) == 0) {
        resp_write_null(c->out);
    }
}

/* BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
void cmd_list_blmove(struct cmd_call *c)
{
    bool from_left, to_left;

    if (cmd_list_side_or_reply(c, 3, &from_left) == 0 &&
        cmd_list_side_or_reply(c, 4, &to_left) == 0) {
        blocking_move(c, 5, from_left, to_left);
    }
}

/* BRPOPLPUSH source destination timeout */
void cmd_list_brpoplpush(struct cmd_call *c)
{
    blocking_move(c, 3, false, true);
}
