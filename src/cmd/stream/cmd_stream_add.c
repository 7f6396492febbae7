/*
 * cmd_stream_add: the stream writes of entries: XADD, XTRIM, XDEL, XSETID, with Redis 7.0's
 * argument order, checks and error texts (t_stream.c: streamParseAddOrTrimArgsOrReply,
 * streamAppendItem, streamTrim).
 *
 * Approximate trimming (MAXLEN ~, MINID ~) removes whole nodes only, as Redis does, over the
 * nodes store_stream.h keeps in Redis's image: filled to stream-node-max-entries
 * (cmd_stream_node_entries), deleted entries still filling theirs. That equals Redis's result
 * while each node's entries stay under stream-node-max-bytes, which terse does not count: on
 * larger entries terse may keep a few more or fewer entries than Redis, which the command's
 * contract ("at least this many") allows.
 */
#include <stdio.h>
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

/* Redis's streamTrim over the stream's nodes (see the file's comment): the number of entries
 * removed from the head. An exact trim removes whole nodes and then entries of the next, which
 * comes to the first n - maxlen entries, or those below the minimum ID. */
static size_t stream_trim(struct store_stream *s, const struct trim_args *a)
{
    size_t deleted = 0, n = s->n_ents;

    if (a->strategy == TRIM_NONE) {
        return 0;
    }
    if (!a->approx) {
        if (a->strategy == TRIM_MAXLEN) {
            deleted = n > (size_t)a->maxlen ? n - (size_t)a->maxlen : 0;
        } else {
            deleted = store_stream_seek(s, &a->minid);
        }
    } else {
        for (size_t k = 0; k < s->n_nodes; k++) {
            size_t node = s->nodes[k].live, left = n - deleted;
            if (a->strategy == TRIM_MAXLEN && left <= (size_t)a->maxlen) {
                break;
            }
            if (a->limit != 0 && (long long)(deleted + node) > a->limit) {
                break;
            }
            if (a->strategy == TRIM_MAXLEN
                    ? left - node < (size_t)a->maxlen
                    : store_stream_id_cmp(&s->ents[deleted + node - 1].id, &a->minid) >= 0) {
                break;
            }
            deleted += node;
        }
    }
    store_stream_remove(s, 0, deleted);
    return deleted;
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
    char trim[48], idbuf[48];
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
            v[a->trim_argi] = cmd_feed_ll(trim, (long long)s->n_ents);
        } else {
            struct store_stream_id first = {UINT64_MAX, UINT64_MAX};
            if (s->n_ents > 0) {
                first = s->ents[0].id;
            }
            v[a->trim_argi].p = (const uint8_t *)trim;
            v[a->trim_argi].len = (size_t)snprintf(trim, sizeof(trim), "%llu-%llu",
                                                   (unsigned long long)first.ms,
                                                   (unsigned long long)first.seq);
        }
    }
    if (new_id) {
        v[idpos].p = (const uint8_t *)idbuf;
        v[idpos].len = (size_t)snprintf(idbuf, sizeof(idbuf), "%llu-%llu",
                                        (unsigned long long)id->ms,
                                        (unsigned long long)id->seq);
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
    if (build_pairs(c, (size_t)idpos + 1, &e) != TERSE_OK ||
        store_stream_append(&s, &e, cmd_stream_node_entries(c)) != TERSE_OK) {
        cmd_reply_status(c, TERSE_ENOMEM);
        goto done;
    }
    s.last_id = e.id;
    s.entries_added++;
    trimmed = stream_trim(&s, &a);
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

    if (parse_add_trim(c, &a, false) < 0) {
        return;
    }
    if (cmd_stream_load(c, &c->argv[1], 1, &s, &found) != 0) {
        goto done;
    }
    deleted = found ? stream_trim(&s, &a) : 0;
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
        if (at == s.n_ents) {
            continue;
        }
        store_stream_remove(&s, at, 1);
        if (store_stream_id_cmp(&id, &s.max_deleted) > 0) {
            s.max_deleted = id;
        }
        deleted++;
    }
    resp_write_int(c->out, (long long)deleted);
    if (deleted > 0 && cmd_stream_store_or_withdraw(c, &c->argv[1], &s, mark) == 0) {
        cmd_changed(c, CMD_NOTIFY_STREAM, "xdel", &c->argv[1]);
    }
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
    if (s.n_ents > 0) {
        if (store_stream_id_cmp(&id, &s.ents[s.n_ents - 1].id) < 0) {
            cmd_reply_err(c, "ERR The ID specified in XSETID is smaller than the target stream "
                             "top item");
            goto done;
        }
        if (added != -1 && s.n_ents > (uint64_t)added) {
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
