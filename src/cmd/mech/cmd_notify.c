/*
 * cmd_notify: keyspace notifications (cmd_notify.h). Channel names are built in a stack
 * buffer (a long key: one allocation from the server's allocator for the event) and published
 * through cmd_pubsub_publish_raw, so subscribers get ordinary pub/sub messages, pattern
 * subscriptions included.
 */
#include "cmd/mech/cmd_notify.h"

#include <stdio.h>
#include <string.h>

#include "cmd/mech/cmd_pubsub.h"

#define NOTIFY_CHANNEL_STACK 256 /* channel bytes built without allocating */
#define NOTIFY_PREFIX_MAX 32     /* "__keyspace@" INT_MAX "__:" and its NUL fit */

/* Publishes msg on prefix + name (the channel), building it in buf when it fits. */
static void publish(struct cmd_server *srv, const char *prefix, size_t prefix_len,
                    const void *name, size_t name_len, const void *msg, size_t msg_len)
{
    uint8_t stack[NOTIFY_CHANNEL_STACK];
    size_t len = prefix_len + name_len;
    uint8_t *ch = stack;

    if (len > sizeof(stack)) {
        ch = srv->alloc.alloc(srv->alloc.opaque, len);
        if (ch == NULL) {
            return;
        }
    }
    memcpy(ch, prefix, prefix_len);
    if (name_len > 0) {
        memcpy(ch + prefix_len, name, name_len);
    }
    (void)cmd_pubsub_publish_raw(srv, ch, len, msg, msg_len);
    if (ch != stack) {
        srv->alloc.free(srv->alloc.opaque, ch);
    }
}

void cmd_notify_emit(struct cmd_server *srv, int type, const char *event, int db,
                     const void *key, size_t klen)
{
    int flags = srv->settings.notify;
    char prefix[NOTIFY_PREFIX_MAX];
    size_t elen = strlen(event);
    int n;

    if (!(flags & type)) {
        return;
    }
    if (flags & CMD_NOTIFY_KEYSPACE) {
        n = snprintf(prefix, sizeof(prefix), "__keyspace@%d__:", db);
        publish(srv, prefix, (size_t)n, key, klen, event, elen);
    }
    if (flags & CMD_NOTIFY_KEYEVENT) {
        n = snprintf(prefix, sizeof(prefix), "__keyevent@%d__:", db);
        publish(srv, prefix, (size_t)n, event, elen, key, klen);
    }
}

int cmd_notify_store_wanted(const struct cmd_server *srv)
{
    int flags = srv->settings.notify;

    return (flags & (CMD_NOTIFY_KEYSPACE | CMD_NOTIFY_KEYEVENT)) != 0 &&
           (flags & CMD_NOTIFY_STORE_EVENTS) != 0;
}

void cmd_notify_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                             enum store_change why)
{
    switch (why) {
    case STORE_CHANGE_ADDED:
        cmd_notify_emit(srv, CMD_NOTIFY_NEW, "new", db, key, klen);
        break;
    case STORE_CHANGE_EXPIRED:
        cmd_notify_emit(srv, CMD_NOTIFY_EXPIRED, "expired", db, key, klen);
        break;
    case STORE_CHANGE_EVICTED:
        cmd_notify_emit(srv, CMD_NOTIFY_EVICTED, "evicted", db, key, klen);
        break;
    case STORE_CHANGE_WRITE:
        break;
    }
}
