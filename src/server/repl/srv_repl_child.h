/*
 * srv_repl_child: the forked child of a full resynchronisation (srv_repl.c). It writes the
 * dataset as an RDB file (persist_rdb_save_fd) to <dir>/temp-repl-<pid>.rdb (/tmp when dir is
 * an s3:// URL); the parent, once it has reaped the child, opens the file for every replica
 * that waited for it, unlinks it (the descriptors keep it until sent) and starts the
 * transfer. One child at a time, BGSAVE's included (srv_persist.c).
 */
#ifndef TERSE_SRV_REPL_CHILD_H
#define TERSE_SRV_REPL_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* Forks the child for the replicas in WAIT_START ("+FULLRESYNC" goes to PSYNC ones). */
void srv_repl_child_start(struct srv *s);
/* Reaps an ended child: its replicas get the file, or are closed when it failed. */
void srv_repl_child_reap(struct srv *s);
/* Kills and reaps a running child and removes its file (shutdown). */
void srv_repl_child_kill(struct srv *s);

#endif /* TERSE_SRV_REPL_CHILD_H */
