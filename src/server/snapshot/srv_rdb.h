/*
 * srv_rdb: DUMP and RESTORE's hooks (struct cmd_hooks dump, restore) onto persist's RDB
 * serialization (persist_rdb.h).
 */
#ifndef TERSE_SRV_RDB_H
#define TERSE_SRV_RDB_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_rdb.c */
/* Fills the DUMP and RESTORE hooks of s->cmd.hooks (RDB serialization, persist_rdb.h). */
void srv_rdb_hooks_install(struct srv *s);
/* Frees the RDB reader's memory (all of it at shutdown: keep 0; from cron: buffers above keep). */
void srv_rdb_trim(struct srv *s, size_t keep);

#endif /* TERSE_SRV_RDB_H */
