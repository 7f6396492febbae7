/*
 * cmd_keys: the keyspace command family (DEL ... SWAPDB, EXPIRE ... PERSIST, KEYS, SCAN,
 * OBJECT). Its one table, cmd_keys_defs (declared below), lives in cmd_keys.c; the handlers
 * are spread over cmd_keys.c, cmd_expire.c, cmd_scan.c and cmd_object.c; the lookups they
 * share are cmd/core/cmd_lookup.h's. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_KEYS_H
#define TERSE_CMD_KEYS_H

#include "cmd/core/cmd.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_keys_defs[];

#endif /* TERSE_CMD_KEYS_H */
