/*
 * cmd_feed: the write feed: every change as the commands that make it, for the AOF and the
 * replicas (Redis's propagate), recorded per execution unit and handed to server/ at its end.
 */
#ifndef TERSE_CMD_FEED_H
#define TERSE_CMD_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* After the handler of d ran as c: records the command as sent when it is a write that
 * changed a key (or forced), unless the handler fed its own ops. */
void cmd_feed_after(struct cmd_call *c, const struct cmd_def *d);
/* The change listener's part: a key written (counted) or gone on its own (a DEL op). */
void cmd_feed_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                           enum store_change why);
void cmd_feed_free(struct cmd_server *srv);
/* Frees the feed's buffers above keep bytes while no unit is open (cron). */
void cmd_feed_trim(struct cmd_server *srv, size_t keep);

/* server/: a consumer attached (on) or the last one left. Attaching also makes the next op
 * select its db first, as a new replica's stream must. */
void cmd_feed_enable(struct cmd_server *srv, int on);
/* 1 while commands record their ops (handlers test it before building a rewrite). */
static inline int cmd_feed_on(const struct cmd_call *c)
{
    return c->srv->feed.on;
}
/* 1 when the feed is on and the running handler changed a key so far. */
static inline int cmd_feed_changed(const struct cmd_call *c)
{
    return c->srv->feed.on && c->srv->feed.changes != c->feed_changes;
}
/* Records an op of argc arguments in db for the unit (Redis's alsoPropagate). */
void cmd_feed_op(struct cmd_call *c, int db, const struct resp_slice *argv, size_t argc);
/* The command is fed as argv instead of as sent (Redis's rewriteClientCommandVector): records
 * it in the client's db and sets CMD_FEED_PREVENT. */
void cmd_feed_rewrite(struct cmd_call *c, const struct resp_slice *argv, size_t argc);
/* An op outside any command (a key deleted by the cron's expiry, by eviction): DEL key. */
void cmd_feed_del(struct cmd_server *srv, int db, const void *key, size_t klen);
/* Ends an execution unit: hands its ops to hooks.feed, inside MULTI/EXEC when there are
 * several and wrap is set (not for expiry and eviction batches, nor SCAN and RANDOMKEY). */
void cmd_feed_flush(struct cmd_server *srv, int wrap);

/* ---- rewrites ---------------------------------------------------------------------------- */
/* Arguments of a rewrite: a C string (static), a number printed into buf (CMD_FEED_NUM). */
#define CMD_FEED_NUM 24
struct resp_slice cmd_feed_str(const char *s);
struct resp_slice cmd_feed_ll(char buf[CMD_FEED_NUM], long long v);
/* Room for n arguments of a rewrite, owned by the feed and reused (valid until the next
 * call); NULL when it cannot grow (the unit is then reported lost). */
struct resp_slice *cmd_feed_argv(struct cmd_server *srv, size_t n);
/* Drops the ops recorded since the feed held n_ops of them (a write that failed after
 * recording what it took). */
void cmd_feed_undo(struct cmd_server *srv, size_t n_ops);
/* Feeds "DEL key" in place of the command (GETDEL, an expiry in the past). */
void cmd_feed_rewrite_del(struct cmd_call *c, const struct resp_slice *key);
/* Feeds "PEXPIREAT key when_ms" in place of the command (EXPIRE family, GETEX). */
void cmd_feed_rewrite_pexpireat(struct cmd_call *c, const struct resp_slice *key,
                                int64_t when_ms);

#endif /* TERSE_CMD_FEED_H */
