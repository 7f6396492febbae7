/*
 * server: wiring of the layers into one process.
 *
 *   srv_main.c   main(): config, logging, setup, the loop, shutdown
 *   srv_conn.c   accepting clients; the read -> parse -> dispatch -> write path
 *   srv_hooks.c  the cmd_hooks that give commands the clock, config, memory and clients
 *   srv_cron.c   periodic work: active expiry, rehashing, timeouts, idle buffers; background
 *                compression when the loop is idle
 *   srv_persist.c snapshots: load at startup, SAVE/BGSAVE, save points, shutdown save
 *   srv_backup.c  snapshots on S3 (dir s3://bucket/prefix): streamed save, restore
 *   srv_aof.c     the AOF: state, the feed written and fsynced, cron, INFO, CONFIG SET
 *   srv_aof_bio.c the AOF's background fsync thread
 *   srv_aof_rewrite.c  BGREWRITEAOF: the forked child writing the base, the manifest swap
 *   srv_aof_files.c    the AOF directory and the manifest file
 *   srv_aof_load.c     loading the AOF at startup and for DEBUG LOADAOF
 *
 * One worker thread runs everything in this version; state lives in struct srv, passed
 * explicitly (no globals).
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
    struct srv_persist persist;    /* snapshots */
    struct persist_rdb_work rdb;   /* RESTORE's reader memory (srv_rdb.c), kept between calls */

    struct srv_repl repl;          /* replicas */
    struct srv_aof aof;            /* the append-only file */
    struct srv_master master;      /* its own master, when a replica */
    int stop;                      /* 1 once shutdown is decided */
    struct srv_client *sched;      /* clients to resume (srv_client.scheduled), borrowed */
    int exit_code;
};

/* srv_conn.c */
/* A listener is readable: accepts up to a batch of clients. Past maxclients a client gets
 * Redis's "max number of clients reached" and is closed; a non-local one in protected mode
 * (protected-mode yes, no requirepass) gets its -DENIED text and is closed. When accept runs
 * out of descriptors (or fails otherwise) the listeners leave the loop for
 * SRV_ACCEPT_PAUSE_MS and the failure is logged at most once per SRV_ACCEPT_LOG_MS. */
void srv_on_accept(struct core_loop *loop, int fd, void *arg, unsigned events);
/* After every poll: puts paused listeners back once their pause is over (one test when none
 * is paused). */
void srv_accept_resume(struct srv *s);
/* timeout_ms (-1: none), shortened to when paused listeners are due back. */
int srv_accept_poll_ms(const struct srv *s, int timeout_ms);
/* A client on connected socket fd (its command state, buffers, loop registration), counted
 * in n_clients; NULL when out of memory (fd is then the caller's to close). */
struct srv_client *srv_client_new(struct srv *s, int fd, const char *addr, const char *laddr);
void srv_client_close(struct srv *s, struct srv_client *c);
void srv_close_all_clients(struct srv *s);
/* Applies CLOSE_ASAP marks and output limits across all clients. */
void srv_clients_sweep(struct srv *s, int64_t now_ms);
/* After every poll: times out blocked clients, serves what cron's changes made ready, then
 * flushes the clients that got a reply outside their own commands and runs the commands
 * they pipelined behind a blocking one. */
void srv_clients_resume(struct srv *s);
/* cmd hooks client_out and client_out_done (see struct cmd_hooks). */
struct resp_out *srv_client_out(void *srv, struct cmd_client *cl);
void srv_client_out_done(void *srv, struct cmd_client *cl);

/* cmd hook busy_events: a script runs past busy-reply-threshold; serves the other clients
 * once without waiting (the script's caller, CMD_CLIENT_PROTECTED, is left alone). Returns
 * nonzero when the server is stopping (SHUTDOWN NOSAVE, a signal). */
int srv_busy_events(void *srv);

/* srv_main.c: fits maxclients to the descriptors the process may open (Redis's
 * adjustOpenFilesLimit): raises RLIMIT_NOFILE toward maxclients + SRV_RESERVED_FDS, or lowers
 * maxclients to what the limit leaves, logging either as Redis does. Returns 0; -1 when the
 * limit leaves no room for a single client (maxclients unchanged; logged at startup, where
 * the server then exits, as Redis does). */
int srv_maxclients_fit(struct srv *s, int startup);

/* srv_hooks.c */
void srv_hooks_install(struct srv *s);
/* Copies config values that cmd reads into s->cmd.settings (after load and CONFIG SET). */
void srv_settings_sync(struct srv *s);

/* srv_persist.c */
/* Fills the save hooks of s->cmd.hooks and the initial persistence state. */
void srv_persist_hooks_install(struct srv *s);
/* Loads <dir>/<dbfilename> into the (empty) shard; a missing file is not an error. Returns
 * 0, or -1 after logging the file, offset and reason of a snapshot that cannot be used. */
int srv_persist_load(struct srv *s);
/* From cron: reaps a finished BGSAVE child, starts one when a save point is due. */
void srv_persist_cron(struct srv *s, int64_t now_ms);
/* Shutdown (SHUTDOWN command, SIGTERM/SIGINT with flags 0): kills a BGSAVE child, then saves
 * when flags say SAVE, or when save points are configured and flags do not say NOSAVE.
 * Returns 0 when the server may stop, -1 without FORCE when the save failed or the first
 * rewrite of an AOF just turned on still runs (Redis's "Writing initial AOF, can't exit."). */
int srv_persist_shutdown(struct srv *s, unsigned flags);
/* Kills and reaps a BGSAVE child still running. */
void srv_persist_teardown(struct srv *s);
/* First thing in every forked child (BGSAVE, a replication sync, an AOF rewrite): takes
 * SIGINT/SIGTERM back, dies with the parent (PR_SET_PDEATHSIG; _exit(1) when the parent is
 * already gone), closes the listeners. */
void srv_child_enter(struct srv *s, pid_t parent);
/* Sets cmd's misconf (writes refused with -MISCONF) from stop-writes-on-bgsave-error, the
 * save points and the last background save's outcome, then from the AOF's write status
 * (srv_aof_write_err), in Redis's order. */
void srv_persist_misconf_sync(struct srv *s);

/* srv_rdb.c */
/* Fills the DUMP and RESTORE hooks of s->cmd.hooks (RDB serialization, persist_rdb.h). */
void srv_rdb_hooks_install(struct srv *s);
/* Frees the RDB reader's memory (all of it at shutdown: keep 0; from cron: buffers above keep). */
void srv_rdb_trim(struct srv *s, size_t keep);

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
/* Puts c on the list of clients flushed after this turn of the loop. */
void srv_repl_schedule(struct srv *s, struct srv_client *c);
void srv_repl_init(struct srv *s);
/* Fills the feed and replication hooks of s->cmd.hooks. */
void srv_repl_hooks_install(struct srv *s);
/* Kills a running RDB child and frees the backlog (shutdown). */
void srv_repl_teardown(struct srv *s);
/* The write feed's bytes (p == NULL: writes were lost; every replica is dropped). */
void srv_repl_feed(struct srv *s, const uint8_t *p, size_t len);
/* SYNC/PSYNC (cmd hook repl_sync): enum cmd_repl_result. */
int srv_repl_sync(struct srv *s, struct srv_client *c, const char *replid, long long offset,
                  int psync);
void srv_repl_ack(struct srv *s, struct srv_client *c, long long offset);
/* A replica's connection closes: its link goes. */
void srv_repl_detach(struct srv *s, struct srv_client *c);
/* Moves the next part of a full sync into c's output (its RDB file, then what was fed
 * meanwhile). Returns 1 while more of the file is to come, 0, or -1 when c must be closed. */
int srv_repl_pump(struct srv *s, struct srv_client *c);
/* Bytes held for c beyond its output buffer (the feed while it syncs). */
size_t srv_repl_pending(const struct srv_client *c);
/* After every poll: reaps the RDB child, starts one for waiting replicas, keepalives, PINGs,
 * the backlog's time to live. */
void srv_repl_step(struct srv *s, int64_t now_ms);
/* srv_repl_child.c: the full sync's child. */
/* 1 while the RDB child of a full sync runs (BGSAVE waits for it). */
int srv_repl_child_busy(const struct srv *s);
/* Forks the child for the replicas in WAIT_START ("+FULLRESYNC" goes to PSYNC ones). */
void srv_repl_child_start(struct srv *s);
/* Reaps an ended child: its replicas get the file, or are closed when it failed. */
void srv_repl_child_reap(struct srv *s);
/* Kills and reaps a running child and removes its file (shutdown). */
void srv_repl_child_kill(struct srv *s);
/* cmd hook repl_info. */
void srv_repl_info(void *srv, struct cmd_repl_info *out,
                   void (*replica)(void *arg, const struct cmd_repl_replica *r), void *arg);
/* The feed's consumers (replicas) came or went: turns cmd's write feed on or off. */
void srv_feed_consumers_changed(struct srv *s);

/* srv_aof.c */
/* Initial state (AOF off, no file). */
void srv_aof_init(struct srv *s);
/* Fills the bgrewriteaof and loadaof hooks. */
void srv_aof_hooks_install(struct srv *s);
/* Startup with appendonly yes: loads the AOF (creating it when there is none) and opens its
 * incr file for appending. Returns 0, or -1 after logging why the server cannot start. */
int srv_aof_startup(struct srv *s);
/* 1 while the AOF takes the write feed (on, or waiting for its first rewrite). */
int srv_aof_wants_feed(const struct srv *s);
/* The write feed's bytes for the AOF (p == NULL: writes were lost: a rewrite starts over). */
void srv_aof_feed(struct srv *s, const uint8_t *p, size_t len);
/* Writes what the feed gave to the incr file (appendfsync always: and fsyncs it). Called
 * before replies go out (srv_conn.c) and after every turn of the loop. A failed or short
 * write (or fsync) under appendfsync always ends the process (exit 1) before any reply of
 * those writes goes out, as Redis does; under everysec/no the bytes stay buffered (a partial
 * write truncated away), writes get -MISCONF and every later call retries. */
void srv_aof_flush(struct srv *s);
/* The errno that refuses writes with -MISCONF: the AOF is on and its last write, or the
 * last background fsync, failed; 0 otherwise. */
int srv_aof_write_err(const struct srv *s);
/* appendonly changed by CONFIG SET: starts or stops the AOF. Returns 0, or -1 with errbuf
 * set when it cannot start. */
int srv_aof_config_changed(struct srv *s, char *errbuf, size_t cap);
/* From cron: the everysec fsync, reaping the rewrite child, scheduled and automatic
 * rewrites. */
void srv_aof_cron(struct srv *s, int64_t now_ms);
/* INFO persistence's aof_* fields. */
void srv_aof_info(struct srv *s, struct cmd_persist_info *out);
/* Shutdown: kills a rewrite child, writes and fsyncs the AOF, stops the thread, frees. */
void srv_aof_teardown(struct srv *s);
/* 1 while any forked child runs (BGSAVE, a replication sync, an AOF rewrite). */
int srv_child_busy(const struct srv *s);

/* srv_aof_bio.c */
int srv_aof_bio_start(struct srv_aof_bio *b);
void srv_aof_bio_stop(struct srv_aof_bio *b);
/* Queues fsync(fd) (close: and then close(fd)); when the ring is full, does it here. */
void srv_aof_bio_fsync(struct srv_aof_bio *b, int fd, int close_after);
/* Jobs queued or running. */
size_t srv_aof_bio_pending(struct srv_aof_bio *b);
/* errno of the last background fsync when it failed, 0 when it succeeded (or none ran). */
int srv_aof_bio_err(struct srv_aof_bio *b);
/* Clears a background fsync's error (the AOF is turned on again). */
void srv_aof_bio_err_reset(struct srv_aof_bio *b);

/* srv_aof_files.c */
/* <dir>/<appenddirname>/<name> into out. */
void srv_aof_path(const struct srv *s, const char *name, char *out, size_t cap);

/* srv_aof_rewrite.c */
/* Starts BGREWRITEAOF: enum cmd_save_result. */
int srv_aof_rewrite_start(struct srv *s);
/* Reaps the rewrite child (block: waits for it) and finishes the rewrite. */
void srv_aof_rewrite_reap(struct srv *s, int block);
/* Kills a running rewrite child and removes its files. */
void srv_aof_rewrite_kill(struct srv *s);
/* srv_aof_files.c: writes s->aof.man to the manifest file atomically (temp file, fsync, rename, fsync of the
 * directory). 0 or -1 (logged). */
int srv_aof_manifest_persist(struct srv *s);
/* Reads the manifest file into s->aof.man. 0; 1 when there is none; -1 (logged) when it is
 * bad. */
int srv_aof_manifest_read(struct srv *s);
/* Creates the AOF directory if missing. 0 or -1 (logged). */
int srv_aof_dir_create(struct srv *s);
/* fsync of the AOF directory. */
void srv_aof_dir_fsync(struct srv *s);

/* srv_aof_load.c */
/* Loads the files of s->aof.man into s->shard. Returns 0, 1 when there is nothing to load,
 * -1 after logging the file, offset and reason. */
int srv_aof_load(struct srv *s);
/* cmd hook loadaof. */
int srv_aof_loadaof(void *srv, char *errbuf, size_t cap);

/* srv_replica.c: terse as a replica. */
void srv_replica_init(struct srv *s);
void srv_replica_teardown(struct srv *s);
/* After every poll: connects, times out, acknowledges. now_ms 0: read here, only while a
 * replica (a master pays one test per turn of the loop). */
void srv_replica_step(struct srv *s, int64_t now_ms);
/* c ran bytes of input: the master's stream offset moves when c is the master's link. */
void srv_replica_processed(struct srv *s, struct srv_client *c, size_t bytes);
/* c closes: when it is the master's link, the link goes back to connecting. */
void srv_replica_client_gone(struct srv *s, struct srv_client *c);
/* REPLICAOF host port (host NULL: NO ONE). 0, or 1 when already its replica. */
int srv_replica_set(struct srv *s, const char *host, int port);
/* INFO replication and ROLE's replica fields. */
void srv_replica_info(const struct srv *s, struct cmd_repl_info *out);
/* 1 while the server is a replica (no active expiry, no eviction). */
static inline int srv_is_replica(const struct srv *s)
{
    return s->master.state != SRV_MASTER_NONE;
}
/* srv_repl.c, for the replica side: closes every replica of this server, and starts a new
 * history (a new replid, an empty backlog): what they had does not continue. */
void srv_repl_drop_replicas(struct srv *s);
void srv_repl_new_history(struct srv *s);

/* srv_backup.c */
struct persist_load_stats;
/* 1 when dir is an s3:// URL (snapshots go to S3 instead of files). */
int srv_backup_is_s3(const char *dir);
/* Streams a snapshot of s->shard (unchanged during the call) to a new object under dir and
 * logs the result. On failure writes the reason (S3's code and message, or the snapshot
 * writer's) into why (why_cap bytes) and returns a terse_status; no multipart upload is left
 * behind unless why says so. Blocks the calling thread; starts and joins one thread. */
int srv_backup_save(struct srv *s, int64_t now_ms, char *why, size_t why_cap);
/* Downloads the newest snapshot under dir and loads it into shard (verified first; shard is
 * unchanged unless the insert pass runs out of memory). Returns TERSE_OK; TERSE_ENOTFOUND
 * when the prefix holds no snapshot; another status with the reason in why. */
int srv_backup_restore(struct srv *s, struct store_shard *shard, int64_t now_ms,
                       struct persist_load_stats *st, char *why, size_t why_cap);

/* srv_cron.c */
void srv_cron(struct srv *s);
/* Milliseconds until the next cron run (the loop's poll timeout). */
int srv_cron_timeout_ms(const struct srv *s);
/* The loop's poll timeout: while values await background compression, SRV_IDLE_GRACE_MS
 * after activity (a client in the middle of a stream is not idle) and 0 once idle (so idle
 * time goes to compression); else srv_cron_timeout_ms. */
int srv_poll_timeout_ms(const struct srv *s);
/* Called after every poll with the number of events it handled: after a poll that waited
 * and found nothing, one background compression step of SRV_IDLE_COMPRESS_US. */
void srv_idle(struct srv *s, int n_events);

/* srv_conn.c: the struct srv_client that embeds a cmd_client. */
struct srv_client *srv_client_of(const struct cmd_client *cl);

#endif /* TERSE_SRV_INTERNAL_H */
