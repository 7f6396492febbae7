/*
 * srv_cron: periodic work, hz times a second, each part bounded so no run stalls clients.
 */
#ifndef TERSE_SRV_CRON_H
#define TERSE_SRV_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_cron.c */
/* The loop's background work after every poll: srv_idle, then srv_cron; the allocator calls
 * they make are counted in bg_alloc and bg_free. */
void srv_background(struct srv *s, int n_events);
/* Milliseconds until the next cron run (the loop's poll timeout). */
int srv_cron_timeout_ms(const struct srv *s);
/* The loop's poll timeout: while values await background compression, SRV_IDLE_GRACE_MS
 * after activity (a client in the middle of a stream is not idle) and 0 once idle (so idle
 * time goes to compression); else srv_cron_timeout_ms. */
int srv_poll_timeout_ms(const struct srv *s);

#endif /* TERSE_SRV_CRON_H */
