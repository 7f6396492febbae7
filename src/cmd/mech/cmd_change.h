/*
 * cmd_change: the one event of a change to a key, and every mechanism it reaches.
 *
 * A command family that changed a key says so once, after the change, with cmd_changed (the
 * class and Redis's event name: "lpush", "hset", "del"...), as Redis's families end a write
 * with signalModifiedKey and notifyKeyspaceEvent. From here the change goes to keyspace
 * notifications (cmd_notify.c); client-side tracking's invalidation plugs in at this one place
 * too. The same change reaches WATCH (cmd_watch.c), blocked clients (cmd_block.c) and the write
 * feed (cmd_feed.c) through the store's change listener, installed here (cmd_change.c) while
 * any of them needs it: the store calls it after every write, expiry change and removal, and
 * for what it does by itself (keys it adds, expires, evicts), which it reports to
 * notifications too. With nothing listening a change costs one flag test and the store one
 * pointer test.
 */
#ifndef TERSE_CMD_CHANGE_H
#define TERSE_CMD_CHANGE_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/* The fan-out of a reported change: event (a static name) of class type on key (borrowed)
 * in db. Callers test the class first (cmd_changed does). */
void cmd_change_emit(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen);

/* Key changed in the client's db: event of class type, one flag test when nothing wants it. */
static inline void cmd_changed(struct cmd_call *c, int type, const char *event,
                               const struct resp_slice *key)
{
    if (c->srv->settings.notify & type) {
        cmd_change_emit(c->srv, type, event, c->cl->db, key->p, key->len);
    }
}

/* The same with the db given (MOVE, COPY ... DB). */
static inline void cmd_changed_db(struct cmd_call *c, int type, const char *event, int db,
                                  const struct resp_slice *key)
{
    if (c->srv->settings.notify & type) {
        cmd_change_emit(c->srv, type, event, db, key->p, key->len);
    }
}

/* The change of a write to a hash, list, set or zset (cmd_*_store helpers), then "del" when
 * that write left the key empty and deleted it (c->emptied, which this resets): Redis's
 * order. */
static inline void cmd_changed_edit(struct cmd_call *c, int type, const char *event,
                                    const struct resp_slice *key)
{
    if (c->srv->settings.notify & (type | CMD_NOTIFY_GENERIC)) {
        cmd_change_emit(c->srv, type, event, c->cl->db, key->p, key->len);
        if (c->emptied) {
            cmd_change_emit(c->srv, CMD_NOTIFY_GENERIC, "del", c->cl->db, key->p, key->len);
        }
    }
    c->emptied = 0;
}

/* A STORE command's result at key: its event when it stored one (stored), else "del" when
 * storing nothing deleted what key held (c->emptied, reset here). */
static inline void cmd_changed_stored(struct cmd_call *c, int type, const char *event,
                                      const struct resp_slice *key, int stored)
{
    if (stored) {
        cmd_changed(c, type, event, key);
    } else if (c->emptied) {
        cmd_changed(c, CMD_NOTIFY_GENERIC, "del", key);
    }
    c->emptied = 0;
}

/* Wires the fan-out into srv (cmd_server_init): the hooks core code reports through
 * (srv->on_event: a keyspace miss) and that the key registries call as they fill or empty
 * (srv->listen). Allocates nothing. */
void cmd_change_setup(struct cmd_server *srv);

/* The settings changed (server/ after CONFIG SET): the store's change listener is installed
 * or removed as notify-keyspace-events and the key registries need it. */
void cmd_settings_changed(struct cmd_server *srv);

#endif /* TERSE_CMD_CHANGE_H */
