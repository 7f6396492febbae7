/*
 * cmd_watch: WATCH and UNWATCH, and the keys clients watch.
 */
#ifndef TERSE_CMD_WATCH_H
#define TERSE_CMD_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

void cmd_watch(struct cmd_call *c);
void cmd_unwatch(struct cmd_call *c);
/* Drops every key cl watches (not its dirty mark). */
void cmd_watch_unwatch_all(struct cmd_server *srv, struct cmd_client *cl);
/* The listener's part for WATCH: key (of that hash) in db changed. */
void cmd_watch_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen);
/* SWAPDB a b is about to run: marks dirty the watchers of a key of a or b that exists,
 * unexpired, in either. */
void cmd_watch_swapdb(struct cmd_server *srv, int a, int b, int64_t now_ms);
/* EXEC: a key cl watches that expired since goes now, which marks cl dirty. */
void cmd_watch_expire_check(struct cmd_server *srv, struct cmd_client *cl, int64_t now_ms);

#endif /* TERSE_CMD_WATCH_H */
