/*
 * cmd_lookup: how commands find a key: the shard that owns it, and lookups for reading (touch
 * the key's access data, count a keyspace hit or miss, report a miss as a "keymiss" event) or
 * for writing (neither), with the type check and its WRONGTYPE reply.
 */
#include "cmd/core/cmd_lookup.h"

#include "cmd/core/cmd_util.h"

#include "coll/coll.h"
#include "store/store.h"
#include "terse/status.h"

/* ---- shards and lookups ------------------------------------------------------------------ */

struct store_shard *cmd_shard(struct cmd_call *c, const uint8_t *key, size_t klen)
{
    (void)key;
    (void)klen;
    return c->srv->shard;
}

struct store_entry *cmd_lookup_read(struct cmd_call *c, const struct resp_slice *key,
                                    int *replied)
{
    return cmd_lookup_read_type(c, key, STORE_TYPE_STRING, replied);
}

struct store_entry *cmd_lookup_write(struct cmd_call *c, const struct resp_slice *key,
                                     int *replied)
{
    return cmd_lookup_write_type(c, key, STORE_TYPE_STRING, replied);
}

struct store_entry *cmd_lookup_read_type(struct cmd_call *c, const struct resp_slice *key,
                                         enum store_type type, int *replied)
{
    struct store_entry *e;

    e = store_lookup(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len, c->now_ms,
                     STORE_LOOKUP_TOUCH);
    if (e == NULL) {
        c->srv->stats.keyspace_misses++;
        if ((c->srv->settings.notify & CMD_NOTIFY_KEY_MISS) && c->srv->on_event != NULL) {
            c->srv->on_event(c->srv, CMD_NOTIFY_KEY_MISS, "keymiss", c->cl->db, key->p,
                             key->len);
        }
        return NULL;
    }
    c->srv->stats.keyspace_hits++;
    if (replied != NULL && store_entry_type(e) != type) {
        cmd_reply_err(c, CMD_ERR_WRONGTYPE);
        *replied = 1;
        return NULL;
    }
    return e;
}

struct store_entry *cmd_lookup_write_type(struct cmd_call *c, const struct resp_slice *key,
                                          enum store_type type, int *replied)
{
    struct store_entry *e;

    e = store_lookup(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len, c->now_ms, 0);
    if (e != NULL && replied != NULL && store_entry_type(e) != type) {
        cmd_reply_err(c, CMD_ERR_WRONGTYPE);
        *replied = 1;
        return NULL;
    }
    return e;
}


struct store_shard *cmd_keys_all_shard(struct cmd_call *c)
{
    return c->srv->shard;
}

struct store_entry *cmd_keys_lookup(struct cmd_call *c, int db, const struct resp_slice *key,
                                    unsigned flags)
{
    struct store_entry *e;
    int sflags = (flags & CMD_KEYS_LOOKUP_TOUCH) ? STORE_LOOKUP_TOUCH : 0;

    e = store_lookup(cmd_shard(c, key->p, key->len), db, key->p, key->len, c->now_ms, sflags);
    if (flags & CMD_KEYS_LOOKUP_STATS) {
        if (e != NULL) {
            c->srv->stats.keyspace_hits++;
        } else {
            c->srv->stats.keyspace_misses++;
            if (!(flags & CMD_KEYS_LOOKUP_NONOTIFY) &&
                (c->srv->settings.notify & CMD_NOTIFY_KEY_MISS) && c->srv->on_event != NULL) {
                c->srv->on_event(c->srv, CMD_NOTIFY_KEY_MISS, "keymiss", db, key->p, key->len);
            }
        }
    }
    return e;
}

const char *cmd_keys_type_name(const struct store_entry *e)
{
    switch (store_entry_type(e)) {
    case STORE_TYPE_STRING:
        return "string";
    case STORE_TYPE_HASH:
        return "hash";
    case STORE_TYPE_LIST:
        return "list";
    case STORE_TYPE_SET:
        return "set";
    case STORE_TYPE_ZSET:
        return "zset";
    case STORE_TYPE_STREAM:
        return "stream";
    }
    return "none";
}

void cmd_coll_edited(struct cmd_call *c, const struct resp_slice *key)
{
    store_edited(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len);
}

struct coll_env *cmd_coll_env(struct cmd_call *c, const struct resp_slice *key)
{
    struct coll_env *env = store_coll_env(cmd_shard(c, key->p, key->len));

    coll_env_set_codec(env, c->srv->codec);
    return env;
}
