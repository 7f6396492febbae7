/*
 * cmd_feed: the write feed, what replicas and the AOF receive (struct cmd_feed in cmd.h).
 *
 * Redis 7.0's propagation is the model (server.c call(), alsoPropagate and
 * propagatePendingCommands): a write command that changed something is fed as the client sent
 * it, after anything it fed itself (cmd_feed_op) and the DELs of keys that expired while it
 * ran; a handler whose command would not replay the same on a replica feeds a rewrite instead
 * (cmd_feed_rewrite). The ops of one execution unit (a command; EXEC with all it ran; a served
 * blocked client) go out at its end, inside MULTI/EXEC when there are several. Each op is
 * preceded by SELECT when its db is not the one the feed last selected.
 *
 * "Changed something" is the store's change listener (cmd_change.c forwards it here while the
 * feed is on): a key written, added or deleted during the handler, as Redis's server.dirty.
 * With the feed off nothing here runs but one test in cmd_run.
 */
#include "cmd/mech/cmd_feed.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "terse/status.h"

#define FEED_MIN_BYTES 4096
#define FEED_MIN_OPS 16

/* Room for len more bytes at *p (len used of *cap), from srv's allocator. */
static int room(struct cmd_server *srv, uint8_t **p, size_t *cap, size_t used, size_t len)
{
    if (used + len <= *cap) {
        return TERSE_OK;
    }
    return cmd_grow(srv, (void **)p, cap, used + len, 1, FEED_MIN_BYTES);
}

static size_t resp_size(const struct resp_slice *argv, size_t argc)
{
    size_t n = 32; /* "*<count>\r\n" */

    for (size_t i = 0; i < argc; i++) {
        n += argv[i].len + 32; /* "$<len>\r\n" and "\r\n" around the bytes */
    }
    return n;
}

/* Writes argv as a RESP array of bulk strings at dst (resp_size bytes of room); returns the
 * bytes written. */
static size_t resp_put(uint8_t *dst, const struct resp_slice *argv, size_t argc)
{
    size_t n = (size_t)sprintf((char *)dst, "*%zu\r\n", argc);

    for (size_t i = 0; i < argc; i++) {
        n += (size_t)sprintf((char *)dst + n, "$%zu\r\n", argv[i].len);
        if (argv[i].len > 0) {
            memcpy(dst + n, argv[i].p, argv[i].len);
        }
        n += argv[i].len;
        dst[n++] = '\r';
        dst[n++] = '\n';
    }
    return n;
}

static void add_op(struct cmd_server *srv, int db, const struct resp_slice *argv, size_t argc,
                   int repl_only)
{
    struct cmd_feed *f = &srv->feed;
    size_t need = resp_size(argv, argc);

    if (f->lost || room(srv, &f->buf, &f->cap, f->len, need) != TERSE_OK ||
        (f->n_ops == f->ops_cap &&
         cmd_grow(srv, (void **)&f->ops, &f->ops_cap, f->n_ops + 1, sizeof(*f->ops),
                  FEED_MIN_OPS) != TERSE_OK)) {
        f->lost = 1;
        return;
    }
    f->ops[f->n_ops].off = f->len;
    f->ops[f->n_ops].len = resp_put(f->buf + f->len, argv, argc);
    f->ops[f->n_ops].db = db;
    f->ops[f->n_ops].repl_only = repl_only;
    f->n_repl_only += repl_only ? 1u : 0u;
    f->len += f->ops[f->n_ops].len;
    f->n_ops++;
}

void cmd_feed_enable(struct cmd_server *srv, int on)
{
    srv->feed.on = on;
    if (on) {
        srv->feed.sel_db = -1;
    }
    if (srv->listen != NULL) {
        srv->listen(srv); /* the change listener follows feed.on */
    }
}

void cmd_feed_op(struct cmd_call *c, int db, const struct resp_slice *argv, size_t argc)
{
    if (c->srv->feed.on) {
        add_op(c->srv, db, argv, argc, 0);
    }
}

void cmd_feed_rewrite(struct cmd_call *c, const struct resp_slice *argv, size_t argc)
{
    c->feed |= CMD_FEED_PREVENT;
    cmd_feed_op(c, c->cl->db, argv, argc);
}

void cmd_feed_del(struct cmd_server *srv, int db, const void *key, size_t klen)
{
    struct resp_slice a[2] = {{(const uint8_t *)"DEL", 3}, {key, klen}};

    if (srv->feed.on) {
        add_op(srv, db, a, 2, 0);
    }
}

void cmd_feed_store_change(struct cmd_server *srv, int db, const void *key, size_t klen,
                           enum store_change why)
{
    if (why == STORE_CHANGE_EXPIRED || why == STORE_CHANGE_EVICTED) {
        cmd_feed_del(srv, db, key, klen);
    } else {
        srv->feed.changes++;
    }
}

struct resp_slice *cmd_feed_argv(struct cmd_server *srv, size_t n)
{
    struct cmd_feed *f = &srv->feed;

    if (n > f->argv_cap &&
        cmd_grow(srv, (void **)&f->argv, &f->argv_cap, n, sizeof(*f->argv), 16) != TERSE_OK) {
        f->lost = 1;
        return NULL;
    }
    return f->argv;
}

void cmd_feed_undo(struct cmd_server *srv, size_t n_ops)
{
    struct cmd_feed *f = &srv->feed;

    if (n_ops < f->n_ops) {
        for (size_t i = n_ops; i < f->n_ops; i++) {
            f->n_repl_only -= f->ops[i].repl_only ? 1u : 0u;
        }
        f->len = f->ops[n_ops].off;
        f->n_ops = n_ops;
    }
}

struct resp_slice cmd_feed_str(const char *s)
{
    struct resp_slice r = {(const uint8_t *)s, strlen(s)};

    return r;
}

struct resp_slice cmd_feed_ll(char buf[CMD_FEED_NUM], long long v)
{
    struct resp_slice r = {(const uint8_t *)buf, (size_t)snprintf(buf, CMD_FEED_NUM, "%lld", v)};

    return r;
}

void cmd_feed_rewrite_del(struct cmd_call *c, const struct resp_slice *key)
{
    struct resp_slice a[2] = {cmd_feed_str("DEL"), *key};

    cmd_feed_rewrite(c, a, 2);
}

void cmd_feed_rewrite_pexpireat(struct cmd_call *c, const struct resp_slice *key,
                                int64_t when_ms)
{
    char num[CMD_FEED_NUM];
    struct resp_slice a[3] = {cmd_feed_str("PEXPIREAT"), *key, cmd_feed_ll(num, when_ms)};

    cmd_feed_rewrite(c, a, 3);
}

/* cmd_run, after the handler of d ran as c. */
void cmd_feed_after(struct cmd_call *c, const struct cmd_def *d)
{
    if ((c->feed & CMD_FEED_PREVENT) || !(d->flags & CMD_WRITE || c->feed & CMD_FEED_FORCE)) {
        return;
    }
    if (c->srv->feed.changes != c->feed_changes || (c->feed & CMD_FEED_FORCE)) {
        add_op(c->srv, c->cl->db, c->argv, c->argc, (c->feed & CMD_FEED_REPL_ONLY) != 0);
    }
}

/* Appends "SELECT db" to out when db is not the feed's selected one. */
static int out_select(struct cmd_server *srv, int db)
{
    struct cmd_feed *f = &srv->feed;
    char num[16];
    struct resp_slice a[2] = {{(const uint8_t *)"SELECT", 6}, {(const uint8_t *)num, 0}};

    if (db == f->sel_db) {
        return TERSE_OK;
    }
    a[1].len = (size_t)snprintf(num, sizeof(num), "%d", db);
    if (room(srv, &f->out, &f->out_cap, f->out_len, resp_size(a, 2)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    f->out_len += resp_put(f->out + f->out_len, a, 2);
    f->sel_db = db;
    return TERSE_OK;
}

static int out_bytes(struct cmd_server *srv, const void *p, size_t len)
{
    struct cmd_feed *f = &srv->feed;

    if (room(srv, &f->out, &f->out_cap, f->out_len, len) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memcpy(f->out + f->out_len, p, len);
    f->out_len += len;
    return TERSE_OK;
}

static const char MULTI[] = "*1\r\n$5\r\nMULTI\r\n";
static const char EXEC[] = "*1\r\n$4\r\nEXEC\r\n";

/* Builds the unit's stream into f->out: every op, or (aof) all but the replicas-only ones,
 * whose SELECTs are still written so that both streams leave the same db selected. */
static int build(struct cmd_server *srv, int wrap, int aof)
{
    struct cmd_feed *f = &srv->feed;
    size_t n = aof ? f->n_ops - f->n_repl_only : f->n_ops;
    int rc = TERSE_OK;

    f->out_len = 0;
    wrap = wrap && f->n_ops > 1 && n > 0;
    if (wrap) {
        rc = out_select(srv, f->ops[0].db);
        rc = rc != TERSE_OK ? rc : out_bytes(srv, MULTI, sizeof(MULTI) - 1);
    }
    for (size_t i = 0; i < f->n_ops && rc == TERSE_OK; i++) {
        rc = out_select(srv, f->ops[i].db);
        if (rc == TERSE_OK && !(aof && f->ops[i].repl_only)) {
            rc = out_bytes(srv, f->buf + f->ops[i].off, f->ops[i].len);
        }
    }
    if (rc == TERSE_OK && wrap) {
        rc = out_bytes(srv, EXEC, sizeof(EXEC) - 1);
    }
    return rc;
}

void cmd_feed_flush(struct cmd_server *srv, int wrap)
{
    struct cmd_feed *f = &srv->feed;
    int rc = TERSE_OK;
    int sel0 = f->sel_db;

    if (f->n_ops == 0 && !f->lost) {
        return;
    }
    if (!f->lost) {
        rc = build(srv, wrap, 0);
    }
    if (f->lost || rc != TERSE_OK) {
        if (srv->hooks.log_warning != NULL) {
            srv->hooks.log_warning(srv->hooks.srv,
                                   "Out of memory holding the write feed: replicas and the "
                                   "AOF lost writes and start over");
        }
        f->sel_db = -1;
        if (srv->hooks.feed != NULL) {
            srv->hooks.feed(srv->hooks.srv, NULL, 0, CMD_FEED_TO_REPL | CMD_FEED_TO_AOF);
        }
    } else if (srv->hooks.feed != NULL && f->n_repl_only == 0) {
        srv->hooks.feed(srv->hooks.srv, f->out, f->out_len, CMD_FEED_TO_REPL | CMD_FEED_TO_AOF);
    } else if (srv->hooks.feed != NULL) {
        int sel1 = f->sel_db;
        srv->hooks.feed(srv->hooks.srv, f->out, f->out_len, CMD_FEED_TO_REPL);
        f->sel_db = sel0;
        if (build(srv, wrap, 1) != TERSE_OK) {
            f->sel_db = -1;
            srv->hooks.feed(srv->hooks.srv, NULL, 0, CMD_FEED_TO_AOF);
        } else {
            assert(f->sel_db == sel1);
            (void)sel1;
            srv->hooks.feed(srv->hooks.srv, f->out, f->out_len, CMD_FEED_TO_AOF);
        }
    }
    f->n_ops = 0;
    f->n_repl_only = 0;
    f->len = 0;
    f->out_len = 0;
    f->lost = 0;
}

void cmd_feed_free(struct cmd_server *srv)
{
    struct cmd_feed *f = &srv->feed;

    srv->alloc.free(srv->alloc.opaque, f->buf);
    srv->alloc.free(srv->alloc.opaque, f->ops);
    srv->alloc.free(srv->alloc.opaque, f->out);
    srv->alloc.free(srv->alloc.opaque, f->argv);
    memset(f, 0, sizeof(*f));
}

void cmd_feed_trim(struct cmd_server *srv, size_t keep)
{
    struct cmd_feed *f = &srv->feed;

    if (f->n_ops == 0 && f->cap > keep) {
        srv->alloc.free(srv->alloc.opaque, f->buf);
        f->buf = NULL;
        f->cap = 0;
    }
    if (f->out_cap > keep) {
        srv->alloc.free(srv->alloc.opaque, f->out);
        f->out = NULL;
        f->out_cap = 0;
    }
}
