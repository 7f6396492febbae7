/*
 * cmd_stream: the stream family (XADD ... XINFO), over the model of store_stream.h.
 * cmd_stream.c has the shared steps (load, IDs, entry replies, the group counters), XLEN and
 * the table; cmd_stream_big.c a stream's entries whichever way they are held, and the store;
 * cmd_stream_add.c the writes of entries (XADD, XTRIM, XDEL, XSETID); cmd_stream_range.c the
 * reads (XRANGE, XREVRANGE, XREAD, XREADGROUP); cmd_stream_group.c XGROUP, XACK and XPENDING;
 * cmd_stream_claim.c XCLAIM and XAUTOCLAIM; cmd_stream_info.c XINFO.
 *
 * A stream of one node is one value: a command decodes it whole into a model (arrays from the
 * server's allocator, the bytes borrowed from the decoded form in scratch and from the
 * request), edits it, writes its reply and encodes the model into scratch2 to store it. A
 * stream of more nodes is chunked (coll/coll_stream.h, one chunk per node): the model holds
 * its IDs, counters and groups only, and the entries are reached by rank through
 * cmd_stream_len, cmd_stream_at, cmd_stream_seek and edited by cmd_stream_append and
 * cmd_stream_remove, each costing the nodes it touches. Handlers use those calls for either
 * form, and cmd_stream_failed before replying a read. A store that fails (-OOM, too large)
 * withdraws the reply written so far. XREAD and XREADGROUP with BLOCK wait through
 * cmd_block.c when there is nothing to serve. Everything runs on the worker thread that owns
 * the shard.
 */
#ifndef TERSE_CMD_STREAM_H
#define TERSE_CMD_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "coll/coll_tree.h"
#include "store/form/store_stream.h"

#define CMD_STREAM_ERR_BAD_ID "ERR Invalid stream ID specified as stream command argument"

/* The largest ID, and the ID of a stream's first entry (0-0 when it has none), as Redis's
 * recorded first ID. */
extern const struct store_stream_id cmd_stream_id_max;
struct store_stream_id cmd_stream_first_id(const struct store_stream *s);

/* ---- the entries, one value or chunked (cmd_stream_big.c) ----------------------------------- */

/* Entries in the stream. */
size_t cmd_stream_len(const struct store_stream *s);
/* The entry of rank k (< len): borrowed until the next call on s. When its chunk fails to read,
 * an empty stand-in, and cmd_stream_failed answers the error. */
const struct store_stream_entry *cmd_stream_at(const struct store_stream *s, size_t k);
/* The rank of the first entry whose ID is >= id (len when none). */
size_t cmd_stream_seek(const struct store_stream *s, const struct store_stream_id *id);
/* After a read: -1 when a chunk failed on the way (the reply since mark replaced by the
 * error for key), else 0. */
int cmd_stream_failed(struct cmd_call *c, const struct resp_slice *key,
                      const struct store_stream *s, size_t mark);
/* The status such a read met: TERSE_OK when none. */
int cmd_stream_failed_status(const struct store_stream *s);
/* Appends e (its ID above the last) by Redis's node rule; removes n entries from rank at.
 * TERSE_OK or a status (ENOMEM; CORRUPT for a chunk that fails). */
int cmd_stream_append(struct cmd_call *c, struct store_stream *s,
                      const struct store_stream_entry *e);
int cmd_stream_remove(struct store_stream *s, size_t at, size_t n);
/* Nodes (Redis's listpacks), and a walk of their live counts from the head. */
size_t cmd_stream_n_nodes(const struct store_stream *s);
struct cmd_stream_nodes {
    size_t k;
    struct coll_it it;
};
void cmd_stream_nodes_begin(const struct store_stream *s, struct cmd_stream_nodes *it);
bool cmd_stream_nodes_next(const struct store_stream *s, struct cmd_stream_nodes *it,
                           size_t *live);
/* ---- a group's pending entries, one value or chunked (cmd_stream_pel.c) -------------------- */

/* Pending entries of g, and the rank of the first whose ID is >= id (*found: it is id). */
size_t cmd_stream_pel_len(const struct store_stream *s, const struct store_stream_group *g);
size_t cmd_stream_pel_find(const struct store_stream *s, const struct store_stream_group *g,
                           const struct store_stream_id *id, bool *found);
/* The pending entry of rank k (< len), a copy. When its chunk fails to read, a stand-in, and
 * cmd_stream_failed answers the error. */
struct store_stream_pending cmd_stream_pel_at(const struct store_stream *s,
                                              const struct store_stream_group *g, size_t k);
/* Puts p at rank at (from pel_find): replacing the entry there when there, else inserting.
 * Removes the entry of rank at. The consumers' counts follow. TERSE_OK or a status (ENOMEM;
 * CORRUPT for a chunk that fails), nothing changed then. */
int cmd_stream_pel_put(struct store_stream *s, struct store_stream_group *g, size_t at,
                       bool there, const struct store_stream_pending *p);
int cmd_stream_pel_remove(struct store_stream *s, struct store_stream_group *g, size_t at);
/* A consumer was added to a group of s: pending entries read before name the old indexes. */
void cmd_stream_pel_forget(const struct store_stream *s);
/* XGROUP DELCONSUMER: removes consumer ci of g and its pending entries (*n_pending: how many).
 * TERSE_OK or a status (the entries taken out before it stay out, the consumer stays). */
int cmd_stream_consumer_del(struct store_stream *s, struct store_stream_group *g, size_t ci,
                            size_t *n_pending);
/* XGROUP CREATE and DESTROY: a group inserted at at (from store_stream_group_find), with its
 * PEL when chunked; the group at at removed, with its PEL. TERSE_OK or TERSE_ENOMEM. */
int cmd_stream_group_add(struct store_stream *s, size_t at, const uint8_t *name, size_t len,
                         struct store_stream_id last_id, int64_t entries_read);
void cmd_stream_group_del(struct store_stream *s, size_t at);

/* cmd_stream_load's step for a chunked stream at entry e: 0, or -1 when it replied. */
int cmd_stream_load_big(struct cmd_call *c, const struct resp_slice *key,
                        const struct store_entry *e, struct store_stream *s);
/* Frees the server's chunked-stream state (cmd_server_deinit). */
void cmd_stream_big_free(struct cmd_server *srv);

/*
 * The stream at key for a read (for_write 0: counts a hit or miss, records the access) or a
 * write: s is initialised either way (deinit it); *found says whether the key holds a stream.
 * Returns 0 to go on, -1 when it replied (WRONGTYPE; CORRUPT for a value that fails its
 * checksum or whose form does not decode; out of memory).
 */
int cmd_stream_load(struct cmd_call *c, const struct resp_slice *key, int for_write,
                    struct store_stream *s, bool *found);

/*
 * Stores s as key's stream in the client's db, keeping any expiry. On failure the reply
 * written since output offset mark is withdrawn for the error (-OOM, CORRUPT...). Returns 0,
 * or -1 when it replied the error. s stays valid.
 */
int cmd_stream_store_or_withdraw(struct cmd_call *c, const struct resp_slice *key,
                                 const struct store_stream *s, size_t mark);

/*
 * Parses argument a as an ID as Redis's streamGenericParseIDOrReply: "ms-seq", "ms" (seq
 * missing_seq), "-" and "+" unless strict; with seq_given non-NULL, "ms-*" too (*seq_given 0).
 * 0, or -1 (no reply: the caller replies CMD_STREAM_ERR_BAD_ID, or goes on).
 */
int cmd_stream_parse_id(const struct resp_slice *a, uint64_t missing_seq, bool strict,
                        bool *seq_given, struct store_stream_id *id);

/* cmd_stream_parse_id of argv[i], replying CMD_STREAM_ERR_BAD_ID on failure: 0 or -1. */
int cmd_stream_id_or_reply(struct cmd_call *c, size_t i, uint64_t missing_seq, bool strict,
                           struct store_stream_id *id);

/* A range bound at argv[i] as XRANGE, XPENDING and XAUTOCLAIM read one: "(" makes it
 * exclusive (the next ID for a start, the previous for an end), else as parse_id (not strict).
 * 0, or -1 when it replied. */
int cmd_stream_bound_or_reply(struct cmd_call *c, size_t i, bool is_start,
                              struct store_stream_id *id);

/* ID + 1 and - 1 with carry: 0, or -1 at the edge (UINT64_MAX-UINT64_MAX, 0-0). */
int cmd_stream_id_incr(struct store_stream_id *id);
int cmd_stream_id_decr(struct store_stream_id *id);

/* Room for an ID spelled "ms-seq" (two 20-digit numbers and the dash). */
#define CMD_STREAM_ID_MAX 41

/* Writes id as "ms-seq" at out (CMD_STREAM_ID_MAX bytes of room, no NUL); returns its length.
 * No printf: XADD's reply and the write feed spell an ID on every call. */
size_t cmd_stream_id_fmt(char *out, const struct store_stream_id *id);

/* Writes an ID as a bulk "ms-seq". */
void cmd_stream_write_id(struct cmd_call *c, const struct store_stream_id *id);

/* Writes one entry as Redis does: [id, [field, value, ...]]. */
void cmd_stream_write_entry(struct cmd_call *c, const struct store_stream_entry *e);

/* The index of the entry of id, or s->n_ents when there is none. */
size_t cmd_stream_find(const struct store_stream *s, const struct store_stream_id *id);

/* Redis's streamRangeHasTombstones from start (NULL: 0-0) to the end. */
bool cmd_stream_has_tombstones(const struct store_stream *s, const struct store_stream_id *start);

/* Redis's streamEstimateDistanceFromFirstEverEntry: the entries-read counter of id, or -1
 * when it cannot be known. */
int64_t cmd_stream_estimate_read(const struct store_stream *s, const struct store_stream_id *id);

/* A group's lag as XINFO replies it: an integer, or null when it cannot be known. */
void cmd_stream_write_lag(struct cmd_call *c, const struct store_stream *s,
                          const struct store_stream_group *g);

/* The group named by argv[i] in s, or NULL. */
struct store_stream_group *cmd_stream_group(struct cmd_call *c, struct store_stream *s,
                                            size_t i);

/* The consumer named by argv[i] in g (of the stream at key), created (seen now, notified as
 * xgroup-createconsumer) when missing; its seen time is set to now either way. Its index, or
 * -1 (out of memory: replied after withdrawing to mark). */
long cmd_stream_consumer_touch(struct cmd_call *c, const struct resp_slice *key,
                               struct store_stream *s, struct store_stream_group *g, size_t i,
                               size_t mark);

/* The entries XADD puts in one node (store_stream.h), as Redis fills a listpack node: the
 * setting stream-node-max-entries (0, no limit: SIZE_MAX). */
size_t cmd_stream_node_entries(const struct cmd_call *c);
/* stream-node-max-bytes (0: Redis's bound, store_stream_node_full). */
uint64_t cmd_stream_node_bytes(const struct cmd_call *c);

/* An argument as a C string for an error text: its bytes up to the first NUL, as Redis's
 * %s of an sds; *len gets the length printed. */
const char *cmd_stream_arg_cstr(const struct resp_slice *a, int *len);

/* Redis's addReplySubcommandSyntaxError for XGROUP and XINFO: "unknown subcommand or wrong
 * number of arguments for '<argv[1]>'. Try <ARGV[0]> HELP." */
void cmd_stream_reply_subcmd_syntax(struct cmd_call *c);

void cmd_stream_xadd(struct cmd_call *c);
void cmd_stream_xtrim(struct cmd_call *c);
void cmd_stream_xdel(struct cmd_call *c);
void cmd_stream_xsetid(struct cmd_call *c);
void cmd_stream_xlen(struct cmd_call *c);
void cmd_stream_xrange(struct cmd_call *c);
void cmd_stream_xrevrange(struct cmd_call *c);
void cmd_stream_xread(struct cmd_call *c);
void cmd_stream_xgroup(struct cmd_call *c);
void cmd_stream_xack(struct cmd_call *c);
void cmd_stream_xpending(struct cmd_call *c);
void cmd_stream_xclaim(struct cmd_call *c);
void cmd_stream_xautoclaim(struct cmd_call *c);
void cmd_stream_xinfo(struct cmd_call *c);

#endif /* TERSE_CMD_STREAM_H */
