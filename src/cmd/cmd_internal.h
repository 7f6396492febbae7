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
 * before a command): evicts as the policy allows; returns 1 to run the command, 0 when it is a
 * CMD_DENYOOM command that does not fit (the -OOM error is then replied). */
int cmd_memory_admit(struct cmd_call *c, const struct cmd_def *d);

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
