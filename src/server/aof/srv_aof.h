/*
 * srv_aof: the append-only file wired into the server (Redis 7.0's multi-part AOF).
 */
#ifndef TERSE_SRV_AOF_H
#define TERSE_SRV_AOF_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_aof.c */
/* Initial state (AOF off, no file). */
void srv_aof_init(struct srv *s);
/* Fills the bgrewriteaof and loadaof hooks. */
void srv_aof_hooks_install(struct srv *s);
/* Startup with appendonly yes: loads the AOF (creating it when there is none) and opens its
 * incr file for appending. Returns 0, or -1 after logging why the server cannot start. */
int srv_aof_startup(struct srv *s);
/* The write feed's bytes for the AOF (p == NULL: writes were lost: a rewrite starts over). */
void srv_aof_feed(struct srv *s, const uint8_t *p, size_t len);
/* Writes what the feed gave to the incr file (appendfsync always: and fsyncs it). Called
 * before replies go out (srv_conn.c) and after every turn of the loop. A failed or short
 * write (or fsync) under appendfsync always ends the process (exit 1) before any reply of
 * those writes goes out, as Redis does; under everysec/no the bytes stay buffered (a partial
 * write truncated away), writes get -MISCONF and every later call retries. */
void srv_aof_flush(struct srv *s);
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

#endif /* TERSE_SRV_AOF_H */
