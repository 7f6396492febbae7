/*
 * cmd_stream_table: the stream family's rows of the command table (XADD ... XSETID, with the
 * subcommands of XGROUP and XINFO), and XLEN.
 */
#include "cmd/stream/cmd_stream_table.h"

#include "cmd/stream/cmd_stream.h"

#include <stdbool.h>

#include "resp/resp_write.h"

/* XLEN key */
void cmd_stream_xlen(struct cmd_call *c)
{
    struct store_stream s;
    bool found;

    if (cmd_stream_load(c, &c->argv[1], 0, &s, &found) == 0) {
        resp_write_int(c->out, (long long)cmd_stream_len(&s));
    }
    store_stream_deinit(&s);
}

/* ---- the table ------------------------------------------------------------------------------ */

#define W_DENY (CMD_WRITE | CMD_DENYOOM)
#define HELP_FLAGS (CMD_LOADING | CMD_STALE)

static const struct cmd_def xgroup_subcmds[] = {
    {"xgroup|create", -5, W_DENY, 2, 2, 1, cmd_stream_xgroup, "@write @stream @slow",
     "Create a consumer group.", "5.0.0", "stream", NULL},
    {"xgroup|createconsumer", 5, W_DENY, 2, 2, 1, cmd_stream_xgroup, "@write @stream @slow",
     "Create a consumer in a consumer group.", "6.2.0", "stream", NULL},
    {"xgroup|delconsumer", 5, CMD_WRITE, 2, 2, 1, cmd_stream_xgroup, "@write @stream @slow",
     "Delete a consumer from a consumer group.", "5.0.0", "stream", NULL},
    {"xgroup|destroy", 4, CMD_WRITE, 2, 2, 1, cmd_stream_xgroup, "@write @stream @slow",
     "Destroy a consumer group.", "5.0.0", "stream", NULL},
    {"xgroup|help", 2, HELP_FLAGS, 0, 0, 0, cmd_stream_xgroup, "@stream @slow",
     "Show helpful text about the different subcommands", "5.0.0", "stream", NULL},
    {"xgroup|setid", -5, CMD_WRITE, 2, 2, 1, cmd_stream_xgroup, "@write @stream @slow",
     "Set a consumer group to an arbitrary last delivered ID value.", "5.0.0", "stream", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

static const struct cmd_def xinfo_subcmds[] = {
    {"xinfo|consumers", 4, CMD_READONLY, 2, 2, 1, cmd_stream_xinfo, "@read @stream @slow",
     "List the consumers in a consumer group", "5.0.0", "stream", NULL},
    {"xinfo|groups", 3, CMD_READONLY, 2, 2, 1, cmd_stream_xinfo, "@read @stream @slow",
     "List the consumer groups of a stream", "5.0.0", "stream", NULL},
    {"xinfo|help", 2, HELP_FLAGS, 0, 0, 0, cmd_stream_xinfo, "@stream @slow",
     "Show helpful text about the different subcommands", "5.0.0", "stream", NULL},
    {"xinfo|stream", -3, CMD_READONLY, 2, 2, 1, cmd_stream_xinfo, "@read @stream @slow",
     "Get information about a stream", "5.0.0", "stream", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

/* From Redis 7.0.15's command JSON files (src/commands/x*.json). */
const struct cmd_def cmd_stream_defs[] = {
    {"xadd", -5, W_DENY | CMD_FAST, 1, 1, 1, cmd_stream_xadd, "@write @stream @fast",
     "Appends a new entry to a stream", "5.0.0", "stream", NULL},
    {"xtrim", -4, CMD_WRITE, 1, 1, 1, cmd_stream_xtrim, "@write @stream @slow",
     "Trims the stream to (approximately if '~' is passed) a certain size", "5.0.0", "stream",
     NULL},
    {"xdel", -3, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_stream_xdel, "@write @stream @fast",
     "Removes the specified entries from the stream. Returns the number of items actually "
     "deleted, that may be different from the number of IDs passed in case certain IDs do "
     "not exist.",
     "5.0.0", "stream", NULL},
    {"xsetid", -3, W_DENY | CMD_FAST, 1, 1, 1, cmd_stream_xsetid, "@write @stream @fast",
     "An internal command for replicating stream values", "5.0.0", "stream", NULL},
    {"xlen", 2, CMD_READONLY | CMD_FAST, 1, 1, 1, cmd_stream_xlen, "@read @stream @fast",
     "Return the number of entries in a stream", "5.0.0", "stream", NULL},
    {"xrange", -4, CMD_READONLY, 1, 1, 1, cmd_stream_xrange, "@read @stream @slow",
     "Return a range of elements in a stream, with IDs matching the specified IDs interval",
     "5.0.0", "stream", NULL},
    {"xrevrange", -4, CMD_READONLY, 1, 1, 1, cmd_stream_xrevrange, "@read @stream @slow",
     "Return a range of elements in a stream, with IDs matching the specified IDs interval, "
     "in reverse order (from greater to smaller IDs) compared to XRANGE",
     "5.0.0", "stream", NULL},
    {"xread", -4, CMD_READONLY | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_stream_xread,
     "@read @stream @slow @blocking",
     "Return never seen elements in multiple streams, with IDs greater than the ones reported "
     "by the caller for each stream. Can block.",
     "5.0.0", "stream", NULL},
    {"xreadgroup", -7, CMD_WRITE | CMD_BLOCKING | CMD_MOVABLE_KEYS, 0, 0, 0, cmd_stream_xread,
     "@write @stream @slow @blocking",
     "Return new entries from a stream using a consumer group, or access the history of the "
     "pending entries for a given consumer. Can block.",
     "5.0.0", "stream", NULL},
    {"xgroup", -2, 0, 0, 0, 0, NULL, "@slow", "A container for consumer groups commands",
     "5.0.0", "stream", xgroup_subcmds},
    {"xack", -4, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_stream_xack, "@write @stream @fast",
     "Marks a pending message as correctly processed, effectively removing it from the "
     "pending entries list of the consumer group. Return value of the command is the number "
     "of messages successfully acknowledged, that is, the IDs we were actually able to "
     "resolve in the PEL.",
     "5.0.0", "stream", NULL},
    {"xpending", -3, CMD_READONLY, 1, 1, 1, cmd_stream_xpending, "@read @stream @slow",
     "Return information and entries from a stream consumer group pending entries list, "
     "that are messages fetched but never acknowledged.",
     "5.0.0", "stream", NULL},
    {"xclaim", -6, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_stream_xclaim, "@write @stream @fast",
     "Changes (or acquires) ownership of a message in a consumer group, as if the message was "
     "delivered to the specified consumer.",
     "5.0.0", "stream", NULL},
    {"xautoclaim", -6, CMD_WRITE | CMD_FAST, 1, 1, 1, cmd_stream_xautoclaim,
     "@write @stream @fast",
     "Changes (or acquires) ownership of messages in a consumer group, as if the messages "
     "were delivered to the specified consumer.",
     "6.2.0", "stream", NULL},
    {"xinfo", -2, 0, 0, 0, 0, NULL, "@slow", "A container for stream introspection commands",
     "5.0.0", "stream", xinfo_subcmds},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
