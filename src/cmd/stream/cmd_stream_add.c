/*
 * cmd_stream_add: the stream writes of entries: XADD, XTRIM, XDEL, XSETID, with Redis 7.0's
 * argument order, checks and error texts (t_stream.c: streamParseAddOrTrimArgsOrReply,
 * streamAppendItem, streamTrim).
 *
 * Approximate trimming (MAXLEN ~, MINID ~) removes whole nodes only, as Redis does, over the
 * nodes store_stream.h keeps in Redis's image: closed at stream-node-max-entries or
 * stream-node-max-bytes as Redis closes its listpacks (store_stream_node_full), deleted
 * entries still filling theirs. The sizes are exact but after a node's first entry was
 * deleted (terse then measures against the next one): there terse may keep a few more or
 * fewer entries than Redis, which the command's contract ("at least this many") allows.
 */
#include <string.h>

#include "cmd/stream/cmd_stream.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "codec/codec_varint.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* Redis's default LIMIT of an approximate trim: this many nodes, within the bounds below. */
#define TRIM_DEFAULT_NODES 100
#define TRIM_LIMIT_IF_NONE 10000
#define TRIM_LIMIT_MAX 1000000

enum trim_strategy { TRIM_NONE = 0, TRIM_MAXLEN = 1, TRIM_MINID = 2 };

struct trim_args {
    enum trim_strategy strategy;
    bool approx;
    long long maxlen;
    struct store_stream_id minid;
    long long limit;             /* 0: none */
    bool nomkstream;
    bool id_given, seq_given;    /* XADD: an explicit ID, and its sequence part */
    struct store_stream_id id;
    size_t trim_argi;            /* argument holding MAXLEN's or MINID's threshold */
};

#define ERR_BOTH "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"

/* The "~" or "=" after MAXLEN or MINID at argv[*i + 1], when more arguments follow. */
static void trim_operator(struct cmd_call *c, size_t *i, size_t more, struct trim_args *a)
{
    const struct resp_slice *next = &c->argv[*i + 1];

    a->approx = false;
    if (more >= 2 && next->len == 1 && next->p[0] == '~') {
        a->approx = true;
        (*i)++;
    } else if (more >= 2 && next->len == 1 && next->p[0] == '=') {
        (*i)++;
    }
}

/* Parses XADD's (xadd) or XTRIM's options from argv[2]: the index of XADD's ID argument, or
 * -1 when it replied. */
static long parse_add_trim(struct cmd_call *c, struct trim_args *a, bool xadd)
{
    bool limit_given = false;
    size_t i;

    memset(a, 0, sizeof(*a));
    for (i = 2; i < c->argc; i++) {
        size_t more = c->argc - 1 - i;
        const struct resp_slice *opt = &c->argv[i];
        if (xadd && opt->len == 1 && opt->p[0] == '*') {
            break;
        } else if (cmd_arg_is(c, i, "maxlen") && more > 0) {
            if (a->strategy != TRIM_NONE) {
                cmd_reply_err(c, ERR_BOTH);
                return -1;
            }
            trim_operator(c, &i, more, a);
            a->trim_argi = i + 1;
            if (cmd_ll_or_reply(c, i + 1, &a->maxlen, NULL) != 0) {
                return -1;
            }
            if (a->maxlen < 0) {
                cmd_reply_err(c, "ERR The MAXLEN argument must be >= 0.");
                return -1;
            }
            i++;
            a->strategy = TRIM_MAXLEN;
        } else if (cmd_arg_is(c, i, "minid") && more > 0) {
            if (a->strategy != TRIM_NONE) {
                cmd_reply_err(c, ERR_BOTH);
                return -1;
            }
            trim_operator(c, &i, more, a);
            a->trim_argi = i + 1;
            if (cmd_stream_id_or_reply(c, i + 1, 0, true, &a->minid) != 0) {
                return -1;
            }
            i++;
            a->strategy = TRIM_MINID;
        } else if (cmd_arg_is(c, i, "limit") && more > 0) {
            if (cmd_ll_or_reply(c, i + 1, &a->limit, NULL) != 0) {
                return -1;
            }
            if (a->limit < 0) {
                cmd_reply_err(c, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = true;
            i++;
        } else if (xadd && cmd_arg_is(c, i, "nomkstream")) {
            a->nomkstream = true;
        } else if (xadd) {
            if (cmd_stream_parse_id(opt, 0, true, &a->seq_given, &a->id) != 0) {
                cmd_reply_err(c, CMD_STREAM_ERR_BAD_ID);
                return -1;
            }
            a->id_given = true;
            break;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    if (a->limit != 0 && a->strategy == TRIM_NONE) {
        cmd_reply_err(c, "ERR syntax error, LIMIT cannot be used without specifying a trimming "
                         "strategy");
        return -1;
    }
    if (!xadd && a->strategy == TRIM_NONE) {
        cmd_reply_err(c, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (c->cl->flags & CMD_CLIENT_MUST_OBEY) {
        /* the AOF: the threshold was rewritten to what was trimmed; no node limit applies */
        a->limit = 0;
        return (long)i;
    }
    if (limit_given && !a->approx) {
        cmd_reply_err(c, "ERR syntax error, LIMIT cannot be used without the special ~ option");
        return -1;
    }
    if (!limit_given && a->approx) {
        long long entries = c->srv->settings.stream_node_max_entries;
        a->limit = entries > TRIM_LIMIT_MAX / TRIM_DEFAULT_NODES ? TRIM_LIMIT_MAX
                                                                : TRIM_DEFAULT_NODES * entries;
        if (a->limit <= 0) {
            a->limit = TRIM_LIMIT_IF_NONE;
        }
    } else if (!limit_given) {
        a->limit = 0;
    }
    return (long)i;
}

/* Redis's streamTrim over the stream's nodes (see the file's comment): *deleted gets the
 * number of entries removed from the head. An exact trim removes whole nodes and then entries
 * of the next, which comes to the first n - maxlen entries, or those below the minimum ID.
 * TERSE_OK or a status (a chunk that failed, out of memory). */
static int stream_trim(struct store_stream *s, const struct trim_args *a, size_t *deleted)
{
    size_t n = cmd_stream_len(s), live;
    struct cmd_stream_nodes it;

    *deleted = 0;
    if (a->strategy == TRIM_NONE) {
        return TERSE_OK;
    }
    if (!a->approx) {
        if (a->strategy == TRIM_MAXLEN) {
            *deleted = n > (size_t)a->maxlen ? n - (size_t)a->maxlen : 0;
        } else {
            *deleted = cmd_stream_seek(s, &a->minid);
        }
    } else {
        cmd_stream_nodes_begin(s, &it);
        while (cmd_stream_nodes_next(s, &it, &live)) {
            size_t left = n - *deleted;
            if (a->strategy == TRIM_MAXLEN && left <= (size_t)a->maxlen) {
                break;
            }
            if (a->limit != 0 && (long long)(*deleted + live) > a->limit) {
                break;
            }
            if (a->strategy == TRIM_MAXLEN
                    ? left - live < (size_t)a->maxlen
                    : store_stream_id_cmp(&cmd_stream_at(s, *deleted + live - 1)->id,
                                          &a->minid) >= 0) {
                break;
            }
            *deleted += live;
        }
    }
    if (cmd_stream_failed_status(s) != TERSE_OK) {
        *deleted = 0;
        return cmd_stream_failed_status(s);
    }
    return cmd_stream_remove(s, 0, *deleted);
}

/* The ID XADD gives its entry (Redis's streamAppendItem): 0, or -1 when it is not above the
 * stream's last ID. */
static int next_id(struct cmd_call *c, const struct store_stream *s, const struct trim_args *a,
                   struct store_stream_id *id)
{
    const struct store_stream_id *last = &s->last_id;

    if (a->id_given && a->seq_given) {
        *id = a->id;
    } else if (a->id_given) {
        if (last->ms == a->id.ms) {
            if (last->seq == UINT64_MAX) {
                return -1;
            }
            *id = (struct store_stream_id){last->ms, last->seq + 1};
        } else {
            *id = a->id;
        }
    } else if ((uint64_t)c->now_ms > last->ms) {
        *id = (struct store_stream_id){(uint64_t)c->now_ms, 0};
    } else {
        *id = *last;
        (void)cmd_stream_id_incr(id);
    }
    return store_stream_id_cmp(id, last) > 0 ? 0 : -1;
}

/* The pairs of argv[first..argc) in an entry's form, written into scratch3: e->pairs and
 * e->pairs_len (valid until the next scratch3 reserve). TERSE_OK or TERSE_ENOMEM. */
static int build_pairs(struct cmd_call *c, size_t first, struct store_stream_entry *e)
{
    size_t need = 0;
    uint8_t *p;

    for (size_t i = first; i < c->argc; i++) {
        need += codec_varint_len(c->argv[i].len) + c->argv[i].len;
    }
    if (cmd_scratch3_reserve(c->srv, need) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    p = c->srv->scratch3;
    for (size_t i = first; i < c->argc; i++) {
        p += codec_varint_put(p, c->argv[i].len);
        if (c->argv[i].len != 0) {
            memcpy(p, c->argv[i].p, c->argv[i].len);
        }
        p += c->argv[i].len;
    }
    e->pairs = c->srv->scratch3;
    e->pairs_len = need;
    e->n_pairs = (c->argc - first) / 2;
    return TERSE_OK;
}

/*
 * XADD and XTRIM as fed (Redis 7.0's streamRewriteApproxSpecifier, streamRewriteTrimArgument
 * and XADD's ID rewrite): an approximate trim as the exact "= <length>" or "= <first ID>" it
 * came to, and an ID XADD generated (* or ms-*) as the ID itself, so a replica ends with the
 * same entries. idpos: XADD's ID argument (0 for XTRIM); id: the ID it added.
 */
static void feed_add_trim(struct cmd_call *c, const struct trim_args *a,
                          const struct store_stream *s, size_t idpos,
                          const struct store_stream_id *id)
{
    char trim[CMD_STREAM_ID_MAX], idbuf[CMD_STREAM_ID_MAX];
    struct resp_slice *v;
    bool new_id = idpos != 0 && !(a->id_given && a->seq_given);

    if (!cmd_feed_on(c) || (!a->approx && !new_id) ||
        (v = cmd_feed_argv(c->srv, c->argc)) == NULL) {
        return;
    }
    memcpy(v, c->argv, c->argc * sizeof(*v));
    if (a->approx) {
        v[a->trim_argi - 1] = cmd_feed_str("=");
        if (a->strategy == TRIM_MAXLEN) {
            v[a->trim_argi] = cmd_feed_ll(trim, (long long)cmd_stream_len(s));
        } else {
            struct store_stream_id first = {UINT64_MAX, UINT64_MAX};
            if (cmd_stream_len(s) > 0) {
                first = cmd_stream_at(s, 0)->id;
            }
            v[a->trim_argi].p = (const uint8_t *)trim;
            v[a->trim_argi].len = cmd_stream_id_fmt(trim, &first);
        }
    }
    if (new_id) {
        v[idpos].p = (const uint8_t *)idbuf;
        v[idpos].len = cmd_stream_id_fmt(idbuf, id);
    }
    cmd_feed_rewrite(c, v, c->argc);
}

/* XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [...] */
void cmd_stream_xadd(struct cmd_call *c)
{
    struct trim_args a;
    struct store_stream s;
    struct store_stream_entry e;
    long idpos = parse_add_trim(c, &a, true);
    size_t mark = c->out->len, trimmed;
    bool found;
    int st;

    if (idpos < 0) {
        return;
    }
    if (c->argc - (size_t)idpos - 1 < 2 || (c->argc - (size_t)idpos - 1) % 2 == 1) {
        cmd_reply_err(c, "ERR wrong number of arguments for 'xadd' command");
        return;
    }
    if (a.id_given && a.seq_given && a.id.ms == 0 && a.id.seq == 0) {
        cmd_reply_err(c, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    if (cmd_stream_load(c, &c->argv[1], 1, &s, &found) != 0) {
        goto done;
    }
    if (!found && a.nomkstream) {
        resp_write_null(c->out);
        goto done;
    }
    if (s.last_id.ms == UINT64_MAX && s.last_id.seq == UINT64_MAX) {
        cmd_reply_err(c, "ERR The stream has exhausted the last possible ID, unable to add "
                         "more items");
        goto done;
    }
    if (next_id(c, &s, &a, &e.id) != 0) {
        cmd_reply_err(c, "ERR The ID specified in XADD is equal or smaller than the target "
                         "stream top item");
        goto done;
    }
    if (build_pairs(c, (size_t)idpos + 1, &e) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        goto done;
    }
    if ((st = cmd_stream_append(c, &s, &e)) != TERSE_OK) {
        cmd_value_reply_bad(c, &c->argv[1], st);
        goto done;
    }
    s.last_id = e.id;
    s.entries_added++;
    if ((st = stream_trim(&s, &a, &trimmed)) != TERSE_OK) {
        (void)cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark); /* the entry is in */
        c->out->len = mark;
        cmd_value_reply_bad(c, &c->argv[1], st);
        goto done;
    }
    cmd_stream_write_id(c, &e.id);
    if (cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xadd", &c->argv[1]);
        if (trimmed > 0) {
            cmd_changed(c, CMD_NOTIFY_STREAM, "xtrim", &c->argv[1]);
        }
        feed_add_trim(c, &a, &s, (size_t)idpos, &e.id);
    }
done:
    store_stream_deinit(&s);
}

/* XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] */
void cmd_stream_xtrim(struct cmd_call *c)
{
    struct trim_args a;
    struct store_stream s;
    size_t deleted, mark = c->out->len;
    bool found;
    int st;

    if (parse_add_trim(c, &a, false) < 0) {
        return;
    }
    if (cmd_stream_load(c, &c->argv[1], 1, &s, &found) != 0) {
        goto done;
    }
    deleted = 0;
    if (found && (st = stream_trim(&s, &a, &deleted)) != TERSE_OK) {
        if (deleted > 0) {
            (void)cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark);
        }
        c->out->len = mark;
        cmd_value_reply_bad(c, &c->argv[1], st);
        goto done;
    }
    resp_write_int(c->out, (long long)deleted);
    if (deleted > 0 && cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xtrim", &c->argv[1]);
        feed_add_trim(c, &a, &s, 0, NULL);
    }
done:
    store_stream_deinit(&s);
}

/* XDEL key id [id ...] */
void cmd_stream_xdel(struct cmd_call *c)
{
    struct store_stream s;
    struct store_stream_id id;
    size_t deleted = 0, mark = c->out->len;
    bool found;
    int st;

    if (cmd_stream_load(c, &c->argv[1], 1, &s, &found) != 0) {
        goto done;
    }
    if (!found) {
        resp_write_int(c->out, 0);
        goto done;
    }
    for (size_t i = 2; i < c->argc; i++) {
        if (cmd_stream_id_or_reply(c, i, 0, true, &id) != 0) {
            goto done;
        }
    }
    for (size_t i = 2; i < c->argc; i++) {
        size_t at;
        (void)cmd_stream_parse_id(&c->argv[i], 0, true, NULL, &id);
        at = cmd_stream_find(&s, &id);
        if ((st = cmd_stream_failed_status(&s)) != TERSE_OK) {
            goto failed; /* what went before stays gone */
        }
        if (at == cmd_stream_len(&s)) {
            continue;
        }
        if ((st = cmd_stream_remove(&s, at, 1)) != TERSE_OK) {
            goto failed;
        }
        if (store_stream_id_cmp(&id, &s.max_deleted) > 0) {
            s.max_deleted = id;
        }
        deleted++;
    }
    resp_write_int(c->out, (long long)deleted);
    if (deleted > 0 && cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xdel", &c->argv[1]);
    }
    goto done;
failed:
    /* A chunked stream's entries went in place before the failure: its meta follows them,
     * and the reply is the error. */
    if (deleted > 0 && cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xdel", &c->argv[1]);
    }
    c->out->len = mark;
    cmd_value_reply_bad(c, &c->argv[1], st);
done:
    store_stream_deinit(&s);
}

/* XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id] */
void cmd_stream_xsetid(struct cmd_call *c)
{
    struct store_stream s;
    struct store_stream_id id, max_del = {0, 0};
    long long added = -1;
    size_t mark = c->out->len;
    bool found;

    if (cmd_stream_id_or_reply(c, 2, 0, true, &id) != 0) {
        return;
    }
    for (size_t i = 3; i < c->argc; i += 2) {
        bool more = i + 1 < c->argc;
        if (cmd_arg_is(c, i, "entriesadded") && more) {
            if (cmd_ll_or_reply(c, i + 1, &added, NULL) != 0) {
                return;
            }
            if (added < 0) {
                cmd_reply_err(c, "ERR entries_added must be positive");
                return;
            }
        } else if (cmd_arg_is(c, i, "maxdeletedid") && more) {
            if (cmd_stream_id_or_reply(c, i + 1, 0, true, &max_del) != 0) {
                return;
            }
            if (store_stream_id_cmp(&id, &max_del) < 0) {
                cmd_reply_err(c, "ERR The ID specified in XSETID is smaller than the provided "
                                 "max_deleted_entry_id");
                return;
            }
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (cmd_stream_load(c, &c->argv[1], 1, &s, &found) != 0) {
        goto done;
    }
    if (!found) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
        goto done;
    }
    if (cmd_stream_len(&s) > 0) {
        const struct store_stream_entry *top = cmd_stream_at(&s, cmd_stream_len(&s) - 1);
        if (cmd_stream_failed(c, &c->argv[1], &s, mark) != 0) {
            goto done;
        }
        if (store_stream_id_cmp(&id, &top->id) < 0) {
            cmd_reply_err(c, "ERR The ID specified in XSETID is smaller than the target stream "
                             "top item");
            goto done;
        }
        if (added != -1 && cmd_stream_len(&s) > (uint64_t)added) {
            cmd_reply_err(c, "ERR The entries_added specified in XSETID is smaller than the "
                             "target stream length");
            goto done;
        }
    }
    s.last_id = id;
    if (added != -1) {
        s.entries_added = (uint64_t)added;
    }
    if (max_del.ms != 0 || max_del.seq != 0) {
        s.max_deleted = max_del;
    }
    resp_write_ok(c->out);
    if (cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xsetid", &c->argv[1]);
    }
done:
    store_stream_deinit(&s);
}
