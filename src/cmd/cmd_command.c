/*
 * cmd_command: COMMAND, COMMAND COUNT|INFO|DOCS|LIST|GETKEYS|HELP, in Redis 7.0's shapes.
 *
 * COMMAND INFO, per command, a 10-element array:
 *   name, arity, flags (set of status strings), first key, last key, key step,
 *   ACL categories (set of "+@cat"), tips (set), key specs (set), subcommands
 *   (array of the same 10-element arrays; an empty set when there are none).
 * terse's table rows carry no tips nor key specs, so those are empty; first/last/step carry
 * the key positions (what cluster clients read). COMMAND DOCS gives, per command, a map of
 * summary, since, group and, for containers, subcommands (a map of the same); RESP2 flattens
 * maps into arrays as Redis does. Names may be given as "container|sub".
 *
 * Commands come in the table's name order (Redis's order is its hash table's, i.e. none).
 */
#include <string.h>
#include <strings.h>

#include "cmd/cmd_internal.h"
#include "cmd/cmd_server.h"
#include "cmd/cmd_util.h"

/* Flag names in the order Redis 7.0's COMMAND INFO lists them. may_replicate, sentinel,
 * only_sentinel and protected are hidden there, so they are here. */
static const struct {
    uint32_t flag;
    const char *name;
} flag_names[] = {
    {CMD_WRITE, "write"},
    {CMD_READONLY, "readonly"},
    {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"},
    {CMD_PUBSUB, "pubsub"},
    {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"},
    {CMD_LOADING, "loading"},
    {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"},
    {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"},
    {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"},
    {CMD_MOVABLE_KEYS, "movablekeys"},
    {CMD_ALLOW_BUSY, "allow_busy"},
};

#define N_FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

/* Longest ACL category token written ("@sortedset" and the like are far shorter). */
#define ACL_TOKEN_MAX 64

static int name_eq(const uint8_t *p, size_t len, const char *name)
{
    return strlen(name) == len && strncasecmp((const char *)p, name, len) == 0;
}

/* A command by name, or a subcommand by "container|sub" (Redis's lookupCommandBySds). */
static const struct cmd_def *lookup_full(const struct cmd_server *srv, const uint8_t *p,
                                         size_t len)
{
    const uint8_t *bar = memchr(p, '|', len);
    const struct cmd_def *d;

    if (bar == NULL) {
        return cmd_lookup(srv, p, len);
    }
    d = cmd_lookup(srv, p, (size_t)(bar - p));
    if (d == NULL || d->subcmds == NULL) {
        return NULL;
    }
    for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
        if (name_eq(p, len, s->name)) {
            return s;
        }
    }
    return NULL;
}

/* Calls fn for each space-separated token of an ACL string. Returns the count. */
static size_t acl_each(const char *acl, void (*fn)(void *arg, const char *tok, size_t n),
                       void *arg)
{
    size_t count = 0;

    while (acl != NULL && *acl != '\0') {
        size_t n;
        while (*acl == ' ') {
            acl++;
        }
        n = strcspn(acl, " ");
        if (n > 0) {
            if (fn != NULL) {
                fn(arg, acl, n);
            }
            count++;
        }
        acl += n;
    }
    return count;
}

static void acl_write(void *arg, const char *tok, size_t n)
{
    char buf[ACL_TOKEN_MAX + 1];

    if (n > ACL_TOKEN_MAX) {
        n = ACL_TOKEN_MAX;
    }
    memcpy(buf, tok, n);
    buf[n] = '\0';
    /* Redis writes categories as status replies: "+@read". */
    resp_write_simple(arg, buf);
}

static void write_info(struct resp_out *out, const struct cmd_def *d)
{
    size_t n_flags = 0;

    resp_write_array(out, 10);
    resp_write_cstr(out, d->name);
    resp_write_int(out, d->arity);
    for (size_t i = 0; i < N_FLAG_NAMES; i++) {
        n_flags += (d->flags & flag_names[i].flag) != 0;
    }
    resp_write_set(out, n_flags);
    for (size_t i = 0; i < N_FLAG_NAMES; i++) {
        if (d->flags & flag_names[i].flag) {
            resp_write_simple(out, flag_names[i].name);
        }
    }
    resp_write_int(out, d->first_key);
    resp_write_int(out, d->last_key);
    resp_write_int(out, d->key_step);
    resp_write_set(out, acl_each(d->acl, NULL, NULL));
    acl_each(d->acl, acl_write, out);
    resp_write_set(out, 0); /* tips */
    resp_write_set(out, 0); /* key specs */
    if (d->subcmds == NULL) {
        resp_write_set(out, 0);
        return;
    }
    resp_write_array(out, cmd_subcmd_count(d->subcmds));
    for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
        write_info(out, s);
    }
}

static void write_docs(struct resp_out *out, const struct cmd_def *d)
{
    size_t n = (d->summary != NULL) + (d->since != NULL) + (d->group != NULL) +
               (d->subcmds != NULL);

    resp_write_map(out, n);
    if (d->summary != NULL) {
        resp_write_cstr(out, "summary");
        resp_write_cstr(out, d->summary);
    }
    if (d->since != NULL) {
        resp_write_cstr(out, "since");
        resp_write_cstr(out, d->since);
    }
    if (d->group != NULL) {
        resp_write_cstr(out, "group");
        resp_write_cstr(out, d->group);
    }
    if (d->subcmds != NULL) {
        resp_write_cstr(out, "subcommands");
        resp_write_map(out, cmd_subcmd_count(d->subcmds));
        for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
            resp_write_cstr(out, s->name);
            write_docs(out, s);
        }
    }
}

static void write_all_info(struct cmd_call *c)
{
    size_t n = cmd_table_count(c->srv);

    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        write_info(c->out, cmd_table_at(c->srv, i));
    }
}

void cmd_command_proc(struct cmd_call *c)
{
    write_all_info(c);
}

void cmd_command_count_proc(struct cmd_call *c)
{
    resp_write_int(c->out, (long long)cmd_table_count(c->srv));
}

void cmd_command_info_proc(struct cmd_call *c)
{
    if (c->argc == 2) {
        write_all_info(c);
        return;
    }
    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        const struct cmd_def *d = lookup_full(c->srv, c->argv[i].p, c->argv[i].len);
        if (d == NULL) {
            resp_write_null(c->out);
        } else {
            write_info(c->out, d);
        }
    }
}

void cmd_command_docs_proc(struct cmd_call *c)
{
    if (c->argc == 2) {
        size_t n = cmd_table_count(c->srv);
        resp_write_map(c->out, n);
        for (size_t i = 0; i < n; i++) {
            const struct cmd_def *d = cmd_table_at(c->srv, i);
            resp_write_cstr(c->out, d->name);
            write_docs(c->out, d);
        }
        return;
    }
    {
        size_t at = resp_write_deferred_begin(c->out), n = 0;
        for (size_t i = 2; i < c->argc; i++) {
            const struct cmd_def *d = lookup_full(c->srv, c->argv[i].p, c->argv[i].len);
            if (d == NULL) {
                continue; /* unknown names are left out, as Redis does */
            }
            resp_write_cstr(c->out, d->name);
            write_docs(c->out, d);
            n++;
        }
        resp_write_deferred_end(c->out, at, '%', n);
    }
}

/* ---- COMMAND LIST ------------------------------------------------------------------------ */

enum list_filter { LIST_ALL, LIST_MODULE, LIST_ACLCAT, LIST_PATTERN };

struct acl_match {
    const struct resp_slice *cat;
    int found;
};

static void acl_match_tok(void *arg, const char *tok, size_t n)
{
    struct acl_match *m = arg;

    /* Tokens are "@cat"; the filter names the category without '@', in any case. */
    if (n > 1 && tok[0] == '@' && n - 1 == m->cat->len &&
        strncasecmp(tok + 1, (const char *)m->cat->p, n - 1) == 0) {
        m->found = 1;
    }
}

static int list_match(enum list_filter f, const struct resp_slice *arg, const struct cmd_def *d)
{
    struct acl_match m = {arg, 0};

    switch (f) {
    case LIST_ALL:
        return 1;
    case LIST_MODULE:
        return 0; /* terse has no modules */
    case LIST_ACLCAT:
        acl_each(d->acl, acl_match_tok, &m);
        return m.found;
    case LIST_PATTERN:
        return cmd_glob_match(arg->p, arg->len, (const uint8_t *)d->name, strlen(d->name), 1);
    }
    return 0;
}

void cmd_command_list_proc(struct cmd_call *c)
{
    enum list_filter f = LIST_ALL;
    const struct resp_slice *arg = NULL;
    size_t at, n = 0, n_cmds = cmd_table_count(c->srv);

    if (c->argc == 5 && cmd_arg_is(c, 2, "filterby")) {
        arg = &c->argv[4];
        if (cmd_arg_is(c, 3, "module")) {
            f = LIST_MODULE;
        } else if (cmd_arg_is(c, 3, "aclcat")) {
            f = LIST_ACLCAT;
        } else if (cmd_arg_is(c, 3, "pattern")) {
            f = LIST_PATTERN;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    } else if (c->argc != 2) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    at = resp_write_deferred_begin(c->out);
    for (size_t i = 0; i < n_cmds; i++) {
        const struct cmd_def *d = cmd_table_at(c->srv, i);
        if (list_match(f, arg, d)) {
            resp_write_cstr(c->out, d->name);
            n++;
        }
        for (const struct cmd_def *s = d->subcmds; s != NULL && s->name != NULL; s++) {
            if (list_match(f, arg, s)) {
                resp_write_cstr(c->out, s->name);
                n++;
            }
        }
    }
    resp_write_deferred_end(c->out, at, '*', n);
}

/* ---- COMMAND GETKEYS, HELP --------------------------------------------------------------- */

void cmd_command_getkeys_proc(struct cmd_call *c)
{
    const struct resp_slice *argv = c->argv + 2;
    size_t argc = c->argc - 2, n = 0, last, step;
    const struct cmd_def *d = cmd_resolve(c->srv, argv, argc);

    if (d == NULL) {
        cmd_reply_err(c, "ERR Invalid command specified");
        return;
    }
    if (d->first_key <= 0) {
        cmd_reply_err(c, "ERR The command has no key arguments");
        return;
    }
    if ((d->arity > 0 && (size_t)d->arity != argc) || (d->arity < 0 && argc < (size_t)-d->arity)) {
        cmd_reply_err(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    if (d->last_key < 0) {
        last = (size_t)-d->last_key <= argc ? argc - (size_t)-d->last_key : 0;
    } else {
        last = (size_t)d->last_key;
    }
    step = d->key_step > 0 ? (size_t)d->key_step : 1;
    /* As Redis with variadic commands, positions past the arguments are skipped, leaving the
     * arity or syntax error to the command itself. */
    for (size_t i = (size_t)d->first_key; i <= last && i < argc; i += step) {
        n++;
    }
    if (n == 0 && !(d->flags & CMD_NO_MANDATORY_KEYS)) {
        cmd_reply_err(c, "ERR Invalid arguments specified for command");
        return;
    }
    resp_write_array(c->out, n);
    for (size_t i = (size_t)d->first_key; i <= last && i < argc; i += step) {
        resp_write_bulk(c->out, argv[i].p, argv[i].len);
    }
}

void cmd_command_help_proc(struct cmd_call *c)
{
    static const char *const lines[] = {
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}
