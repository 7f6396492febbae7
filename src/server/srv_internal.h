/*
 * server: wiring of the layers into one process.
 *
 *   srv_main.c   main(): config, logging, setup, the loop, shutdown
 *   srv_conn.c   accepting clients; the read -> parse -> dispatch -> write path
 *   srv_hooks.c  the cmd_hooks that give commands the clock, config, memory and clients
 *   srv_cron.c   periodic work: active expiry, rehashing, timeouts, idle buffers
 *
 * One worker thread runs everything in this version; state lives in struct srv, passed
 * explicitly (no globals).
 */
#ifndef TERSE_SRV_INTERNAL_H
#define TERSE_SRV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "core/core_config.h"
#include "core/core_event.h"
#include "net/net_conn.h"
#include "resp/resp_parse.h"
#include "resp/resp_write.h"

#define SRV_VERSION "0.1.0"
#define SRV_READ_CHUNK (16 * 1024)     /* bytes read per event, unless a big bulk needs more */
#define SRV_READ_BIG_MAX (1024 * 1024) /* most bytes read per event for a big bulk */
#define SRV_IDLE_BUF_KEEP (16 * 1024)  /* buffers of idle clients shrink to this */
#define SRV_IDLE_BUF_S 2               /* seconds of idleness before that */

/* One client connection. Owned by struct srv's list; freed by srv_client_close. */
struct srv_client {
    struct net_conn conn;      /* socket and buffers */
    struct cmd_client cmd;     /* command state (db, protocol, name, ...) */
    struct resp_request req;   /* parser state; argv reused across commands */
    struct srv *srv;           /* back pointer, borrowed */
    int64_t soft_since_ms;     /* when the output soft limit was first exceeded; 0 = not */
    int writing;               /* 1 when the loop watches for writability */
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
    int64_t last_cron_ms;
    int stop;                      /* 1 once shutdown is decided */
    int exit_code;
};

/* srv_conn.c */
void srv_on_accept(struct core_loop *loop, int fd, void *arg, unsigned events);
void srv_client_close(struct srv *s, struct srv_client *c);
void srv_close_all_clients(struct srv *s);
/* Applies CLOSE_ASAP marks and output limits across all clients. */
void srv_clients_sweep(struct srv *s, int64_t now_ms);

/* srv_hooks.c */
void srv_hooks_install(struct srv *s);
/* Copies config values that cmd reads into s->cmd.settings (after load and CONFIG SET). */
void srv_settings_sync(struct srv *s);

/* srv_cron.c */
void srv_cron(struct srv *s);
/* Milliseconds until the next cron run (the loop's poll timeout). */
int srv_cron_timeout_ms(const struct srv *s);

/* srv_conn.c: the struct srv_client that embeds a cmd_client. */
struct srv_client *srv_client_of(const struct cmd_client *cl);

#endif /* TERSE_SRV_INTERNAL_H */
