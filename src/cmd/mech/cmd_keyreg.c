/*
 * cmd_keyreg: the keys clients wait on (or channels they subscribe to).
 *
 * Its registries: WATCH's keys (cmd_watch.c), the keys of blocked clients (cmd_block.c), and
 * pub/sub's channels and patterns (cmd_pubsub.c). A key is one struct cmd_keyreg_key in two lists at once: its client's (what
 * the client drops as a whole) and a bucket of its registry, chained by the shard's key hash
 * in the order keys were added (blocked clients are served first come, first served). While
 * WATCH's or the blocked clients' registry holds a key, the store's change listener (cmd_change.c) is installed: a
 * registry that fills or empties tells it through srv->listen.
 *
 * Memory: one allocation per key added (freed when dropped); a bucket array grows with its
 * registry and is kept until the server stops.
 */
#include "cmd/mech/cmd_keyreg.h"

#include <string.h>

#include "terse/status.h"

#define KEYREG_MIN_BUCKETS 16u

static struct cmd_keyreg_key **bucket_of(const struct cmd_keyreg *reg, uint64_t hash)
{
    return &reg->buckets[hash & (reg->n_buckets - 1)];
}

int cmd_keyreg_same(const struct cmd_keyreg_key *k, uint64_t hash, int db, const void *key,
                    size_t klen)
{
    return k->hash == hash && k->db == db && k->klen == klen &&
           (klen == 0 || memcmp(k->key, key, klen) == 0);
}

struct cmd_keyreg_key *cmd_keyreg_first(const struct cmd_keyreg *reg, uint64_t hash)
{
    return reg->n == 0 ? NULL : *bucket_of(reg, hash);
}

/* Doubles the bucket array (or makes the first one), keeping each chain's order.
 * TERSE_OK or TERSE_ENOMEM (unchanged). */
static int grow(struct cmd_server *srv, struct cmd_keyreg *reg)
{
    size_t n = reg->n_buckets ? reg->n_buckets * 2 : KEYREG_MIN_BUCKETS;
    struct cmd_keyreg_key **b = srv->alloc.alloc(srv->alloc.opaque, n * sizeof(*b));
    struct cmd_keyreg_key **tail;

    if (b == NULL) {
        return TERSE_ENOMEM;
    }
    memset(b, 0, n * sizeof(*b));
    for (size_t i = 0; i < reg->n_buckets; i++) {
        struct cmd_keyreg_key *k = reg->buckets[i], *next;
        for (; k != NULL; k = next) {
            next = k->bucket_next;
            k->bucket_next = NULL;
            for (tail = &b[k->hash & (n - 1)]; *tail != NULL; tail = &(*tail)->bucket_next) {
            }
            *tail = k;
        }
    }
    srv->alloc.free(srv->alloc.opaque, reg->buckets);
    reg->buckets = b;
    reg->n_buckets = n;
    return TERSE_OK;
}

int cmd_keyreg_add(struct cmd_server *srv, struct cmd_keyreg *reg,
                   struct cmd_keyreg_key **list, struct cmd_client *cl, int db, const void *key,
                   size_t klen)
{
    uint64_t hash = store_key_hash(srv->shard, key, klen);
    struct cmd_keyreg_key *k, **tail, **client_tail;

    for (tail = list; *tail != NULL; tail = &(*tail)->client_next) {
        if (cmd_keyreg_same(*tail, hash, db, key, klen)) {
            return TERSE_OK;
        }
    }
    client_tail = tail;
    if (reg->n >= reg->n_buckets && grow(srv, reg) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    k = srv->alloc.alloc(srv->alloc.opaque, sizeof(*k) + klen);
    if (k == NULL) {
        return TERSE_ENOMEM;
    }
    k->bucket_next = NULL;
    k->cl = cl;
    k->hash = hash;
    k->db = db;
    k->mark = 0;
    k->klen = klen;
    if (klen > 0) {
        memcpy(k->key, key, klen);
    }
    for (tail = bucket_of(reg, hash); *tail != NULL; tail = &(*tail)->bucket_next) {
    }
    *tail = k;
    k->client_next = NULL;
    *client_tail = k; /* a client's keys in the order it added them (PUNSUBSCRIBE's order) */
    if (reg->n++ == 0 && srv->listen != NULL) {
        srv->listen(srv);
    }
    return TERSE_OK;
}

void cmd_keyreg_drop(struct cmd_server *srv, struct cmd_keyreg *reg,
                     struct cmd_keyreg_key **list)
{
    struct cmd_keyreg_key *k, *next;

    for (k = *list; k != NULL; k = next) {
        struct cmd_keyreg_key **pp = bucket_of(reg, k->hash);
        next = k->client_next;
        while (*pp != k) {
            pp = &(*pp)->bucket_next;
        }
        *pp = k->bucket_next;
        srv->alloc.free(srv->alloc.opaque, k);
        if (--reg->n == 0 && srv->listen != NULL) {
            srv->listen(srv);
        }
    }
    *list = NULL;
}

void cmd_keyreg_free(struct cmd_server *srv, struct cmd_keyreg *reg)
{
    srv->alloc.free(srv->alloc.opaque, reg->buckets);
    memset(reg, 0, sizeof(*reg));
}

