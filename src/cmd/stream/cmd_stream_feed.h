/*
 * cmd_stream_feed: (see cmd_stream_feed.c)
 */
#ifndef TERSE_CMD_STREAM_FEED_H
#define TERSE_CMD_STREAM_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/store_stream.h"

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
