/*
 * cmd_internal: declarations shared by the files of the cmd layer only.
 */
#ifndef TERSE_CMD_INTERNAL_H
#define TERSE_CMD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"

/* Number of top-level commands in the table. */
size_t cmd_table_count(const struct cmd_server *srv);
/* The i-th top-level command, in name order (0 <= i < cmd_table_count). */
const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i);
/* Resolves argv to a command or subcommand row as Redis's lookupCommand does: a container
 * with argc >= 2 resolves to its subcommand (NULL when unknown), with argc == 1 to itself. */
const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc);
/* Number of rows in a NULL-terminated subcommand array. */
size_t cmd_subcmd_count(const struct cmd_def *subcmds);
/* Builds srv's table from n_fam families' rows (each ended by a row with a NULL name): the
 * sorted array and the lookup table. TERSE_OK or TERSE_ENOMEM (nothing kept). */
int cmd_table_build(struct cmd_server *srv, const struct cmd_def *const *fam, size_t n_fam);
/* Frees what cmd_table_build and cmd_table_rename allocated. */
void cmd_table_free(struct cmd_server *srv);
/* 1 when one of the families' top-level rows is called name (any case). */
int cmd_table_has(const struct cmd_def *const *fam, size_t n_fam, const char *name);
/* "ERR unknown subcommand '<sub>'. Try <CMD> HELP." */
void cmd_reply_unknown_subcommand(struct cmd_call *c);
/* Writes Redis's "HELP" reply: an array of status lines (RESP simple strings). */
void cmd_reply_help(struct cmd_call *c, const char *const *lines);

/* cmd_conn.c: 1 when a[0, alen) and b[0, blen) (borrowed; NULL only with length 0) are the
 * same bytes, compared in time that does not depend on where they differ nor on their
 * lengths' relation (SHA-256 digests compared in full, as Redis 7.0 compares passwords);
 * 0 otherwise, and when libcrypto fails. Allocates only inside libcrypto. */
int cmd_auth_secret_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* cmd_debug_proto.c: DEBUG PROTOCOL <type> (one reply of every RESP type, as Redis 7.0's) and
 * DEBUG SET-DISABLE-DENY-SCRIPTS <0|1> (scripts may then call CMD_NOSCRIPT commands). */
void cmd_debug_protocol(struct cmd_call *c);
void cmd_debug_set_disable_deny_scripts(struct cmd_call *c);

/* cmd_memory.c: the maxmemory admission of d about to run as c (Redis's performEvictions
 * before a command): evicts as the policy allows; returns 1 to run the command, 0 when it
 * does not fit and is a CMD_DENYOOM command or deny is set (nothing is replied). */
int cmd_memory_admit(struct cmd_call *c, const struct cmd_def *d, int deny);

/* cmd_table.c: runs d for c once every check passed (the handler, then the counters). */
void cmd_run(struct cmd_call *c, const struct cmd_def *d);

/* cmd_feed.c: the write feed. */
/* After the handler of d ran as c: records the command as sent when it is a write that
 * changed a key (or forced), unless the handler fed its own ops. */
void cmd_feed_after(struct cmd_call *c, const struct cmd_def *d);
/* The change listener's part: a key written (counted) or gone on its own (a DEL op). */
void cmd_feed_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                           enum store_change why);
void cmd_feed_free(struct cmd_server *srv);
/* Frees the feed's buffers above keep bytes while no unit is open (cron). */
void cmd_feed_trim(struct cmd_server *srv, size_t keep);

/* cmd_conn.c: 1 when d is PING's row (refused like a write under MISCONF, as in Redis). */
int cmd_conn_is_ping(const struct cmd_def *d);

/* cmd_table.c: the -MISCONF error of settings.misconf, with its leading '-' (Redis's text
 * for the snapshot, "Errors writing to the AOF file: <strerror>" for the AOF); NULL when
 * writes are not refused. Points to a constant or to srv->misconf_text, rewritten by the
 * next call. */
const char *cmd_misconf_text(struct cmd_server *srv);

/* cmd_repl.c: 1 when d is REPLCONF's row (the one command a replica's connection runs). */
int cmd_repl_is_replconf(const struct cmd_def *d);
/* min-replicas-to-write: 1 when a write may go (not asked for, a replica, or enough online
 * replicas acknowledged within min-replicas-max-lag), 0 for -NOREPLICAS. */
#define CMD_ERR_NOREPLICAS "NOREPLICAS Not enough good replicas to write."
int cmd_repl_enough_replicas(struct cmd_server *srv);
/* Replicas that acknowledged cl's last write (its woff): what WAIT answers. */
long long cmd_block_acked(struct cmd_server *srv, const struct cmd_client *cl);

/* cmd_multi.c: transactions. */
/* Queues d as c names it (the client is in MULTI) and replies +QUEUED, or an error that
 * dooms the transaction. */
void cmd_multi_queue(struct cmd_call *c, const struct cmd_def *d);
/* 1 when d is EXEC's row. */
int cmd_multi_is_exec(const struct cmd_def *d);
/* Ends cl's transaction, if any, and unwatches its keys (DISCARD, RESET, a failed EXEC). */
void cmd_multi_discard(struct cmd_server *srv, struct cmd_client *cl);

/* cmd_records.c: commands kept for later (struct cmd_records). */
/* Appends a record of d with its arguments (copied); the argv room grows to fit it.
 * TERSE_OK or TERSE_ENOMEM (nothing appended). */
int cmd_records_put(struct cmd_server *srv, struct cmd_records *q, const struct cmd_def *d,
                    const struct resp_slice *argv, size_t argc);
/* The record at *pos (0 for the first): points q->argv at its arguments, sets *argc, moves
 * *pos past it, returns its row. */
const struct cmd_def *cmd_records_next(struct cmd_records *q, size_t *pos, size_t *argc);
void cmd_records_clear(struct cmd_records *q);             /* no record; buffers kept */
void cmd_records_free(struct cmd_server *srv, struct cmd_records *q);
/* Frees q's buffers when empty and above keep bytes. */
void cmd_records_trim(struct cmd_server *srv, struct cmd_records *q, size_t keep);
size_t cmd_records_mem(const struct cmd_records *q);      /* bytes of its buffers */

/* cmd_keyreg.c: keys clients wait on (struct cmd_keyreg). */
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

/* cmd_client.c: a client name as CLIENT SETNAME and HELLO SETNAME take it (printable ASCII,
 * no spaces): 0 with cl->name replaced, or -1 after replying the error. */
int cmd_client_set_name_or_reply(struct cmd_call *c, const struct resp_slice *name);

/* cmd_pubsub.c: subscriptions. */
/* Channels and patterns cl is subscribed to (what (P)SUBSCRIBE confirmations count). */
size_t cmd_pubsub_count(const struct cmd_client *cl);
/* Drops every subscription of cl (RESET, the client goes); nothing is replied. */
void cmd_pubsub_client_free(struct cmd_server *srv, struct cmd_client *cl);
/* Distinct channels (which 0), patterns (1) or shard channels (2) subscribed (INFO). */
size_t cmd_pubsub_names(struct cmd_server *srv, int which);
/* PUBLISH of msg on channel ch (both borrowed) to its subscribers and matching patterns,
 * from a command (srv->cur_call: its client's output is written directly) or outside one
 * (expiry, eviction from cron); returns the receivers. */
long long cmd_pubsub_publish_raw(struct cmd_server *srv, const void *ch, size_t ch_len,
                                 const void *msg, size_t msg_len);

/* cmd_watch.c: WATCH's keys. */
void cmd_watch(struct cmd_call *c);
void cmd_unwatch(struct cmd_call *c);
/* Drops every key cl watches (not its dirty mark). */
void cmd_watch_unwatch_all(struct cmd_server *srv, struct cmd_client *cl);
/* The listener's part for WATCH: key (of that hash) in db changed. */
void cmd_watch_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen);
/* SWAPDB a b is about to run: marks dirty the watchers of a key of a or b that exists,
 * unexpired, in either. */
void cmd_watch_swapdb(struct cmd_server *srv, int a, int b, int64_t now_ms);
/* EXEC: a key cl watches that expired since goes now, which marks cl dirty. */
void cmd_watch_expire_check(struct cmd_server *srv, struct cmd_client *cl, int64_t now_ms);

/* cmd_block.c: blocked clients. */
/* A blocking command found nothing to serve: unless c runs inside EXEC, or is a blocked client
 * being retried, the client blocks on the n keys at argv[first], argv[first + step], ... until
 * one is written or timeout_ms (0: forever) passes (then it gets a null array). Returns 1 when
 * it blocked (or stays blocked: c->blocked is set, and nothing must be replied), 0 when the
 * command must reply its empty answer now (EXEC), -1 when it replied an error. */
int cmd_block(struct cmd_call *c, size_t first, size_t n, size_t step, int64_t timeout_ms);
/* cmd_block keeping argv (c->argc slices) as the command to run again instead of c->argv:
 * XREAD's "$" must mean the last ID at the time of the call, not of the retry. */
int cmd_block_as(struct cmd_call *c, const struct resp_slice *argv, size_t first, size_t n,
                 size_t step, int64_t timeout_ms);
/* For a blocking command: 1 when key holds a value of type (a list, a zset: never empty) to
 * take from now, 0 when it does not (a key of another type too, when c is a retry), -1 when
 * it replied WRONGTYPE. */
int cmd_block_ready(struct cmd_call *c, const struct resp_slice *key, enum store_type type);
/* cmd_block_ready over the n keys from argv[first], in order: 1 with *at the index of the first
 * ready one, 0 when none is, -1 when it replied WRONGTYPE. */
int cmd_block_first_ready(struct cmd_call *c, size_t first, size_t n, enum store_type type,
                          size_t *at);
/* Reads a blocking command's timeout (seconds, a float) at argv[i] as Redis 7.0 does: 0 with
 * *ms (0: forever), or -1 when it replied the error. */
int cmd_block_timeout(struct cmd_call *c, size_t i, int64_t *ms);
/* The listener's part for blocked clients: key (of that hash) in db changed. */
void cmd_block_changed(struct cmd_server *srv, uint64_t hash, int db, const void *key,
                       size_t klen);
/* SWAPDB a b is about to run: the keys blocked clients wait on in a or b are to be tried. */
void cmd_block_swapdb(struct cmd_server *srv, int a, int b);
/* Ends cl's wait (the client goes): nothing is replied. */
void cmd_block_end(struct cmd_server *srv, struct cmd_client *cl);
/* CLIENT UNBLOCK: ends cl's wait with its timeout reply, or the UNBLOCKED error; 1 when it was
 * blocked, else 0. */
int cmd_block_unblock(struct cmd_server *srv, struct cmd_client *cl, int with_error);
/* Serves the blocked clients whose keys were written, until none is left to try. */
void cmd_block_serve(struct cmd_server *srv);

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

#endif /* TERSE_CMD_INTERNAL_H */
