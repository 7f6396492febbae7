/*
 * core_config: the server configuration, its parsers and its CONFIG GET/SET view.
 *
 * Every option is one row of CORE_CONFIG_OPTIONS below. That one table yields the fields of
 * struct core_config, the defaults, the parsers used by the config file, the command line and
 * CONFIG SET, the CONFIG GET formatting and the mutability rules; nothing else lists options.
 * CORE_CONFIG_ALIASES, after it, gives a few options the second name Redis 7.0 accepts.
 *
 * Row: X(NAME, field, KIND, DEFAULT, MIN, MAX, ENUMNAMES, FLAGS)
 *   NAME      the option's name as Redis spells it (matched case-insensitively; wherever this
 *             header says "name", an alias from CORE_CONFIG_ALIASES is accepted too)
 *   field     the member of struct core_config
 *   KIND      BOOL  bool; "yes"/"no", any case
 *             INT   long long; a decimal integer in [MIN, MAX], Redis's strict rules
 *                   (no sign "+", no leading zero, no spaces)
 *             CLAMP long long; a decimal integer in [0, INT_MAX], then clamped into [MIN, MAX]
 *                   silently (Redis does this for hz)
 *             MEM   uint64_t bytes; digits with an optional unit, any case: b, k=1000,
 *                   kb=1024, m=1000^2, mb=1024^2, g=1000^3, gb=1024^3; in [MIN, MAX]
 *             STR   char *, owned, never NULL once initialised
 *             ENUM  int holding an enum core_config_<ENUMNAMES> value; one of its names
 *             BIND  struct core_config_bind: 0..CORE_CONFIG_BIND_MAX addresses
 *             SAVE  struct core_config_save: pairs "seconds changes", 0..CORE_CONFIG_SAVE_MAX
 *             OBUF  struct core_config_obuf: groups "class hard soft soft_seconds"
 *             NOTIFY int of CORE_NOTIFY_* bits; Redis's notify-keyspace-events letters
 *   DEFAULT   the default as the text a config file would carry; core_config_init parses it
 *             with the same code as any other value, so CONFIG GET shows it verbatim
 *   FLAGS     CORE_CONFIG_MUTABLE: CONFIG SET may change it
 *             CORE_CONFIG_IMMUTABLE: startup only ("can't set immutable config")
 *             CORE_CONFIG_PROTECTED: CONFIG SET only when enable-protected-configs allows it
 *             | CORE_CONFIG_ONLY_NO: a BOOL whose "yes" terse does not implement (refused)
 *             | CORE_CONFIG_BASENAME: a STR that must not contain a path separator
 *             | CORE_CONFIG_SENSITIVE: a secret (callers redact it from logs)
 *
 * Sources, in the order the server applies them: defaults (core_config_init), the file
 * (core_config_load_file), the command line (core_config_apply_args), later CONFIG SET
 * (core_config_set, core_config_set_pairs). A later source overrides an earlier one. Within
 * one file or one command line, "save" lines accumulate (the first one replaces what was
 * there before) and "client-output-buffer-limit" lines update only the classes they name;
 * every other option keeps its last value.
 *
 * Thread-safety: none; a struct core_config is owned by one thread (main, at startup; then the
 * thread that serves CONFIG). Memory comes from core_mem.
 */
#ifndef TERSE_CORE_CONFIG_H
#define TERSE_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most addresses "bind" accepts (Redis's CONFIG_BINDADDR_MAX). */
#define CORE_CONFIG_BIND_MAX 16
/* Longest bind address in bytes (a host name is at most 253). */
#define CORE_CONFIG_BIND_ADDR_MAX 255
/* Most "seconds changes" pairs "save" keeps. */
#define CORE_CONFIG_SAVE_MAX 16
/* Room for any value CONFIG GET formats (everything except STR options, which are emitted
 * from their own storage): CORE_CONFIG_BIND_MAX addresses of CORE_CONFIG_BIND_ADDR_MAX. */
#define CORE_CONFIG_VALUE_CAP (CORE_CONFIG_BIND_MAX * (CORE_CONFIG_BIND_ADDR_MAX + 1) + 64)
/* Room for a complete error text from any function below (longer texts are truncated). */
#define CORE_CONFIG_ERR_CAP 512

/* Option flags (FLAGS column). */
#define CORE_CONFIG_MUTABLE 0x00u
#define CORE_CONFIG_IMMUTABLE 0x01u
#define CORE_CONFIG_PROTECTED 0x02u
#define CORE_CONFIG_ONLY_NO 0x04u
#define CORE_CONFIG_BASENAME 0x08u
#define CORE_CONFIG_SENSITIVE 0x10u

/* Flag for core_config_set_pairs: the client is on a local connection (loopback or unix
 * socket), which "local" in enable-protected-configs admits. */
#define CORE_CONFIG_SET_LOCAL 0x01u

/* ENUM kinds: the enum constants are in the order of their names in core_config.c, which is
 * the order Redis lists them in its error text. */
enum core_config_loglevel {
    CORE_LOGLEVEL_DEBUG,
    CORE_LOGLEVEL_VERBOSE,
    CORE_LOGLEVEL_NOTICE,
    CORE_LOGLEVEL_WARNING,
    CORE_LOGLEVEL_COUNT
};

enum core_config_policy {
    CORE_POLICY_VOLATILE_LRU,
    CORE_POLICY_VOLATILE_LFU,
    CORE_POLICY_VOLATILE_RANDOM,
    CORE_POLICY_VOLATILE_TTL,
    CORE_POLICY_ALLKEYS_LRU,
    CORE_POLICY_ALLKEYS_LFU,
    CORE_POLICY_ALLKEYS_RANDOM,
    CORE_POLICY_NOEVICTION,
    CORE_POLICY_COUNT
};

/* enable-debug-command, enable-protected-configs. */
enum core_config_access {
    CORE_ACCESS_NO,
    CORE_ACCESS_YES,
    CORE_ACCESS_LOCAL, /* allowed from loopback and unix-socket clients only */
    CORE_ACCESS_COUNT
};

enum core_config_supervised {
    CORE_SUPERVISED_UPSTART,
    CORE_SUPERVISED_SYSTEMD,
    CORE_SUPERVISED_AUTO,
    CORE_SUPERVISED_NO,
    CORE_SUPERVISED_COUNT
};

/* s3-checksum: the trailing checksum of backups to S3 (srv_backup.c maps it to the s3 layer's
 * algorithm). */
enum core_config_s3checksum {
    CORE_S3_CHECKSUM_CRC32C,
    CORE_S3_CHECKSUM_CRC32,
    CORE_S3_CHECKSUM_CRC64NVME,
    CORE_S3_CHECKSUM_SHA1,
    CORE_S3_CHECKSUM_SHA256,
    CORE_S3_CHECKSUM_COUNT
};

/* appendfsync: when the AOF is fsynced (server/srv_aof.c). */
enum core_config_fsync {
    CORE_FSYNC_ALWAYS,   /* after every write, before the replies go out */
    CORE_FSYNC_EVERYSEC, /* once a second, by a background thread */
    CORE_FSYNC_NO,       /* when the kernel decides */
    CORE_FSYNC_COUNT
};

/* terse-compression: where values of CODEC_RAW_MAX bytes or more are compressed. */
enum core_config_compression {
    CORE_COMPRESSION_BACKGROUND, /* stored raw by the write, compressed off the request path */
    CORE_COMPRESSION_INLINE,     /* compressed by the write (LZ4 fast) */
    CORE_COMPRESSION_OFF,        /* stored raw, never compressed */
    CORE_COMPRESSION_COUNT
};

/* Client classes of client-output-buffer-limit ("slave" is Redis's name for replica). */
enum core_config_client_class {
    CORE_CLIENT_NORMAL,
    CORE_CLIENT_REPLICA,
    CORE_CLIENT_PUBSUB,
    CORE_CLIENT_CLASS_COUNT
};

struct core_config_bind {
    size_t n_addr;                        /* 0..CORE_CONFIG_BIND_MAX; 0 = no TCP listener */
    char *addr[CORE_CONFIG_BIND_MAX];     /* owned, [0, n_addr) set, NUL-terminated, as given
                                           * ("*", "-::*", "127.0.0.1"); the rest NULL */
};

struct core_config_save_point {
    long long seconds; /* >= 1 */
    long long changes; /* >= 0 */
};

struct core_config_save {
    size_t n_point; /* 0..CORE_CONFIG_SAVE_MAX; 0 = no automatic snapshots */
    struct core_config_save_point point[CORE_CONFIG_SAVE_MAX];
};

struct core_config_obuf_class {
    uint64_t hard_bytes;       /* 0 = no hard limit */
    uint64_t soft_bytes;       /* 0 = no soft limit */
    long long soft_seconds;    /* >= 0; how long the soft limit may be exceeded */
};

struct core_config_obuf {
    struct core_config_obuf_class cls[CORE_CLIENT_CLASS_COUNT]; /* by core_config_client_class */
};

#define CORE_CONFIG_INT_MAX 2147483647LL
#define CORE_CONFIG_UINT_MAX 4294967295LL
#define CORE_CONFIG_LLONG_MAX 9223372036854775807LL
#define CORE_CONFIG_U64_MAX 18446744073709551615ULL
#define CORE_CONFIG_MB 1048576ULL
/* s3-part-size range: S3's smallest non-final part (5 MiB) and its largest part (5 GiB). */
#define CORE_CONFIG_S3_PART_MIN (5 * CORE_CONFIG_MB)
#define CORE_CONFIG_S3_PART_MAX (5120 * CORE_CONFIG_MB)
/* hz is clamped into this range, as Redis clamps it (CONFIG_MIN_HZ, CONFIG_MAX_HZ). */
#define CORE_CONFIG_HZ_MIN 1
#define CORE_CONFIG_HZ_MAX 500

/* notify-keyspace-events: the event classes of Redis 7.0's notify.c, one bit per letter. */
#define CORE_NOTIFY_KEYSPACE (1 << 0)  /* K: __keyspace@<db>__:<key> channels */
#define CORE_NOTIFY_KEYEVENT (1 << 1)  /* E: __keyevent@<db>__:<event> channels */
#define CORE_NOTIFY_GENERIC (1 << 2)   /* g */
#define CORE_NOTIFY_STRING (1 << 3)    /* $ */
#define CORE_NOTIFY_LIST (1 << 4)      /* l */
#define CORE_NOTIFY_SET (1 << 5)       /* s */
#define CORE_NOTIFY_HASH (1 << 6)      /* h */
#define CORE_NOTIFY_ZSET (1 << 7)      /* z */
#define CORE_NOTIFY_EXPIRED (1 << 8)   /* x */
#define CORE_NOTIFY_EVICTED (1 << 9)   /* e */
#define CORE_NOTIFY_STREAM (1 << 10)   /* t */
#define CORE_NOTIFY_KEY_MISS (1 << 11) /* m (not part of A) */
#define CORE_NOTIFY_LOADED (1 << 12)   /* modules only: no letter */
#define CORE_NOTIFY_MODULE (1 << 13)   /* d */
#define CORE_NOTIFY_NEW (1 << 14)      /* n (not part of A) */
/* A: every class but m and n. */
#define CORE_NOTIFY_ALL                                                                          \
    (CORE_NOTIFY_GENERIC | CORE_NOTIFY_STRING | CORE_NOTIFY_LIST | CORE_NOTIFY_SET |             \
     CORE_NOTIFY_HASH | CORE_NOTIFY_ZSET | CORE_NOTIFY_EXPIRED | CORE_NOTIFY_EVICTED |            \
     CORE_NOTIFY_STREAM | CORE_NOTIFY_MODULE)
/* Room for core_config_notify_format's text and its NUL. */
#define CORE_NOTIFY_TEXT_CAP 16

/*
 * core_config_notify_parse: the bits of a notify-keyspace-events value (letters of
 * "Ag$lshzxeKEtmdn" in any order and number; "" is 0). Returns true with *flags set, false
 * (and *flags untouched) on any other character. text: borrowed, NUL-terminated.
 */
bool core_config_notify_parse(const char *text, int *flags);
/*
 * core_config_notify_format: flags as Redis's CONFIG GET spells them: "A" when every class of
 * A is set, else the class letters in the order g$lshzxetdn, then K, E, m. Writes at most
 * CORE_NOTIFY_TEXT_CAP bytes (NUL included) into buf.
 */
void core_config_notify_format(int flags, char *buf);

/* The table. MIN/MAX are 0 where the kind has no range. */
#define CORE_CONFIG_OPTIONS(X)                                                                   \
    X("port", port, INT, "6379", 0, 65535, -, CORE_CONFIG_MUTABLE)                               \
    X("bind", bind, BIND, "127.0.0.1", 0, 0, -, CORE_CONFIG_MUTABLE)                             \
    X("unixsocket", unixsocket, STR, "", 0, 0, -, CORE_CONFIG_IMMUTABLE)                         \
    X("protected-mode", protected_mode, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)               \
    X("tcp-backlog", tcp_backlog, INT, "511", 0, CORE_CONFIG_INT_MAX, -, CORE_CONFIG_IMMUTABLE)  \
    X("tcp-keepalive", tcp_keepalive, INT, "300", 0, CORE_CONFIG_INT_MAX, -,                     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("timeout", timeout, INT, "0", 0, CORE_CONFIG_INT_MAX, -, CORE_CONFIG_MUTABLE)              \
    X("maxclients", maxclients, INT, "10000", 1, CORE_CONFIG_UINT_MAX, -, CORE_CONFIG_MUTABLE)   \
    X("databases", databases, INT, "16", 1, CORE_CONFIG_INT_MAX, -, CORE_CONFIG_IMMUTABLE)      \
    X("requirepass", requirepass, STR, "", 0, 0, -, CORE_CONFIG_MUTABLE | CORE_CONFIG_SENSITIVE) \
    X("daemonize", daemonize, BOOL, "no", 0, 0, -, CORE_CONFIG_IMMUTABLE | CORE_CONFIG_ONLY_NO) \
    X("supervised", supervised, ENUM, "no", 0, 0, supervised, CORE_CONFIG_IMMUTABLE)            \
    X("pidfile", pidfile, STR, "", 0, 0, -, CORE_CONFIG_IMMUTABLE)                               \
    X("loglevel", loglevel, ENUM, "notice", 0, 0, loglevel, CORE_CONFIG_MUTABLE)                 \
    X("logfile", logfile, STR, "", 0, 0, -, CORE_CONFIG_IMMUTABLE)                               \
    X("enable-debug-command", enable_debug_command, ENUM, "no", 0, 0, access,                    \
      CORE_CONFIG_IMMUTABLE)                                                                     \
    X("enable-protected-configs", enable_protected_configs, ENUM, "no", 0, 0, access,            \
      CORE_CONFIG_IMMUTABLE)                                                                     \
    X("proto-max-bulk-len", proto_max_bulk_len, MEM, "536870912", CORE_CONFIG_MB,                \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("client-query-buffer-limit", client_query_buffer_limit, MEM, "1073741824", CORE_CONFIG_MB, \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("client-output-buffer-limit", client_output_buffer_limit, OBUF,                            \
      "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", 0, 0, -,            \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("maxmemory", maxmemory, MEM, "0", 0, CORE_CONFIG_U64_MAX, -, CORE_CONFIG_MUTABLE)          \
    X("maxmemory-policy", maxmemory_policy, ENUM, "noeviction", 0, 0, policy,                    \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("maxmemory-samples", maxmemory_samples, INT, "5", 1, CORE_CONFIG_INT_MAX, -,               \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("maxmemory-eviction-tenacity", maxmemory_eviction_tenacity, INT, "10", 0, 100, -,          \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("busy-reply-threshold", busy_reply_threshold, INT, "5000", 0, CORE_CONFIG_LLONG_MAX, -,     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("lfu-log-factor", lfu_log_factor, INT, "10", 0, CORE_CONFIG_INT_MAX, -,                    \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("lfu-decay-time", lfu_decay_time, INT, "1", 0, CORE_CONFIG_INT_MAX, -,                     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("active-expire-effort", active_expire_effort, INT, "1", 1, 10, -, CORE_CONFIG_MUTABLE)    \
    X("hz", hz, CLAMP, "10", CORE_CONFIG_HZ_MIN, CORE_CONFIG_HZ_MAX, -, CORE_CONFIG_MUTABLE)     \
    X("dynamic-hz", dynamic_hz, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)                       \
    X("activerehashing", activerehashing, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)             \
    X("lazyfree-lazy-eviction", lazyfree_lazy_eviction, BOOL, "no", 0, 0, -,                     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("lazyfree-lazy-expire", lazyfree_lazy_expire, BOOL, "no", 0, 0, -, CORE_CONFIG_MUTABLE)    \
    X("lazyfree-lazy-server-del", lazyfree_lazy_server_del, BOOL, "no", 0, 0, -,                 \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("lazyfree-lazy-user-del", lazyfree_lazy_user_del, BOOL, "no", 0, 0, -,                     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("lazyfree-lazy-user-flush", lazyfree_lazy_user_flush, BOOL, "no", 0, 0, -,                 \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("slowlog-log-slower-than", slowlog_log_slower_than, INT, "10000", -1,                      \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("slowlog-max-len", slowlog_max_len, INT, "128", 0, CORE_CONFIG_LLONG_MAX, -,               \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("latency-monitor-threshold", latency_monitor_threshold, INT, "0", 0,                       \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("hash-max-listpack-entries", hash_max_listpack_entries, INT, "512", 0,                     \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("hash-max-listpack-value", hash_max_listpack_value, MEM, "64", 0, CORE_CONFIG_LLONG_MAX, -, \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("list-max-listpack-size", list_max_listpack_size, INT, "-2", -2147483648LL,              \
      CORE_CONFIG_INT_MAX, -, CORE_CONFIG_MUTABLE)                                               \
    X("list-compress-depth", list_compress_depth, INT, "0", 0, CORE_CONFIG_INT_MAX, -,          \
      CORE_CONFIG_MUTABLE)                                                                       \
    /* stream-node-max-entries sizes the nodes MAXLEN/MINID ~ trims whole (cmd_stream_add.c); \
     * stream-node-max-bytes is accepted as redis.conf files set it and changes nothing: terse \
     * keeps no listpack nodes. */                                                               \
    X("stream-node-max-bytes", stream_node_max_bytes, MEM, "4096", 0, CORE_CONFIG_LLONG_MAX, -,  \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("stream-node-max-entries", stream_node_max_entries, INT, "100", 0, CORE_CONFIG_LLONG_MAX, \
      -, CORE_CONFIG_MUTABLE)                                                                    \
    X("set-max-intset-entries", set_max_intset_entries, INT, "512", 0, CORE_CONFIG_LLONG_MAX, -, \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("zset-max-listpack-entries", zset_max_listpack_entries, INT, "128", 0,                     \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("zset-max-listpack-value", zset_max_listpack_value, MEM, "64", 0, CORE_CONFIG_LLONG_MAX, -, \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("dir", dir, STR, "./", 0, 0, -, CORE_CONFIG_PROTECTED)                                     \
    X("dbfilename", dbfilename, STR, "dump.terse", 0, 0, -,                                      \
      CORE_CONFIG_PROTECTED | CORE_CONFIG_BASENAME)                                              \
    X("save", save, SAVE, "", 0, 0, -, CORE_CONFIG_MUTABLE)                                      \
    X("stop-writes-on-bgsave-error", stop_writes_on_bgsave_error, BOOL, "yes", 0, 0, -,          \
      CORE_CONFIG_MUTABLE)                                                                       \
    /* The AOF (server/srv_aof.c): Redis 7.0's multi-part format under dir/appenddirname. */  \
    X("appendonly", appendonly, BOOL, "no", 0, 0, -, CORE_CONFIG_MUTABLE)                       \
    X("appendfilename", appendfilename, STR, "appendonly.aof", 0, 0, -,                          \
      CORE_CONFIG_IMMUTABLE | CORE_CONFIG_BASENAME)                                              \
    X("appenddirname", appenddirname, STR, "appendonlydir", 0, 0, -,                             \
      CORE_CONFIG_IMMUTABLE | CORE_CONFIG_BASENAME)                                              \
    X("appendfsync", appendfsync, ENUM, "everysec", 0, 0, fsync, CORE_CONFIG_MUTABLE)            \
    X("auto-aof-rewrite-percentage", auto_aof_rewrite_percentage, INT, "100", 0,                 \
      CORE_CONFIG_INT_MAX, -, CORE_CONFIG_MUTABLE)                                               \
    X("auto-aof-rewrite-min-size", auto_aof_rewrite_min_size, MEM, "64mb", 0,                    \
      CORE_CONFIG_LLONG_MAX, -, CORE_CONFIG_MUTABLE)                                             \
    X("aof-load-truncated", aof_load_truncated, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)       \
    X("aof-use-rdb-preamble", aof_use_rdb_preamble, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)   \
    X("aof-rewrite-incremental-fsync", aof_rewrite_incremental_fsync, BOOL, "yes", 0, 0, -,      \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("no-appendfsync-on-rewrite", no_appendfsync_on_rewrite, BOOL, "no", 0, 0, -,               \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("aof-timestamp-enabled", aof_timestamp_enabled, BOOL, "no", 0, 0, -,                       \
      CORE_CONFIG_MUTABLE | CORE_CONFIG_ONLY_NO)                                                 \
    /* Replication's master side (server/srv_repl.c). */                                        \
    X("repl-ping-replica-period", repl_ping_replica_period, INT, "10", 1, CORE_CONFIG_INT_MAX,  \
      -, CORE_CONFIG_MUTABLE)                                                                    \
    X("repl-timeout", repl_timeout, INT, "60", 1, CORE_CONFIG_INT_MAX, -, CORE_CONFIG_MUTABLE)  \
    X("repl-backlog-size", repl_backlog_size, MEM, "1048576", 1, CORE_CONFIG_LLONG_MAX, -,      \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("repl-backlog-ttl", repl_backlog_ttl, INT, "3600", 0, CORE_CONFIG_INT_MAX, -,             \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("replicaof", replicaof, HOSTPORT, "", 0, 0, -, 0)                                           \
    X("masterauth", masterauth, STR, "", 0, 0, -, CORE_CONFIG_MUTABLE)                            \
    X("masteruser", masteruser, STR, "", 0, 0, -, CORE_CONFIG_MUTABLE)                            \
    X("replica-read-only", replica_read_only, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)        \
    X("replica-serve-stale-data", replica_serve_stale_data, BOOL, "yes", 0, 0, -,               \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("min-replicas-to-write", min_replicas_to_write, INT, "0", 0, CORE_CONFIG_INT_MAX, -,      \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("min-replicas-max-lag", min_replicas_max_lag, INT, "10", 0, CORE_CONFIG_INT_MAX, -,       \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("s3-endpoint", s3_endpoint, STR, "", 0, 0, -, CORE_CONFIG_PROTECTED)                       \
    X("s3-region", s3_region, STR, "us-east-1", 0, 0, -, CORE_CONFIG_MUTABLE)                    \
    X("s3-path-style", s3_path_style, BOOL, "no", 0, 0, -, CORE_CONFIG_MUTABLE)                  \
    X("s3-checksum", s3_checksum, ENUM, "crc32c", 0, 0, s3checksum, CORE_CONFIG_MUTABLE)         \
    X("s3-part-size", s3_part_size, MEM, "8mb", CORE_CONFIG_S3_PART_MIN,                         \
      CORE_CONFIG_S3_PART_MAX, -, CORE_CONFIG_MUTABLE)                                           \
    X("s3-part-checksums", s3_part_checksums, BOOL, "yes", 0, 0, -, CORE_CONFIG_MUTABLE)          \
    X("notify-keyspace-events", notify_keyspace_events, NOTIFY, "", 0, 0, -,                    \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("terse-compression", terse_compression, ENUM, "background", 0, 0, compression,              \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("terse-compression-level", terse_compression_level, INT, "4", 0, 12, -,                     \
      CORE_CONFIG_MUTABLE)                                                                       \
    X("terse-chunk-bytes", terse_chunk_bytes, MEM, "4096", 64, 65536, -, CORE_CONFIG_MUTABLE)

/*
 * Other names of an option, as Redis 7.0 still accepts its pre-7.0 spellings. Row:
 * X(ALIAS, field), field naming the CORE_CONFIG_OPTIONS row it stands for. An alias is that
 * option under a second name everywhere a name is read: the config file, the command line,
 * CONFIG SET (a value error names the option by the alias, as Redis does), CONFIG GET
 * (an exact name answers under the name given; a glob lists every option and every alias that
 * matches, each under its own name, an alias right after its option; Redis's order is its hash
 * table's, random per process, so none is owed). As in Redis, CONFIG SET of an option and its
 * alias in one call is no "duplicate parameter": the pairs apply in order, the last one wins.
 * Only Redis 7.0's aliases of options terse has are listed.
 */
#define CORE_CONFIG_ALIASES(X)                                                                   \
    X("hash-max-ziplist-entries", hash_max_listpack_entries)                                     \
    X("repl-ping-slave-period", repl_ping_replica_period)                                        \
    X("min-slaves-to-write", min_replicas_to_write)                                              \
    X("slaveof", replicaof)                                                                      \
    X("slave-read-only", replica_read_only)                                                      \
    X("slave-serve-stale-data", replica_serve_stale_data)                                        \
    X("min-slaves-max-lag", min_replicas_max_lag)                                                \
    X("hash-max-ziplist-value", hash_max_listpack_value)                                         \
    X("list-max-ziplist-size", list_max_listpack_size)                                         \
    X("zset-max-ziplist-entries", zset_max_listpack_entries)                                     \
    X("zset-max-ziplist-value", zset_max_listpack_value)                                         \
    X("lua-time-limit", busy_reply_threshold)

/* C type of each KIND's field. */
#define CORE_CONFIG_CTYPE_BOOL bool
#define CORE_CONFIG_CTYPE_INT long long
#define CORE_CONFIG_CTYPE_CLAMP long long
#define CORE_CONFIG_CTYPE_MEM uint64_t
#define CORE_CONFIG_CTYPE_STR char *
#define CORE_CONFIG_CTYPE_HOSTPORT char *
#define CORE_CONFIG_CTYPE_ENUM int
#define CORE_CONFIG_CTYPE_BIND struct core_config_bind
#define CORE_CONFIG_CTYPE_SAVE struct core_config_save
#define CORE_CONFIG_CTYPE_OBUF struct core_config_obuf
#define CORE_CONFIG_CTYPE_NOTIFY int

#define CORE_CONFIG_FIELD(name, field, kind, dflt, min, max, names, flags)                       \
    CORE_CONFIG_CTYPE_##kind field;

/* One rename-command line: the command called `from` is called `to` after it ("" disables
 * it). Both owned, NUL-terminated, as written (any case). */
struct core_config_rename {
    char *from;
    char *to;
};

/* rename-command is a directive of the config file (and so of the command line, which is
 * read as config lines), not an option: CONFIG GET and CONFIG SET do not know it, as in
 * Redis. The loader checks each line against the commands as the lines before it left them
 * (command_known for the names the table starts with) and fails it with Redis's "No such
 * command in rename-command" or "Target command name already exists"; the lines that pass
 * are kept here, in order, for the server to apply to its command table. */
struct core_config_renames {
    size_t n;
    struct core_config_rename *v; /* owned, n entries */
};

/*
 * The configuration. Fields are the table's rows, named by its `field` column, with the C
 * type of its KIND (see the table comment for units and ranges), then the rename-command
 * lines and the loader's check of command names. Strings, bind addresses and renames are
 * owned by the struct: read them, never free or keep them past the next core_config_set /
 * load / deinit call on the same struct.
 */
struct core_config {
    CORE_CONFIG_OPTIONS(CORE_CONFIG_FIELD)
    struct core_config_renames renames;
    /* rename-command's check: 1 when name (NUL-terminated, any case) is a command before any
     * rename. Set by the caller after core_config_init, before loading (not owned; copied by
     * core_config_copy); NULL knows no command, so every rename-command line fails. */
    int (*command_known)(const char *name);
};

/*
 * core_config_init: fills c with every option's default.
 * c: caller-owned, contents ignored. On success, c owns heap strings: release them with
 * core_config_deinit. On failure c holds nothing (no deinit needed, though it is harmless).
 * Returns TERSE_OK or TERSE_ENOMEM. Allocates (one small block per STR option).
 */
int core_config_init(struct core_config *c);

/*
 * core_config_deinit: frees what c owns and zeroes it. c == NULL, a zeroed struct and a second
 * call are no-ops.
 */
void core_config_deinit(struct core_config *c);

/*
 * core_config_copy: a deep copy of src into dst (dst's contents ignored, src only read), to
 * keep a config aside and put it back (core_config_deinit the live one, then assign the
 * copy). TERSE_OK, or TERSE_ENOMEM with dst holding nothing. Allocates what src owns again.
 */
int core_config_copy(struct core_config *dst, const struct core_config *src);

/*
 * core_config_load_file: reads the file at path (borrowed) and applies it as
 * core_config_load_string does, naming the file in error texts.
 * Returns TERSE_OK; TERSE_EIO when the file cannot be opened or read (err says why, with
 * strerror); TERSE_ETOOBIG for a file of CORE_CONFIG_FILE_MAX bytes or more; otherwise as
 * core_config_load_string.
 */
#define CORE_CONFIG_FILE_MAX (16u * 1024u * 1024u)
int core_config_load_file(struct core_config *c, const char *path, char *err, size_t err_cap);

/*
 * core_config_load_string: applies a redis.conf-style text to c.
 * text, len: borrowed; need not be NUL-terminated; any bytes. One directive per line ('\n',
 * an optional '\r' before it is ignored); leading and trailing blanks are trimmed; lines
 * starting with '#' and empty lines are skipped. Words are split as Redis's sdssplitargs:
 * blanks separate words; "double quotes" take \n \r \t \b \a \\ \" and \xHH escapes; 'single
 * quotes' take \' only; a closing quote must be followed by a blank or the end of the line.
 * The first word names the option (case-insensitive), the rest are its arguments.
 * origin: borrowed, names the source in error texts (a file path; may be NULL = "(string)").
 * err, err_cap: output buffer for the error text (always NUL-terminated when err_cap > 0;
 * truncated to fit; untouched on success), may be NULL when err_cap is 0.
 * Stops at the first bad line. Returns TERSE_OK; TERSE_ECONFIG with, in err,
 *     *** FATAL CONFIG FILE ERROR (terse) ***
 *     Reading the configuration file '<origin>', at line <n>
 *     >>> '<line, trimmed>'
 *     <reason, in Redis 7.0's words>
 * (lines before the bad one stay applied, as with Redis, which exits anyway);
 * TERSE_ENOMEM (c is still valid and owns only what it owned before each failed option).
 */
int core_config_load_string(struct core_config *c, const char *text, size_t len,
                            const char *origin, char *err, size_t err_cap);

/*
 * core_config_apply_args: applies redis-server style options, after a file, so they win.
 * argv[0..argc): borrowed; the words after the program name and the optional config file
 * path, e.g. {"--port", "7000", "--save", "", "--bind", "127.0.0.1", "::1"}. Each word
 * starting with "--" begins an option; the following words are its arguments up to the next
 * "--" word. As in Redis, a "--" word right after an option name with no argument yet is
 * that option's argument ("--requirepass --x"), except after "--save", which then takes "".
 * A word holding blanks after "--" ("--port 7000") is split like a config line.
 * Returns as core_config_load_string; the error text says
 * "Reading the command line, at option <n>" instead of the file line, n counting from 1, and
 * shows the option as "name arg ...". TERSE_ECONFIG also for arguments before any "--name".
 */
int core_config_apply_args(struct core_config *c, int argc, char **argv, char *err,
                           size_t err_cap);

/*
 * core_config_set_pairs: CONFIG SET name value [name value ...], atomic: every pair is
 * applied or none is.
 * names, values: n borrowed NUL-terminated strings each. A value of a multi-word option (bind,
 * save, client-output-buffer-limit) is split on single spaces, as Redis does; "" means no
 * words. flags: 0 or CORE_CONFIG_SET_LOCAL.
 * Checks, in Redis's order: an unknown name anywhere wins; else the first immutable or
 * protected option or repeated name (the same name twice, in any case; an option and its
 * alias are two names, as in Redis); then values in order, a value error naming the option as
 * the table spells the name used (its own or the alias). err gets Redis 7.0's text with its
 * "ERR " prefix (the caller adds the RESP '-'), e.g.
 *     ERR Unknown option or number of arguments for CONFIG SET - 'foo'
 *     ERR CONFIG SET failed (possibly related to argument 'port') - argument must be between
 *     0 and 65535 inclusive
 * Returns TERSE_OK; TERSE_ECONFIG (c unchanged); TERSE_ENOMEM (c unchanged);
 * TERSE_EINVAL for n == 0. Allocates a scratch copy of c.
 * Whether a change can really take effect (bind can listen, ...) is for the caller to check
 * before or after; this only validates and stores.
 */
int core_config_set_pairs(struct core_config *c, const char *const *names,
                          const char *const *values, size_t n, unsigned flags, char *err,
                          size_t err_cap);

/* core_config_set: core_config_set_pairs for one pair, from a non-local client. */
int core_config_set(struct core_config *c, const char *name, const char *value, char *err,
                    size_t err_cap);

/*
 * core_config_get: CONFIG GET for one pattern. Calls emit(arg, name, value) for each match,
 * in table order. A pattern without any of "*?[" names one option (case-insensitive) and its
 * name is emitted as given, as Redis does; otherwise it is a glob (Redis's stringmatch rules:
 * * ? [abc] [^a-z] \x; case-insensitive) over the option names and their aliases, each match
 * emitted under its own name in its own case, an option's aliases right after it.
 * pattern: borrowed, NUL-terminated. name, value: valid only during the call.
 * Values are formatted as Redis's CONFIG GET shows them: bools yes/no, memory sizes as plain
 * byte counts, enums by name, bind/save/client-output-buffer-limit as their words joined by
 * single spaces. No allocation; matching costs O(len(pattern) * len(name)) per option.
 */
void core_config_get(const struct core_config *c, const char *pattern,
                     void (*emit)(void *arg, const char *name, const char *value), void *arg);

/*
 * core_config_get_one: the CONFIG GET value of option `name` (case-insensitive, borrowed)
 * into dst (dst_cap bytes, NUL-terminated), its length without the NUL in *out_len.
 * Returns TERSE_OK; TERSE_ENOTFOUND for an unknown name; TERSE_EDSTSIZE when dst is too small
 * (*out_len is then the length needed). No allocation.
 */
int core_config_get_one(const struct core_config *c, const char *name, char *dst,
                        size_t dst_cap, size_t *out_len);

/*
 * core_config_flags: the CORE_CONFIG_* flags of option `name` into *out.
 * Returns TERSE_OK or TERSE_ENOTFOUND.
 */
int core_config_flags(const char *name, unsigned *out);

#endif /* TERSE_CORE_CONFIG_H */
