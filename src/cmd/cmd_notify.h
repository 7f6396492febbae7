/*
 * cmd_notify: keyspace notifications (notify-keyspace-events), as Redis 7.0's notify.c sends
 * them: an event of a class the setting enables is published on __keyspace@<db>__:<key> with
 * the event name as message (K), then on __keyevent@<db>__:<event> with the key as message (E).
 *
 * Commands call cmd_notify after the change they report, in Redis's order; the store's change
 * listener (cmd_keyreg.c) reports what the store does by itself: "new" when a key is added,
 * "expired" and "evicted". With notifications off (the default) a command pays one flag test
 * per event and the store no listener call at all.
 */
#ifndef TERSE_CMD_NOTIFY_H
#define TERSE_CMD_NOTIFY_H

#include <stddef.h>

#include "cmd/cmd.h"

/* Classes the store reports through its change listener. */
#define CMD_NOTIFY_STORE_EVENTS (CMD_NOTIFY_NEW | CMD_NOTIFY_EXPIRED | CMD_NOTIFY_EVICTED)

/* Publishes event (a static name) of class type for key (borrowed) in db, when the setting
 * enables type and K or E. Allocates only for a channel name longer than a stack buffer (a
 * failure drops the event). */
void cmd_notify_emit(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen);

/* The event of class type on key in the client's db: one flag test when type is off. */
static inline void cmd_notify(struct cmd_call *c, int type, const char *event,
                              const struct resp_slice *key)
{
    if (c->srv->settings.notify & type) {
        cmd_notify_emit(c->srv, type, event, c->cl->db, key->p, key->len);
    }
}

/* The same with the db given (MOVE, COPY ... DB). */
static inline void cmd_notify_db(struct cmd_call *c, int type, const char *event, int db,
                                 const struct resp_slice *key)
{
    if (c->srv->settings.notify & type) {
        cmd_notify_emit(c->srv, type, event, db, key->p, key->len);
    }
}

/* The event of a write to a hash, list, set or zset (cmd_*_store helpers), then "del" when
 * that write left the key empty and deleted it (c->emptied, which this resets): Redis's
 * order. */
static inline void cmd_notify_edit(struct cmd_call *c, int type, const char *event,
                                   const struct resp_slice *key)
{
    if (c->srv->settings.notify & (type | CMD_NOTIFY_GENERIC)) {
        cmd_notify_emit(c->srv, type, event, c->cl->db, key->p, key->len);
        if (c->emptied) {
            cmd_notify_emit(c->srv, CMD_NOTIFY_GENERIC, "del", c->cl->db, key->p, key->len);
        }
    }
    c->emptied = 0;
}

/* A STORE command's result at key: its event when it stored one (stored), else "del" when
 * storing nothing deleted what key held (c->emptied, reset here). */
static inline void cmd_notify_stored(struct cmd_call *c, int type, const char *event,
                                     const struct resp_slice *key, int stored)
{
    if (stored) {
        cmd_notify(c, type, event, key);
    } else if (c->emptied) {
        cmd_notify(c, CMD_NOTIFY_GENERIC, "del", key);
    }
    c->emptied = 0;
}

/* 1 when an event the store reports (new, expired, evicted) would be published. */
int cmd_notify_store_wanted(const struct cmd_server *srv);
/* The store's change listener's part: key of db was added, expired or evicted (why). */
void cmd_notify_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                             enum store_change why);

#endif /* TERSE_CMD_NOTIFY_H */
