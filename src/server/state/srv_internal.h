/*
 * srv_internal: the server's state (struct srv and the state of each part: clients, the
 * master and replica sides of replication, snapshots, the AOF), shared by every room of
 * server/. The functions of each part are declared in its own header:
 *
 *   server/            srv_main.c (main: config, setup, the loop, shutdown), srv_conn.c
 *                      (clients: accept, read -> parse -> dispatch -> write), srv_hooks.c (what
 *                      commands may ask of other layers), srv_cron.c (periodic work)
 *   server/repl/       srv_repl.c (the master side), srv_repl_child.c (the full sync's child),
 *                      srv_replica.c (terse as a replica)
 *   server/snapshot/   srv_persist.c (load, SAVE, BGSAVE, save points), srv_backup.c (S3),
 *                      srv_rdb.c (DUMP and RESTORE onto persist's RDB code)
 *   server/aof/        srv_aof.c (state, the feed written and fsynced), srv_aof_bio.c (the
 *                      fsync thread), srv_aof_rewrite.c, srv_aof_files.c, srv_aof_load.c
 *   server/state/      srv_state.c: what the parts read of one another's state (children,
 *                      the feed's consumers, MISCONF, the command layer's settings)
 *
 * Each room calls only the rooms below it in that list (docs/design.md); what runs the other
 * way is a hook in struct srv (client_new) or in the command layer's cmd_hooks. One worker
 * thread runs everything in this version; state lives in struct srv, passed explicitly.
 */
#ifndef TERSE_SRV_INTERNAL_H
#define TERSE_SRV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "cmd/core/cmd.h"
#include "core/core_config.h"
#include "core/core_event.h"
#include "net/net_conn.h"
#include "core/core_buf.h"
#include "persist/persist_aof_manifest.h"
#include "persist/persist_rdb.h"
#include "resp/resp_parse.h"
#include "resp/resp_write.h"

#define SRV_VERSION "0.1.0"
#define SRV_READ_CHUNK (16 * 1024)     /* bytes read per event at first ... */
#define SRV_READ_STREAM (128 * 1024)   /* ... doubling up to this while reads fill their request
                                          (a client streaming a pipeline: fewer, larger reads and
                                          replies, as Redis's greedy query buffer gives) */
#define SRV_READ_BIG_MAX (1024 * 1024) /* most bytes read per event for a big bulk */
#define SRV_IDLE_BUF_KEEP (16 * 1024)  /* buffers of idle clients shrink to this */
#define SRV_IDLE_BUF_S 2               /* seconds of idleness before that */
#define SRV_RESERVED_FDS 32            /* descriptors kept beyond maxclients for listeners, files,
                                          children's pipes (Redis's CONFIG_MIN_RESERVED_FDS) */
#define SRV_ACCEPT_PAUSE_MS 100        /* listeners rest this long after accept ran out of
                                          descriptors or failed (the pending ones wait queued) */
#define SRV_ACCEPT_LOG_MS 10000        /* at most one log line of accept failures per period */
/* Unsent replies an unauthenticated client may hold (with requirepass set) before it is
 * closed: Redis's 16 KiB reply buffer (PROTO_REPLY_CHUNK_BYTES); Debian's 7.0.15 carries the
 * CVE-2025-21605 fix, which closes such a client once 1 KiB more sits in its reply list, whose
 * first block is itself 16 KiB: in effect as soon as its replies pass 16 KiB. */
#define SRV_UNAUTH_OBUF_MAX (16 * 1024)

/* One client connection. Owned by struct srv's list; freed by srv_client_close. */
struct srv_client {
    struct net_conn conn;      /* socket and buffers */
    struct cmd_client cmd;     /* command state (db, protocol, name, ...) */
    struct resp_request req;   /* parser state; argv reused across commands */
    struct srv *srv;           /* back pointer, borrowed */
    int64_t soft_since_ms;     /* when the output soft limit was first exceeded; 0 = not */
    int writing;               /* 1 when the loop watches for writability */
    uint32_t read_want;        /* bytes the next read asks for (SRV_READ_CHUNK..STREAM) */
    /* A reply written outside the client's own commands (cmd hooks client_out and
     * client_out_done: a blocked client served or timed out): the view on conn.out, and the
     * list of clients to flush and resume at the next turn of the loop (srv_clients_resume). */
    struct resp_out bout;
    int scheduled;
    struct srv_client *sched_next;
    /* Replication (srv_repl.c): what REPLCONF told before SYNC, and the replica's link once
     * it is one (owned; freed by srv_repl_detach). */
    int repl_port;
    char repl_ip[64];
    struct srv_repl_link *repl;
};

/* Replication's master side (srv_repl.c). */
struct srv_repl {
    char replid[41];
    uint64_t offset;               /* master_repl_offset: bytes of the stream so far */
    uint8_t *backlog;              /* ring of the stream's last bytes; owned, NULL when none */
    size_t backlog_cap, backlog_len, backlog_idx; /* size, bytes held, next write */
    int64_t no_replicas_since_ms;  /* repl-backlog-ttl counts from here */
    struct srv_client *replicas;   /* linked through their links' next */
    size_t n_replicas;
    pid_t child_pid;               /* the child writing the RDB of a full sync, 0: none */
    uint64_t n_full, n_partial_ok, n_partial_err; /* INFO stats sync_* */
    int getack;                    /* a WAIT blocked: send REPLCONF GETACK at the next step */
    int acks_moved;                /* a replica acknowledged more: retry the WAITs */
    int64_t last_ping_ms;
};

/* terse as a replica (srv_replica.c): the link to its master. */
enum srv_master_state {
    SRV_MASTER_NONE = 0,    /* a master itself */
    SRV_MASTER_CONNECT,     /* to connect at next_try_ms */
    SRV_MASTER_CONNECTING,  /* connect() in flight */
    SRV_MASTER_HANDSHAKE,   /* PING, REPLCONF, PSYNC sent; their replies read in turn */
    SRV_MASTER_TRANSFER,    /* receiving the RDB */
    SRV_MASTER_CONNECTED    /* the stream runs as the commands of client */
};

struct srv_master {
    enum srv_master_state state;
    char host[256];
    int port;
    int fd;                     /* the link until CONNECTED (then client's), -1: none */
    struct core_buf in;         /* the link's unread bytes before CONNECTED; owned */
    int replies;                /* replies still expected before PSYNC goes */
    int psync_sent;             /* PSYNC is out: the next reply is its answer */
    char replid[41];            /* the master's stream ... */
    long long offset;           /* ... and how far this replica processed it */
    int cached;                 /* replid/offset hold: PSYNC asks to continue from there */
    char tmp_path[4096];        /* the RDB being received, -1 fd: none */
    int tmp_fd;
    long long bulk_total, bulk_left; /* its size (-1 before the header) and what is left */
    int64_t sync_start_ms, next_try_ms, last_io_ms, down_since_ms, last_ack_ms;
    int ack_now;                /* REPLCONF GETACK came: acknowledge at the next step */
    struct srv_client *client;  /* the master's connection once CONNECTED, borrowed */
};

/* Snapshot state (srv_persist.c). */
struct srv_persist {
    pid_t child_pid;              /* BGSAVE child, 0 when none */
    int64_t child_start_ms;       /* when it was forked, unix ms */
    uint64_t child_dirty;         /* cmd.dirty at the fork: the changes its snapshot covers */
    int64_t last_save_ms;         /* last successful save (startup before the first) */
    int64_t last_bgsave_try_ms;   /* last fork attempt, for the retry delay of save points */
    int last_bgsave_ok;           /* rdb_last_bgsave_status */
    long long last_bgsave_time_s; /* duration of the last BGSAVE, -1 before the first */
    uint64_t n_saves;             /* successful saves since startup */
    uint64_t load_loaded;         /* keys of the last load */
    uint64_t load_expired;        /* records skipped as expired by the last load */
    int child_msg_fd;             /* read end of the BGSAVE child's failure report, -1: none */
};

/* The AOF's fsync thread (srv_aof_bio.c): jobs are fsync(fd), or fsync then close(fd). err is
 * Redis's aof_bio_fsync_status/errno: the errno of the last fsync job that failed, 0 once one
 * succeeds (a close job's fsync does not count); written by the thread, read by the loop. */
#define SRV_AOF_BIO_JOBS 16
struct srv_aof_bio {
    int started;                   /* the thread runs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    struct { int fd; int close; } job[SRV_AOF_BIO_JOBS]; /* a ring, under mu */
    size_t head, n;                /* under mu */
    int busy;                      /* a job is running (under mu) */
    int stop;                      /* under mu */
    atomic_int err;
};

enum srv_aof_state {
    SRV_AOF_OFF = 0,
    SRV_AOF_ON = 1,
    SRV_AOF_WAIT_REWRITE = 2 /* appendonly turned on: the feed goes to a temporary incr file
                                until the first rewrite writes the base and the manifest */
};

/* The AOF (srv_aof*.c). */
struct srv_aof {
    enum srv_aof_state state;
    int fd;                        /* the incr file written, -1 when none */
    /* What the feed gave since the last write(2); owned here, grown with core_alloc, kept
     * (a warm feed allocates nothing), released by srv_aof_teardown. */
    struct core_buf buf;
    struct persist_aof_manifest man; /* the manifest as on disk (entries owned by it) */
    int man_loaded;                /* man reflects the disk (read at startup or written) */
    uint64_t incr_size;            /* bytes of the incr file written */
    uint64_t cur_size;             /* aof_current_size: base and incr files */
    uint64_t base_size;            /* aof_base_size */
    int64_t last_fsync_ms;         /* last everysec fsync queued */
    int64_t fsync_postponed_ms;    /* an everysec fsync waits for a busy one since then */
    uint64_t delayed_fsync;        /* aof_delayed_fsync */
    /* A failed write (Redis's aof_last_write_status): the bytes stay in buf (a partial
     * write is truncated away) and writes get -MISCONF until a retry writes them all. */
    int last_write_ok;
    int last_write_errno;          /* errno of the failed write (ENOSPC for a short one) */
    int64_t write_err_log_ms;      /* last failure logged: once per AOF_WRITE_ERR_LOG_MS */
    int bio_err;                   /* bio.err as the loop last saw it (misconf follows it) */
    struct srv_aof_bio bio;
    /* BGREWRITEAOF */
    pid_t child_pid;               /* the rewrite child, 0 when none */
    int child_msg_fd;              /* read end of its errno report when it fails, -1: none */
    int64_t child_start_ms;
    long long fork_incr_seq;       /* first incr seq the new base does not cover */
    int scheduled;                 /* aof_rewrite_scheduled */
    int64_t last_try_ms;           /* last failed start or child, for the retry delay */
    int last_rewrite_ok;
    long long last_rewrite_time_s; /* -1 before the first */
    uint64_t n_rewrites, n_failures;
};

struct srv {
    struct core_config cfg;        /* owned */
    const char *config_file;       /* borrowed from argv, "" when none */
    const char *executable;        /* borrowed from argv[0] */
    struct core_loop *loop;        /* owned */
    int listen_fd[CORE_CONFIG_BIND_MAX];
    size_t n_listen;
    int signal_fd;                 /* SIGINT/SIGTERM, -1 when not set up */
    struct store_shard *shard;     /* owned */
    struct codec_ctx *codec;       /* owned */
    struct cmd_server cmd;         /* command state; owns the table and scratch */
    /* srv_client_new, for the parts below the connections (a replica's link to its master):
     * set by srv_main before they start. */
    struct srv_client *(*client_new)(struct srv *s, int fd, const char *addr, const char *laddr);
    uint64_t n_clients;
    uint64_t total_connections;
    uint64_t rejected_connections;
    uint64_t net_in, net_out;      /* bytes of closed clients (live ones are added on read) */
    /* accept() out of descriptors (srv_conn.c): the listeners are out of the loop until
     * accept_resume_us (core_time_mono_us; 0: listening); failures not logged yet, and when
     * the last line was logged. */
    uint64_t accept_resume_us;
    uint64_t accept_fail_unlogged;
    uint64_t accept_fail_logged_us;
    int64_t last_cron_ms;
    int idle;                      /* 1 after a poll that waited and found no event */
    uint64_t idle_step_us;         /* when the last idle compression step ran (mono us) */
    uint64_t compress_owed_us;     /* background compression time the cron granted and busy
                                      loop turns have not yet spent (srv_cron.c): spent in
                                      slices of SRV_COMPRESS_SLICE_US between events */
    uint64_t bg_alloc, bg_free;    /* allocator calls the loop's background work made
                                      (srv_background): INFO shows them apart, so what is
                                      left is the request path's */
    size_t trim_owed;              /* bytes background compression freed since the heap was
                                      last given back to the system (srv_cron) */
    struct srv_persist persist;    /* snapshots */
    struct persist_rdb_work rdb;   /* RESTORE's reader memory (srv_rdb.c), kept between calls */

    struct srv_repl repl;          /* replicas */
    struct srv_aof aof;            /* the append-only file */
    struct srv_master master;      /* its own master, when a replica */
    int stop;                      /* 1 once shutdown is decided */
    struct srv_client *sched;      /* clients to resume (srv_client.scheduled), borrowed */
    int exit_code;
};

/* Copies config values that cmd reads into s->cmd.settings (after load and CONFIG SET). */
void srv_settings_sync(struct srv *s);
/* First thing in every forked child (BGSAVE, a replication sync, an AOF rewrite): takes
 * SIGINT/SIGTERM back, dies with the parent (PR_SET_PDEATHSIG; _exit(1) when the parent is
 * already gone), closes the listeners. */
void srv_child_enter(struct srv *s, pid_t parent);
/* Sets cmd's misconf (writes refused with -MISCONF) from stop-writes-on-bgsave-error, the
 * save points and the last background save's outcome, then from the AOF's write status
 * (srv_aof_write_err), in Redis's order. */
void srv_persist_misconf_sync(struct srv *s);

/* srv_repl.c */
/* A replica's side of its connection (srv_repl.c; the child's file in srv_repl_child.c). */
enum srv_repl_state { WAIT_START = 0, WAIT_END = 1, SEND_RDB = 2, ONLINE = 3 };

struct srv_repl_link {
    enum srv_repl_state state;
    int psync;                  /* asked with PSYNC: "+FULLRESYNC" is sent at the fork */
    struct core_buf wait;       /* the feed while not ONLINE */
    int rdb_fd;                 /* the file being sent, -1 when none */
    uint64_t rdb_left;          /* its bytes still to send */
    uint64_t ack_off;           /* REPLCONF ACK */
    int64_t ack_ms;
    int64_t newline_ms;         /* last keepalive newline */
    int port;                   /* REPLCONF listening-port, 0 when not told */
    char ip[64];                /* REPLCONF ip-address, else the peer's address */
    struct srv_client *next;    /* s->repl.replicas */
};
/* srv_repl_child.c: the full sync's child. */
/* 1 while the RDB child of a full sync runs (BGSAVE waits for it). */
int srv_repl_child_busy(const struct srv *s);
/* The feed's consumers (replicas) came or went: turns cmd's write feed on or off. */
void srv_feed_consumers_changed(struct srv *s);
/* 1 while the AOF takes the write feed (on, or waiting for its first rewrite). */
int srv_aof_wants_feed(const struct srv *s);
/* The errno that refuses writes with -MISCONF: the AOF is on and its last write, or the
 * last background fsync, failed; 0 otherwise. */
int srv_aof_write_err(const struct srv *s);
/* 1 while any forked child runs (BGSAVE, a replication sync, an AOF rewrite). */
int srv_child_busy(const struct srv *s);
/* 1 while the server is a replica (no active expiry, no eviction). */
static inline int srv_is_replica(const struct srv *s)
{
    return s->master.state != SRV_MASTER_NONE;
}

/* srv_backup.c */
struct persist_load_stats;
/* 1 when dir is an s3:// URL (snapshots go to S3 instead of files). */
int srv_backup_is_s3(const char *dir);

/* srv_conn.c: the struct srv_client that embeds a cmd_client. */
struct srv_client *srv_client_of(const struct cmd_client *cl);

#endif /* TERSE_SRV_INTERNAL_H */
