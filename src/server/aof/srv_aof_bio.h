/*
 * srv_aof_bio: the AOF's background fsync thread, as Redis's bio does for appendfsync
 * everysec: fsync(2) of a file that takes writes can block for a long time (the disk flushes
 * everything queued), so the event loop never calls it there; it queues a job and goes on.
 * A job is fsync(fd), or fsync(fd) then close(fd) (an incr file replaced by a rewrite: the
 * close of a file with dirty pages can block too).
 */
#ifndef TERSE_SRV_AOF_BIO_H
#define TERSE_SRV_AOF_BIO_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

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

#endif /* TERSE_SRV_AOF_BIO_H */
