/*
 * cmd: the command table and the state commands run against.
 *
 * cmd reaches keys only through a shard (store), writes replies with resp, and encodes values
 * with codec. Anything of other layers (clock, config, memory figures, connections, shutdown)
 * comes through struct cmd_hooks, which server/ fills in: that keeps the layer table honest.
 *
 * Threading: everything here runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_H
#define TERSE_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "codec/codec_value.h"
#include "resp/resp_parse.h"
#include "resp/resp_write.h"
#include "store/store.h"
#include "terse/alloc.h"

struct cmd_server;
struct cmd_client;
struct cmd_repl_info;
struct cmd_repl_replica;
struct cmd_script;

/* The Redis version terse answers as (clients and exporters gate features on it). */
#define CMD_SERVER_REDIS_VERSION "7.0.15"
#define CMD_SERVER_REDIS_VERSION_NUM 0x0007000f /* redis.REDIS_VERSION_NUM */
/* terse's own version, reported beside it. */
#define CMD_SERVER_TERSE_VERSION "0.1.0"

/* ---- clients ----------------------------------------------------------------------------- */

enum cmd_client_flags {
    CMD_CLIENT_CLOSE_AFTER_REPLY = 1 << 0, /* QUIT, protocol error: close once replies are out */
    CMD_CLIENT_CLOSE_ASAP = 1 << 1,        /* CLIENT KILL, output limit: close now */
    CMD_CLIENT_NO_EVICT = 1 << 2,          /* CLIENT NO-EVICT on */
    CMD_CLIENT_AUTHED = 1 << 3,            /* passed AUTH (or no requirepass) */
    CMD_CLIENT_MULTI = 1 << 4,             /* between MULTI and EXEC/DISCARD: commands queue */
    CMD_CLIENT_DIRTY_CAS = 1 << 5,         /* a WATCHed key changed: EXEC replies null */
    CMD_CLIENT_DIRTY_EXEC = 1 << 6,        /* a command failed to queue: EXEC aborts */
    CMD_CLIENT_BLOCKED = 1 << 7,           /* waits in a blocking command (cmd_block.c) */
    CMD_CLIENT_REPLY_OFF = 1 << 8,         /* CLIENT REPLY OFF: replies dropped, pushes sent */
    CMD_CLIENT_REPLY_SKIP = 1 << 9,        /* this command's reply is dropped (CLIENT REPLY SKIP) */
    CMD_CLIENT_REPLY_SKIP_NEXT = 1 << 10,  /* CLIENT REPLY SKIP ran: the next command's is */
    CMD_CLIENT_REPLICA = 1 << 11,          /* SYNC/PSYNC made it a replica: it gets the write
                                              feed; only REPLCONF runs, nothing is replied */
    CMD_CLIENT_MUST_OBEY = 1 << 12,        /* the AOF loader (Redis's mustObeyClient): commands
                                              replay as they were written (XADD's LIMIT after
                                              '=' is accepted and ignored) */
    CMD_CLIENT_MASTER = 1 << 13,           /* the link to this server's master: its commands
                                              are the master's stream, obeyed (no READONLY, no
                                              memory or persistence refusal), never replied */
    CMD_CLIENT_PROTECTED = 1 << 14,        /* its script runs past busy-reply-threshold while
                                              other clients are served: server/ leaves it
                                              alone (reads nothing, closes nothing) until the
                                              script ends (Redis's protectClient) */
    CMD_CLIENT_SCRIPT = 1 << 15            /* the Lua engine's own client (cmd_script.h) */
};

/*
 * Commands kept for later (cmd_records.c): what a client queued after MULTI, or the blocking
 * command it waits in. buf holds one record per command: its table row (a pointer), its
 * argument count, then each argument as a length and its bytes, copied out of the input
 * buffer, which moves on. argv is where a record's arguments are pointed when it runs. Both
 * are owned by the client, grown with the server's allocator and kept from one use to the next
 * (a warm MULTI/EXEC loop allocates nothing); cmd_client_deinit frees them, cmd_server_trim
 * shrinks big ones.
 */
struct cmd_records {
    uint8_t *buf;
    size_t len, cap;
    size_t n;             /* records */
    uint32_t flags;       /* union of their enum cmd_flags (EXEC's admission reads DENYOOM) */
    uint32_t inv_flags;   /* union of the flags each lacks (EXEC: one not allowed when stale) */
    struct resp_slice *argv;
    size_t argv_cap;      /* slices */
};

/* A key a client waits on (WATCH, a blocking command), in a struct cmd_keyreg (cmd_keyreg.c). */
struct cmd_keyreg_key;

/* Keys by (db, key), chained by the shard's key hash, in the order they were added. The
 * bucket array is owned by the server (from alloc); the keys by their clients' lists. */
struct cmd_keyreg {
    struct cmd_keyreg_key **buckets;
    size_t n_buckets;  /* 0 or a power of two */
    size_t n;          /* keys in it */
};

/* Where a blocked client's key became ready (cmd_block.c): its hash and db. */
struct cmd_ready {
    uint64_t hash;
    int db;
};

/*
 * Per-connection command state. Owned by server/ (one per connection), initialised with
 * cmd_client_init and deinitialised with cmd_client_deinit; cmd links it into the server's
 * client list so CLIENT LIST/KILL can see every client.
 */
struct cmd_client {
    uint64_t id;           /* CLIENT ID: unique, increasing */
    int db;                /* selected database */
    int resp;              /* protocol: 2 or 3 */
    unsigned flags;        /* enum cmd_client_flags */
    char *name;            /* CLIENT SETNAME; owned, NULL when unset */
    char addr[64];         /* peer "ip:port", set by server/ at accept */
    char laddr[64];        /* local "ip:port" */
    int fd;                /* socket, for CLIENT LIST */
    int64_t ctime_ms;      /* connection time */
    int64_t last_ms;       /* last command time */
    const char *last_cmd;  /* name of the last command (static string from the table) */
    struct resp_out *out;  /* borrowed: view of the connection's output buffer while dispatching */
    struct cmd_client *prev, *next; /* server's client list */
    struct cmd_records mq;          /* MULTI's queue */
    struct cmd_keyreg_key *watched; /* WATCHed keys: owned, each also in the server's table */
    /* A blocking command waiting (CMD_CLIENT_BLOCKED): the command, its keys (owned, each
     * also in the server's table), and when it times out (unix ms, 0 never). */
    struct cmd_records blk;
    struct cmd_keyreg_key *blocked_on;
    int64_t block_deadline_ms;
    uint64_t block_usec;   /* time its runs took so far (INFO commandstats counts it once) */
    /* Subscriptions (cmd_pubsub.c): channels, patterns, shard channels; owned, each also in
     * the server's registry of its kind, in the order subscribed. */
    struct cmd_keyreg_key *subs, *psubs, *ssubs;
    uint64_t woff;         /* replication offset after its last write was fed (WAIT) */
};

/* ---- hooks into other layers, filled by server/ ------------------------------------------ */

/* Figures of other layers for INFO, MEMORY and CLIENT LIST. */
struct cmd_sysinfo {
    uint64_t used_memory, used_memory_peak, used_memory_rss; /* bytes */
    uint64_t n_alloc, n_free;  /* allocator calls ever (core_mem): the no-allocation check */
    uint64_t bg_alloc, bg_free; /* those the server's background work made (not requests) */
    uint64_t maxmemory;
    uint64_t connected_clients, total_connections, rejected_connections;
    uint64_t net_input_bytes, net_output_bytes;
    double cpu_sys, cpu_user; /* seconds */
    int tcp_port;
    long pid;
    const char *config_file;  /* "" when none */
    const char *executable;
};

/* INFO persistence figures (Redis's field names in comments where they differ). */
struct cmd_persist_info {
    int loading;                        /* loading */
    int bgsave_in_progress;             /* rdb_bgsave_in_progress */
    int last_bgsave_ok;                 /* rdb_last_bgsave_status: ok / err */
    int64_t last_save_s;                /* rdb_last_save_time, unix seconds */
    long long last_bgsave_time_s;       /* rdb_last_bgsave_time_sec, -1 = none yet */
    long long current_bgsave_time_s;    /* rdb_current_bgsave_time_sec, -1 = none running */
    uint64_t saves;                     /* rdb_saves: successful saves since start */
    uint64_t last_load_keys_expired;    /* rdb_last_load_keys_expired */
    uint64_t last_load_keys_loaded;     /* rdb_last_load_keys_loaded */
    /* The AOF (server/srv_aof.c), Redis's aof_* fields. */
    int aof_enabled;                    /* aof_enabled: on, or waiting for its first rewrite */
    int aof_rewrite_in_progress;
    int aof_rewrite_scheduled;          /* also aof_pending_rewrite */
    long long aof_last_rewrite_time_s;  /* -1 before the first */
    long long aof_current_rewrite_time_s; /* -1 when none runs */
    int aof_last_bgrewrite_ok;
    uint64_t aof_rewrites;
    uint64_t aof_rewrites_consecutive_failures;
    int aof_last_write_ok;              /* the last write and background fsync succeeded */
    uint64_t aof_current_size;          /* bytes: the base and incr files */
    uint64_t aof_base_size;             /* bytes: the base after the last rewrite or load */
    uint64_t aof_buffer_length;         /* bytes fed, not yet written */
    uint64_t aof_pending_bio_fsync;     /* background fsyncs queued */
    uint64_t aof_delayed_fsync;         /* everysec fsyncs postponed by a slow one */
};

/* A value as DUMP and RESTORE hand it to and from persist's RDB serialization (server/ maps
 * it onto struct persist_rdb_value): a string's bytes or integer, or the byte form of the
 * other types (store_hash.h, store_list.h, ...). */
struct cmd_dump_value {
    enum store_type type;
    int is_int;          /* STRING only: the value is ival */
    int64_t ival;
    const uint8_t *p;    /* borrowed: the bytes or the form */
    size_t len;
    /* A container held in chunks (p unused): DUMP's, borrowed; or one RESTORE's hook built
     * as it read, taken by the command (stored or destroyed). */
    struct coll *coll;
    struct coll_env *env; /* and its environment, borrowed; both NULL otherwise */
};

struct cmd_hooks {
    void *srv;                               /* passed back to every hook */
    int64_t (*now_ms)(void *srv);            /* wall clock, unix ms */
    uint64_t (*now_us)(void *srv);           /* monotonic microseconds */
    /* Whether a client waits (an fd is ready): background steps give way. NULL: never. */
    bool (*input_ready)(void *srv);
    /* Wall clock, unix microseconds: a command's clock (now_ms) and its timing (INFO
     * commandstats) from one read. NULL: now_ms alone, calls untimed. */
    int64_t (*now_unix_us)(void *srv);
    void (*sysinfo)(void *srv, struct cmd_sysinfo *out);
    /* Queued/allocated bytes of a client's buffers (CLIENT LIST qbuf, omem). */
    void (*client_io)(void *srv, const struct cmd_client *cl, size_t *qbuf, size_t *qbuf_free,
                      size_t *obuf, size_t *omem);
    /* CONFIG GET: emit(arg, name, value) for every option whose name matches pattern (glob). */
    void (*config_get)(void *srv, const char *pattern,
                       void (*emit)(void *arg, const char *name, const char *value), void *arg);
    /* CONFIG SET name value [name value ...], all or nothing. names/values: n borrowed
     * NUL-terminated strings each. Returns 0, or nonzero with errbuf holding the whole error
     * text as Redis 7.0 words it, starting with "ERR ". */
    int (*config_set)(void *srv, const char *const *names, const char *const *values, size_t n,
                      char *errbuf, size_t errbuf_cap);
    void (*config_resetstat)(void *srv);
    /* SHUTDOWN: flags are CMD_SHUTDOWN_*. Returns 0 when the server will stop. */
    int (*shutdown)(void *srv, unsigned flags);
    /* Log a line at warning level. */
    void (*log_warning)(void *srv, const char *msg);
    /* Bytes the server holds now (INFO used_memory), cheap enough to call per command: the
     * maxmemory admission check reads it. NULL: no accounting, no admission check. */
    uint64_t (*mem_used)(void *srv);
    /* Shrinks the empty buffers of every client but current (which is mid-command) to a
     * small floor: what a maxmemory admission frees before it evicts or refuses, as Redis
     * frees reply blocks once sent. May be NULL. */
    void (*trim_buffers)(void *srv, const struct cmd_client *current);
    /* Persistence (server/srv_persist.c). Each may be NULL: SAVE and BGSAVE then fail. */
    int (*save)(void *srv);                /* SAVE in the foreground: enum cmd_save_result */
    int (*bgsave)(void *srv, int schedule); /* BGSAVE [SCHEDULE]: enum cmd_save_result */
    int64_t (*lastsave)(void *srv);        /* unix seconds of the last successful save */
    /* FLUSHALL emptied the dataset: a BGSAVE child is killed and, with save points, the
     * empty dataset saved at once (Redis's flushAllDataAndResetRDB; a failure is logged and
     * leaves the changes counted for the next save point). */
    void (*flushall)(void *srv);
    void (*persist_info)(void *srv, struct cmd_persist_info *out); /* INFO persistence */
    /* DEBUG RELOAD: saves (unless nosave), then replaces the dataset by the snapshot's,
     * verified before anything is dropped. Returns 0, or nonzero with errbuf holding the
     * whole error text ("ERR ..."). */
    int (*reload)(void *srv, int nosave, char *errbuf, size_t errbuf_cap);
    /* BGREWRITEAOF (server/srv_aof.c): enum cmd_save_result (CMD_SAVE_BUSY: a rewrite runs,
     * CMD_SAVE_SCHEDULED: it starts when the running child ends). NULL: it fails. */
    int (*bgrewriteaof)(void *srv);
    /* DEBUG LOADAOF: writes out what the AOF holds in memory, then replaces the dataset by
     * the AOF's on disk. Returns 0, or nonzero with errbuf holding the whole error text. */
    int (*loadaof)(void *srv, char *errbuf, size_t errbuf_cap);
    /* DUMP: v's RDB serialization with its footer (version, CRC-64) into dst (cap bytes,
     * owned by the caller); *out_len its length. TERSE_ETOOBIG with *out_len the room needed
     * when cap is too small; TERSE_ECORRUPT when v's form does not parse. NULL: DUMP fails. */
    int (*dump)(void *srv, const struct cmd_dump_value *v, uint8_t *dst, size_t cap,
                size_t *out_len);
    /* RESTORE: checks payload's footer (TERSE_EPROTO: version or checksum wrong) and reads
     * its object into *out (TERSE_ECORRUPT: bad data; TERSE_ETOOBIG, TERSE_ENOMEM). out->p
     * points into memory server/ owns, or into payload, until the next restore call. */
    int (*restore)(void *srv, const uint8_t *payload, size_t len, struct cmd_dump_value *out);
    /* A reply to cl outside its own commands (a blocked client served or timed out):
     * client_out opens cl's output buffer as a resp_out (owned by server/, valid until
     * client_out_done), client_out_done closes it and schedules cl: its replies are sent and
     * its pipelined commands run at the next turn of the loop. NULL: blocking commands never
     * block (they answer as they do inside MULTI). */
    struct resp_out *(*client_out)(void *srv, struct cmd_client *cl);
    void (*client_out_done)(void *srv, struct cmd_client *cl);
    /* The write feed (cmd_feed.c): len bytes of RESP commands (SELECT, MULTI/EXEC and the
     * writes, as Redis propagates them) for the consumers in to (enum cmd_feed_to: replicas,
     * the AOF, or both). A unit holding an op for replicas only (PUBLISH) comes twice: all of
     * it to replicas, then without those ops to the AOF. p is borrowed for the call.
     * p == NULL: ops were lost (no memory to hold them); every consumer cannot follow the
     * dataset any more and must start over (replicas resync, the AOF rewrites). NULL hook: no
     * feed. */
    void (*feed)(void *srv, const uint8_t *p, size_t len, unsigned to);
    /* Replication (server/srv_repl.c); NULL hooks: SYNC and PSYNC fail, INFO shows none.
     * repl_sync: cl asked SYNC (psync 0) or PSYNC replid offset; on CMD_REPL_FULL and
     * CMD_REPL_CONTINUE it is a replica from now on. replid_out: the server's replid. */
    int (*repl_sync)(void *srv, struct cmd_client *cl, const char *replid, long long offset,
                     int psync, char replid_out[41]);
    /* REPLCONF: what (enum cmd_repl_conf) with its number or text. */
    void (*repl_conf)(void *srv, struct cmd_client *cl, int what, long long num,
                      const char *text);
    /* WAIT: how many online replicas acknowledged offset woff; repl_getack asks them all to
     * acknowledge soon (a client waits). */
    long long (*repl_acked)(void *srv, uint64_t woff);
    void (*repl_getack)(void *srv);
    /* REPLICAOF host port (host NULL: NO ONE). Returns 0, or 1 when already its replica. */
    int (*repl_replicaof)(void *srv, const char *host, int port);
    /* Online replicas that acknowledged within max_lag seconds (min-replicas-to-write). */
    long long (*repl_good)(void *srv, long long max_lag);
    /* INFO replication, ROLE: the figures, and replica(arg, r) for each replica. */
    void (*repl_info)(void *srv, struct cmd_repl_info *out,
                      void (*replica)(void *arg, const struct cmd_repl_replica *r), void *arg);
    /* Scripting (cmd_script*.c). log_at: redis.log, level 0..3 as Redis's LL_DEBUG..
     * LL_WARNING; may be NULL (nothing logged). busy_events: a script runs past
     * busy-reply-threshold; serves the other clients once without waiting (their commands
     * go through cmd_dispatch, which answers -BUSY to all but CMD_ALLOW_BUSY ones) and
     * returns nonzero when the server is shutting down (the script is stopped). NULL: the
     * script runs to its end, nobody else served. */
    void (*log_at)(void *srv, int level, const char *msg);
    int (*busy_events)(void *srv);
};

/* Replication (server/srv_repl.c): INFO replication and ROLE figures. */
struct cmd_repl_replica {
    char ip[64];
    int port;            /* REPLCONF listening-port, 0 when not told */
    const char *state;   /* "wait_bgsave", "send_bulk", "online" */
    uint64_t offset;     /* last REPLCONF ACK */
    long long lag;       /* seconds since it */
};

struct cmd_repl_info {
    /* terse as a replica (server/srv_replica.c): replica 0 when it is a master */
    int replica, link_up, sync_in_progress, read_only, master_port;
    char master_host[256];
    const char *link_state;     /* ROLE: connect, connecting, handshake, sync, connected */
    long long last_io_s, down_since_s, slave_offset, sync_total, sync_read;
    char replid[41];
    uint64_t offset;             /* master_repl_offset */
    size_t n_replicas;
    int backlog_active;
    uint64_t backlog_size, backlog_first, backlog_histlen;
    uint64_t sync_full, sync_partial_ok, sync_partial_err; /* INFO stats */
};

/* What SYNC or PSYNC turned into (hooks.repl_sync). */
enum cmd_repl_result {
    CMD_REPL_FULL = 0,     /* a full resynchronisation: the server sends everything */
    CMD_REPL_CONTINUE = 1, /* PSYNC continues: "+CONTINUE <replid>" is the caller's reply */
    CMD_REPL_IGNORED = 2,  /* already a replica */
    CMD_REPL_FAILED = 3    /* no memory */
};

/* REPLCONF fields a replica tells (hooks.repl_conf). */
enum cmd_repl_conf { CMD_REPLCONF_PORT = 0, CMD_REPLCONF_IP = 1, CMD_REPLCONF_ACK = 2,
                     CMD_REPLCONF_GETACK = 3 };

/* Outcome of the save hooks. */
enum cmd_save_result {
    CMD_SAVE_OK = 0,        /* SAVE done; BGSAVE: the child is started */
    CMD_SAVE_SCHEDULED = 1, /* BGSAVE SCHEDULE: starts when the running child ends */
    CMD_SAVE_BUSY = 2,      /* a background save is in progress */
    CMD_SAVE_FAILED = 3     /* the server logged why */
};

enum cmd_shutdown_flags { CMD_SHUTDOWN_NOSAVE = 1, CMD_SHUTDOWN_SAVE = 2, CMD_SHUTDOWN_NOW = 4,
                          CMD_SHUTDOWN_FORCE = 8 };

/* ---- server state ------------------------------------------------------------------------ */

/* Where a string of CODEC_RAW_MAX bytes or more is compressed (terse-compression). */
enum cmd_compression {
    CMD_COMPRESS_BACKGROUND = 0, /* stored RAW and pending; store_compress_step compresses it */
    CMD_COMPRESS_INLINE = 1,     /* codec_value_encode on the write path */
    CMD_COMPRESS_OFF = 2         /* stored RAW, never compressed */
};

/* Keyspace notification classes (notify-keyspace-events), the bits of Redis 7.0's notify.c
 * (server/ keeps them equal to core_config's CORE_NOTIFY_*). */
enum cmd_notify_class {
    CMD_NOTIFY_KEYSPACE = 1 << 0, /* K: publish on __keyspace@<db>__:<key> */
    CMD_NOTIFY_KEYEVENT = 1 << 1, /* E: publish on __keyevent@<db>__:<event> */
    CMD_NOTIFY_GENERIC = 1 << 2,  /* g */
    CMD_NOTIFY_STRING = 1 << 3,   /* $ */
    CMD_NOTIFY_LIST = 1 << 4,     /* l */
    CMD_NOTIFY_SET = 1 << 5,      /* s */
    CMD_NOTIFY_HASH = 1 << 6,     /* h */
    CMD_NOTIFY_ZSET = 1 << 7,     /* z */
    CMD_NOTIFY_EXPIRED = 1 << 8,  /* x */
    CMD_NOTIFY_EVICTED = 1 << 9,  /* e */
    CMD_NOTIFY_STREAM = 1 << 10,  /* t */
    CMD_NOTIFY_KEY_MISS = 1 << 11, /* m */
    CMD_NOTIFY_NEW = 1 << 14      /* n */
};

/* Settings cmd reads; server/ keeps them in sync with the config. */
struct cmd_settings {
    int databases;
    const char *requirepass;   /* NULL or "" when unset; owned by the config */
    int enable_debug_command;  /* 0 no, 1 yes, 2 local (loopback clients only) */
    long long proto_max_bulk_len;
    const char *maxmemory_policy; /* the policy's name, e.g. "noeviction", "allkeys-lfu" */
    int lfu_log_factor;
    int lfu_decay_time;        /* minutes */
    uint64_t maxmemory;        /* bytes; 0: no limit */
    int maxmemory_eviction_tenacity; /* 0..100: time an admission may spend evicting */
    int evict_enabled;         /* 0 under noeviction: a write that does not fit is refused */
    struct store_evict_opts evict; /* policy, volatile_only, maxmemory-samples, lfu params */
    int active_expire;         /* 1: background expiry runs (DEBUG SET-ACTIVE-EXPIRE) */
    int compression;           /* enum cmd_compression (terse-compression) */
    long long hash_max_listpack_entries; /* hash-max-listpack-entries: OBJECT ENCODING */
    long long hash_max_listpack_value;   /* hash-max-listpack-value: OBJECT ENCODING */
    long long set_max_intset_entries;    /* set-max-intset-entries: OBJECT ENCODING */
    long long zset_max_listpack_entries; /* zset-max-listpack-entries: OBJECT ENCODING */
    long long zset_max_listpack_value;   /* zset-max-listpack-value: OBJECT ENCODING */
    long long stream_node_max_entries;   /* stream-node-max-entries: approximate trimming */
    long long stream_node_max_bytes;     /* stream-node-max-bytes: where a node ends */
    int notify;                /* notify-keyspace-events: CMD_NOTIFY_* bits */
    /* Writes refused (Redis 7.0's processCommand): misconf (enum cmd_misconf) is set by
     * server/ while writes cannot be made durable: -MISCONF to writes, PING and may-write
     * scripts, with misconf_errno (the AOF's failed write or fsync) in the AOF's text;
     * min_replicas_* (min-replicas-to-write, -max-lag) make a write need that many replicas
     * acknowledging within max_lag seconds (-NOREPLICAS). */
    int misconf;
    int misconf_errno;
    long long min_replicas_to_write, min_replicas_max_lag;
    int replica;               /* a replica: maxmemory evicts nothing (its master's DELs do) */
    int replica_ro;            /* a read-only replica: clients' writes get -READONLY */
    int replica_stale;         /* its link is down and replica-serve-stale-data is no:
                                  commands not flagged CMD_STALE get -MASTERDOWN */
    long long busy_reply_threshold_ms; /* busy-reply-threshold (lua-time-limit); 0: none */
    char run_id[41];           /* 40 hex chars, random per process start */
    /* Lists: a list whose form passes list_chunk_max bytes (or holds more than list_chunk_n
     * elements) becomes a chunked container of chunks of about that size
     * (list-max-listpack-size: -1..-5 = 4..64 KiB; a count N = N elements and at most 8 KiB,
     * Redis's safety limit), list_keep_raw chunks at each end kept uncompressed
     * (list-compress-depth - 1, the open ends being the first). 0: the defaults
     * (cmd_list_shape). */
    /* Hashes, sets: a hashtable-encoded one whose form passes coll_chunk_bytes is chunked
     * (terse-chunk-bytes, 4 KiB), back to one value under a quarter of that. */
    uint32_t coll_chunk_bytes;
    uint32_t list_chunk_max;
    uint32_t list_chunk_n;
    int list_keep_raw;
    int lazy_user_flush; /* lazyfree-lazy-user-flush: FLUSH* without SYNC frees lazily (the
                            other lazyfree-lazy-* are the shard's store_set_lazy bits) */
};

/* Why writes are refused with -MISCONF (Redis 7.0's writeCommandsDeniedByDiskError, in its
 * order: the snapshot's reason first). */
enum cmd_misconf {
    CMD_MISCONF_NONE = 0,
    CMD_MISCONF_RDB = 1, /* stop-writes-on-bgsave-error, save points, the last bgsave failed */
    CMD_MISCONF_AOF = 2  /* the AOF is on and its last write or background fsync failed */
};

#define CMD_MISCONF_TEXT_CAP 160 /* "-MISCONF ...AOF...: <strerror>" */

#define CMD_ERRSTATS_MAX 128 /* error codes INFO errorstats keeps apart (Redis's limit) */
#define CMD_ERRCODE_MAX 32   /* longest code kept; a longer one is cut */

struct cmd_stats {
    uint64_t total_commands;
    uint64_t keyspace_hits, keyspace_misses;
    uint64_t corrupt_values;    /* values that failed verification on read */
    uint64_t orig_value_bytes;  /* original bytes of strings written (SET family) */
    uint64_t stored_value_bytes;/* their stored bytes (lowered by what background compression
                                   saves on them: cmd_compress_step) */
    uint64_t evicted_keys;      /* keys deleted to honour maxmemory (INFO stats) */
    uint64_t total_error_replies; /* every error reply sent (INFO stats) */
    /* Error replies by code (INFO errorstats), at most CMD_ERRSTATS_MAX codes, as Redis. */
    struct cmd_errstat {
        char code[CMD_ERRCODE_MAX + 1];
        uint64_t count;
    } errstats[CMD_ERRSTATS_MAX];
    size_t n_errstats;
};

/*
 * The write feed (cmd_feed.c): while a consumer is attached (a replica, the AOF), every
 * command that changed the dataset is recorded as Redis propagates it (the command as sent,
 * or rewritten where replaying it would not give the same result: relative times made
 * absolute, blocking and random commands made plain), with the DELs of keys that expired or
 * were evicted. The ops of one execution unit (a command, a whole EXEC, an expiry step)
 * collect in buf and go out together at its end, wrapped in MULTI/EXEC when there are several.
 * Buffers: owned here, grown with the server's allocator and kept (a warm feed allocates
 * nothing); cmd_server_deinit frees them.
 */
struct cmd_feed_op {
    size_t off, len; /* its RESP array in buf */
    int db;
    int repl_only;   /* not for the AOF (CMD_FEED_REPL_ONLY) */
};

struct cmd_feed {
    int on;            /* hooks.feed has a consumer: commands record their ops */
    int sel_db;        /* db the feed last selected; -1: the next op selects first */
    int lost;          /* an op could not be held: the unit is reported lost at its end */
    size_t n_repl_only; /* ops of the unit for replicas only */
    uint64_t changes;  /* store changes seen by the change listener (keys written) */
    uint8_t *buf;      /* the unit's ops, RESP arrays back to back */
    size_t len, cap;
    struct cmd_feed_op *ops;
    size_t n_ops, ops_cap;
    uint8_t *out;      /* what cmd_feed_flush hands to hooks.feed */
    size_t out_len, out_cap;
    struct resp_slice *argv; /* room where a handler builds a long rewrite (cmd_feed_argv) */
    size_t argv_cap;
};

/* A slot of cmd_server.htab: a command under the name clients call it by (its own, or the
 * one rename-command gave it); name NULL: empty. */
struct cmd_name_slot {
    const char *name;        /* borrowed: the row's name, or one of cmd_server.renamed */
    const struct cmd_def *d;
    uint32_t hash;           /* name_hash of name (cmd_table.c) */
    uint32_t len;            /* strlen(name) */
};

/* Bytes the server holds (hooks.mem_used: everything from core_mem), 0 without the hook. */
static inline uint64_t cmd_mem_used(const struct cmd_server *srv);

/* A key event reported by core code (a keyspace miss), fanned out by cmd_change.c. */
typedef void cmd_event_fn(struct cmd_server *srv, int type, const char *event, int db,
                          const void *key, size_t klen);

struct cmd_server {
    struct store_shard *shard;   /* the one shard (first version: one worker) */
    struct codec_ctx *codec;     /* the worker's codec context */
    terse_allocator alloc;       /* counting allocator of the server (core_mem) */
    struct cmd_hooks hooks;
    struct cmd_settings settings;
    struct cmd_stats stats;
    /* Hooks the change fan-out installs (cmd_change_setup), so that code below it reports
     * through them without calling up: a key event (a keyspace miss), and a key registry that
     * filled or emptied (re-deciding whether the store's change listener is needed). */
    cmd_event_fn *on_event;
    void (*listen)(struct cmd_server *srv);
    struct cmd_client *clients;  /* list head */
    uint64_t next_client_id;
    int64_t start_ms;            /* process start, unix ms */
    uint64_t used_memory_startup; /* hooks.mem_used at cmd_server_init (INFO, MEMORY STATS) */
    int64_t last_trim_ms;        /* when admission last called hooks.trim_buffers */
    /* Changes since the last successful save (rdb_changes_since_last_save): cmd_dispatch
     * adds, after every CMD_WRITE command, the number of keys it names (at least 1); the
     * server subtracts what a snapshot covered. Not reset by CONFIG RESETSTAT. */
    uint64_t dirty;
    /* Top-level commands sorted by their own name, less those rename-command disabled (a
     * renamed one stays, under its own name, as Redis's COMMAND lists it); owned, from alloc. */
    const struct cmd_def **table;
    size_t n_table;
    /* The same commands by the name clients call them (cmd_lookup), open addressing; owned,
     * from alloc, htab_mask + 1 slots. */
    struct cmd_name_slot *htab;
    size_t htab_mask;
    /* INFO commandstats (cmd_cstats.c): a slot per row, keyed by its address; owned, from
     * alloc, cstats_mask + 1 slots. cstats_err_mark: stats.total_error_replies when the last
     * call or refusal ended (the errors since are the running call's). */
    struct cmd_cstat *cstats;
    size_t cstats_mask;
    uint64_t cstats_err_mark;
    /* The -MISCONF text of the AOF's reason, with its '-' (cmd_misconf_text writes it). */
    char misconf_text[CMD_MISCONF_TEXT_CAP];
    char **renamed;               /* names rename-command gave (copies); owned, from alloc */
    size_t n_renamed;
    /* Scratch space for decoding and encoding values. Owned here, grown with alloc, reused
     * across commands, freed by cmd_server_deinit. */
    uint8_t *scratch;
    size_t scratch_cap;
    uint8_t *scratch2;
    size_t scratch2_cap;
    /* A third, for arrays a command builds next to the other two (the field/value pairs of
     * an HSET, the field offsets HRANDFIELD picks from). Same owner and lifetime. */
    uint8_t *scratch3;
    size_t scratch3_cap;
    /* A chunked stream's state while a stream command runs on it (cmd_stream_big.c): made on
     * first use from alloc, kept for the next (its entry array too), freed by
     * cmd_server_deinit. */
    struct cmd_stream_big *stream_big;
    /* Every WATCHed key of every client (cmd_watch.c), and every key a blocked client waits
     * on (cmd_block.c). While either holds a key, the shard reports changes (cmd_change.c). */
    struct cmd_keyreg watch;
    struct cmd_keyreg block;
    /* Pub/sub subscriptions by channel, pattern and shard channel (cmd_pubsub.c). */
    struct cmd_keyreg pubsub_chan, pubsub_pat, pubsub_shard;
    size_t n_blocked;            /* clients with CMD_CLIENT_BLOCKED */
    int64_t block_next_deadline; /* earliest deadline of a blocked client (unix ms), 0: none */
    /* Keys of blocked clients written since they were last served, in order (cmd_block.c).
     * Owned here, grown with alloc and kept. */
    struct cmd_ready *ready;
    size_t n_ready, ready_cap;
    /* The command running (cmd_dispatch, a blocked client served), NULL outside one: a
     * message for its client goes to its output (cmd_pubsub_publish_raw). */
    struct cmd_call *cur_call;
    struct cmd_feed feed;        /* replication and AOF (cmd_feed.c) */
    struct cmd_script *script;   /* Lua scripting (cmd_script.h): owned, created on first use,
                                    freed by cmd_server_deinit */
};

static inline uint64_t cmd_mem_used(const struct cmd_server *srv)
{
    return srv->hooks.mem_used != NULL ? srv->hooks.mem_used(srv->hooks.srv) : 0;
}

/* ---- the command table -------------------------------------------------------------------- */

/* One command's execution context. */
enum cmd_call_mode {
    CMD_CALL_EXEC = 1 << 0,  /* run by EXEC: a blocking command does not block */
    CMD_CALL_RETRY = 1 << 1  /* a blocked client served: reply only if it can be served */
};

struct cmd_call {
    struct cmd_server *srv;
    struct cmd_client *cl;
    struct resp_out *out;          /* == cl->out */
    const struct resp_slice *argv; /* borrowed: slices of the input buffer */
    size_t argc;
    int64_t now_ms;                /* the command's clock, read once before it runs */
    int64_t start_us;              /* the read now_ms came from (hooks.now_unix_us), 0: none */
    unsigned mode;                 /* enum cmd_call_mode */
    int blocked;                   /* set by cmd_block: the command waits (nothing replied) */
    int emptied;                   /* the last write of a hash, list, set or zset deleted the
                                      key it left empty (cmd_notify_edit reports it) */
    size_t pushed;                 /* out->len after the last push message to the client
                                      (cmd_push_begin/end): what a silenced client keeps */
    int unchanged;                 /* set by a write that changed nothing it names (SETBIT of
                                      the same bit): not counted in dirty, as in Redis */
    unsigned feed;                 /* enum cmd_feed_flags, set by the handler */
    uint64_t feed_changes;         /* srv->feed.changes as the handler started */
};

/* How a command reaches the write feed (cmd_feed.c). By default a CMD_WRITE command that
 * changed a key is fed as it was sent. */
enum cmd_feed_flags {
    CMD_FEED_PREVENT = 1 << 0, /* the handler fed its own ops (or none): not the command */
    CMD_FEED_FORCE = 1 << 1,   /* fed even if no key changed (FLUSHALL, SWAPDB, PUBLISH) */
    CMD_FEED_NO_MULTI = 1 << 2, /* set by cmd_run for CMD_ARBITRARY_KEYS: the unit's ops (lazy
                                   expiry's DELs) are not wrapped in MULTI/EXEC */
    CMD_FEED_REPL_ONLY = 1 << 3 /* the command is fed to replicas, not to the AOF (PUBLISH,
                                   SPUBLISH: Redis's PROPAGATE_REPL) */
};

/* Consumers of a feed hook call. */
enum cmd_feed_to { CMD_FEED_TO_REPL = 1, CMD_FEED_TO_AOF = 2 };

typedef void cmd_proc(struct cmd_call *c);

enum cmd_flags {
    CMD_WRITE = 1 << 0,
    CMD_READONLY = 1 << 1,
    CMD_DENYOOM = 1 << 2,
    CMD_ADMIN = 1 << 3,
    CMD_PUBSUB = 1 << 4,
    CMD_NOSCRIPT = 1 << 5,
    CMD_BLOCKING = 1 << 6,
    CMD_LOADING = 1 << 7,
    CMD_STALE = 1 << 8,
    CMD_SKIP_MONITOR = 1 << 9,
    CMD_SKIP_SLOWLOG = 1 << 10,
    CMD_FAST = 1 << 11,
    CMD_NO_AUTH = 1 << 12,        /* may run before AUTH */
    CMD_MAY_REPLICATE = 1 << 13,
    CMD_SENTINEL = 1 << 14,
    CMD_ONLY_SENTINEL = 1 << 15,
    CMD_NO_MANDATORY_KEYS = 1 << 16,
    CMD_PROTECTED = 1 << 17,
    CMD_NO_ASYNC_LOADING = 1 << 18,
    CMD_NO_MULTI = 1 << 19,
    CMD_MOVABLE_KEYS = 1 << 20,
    CMD_ALLOW_BUSY = 1 << 21,
    CMD_TX_NOW = 1 << 22,         /* terse's own: runs at once inside MULTI, never queued
                                     (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET) */
    CMD_SUB_OK = 1 << 23,         /* terse's own: allowed to a RESP2 client with
                                     subscriptions ((P|S)(UN)SUBSCRIBE, PING, QUIT, RESET) */
    CMD_ARBITRARY_KEYS = 1 << 24, /* may touch any key (SCAN, RANDOMKEY): Redis's hidden
                                     TOUCHES_ARBITRARY_KEYS, for the write feed */
    CMD_WAITS_REPLICAS = 1 << 25  /* terse's own: blocks until replicas acknowledge, not on
                                     keys (WAIT); its timeout answers cmd_block_wait_reply */
};

/*
 * One row of the command table, as Redis 7.0 describes a command (COMMAND INFO).
 * arity: exact argument count including the name, or -N for "at least N".
 * Keys: first_key..last_key step key_step (last_key -1 = last argument); 0 = no keys.
 */
struct cmd_def {
    const char *name;        /* lower case, e.g. "get"; for a subcommand "config|get" */
    int arity;
    uint32_t flags;          /* enum cmd_flags */
    int first_key, last_key, key_step;
    cmd_proc *proc;          /* NULL for a container whose subcommands do the work */
    const char *acl;         /* ACL categories, space separated, e.g. "@read @string @fast" */
    const char *summary;     /* COMMAND DOCS summary */
    const char *since;       /* COMMAND DOCS since */
    const char *group;       /* COMMAND DOCS group, e.g. "string" */
    const struct cmd_def *subcmds; /* NULL-name-terminated array, or NULL */
};

#endif /* TERSE_CMD_H */
