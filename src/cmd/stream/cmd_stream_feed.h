/*
 * cmd_stream_feed: how consumer-group commands reach the write feed (cmd_feed.c), as Redis
 * 7.0's t_stream.c propagates them. XREADGROUP, XCLAIM and XAUTOCLAIM are never fed as sent
 * (a replica would deliver at its own time, or to no one); each pending entry they create,
 * move or drop is fed as an idempotent XCLAIM with the entry's exact state, the group's
 * position as XGROUP SETID when NOACK moved it, and a consumer NOACK created as XGROUP
 * CREATECONSUMER.
 */
#ifndef TERSE_CMD_STREAM_FEED_H
#define TERSE_CMD_STREAM_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_stream.h"

/* cmd_stream_feed.c: the write feed of consumer groups (each sets CMD_FEED_PREVENT). */
/* Pending entry p of g as "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID
 * LASTID last" (after a delivery or claim; before dropping an entry whose message is gone). */
void cmd_stream_feed_claim(struct cmd_call *c, const struct resp_slice *key,
                           const struct resp_slice *group, const struct store_stream_group *g,
                           const struct store_stream_pending *p);
/* "XGROUP SETID key group last ENTRIESREAD n" (NOACK reads, XCLAIM's LASTID alone). */
void cmd_stream_feed_setid(struct cmd_call *c, const struct resp_slice *key,
                           const struct resp_slice *group, const struct store_stream_group *g);
/* "XGROUP CREATECONSUMER key group consumer" (a consumer a NOACK read created). */
void cmd_stream_feed_createconsumer(struct cmd_call *c, const struct resp_slice *key,
                                    const struct resp_slice *group,
                                    const struct resp_slice *consumer);

#endif /* TERSE_CMD_STREAM_FEED_H */
