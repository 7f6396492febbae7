/*
 * cmd_change: the fan-out of a change to a key (cmd_change.h): what families report, and the
 * store's change listener, installed while WATCH, blocked clients, the write feed or
 * notifications of the store's own changes need it.
 */
#include "cmd/mech/cmd_change.h"

#include "cmd/mech/cmd_notify.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/mech/cmd_watch.h"

void cmd_change_emit(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen)
{
    cmd_notify_emit(srv, type, event, db, key, klen);
}

/* The shard's change listener. */
static void on_store_change(void *arg, int db, const void *key, size_t klen,
                            enum store_change why)
{
    struct cmd_server *srv = arg;
    uint64_t hash;

    if (srv->feed.on) {
        cmd_feed_store_change(srv, db, key, klen, why);
    }
    if (why != STORE_CHANGE_WRITE && (srv->settings.notify & CMD_NOTIFY_STORE_EVENTS)) {
        cmd_notify_store_change(srv, db, key, klen, why);
    }
    if (srv->watch.n + srv->block.n == 0) {
        return;
    }
    hash = store_key_hash(srv->shard, key, klen);
    if (srv->watch.n > 0) {
        cmd_watch_changed(srv, hash, db, key, klen);
    }
    if (srv->block.n > 0) {
        cmd_block_changed(srv, hash, db, key, klen);
    }
}

/* Installs or removes the listener as the registries fill or empty, and as keyspace
 * notifications of what the store does on its own (new, expired, evicted) are on or off. */
static void listen(struct cmd_server *srv)
{
    if (srv->shard == NULL) {
        return;
    }
    if (srv->watch.n + srv->block.n > 0 || cmd_notify_store_wanted(srv) || srv->feed.on) {
        store_watch_changes(srv->shard, on_store_change, srv);
    } else {
        store_watch_changes(srv->shard, NULL, NULL);
    }
}

/* A keyspace miss, reported by core code through srv->on_event. */
static void on_event(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen)
{
    cmd_change_emit(srv, type, event, db, key, klen);
}

void cmd_change_setup(struct cmd_server *srv)
{
    srv->on_event = on_event;
    srv->listen = listen;
}

void cmd_settings_changed(struct cmd_server *srv)
{
    listen(srv);
}
