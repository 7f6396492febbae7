/*
 * srv_replica: terse as a replica of a Redis-compatible master (REPLICAOF host port, or
 * `replicaof` in the config): a redis-server to migrate from with no downtime, or another
 * terse. The master side is srv_repl.c.
 */
#ifndef TERSE_SRV_REPLICA_H
#define TERSE_SRV_REPLICA_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_replica.c: terse as a replica. */
void srv_replica_init(struct srv *s);
void srv_replica_teardown(struct srv *s);
/* After every poll: connects, times out, acknowledges. now_ms 0: read here, only while a
 * replica (a master pays one test per turn of the loop). */
void srv_replica_step(struct srv *s, int64_t now_ms);
/* c ran bytes of input: the master's stream offset moves when c is the master's link. */
void srv_replica_processed(struct srv *s, struct srv_client *c, size_t bytes);
/* c closes: when it is the master's link, the link goes back to connecting. */
void srv_replica_client_gone(struct srv *s, struct srv_client *c);
/* REPLICAOF host port (host NULL: NO ONE). 0, or 1 when already its replica. */
int srv_replica_set(struct srv *s, const char *host, int port);
/* INFO replication and ROLE's replica fields. */
void srv_replica_info(const struct srv *s, struct cmd_repl_info *out);

#endif /* TERSE_SRV_REPLICA_H */
