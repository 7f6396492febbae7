/*
 * cmd_internal: declarations shared by the files of the cmd layer only.
 */
#ifndef TERSE_CMD_INTERNAL_H
#define TERSE_CMD_INTERNAL_H

#include <stddef.h>

#include "cmd/cmd.h"

/* Number of top-level commands in the table. */
size_t cmd_table_count(const struct cmd_server *srv);
/* The i-th top-level command, in name order (0 <= i < cmd_table_count). */
const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i);
/* Resolves argv to a command or subcommand row as Redis's lookupCommand does: a container
 * with argc >= 2 resolves to its subcommand (NULL when unknown), with argc == 1 to itself. */
const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc);
/* Number of rows in a NULL-terminated subcommand array. */
size_t cmd_subcmd_count(const struct cmd_def *subcmds);
/* Writes Redis's "HELP" reply: an array of status lines (RESP simple strings). */
void cmd_reply_help(struct cmd_call *c, const char *const *lines);

/* cmd_memory.c: the maxmemory admission of d about to run as c (Redis's performEvictions
 * before a command): evicts as the policy allows; returns 1 to run the command, 0 when it
 * does not fit and is a CMD_DENYOOM command or deny is set (nothing is replied). */
int cmd_memory_admit(struct cmd_call *c, const struct cmd_def *d, int deny);

/* cmd_table.c: runs d for c once every check passed (the handler, then the counters). */
void cmd_run(struct cmd_call *c, const struct cmd_def *d);

/* cmd_multi.c: transactions. */
/* Queues d as c names it (the client is in MULTI) and replies +QUEUED, or an error that
 * dooms the transaction. */
void cmd_multi_queue(struct cmd_call *c, const struct cmd_def *d);
/* 1 when d is EXEC's row. */
int cmd_multi_is_exec(const struct cmd_def *d);
/* Ends cl's transaction, if any, and unwatches its keys (DISCARD, RESET, a failed EXEC). */
void cmd_multi_discard(struct cmd_server *srv, struct cmd_client *cl);
/* cmd_multi_discard, then frees cl's queue buffers (the client goes). */
void cmd_multi_client_free(struct cmd_server *srv, struct cmd_client *cl);
/* Frees cl's queue buffers above keep bytes when no transaction is open (cmd_server_trim). */
void cmd_multi_trim(struct cmd_server *srv, struct cmd_client *cl, size_t keep);

/* cmd_watch.c: WATCH's keys. */
void cmd_watch(struct cmd_call *c);
void cmd_unwatch(struct cmd_call *c);
/* Drops every key cl watches (not its dirty mark). */
void cmd_watch_unwatch_all(struct cmd_server *srv, struct cmd_client *cl);
/* SWAPDB a b is about to run: marks dirty the watchers of a key of a or b that exists,
 * unexpired, in either. */
void cmd_watch_swapdb(struct cmd_server *srv, int a, int b, int64_t now_ms);
/* EXEC: a key cl watches that expired since goes now, which marks cl dirty. */
void cmd_watch_expire_check(struct cmd_server *srv, struct cmd_client *cl, int64_t now_ms);
/* Frees the table's buckets (cmd_server_deinit; every client unwatched before). */
void cmd_watch_deinit(struct cmd_server *srv);

/* Memory figures that INFO memory and MEMORY STATS share. */
struct cmd_mem_figures {
    uint64_t clients;          /* bytes of client buffers (input and output capacity) */
    uint64_t n_clients;
    uint64_t alloc_allocated;  /* glibc: bytes in use in malloc'ed chunks and mmaps */
    uint64_t alloc_active;     /* glibc: heap bytes obtained from the system, free or not */
};
/* Fills f (hooks.client_io per client, mallinfo2: cost grows with the heap's free chunks;
 * for INFO and MEMORY, not for a request path). Allocates nothing. */
void cmd_memory_figures(const struct cmd_server *srv, struct cmd_mem_figures *f);

#endif /* TERSE_CMD_INTERNAL_H */
