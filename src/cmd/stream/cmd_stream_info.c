/*
 * cmd_stream_info: XINFO STREAM [FULL [COUNT n]], GROUPS, CONSUMERS and HELP, with Redis 7.0's
 * fields in its order (t_stream.c: xinfoCommand, xinfoReplyWithStreamInfo).
 *
 * radix-tree-keys and radix-tree-nodes describe Redis's own layout (listpack nodes in a radix
 * tree): terse answers the count of the nodes it keeps in Redis's image (store_stream.h) as
 * the keys, and one more as the nodes, which is Redis's figure for one key only.
 */
#include <string.h>

#include "cmd/stream/cmd_stream.h"
#include "cmd/core/cmd_util.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"

/* XINFO STREAM FULL's default COUNT. */
#define FULL_DEFAULT_COUNT 10

static void kv_int(struct cmd_call *c, const char *k, long long v)
{
    resp_write_cstr(c->out, k);
    resp_write_int(c->out, v);
}

static void kv_id(struct cmd_call *c, const char *k, const struct store_stream_id *id)
{
    resp_write_cstr(c->out, k);
    cmd_stream_write_id(c, id);
}

static void kv_read(struct cmd_call *c, const struct store_stream_group *g)
{
    resp_write_cstr(c->out, "entries-read");
    if (g->entries_read != -1) {
        resp_write_int(c->out, g->entries_read);
    } else {
        resp_write_null(c->out);
    }
}

/* The seven fields XINFO STREAM starts with, full or not. */
static void stream_head(struct cmd_call *c, const struct store_stream *s)
{
    size_t keys = cmd_stream_n_nodes(s);
    struct store_stream_id first = cmd_stream_first_id(s);

    kv_int(c, "length", (long long)cmd_stream_len(s));
    kv_int(c, "radix-tree-keys", (long long)keys);
    kv_int(c, "radix-tree-nodes", (long long)(keys == 0 ? 1 : keys + 1));
    kv_id(c, "last-generated-id", &s->last_id);
    kv_id(c, "max-deleted-entry-id", &s->max_deleted);
    kv_int(c, "entries-added", (long long)s->entries_added);
    kv_id(c, "recorded-first-entry-id", &first);
}

/* One group of XINFO STREAM FULL, its pending entries and consumers' at most count each (0:
 * all). */
static void full_group(struct cmd_call *c, const struct store_stream *s,
                       const struct store_stream_group *g, long long count)
{
    size_t len = cmd_stream_pel_len(s, g);
    size_t n = count == 0 || (unsigned long long)count > len ? len : (size_t)count;

    resp_write_map(c->out, 7);
    resp_write_cstr(c->out, "name");
    resp_write_bulk(c->out, g->name, g->name_len);
    kv_id(c, "last-delivered-id", &g->last_id);
    kv_read(c, g);
    resp_write_cstr(c->out, "lag");
    cmd_stream_write_lag(c, s, g);
    kv_int(c, "pel-count", (long long)len);
    resp_write_cstr(c->out, "pending");
    resp_write_array(c->out, n);
    for (size_t k = 0; k < n; k++) {
        const struct store_stream_pending pe = cmd_stream_pel_at(s, g, k), *p = &pe;
        resp_write_array(c->out, 4);
        cmd_stream_write_id(c, &p->id);
        resp_write_bulk(c->out, g->cons[p->consumer].name, g->cons[p->consumer].name_len);
        resp_write_int(c->out, p->delivery_ms);
        resp_write_int(c->out, (long long)p->delivery_count);
    }
    resp_write_cstr(c->out, "consumers");
    resp_write_array(c->out, g->n_cons);
    for (size_t ci = 0; ci < g->n_cons; ci++) {
        size_t total = store_stream_consumer_pending(g, ci);
        size_t m = count == 0 || (unsigned long long)count > total ? total : (size_t)count;
        resp_write_map(c->out, 4);
        resp_write_cstr(c->out, "name");
        resp_write_bulk(c->out, g->cons[ci].name, g->cons[ci].name_len);
        kv_int(c, "seen-time", g->cons[ci].seen_ms);
        kv_int(c, "pel-count", (long long)total);
        resp_write_cstr(c->out, "pending");
        resp_write_array(c->out, m);
        /* A chunked PEL holds every consumer's entries: walked for each (Redis walks the
         * consumer's own). A failed read ends the walk (cmd_stream_failed replies it). */
        for (size_t k = 0; m > 0; k++) {
            const struct store_stream_pending pe =
                k < len && cmd_stream_failed_status(s) == 0
                    ? cmd_stream_pel_at(s, g, k)
                    : (struct store_stream_pending){{0, 0}, ci, 0, 0};
            const struct store_stream_pending *p = &pe;
            if (p->consumer != ci) {
                continue;
            }
            m--;
            resp_write_array(c->out, 3);
            cmd_stream_write_id(c, &p->id);
            resp_write_int(c->out, p->delivery_ms);
            resp_write_int(c->out, (long long)p->delivery_count);
        }
    }
}

/* XINFO STREAM key [FULL [COUNT count]] */
static void info_stream(struct cmd_call *c, const struct store_stream *s)
{
    long long count = FULL_DEFAULT_COUNT;
    size_t n;

    if (c->argc > 3) {
        if ((c->argc != 4 && c->argc != 6) || !cmd_arg_is(c, 3, "full") ||
            (c->argc == 6 && !cmd_arg_is(c, 4, "count"))) {
            cmd_stream_reply_subcmd_syntax(c);
            return;
        }
        if (c->argc == 6) {
            if (cmd_ll_or_reply(c, 5, &count, NULL) != 0) {
                return;
            }
            if (count < 0) {
                count = FULL_DEFAULT_COUNT;
            }
        }
    }
    if (c->argc == 3) {
        resp_write_map(c->out, 10);
        stream_head(c, s);
        kv_int(c, "groups", (long long)s->n_groups);
        resp_write_cstr(c->out, "first-entry");
        if (cmd_stream_len(s) == 0) {
            resp_write_null(c->out);
        } else {
            cmd_stream_write_entry(c, cmd_stream_at(s, 0));
        }
        resp_write_cstr(c->out, "last-entry");
        if (cmd_stream_len(s) == 0) {
            resp_write_null(c->out);
        } else {
            cmd_stream_write_entry(c, cmd_stream_at(s, cmd_stream_len(s) - 1));
        }
        return;
    }
    resp_write_map(c->out, 9);
    stream_head(c, s);
    resp_write_cstr(c->out, "entries");
    n = cmd_stream_len(s);
    n = count == 0 || (unsigned long long)count > n ? n : (size_t)count;
    resp_write_array(c->out, n);
    for (size_t k = 0; k < n; k++) {
        cmd_stream_write_entry(c, cmd_stream_at(s, k));
    }
    resp_write_cstr(c->out, "groups");
    resp_write_array(c->out, s->n_groups);
    for (size_t k = 0; k < s->n_groups; k++) {
        full_group(c, s, &s->groups[k], count);
    }
}

/* XINFO GROUPS key */
static void info_groups(struct cmd_call *c, const struct store_stream *s)
{
    resp_write_array(c->out, s->n_groups);
    for (size_t k = 0; k < s->n_groups; k++) {
        const struct store_stream_group *g = &s->groups[k];
        resp_write_map(c->out, 6);
        resp_write_cstr(c->out, "name");
        resp_write_bulk(c->out, g->name, g->name_len);
        kv_int(c, "consumers", (long long)g->n_cons);
        kv_int(c, "pending", (long long)cmd_stream_pel_len(s, g));
        kv_id(c, "last-delivered-id", &g->last_id);
        kv_read(c, g);
        resp_write_cstr(c->out, "lag");
        cmd_stream_write_lag(c, s, g);
    }
}

/* XINFO CONSUMERS key group */
static void info_consumers(struct cmd_call *c, struct store_stream *s)
{
    const struct store_stream_group *g = cmd_stream_group(c, s, 3);

    if (g == NULL) {
        int gl, kl;
        const char *gs = cmd_stream_arg_cstr(&c->argv[3], &gl);
        const char *ks = cmd_stream_arg_cstr(&c->argv[2], &kl);
        resp_write_errorf(c->out, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                          gl, gs, kl, ks);
        return;
    }
    resp_write_array(c->out, g->n_cons);
    for (size_t ci = 0; ci < g->n_cons; ci++) {
        long long idle = c->now_ms - g->cons[ci].seen_ms;
        resp_write_map(c->out, 3);
        resp_write_cstr(c->out, "name");
        resp_write_bulk(c->out, g->cons[ci].name, g->cons[ci].name_len);
        kv_int(c, "pending", (long long)store_stream_consumer_pending(g, ci));
        kv_int(c, "idle", idle < 0 ? 0 : idle);
    }
}

static void info_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/* XINFO CONSUMERS|GROUPS|STREAM key ... | HELP */
void cmd_stream_xinfo(struct cmd_call *c)
{
    struct store_stream s;
    bool found;

    if (cmd_arg_is(c, 1, "help")) {
        if (c->argc != 2) {
            cmd_stream_reply_subcmd_syntax(c);
        } else {
            info_help(c);
        }
        return;
    }
    if (c->argc < 3) {
        cmd_stream_reply_subcmd_syntax(c);
        return;
    }
    if (cmd_stream_load(c, &c->argv[2], 0, &s, &found) != 0) {
        goto done;
    }
    if (!found) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
    } else if (cmd_arg_is(c, 1, "consumers") && c->argc == 4) {
        info_consumers(c, &s);
    } else if (cmd_arg_is(c, 1, "groups") && c->argc == 3) {
        info_groups(c, &s);
    } else if (cmd_arg_is(c, 1, "stream")) {
        size_t mark = c->out->len;
        info_stream(c, &s);
        (void)cmd_stream_failed(c, &c->argv[2], &s, mark);
    } else {
        cmd_stream_reply_subcmd_syntax(c);
    }
done:
    store_stream_deinit(&s);
}
