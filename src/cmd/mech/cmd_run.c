/*
 * cmd_run: runs one resolved command: its handler, then what every command leaves behind:
 * the command counters (INFO commandstats: cmd_cstats.c), the change count
 * (rdb_changes_since_last_save) and the write feed's record of it. Dispatch, EXEC, scripts
 * and served blocked clients all run commands here.
 */
#include "cmd/mech/cmd_run.h"


#include "cmd/mech/cmd_cstats.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_table.h"
#include "coll/coll.h"
#include "store/store.h"

/* Keys a write command names (its key positions), at least 1: the change count it adds.
 * A per-key count like Redis's server.dirty without touching every handler; a write that
 * fails or changes nothing is still counted. */
static uint64_t write_n_keys(const struct cmd_def *d, size_t argc)
{
    long last;

    if (d->first_key <= 0 || d->key_step <= 0) {
        return 1;
    }
    last = d->last_key < 0 ? (long)argc + d->last_key : d->last_key;
    if (last < d->first_key) {
        return 1;
    }
    return (uint64_t)((last - d->first_key) / d->key_step + 1);
}

void cmd_run(struct cmd_call *c, const struct cmd_def *d)
{
    int64_t t0;
    uint64_t took;

    c->cl->last_cmd = d->name;
    c->srv->stats.total_commands++;
    if (d->proc == NULL) {
        /* A container called without a subcommand has arity -2, caught before. */
        cmd_reply_unknown_subcommand(c);
        return;
    }
    c->feed = 0;
    c->feed_changes = c->srv->feed.changes;
    c->unchanged = 0;
    coll_env_turn_begin(store_coll_env(c->srv->shard));
    t0 = c->start_us != 0 ? c->start_us : cmd_cstats_clock(c->srv);
    d->proc(c);
    took = cmd_cstats_since(c->srv, t0);
    if (c->blocked) {
        c->cl->block_usec = took; /* counted when it is served (cmd_block.c) */
    } else {
        cmd_cstats_called(c->srv, d, took);
    }
    /* Looked up again: a command may replace the shard and its env while it runs (DEBUG RELOAD
     * does); ending a turn the new env never began is harmless (its depth stays 0). */
    coll_env_turn_end(store_coll_env(c->srv->shard));
    if ((d->flags & CMD_WRITE) && !c->unchanged) {
        c->srv->dirty += write_n_keys(d, c->argc);
    }
    if (c->srv->feed.on) {
        cmd_feed_after(c, d);
        if (d->flags & CMD_ARBITRARY_KEYS) {
            c->feed |= CMD_FEED_NO_MULTI;
        }
    }
}
