/*
 * cmd_lookup: how commands find a key: the shard that owns it, and lookups for reading or
 * writing, with the type check.
 */
#ifndef TERSE_CMD_LOOKUP_H
#define TERSE_CMD_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The shard owning key (one shard in this version, reached only through this call). */
struct store_shard *cmd_shard(struct cmd_call *c, const uint8_t *key, size_t klen);

/*
 * Looks a string key up in the client's db. Returns the entry or NULL; with replied non-NULL,
 * an entry of another type makes it reply WRONGTYPE, set *replied = 1 and return NULL.
 */
struct store_entry *cmd_lookup_read(struct cmd_call *c, const struct resp_slice *key,
                                    int *replied);
/* Same, for a write: no hit/miss counting, no LRU touch. */
struct store_entry *cmd_lookup_write(struct cmd_call *c, const struct resp_slice *key,
                                     int *replied);
/* The two lookups for a key wanted of another type (a hash). */
struct store_entry *cmd_lookup_read_type(struct cmd_call *c, const struct resp_slice *key,
                                         enum store_type type, int *replied);
struct store_entry *cmd_lookup_write_type(struct cmd_call *c, const struct resp_slice *key,
                                          enum store_type type, int *replied);

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

/* The chunked containers' environment of key's shard, with the server's codec context (chunks
 * are decoded and compressed with it). Borrowed. */
struct coll_env *cmd_coll_env(struct cmd_call *c, const struct resp_slice *key);

/* Key's chunked container was changed in place (no value stored): the store tells its change
 * listener, so WATCH, the write feed and blocked clients see the write as any other. */
void cmd_coll_edited(struct cmd_call *c, const struct resp_slice *key);

#endif /* TERSE_CMD_LOOKUP_H */
