/*
 * cmd_stream_range: the stream reads: XRANGE, XREVRANGE, XREAD and XREADGROUP (which writes
 * the group's state: last delivered ID, read counter, pending entries, consumers), with Redis
 * 7.0's argument order and replies (t_stream.c: xrangeGenericCommand, xreadCommand,
 * streamReplyWithRange, streamReplyWithRangeFromConsumerPEL).
 *
 * With BLOCK and nothing to serve, the client waits (cmd_block.c) until a key it reads is
 * written or the timeout passes; each "$" is kept as the ID it meant when the call came. Run
 * again for a waiting client (CMD_CALL_RETRY), XREAD passes over a key that is no stream (it
 * keeps waiting, as Redis's does), while XREADGROUP answers the error (WRONGTYPE, NOGROUP).
 */
#include <string.h>

#include "cmd/stream/cmd_stream.h"


#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_block.h"
#include "cmd/mech/cmd_feed.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/stream/cmd_stream_feed.h"

/* [lo, hi): the entries of s from start to end, both inclusive. */
static void range_of(const struct store_stream *s, const struct store_stream_id *start,
                     const struct store_stream_id *end, size_t *lo, size_t *hi)
{
    *lo = cmd_stream_seek(s, start);
    *hi = cmd_stream_seek(s, end);
    if (*hi < cmd_stream_len(s) && store_stream_id_cmp(&cmd_stream_at(s, *hi)->id, end) == 0) {
        (*hi)++;
    }
    if (*hi < *lo) {
        *hi = *lo;
    }
}

static void xrange_generic(struct cmd_call *c, bool rev)
{
    struct store_stream_id start, end;
    struct store_stream s;
    long long count = -1;
    size_t lo, hi, n, mark = c->out->len;
    bool found;

    if (cmd_stream_bound_or_reply(c, rev ? 3 : 2, true, &start) != 0 ||
        cmd_stream_bound_or_reply(c, rev ? 2 : 3, false, &end) != 0) {
        return;
    }
    for (size_t j = 4; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "count") && j + 1 < c->argc) {
            if (cmd_ll_or_reply(c, j + 1, &count, NULL) != 0) {
                return;
            }
            if (count < 0) {
                count = 0;
            }
            j++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (cmd_stream_load(c, &c->argv[1], 0, &s, &found) != 0) {
        goto done;
    }
    if (!found) {
        resp_write_array(c->out, 0);
        goto done;
    }
    if (count == 0) {
        resp_write_null_array(c->out);
        goto done;
    }
    range_of(&s, &start, &end, &lo, &hi);
    n = hi - lo;
    if (count > 0 && (unsigned long long)count < n) {
        n = (size_t)count;
    }
    resp_write_array(c->out, n);
    for (size_t k = 0; k < n; k++) {
        cmd_stream_write_entry(c, cmd_stream_at(&s, rev ? hi - 1 - k : lo + k));
    }
    (void)cmd_stream_failed(c, &c->argv[1], &s, mark);
done:
    store_stream_deinit(&s);
}

/* XRANGE key start end [COUNT count] */
void cmd_stream_xrange(struct cmd_call *c)
{
    xrange_generic(c, false);
}

/* XREVRANGE key end start [COUNT count] */
void cmd_stream_xrevrange(struct cmd_call *c)
{
    xrange_generic(c, true);
}

/* ---- XREAD, XREADGROUP ---------------------------------------------------------------------- */

struct xread_args {
    bool group;           /* XREADGROUP */
    size_t group_arg;     /* argv index of the group name (then the consumer's) */
    bool noack;
    bool block;
    long long block_ms;   /* BLOCK's timeout, 0: forever */
    long long count;      /* 0: no limit */
    size_t streams;       /* argv index of the first key */
    size_t n;             /* keys */
};

static int xread_parse(struct cmd_call *c, struct xread_args *a)
{
    memset(a, 0, sizeof(*a));
    a->group = c->argv[0].len == 10;
    for (size_t i = 1; i < c->argc; i++) {
        size_t more = c->argc - i - 1;
        if (cmd_arg_is(c, i, "block") && more > 0) {
            long long t;
            if (c->cl->flags & CMD_CLIENT_SCRIPT) {
                /* Redis's special case for Lua: BLOCK makes no sense in a script. */
                resp_write_errorf(c->out, "ERR %.*s command is not allowed with BLOCK option "
                                          "from scripts",
                                  (int)c->argv[0].len, (const char *)c->argv[0].p);
                return -1;
            }
            i++;
            if (cmd_ll_or_reply(c, i, &t, "ERR timeout is not an integer or out of range") !=
                0) {
                return -1;
            }
            if (t < 0) {
                cmd_reply_err(c, "ERR timeout is negative");
                return -1;
            }
            a->block = true;
            a->block_ms = t;
        } else if (cmd_arg_is(c, i, "count") && more > 0) {
            i++;
            if (cmd_ll_or_reply(c, i, &a->count, NULL) != 0) {
                return -1;
            }
            if (a->count < 0) {
                a->count = 0;
            }
        } else if (cmd_arg_is(c, i, "streams") && more > 0) {
            a->streams = i + 1;
            if ((c->argc - a->streams) % 2 != 0) {
                cmd_reply_err(c, "ERR Unbalanced XREAD list of streams: for each stream key an "
                                 "ID or '$' must be specified.");
                return -1;
            }
            a->n = (c->argc - a->streams) / 2;
            break;
        } else if (cmd_arg_is(c, i, "group") && more >= 2) {
            if (!a->group) {
                cmd_reply_err(c, "ERR The GROUP option is only supported by XREADGROUP. You "
                                 "called XREAD instead.");
                return -1;
            }
            a->group_arg = i + 1;
            i += 2;
        } else if (cmd_arg_is(c, i, "noack")) {
            if (!a->group) {
                cmd_reply_err(c, "ERR The NOACK option is only supported by XREADGROUP. You "
                                 "called XREAD instead.");
                return -1;
            }
            a->noack = true;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    if (a->streams == 0) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return -1;
    }
    if (a->group && a->group_arg == 0) {
        cmd_reply_err(c, "ERR Missing GROUP option for XREADGROUP");
        return -1;
    }
    return 0;
}

/* A retried XREAD passes over a key that holds no stream (Redis keeps such a client waiting);
 * XREADGROUP does not (it answers WRONGTYPE or NOGROUP). */
static bool passed_over(struct cmd_call *c, const struct xread_args *a, size_t k)
{
    return (c->mode & CMD_CALL_RETRY) && !a->group &&
           cmd_block_ready(c, &c->argv[a->streams + k], STORE_TYPE_STREAM) == 0;
}

/*
 * The ID after which each key is read, into ids (a->n of them; cmd_stream_id_max for ">"),
 * checking types, groups and IDs in Redis's order. 0, or -1 when it replied.
 */
static int xread_ids(struct cmd_call *c, const struct xread_args *a, struct store_stream_id *ids)
{
    for (size_t k = 0; k < a->n; k++) {
        const struct resp_slice *key = &c->argv[a->streams + k];
        const struct resp_slice *arg = &c->argv[a->streams + a->n + k];
        struct store_stream s;
        bool found, dollar = arg->len == 1 && arg->p[0] == '$';
        int rc = 0;

        if (passed_over(c, a, k)) {
            ids[k] = cmd_stream_id_max;
            continue;
        }
        if ((c->mode & CMD_CALL_RETRY) && a->group &&
            cmd_block_ready(c, key, STORE_TYPE_STREAM) == 0) {
            /* A waiting XREADGROUP whose key went (or is no stream now): Redis's words. */
            cmd_reply_err(c, "UNBLOCKED the stream key no longer exists");
            return -1;
        }
        if (cmd_stream_load(c, key, 0, &s, &found) != 0) {
            return -1;
        }
        if (a->group && found && (c->mode & CMD_CALL_RETRY) &&
            cmd_stream_group(c, &s, a->group_arg) == NULL) {
            cmd_reply_err(c, "NOGROUP the consumer group this client was blocked on no longer "
                             "exists");
            rc = -1;
        } else if (a->group && (!found || cmd_stream_group(c, &s, a->group_arg) == NULL)) {
            int kl, gl;
            const char *ks = cmd_stream_arg_cstr(key, &kl);
            const char *gs = cmd_stream_arg_cstr(&c->argv[a->group_arg], &gl);
            resp_write_errorf(c->out, "NOGROUP No such key '%.*s' or consumer group '%.*s' in "
                                      "XREADGROUP with GROUP option", kl, ks, gl, gs);
            rc = -1;
        } else if (dollar && a->group) {
            cmd_reply_err(c, "ERR The $ ID is meaningless in the context of XREADGROUP: you "
                             "want to read the history of this consumer by specifying a proper "
                             "ID, or use the > ID to get new messages. The $ ID would just "
                             "return an empty result set.");
            rc = -1;
        } else if (dollar) {
            ids[k] = s.last_id;
        } else if (arg->len == 1 && arg->p[0] == '>') {
            if (!a->group) {
                cmd_reply_err(c, "ERR The > ID can be specified only when calling XREADGROUP "
                                 "using the GROUP <group> <consumer> option.");
                rc = -1;
            } else {
                ids[k] = cmd_stream_id_max;
            }
        } else {
            rc = cmd_stream_id_or_reply(c, a->streams + a->n + k, 0, true, &ids[k]);
        }
        store_stream_deinit(&s);
        if (rc != 0) {
            return -1;
        }
    }
    return 0;
}

/* Delivers the entries [lo, lo + n) of s to consumer ci of g, as Redis's streamReplyWithRange
 * with a group: the group's last ID and read counter move, each entry becomes pending for ci
 * (unless noack). TERSE_OK, or the status a pending entry's write met (the caller withdraws;
 * a chunked PEL keeps what was written before it). */
static int deliver_new(struct cmd_call *c, struct store_stream *s, struct store_stream_group *g,
                       size_t ci, size_t lo, size_t n, bool noack)
{
    resp_write_array(c->out, n);
    for (size_t k = lo; k < lo + n; k++) {
        /* A copy: the counters below may read another node, which the entry's view is in. */
        const struct store_stream_id idv = cmd_stream_at(s, k)->id, *id = &idv;
        if (store_stream_id_cmp(id, &g->last_id) > 0) {
            if (g->entries_read != -1 && !cmd_stream_has_tombstones(s, id)) {
                g->entries_read++;
            } else if (s->entries_added != 0) {
                g->entries_read = cmd_stream_estimate_read(s, id);
            }
            g->last_id = *id;
        }
        cmd_stream_write_entry(c, cmd_stream_at(s, k));
        if (!noack) {
            bool there;
            size_t at = cmd_stream_pel_find(s, g, id, &there);
            struct store_stream_pending p = {*id, ci, c->now_ms, 1};
            int st = cmd_stream_pel_put(s, g, at, there, &p);
            if (st != TERSE_OK) {
                return st;
            }
        }
    }
    return TERSE_OK;
}

/* XREADGROUP as fed (cmd_stream_feed.c): the consumer a NOACK read created, each entry
 * delivered as the XCLAIM of its pending entry, or the group's new position after a NOACK
 * read; reading the history is not fed (Redis 7.0 does not). */
static void feed_read(struct cmd_call *c, const struct resp_slice *key,
                      const struct xread_args *a, const struct store_stream *s,
                      const struct store_stream_group *g, size_t lo, size_t n,
                      const struct resp_slice *created, const struct store_stream_id *last)
{
    const struct resp_slice *group = &c->argv[a->group_arg];

    if (created != NULL && a->noack) {
        cmd_stream_feed_createconsumer(c, key, group, created);
    }
    for (size_t k = lo; k < lo + n && !a->noack; k++) {
        bool there;
        const struct store_stream_id id = cmd_stream_at(s, k)->id;
        size_t at = cmd_stream_pel_find(s, g, &id, &there);
        if (there) {
            const struct store_stream_pending pe = cmd_stream_pel_at(s, g, at);
            cmd_stream_feed_claim(c, key, group, g, &pe);
        }
    }
    if (a->noack && store_stream_id_cmp(&g->last_id, last) != 0) {
        cmd_stream_feed_setid(c, key, group, g);
    }
}

/* Replies consumer ci's pending entries from start on (at most count, 0: all), as Redis's
 * streamReplyWithRangeFromConsumerPEL: each is delivered again (time, count), one whose entry
 * is gone is replied [id, null]. */
static int deliver_history(struct cmd_call *c, struct store_stream *s,
                            struct store_stream_group *g, size_t ci,
                            const struct store_stream_id *start, long long count)
{
    bool there;
    size_t from = cmd_stream_pel_find(s, g, start, &there), n = 0;
    size_t len = cmd_stream_pel_len(s, g);
    int st;

    /* A chunked PEL holds every consumer's entries: this walks them from start (Redis walks
     * the consumer's own), and stops once it has met all the consumer has (none: at once). */
    for (size_t k = from; k < len && (count == 0 || n < (size_t)count) &&
                          n < g->cons[ci].n_pending && cmd_stream_failed_status(s) == 0;
         k++) {
        n += cmd_stream_pel_at(s, g, k).consumer == ci;
    }
    resp_write_array(c->out, n);
    for (size_t k = from; n > 0 && k < len && cmd_stream_failed_status(s) == 0; k++) {
        struct store_stream_pending p = cmd_stream_pel_at(s, g, k);
        size_t at;
        if (p.consumer != ci) {
            continue;
        }
        n--;
        at = cmd_stream_find(s, &p.id);
        if (at == cmd_stream_len(s)) {
            resp_write_array(c->out, 2);
            cmd_stream_write_id(c, &p.id);
            resp_write_null_array(c->out);
            continue;
        }
        cmd_stream_write_entry(c, cmd_stream_at(s, at));
        p.delivery_ms = c->now_ms;
        p.delivery_count++;
        st = cmd_stream_pel_put(s, g, k, true, &p);
        if (st != TERSE_OK) {
            return st;
        }
    }
    return TERSE_OK;
}

/* Serves key k if it has something for the caller: 1 when it replied its [key, entries], 0
 * when there was nothing, -1 when it replied an error. */
static int xread_serve(struct cmd_call *c, const struct xread_args *a, size_t k,
                       struct store_stream_id gt, size_t mark)
{
    const struct resp_slice *key = &c->argv[a->streams + k];
    struct store_stream s;
    struct store_stream_group *g = NULL;
    struct store_stream_id last_before = {0, 0};
    bool found, history = false, created = false;
    int rc = 0, st = TERSE_OK;
    long ci = 0;
    size_t lo = 0, n = 0, n_cons = 0;

    if (a->group) {
        c->feed |= CMD_FEED_PREVENT; /* fed as what it did (feed_read), never as sent */
    }
    if (cmd_stream_load(c, key, a->group, &s, &found) != 0) {
        return -1;
    }
    if (!found) {
        goto done;
    }
    if (a->group) {
        g = cmd_stream_group(c, &s, a->group_arg);
        if (store_stream_id_cmp(&gt, &cmd_stream_id_max) != 0) {
            history = true;
        } else if (cmd_stream_len(&s) > 0 &&
                   store_stream_id_cmp(&s.last_id, &g->last_id) > 0 &&
                   store_stream_id_cmp(&cmd_stream_at(&s, cmd_stream_len(&s) - 1)->id,
                                       &g->last_id) > 0) {
            gt = g->last_id;
        } else {
            rc = cmd_stream_failed(c, key, &s, mark);
            goto done;
        }
    } else if (cmd_stream_len(&s) == 0 || store_stream_id_cmp(&s.last_id, &gt) <= 0 ||
               store_stream_id_cmp(&cmd_stream_at(&s, cmd_stream_len(&s) - 1)->id, &gt) <= 0) {
        rc = cmd_stream_failed(c, key, &s, mark);
        goto done;
    }
    (void)cmd_stream_id_incr(&gt); /* serve from the next ID on */
    if (c->cl->resp == 2) {
        resp_write_array(c->out, 2);
    }
    resp_write_bulk(c->out, key->p, key->len);
    rc = 1;
    if (g != NULL) {
        n_cons = g->n_cons;
        last_before = g->last_id;
    }
    if (g != NULL && (ci = cmd_stream_consumer_touch(c, key, &s, g, a->group_arg + 1, mark)) < 0) {
        rc = -1;
        goto done;
    }
    created = g != NULL && g->n_cons > n_cons;
    if (history) {
        st = deliver_history(c, &s, g, (size_t)ci, &gt, a->count);
    } else {
        lo = cmd_stream_seek(&s, &gt);
        n = cmd_stream_len(&s) - lo;
        if (a->count > 0 && (unsigned long long)a->count < n) {
            n = (size_t)a->count;
        }
        if (g == NULL) {
            resp_write_array(c->out, n);
            for (size_t j = lo; j < lo + n; j++) {
                cmd_stream_write_entry(c, cmd_stream_at(&s, j));
            }
        } else {
            st = deliver_new(c, &s, g, (size_t)ci, lo, n, a->noack);
        }
    }
    if (st != TERSE_OK) {
        /* A chunked stream's PEL keeps the entries written before the failure: its meta is
         * stored for the counts to agree (a stream held as one value is left as it was). */
        if (s.ext == NULL || cmd_stream_store_or_withdraw(c, key, &s, mark) == 0) {
            c->out->len = mark;
            cmd_value_reply_bad(c, key, st);
        }
        rc = -1;
    }
    if (rc == 1 && cmd_stream_failed(c, key, &s, mark) != 0) {
        rc = -1;
    }
    if (rc == 1 && g != NULL) {
        /* Fed before the store: the model's names point into the decoded form, which the
         * store's encoding may overwrite. Taken back when the store fails. */
        size_t feed_mark = c->srv->feed.n_ops;
        if (!history && cmd_feed_on(c)) {
            feed_read(c, key, a, &s, g, lo, n, created ? &c->argv[a->group_arg + 1] : NULL,
                      &last_before);
        }
        if (cmd_stream_store_or_withdraw(c, key, &s, mark) != 0) {
            cmd_feed_undo(c->srv, feed_mark);
            rc = -1;
        }
    }
done:
    store_stream_deinit(&s);
    return rc;
}

/* Nothing to serve with BLOCK: waits on the keys (cmd_block_as), with each "$" written as the
 * ID it stands for now. Returns cmd_block's answer (0: reply the empty answer now). */
static int block_reading(struct cmd_call *c, const struct xread_args *a,
                         const struct store_stream_id *ids)
{
    struct cmd_server *srv = c->srv;
    struct resp_slice *argv = srv->alloc.alloc(srv->alloc.opaque, c->argc * sizeof(*argv));
    char *idbuf = srv->alloc.alloc(srv->alloc.opaque, a->n * CMD_STREAM_ID_MAX);
    int rc = -1;

    if (argv == NULL || idbuf == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
    } else {
        memcpy(argv, c->argv, c->argc * sizeof(*argv));
        for (size_t k = 0; k < a->n; k++) {
            struct resp_slice *arg = &argv[a->streams + a->n + k];
            if (arg->len == 1 && arg->p[0] == '$') {
                arg->p = (const uint8_t *)(idbuf + k * CMD_STREAM_ID_MAX);
                arg->len = cmd_stream_id_fmt(idbuf + k * CMD_STREAM_ID_MAX, &ids[k]);
            }
        }
        rc = cmd_block_as(c, argv, a->streams, a->n, 1, a->block_ms);
    }
    srv->alloc.free(srv->alloc.opaque, argv);
    srv->alloc.free(srv->alloc.opaque, idbuf);
    return rc;
}

/* XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
 * XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [...] id [...] */
void cmd_stream_xread(struct cmd_call *c)
{
    struct xread_args a;
    struct store_stream_id *ids;
    size_t mark = c->out->len, hdr = 0, served = 0;

    if (xread_parse(c, &a) != 0) {
        return;
    }
    ids = c->srv->alloc.alloc(c->srv->alloc.opaque, a.n * sizeof(*ids));
    if (ids == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    if (xread_ids(c, &a, ids) != 0) {
        goto done;
    }
    for (size_t k = 0; k < a.n; k++) {
        int rc;
        if (passed_over(c, &a, k)) {
            continue;
        }
        if (served == 0) {
            hdr = resp_write_deferred_begin(c->out);
        }
        rc = xread_serve(c, &a, k, ids[k], mark);
        if (rc < 0) {
            goto done;
        }
        served += (size_t)rc;
        if (served == 0) {
            c->out->len = mark; /* no header without a key under it */
        }
    }
    if (served > 0) {
        resp_write_deferred_end(c->out, hdr, c->cl->resp == 2 ? '*' : '%', served);
    } else if (!a.block || block_reading(c, &a, ids) == 0) {
        resp_write_null_array(c->out);
    }
done:
    c->srv->alloc.free(c->srv->alloc.opaque, ids);
}
