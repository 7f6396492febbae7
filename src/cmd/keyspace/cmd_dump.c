/*
 * cmd_dump: DUMP and RESTORE, Redis 7.0's key serialization (RDB objects with a version and a
 * CRC-64 footer), so keys move between Redis and terse both ways.
 *
 * The RDB translation itself is persist's (persist_rdb.h), reached through hooks.dump and
 * hooks.restore (server/ wires them), since cmd may not call persist.
 *
 * Buffers: DUMP of a container held in chunks writes the payload straight into the reply (the
 * hook reads the container a chunk at a time, once to measure, once to write). Any other value
 * is decoded into srv->scratch (cmd_value_get) and the hook writes the payload into
 * srv->scratch2, grown to the exact size the hook asks for on its first try; both
 * are the cmd_server's, reused across commands, so a warm DUMP allocates nothing (a stream's
 * model arrays excepted, as every stream command's). RESTORE reads the payload in place (an
 * argument) into memory the server's hook owns, then copies a non-string form into scratch2
 * for cmd_value_store_form, which encodes it into scratch and stores it; a big list, hash, set or
 * sorted set the hook builds straight into its chunked container as it reads (v.coll: the key takes
 * it), so its whole form is never made.
 */
#include "cmd/keyspace/cmd_dump.h"

#include <stdio.h>
#include <string.h>

#include "cmd/hash/cmd_hash.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/keyspace/cmd_after_load.h"
#include "terse/status.h"
#include "cmd/set/cmd_set_store.h"
#include "cmd/zset/cmd_zset_form.h"

#define DUMP_ERR_PAYLOAD "ERR DUMP payload version or checksum are wrong"
#define DUMP_ERR_FORMAT "ERR Bad data format"
#define DUMP_ERR_BUSYKEY "BUSYKEY Target key name already exists."
#define DUMP_ERR_TTL "ERR Invalid TTL value, must be >= 0"
#define DUMP_ERR_IDLE "ERR Invalid IDLETIME value, must be >= 0"
#define DUMP_ERR_FREQ "ERR Invalid FREQ value, must be >= 0 and <= 255"

/* DUMP of a container in chunks, written straight into the reply: a first pass measures the
 * payload (nothing stored), the second writes it after its bulk header; so the only copy of it
 * is the reply's. */
static void dump_into_reply(struct cmd_call *c, const struct resp_slice *key,
                            const struct cmd_dump_value *v)
{
    struct cmd_server *srv = c->srv;
    size_t len = 0, got = 0, mark;
    uint8_t *dst;
    int hl, st = srv->hooks.dump(srv->hooks.srv, v, NULL, 0, &len);
    char hdr[RESP_HEADER_MAX];

    if (st != TERSE_ETOOBIG) {
        cmd_value_reply_bad(c, key, st == TERSE_OK ? TERSE_ECORRUPT : st);
        return;
    }
    hl = snprintf(hdr, sizeof(hdr), "$%zu\r\n", len);
    mark = c->out->len;
    dst = resp_out_reserve(c->out, (size_t)hl + len + 2);
    if (dst == NULL) {
        return; /* sticky error: the connection is closed by its owner */
    }
    memcpy(dst, hdr, (size_t)hl);
    st = srv->hooks.dump(srv->hooks.srv, v, dst + hl, len, &got);
    if (st != TERSE_OK || got != len) {
        c->out->len = mark; /* nothing of the payload is sent */
        cmd_value_reply_bad(c, key, st == TERSE_OK ? TERSE_ECORRUPT : st);
        return;
    }
    memcpy(dst + hl + len, "\r\n", 2);
    resp_out_commit(c->out, (size_t)hl + len + 2);
}

/* DUMP key */
static void dump_dump(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1];
    struct cmd_server *srv = c->srv;
    const struct store_entry *e;
    struct cmd_dump_value v = {.type = STORE_TYPE_STRING};
    size_t len = 0;
    int st;

    e = cmd_keys_lookup(c, c->cl->db, key, CMD_KEYS_LOOKUP_STATS | CMD_KEYS_LOOKUP_TOUCH);
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    if (srv->hooks.dump == NULL) {
        cmd_reply_err(c, "ERR DUMP is not available");
        return;
    }
    v.type = store_entry_type(e);
    if (store_entry_enc(e) == STORE_ENC_INT) {
        v.is_int = 1;
        v.ival = store_entry_int(e);
    } else if (store_entry_enc(e) == STORE_ENC_COLL) {
        v.coll = store_entry_coll(e); /* written a chunk at a time: no copy of its form */
        v.env = cmd_coll_env(c, key);
        dump_into_reply(c, key, &v);
        return;
    } else {
        st = cmd_value_get(c, e, &v.p, &v.len); /* into scratch */
        if (st != TERSE_OK) {
            cmd_value_reply_bad(c, key, st);
            return;
        }
    }
    st = srv->hooks.dump(srv->hooks.srv, &v, srv->scratch2, srv->scratch2_cap, &len);
    if (st == TERSE_ETOOBIG) {
        st = cmd_scratch2_reserve(srv, len);
        if (st == TERSE_OK) {
            st = srv->hooks.dump(srv->hooks.srv, &v, srv->scratch2, srv->scratch2_cap, &len);
        }
    }
    if (st != TERSE_OK) {
        cmd_value_reply_bad(c, key, st);
        return;
    }
    resp_write_bulk(c->out, srv->scratch2, len);
}

/* RESTORE's options, as Redis parses them. */
struct restore_opts {
    int replace;
    int absttl;
    long long idle;  /* IDLETIME seconds, -1 when not given */
    long long freq;  /* FREQ, -1 when not given */
};

/* Parses the options after the payload: 0, or -1 after replying the error. */
static int restore_opts_or_reply(struct cmd_call *c, struct restore_opts *o)
{
    o->replace = o->absttl = 0;
    o->idle = o->freq = -1;
    for (size_t j = 4; j < c->argc; j++) {
        int more = j + 1 < c->argc;

        if (cmd_arg_is(c, j, "replace")) {
            o->replace = 1;
        } else if (cmd_arg_is(c, j, "absttl")) {
            o->absttl = 1;
        } else if (cmd_arg_is(c, j, "idletime") && more && o->freq == -1) {
            if (cmd_ll_or_reply(c, j + 1, &o->idle, NULL) != 0) {
                return -1;
            }
            if (o->idle < 0) {
                cmd_reply_err(c, DUMP_ERR_IDLE);
                return -1;
            }
            j++;
        } else if (cmd_arg_is(c, j, "freq") && more && o->idle == -1) {
            if (cmd_ll_or_reply(c, j + 1, &o->freq, NULL) != 0) {
                return -1;
            }
            if (o->freq < 0 || o->freq > 255) {
                cmd_reply_err(c, DUMP_ERR_FREQ);
                return -1;
            }
            j++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return -1;
        }
    }
    return 0;
}

/* Stores the value read, with no expiry yet (a container built in chunks, v->coll, is taken:
 * stored or freed). The encoding mark of a hash, set or zset is the one Redis gives a loaded
 * value: decided by its contents under the current settings. */
static int restore_store(struct cmd_call *c, const struct resp_slice *key,
                         const struct cmd_dump_value *v)
{
    struct cmd_server *srv = c->srv;
    unsigned flags = 0;
    int table = 0;
    int st;

    if (v->coll != NULL) {
        /* built in chunks as read: the key takes it (cmd_value_after_restore decides it) */
        st = store_set_coll(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                            v->coll, STORE_NO_EXPIRE, c->now_ms);
        if (st != TERSE_OK) {
            coll_destroy(v->env, v->coll);
        }
        return st;
    }
    if (v->type == STORE_TYPE_STRING) {
        if (v->is_int) {
            return store_set_int(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                 v->ival, STORE_NO_EXPIRE, c->now_ms);
        }
        /* an integer-looking string is held as an integer, as Redis's tryObjectEncoding */
        return cmd_value_store(c, c->cl->db, key, v->p, v->len, STORE_NO_EXPIRE, 0);
    }
    st = cmd_scratch2_reserve(srv, v->len);
    if (st != TERSE_OK) {
        return st;
    }
    memcpy(srv->scratch2, v->p, v->len);
    if (v->type == STORE_TYPE_HASH) {
        table = cmd_hash_form_is_table(srv, srv->scratch2, v->len);
    } else if (v->type == STORE_TYPE_SET) {
        table = cmd_set_form_is_table(srv, srv->scratch2, v->len);
    } else if (v->type == STORE_TYPE_ZSET) {
        table = cmd_zset_form_is_table(srv, srv->scratch2, v->len);
    }
    if (table > 0) {
        flags |= STORE_SET_RAW;
    }
    return cmd_value_store_form(c, c->cl->db, key, v->type, v->len, flags);
}

/* RESTORE with a relative TTL is fed with the absolute one and ABSTTL, as Redis 7.0 does. */
static void feed_absttl(struct cmd_call *c, long long when_ms)
{
    struct resp_slice *v = cmd_feed_argv(c->srv, c->argc + 1);
    char num[CMD_FEED_NUM];

    if (v == NULL) {
        return;
    }
    memcpy(v, c->argv, c->argc * sizeof(*v));
    v[2] = cmd_feed_ll(num, when_ms);
    v[c->argc] = cmd_feed_str("ABSTTL");
    cmd_feed_rewrite(c, v, c->argc + 1);
}

/* RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency] */
static void dump_restore(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[1], *payload = &c->argv[3];
    struct store_shard *s = cmd_shard(c, key->p, key->len);
    struct cmd_dump_value v = {.type = STORE_TYPE_STRING};
    struct restore_opts o;
    long long ttl;
    int st, deleted = 0;

    if (restore_opts_or_reply(c, &o) != 0) {
        return;
    }
    if (!o.replace && cmd_keys_lookup(c, c->cl->db, key, 0) != NULL) {
        cmd_reply_err(c, DUMP_ERR_BUSYKEY);
        return;
    }
    if (cmd_ll_or_reply(c, 2, &ttl, NULL) != 0) {
        return;
    }
    if (ttl < 0) {
        cmd_reply_err(c, DUMP_ERR_TTL);
        return;
    }
    if (c->srv->hooks.restore == NULL) {
        cmd_reply_err(c, DUMP_ERR_FORMAT);
        return;
    }
    st = c->srv->hooks.restore(c->srv->hooks.srv, payload->p, payload->len, &v);
    if (st == TERSE_EPROTO) {
        cmd_reply_err(c, DUMP_ERR_PAYLOAD);
        return;
    }
    if (st == TERSE_ECORRUPT || st == TERSE_ETOOBIG) {
        cmd_reply_err(c, DUMP_ERR_FORMAT);
        return;
    }
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    if (o.replace) {
        deleted = store_delete(s, c->cl->db, key->p, key->len, c->now_ms);
    }
    if (ttl != 0 && !o.absttl) {
        ttl = ttl > INT64_MAX - c->now_ms ? INT64_MAX : ttl + c->now_ms;
    }
    if (ttl != 0 && ttl <= c->now_ms) {
        /* already expired: nothing is created; what REPLACE deleted is reported */
        coll_destroy(v.env, v.coll);
        if (deleted) {
            cmd_changed(c, CMD_NOTIFY_GENERIC, "del", key);
            cmd_feed_rewrite_del(c, key);
        }
        resp_write_ok(c->out);
        return;
    }
    st = restore_store(c, key, &v);
    if (st == TERSE_OK && ttl != 0) {
        st = store_expire_set(s, c->cl->db, key->p, key->len, ttl, c->now_ms) == 1
                 ? TERSE_OK
                 : TERSE_ENOMEM;
    }
    if (st != TERSE_OK) {
        store_delete(s, c->cl->db, key->p, key->len, c->now_ms); /* no half-restored key */
        cmd_value_reply_bad(c, key, st);
        return;
    }
    /* A big container is chunked now, as a load chunks it: else every read of it would decode
     * the whole value until its next write. */
    cmd_value_after_restore(c->srv, c->cl->db, key->p, key->len);
    store_access_set(s, c->cl->db, key->p, key->len, o.freq, o.idle, c->now_ms);
    cmd_changed(c, CMD_NOTIFY_GENERIC, "restore", key);
    if (ttl != 0 && !o.absttl) {
        feed_absttl(c, ttl);
    }
    resp_write_ok(c->out);
}

#define DUMP_ACL_R "@keyspace @read @slow"
#define DUMP_ACL_W "@keyspace @write @slow @dangerous"

const struct cmd_def cmd_dump_defs[] = {
    {"dump", 2, CMD_READONLY, 1, 1, 1, dump_dump, DUMP_ACL_R,
     "Return a serialized version of the value stored at the specified key.", "2.6.0", "generic",
     NULL},
    {"restore", -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, dump_restore, DUMP_ACL_W,
     "Create a key using the provided serialized value, previously obtained using DUMP.",
     "2.6.0", "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL},
};
