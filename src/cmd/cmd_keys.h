/*
 * cmd_keys: the keyspace command family (DEL ... SWAPDB, EXPIRE ... PERSIST, KEYS, SCAN,
 * OBJECT). Its one table, cmd_keys_defs (declared in cmd.h), lives in cmd_keys.c; the handlers
 * are spread over cmd_keys.c, cmd_expire.c, cmd_scan.c and cmd_object.c, which share the
 * helpers below. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_KEYS_H
#define TERSE_CMD_KEYS_H

#include "cmd/cmd.h"

/* cmd_keys_lookup flags. */
enum cmd_keys_lookup_flags {
    CMD_KEYS_LOOKUP_TOUCH = 1 << 0, /* update LRU/LFU data (Redis's lookupKeyRead) */
    CMD_KEYS_LOOKUP_STATS = 1 << 1, /* count a keyspace hit or miss, and notify a miss */
    CMD_KEYS_LOOKUP_NONOTIFY = 1 << 2 /* with STATS: no keymiss event (OBJECT) */
};

/*
 * Looks key up in database db of its shard as Redis's lookup flags say (flags: enum
 * cmd_keys_lookup_flags; 0 for a write-side lookup that counts and touches nothing). Returns
 * the live entry, borrowed until the next store call on that shard, or NULL. No allocation.
 */
struct store_entry *cmd_keys_lookup(struct cmd_call *c, int db, const struct resp_slice *key,
                                    unsigned flags);

/* The shard a keyspace-wide command (KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSH*, SWAPDB) works on:
 * one shard in this version; the one place that becomes a loop over shards. */
struct store_shard *cmd_keys_all_shard(struct cmd_call *c);

/* Redis's getObjectTypeName for an entry ("string", ...): a static string, never NULL. */
const char *cmd_keys_type_name(const struct store_entry *e);

#endif /* TERSE_CMD_KEYS_H */
