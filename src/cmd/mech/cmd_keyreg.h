/*
 * cmd_keyreg: the registries of keys clients wait on and channels they subscribe to.
 */
#ifndef TERSE_CMD_KEYREG_H
#define TERSE_CMD_KEYREG_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

struct cmd_keyreg_key {
    struct cmd_keyreg_key *bucket_next; /* next in the registry's bucket, in adding order */
    struct cmd_keyreg_key *client_next; /* next of the same client */
    struct cmd_client *cl;
    uint64_t hash;                      /* store_key_hash of key */
    int db;
    int mark;                           /* the registry's own: WATCH's stale, BLOCK's ready */
    size_t klen;
    uint8_t key[];                      /* klen bytes */
};
/* Adds key of db for cl to reg and to cl's list *list, unless already there. TERSE_OK or
 * TERSE_ENOMEM. The shard's change listener is on while any registry holds a key. */
int cmd_keyreg_add(struct cmd_server *srv, struct cmd_keyreg *reg,
                   struct cmd_keyreg_key **list, struct cmd_client *cl, int db, const void *key,
                   size_t klen);
/* Drops every key of the client list *list from reg. */
void cmd_keyreg_drop(struct cmd_server *srv, struct cmd_keyreg *reg,
                     struct cmd_keyreg_key **list);
/* The chain holding keys of this hash (walk bucket_next, test with cmd_keyreg_same). */
struct cmd_keyreg_key *cmd_keyreg_first(const struct cmd_keyreg *reg, uint64_t hash);
int cmd_keyreg_same(const struct cmd_keyreg_key *k, uint64_t hash, int db, const void *key,
                    size_t klen);
void cmd_keyreg_free(struct cmd_server *srv, struct cmd_keyreg *reg);

#endif /* TERSE_CMD_KEYREG_H */
