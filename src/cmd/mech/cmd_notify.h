/*
 * cmd_notify: keyspace notifications (notify-keyspace-events), as Redis 7.0's notify.c sends
 * them: an event of a class the setting enables is published on __keyspace@<db>__:<key> with
 * the event name as message (K), then on __keyevent@<db>__:<event> with the key as message (E).
 *
 * Commands report their changes through cmd_changed (cmd_change.h), which reaches here, in
 * Redis's order; the store's change listener (cmd_change.c) reports what the store does by
 * itself: "new" when a key is added, "expired" and "evicted". With notifications off (the
 * default) a command pays one flag test per event and the store no listener call at all.
 */
#ifndef TERSE_CMD_NOTIFY_H
#define TERSE_CMD_NOTIFY_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/* Classes the store reports through its change listener. */
#define CMD_NOTIFY_STORE_EVENTS (CMD_NOTIFY_NEW | CMD_NOTIFY_EXPIRED | CMD_NOTIFY_EVICTED)

/* Publishes event (a static name) of class type for key (borrowed) in db, when the setting
 * enables type and K or E. Allocates only for a channel name longer than a stack buffer (a
 * failure drops the event). */
void cmd_notify_emit(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen);

/* 1 when an event the store reports (new, expired, evicted) would be published. */
int cmd_notify_store_wanted(const struct cmd_server *srv);
/* The store's change listener's part: key of db was added, expired or evicted (why). */
void cmd_notify_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                             enum store_change why);

#endif /* TERSE_CMD_NOTIFY_H */
