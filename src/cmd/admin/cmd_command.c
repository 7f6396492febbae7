/*
 * cmd_command: COMMAND, COMMAND COUNT|INFO|DOCS|LIST|GETKEYS|GETKEYSANDFLAGS|HELP, in Redis
 * 7.0's shapes, byte for byte.
 *
 * COMMAND INFO, per command, a 10-element array:
 *   name, arity, flags (set of status strings), first key, last key, key step,
 *   ACL categories (set of "+@cat"), tips (set), key specs (set of maps), subcommands
 *   (array of the same 10-element arrays; an empty set when there are none).
 * COMMAND DOCS, per command, a map: summary, since, group, complexity, doc_flags,
 * deprecated_since, replaced_by, history, arguments, subcommands (each only when present).
 * The table row gives name, arity, flags, key positions and ACL categories; the rest comes
 * from cmd_meta (see cmd_describe.c; the row's summary/since/group without it). RESP2
 * flattens maps and sets into arrays as Redis does. Names may be given as "container|sub".
 *
 * Commands come in the table's name order (Redis's order is its hash table's, i.e. none).
 */
#include <string.h>
#include <strings.h>

#include "cmd/core/cmd_describe.h"
#include "cmd/core/cmd_keyspec.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_table.h"
#include "cmd/core/cmd_glob.h"


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

static void write_all_info(struct cmd_call *c)
{
    size_t n = cmd_table_count(c->srv);

    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        cmd_describe_info(c->out, cmd_table_at(c->srv, i));
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
            cmd_describe_info(c->out, d);
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
            cmd_describe_docs(c->out, d);
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
            cmd_describe_docs(c->out, d);
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
        cmd_describe_acl_each(d->acl, acl_match_tok, &m);
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

/* ---- COMMAND GETKEYS, GETKEYSANDFLAGS, HELP ---------------------------------------------- */

static void key_write(void *arg, size_t pos, unsigned flags)
{
    struct cmd_call *c = arg;

    (void)flags;
    resp_write_bulk(c->out, c->argv[2 + pos].p, c->argv[2 + pos].len);
}

static void key_write_flags(void *arg, size_t pos, unsigned flags)
{
    struct cmd_call *c = arg;

    resp_write_array(c->out, 2);
    resp_write_bulk(c->out, c->argv[2 + pos].p, c->argv[2 + pos].len);
    cmd_describe_ks_flags(c->out, flags);
}

/* COMMAND GETKEYS and GETKEYSANDFLAGS (Redis's getKeysSubcommandImpl). */
static void getkeys(struct cmd_call *c, cmd_keyspec_visit *visit)
{
    const struct resp_slice *argv = c->argv + 2;
    size_t argc = c->argc - 2, n;
    const struct cmd_def *d = cmd_resolve(c->srv, argv, argc);

    if (d == NULL) {
        cmd_reply_err(c, "ERR Invalid command specified");
        return;
    }
    if (!cmd_keyspec_has_keys(d)) {
        cmd_reply_err(c, "ERR The command has no key arguments");
        return;
    }
    if ((d->arity > 0 && (size_t)d->arity != argc) || (d->arity < 0 && argc < (size_t)-d->arity)) {
        cmd_reply_err(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    n = cmd_keyspec_keys(d, argv, argc, NULL, NULL);
    if (n == 0 && !(d->flags & CMD_NO_MANDATORY_KEYS)) {
        cmd_reply_err(c, "ERR Invalid arguments specified for command");
        return;
    }
    resp_write_array(c->out, n);
    cmd_keyspec_keys(d, argv, argc, visit, c);
}

void cmd_command_getkeys_proc(struct cmd_call *c)
{
    getkeys(c, key_write);
}

void cmd_command_getkeysandflags_proc(struct cmd_call *c)
{
    getkeys(c, key_write_flags);
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
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}
