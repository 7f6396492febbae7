/*
 * cmd_fixture: the fake server shared by the cmd unit tests (see cmd_fixture.h).
 */
#include "cmd_fixture.h"

#include "terse/status.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/mech/cmd_client.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void *cmd_fixture_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

void cmd_fixture_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

int cmd_fixture_out_grow(void *owner, struct resp_out *o, size_t need)
{
    size_t cap = o->cap < 256 ? 256 : o->cap;
    uint8_t *p;

    (void)owner;
    while (cap - o->len < need) {
        cap *= 2;
    }
    p = realloc(o->p, cap);
    if (p == NULL) {
        return -1;
    }
    o->p = p;
    o->cap = cap;
    return 0;
}

void cmd_fixture_setup(struct cmd_server *srv)
{
    assert_int_equal(store_shard_create(&srv->shard, 16), TERSE_OK);
    assert_int_equal(codec_ctx_create(&srv->codec, NULL), TERSE_OK);
    srv->alloc.alloc = cmd_fixture_alloc;
    srv->alloc.free = cmd_fixture_free;
    srv->settings.databases = 16;
}

void cmd_fixture_attach(struct cmd_client *cl, struct resp_out *out)
{
    out->grow = cmd_fixture_out_grow;
    out->proto = 2;
    cl->out = out;
}

void cmd_fixture_init(struct cmd_server *srv, struct cmd_client *cl, struct resp_out *out)
{
    assert_int_equal(cmd_server_init(srv), TERSE_OK);
    cmd_client_init(srv, cl);
    cmd_fixture_attach(cl, out);
}

void cmd_fixture_deinit(struct cmd_server *srv, struct cmd_client *cl)
{
    cmd_client_deinit(srv, cl);
    cmd_server_deinit(srv);
}

void cmd_fixture_teardown(struct cmd_server *srv, struct resp_out *out)
{
    store_shard_destroy(&srv->shard);
    codec_ctx_destroy(&srv->codec);
    free(srv->scratch);
    free(srv->scratch2);
    srv->scratch = srv->scratch2 = NULL;
    free(out->p);
    out->p = NULL;
}

size_t cmd_fixture_split(char *line, struct resp_slice *argv, unsigned flags)
{
    size_t argc = 0;
    char *p = line;

    for (;;) {
        char *sp = strchr(p, ' ');
        size_t n = sp != NULL ? (size_t)(sp - p) : strlen(p);
        int quotes = (flags & CMD_FIXTURE_SPLIT_QUOTES) && n == 2 && p[0] == '\'' && p[1] == '\'';

        assert_true(argc < CMD_FIXTURE_MAX_ARGS);
        argv[argc].p = (const uint8_t *)p;
        argv[argc].len = quotes ? 0 : n;
        argc++;
        if (sp == NULL) {
            return argc;
        }
        p = sp + 1;
    }
}

const char *cmd_fixture_reply(const struct resp_out *out, char *reply, size_t reply_cap,
                              size_t *reply_len)
{
    assert_int_equal(out->err, 0);
    assert_true(out->len < reply_cap);
    memcpy(reply, out->p, out->len);
    reply[out->len] = '\0';
    if (reply_len != NULL) {
        *reply_len = out->len;
    }
    return reply;
}

const char *cmd_fixture_dispatch(struct cmd_server *srv, struct cmd_client *cl,
                                 struct resp_out *out, const char *line, char *reply,
                                 size_t reply_cap)
{
    size_t len = strlen(line);
    struct resp_slice argv[CMD_FIXTURE_MAX_ARGS];
    char *buf = malloc(len + 1);
    size_t argc;

    assert_non_null(buf);
    memcpy(buf, line, len + 1);
    argc = cmd_fixture_split(buf, argv, 0);
    out->len = 0;
    out->proto = cl->resp;
    cmd_dispatch(srv, cl, argv, argc);
    free(buf);
    return cmd_fixture_reply(out, reply, reply_cap, NULL);
}
