/*
 * cmd_after_load: the command layer's pass over a freshly loaded shard (cmd_after_load.c).
 */
#ifndef TERSE_CMD_AFTER_LOAD_H
#define TERSE_CMD_AFTER_LOAD_H

#include "cmd/core/cmd.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"

/* After a snapshot, an RDB or an AOF is loaded into srv->shard: marks each hash, set and zset
 * with the encoding Redis would give it as it loads it, by its contents under the current
 * settings (OBJECT ENCODING); chunks the big ones as a write would, and makes chunked ones
 * Redis would hold small one value again. A value that fails to decode is left as it is: the
 * next command on it reports it. */
void cmd_value_after_load(struct cmd_server *srv);
/* The same decision for one key RESTORE has just written (its encoding mark, and chunks for a
 * container past a chunk): left as it is on any failure. */
void cmd_value_after_restore(struct cmd_server *srv, int db, const uint8_t *key, size_t klen);
/* The chunk shapes a load builds big containers with (list, and hash or set: both written,
 * borrowed), the ones this pass chunks with, so a container an RDB load builds while it reads
 * (persist_rdb_rcoll.c) is the one this pass would have cut; *stream_min, the stream form's
 * bytes this pass leaves one value at or under (a load chunks no smaller stream); and the
 * shard's env gets the server's codec context, as before this pass chunks. Returns that env
 * (borrowed: the shard's). Call before the load, on the thread that owns the shard. */
struct coll_env *cmd_value_load_shapes(struct cmd_server *srv, struct coll_list_shape *list,
                                       struct coll_hash_shape *elems, size_t *stream_min);

#endif /* TERSE_CMD_AFTER_LOAD_H */
