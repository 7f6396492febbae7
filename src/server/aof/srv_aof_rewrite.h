/*
 * srv_aof_rewrite: BGREWRITEAOF, Redis 7.0's multi-part way, and the manifest on disk.
 */
#ifndef TERSE_SRV_AOF_REWRITE_H
#define TERSE_SRV_AOF_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_aof_rewrite.c */
/* Starts BGREWRITEAOF: enum cmd_save_result. */
int srv_aof_rewrite_start(struct srv *s);
/* Reaps the rewrite child (block: waits for it) and finishes the rewrite. */
void srv_aof_rewrite_reap(struct srv *s, int block);
/* Kills a running rewrite child and removes its files. */
void srv_aof_rewrite_kill(struct srv *s);

#endif /* TERSE_SRV_AOF_REWRITE_H */
