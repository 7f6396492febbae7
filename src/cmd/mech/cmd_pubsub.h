/*
 * cmd_pubsub: pub/sub (SUBSCRIBE ... PUBLISH, shard channels, PUBSUB).
 */
#ifndef TERSE_CMD_PUBSUB_H
#define TERSE_CMD_PUBSUB_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Channels and patterns cl is subscribed to (what (P)SUBSCRIBE confirmations count). */
size_t cmd_pubsub_count(const struct cmd_client *cl);
/* Drops every subscription of cl (RESET, the client goes); nothing is replied. */
void cmd_pubsub_client_free(struct cmd_server *srv, struct cmd_client *cl);
/* Distinct channels (which 0), patterns (1) or shard channels (2) subscribed (INFO). */
size_t cmd_pubsub_names(struct cmd_server *srv, int which);
/* PUBLISH of msg on channel ch (both borrowed) to its subscribers and matching patterns,
 * from a command (srv->cur_call: its client's output is written directly) or outside one
 * (expiry, eviction from cron); returns the receivers. */
long long cmd_pubsub_publish_raw(struct cmd_server *srv, const void *ch, size_t ch_len,
                                 const void *msg, size_t msg_len);

/* 1 when cl has a pub/sub subscription of any kind (its output limit is the pubsub class). */
int cmd_pubsub_any(const struct cmd_client *cl);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_pubsub_defs[];

#endif /* TERSE_CMD_PUBSUB_H */
