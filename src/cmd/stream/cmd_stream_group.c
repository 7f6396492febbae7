/*
 * cmd_stream_group: consumer groups: XGROUP (CREATE, SETID, DESTROY, CREATECONSUMER,
 * DELCONSUMER, HELP), XACK and XPENDING, with Redis 7.0's argument order, replies and error
 * texts (t_stream.c: xgroupCommand, xackCommand, xpendingCommand).
 */
#include <string.h>

#include "cmd/stream/cmd_stream.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"

static void xgroup_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/* XGROUP's options from argv[5] (MKSTREAM for CREATE, ENTRIESREAD for CREATE and SETID):
 * 0, or -1 when it replied. */
static int xgroup_options(struct cmd_call *c, bool *mkstream, long long *entries_read)
{
    bool create = cmd_arg_is(c, 1, "create"), setid = cmd_arg_is(c, 1, "setid");

    for (size_t i = 5; i < c->argc;) {
        if (create && cmd_arg_is(c, i, "mkstream")) {
            *mkstream = true;
            i++;
        } else if ((create || setid) && cmd_arg_is(c, i, "entriesread") && i + 1 < c->argc) {
            if (cmd_ll_or_reply(c, i + 1, entries_read, NULL) != 0) {
                return -1;
            }
            if (*entries_read < 0 && *entries_read != -1) {
                cmd_reply_err(c, "ERR value for ENTRIESREAD must be positive or -1");
                return -1;
            }
            i += 2;
        } else {
            cmd_stream_reply_subcmd_syntax(c);
            return -1;
        }
    }
    return 0;
}

/* CREATE and SETID on s (found: the key held it): 0 when s changed, -1 when it replied. */
static int xgroup_set(struct cmd_call *c, struct store_stream *s, struct store_stream_group *g,
                      long long entries_read)
{
    struct store_stream_id id;
    bool create = cmd_arg_is(c, 1, "create");

    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$') {
        id = s->last_id;
    } else if (cmd_stream_id_or_reply(c, 4, 0, create, &id) != 0) {
        return -1;
    }
    if (!create) {
        g->last_id = id;
        g->entries_read = entries_read;
    } else if (g != NULL) {
        cmd_reply_err(c, "BUSYGROUP Consumer Group name already exists");
        return -1;
    } else {
        bool found;
        size_t at = store_stream_group_find(s, c->argv[3].p, c->argv[3].len, &found);
        if (cmd_stream_group_add(s, at, c->argv[3].p, c->argv[3].len, id, entries_read) !=
            TERSE_OK) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
    }
    resp_write_ok(c->out);
    return 0;
}

/* The subcommands on a stream: 0 when s changed (and the reply is written), 1 when the reply
 * is written and nothing changed, -1 when it replied an error, -2 when a chunked PEL failed
 * part way (*st; nothing replied, what was done is to be stored). */
static int xgroup_run(struct cmd_call *c, struct store_stream *s, struct store_stream_group *g,
                      long long entries_read, int *st)
{
    bool found;
    size_t at;

    if (cmd_arg_is(c, 1, "create") && c->argc >= 5 && c->argc <= 8) {
        return xgroup_set(c, s, g, entries_read);
    }
    if (cmd_arg_is(c, 1, "setid") && (c->argc == 5 || c->argc == 7)) {
        return xgroup_set(c, s, g, entries_read);
    }
    if (cmd_arg_is(c, 1, "destroy") && c->argc == 4) {
        resp_write_int(c->out, g != NULL);
        if (g == NULL) {
            return 1;
        }
        cmd_stream_group_del(s, (size_t)(g - s->groups));
        return 0;
    }
    if (cmd_arg_is(c, 1, "createconsumer") && c->argc == 5) {
        at = store_stream_consumer_find(g, c->argv[4].p, c->argv[4].len, &found);
        if (found) {
            resp_write_int(c->out, 0);
            return 1;
        }
        if (store_stream_consumer_insert(s, g, at, c->argv[4].p, c->argv[4].len, c->now_ms) !=
            TERSE_OK) {
            cmd_reply_status(c, TERSE_ENOMEM);
            return -1;
        }
        resp_write_int(c->out, 1);
        return 0;
    }
    if (cmd_arg_is(c, 1, "delconsumer") && c->argc == 5) {
        size_t pending = 0;
        at = store_stream_consumer_find(g, c->argv[4].p, c->argv[4].len, &found);
        if (found && (*st = cmd_stream_consumer_del(s, g, at, &pending)) != TERSE_OK) {
            return -2;
        }
        resp_write_int(c->out, (long long)pending);
        return found ? 0 : 1;
    }
    cmd_stream_reply_subcmd_syntax(c);
    return -1;
}

/* The event of the XGROUP subcommand that changed the stream. */
static const char *xgroup_event(const struct cmd_call *c)
{
    return cmd_arg_is(c, 1, "create")           ? "xgroup-create"
           : cmd_arg_is(c, 1, "setid")          ? "xgroup-setid"
           : cmd_arg_is(c, 1, "destroy")        ? "xgroup-destroy"
           : cmd_arg_is(c, 1, "createconsumer") ? "xgroup-createconsumer"
                                                : "xgroup-delconsumer";
}

/* XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER key group ... | HELP */
void cmd_stream_xgroup(struct cmd_call *c)
{
    struct store_stream s;
    struct store_stream_group *g = NULL;
    long long entries_read = -1;
    bool mkstream = false, found = false;
    size_t mark = c->out->len;
    int rc = 0, st = TERSE_OK;

    store_stream_init(&s, &c->srv->alloc);
    if (c->argc >= 4) {
        if (xgroup_options(c, &mkstream, &entries_read) != 0 ||
            cmd_stream_load(c, &c->argv[2], 1, &s, &found) != 0) {
            goto done;
        }
    }
    if (c->argc >= 4 && !mkstream) {
        if (!found) {
            cmd_reply_err(c, "ERR The XGROUP subcommand requires the key to exist. Note that "
                             "for CREATE you may want to use the MKSTREAM option to create an "
                             "empty stream automatically.");
            goto done;
        }
        g = cmd_stream_group(c, &s, 3);
        if (g == NULL && (cmd_arg_is(c, 1, "setid") || cmd_arg_is(c, 1, "createconsumer") ||
                          cmd_arg_is(c, 1, "delconsumer"))) {
            int gl, kl;
            const char *gs = cmd_stream_arg_cstr(&c->argv[3], &gl);
            const char *ks = cmd_stream_arg_cstr(&c->argv[2], &kl);
            resp_write_errorf(c->out, "NOGROUP No such consumer group '%.*s' for key name "
                                      "'%.*s'", gl, gs, kl, ks);
            goto done;
        }
    } else if (c->argc >= 4) {
        g = cmd_stream_group(c, &s, 3);
    }
    if (c->argc == 2 && cmd_arg_is(c, 1, "help")) {
        xgroup_help(c);
    } else if (c->argc < 4) {
        cmd_stream_reply_subcmd_syntax(c);
    } else if ((rc = xgroup_run(c, &s, g, entries_read, &st)) == 0 &&
               cmd_stream_store_or_withdraw(c, &c->argv[2], &s, mark) == 0) {
        /* After the store: a stream MKSTREAM creates is a new key first, as in Redis. */
        cmd_changed(c, CMD_NOTIFY_STREAM, xgroup_event(c), &c->argv[2]);
    } else if (rc == -2 && cmd_stream_store_or_withdraw(c, &c->argv[2], &s, mark) == 0) {
        cmd_value_reply_bad(c, &c->argv[2], st); /* the entries taken out stay out */
    }
done:
    store_stream_deinit(&s);
}

/* XACK key group id [id ...] */
void cmd_stream_xack(struct cmd_call *c)
{
    struct store_stream s;
    struct store_stream_group *g = NULL;
    struct store_stream_id id;
    size_t acked = 0, mark = c->out->len;
    bool found;
    int st = TERSE_OK;

    if (cmd_stream_load(c, &c->argv[1], 0, &s, &found) != 0) {
        goto done;
    }
    if (found) {
        g = cmd_stream_group(c, &s, 2);
    }
    if (g == NULL) {
        resp_write_int(c->out, 0);
        goto done;
    }
    for (size_t i = 3; i < c->argc; i++) {
        if (cmd_stream_id_or_reply(c, i, 0, true, &id) != 0) {
            goto done;
        }
    }
    for (size_t i = 3; i < c->argc; i++) {
        bool there;
        size_t at;
        (void)cmd_stream_parse_id(&c->argv[i], 0, true, NULL, &id);
        at = cmd_stream_pel_find(&s, g, &id, &there);
        if (there && (st = cmd_stream_pel_remove(&s, g, at)) != TERSE_OK) {
            break;
        }
        acked += there;
    }
    if (st == TERSE_OK) {
        st = cmd_stream_failed_status(&s);
    }
    if (st != TERSE_OK) {
        /* A chunked PEL keeps the entries acknowledged before: the meta's counts follow. */
        if (acked > 0) {
            (void)cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark);
        }
        c->out->len = mark;
        cmd_value_reply_bad(c, &c->argv[1], st);
        goto done;
    }
    resp_write_int(c->out, (long long)acked);
    if (acked > 0) {
        (void)cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark);
    }
done:
    store_stream_deinit(&s);
}

/* XPENDING key group: [count, first, last, [[consumer, count] ...]]. */
static void xpending_summary(struct cmd_call *c, const struct store_stream *s,
                             const struct store_stream_group *g)
{
    size_t n = 0, len = cmd_stream_pel_len(s, g);
    struct store_stream_pending first, last;

    resp_write_array(c->out, 4);
    resp_write_int(c->out, (long long)len);
    if (len == 0) {
        resp_write_null(c->out);
        resp_write_null(c->out);
        resp_write_null_array(c->out);
        return;
    }
    first = cmd_stream_pel_at(s, g, 0);
    last = cmd_stream_pel_at(s, g, len - 1);
    cmd_stream_write_id(c, &first.id);
    cmd_stream_write_id(c, &last.id);
    for (size_t k = 0; k < g->n_cons; k++) {
        n += store_stream_consumer_pending(g, k) > 0;
    }
    resp_write_array(c->out, n);
    for (size_t k = 0; k < g->n_cons; k++) {
        size_t p = store_stream_consumer_pending(g, k);
        if (p > 0) {
            resp_write_array(c->out, 2);
            resp_write_bulk(c->out, g->cons[k].name, g->cons[k].name_len);
            resp_write_bulk_ll(c->out, (long long)p);
        }
    }
}

struct xpending_range {
    struct store_stream_id start, end;
    long long count, min_idle;
    long consumer; /* -1: every consumer */
};

/* Whether pending entry p is one the extended form lists. */
static bool xpending_match(const struct cmd_call *c, const struct xpending_range *r,
                           const struct store_stream_pending *p)
{
    return (r->consumer < 0 || p->consumer == (size_t)r->consumer) &&
           (r->min_idle == 0 || c->now_ms - p->delivery_ms >= r->min_idle);
}

/* XPENDING key group [IDLE min] start end count [consumer]: [[id, consumer, idle, count]]. */
static void xpending_range(struct cmd_call *c, const struct store_stream *s,
                           const struct store_stream_group *g, const struct xpending_range *r)
{
    bool there;
    size_t from = cmd_stream_pel_find(s, g, &r->start, &there), n = 0, k;
    size_t len = cmd_stream_pel_len(s, g);

    /* By consumer: no further than all its entries (Redis walks the consumer's own PEL). */
    size_t most = r->consumer < 0 ? len : (size_t)g->cons[r->consumer].n_pending;

    for (k = from; k < len && (long long)n < r->count && n < most; k++) {
        struct store_stream_pending pe = cmd_stream_pel_at(s, g, k);
        if (store_stream_id_cmp(&pe.id, &r->end) > 0 || cmd_stream_failed_status(s) != 0) {
            break;
        }
        n += xpending_match(c, r, &pe);
    }
    resp_write_array(c->out, n);
    for (k = from; n > 0 && k < len && cmd_stream_failed_status(s) == 0; k++) {
        const struct store_stream_pending pe = cmd_stream_pel_at(s, g, k), *p = &pe;
        const struct store_stream_consumer *cons = &g->cons[p->consumer];
        long long idle = c->now_ms - p->delivery_ms;
        if (!xpending_match(c, r, p)) {
            continue;
        }
        n--;
        resp_write_array(c->out, 4);
        cmd_stream_write_id(c, &p->id);
        resp_write_bulk(c->out, cons->name, cons->name_len);
        resp_write_int(c->out, idle < 0 ? 0 : idle);
        resp_write_int(c->out, (long long)p->delivery_count);
    }
}

/* XPENDING key group [[IDLE min-idle-time] start end count [consumer]] */
void cmd_stream_xpending(struct cmd_call *c)
{
    struct xpending_range r = {{0, 0}, {0, 0}, 0, 0, -1};
    struct store_stream s;
    struct store_stream_group *g = NULL;
    size_t first = 3, consumer_arg = 0, mark = c->out->len;
    bool found;

    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc >= 6) {
        if (cmd_arg_is(c, 3, "idle")) {
            if (cmd_ll_or_reply(c, 4, &r.min_idle, NULL) != 0) {
                return;
            }
            if (c->argc < 8) {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return;
            }
            first = 5;
        }
        if (cmd_ll_or_reply(c, first + 2, &r.count, NULL) != 0) {
            return;
        }
        if (r.count < 0) {
            r.count = 0;
        }
        if (cmd_stream_bound_or_reply(c, first, true, &r.start) != 0 ||
            cmd_stream_bound_or_reply(c, first + 1, false, &r.end) != 0) {
            return;
        }
        consumer_arg = first + 3 < c->argc ? first + 3 : 0;
    }
    if (cmd_stream_load(c, &c->argv[1], 0, &s, &found) != 0) {
        goto done;
    }
    if (found) {
        g = cmd_stream_group(c, &s, 2);
    }
    if (g == NULL) {
        int kl, gl;
        const char *ks = cmd_stream_arg_cstr(&c->argv[1], &kl);
        const char *gs = cmd_stream_arg_cstr(&c->argv[2], &gl);
        resp_write_errorf(c->out, "NOGROUP No such key '%.*s' or consumer group '%.*s'", kl, ks,
                          gl, gs);
        goto done;
    }
    if (c->argc == 3) {
        xpending_summary(c, &s, g);
        (void)cmd_stream_failed(c, &c->argv[1], &s, mark);
        goto done;
    }
    if (consumer_arg != 0) {
        bool there;
        size_t at = store_stream_consumer_find(g, c->argv[consumer_arg].p,
                                               c->argv[consumer_arg].len, &there);
        if (!there) {
            resp_write_array(c->out, 0);
            goto done;
        }
        r.consumer = (long)at;
    }
    xpending_range(c, &s, g, &r);
    (void)cmd_stream_failed(c, &c->argv[1], &s, mark);
done:
    store_stream_deinit(&s);
}
