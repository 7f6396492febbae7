/*
 * cmd_stream: the steps the stream family shares (load and store a stream, IDs, entry
 * replies, the group counters of Redis 7.0); the family's rows of the command table are in
 * cmd_stream_table.c. See cmd_stream.h
 * for how a stream is held and what a command costs.
 *
 * Buffers: the decoded form (or a chunked stream's meta) lives in scratch for the call; the
 * model's arrays come from the server's allocator and are freed before the handler returns;
 * cmd_stream_store_or_withdraw (cmd_stream_big.c) encodes the model into scratch2 and hands
 * it on, which encodes it into scratch: the model must not be used after a store but to
 * deinit it.
 */
#include "cmd/stream/cmd_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* Redis refuses an ID argument longer than its 128-byte parse buffer allows. */
#define ID_ARG_MAX 127

const struct store_stream_id cmd_stream_id_max = {UINT64_MAX, UINT64_MAX};

int cmd_stream_load(struct cmd_call *c, const struct resp_slice *key, int for_write,
                    struct store_stream *s, bool *found)
{
    const struct store_entry *e;
    const uint8_t *form;
    size_t len;
    int st;

    store_stream_init(s, &c->srv->alloc);
    *found = false;
    if (cmd_value_read_form(c, key, STORE_TYPE_STREAM, for_write, &e, &form, &len) != 0) {
        return -1;
    }
    if (e == NULL) {
        return 0;
    }
    if (form == NULL) {
        if (cmd_stream_load_big(c, key, e, s) != 0) {
            return -1;
        }
        *found = true;
        return 0;
    }
    st = store_stream_decode(s, &c->srv->alloc, form, len);
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st);
        return -1;
    }
    *found = true;
    return 0;
}

/* ---- IDs ------------------------------------------------------------------------------------ */

/* Redis's string2ull: a long long that is not negative, else what strtoull takes whole. */
static int parse_ull(const char *s, uint64_t *v)
{
    long long ll;
    unsigned long long u;
    char *end = NULL;

    if (cmd_parse_ll((const uint8_t *)s, strlen(s), &ll)) {
        if (ll < 0) {
            return -1;
        }
        *v = (uint64_t)ll;
        return 0;
    }
    errno = 0;
    u = strtoull(s, &end, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *end == '\0')) {
        return -1;
    }
    *v = u;
    return 0;
}

int cmd_stream_parse_id(const struct resp_slice *a, uint64_t missing_seq, bool strict,
                        bool *seq_given, struct store_stream_id *id)
{
    char buf[ID_ARG_MAX + 1];
    char *dash;
    uint64_t ms, seq;

    if (a->len > ID_ARG_MAX) {
        return -1;
    }
    memcpy(buf, a->p, a->len);
    buf[a->len] = '\0'; /* an embedded NUL ends it early, as in Redis's C-string parse */
    if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') {
        return -1;
    }
    if (seq_given != NULL) {
        *seq_given = true;
    }
    if ((buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') {
        *id = buf[0] == '-' ? (struct store_stream_id){0, 0} : cmd_stream_id_max;
        return 0;
    }
    dash = strchr(buf, '-');
    if (dash != NULL) {
        *dash = '\0';
    }
    if (parse_ull(buf, &ms) != 0) {
        return -1;
    }
    if (dash == NULL) {
        seq = missing_seq;
    } else if (seq_given != NULL && dash[1] == '*' && dash[2] == '\0') {
        seq = 0;
        *seq_given = false;
    } else if (parse_ull(dash + 1, &seq) != 0) {
        return -1;
    }
    id->ms = ms;
    id->seq = seq;
    return 0;
}

int cmd_stream_id_or_reply(struct cmd_call *c, size_t i, uint64_t missing_seq, bool strict,
                           struct store_stream_id *id)
{
    if (cmd_stream_parse_id(&c->argv[i], missing_seq, strict, NULL, id) != 0) {
        cmd_reply_err(c, CMD_STREAM_ERR_BAD_ID);
        return -1;
    }
    return 0;
}

int cmd_stream_bound_or_reply(struct cmd_call *c, size_t i, bool is_start,
                              struct store_stream_id *id)
{
    const struct resp_slice *a = &c->argv[i];
    uint64_t missing = is_start ? 0 : UINT64_MAX;

    if (a->len > 1 && a->p[0] == '(') {
        struct resp_slice rest = {a->p + 1, a->len - 1};
        if (cmd_stream_parse_id(&rest, missing, true, NULL, id) != 0) {
            cmd_reply_err(c, CMD_STREAM_ERR_BAD_ID);
            return -1;
        }
        if ((is_start ? cmd_stream_id_incr(id) : cmd_stream_id_decr(id)) != 0) {
            cmd_reply_err(c, is_start ? "ERR invalid start ID for the interval"
                                      : "ERR invalid end ID for the interval");
            return -1;
        }
        return 0;
    }
    return cmd_stream_id_or_reply(c, i, missing, false, id);
}

int cmd_stream_id_incr(struct store_stream_id *id)
{
    if (id->seq == UINT64_MAX) {
        if (id->ms == UINT64_MAX) {
            return -1;
        }
        id->ms++;
        id->seq = 0;
    } else {
        id->seq++;
    }
    return 0;
}

int cmd_stream_id_decr(struct store_stream_id *id)
{
    if (id->seq == 0) {
        if (id->ms == 0) {
            return -1;
        }
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->seq--;
    }
    return 0;
}

size_t cmd_stream_id_fmt(char *out, const struct store_stream_id *id)
{
    size_t n = resp_ull_digits(out, id->ms);

    out[n++] = '-';
    return n + resp_ull_digits(out + n, id->seq);
}

void cmd_stream_write_id(struct cmd_call *c, const struct store_stream_id *id)
{
    char buf[CMD_STREAM_ID_MAX];

    resp_write_bulk(c->out, buf, cmd_stream_id_fmt(buf, id));
}

void cmd_stream_write_entry(struct cmd_call *c, const struct store_stream_entry *e)
{
    const uint8_t *p = e->pairs, *end = e->pairs + e->pairs_len;

    resp_write_array(c->out, 2);
    cmd_stream_write_id(c, &e->id);
    resp_write_array(c->out, (size_t)e->n_pairs * 2);
    for (uint64_t i = 0; i < e->n_pairs * 2; i++) {
        const uint8_t *b = NULL;
        size_t n = 0;
        /* The model came from a checked form or from pairs this process wrote: this cannot
         * fail, and an empty bulk stands in if it ever did. */
        (void)store_stream_pair_next(&p, end, &b, &n);
        resp_write_bulk(c->out, b, n);
    }
}

size_t cmd_stream_find(const struct store_stream *s, const struct store_stream_id *id)
{
    size_t i = cmd_stream_seek(s, id), n = cmd_stream_len(s);

    return i < n && store_stream_id_cmp(&cmd_stream_at(s, i)->id, id) == 0 ? i : n;
}

/* ---- group counters ------------------------------------------------------------------------- */

static bool id_is_zero(const struct store_stream_id *id)
{
    return id->ms == 0 && id->seq == 0;
}

bool cmd_stream_has_tombstones(const struct store_stream *s, const struct store_stream_id *start)
{
    struct store_stream_id first = cmd_stream_first_id(s), zero = {0, 0};

    if (cmd_stream_len(s) == 0 || id_is_zero(&s->max_deleted) ||
        store_stream_id_cmp(&first, &s->max_deleted) > 0) {
        return false;
    }
    return store_stream_id_cmp(start != NULL ? start : &zero, &s->max_deleted) <= 0;
}

int64_t cmd_stream_estimate_read(const struct store_stream *s, const struct store_stream_id *id)
{
    struct store_stream_id first = cmd_stream_first_id(s);
    int cmp_last;

    if (s->entries_added == 0) {
        return 0;
    }
    cmp_last = store_stream_id_cmp(id, &s->last_id);
    if (cmd_stream_len(s) == 0 && cmp_last <= 0) {
        return (int64_t)s->entries_added;
    }
    if (cmp_last == 0) {
        return (int64_t)s->entries_added;
    }
    if (cmp_last > 0) {
        return -1;
    }
    if (id_is_zero(&s->max_deleted) || store_stream_id_cmp(&s->max_deleted, &first) < 0) {
        int cmp_first = store_stream_id_cmp(id, &first);
        if (cmp_first < 0) {
            return (int64_t)(s->entries_added - cmd_stream_len(s));
        }
        if (cmp_first == 0) {
            return (int64_t)(s->entries_added - cmd_stream_len(s) + 1);
        }
    }
    return -1;
}

void cmd_stream_write_lag(struct cmd_call *c, const struct store_stream *s,
                          const struct store_stream_group *g)
{
    int64_t read;

    if (s->entries_added == 0) {
        resp_write_int(c->out, 0);
        return;
    }
    if (g->entries_read != -1 && !cmd_stream_has_tombstones(s, &g->last_id)) {
        resp_write_int(c->out, (long long)(s->entries_added - (uint64_t)g->entries_read));
        return;
    }
    read = cmd_stream_estimate_read(s, &g->last_id);
    if (read == -1) {
        resp_write_null(c->out);
        return;
    }
    resp_write_int(c->out, (long long)(s->entries_added - (uint64_t)read));
}

struct store_stream_group *cmd_stream_group(struct cmd_call *c, struct store_stream *s,
                                            size_t i)
{
    bool found;
    size_t at = store_stream_group_find(s, c->argv[i].p, c->argv[i].len, &found);

    return found ? &s->groups[at] : NULL;
}

long cmd_stream_consumer_touch(struct cmd_call *c, const struct resp_slice *key,
                               struct store_stream *s, struct store_stream_group *g, size_t i,
                               size_t mark)
{
    bool found;
    size_t at = store_stream_consumer_find(g, c->argv[i].p, c->argv[i].len, &found);

    if (found) {
        g->cons[at].seen_ms = c->now_ms;
        return (long)at;
    }
    if (store_stream_consumer_insert(s, g, at, c->argv[i].p, c->argv[i].len, c->now_ms) !=
        TERSE_OK) {
        c->out->len = mark;
        cmd_reply_status(c, TERSE_ENOMEM);
        return -1;
    }
    cmd_stream_pel_forget(s); /* the consumers after it moved */
    cmd_changed(c, CMD_NOTIFY_STREAM, "xgroup-createconsumer", key);
    return (long)at;
}

size_t cmd_stream_node_entries(const struct cmd_call *c)
{
    long long n = c->srv->settings.stream_node_max_entries;

    return n <= 0 || (unsigned long long)n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

const char *cmd_stream_arg_cstr(const struct resp_slice *a, int *len)
{
    const uint8_t *nul = a->len != 0 ? memchr(a->p, '\0', a->len) : NULL;

    *len = (int)(nul != NULL ? (size_t)(nul - a->p) : a->len);
    return (const char *)a->p;
}

void cmd_stream_reply_subcmd_syntax(struct cmd_call *c)
{
    int sl;
    const char *sub = cmd_stream_arg_cstr(&c->argv[1], &sl);

    resp_write_errorf(c->out,
                      "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try %s "
                      "HELP.",
                      sl > 128 ? 128 : sl, sub, c->argv[0].len == 5 ? "XINFO" : "XGROUP");
}
