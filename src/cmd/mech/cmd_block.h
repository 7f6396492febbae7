/*
 * cmd_block: blocked clients: a blocking command that finds nothing waits on its keys (or on
 * the replicas, WAIT) until one is written, its timeout passes or CLIENT UNBLOCK ends it; then
 * it runs again.
 */
#ifndef TERSE_CMD_BLOCK_H
#define TERSE_CMD_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Replicas that acknowledged cl's last write (its woff): what WAIT answers. */
long long cmd_block_acked(struct cmd_server *srv, const struct cmd_client *cl);

/* A blocking command found nothing to serve: unless c runs inside EXEC, or is a blocked client
 * being retried, the client blocks on the n keys at argv[first], argv[first + step], ... until
 * one is written or timeout_ms (0: forever) passes (then it gets a null array). Returns 1 when
 * it blocked (or stays blocked: c->blocked is set, and nothing must be replied), 0 when the
 * command must reply its empty answer now (EXEC), -1 when it replied an error. */
int cmd_block(struct cmd_call *c, size_t first, size_t n, size_t step, int64_t timeout_ms);
/* cmd_block keeping argv (c->argc slices) as the command to run again instead of c->argv:
 * XREAD's "$" must mean the last ID at the time of the call, not of the retry. */
int cmd_block_as(struct cmd_call *c, const struct resp_slice *argv, size_t first, size_t n,
                 size_t step, int64_t timeout_ms);
/* For a blocking command: 1 when key holds a value of type (a list, a zset: never empty) to
 * take from now, 0 when it does not (a key of another type too, when c is a retry), -1 when
 * it replied WRONGTYPE. */
int cmd_block_ready(struct cmd_call *c, const struct resp_slice *key, enum store_type type);
/* cmd_block_ready over the n keys from argv[first], in order: 1 with *at the index of the first
 * ready one, 0 when none is, -1 when it replied WRONGTYPE. */
int cmd_block_first_ready(struct cmd_call *c, size_t first, size_t n, enum store_type type,
                          size_t *at);
/* Reads a blocking command's timeout (seconds, a float) at argv[i] as Redis 7.0 does: 0 with
 * *ms (0: forever), or -1 when it replied the error. */
int cmd_block_timeout(struct cmd_call *c, size_t i, int64_t *ms);
/* The listener's part for blocked clients: key (of that hash) in db changed. */
void cmd_block_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen);
/* SWAPDB a b is about to run: the keys blocked clients wait on in a or b are to be tried. */
void cmd_block_swapdb(struct cmd_server *srv, int a, int b);
/* Ends cl's wait (the client goes): nothing is replied. */
void cmd_block_end(struct cmd_server *srv, struct cmd_client *cl);
/* CLIENT UNBLOCK: ends cl's wait with its timeout reply, or the UNBLOCKED error; 1 when it was
 * blocked, else 0. */
int cmd_block_unblock(struct cmd_server *srv, struct cmd_client *cl, int with_error);
/* Serves the blocked clients whose keys were written, until none is left to try. */
void cmd_block_serve(struct cmd_server *srv);

/* Replies to the blocked clients whose timeout passed by now_ms (through hooks.client_out)
 * and ends their wait. */
void cmd_block_timeouts(struct cmd_server *srv, int64_t now_ms);
/* Serves the blocked clients whose keys were written and not yet tried (after work outside a
 * command: the cron's expiry and eviction). */
void cmd_block_serve(struct cmd_server *srv);
/* Tries again the clients blocked in WAIT (server/: replicas acknowledged more). */
void cmd_block_wake_waits(struct cmd_server *srv);

#endif /* TERSE_CMD_BLOCK_H */
