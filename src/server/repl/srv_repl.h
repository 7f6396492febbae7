/*
 * srv_repl: the master side of Redis replication. A replica (a redis-server with replicaof
 * pointing here, or any client that sends SYNC or PSYNC) gets a full resynchronisation: an RDB
 * file of the dataset written by a forked child (persist_rdb_save_fd), sent as one bulk
 * ("$<size>\r\n" then the bytes, Redis's disk-based sync), then the write feed (cmd_feed.c)
 * from the instant of the fork. PSYNC with this server's replid and an offset still in the
 * backlog continues instead ("+CONTINUE"): the missing bytes come from the backlog, a ring of
 * repl-backlog-size bytes of the feed kept while replicas are attached (and repl-backlog-ttl
 * seconds after the last one left).
 */
#ifndef TERSE_SRV_REPL_H
#define TERSE_SRV_REPL_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* Puts c on the list of clients flushed after this turn of the loop. */
void srv_repl_schedule(struct srv *s, struct srv_client *c);
void srv_repl_init(struct srv *s);
/* Fills the feed and replication hooks of s->cmd.hooks. */
void srv_repl_hooks_install(struct srv *s);
/* Kills a running RDB child and frees the backlog (shutdown). */
void srv_repl_teardown(struct srv *s);
/* The write feed's bytes (p == NULL: writes were lost; every replica is dropped). */
void srv_repl_feed(struct srv *s, const uint8_t *p, size_t len);
/* SYNC/PSYNC (cmd hook repl_sync): enum cmd_repl_result. */
int srv_repl_sync(struct srv *s, struct srv_client *c, const char *replid, long long offset,
                  int psync);
void srv_repl_ack(struct srv *s, struct srv_client *c, long long offset);
/* A replica's connection closes: its link goes. */
void srv_repl_detach(struct srv *s, struct srv_client *c);
/* Moves the next part of a full sync into c's output (its RDB file, then what was fed
 * meanwhile). Returns 1 while more of the file is to come, 0, or -1 when c must be closed. */
int srv_repl_pump(struct srv *s, struct srv_client *c);
/* Bytes held for c beyond its output buffer (the feed while it syncs). */
size_t srv_repl_pending(const struct srv_client *c);
/* After every poll: reaps the RDB child, starts one for waiting replicas, keepalives, PINGs,
 * the backlog's time to live. */
void srv_repl_step(struct srv *s, int64_t now_ms);
/* cmd hook repl_info. */
void srv_repl_info(void *srv, struct cmd_repl_info *out,
                   void (*replica)(void *arg, const struct cmd_repl_replica *r), void *arg);
/* srv_repl.c, for the replica side: closes every replica of this server, and starts a new
 * history (a new replid, an empty backlog): what they had does not continue. */
void srv_repl_drop_replicas(struct srv *s);
void srv_repl_new_history(struct srv *s);

#endif /* TERSE_SRV_REPL_H */
