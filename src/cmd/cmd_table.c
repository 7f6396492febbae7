/*
 * cmd_table: the command table and dispatch.
 *
 * The rows live in one static array per family (cmd_string_defs, ...). At init they are
 * merged into one array of pointers sorted by name (what COMMAND lists) and a hash table by
 * name (what cmd_lookup searches, case-insensitive): no allocation per lookup. rename-command
 * (cmd_table_rename, at startup) changes the name a command is found by, or takes it out of
 * both; the row, and so the name COMMAND and error texts show, stays its own.
 *
 * Dispatch follows Redis 7.0's processCommand order: resolve the command (unknown command,
 * unknown subcommand), check arity, check authentication, maxmemory (evict, or refuse a
 * CMD_DENYOOM command that does not fit: cmd_memory.c), then run the handler.
 */
#include "cmd/cmd.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd_change.h"
#include "cmd/cmd_internal.h"
#include "cmd/cmd_script.h"
#include "cmd/cmd_util.h"
#include "terse/status.h"

static const struct cmd_def *const *families(size_t *n)
{
    static const struct cmd_def *const fam[] = {cmd_string_defs, cmd_keys_defs, cmd_conn_defs,
                                                cmd_client_defs,
                                                cmd_server_defs, cmd_memory_defs,
                                                cmd_persist_defs, cmd_hash_defs,
                                                cmd_list_defs, cmd_set_defs, cmd_zset_defs,
                                                cmd_stream_defs, cmd_multi_defs, cmd_sort_defs,
                                                cmd_pubsub_defs, cmd_dump_defs, cmd_repl_defs,
                                                cmd_bitmap_defs, cmd_script_defs,
                                                cmd_function_defs};
    *n = sizeof(fam) / sizeof(fam[0]);
    return fam;
}

/* ASCII lower case: command names are ASCII, and a locale must not change which one runs. */
static inline int lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int name_cmp(const uint8_t *a, size_t alen, const char *b)
{
    size_t i;

    for (i = 0; i < alen && b[i] != '\0'; i++) {
        int ca = lower(a[i]), cb = (unsigned char)b[i];
        if (ca != cb) {
            return ca - cb;
        }
    }
    if (i < alen) {
        return 1;
    }
    return b[i] == '\0' ? 0 : -1;
}

/* FNV-1a over the lower-cased name: the slot of the lookup table (cmd_lookup). */
static uint32_t name_hash(const uint8_t *p, size_t len)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ (uint32_t)lower(p[i])) * 16777619u;
    }
    return h;
}

/* Puts d in slots (mask + 1 of them, never full) under name. */
static void htab_put(struct cmd_name_slot *slots, size_t mask, const char *name,
                     const struct cmd_def *d)
{
    size_t at = name_hash((const uint8_t *)name, strlen(name)) & mask;

    while (slots[at].name != NULL) {
        at = (at + 1) & mask;
    }
    slots[at].name = name;
    slots[at].d = d;
}

/* Builds srv->htab: every top-level command under its own name, in an open-addressing table at
 * least twice its size (linear probing), so a lookup is one hash and, nearly always, one
 * comparison. */
static int htab_build(struct cmd_server *srv)
{
    size_t cap = 16;

    while (cap < srv->n_table * 2) {
        cap <<= 1;
    }
    srv->htab = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*srv->htab));
    if (srv->htab == NULL) {
        return TERSE_ENOMEM;
    }
    memset((void *)srv->htab, 0, cap * sizeof(*srv->htab));
    srv->htab_mask = cap - 1;
    for (size_t i = 0; i < srv->n_table; i++) {
        htab_put(srv->htab, srv->htab_mask, srv->table[i]->name, srv->table[i]);
    }
    return TERSE_OK;
}

static int def_sort(const void *a, const void *b)
{
    const struct cmd_def *const *x = a;
    const struct cmd_def *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

int cmd_server_init(struct cmd_server *srv)
{
    size_t n_fam, n = 0, k = 0;
    const struct cmd_def *const *fam = families(&n_fam);

    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            n++;
        }
    }
    srv->table = srv->alloc.alloc(srv->alloc.opaque, n * sizeof(*srv->table));
    if (srv->table == NULL) {
        return TERSE_ENOMEM;
    }
    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            srv->table[k++] = d;
        }
    }
    qsort((void *)srv->table, n, sizeof(*srv->table), def_sort);
    srv->n_table = n;
    if (htab_build(srv) != TERSE_OK) {
        srv->alloc.free(srv->alloc.opaque, (void *)srv->table);
        srv->table = NULL;
        return TERSE_ENOMEM;
    }
    srv->renamed = NULL;
    srv->n_renamed = 0;
    srv->clients = NULL;
    srv->next_client_id = 1;
    srv->scratch = NULL;
    srv->scratch_cap = 0;
    srv->scratch2 = NULL;
    srv->scratch2_cap = 0;
    srv->scratch3 = NULL;
    srv->scratch3_cap = 0;
    memset(&srv->watch, 0, sizeof(srv->watch));
    memset(&srv->block, 0, sizeof(srv->block));
    srv->cur_call = NULL;
    memset(&srv->pubsub_chan, 0, sizeof(srv->pubsub_chan));
    memset(&srv->pubsub_pat, 0, sizeof(srv->pubsub_pat));
    memset(&srv->pubsub_shard, 0, sizeof(srv->pubsub_shard));
    srv->n_blocked = 0;
    srv->block_next_deadline = 0;
    srv->ready = NULL;
    srv->n_ready = srv->ready_cap = 0;
    memset(&srv->stats, 0, sizeof(srv->stats));
    srv->used_memory_startup =
        srv->hooks.mem_used != NULL ? srv->hooks.mem_used(srv->hooks.srv) : 0;
    srv->dirty = 0;
    memset(&srv->feed, 0, sizeof(srv->feed));
    srv->feed.sel_db = -1;
    srv->script = NULL;
    cmd_change_setup(srv);
    return TERSE_OK;
}

void cmd_server_deinit(struct cmd_server *srv)
{
    srv->alloc.free(srv->alloc.opaque, (void *)srv->table);
    srv->table = NULL;
    srv->n_table = 0;
    srv->alloc.free(srv->alloc.opaque, (void *)srv->htab);
    srv->htab = NULL;
    for (size_t i = 0; i < srv->n_renamed; i++) {
        srv->alloc.free(srv->alloc.opaque, srv->renamed[i]);
    }
    srv->alloc.free(srv->alloc.opaque, (void *)srv->renamed);
    srv->renamed = NULL;
    srv->n_renamed = 0;
    srv->alloc.free(srv->alloc.opaque, srv->scratch);
    srv->alloc.free(srv->alloc.opaque, srv->scratch2);
    srv->alloc.free(srv->alloc.opaque, srv->scratch3);
    srv->scratch = srv->scratch2 = srv->scratch3 = NULL;
    srv->scratch_cap = srv->scratch2_cap = srv->scratch3_cap = 0;
    cmd_keyreg_free(srv, &srv->watch);
    cmd_keyreg_free(srv, &srv->block);
    cmd_keyreg_free(srv, &srv->pubsub_chan);
    cmd_keyreg_free(srv, &srv->pubsub_pat);
    cmd_keyreg_free(srv, &srv->pubsub_shard);
    srv->alloc.free(srv->alloc.opaque, srv->ready);
    srv->ready = NULL;
    srv->n_ready = srv->ready_cap = 0;
    cmd_feed_free(srv);
    cmd_script_destroy(srv, &srv->script);
}

size_t cmd_table_count(const struct cmd_server *srv)
{
    return srv->n_table;
}

const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i)
{
    return i < srv->n_table ? srv->table[i] : NULL;
}

const struct cmd_def *cmd_lookup(const struct cmd_server *srv, const uint8_t *name, size_t len)
{
    size_t at = name_hash(name, len) & srv->htab_mask;

    for (; srv->htab[at].name != NULL; at = (at + 1) & srv->htab_mask) {
        if (name_cmp(name, len, srv->htab[at].name) == 0) {
            return srv->htab[at].d;
        }
    }
    return NULL;
}

/* Case-insensitive equality of two NUL-terminated names (rename-command's are any case). */
static int name_ieq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (lower((uint8_t)*a) != lower((uint8_t)*b)) {
            return 0;
        }
    }
    return *a == *b;
}

int cmd_name_known(const char *name)
{
    size_t n_fam;
    const struct cmd_def *const *fam = families(&n_fam);

    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            if (name_ieq(name, d->name)) {
                return 1;
            }
        }
    }
    return 0;
}

int cmd_table_rename(struct cmd_server *srv, const char *from, const char *to)
{
    const struct cmd_def *d = cmd_lookup(srv, (const uint8_t *)from, strlen(from));
    const struct cmd_def *other = cmd_lookup(srv, (const uint8_t *)to, strlen(to));
    size_t cap = srv->htab_mask + 1;
    struct cmd_name_slot *slots;
    char *copy = NULL, **names = NULL;

    if (d == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (to[0] != '\0' && other != NULL && other != d) {
        return TERSE_EINVAL; /* other == d: to is from in another case */
    }
    slots = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*slots));
    if (to[0] != '\0') {
        copy = srv->alloc.alloc(srv->alloc.opaque, strlen(to) + 1);
        names = srv->alloc.alloc(srv->alloc.opaque, (srv->n_renamed + 1) * sizeof(*names));
    }
    if (slots == NULL || (to[0] != '\0' && (copy == NULL || names == NULL))) {
        srv->alloc.free(srv->alloc.opaque, slots);
        srv->alloc.free(srv->alloc.opaque, copy);
        srv->alloc.free(srv->alloc.opaque, (void *)names);
        return TERSE_ENOMEM;
    }
    /* A new table without d's name (open addressing has no cheap delete; this runs at
     * startup only), then d under its new one or out of the table. */
    memset((void *)slots, 0, cap * sizeof(*slots));
    for (size_t i = 0; i < cap; i++) {
        if (srv->htab[i].name != NULL && srv->htab[i].d != d) {
            htab_put(slots, srv->htab_mask, srv->htab[i].name, srv->htab[i].d);
        }
    }
    if (copy != NULL) {
        for (size_t i = 0; i <= strlen(to); i++) {
            copy[i] = (char)lower((uint8_t)to[i]); /* cmd_lookup compares with lower case */
        }
        if (srv->n_renamed > 0) {
            memcpy((void *)names, (void *)srv->renamed, srv->n_renamed * sizeof(*names));
        }
        names[srv->n_renamed++] = copy;
        srv->alloc.free(srv->alloc.opaque, (void *)srv->renamed);
        srv->renamed = names;
        htab_put(slots, srv->htab_mask, copy, d);
    } else {
        size_t i = 0;
        while (i < srv->n_table && srv->table[i] != d) {
            i++;
        }
        assert(i < srv->n_table); /* every command in htab is in table */
        memmove((void *)&srv->table[i], (void *)&srv->table[i + 1],
                (srv->n_table - i - 1) * sizeof(*srv->table));
        srv->n_table--;
    }
    srv->alloc.free(srv->alloc.opaque, (void *)srv->htab);
    srv->htab = slots;
    return TERSE_OK;
}

size_t cmd_subcmd_count(const struct cmd_def *subcmds)
{
    size_t n = 0;

    while (subcmds != NULL && subcmds[n].name != NULL) {
        n++;
    }
    return n;
}

const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc)
{
    const struct cmd_def *d = cmd_lookup(srv, argv[0].p, argv[0].len);

    if (d == NULL || d->subcmds == NULL || argc < 2) {
        return d;
    }
    for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
        const char *bar = strchr(s->name, '|');
        if (bar != NULL && name_cmp(argv[1].p, argv[1].len, bar + 1) == 0) {
            return s;
        }
    }
    return NULL;
}

void cmd_reply_help(struct cmd_call *c, const char *const *lines)
{
    size_t n = 0;

    while (lines[n] != NULL) {
        n++;
    }
    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        resp_write_simple(c->out, lines[i]);
    }
}

void cmd_client_init(struct cmd_server *srv, struct cmd_client *cl)
{
    memset(cl, 0, sizeof(*cl));
    cl->id = srv->next_client_id++;
    cl->resp = 2;
    cl->fd = -1;
    if (srv->settings.requirepass == NULL || srv->settings.requirepass[0] == '\0') {
        cl->flags |= CMD_CLIENT_AUTHED;
    }
    cl->next = srv->clients;
    if (srv->clients != NULL) {
        srv->clients->prev = cl;
    }
    srv->clients = cl;
}

void cmd_client_deinit(struct cmd_server *srv, struct cmd_client *cl)
{
    if (cl->prev != NULL) {
        cl->prev->next = cl->next;
    } else if (srv->clients == cl) {
        srv->clients = cl->next;
    }
    if (cl->next != NULL) {
        cl->next->prev = cl->prev;
    }
    cl->prev = cl->next = NULL;
    cmd_block_end(srv, cl);
    cmd_pubsub_client_free(srv, cl);
    cmd_multi_discard(srv, cl);
    cmd_records_free(srv, &cl->mq);
    cmd_records_free(srv, &cl->blk);
    srv->alloc.free(srv->alloc.opaque, cl->name);
    cl->name = NULL;
}

/* Appends at most n bytes of s to buf (at *len, capacity cap), keeping a NUL. */
static void cat(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    size_t room = cap - 1 - *len;
    size_t k = n < room ? n : room;

    memcpy(buf + *len, s, k);
    *len += k;
    buf[*len] = '\0';
}

/* Redis 7.0: "unknown command '<name>', with args beginning with: '<a>' '<b>' ". The quoted
 * argument list stops once it reaches 128 bytes; each piece is cut to what is left. */
static void reply_unknown(struct cmd_call *c)
{
    char args[160], msg[512];
    size_t alen = 0;
    int nlen = c->argv[0].len > 128 ? 128 : (int)c->argv[0].len;

    args[0] = '\0';
    for (size_t i = 1; i < c->argc && alen < 128; i++) {
        size_t keep = 128 - alen;
        size_t n = c->argv[i].len < keep ? c->argv[i].len : keep;
        cat(args, sizeof(args), &alen, "'", 1);
        cat(args, sizeof(args), &alen, (const char *)c->argv[i].p, n);
        cat(args, sizeof(args), &alen, "' ", 2);
    }
    snprintf(msg, sizeof(msg), "ERR unknown command '%.*s', with args beginning with: %s", nlen,
             (const char *)c->argv[0].p, args);
    /* Arguments are binary: a NUL would cut the message; Redis sends it whole, so do we up to
     * the first NUL, and resp_write_error turns CR/LF into spaces. */
    cmd_reply_err(c, msg);
}

static void reply_unknown_subcommand(struct cmd_call *c)
{
    char name[129];
    size_t n = c->argv[0].len > 128 ? 128 : c->argv[0].len;
    int sub = c->argv[1].len > 128 ? 128 : (int)c->argv[1].len;

    for (size_t i = 0; i < n; i++) {
        name[i] = (char)toupper(c->argv[0].p[i]);
    }
    name[n] = '\0';
    resp_write_errorf(c->out, "ERR unknown subcommand '%.*s'. Try %s HELP.", sub,
                      (const char *)c->argv[1].p, name);
}

/* Keys a write command names (its key positions), at least 1: the change count it adds.
 * A per-key count like Redis's server.dirty without touching every handler; a write that
 * fails or changes nothing is still counted. */
static uint64_t write_n_keys(const struct cmd_def *d, size_t argc)
{
    long last;

    if (d->first_key <= 0 || d->key_step <= 0) {
        return 1;
    }
    last = d->last_key < 0 ? (long)argc + d->last_key : d->last_key;
    if (last < d->first_key) {
        return 1;
    }
    return (uint64_t)((last - d->first_key) / d->key_step + 1);
}

void cmd_run(struct cmd_call *c, const struct cmd_def *d)
{
    c->cl->last_cmd = d->name;
    c->srv->stats.total_commands++;
    if (d->proc == NULL) {
        /* A container called without a subcommand has arity -2, caught before. */
        reply_unknown_subcommand(c);
        return;
    }
    c->feed = 0;
    c->feed_changes = c->srv->feed.changes;
    c->unchanged = 0;
    d->proc(c);
    if ((d->flags & CMD_WRITE) && !c->unchanged) {
        c->srv->dirty += write_n_keys(d, c->argc);
    }
    if (c->srv->feed.on) {
        cmd_feed_after(c, d);
        if (d->flags & CMD_ARBITRARY_KEYS) {
            c->feed |= CMD_FEED_NO_MULTI;
        }
    }
}

/* A command refused before it ran (msg: Redis's error text): inside MULTI the transaction is
 * doomed too; a refused EXEC ends it, "EXECABORT ... because of: " the error. */
static void refuse(struct cmd_call *c, const struct cmd_def *d, const char *msg)
{
    if (d != NULL && cmd_multi_is_exec(d)) {
        if (strncmp(msg, "ERR ", 4) == 0) {
            msg += 4;
        }
        resp_write_errorf(c->out, "EXECABORT Transaction discarded because of: %s", msg);
        cmd_multi_discard(c->srv, c->cl);
        return;
    }
    cmd_reply_err(c, msg);
    if (c->cl->flags & CMD_CLIENT_MULTI) {
        c->cl->flags |= CMD_CLIENT_DIRTY_EXEC;
    }
}

const char *cmd_misconf_text(struct cmd_server *srv)
{
    if (srv->settings.misconf == CMD_MISCONF_RDB) {
        return "-" CMD_ERR_MISCONF;
    }
    if (srv->settings.misconf == CMD_MISCONF_AOF) {
        snprintf(srv->misconf_text, sizeof(srv->misconf_text),
                 "-MISCONF Errors writing to the AOF file: %s",
                 strerror(srv->settings.misconf_errno));
        return srv->misconf_text;
    }
    return NULL;
}

/* Redis's refusals of a write (MISCONF, NOREPLICAS), after the memory check as in Redis 7.0's
 * processCommand: 1 when d was refused (replied). EXEC counts as a write when it queued one. */
static int writes_denied(struct cmd_call *c, const struct cmd_def *d)
{
    struct cmd_server *srv = c->srv;
    int is_write = (d->flags & CMD_WRITE) ||
                   (cmd_multi_is_exec(d) && (c->cl->flags & CMD_CLIENT_MULTI) &&
                    (c->cl->mq.flags & CMD_WRITE));

    if (srv->settings.misconf && (is_write || cmd_conn_is_ping(d))) {
        refuse(c, d, cmd_misconf_text(srv) + 1);
        return 1;
    }
    if (is_write && !cmd_repl_enough_replicas(srv)) {
        refuse(c, d, CMD_ERR_NOREPLICAS);
        return 1;
    }
    if (is_write && srv->settings.replica_ro) {
        refuse(c, d, "READONLY You can't write against a read only replica.");
        return 1;
    }
    if (srv->settings.replica_stale &&
        (!(d->flags & CMD_STALE) ||
         (cmd_multi_is_exec(d) && (c->cl->flags & CMD_CLIENT_MULTI) &&
          (c->cl->mq.inv_flags & CMD_STALE)))) {
        refuse(c, d, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
                     "'no'.");
        return 1;
    }
    return 0;
}

/* cmd_dispatch's checks and run, for the call it set up. */
static void dispatch(struct cmd_call *c)
{
    struct cmd_server *srv = c->srv;
    struct cmd_client *cl = c->cl;
    const struct resp_slice *argv = c->argv;
    size_t argc = c->argc;
    const struct cmd_def *d;
    int queue, deny, busy;
    char msg[128];

    d = cmd_resolve(srv, argv, argc);
    if (d == NULL) {
        const struct cmd_def *base = cmd_lookup(srv, argv[0].p, argv[0].len);
        if (base != NULL && base->subcmds != NULL) {
            reply_unknown_subcommand(c);
        } else {
            reply_unknown(c);
        }
        if (cl->flags & CMD_CLIENT_MULTI) {
            cl->flags |= CMD_CLIENT_DIRTY_EXEC;
        }
        return;
    }
    if ((d->arity > 0 && (size_t)d->arity != argc) || (d->arity < 0 && argc < (size_t)-d->arity)) {
        snprintf(msg, sizeof(msg), "ERR wrong number of arguments for '%s' command", d->name);
        refuse(c, d, msg);
        return;
    }
    if ((cl->flags & CMD_CLIENT_REPLICA) && !cmd_repl_is_replconf(d)) {
        return; /* a replica's link carries the stream; it only acknowledges it */
    }
    if (!(cl->flags & CMD_CLIENT_AUTHED) && !(d->flags & CMD_NO_AUTH)) {
        refuse(c, d, "NOAUTH Authentication required.");
        return;
    }
    queue = (cl->flags & CMD_CLIENT_MULTI) && !(d->flags & CMD_TX_NOW);
    if (queue && (d->flags & CMD_NO_MULTI)) {
        refuse(c, d, "ERR Command not allowed inside a transaction");
        return;
    }
    /* Inside MULTI any command is refused when memory is over (queueing takes memory); EXEC
     * is when one it would run is a CMD_DENYOOM one (Redis 7.0's processCommand). */
    deny = queue || (cmd_multi_is_exec(d) && (cl->flags & CMD_CLIENT_MULTI) &&
                     (cl->mq.flags & CMD_DENYOOM));
    busy = cmd_script_busy(srv); /* a script runs past its time: others are served meanwhile */
    if (cl->flags & CMD_CLIENT_MASTER) {
        /* The master's stream is obeyed: no memory, persistence or read-only refusal. */
    } else if (srv->settings.maxmemory != 0 && !busy && !srv->settings.replica &&
               !cmd_memory_admit(c, d, deny)) {
        refuse(c, d, CMD_ERR_OOM);
        return;
    } else if ((srv->settings.misconf || srv->settings.min_replicas_to_write > 0 ||
                srv->settings.replica_ro || srv->settings.replica_stale) &&
               writes_denied(c, d)) {
        return;
    }
    if (cl->resp == 2 && !(d->flags & CMD_SUB_OK) && cmd_pubsub_any(cl)) {
        snprintf(msg, sizeof(msg),
                 "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                 "/ RESET are allowed in this context",
                 d->name);
        refuse(c, d, msg);
        return;
    }
    if (busy && !(d->flags & CMD_ALLOW_BUSY)) {
        refuse(c, d, cmd_script_busy_error(srv));
        return;
    }
    if (queue) {
        cmd_multi_queue(c, d);
        return;
    }
    cmd_run(c, d);
}

void cmd_push_begin(struct cmd_call *c)
{
    if (c->cl->flags & (CMD_CLIENT_REPLY_OFF | CMD_CLIENT_REPLY_SKIP)) {
        c->out->len = c->pushed;
    }
}

void cmd_push_end(struct cmd_call *c)
{
    c->pushed = c->out->len;
}

void cmd_dispatch(struct cmd_server *srv, struct cmd_client *cl, const struct resp_slice *argv,
                  size_t argc)
{
    struct cmd_call call;
    struct cmd_call *outer = srv->cur_call; /* a script running past its time: its EVAL */
    unsigned skip;

    memset(&call, 0, sizeof(call));
    call.srv = srv;
    call.cl = cl;
    call.out = cl->out;
    call.argv = argv;
    call.argc = argc;
    call.now_ms = srv->hooks.now_ms(srv->hooks.srv);
    cl->last_ms = call.now_ms;
    call.pushed = cl->out->len;
    skip = cl->flags & CMD_CLIENT_REPLY_SKIP;
    /* Nested in a busy script (hooks.busy_events), the script's unit stays open: only
     * CMD_ALLOW_BUSY commands run, and none of them writes. */
    if (srv->feed.n_ops > 0 && outer == NULL) {
        cmd_feed_flush(srv, 0); /* keys that expired outside a command, one op each */
    }
    srv->cur_call = &call;
    dispatch(&call);
    if (srv->feed.on && outer == NULL) {
        /* With cur_call still set: the server notes the offset of cl's writes (WAIT). */
        cmd_feed_flush(srv, !(call.feed & CMD_FEED_NO_MULTI));
    }
    srv->cur_call = outer;
    if (cl->flags & (CMD_CLIENT_REPLY_OFF | CMD_CLIENT_REPLY_SKIP)) {
        cl->out->len = call.pushed; /* the reply goes; push messages stay */
    }
    /* CLIENT REPLY SKIP silences the one command after it (Redis's resetClient). */
    cl->flags &= ~skip;
    if (cl->flags & CMD_CLIENT_REPLY_SKIP_NEXT) {
        cl->flags = (cl->flags & ~(unsigned)CMD_CLIENT_REPLY_SKIP_NEXT) | CMD_CLIENT_REPLY_SKIP;
    }
    if (srv->n_ready > 0 && outer == NULL) {
        cmd_block_serve(srv); /* after the whole command (EXEC included), as Redis does */
    }
}
