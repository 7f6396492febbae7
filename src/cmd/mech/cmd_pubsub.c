/*
 * cmd_pubsub: publish/subscribe, as Redis 7.0 runs it outside a cluster: SUBSCRIBE,
 * UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, PUBLISH, the shard channels (SSUBSCRIBE,
 * SUNSUBSCRIBE, SPUBLISH: a namespace of their own) and PUBSUB.
 *
 * Subscriptions live in three key registries of the server (cmd_keyreg.c: channels, patterns,
 * shard channels; db 0, since channels belong to no database), each also on its client's list
 * in the order it subscribed. PUBLISH writes the message into every receiver's output buffer:
 * its own through c->out, another client's through hooks.client_out, which also schedules that
 * client's flush; a slow subscriber is bounded by the pubsub class of
 * client-output-buffer-limit (server/). A RESP2 client with subscriptions may run only the
 * commands flagged CMD_SUB_OK (cmd_dispatch); in RESP3 the messages are push replies and any
 * command runs.
 *
 * Keyspace notifications (cmd_notify.c) publish through cmd_pubsub_publish_raw, from a command
 * or from the store's expiry and eviction outside any.
 */
#include "cmd/mech/cmd_pubsub.h"

#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_keyreg.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"
#include "cmd/core/cmd_glob.h"

#define PUBSUB_DB 0 /* the registries' db: channels are global */

/* One kind of subscription. */
struct kind {
    const char *sub_word, *unsub_word, *msg_word;
    size_t reg_off;  /* offsetof(struct cmd_server, <registry>) */
    size_t list_off; /* offsetof(struct cmd_client, <list>) */
    bool shard;      /* counts only shard subscriptions */
};

static const struct kind K_CHAN = {"subscribe", "unsubscribe", "message",
                                   offsetof(struct cmd_server, pubsub_chan),
                                   offsetof(struct cmd_client, subs), false};
static const struct kind K_PAT = {"psubscribe", "punsubscribe", "pmessage",
                                  offsetof(struct cmd_server, pubsub_pat),
                                  offsetof(struct cmd_client, psubs), false};
static const struct kind K_SHARD = {"ssubscribe", "sunsubscribe", "smessage",
                                    offsetof(struct cmd_server, pubsub_shard),
                                    offsetof(struct cmd_client, ssubs), true};

static struct cmd_keyreg *reg_of(struct cmd_server *srv, const struct kind *k)
{
    return (struct cmd_keyreg *)(void *)((char *)srv + k->reg_off);
}

static struct cmd_keyreg_key **list_of(struct cmd_client *cl, const struct kind *k)
{
    return (struct cmd_keyreg_key **)(void *)((char *)cl + k->list_off);
}

static size_t list_len(const struct cmd_keyreg_key *l)
{
    size_t n = 0;

    for (; l != NULL; l = l->client_next) {
        n++;
    }
    return n;
}

size_t cmd_pubsub_count(const struct cmd_client *cl)
{
    return list_len(cl->subs) + list_len(cl->psubs);
}

int cmd_pubsub_any(const struct cmd_client *cl)
{
    return cl->subs != NULL || cl->psubs != NULL || cl->ssubs != NULL;
}

/* The count a (un)subscribe confirmation carries. */
static size_t confirm_count(const struct cmd_client *cl, const struct kind *k)
{
    return k->shard ? list_len(cl->ssubs) : cmd_pubsub_count(cl);
}

static void confirm(struct cmd_call *c, const char *word, const struct resp_slice *name,
                    const struct kind *k)
{
    cmd_push_begin(c);
    resp_write_push(c->out, 3);
    resp_write_cstr(c->out, word);
    if (name != NULL) {
        resp_write_bulk(c->out, name->p, name->len);
    } else {
        resp_write_null(c->out);
    }
    resp_write_int(c->out, (long long)confirm_count(c->cl, k));
    cmd_push_end(c);
}

static void subscribe(struct cmd_call *c, const struct kind *k)
{
    for (size_t i = 1; i < c->argc; i++) {
        if (cmd_keyreg_add(c->srv, reg_of(c->srv, k), list_of(c->cl, k), c->cl, PUBSUB_DB,
                           c->argv[i].p, c->argv[i].len) != TERSE_OK) {
            cmd_reply_err(c, CMD_ERR_OOM);
            return;
        }
        confirm(c, k->sub_word, &c->argv[i], k);
    }
}

/* Drops one subscription of cl (key k of its list); the caller confirms. */
static void drop_one(struct cmd_server *srv, struct cmd_client *cl, const struct kind *kd,
                     struct cmd_keyreg_key *k)
{
    struct cmd_keyreg_key **pp = list_of(cl, kd);

    while (*pp != k) {
        pp = &(*pp)->client_next;
    }
    *pp = k->client_next;
    k->client_next = NULL;
    cmd_keyreg_drop(srv, reg_of(srv, kd), &k);
}

static void unsubscribe(struct cmd_call *c, const struct kind *kd)
{
    struct cmd_keyreg_key **list = list_of(c->cl, kd);

    if (c->argc == 1) {
        if (*list == NULL) {
            confirm(c, kd->unsub_word, NULL, kd);
        }
        while (*list != NULL) {
            struct cmd_keyreg_key *k = *list;
            /* The name is written before the drop frees it; the count after. */
            cmd_push_begin(c);
            resp_write_push(c->out, 3);
            resp_write_cstr(c->out, kd->unsub_word);
            resp_write_bulk(c->out, k->key, k->klen);
            drop_one(c->srv, c->cl, kd, k);
            resp_write_int(c->out, (long long)confirm_count(c->cl, kd));
            cmd_push_end(c);
        }
        return;
    }
    for (size_t i = 1; i < c->argc; i++) {
        uint64_t h = store_key_hash(c->srv->shard, c->argv[i].p, c->argv[i].len);
        for (struct cmd_keyreg_key *k = *list; k != NULL; k = k->client_next) {
            if (cmd_keyreg_same(k, h, PUBSUB_DB, c->argv[i].p, c->argv[i].len)) {
                drop_one(c->srv, c->cl, kd, k);
                break;
            }
        }
        confirm(c, kd->unsub_word, &c->argv[i], kd);
    }
}

void cmd_pubsub_client_free(struct cmd_server *srv, struct cmd_client *cl)
{
    cmd_keyreg_drop(srv, &srv->pubsub_chan, &cl->subs);
    cmd_keyreg_drop(srv, &srv->pubsub_pat, &cl->psubs);
    cmd_keyreg_drop(srv, &srv->pubsub_shard, &cl->ssubs);
}

/* ---- publishing -------------------------------------------------------------------------- */

/* Writes one message to cl: [word, (pattern,) channel, message]; c (may be NULL) is the
 * command running, whose client's output is open already. */
static void deliver(struct cmd_server *srv, struct cmd_call *c, struct cmd_client *cl,
                    const char *word, const struct cmd_keyreg_key *pat,
                    const struct resp_slice *ch, const struct resp_slice *msg)
{
    int own = c != NULL && cl == c->cl;
    struct resp_out *o = own ? c->out : srv->hooks.client_out(srv->hooks.srv, cl);

    if (own) {
        cmd_push_begin(c);
    }
    resp_write_push(o, pat != NULL ? 4 : 3);
    resp_write_cstr(o, word);
    if (pat != NULL) {
        resp_write_bulk(o, pat->key, pat->klen);
    }
    resp_write_bulk(o, ch->p, ch->len);
    resp_write_bulk(o, msg->p, msg->len);
    if (!own) {
        srv->hooks.client_out_done(srv->hooks.srv, cl);
    } else {
        cmd_push_end(c);
    }
}

/* Sends msg on channel ch of the registry of kind kd (patterns too unless shard); returns the
 * receivers. c: the command running, or NULL. */
static long long publish(struct cmd_server *srv, struct cmd_call *c, const struct kind *kd,
                         const struct resp_slice *ch, const struct resp_slice *msg)
{
    struct cmd_keyreg *reg = reg_of(srv, kd);
    uint64_t h = store_key_hash(srv->shard, ch->p, ch->len);
    long long n = 0;

    if (srv->hooks.client_out == NULL) {
        return 0;
    }
    for (struct cmd_keyreg_key *k = cmd_keyreg_first(reg, h); k != NULL; k = k->bucket_next) {
        if (cmd_keyreg_same(k, h, PUBSUB_DB, ch->p, ch->len)) {
            deliver(srv, c, k->cl, kd->msg_word, NULL, ch, msg);
            n++;
        }
    }
    if (kd->shard) {
        return n;
    }
    reg = &srv->pubsub_pat;
    for (size_t b = 0; reg->n > 0 && b < reg->n_buckets; b++) {
        for (struct cmd_keyreg_key *k = reg->buckets[b]; k != NULL; k = k->bucket_next) {
            if (cmd_glob_match(k->key, k->klen, ch->p, ch->len, 0)) {
                deliver(srv, c, k->cl, "pmessage", k, ch, msg);
                n++;
            }
        }
    }
    return n;
}

long long cmd_pubsub_publish_raw(struct cmd_server *srv, const void *ch, size_t ch_len,
                                 const void *msg, size_t msg_len)
{
    struct resp_slice c = {ch, ch_len}, m = {msg, msg_len};

    return publish(srv, srv->cur_call, &K_CHAN, &c, &m);
}

static void cmd_publish(struct cmd_call *c)
{
    /* replicas' subscribers get it too, as in Redis; the AOF does not */
    c->feed |= CMD_FEED_FORCE | CMD_FEED_REPL_ONLY;
    resp_write_int(c->out, publish(c->srv, c, &K_CHAN, &c->argv[1], &c->argv[2]));
}

static void cmd_spublish(struct cmd_call *c)
{
    c->feed |= CMD_FEED_FORCE | CMD_FEED_REPL_ONLY;
    resp_write_int(c->out, publish(c->srv, c, &K_SHARD, &c->argv[1], &c->argv[2]));
}

static void cmd_subscribe(struct cmd_call *c)
{
    subscribe(c, &K_CHAN);
}

static void cmd_psubscribe(struct cmd_call *c)
{
    subscribe(c, &K_PAT);
}

static void cmd_ssubscribe(struct cmd_call *c)
{
    subscribe(c, &K_SHARD);
}

static void cmd_unsubscribe(struct cmd_call *c)
{
    unsubscribe(c, &K_CHAN);
}

static void cmd_punsubscribe(struct cmd_call *c)
{
    unsubscribe(c, &K_PAT);
}

static void cmd_sunsubscribe(struct cmd_call *c)
{
    unsubscribe(c, &K_SHARD);
}

/* ---- PUBSUB ------------------------------------------------------------------------------ */

/* 1 when k is the first key of its name in its chain (the chain holds every equal name). */
static int first_of_name(const struct cmd_keyreg *reg, const struct cmd_keyreg_key *k)
{
    for (const struct cmd_keyreg_key *e = cmd_keyreg_first(reg, k->hash); e != k;
         e = e->bucket_next) {
        if (cmd_keyreg_same(e, k->hash, k->db, k->key, k->klen)) {
            return 0;
        }
    }
    return 1;
}

/* Distinct names in reg matching pattern (NULL: all); reply them when reply. */
static size_t names(struct cmd_call *c, const struct cmd_keyreg *reg,
                    const struct resp_slice *pattern, int reply)
{
    size_t n = 0;

    for (size_t b = 0; reg->n > 0 && b < reg->n_buckets; b++) {
        for (const struct cmd_keyreg_key *k = reg->buckets[b]; k != NULL; k = k->bucket_next) {
            if (!first_of_name(reg, k) ||
                (pattern != NULL &&
                 !cmd_glob_match(pattern->p, pattern->len, k->key, k->klen, 0))) {
                continue;
            }
            if (reply) {
                resp_write_bulk(c->out, k->key, k->klen);
            }
            n++;
        }
    }
    return n;
}

size_t cmd_pubsub_names(struct cmd_server *srv, int which)
{
    const struct cmd_keyreg *reg = which == 0   ? &srv->pubsub_chan
                                   : which == 1 ? &srv->pubsub_pat
                                                : &srv->pubsub_shard;
    return names(NULL, reg, NULL, 0);
}

static void channels(struct cmd_call *c, const struct cmd_keyreg *reg)
{
    const struct resp_slice *pattern = c->argc == 3 ? &c->argv[2] : NULL;

    if (c->argc > 3) {
        resp_write_errorf(c->out,
                          "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                          "PUBSUB HELP.",
                          c->argv[1].len > 128 ? 128 : (int)c->argv[1].len,
                          (const char *)c->argv[1].p);
        return;
    }
    resp_write_array(c->out, names(c, reg, pattern, 0));
    (void)names(c, reg, pattern, 1);
}

static void numsub(struct cmd_call *c, const struct cmd_keyreg *reg)
{
    resp_write_map(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        uint64_t h = store_key_hash(c->srv->shard, c->argv[i].p, c->argv[i].len);
        long long n = 0;
        for (const struct cmd_keyreg_key *k = cmd_keyreg_first(reg, h); k != NULL;
             k = k->bucket_next) {
            n += cmd_keyreg_same(k, h, PUBSUB_DB, c->argv[i].p, c->argv[i].len);
        }
        resp_write_bulk(c->out, c->argv[i].p, c->argv[i].len);
        resp_write_int(c->out, n);
    }
}

static void cmd_pubsub_channels(struct cmd_call *c)
{
    channels(c, &c->srv->pubsub_chan);
}

static void cmd_pubsub_shardchannels(struct cmd_call *c)
{
    channels(c, &c->srv->pubsub_shard);
}

static void cmd_pubsub_numsub(struct cmd_call *c)
{
    numsub(c, &c->srv->pubsub_chan);
}

static void cmd_pubsub_shardnumsub(struct cmd_call *c)
{
    numsub(c, &c->srv->pubsub_shard);
}

static void cmd_pubsub_numpat(struct cmd_call *c)
{
    resp_write_int(c->out, (long long)names(c, &c->srv->pubsub_pat, NULL, 0));
}

static void cmd_pubsub_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help.",
        NULL};
    cmd_reply_help(c, lines);
}

/* Redis 7.0: publishing and PUBSUB queries may run in scripts; subscribing may not. */
#define PS_FLAGS (CMD_PUBSUB | CMD_LOADING | CMD_STALE)
#define SUB_FLAGS (PS_FLAGS | CMD_NOSCRIPT | CMD_SUB_OK)
#define G "pubsub"

static const struct cmd_def pubsub_subcmds[] = {
    {"pubsub|channels", -2, PS_FLAGS, 0, 0, 0, cmd_pubsub_channels, "@pubsub @slow",
     "List active channels", "2.8.0", G, NULL},
    {"pubsub|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_pubsub_help, "@slow",
     "Show helpful text about the different subcommands", "6.2.0", G, NULL},
    {"pubsub|numpat", 2, PS_FLAGS, 0, 0, 0, cmd_pubsub_numpat, "@pubsub @slow",
     "Get the count of unique patterns pattern subscriptions", "2.8.0", G, NULL},
    {"pubsub|numsub", -2, PS_FLAGS, 0, 0, 0, cmd_pubsub_numsub, "@pubsub @slow",
     "Get the count of subscribers for channels", "2.8.0", G, NULL},
    {"pubsub|shardchannels", -2, PS_FLAGS, 0, 0, 0, cmd_pubsub_shardchannels, "@pubsub @slow",
     "List active shard channels", "7.0.0", G, NULL},
    {"pubsub|shardnumsub", -2, PS_FLAGS, 0, 0, 0, cmd_pubsub_shardnumsub, "@pubsub @slow",
     "Get the count of subscribers for shard channels", "7.0.0", G, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

const struct cmd_def cmd_pubsub_defs[] = {
    {"psubscribe", -2, SUB_FLAGS, 0, 0, 0, cmd_psubscribe, "@pubsub @slow",
     "Listen for messages published to channels matching the given patterns", "2.0.0", G,
     NULL},
    {"publish", 3, PS_FLAGS | CMD_FAST | CMD_MAY_REPLICATE, 0, 0, 0, cmd_publish,
     "@pubsub @fast", "Post a message to a channel", "2.0.0", G, NULL},
    {"pubsub", -2, 0, 0, 0, 0, NULL, "@slow", "A container for Pub/Sub commands", "2.8.0", G,
     pubsub_subcmds},
    {"punsubscribe", -1, SUB_FLAGS, 0, 0, 0, cmd_punsubscribe, "@pubsub @slow",
     "Stop listening for messages posted to channels matching the given patterns", "2.0.0", G,
     NULL},
    {"spublish", 3, PS_FLAGS | CMD_FAST | CMD_MAY_REPLICATE, 1, 1, 1, cmd_spublish,
     "@pubsub @fast", "Post a message to a shard channel", "7.0.0", G, NULL},
    {"ssubscribe", -2, SUB_FLAGS, 1, -1, 1, cmd_ssubscribe, "@pubsub @slow",
     "Listen for messages published to the given shard channels", "7.0.0", G, NULL},
    {"subscribe", -2, SUB_FLAGS, 0, 0, 0, cmd_subscribe, "@pubsub @slow",
     "Listen for messages published to the given channels", "2.0.0", G, NULL},
    {"sunsubscribe", -1, SUB_FLAGS, 1, -1, 1, cmd_sunsubscribe, "@pubsub @slow",
     "Stop listening for messages posted to the given shard channels", "7.0.0", G, NULL},
    {"unsubscribe", -1, SUB_FLAGS, 0, 0, 0, cmd_unsubscribe, "@pubsub @slow",
     "Stop listening for messages posted to the given channels", "2.0.0", G, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
