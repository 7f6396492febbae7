/*
 * srv_conn: clients: accepting them, reading and running their commands, writing their
 * replies, and the limits on both (see srv_conn.c for the flow).
 */
#ifndef TERSE_SRV_CONN_H
#define TERSE_SRV_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

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

#endif /* TERSE_SRV_CONN_H */
