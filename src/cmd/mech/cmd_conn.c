/*
 * cmd_conn: connection commands: PING, ECHO, AUTH, HELLO, QUIT, RESET (CLIENT: cmd_client.c).
 *
 * Replies and error texts follow Redis 7.0. terse has one user, "default", whose password is
 * requirepass (or none, which accepts any password, as Redis's nopass default user does).
 * A password is compared as Redis 7.0 compares them: by their SHA-256 digests, every byte of
 * the digests, so the time taken says nothing of where a guess goes wrong or of how long the
 * password is (cmd_auth_secret_eq).
 */
#include "cmd/mech/cmd_conn.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_client.h"
#include "cmd/mech/cmd_multi.h"
#include "cmd/mech/cmd_pubsub.h"
#include "terse/status.h"

#define TERSE_REDIS_COMPAT_VERSION "7.0.15"

static void cmd_ping(struct cmd_call *c)
{
    if (c->argc > 2) {
        resp_write_error(c->out, "ERR wrong number of arguments for 'ping' command");
        return;
    }
    if (c->cl->resp == 2 && cmd_pubsub_any(c->cl)) {
        /* A RESP2 subscriber's PING answers in the shape of a message. */
        resp_write_array(c->out, 2);
        resp_write_cstr(c->out, "pong");
        resp_write_bulk(c->out, c->argc == 2 ? c->argv[1].p : NULL, c->argc == 2 ? c->argv[1].len : 0);
    } else if (c->argc == 1) {
        resp_write_simple(c->out, "PONG");
    } else {
        resp_write_bulk(c->out, c->argv[1].p, c->argv[1].len);
    }
}

static void cmd_echo(struct cmd_call *c)
{
    resp_write_bulk(c->out, c->argv[1].p, c->argv[1].len);
}

static int no_password(const struct cmd_server *srv)
{
    return srv->settings.requirepass == NULL || srv->settings.requirepass[0] == '\0';
}

int cmd_auth_secret_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    static const uint8_t empty[1];
    uint8_t da[32], db[32];
    unsigned int la = 0, lb = 0;

    /* Fixed-size digests compared in full (CRYPTO_memcmp has no early exit): neither where
     * the inputs differ nor their lengths change the comparison's time. Hashing costs one
     * SHA-256 block per 64 bytes, so a password's length shows at most to that granularity
     * (not at all below 56 bytes). A libcrypto failure denies. */
    if (EVP_Digest(alen > 0 ? a : empty, alen, da, &la, EVP_sha256(), NULL) != 1 ||
        EVP_Digest(blen > 0 ? b : empty, blen, db, &lb, EVP_sha256(), NULL) != 1 ||
        la != sizeof(da) || lb != sizeof(db)) {
        return 0;
    }
    return CRYPTO_memcmp(da, db, sizeof(da)) == 0;
}

/* Checks user/password for the single "default" user. Returns 1 when they match. */
static int credentials_ok(const struct cmd_server *srv, const struct resp_slice *user,
                          const struct resp_slice *pass)
{
    const char *want = srv->settings.requirepass;

    if (!cmd_slice_eq(user, "default")) {
        return 0;
    }
    return no_password(srv) ||
           cmd_auth_secret_eq(pass->p, pass->len, (const uint8_t *)want, strlen(want));
}

static void cmd_auth(struct cmd_call *c)
{
    static const struct resp_slice def_user = {(const uint8_t *)"default", 7};
    const struct resp_slice *user = &def_user, *pass;

    if (c->argc > 3) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (c->argc == 2) {
        if (no_password(c->srv)) {
            cmd_reply_err(c, "ERR AUTH <password> called without any password configured for "
                             "the default user. Are you sure your configuration is correct?");
            return;
        }
        pass = &c->argv[1];
    } else {
        user = &c->argv[1];
        pass = &c->argv[2];
    }
    if (!credentials_ok(c->srv, user, pass)) {
        cmd_reply_err(c, "WRONGPASS invalid username-password pair or user is disabled.");
        return;
    }
    c->cl->flags |= CMD_CLIENT_AUTHED;
    resp_write_ok(c->out);
}

static void cmd_hello(struct cmd_call *c)
{
    long long ver = 0;
    const struct resp_slice *user = NULL, *pass = NULL, *name = NULL;

    if (c->argc >= 2) {
        if (!cmd_parse_ll(c->argv[1].p, c->argv[1].len, &ver)) {
            cmd_reply_err(c, "ERR Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            cmd_reply_err(c, "NOPROTO unsupported protocol version");
            return;
        }
    }
    for (size_t j = 2; j < c->argc; j++) {
        size_t more = c->argc - 1 - j;
        if (cmd_arg_is(c, j, "auth") && more >= 2) {
            user = &c->argv[j + 1];
            pass = &c->argv[j + 2];
            j += 2;
        } else if (cmd_arg_is(c, j, "setname") && more >= 1) {
            name = &c->argv[j + 1];
            j++;
        } else {
            int n = c->argv[j].len > 128 ? 128 : (int)c->argv[j].len;
            resp_write_errorf(c->out, "ERR Syntax error in HELLO option '%.*s'", n,
                              (const char *)c->argv[j].p);
            return;
        }
    }
    if (user != NULL) {
        if (!credentials_ok(c->srv, user, pass)) {
            cmd_reply_err(c, "WRONGPASS invalid username-password pair or user is disabled.");
            return;
        }
        c->cl->flags |= CMD_CLIENT_AUTHED;
    }
    if (!(c->cl->flags & CMD_CLIENT_AUTHED)) {
        cmd_reply_err(c, "NOAUTH HELLO must be called with the client already authenticated, "
                         "otherwise the HELLO AUTH <user> <pass> option can be used to "
                         "authenticate the client and select the RESP protocol version at the "
                         "same time");
        return;
    }
    if (name != NULL && cmd_client_set_name_or_reply(c, name) != 0) {
        return;
    }
    if (ver != 0) {
        c->cl->resp = (int)ver;
        c->out->proto = (int)ver;
    }
    resp_write_map(c->out, 7);
    resp_write_cstr(c->out, "server");
    resp_write_cstr(c->out, "redis");
    resp_write_cstr(c->out, "version");
    resp_write_cstr(c->out, TERSE_REDIS_COMPAT_VERSION);
    resp_write_cstr(c->out, "proto");
    resp_write_int(c->out, c->cl->resp);
    resp_write_cstr(c->out, "id");
    resp_write_int(c->out, (long long)c->cl->id);
    resp_write_cstr(c->out, "mode");
    resp_write_cstr(c->out, "standalone");
    resp_write_cstr(c->out, "role");
    resp_write_cstr(c->out, "master");
    resp_write_cstr(c->out, "modules");
    resp_write_array(c->out, 0);
}

static void cmd_quit(struct cmd_call *c)
{
    resp_write_ok(c->out);
    c->cl->flags |= CMD_CLIENT_CLOSE_AFTER_REPLY;
}

static void cmd_reset(struct cmd_call *c)
{
    cmd_multi_discard(c->srv, c->cl);
    cmd_pubsub_client_free(c->srv, c->cl);
    c->cl->db = 0;
    c->cl->resp = 2;
    c->out->proto = 2;
    c->cl->flags &= ~(unsigned)CMD_CLIENT_NO_EVICT;
    c->srv->alloc.free(c->srv->alloc.opaque, c->cl->name);
    c->cl->name = NULL;
    if (!no_password(c->srv)) {
        c->cl->flags &= ~(unsigned)CMD_CLIENT_AUTHED;
    }
    resp_write_simple(c->out, "RESET");
}

int cmd_conn_is_ping(const struct cmd_def *d)
{
    return d->proc == cmd_ping;
}

const struct cmd_def cmd_conn_defs[] = {
    {"auth", -2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH |
                     CMD_ALLOW_BUSY,
     0, 0, 0, cmd_auth, "@fast @connection", "Authenticates the connection.", "1.0.0",
     "connection", NULL},
    {"echo", 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, cmd_echo, "@fast @connection",
     "Returns the given string.", "1.0.0", "connection", NULL},
    {"hello", -1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH |
                      CMD_ALLOW_BUSY,
     0, 0, 0, cmd_hello, "@fast @connection", "Handshakes with the Redis server.", "6.0.0",
     "connection", NULL},
    {"ping", -1, CMD_FAST | CMD_SUB_OK, 0, 0, 0, cmd_ping, "@fast @connection",
     "Returns the server's liveliness response.", "1.0.0", "connection", NULL},
    {"quit", -1, CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST |
                     CMD_NO_AUTH | CMD_TX_NOW | CMD_SUB_OK,
     0, 0, 0, cmd_quit, "@fast @connection", "Closes the connection.", "1.0.0", "connection",
     NULL},
    {"reset", 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH |
                     CMD_ALLOW_BUSY | CMD_TX_NOW | CMD_SUB_OK,
     0, 0, 0, cmd_reset, "@fast @connection", "Resets the connection.", "6.2.0",
     "connection", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
