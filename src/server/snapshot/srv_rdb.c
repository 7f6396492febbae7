/*
 * srv_rdb: DUMP and RESTORE's hooks (struct cmd_hooks dump, restore) onto persist's RDB
 * serialization (persist_rdb.h).
 *
 * Memory: DUMP writes into the buffer cmd hands over (its scratch2), a container in chunks a
 * chunk at a time, and allocates only a stream's model, through the server's counting
 * allocator. RESTORE reads into s->rdb, the
 * reader's working memory, owned here: grown with the server's allocator, kept between calls
 * (cron frees buffers above CRON_SCRATCH_KEEP), freed at shutdown; a big list, hash, set or
 * sorted set it builds straight into its chunked container in the shard's env, handed to the
 * caller.
 */
#include "server/snapshot/srv_rdb.h"

#include "cmd/keyspace/cmd_after_load.h"
#include "persist/persist_rdb.h"
#include "terse/status.h"

static int hook_dump(void *arg, const struct cmd_dump_value *v, uint8_t *dst, size_t cap,
                     size_t *out_len)
{
    struct srv *s = arg;
    struct persist_rdb_value pv = {.type = v->type, .is_int = v->is_int, .ival = v->ival,
                                   .p = v->p, .len = v->len, .coll = v->coll, .env = v->env};

    return persist_rdb_dump(&pv, &s->cmd.alloc, dst, cap, out_len);
}

static int hook_restore(void *arg, const uint8_t *payload, size_t len, struct cmd_dump_value *out)
{
    struct srv *s = arg;
    struct persist_rdb_chunking ck;
    struct persist_rdb_value pv;
    int st;

    if (persist_rdb_payload_check(payload, len) != TERSE_OK) {
        return TERSE_EPROTO;
    }
    /* The whole payload, footer included, as Redis's RESTORE reads it: an object cut short
     * runs into the footer's bytes there too, and both servers answer alike. */
    /* A big list, hash, set, sorted set or stream comes back built in chunks (out->coll, the
     * caller's). */
    ck.env = cmd_value_load_shapes(&s->cmd, &ck.list, &ck.elems, &ck.stream_min);
    ck.batch = 0;
    st = persist_rdb_value_read_chunked(&s->rdb, &ck, payload, len, &pv, NULL);
    if (st != TERSE_OK) {
        return st;
    }
    out->type = pv.type;
    out->is_int = pv.is_int;
    out->ival = pv.ival;
    out->p = pv.p;
    out->len = pv.len;
    out->coll = pv.coll;
    out->env = pv.env;
    return TERSE_OK;
}

void srv_rdb_hooks_install(struct srv *s)
{
    persist_rdb_work_init(&s->rdb, &s->cmd.alloc);
    s->cmd.hooks.dump = hook_dump;
    s->cmd.hooks.restore = hook_restore;
}

void srv_rdb_trim(struct srv *s, size_t keep)
{
    persist_rdb_work_trim(&s->rdb, keep);
}
