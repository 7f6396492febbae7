/*
 * cmd_stream_feed: how consumer-group commands reach the write feed (cmd_feed.c), as Redis
 * 7.0's t_stream.c propagates them. XREADGROUP, XCLAIM and XAUTOCLAIM are never fed as sent
 * (a replica would deliver at its own time, or to no one); each pending entry they create,
 * move or drop is fed as an idempotent XCLAIM with the entry's exact state, the group's
 * position as XGROUP SETID when NOACK moved it, and a consumer NOACK created as XGROUP
 * CREATECONSUMER.
 */
#include "cmd/stream/cmd_stream_feed.h"

#include "cmd/mech/cmd_feed.h"
#include "cmd/stream/cmd_stream.h"

static struct resp_slice id_slice(char *buf, const struct store_stream_id *id)
{
    struct resp_slice r = {(const uint8_t *)buf, cmd_stream_id_fmt(buf, id)};

    return r;
}

void cmd_stream_feed_claim(struct cmd_call *c, const struct resp_slice *key,
                           const struct resp_slice *group, const struct store_stream_group *g,
                           const struct store_stream_pending *p)
{
    char id[CMD_STREAM_ID_MAX], last[CMD_STREAM_ID_MAX], ms[CMD_FEED_NUM], count[CMD_FEED_NUM];
    const struct store_stream_consumer *who = &g->cons[p->consumer];
    struct resp_slice a[14] = {
        cmd_feed_str("XCLAIM"), *key, *group, {who->name, who->name_len}, cmd_feed_str("0"),
        id_slice(id, &p->id), cmd_feed_str("TIME"), cmd_feed_ll(ms, p->delivery_ms),
        cmd_feed_str("RETRYCOUNT"), cmd_feed_ll(count, (long long)p->delivery_count),
        cmd_feed_str("FORCE"), cmd_feed_str("JUSTID"), cmd_feed_str("LASTID"),
        id_slice(last, &g->last_id)};

    c->feed |= CMD_FEED_PREVENT;
    cmd_feed_op(c, c->cl->db, a, 14);
}

void cmd_stream_feed_setid(struct cmd_call *c, const struct resp_slice *key,
                           const struct resp_slice *group, const struct store_stream_group *g)
{
    char last[CMD_STREAM_ID_MAX], read[CMD_FEED_NUM];
    struct resp_slice a[7] = {cmd_feed_str("XGROUP"), cmd_feed_str("SETID"), *key, *group,
                              id_slice(last, &g->last_id), cmd_feed_str("ENTRIESREAD"),
                              cmd_feed_ll(read, (long long)g->entries_read)};

    c->feed |= CMD_FEED_PREVENT;
    cmd_feed_op(c, c->cl->db, a, 7);
}

void cmd_stream_feed_createconsumer(struct cmd_call *c, const struct resp_slice *key,
                                    const struct resp_slice *group,
                                    const struct resp_slice *consumer)
{
    struct resp_slice a[5] = {cmd_feed_str("XGROUP"), cmd_feed_str("CREATECONSUMER"), *key,
                              *group, *consumer};

    c->feed |= CMD_FEED_PREVENT;
    cmd_feed_op(c, c->cl->db, a, 5);
}
