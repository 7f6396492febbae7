/*
 * cmd_after_load: the command layer's pass over a freshly loaded shard (cmd_after_load.c).
 */
#ifndef TERSE_CMD_AFTER_LOAD_H
#define TERSE_CMD_AFTER_LOAD_H

#include "cmd/core/cmd.h"

/* After a snapshot, an RDB or an AOF is loaded into srv->shard: marks each hash, set and zset
 * with the encoding Redis would give it as it loads it, by its contents under the current
 * settings (OBJECT ENCODING); chunks the big ones as a write would, and makes chunked ones
 * Redis would hold small one value again. A value that fails to decode is left as it is: the
 * next command on it reports it. */
void cmd_value_after_load(struct cmd_server *srv);
/* The same decision for one key RESTORE has just written (its encoding mark, and chunks for a
 * container past a chunk): left as it is on any failure. */
void cmd_value_after_restore(struct cmd_server *srv, int db, const uint8_t *key, size_t klen);

#endif /* TERSE_CMD_AFTER_LOAD_H */
