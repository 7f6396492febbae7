/*
 * cmd_stream_claim: XCLAIM and XAUTOCLAIM, ownership changes of pending entries, with Redis
 * 7.0's argument order, replies and error texts (t_stream.c: xclaimCommand,
 * xautoclaimCommand), its quirks included: a FORCEd entry that was not pending starts at one
 * delivery and is then counted as delivered again (2), unless JUSTID.
 */
#include <limits.h>
#include <string.h>

#include "cmd/stream/cmd_stream.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "resp/resp_write.h"
#include "terse/status.h"
#include "cmd/stream/cmd_stream_feed.h"

/* XAUTOCLAIM looks at COUNT * this pending entries at most. */
#define AUTOCLAIM_ATTEMPTS_FACTOR 10

/* The key at argv[1] and its group at argv[2], or the NOGROUP error: 0, or -1 when it
 * replied. s is initialised either way. */
static int claim_group(struct cmd_call *c, struct store_stream *s,
                       struct store_stream_group **g)
{
    bool found;

    *g = NULL;
    if (cmd_stream_load(c, &c->argv[1], 0, s, &found) != 0) {
        return -1;
    }
    if (found) {
        *g = cmd_stream_group(c, s, 2);
    }
    if (*g == NULL) {
        int kl, gl;
        const char *ks = cmd_stream_arg_cstr(&c->argv[1], &kl);
        const char *gs = cmd_stream_arg_cstr(&c->argv[2], &gl);
        resp_write_errorf(c->out, "NOGROUP No such key '%.*s' or consumer group '%.*s'", kl, ks,
                          gl, gs);
        return -1;
    }
    return 0;
}

struct claim_opts {
    long long min_idle;
    long long retry;        /* -1: keep the count */
    int64_t delivery_ms;    /* the delivery time claimed entries get */
    bool force, justid;
    struct store_stream_id last_id;
};

/* XCLAIM's options from argv[j]: 0, or -1 when it replied. */
static int xclaim_options(struct cmd_call *c, size_t j, struct claim_opts *o)
{
    long long t = -1;

    for (; j < c->argc; j++) {
        bool more = j + 1 < c->argc;
        if (cmd_arg_is(c, j, "force")) {
            o->force = true;
        } else if (cmd_arg_is(c, j, "justid")) {
            o->justid = true;
        } else if (cmd_arg_is(c, j, "idle") && more) {
            if (cmd_ll_or_reply(c, ++j, &t, "ERR Invalid IDLE option argument for XCLAIM") !=
                0) {
                return -1;
            }
            t = c->now_ms - t;
        } else if (cmd_arg_is(c, j, "time") && more) {
            if (cmd_ll_or_reply(c, ++j, &t, "ERR Invalid TIME option argument for XCLAIM") !=
                0) {
                return -1;
            }
        } else if (cmd_arg_is(c, j, "retrycount") && more) {
            if (cmd_ll_or_reply(c, ++j, &o->retry,
                                "ERR Invalid RETRYCOUNT option argument for XCLAIM") != 0) {
                return -1;
            }
        } else if (cmd_arg_is(c, j, "lastid") && more) {
            if (cmd_stream_id_or_reply(c, ++j, 0, true, &o->last_id) != 0) {
                return -1;
            }
        } else {
            int ol;
            const char *os = cmd_stream_arg_cstr(&c->argv[j], &ol);
            resp_write_errorf(c->out, "ERR Unrecognized XCLAIM option '%.*s'", ol, os);
            return -1;
        }
    }
    o->delivery_ms = t == -1 || t < 0 || t > c->now_ms ? c->now_ms : t;
    return 0;
}

/* Gives the pending entry of rank k of g (there), or a new one for id (FORCE: not there), to
 * the consumer named by argv[3] (created or touched on the first claim: *ci < 0 until then),
 * as a delivery at o->delivery_ms; *out gets it. TERSE_OK, a status a chunked PEL met (not
 * replied), or CLAIM_REPLIED (out of memory, replied after withdrawing to mark). */
#define CLAIM_REPLIED 1
static int claim_one(struct cmd_call *c, struct store_stream *s, struct store_stream_group *g,
                     size_t k, bool there, const struct store_stream_id *id, long *ci,
                     const struct claim_opts *o, size_t mark, struct store_stream_pending *out)
{
    struct store_stream_pending p = {*id, 0, c->now_ms, 1};

    if (*ci < 0 && (*ci = cmd_stream_consumer_touch(c, &c->argv[1], s, g, 3, mark)) < 0) {
        return CLAIM_REPLIED;
    }
    if (there) {
        p = cmd_stream_pel_at(s, g, k);
    }
    p.delivery_ms = o->delivery_ms;
    if (o->retry >= 0) {
        p.delivery_count = (uint64_t)o->retry;
    } else if (!o->justid) {
        p.delivery_count++;
    }
    p.consumer = (size_t)*ci;
    *out = p;
    return cmd_stream_failed_status(s) != TERSE_OK ? cmd_stream_failed_status(s)
                                                   : cmd_stream_pel_put(s, g, k, there, &p);
}

/* A claim that failed part way with status st (not CLAIM_REPLIED): a chunked stream's PEL
 * keeps what was done, so its meta is stored for the counts to agree; then the error. */
static void claim_failed(struct cmd_call *c, struct store_stream *s, int st, size_t mark)
{
    if (s->ext == NULL || cmd_stream_store_or_withdraw(c, &c->argv[1], s, mark) == 0) {
        c->out->len = mark;
        cmd_value_reply_bad(c, &c->argv[1], st);
    }
}

/* A claimed entry as XCLAIM and XAUTOCLAIM reply it: its ID (JUSTID) or the entry. */
static void claim_write(struct cmd_call *c, const struct store_stream *s, size_t at, bool justid)
{
    if (justid) {
        cmd_stream_write_id(c, &cmd_stream_at(s, at)->id);
    } else {
        cmd_stream_write_entry(c, cmd_stream_at(s, at));
    }
}

/* XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-ms]
 *        [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id] */
void cmd_stream_xclaim(struct cmd_call *c)
{
    struct claim_opts o = {0, -1, 0, false, false, {0, 0}};
    struct store_stream s;
    struct store_stream_group *g;
    struct store_stream_id id;
    size_t j, n = 0, hdr, mark = c->out->len, feed_mark = c->srv->feed.n_ops;
    long ci = -1;
    bool changed = false, moved = false, kept = false;
    int st;

    if (claim_group(c, &s, &g) != 0 ||
        cmd_ll_or_reply(c, 4, &o.min_idle, "ERR Invalid min-idle-time argument for XCLAIM") !=
            0) {
        goto done;
    }
    if (o.min_idle < 0) {
        o.min_idle = 0;
    }
    for (j = 5; j < c->argc && cmd_stream_parse_id(&c->argv[j], 0, true, NULL, &id) == 0; j++) {
    }
    if (xclaim_options(c, j, &o) != 0) {
        goto done;
    }
    c->feed |= CMD_FEED_PREVENT; /* fed as the XCLAIMs of what it did (cmd_stream_feed.c) */
    if (store_stream_id_cmp(&o.last_id, &g->last_id) > 0) {
        g->last_id = o.last_id;
        changed = moved = true;
    }
    hdr = resp_write_deferred_begin(c->out);
    for (size_t i = 5; i < j; i++) {
        bool there;
        size_t k, at;
        struct store_stream_pending pe = {{0, 0}, 0, 0, 0};
        (void)cmd_stream_parse_id(&c->argv[i], 0, true, NULL, &id);
        k = cmd_stream_pel_find(&s, g, &id, &there);
        if (there) {
            pe = cmd_stream_pel_at(&s, g, k);
        }
        at = cmd_stream_find(&s, &id);
        if (at == cmd_stream_len(&s)) {
            if (there) {
                cmd_stream_feed_claim(c, &c->argv[1], &c->argv[2], g, &pe);
                moved = false; /* the XCLAIM carries LASTID */
                if ((st = cmd_stream_pel_remove(&s, g, k)) != TERSE_OK) {
                    claim_failed(c, &s, st, mark);
                    goto done;
                }
                changed = true;
            }
            continue;
        }
        if (there && o.min_idle != 0 && c->now_ms - pe.delivery_ms < o.min_idle) {
            continue;
        }
        if (!there && !o.force) {
            continue;
        }
        st = claim_one(c, &s, g, k, there, &id, &ci, &o, mark, &pe);
        if (st != TERSE_OK) {
            if (st != CLAIM_REPLIED) {
                claim_failed(c, &s, st, mark);
            }
            goto done;
        }
        claim_write(c, &s, at, o.justid);
        cmd_stream_feed_claim(c, &c->argv[1], &c->argv[2], g, &pe);
        moved = false;
        n++;
        changed = true;
    }
    resp_write_deferred_end(c->out, hdr, '*', n);
    if (moved) {
        cmd_stream_feed_setid(c, &c->argv[1], &c->argv[2], g);
    }
    if (cmd_stream_failed(c, &c->argv[1], &s, mark) != 0) {
        kept = false;
        goto done;
    }
    kept = !changed || cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0;
done:
    if (!kept) {
        cmd_feed_undo(c->srv, feed_mark); /* nothing changed after all */
    }
    store_stream_deinit(&s);
}

/* XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]:
 * [next start ID, [claimed ...], [IDs of pending entries that were deleted ...]]. */
void cmd_stream_xautoclaim(struct cmd_call *c)
{
    struct claim_opts o = {0, -1, 0, false, false, {0, 0}};
    struct store_stream s;
    struct store_stream_group *g;
    struct store_stream_id start, next = {0, 0}, *gone = NULL;
    long long count = 100, attempts;
    bool kept = false;
    size_t k, cap, n = 0, n_gone = 0, *claimed = NULL, mark = c->out->len;
    size_t feed_mark = c->srv->feed.n_ops, len;
    long ci = -1;
    bool there;
    int st;

    if (cmd_ll_or_reply(c, 4, &o.min_idle, "ERR Invalid min-idle-time argument for XAUTOCLAIM") !=
            0 ||
        cmd_stream_bound_or_reply(c, 5, true, &start) != 0) {
        return;
    }
    if (o.min_idle < 0) {
        o.min_idle = 0;
    }
    for (size_t j = 6; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "count") && j + 1 < c->argc) {
            if (!cmd_parse_ll(c->argv[j + 1].p, c->argv[j + 1].len, &count) || count < 1 ||
                count > LONG_MAX / 16) {
                cmd_reply_err(c, "ERR COUNT must be > 0");
                return;
            }
            j++;
        } else if (cmd_arg_is(c, j, "justid")) {
            o.justid = true;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (claim_group(c, &s, &g) != 0) {
        goto done;
    }
    len = cmd_stream_pel_len(&s, g);
    cap = (size_t)(count < (long long)len ? count : (long long)len) + 1;
    gone = c->srv->alloc.alloc(c->srv->alloc.opaque, cap * sizeof(*gone));
    claimed = c->srv->alloc.alloc(c->srv->alloc.opaque, cap * sizeof(*claimed));
    if (gone == NULL || claimed == NULL) {
        cmd_reply_err(c, "ERR Insufficient memory, failed allocating transient memory, COUNT "
                         "too high.");
        goto done;
    }
    o.delivery_ms = c->now_ms;
    attempts = count * AUTOCLAIM_ATTEMPTS_FACTOR;
    c->feed |= CMD_FEED_PREVENT; /* fed as the XCLAIMs of what it did (cmd_stream_feed.c) */
    for (k = cmd_stream_pel_find(&s, g, &start, &there);
         attempts-- > 0 && count > 0 && k < len && cmd_stream_failed_status(&s) == TERSE_OK;) {
        struct store_stream_pending pe = cmd_stream_pel_at(&s, g, k);
        size_t at = cmd_stream_find(&s, &pe.id);
        if (at == cmd_stream_len(&s)) {
            gone[n_gone++] = pe.id;
            cmd_stream_feed_claim(c, &c->argv[1], &c->argv[2], g, &pe);
            if ((st = cmd_stream_pel_remove(&s, g, k)) != TERSE_OK) {
                claim_failed(c, &s, st, mark);
                goto done;
            }
            len--;
            count--;
            continue;
        }
        if (o.min_idle != 0 && c->now_ms - pe.delivery_ms < o.min_idle) {
            k++;
            continue;
        }
        st = claim_one(c, &s, g, k, true, &pe.id, &ci, &o, mark, &pe);
        if (st != TERSE_OK) {
            if (st != CLAIM_REPLIED) {
                claim_failed(c, &s, st, mark);
            }
            goto done;
        }
        claimed[n++] = at;
        cmd_stream_feed_claim(c, &c->argv[1], &c->argv[2], g, &pe);
        count--;
        k++;
    }
    if (k < len && cmd_stream_failed_status(&s) == TERSE_OK) {
        next = cmd_stream_pel_at(&s, g, k).id;
    }
    resp_write_array(c->out, 3);
    cmd_stream_write_id(c, &next);
    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        claim_write(c, &s, claimed[i], o.justid);
    }
    resp_write_array(c->out, n_gone);
    for (size_t i = 0; i < n_gone; i++) {
        cmd_stream_write_id(c, &gone[i]);
    }
    if (cmd_stream_failed(c, &c->argv[1], &s, mark) != 0) {
        kept = false;
    } else if (n == 0 && n_gone == 0) {
        kept = true;
    } else {
        kept = cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0;
    }
done:
    if (!kept) {
        cmd_feed_undo(c->srv, feed_mark); /* nothing changed after all */
    }
    if (gone != NULL) {
        c->srv->alloc.free(c->srv->alloc.opaque, gone);
    }
    if (claimed != NULL) {
        c->srv->alloc.free(c->srv->alloc.opaque, claimed);
    }
    store_stream_deinit(&s);
}
