/*
 * cmd_memory_cmd: the MEMORY command, and the memory figures INFO and MEMORY STATS share.
 */
#ifndef TERSE_CMD_MEMORY_CMD_H
#define TERSE_CMD_MEMORY_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

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

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_memory_defs[];

#endif /* TERSE_CMD_MEMORY_CMD_H */
