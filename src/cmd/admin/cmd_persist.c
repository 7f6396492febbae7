/*
 * cmd_persist: SAVE, BGSAVE [SCHEDULE] and LASTSAVE, with Redis 7.0.15's replies.
 *
 * The work is the server's (server/srv_persist.c, reached through the save hooks); this file
 * only parses arguments and words the outcome. The rows carry Redis's COMMAND INFO arity,
 * flags and ACL categories and its COMMAND DOCS summary, since and group.
 */
#include "cmd/admin/cmd_persist.h"

#include "cmd/core/cmd_util.h"

#define PERSIST_ERR_BUSY "ERR Background save already in progress"

static void save_proc(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    int rc = h->save != NULL ? h->save(h->srv) : CMD_SAVE_FAILED;

    if (rc == CMD_SAVE_OK) {
        resp_write_ok(c->out);
    } else if (rc == CMD_SAVE_BUSY) {
        cmd_reply_err(c, PERSIST_ERR_BUSY);
    } else {
        cmd_reply_err(c, "ERR"); /* Redis's shared.err: the reason is in the log */
    }
}

static void bgsave_proc(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    int schedule = 0, rc;

    if (c->argc > 1) {
        if (c->argc == 2 && cmd_arg_is(c, 1, "schedule")) {
            schedule = 1;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    rc = h->bgsave != NULL ? h->bgsave(h->srv, schedule) : CMD_SAVE_FAILED;
    if (rc == CMD_SAVE_OK) {
        resp_write_simple(c->out, "Background saving started");
    } else if (rc == CMD_SAVE_SCHEDULED) {
        resp_write_simple(c->out, "Background saving scheduled");
    } else if (rc == CMD_SAVE_BUSY) {
        cmd_reply_err(c, PERSIST_ERR_BUSY);
    } else {
        cmd_reply_err(c, "ERR");
    }
}

/* Before the first save, Redis answers the start time; so does the hook, or cmd without it. */
static void lastsave_proc(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;

    resp_write_int(c->out, h->lastsave != NULL ? (long long)h->lastsave(h->srv)
                                               : (long long)(c->srv->start_ms / 1000));
}

static void bgrewriteaof_proc(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    int rc = h->bgrewriteaof != NULL ? h->bgrewriteaof(h->srv) : CMD_SAVE_FAILED;

    if (rc == CMD_SAVE_OK) {
        resp_write_simple(c->out, "Background append only file rewriting started");
    } else if (rc == CMD_SAVE_SCHEDULED) {
        resp_write_simple(c->out, "Background append only file rewriting scheduled");
    } else if (rc == CMD_SAVE_BUSY) {
        cmd_reply_err(c, "ERR Background append only file rewriting already in progress");
    } else {
        cmd_reply_err(c, "ERR Can't execute an AOF background rewriting. Please check the "
                         "server logs for more information.");
    }
}

#define ACL_SAVE "@admin @slow @dangerous"

const struct cmd_def cmd_persist_defs[] = {
    {"bgrewriteaof", 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, 0, 0, 0,
     bgrewriteaof_proc, ACL_SAVE, "Asynchronously rewrite the append-only file", "1.0.0",
     "server", NULL},
    {"bgsave", -1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, 0, 0, 0, bgsave_proc,
     ACL_SAVE, "Asynchronously save the dataset to disk", "1.0.0", "server", NULL},
    {"lastsave", 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, lastsave_proc,
     "@admin @fast @dangerous", "Get the UNIX time stamp of the last successful save to disk",
     "1.0.0", "server", NULL},
    {"save", 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, 0, 0, 0,
     save_proc, ACL_SAVE, "Synchronously save the dataset to disk", "1.0.0", "server", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
