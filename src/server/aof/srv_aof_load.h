/*
 * srv_aof_load: the AOF read back, at startup (appendonly yes) and for DEBUG LOADAOF, as
 * Redis 7.0's loadAppendOnlyFiles does: the base (an RDB file, persist_rdb_load.c, verified
 * before anything is inserted; or commands), then each incr file in sequence order. Commands
 * (persist_aof_read.c) run through cmd_dispatch on a client of the loader's own whose replies
 * are dropped; MULTI/EXEC run as they ran. A file listed in the manifest but missing, a
 * malformed command, an unknown command, or a file that ends inside a command stops the load
 * with the file, the offset and the reason; except that a truncated last file is cut at its
 * last complete command (a transaction left open: before its MULTI) when aof-load-truncated is
 * yes, with a warning, as Redis does.
 */
#ifndef TERSE_SRV_AOF_LOAD_H
#define TERSE_SRV_AOF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_aof_load.c */
/* Loads the files of s->aof.man into s->shard. Returns 0, 1 when there is nothing to load,
 * -1 after logging the file, offset and reason. */
int srv_aof_load(struct srv *s);
/* cmd hook loadaof. */
int srv_aof_loadaof(void *srv, char *errbuf, size_t cap);

#endif /* TERSE_SRV_AOF_LOAD_H */
