/*
 * srv_cron: periodic work, hz times a second, each part bounded so no run stalls clients.
 */
#ifndef TERSE_SRV_CRON_H
#define TERSE_SRV_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

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

#endif /* TERSE_SRV_CRON_H */
