/*
 * srv_persist: snapshots wired into the server: load at startup, SAVE, BGSAVE (a forked
 * child, as Redis does), save points from cron, SHUTDOWN [SAVE|NOSAVE], DEBUG RELOAD and the
 * INFO persistence figures. The format and the file handling are persist/'s.
 */
#ifndef TERSE_SRV_PERSIST_H
#define TERSE_SRV_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_persist.c */
/* Fills the save hooks of s->cmd.hooks and the initial persistence state. */
void srv_persist_hooks_install(struct srv *s);
/* Loads <dir>/<dbfilename> into the (empty) shard; a missing file is not an error. Returns
 * 0, or -1 after logging the file, offset and reason of a snapshot that cannot be used. */
int srv_persist_load(struct srv *s);
/* From cron: reaps a finished BGSAVE child, starts one when a save point is due. */
void srv_persist_cron(struct srv *s, int64_t now_ms);
/* Shutdown (SHUTDOWN command, SIGTERM/SIGINT with flags 0): kills a BGSAVE child, then saves
 * when flags say SAVE, or when save points are configured and flags do not say NOSAVE.
 * Returns 0 when the server may stop, -1 without FORCE when the save failed or the first
 * rewrite of an AOF just turned on still runs (Redis's "Writing initial AOF, can't exit."). */
int srv_persist_shutdown(struct srv *s, unsigned flags);
/* Kills and reaps a BGSAVE child still running. */
void srv_persist_teardown(struct srv *s);

#endif /* TERSE_SRV_PERSIST_H */
