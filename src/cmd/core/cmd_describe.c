/*
 * cmd_describe: one command's COMMAND INFO entry and COMMAND DOCS map, as Redis 7.0 writes
 * them (field order, reply types; RESP2 flattening is resp_write's).
 *
 * The table row (struct cmd_def) gives name, arity, flags, key positions and ACL categories;
 * cmd_meta gives tips, key specs and the docs (summary, since, group, complexity, doc flags,
 * deprecation, history, argument tree). A command without metadata gets empty tips and key
 * specs and docs of its row's summary/since/group only.
 */
#include "cmd/core/cmd_describe.h"

#include <assert.h>
#include <string.h>

#include "cmd/core/cmd_meta.h"
#include "cmd/core/cmd_table.h"

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

/* Names of enum cmd_ks_flags, enum cmd_arg_flags, enum cmd_doc_flags and enum cmd_arg_type,
 * by bit (or value). */
static const char *const ks_flag_names[CMD_KS_N_FLAGS] = {
    "RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key", "incomplete",
    "variable_flags"};
static const char *const arg_flag_names[] = {"optional", "multiple", "multiple_token"};
static const char *const doc_flag_names[] = {"deprecated", "syscmd"};
static const char *const arg_type_names[] = {"string",    "integer",    "double",
                                             "key",       "pattern",    "unix-time",
                                             "pure-token", "oneof",     "block"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Longest ACL category token written ("@sortedset" and the like are far shorter). */
#define ACL_TOKEN_MAX 64

size_t cmd_describe_acl_each(const char *acl, void (*fn)(void *arg, const char *tok, size_t n),
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

/* A set of status strings, one per bit of flags set, named by names[bit]. */
static void write_flag_set(struct resp_out *out, unsigned flags, const char *const *names,
                           size_t n_names)
{
    size_t n = 0;

    for (size_t i = 0; i < n_names; i++) {
        n += (flags >> i) & 1u;
    }
    resp_write_set(out, n);
    for (size_t i = 0; i < n_names; i++) {
        if ((flags >> i) & 1u) {
            resp_write_simple(out, names[i]);
        }
    }
}

/* A map of n (name, integer) pairs. */
static void write_int_map(struct resp_out *out, size_t n, const char *const *names,
                          const int *values)
{
    resp_write_map(out, n);
    for (size_t i = 0; i < n; i++) {
        resp_write_cstr(out, names[i]);
        resp_write_int(out, values[i]);
    }
}

static void write_keyspec(struct resp_out *out, const struct cmd_keyspec *ks)
{
    static const char *const range[] = {"lastkey", "keystep", "limit"};
    static const char *const keynum[] = {"keynumidx", "firstkey", "keystep"};
    static const char *const index[] = {"index"};

    resp_write_map(out, 3 + (ks->notes != NULL));
    if (ks->notes != NULL) {
        resp_write_cstr(out, "notes");
        resp_write_cstr(out, ks->notes);
    }
    resp_write_cstr(out, "flags");
    write_flag_set(out, ks->flags, ks_flag_names, CMD_KS_N_FLAGS);
    resp_write_cstr(out, "begin_search");
    resp_write_map(out, 2);
    resp_write_cstr(out, "type");
    if (ks->bs_type == CMD_KS_BS_INDEX) {
        resp_write_cstr(out, "index");
        resp_write_cstr(out, "spec");
        write_int_map(out, 1, index, &ks->bs_pos);
    } else if (ks->bs_type == CMD_KS_BS_KEYWORD) {
        resp_write_cstr(out, "keyword");
        resp_write_cstr(out, "spec");
        resp_write_map(out, 2);
        resp_write_cstr(out, "keyword");
        resp_write_cstr(out, ks->bs_keyword);
        resp_write_cstr(out, "startfrom");
        resp_write_int(out, ks->bs_pos);
    } else {
        resp_write_cstr(out, "unknown");
        resp_write_cstr(out, "spec");
        resp_write_map(out, 0);
    }
    resp_write_cstr(out, "find_keys");
    resp_write_map(out, 2);
    resp_write_cstr(out, "type");
    resp_write_cstr(out, ks->fk_type == CMD_KS_FK_RANGE    ? "range"
                         : ks->fk_type == CMD_KS_FK_KEYNUM ? "keynum"
                                                           : "unknown");
    resp_write_cstr(out, "spec");
    write_int_map(out, ks->fk_type == CMD_KS_FK_UNKNOWN ? 0 : 3,
                  ks->fk_type == CMD_KS_FK_RANGE ? range : keynum, ks->fk);
}

void cmd_describe_info(struct resp_out *out, const struct cmd_def *d)
{
    const struct cmd_meta *m = cmd_meta_find(d->name);
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
    resp_write_set(out, cmd_describe_acl_each(d->acl, NULL, NULL));
    cmd_describe_acl_each(d->acl, acl_write, out);
    resp_write_set(out, m != NULL ? m->n_tips : 0);
    for (size_t i = 0; m != NULL && i < m->n_tips; i++) {
        resp_write_cstr(out, m->tips[i]);
    }
    resp_write_set(out, m != NULL ? m->n_keyspecs : 0);
    for (size_t i = 0; m != NULL && i < m->n_keyspecs; i++) {
        write_keyspec(out, &m->keyspecs[i]);
    }
    if (d->subcmds == NULL) {
        resp_write_set(out, 0);
        return;
    }
    resp_write_array(out, cmd_subcmd_count(d->subcmds));
    for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
        cmd_describe_info(out, s);
    }
}

static void write_field(struct resp_out *out, const char *name, const char *value)
{
    if (value != NULL) {
        resp_write_cstr(out, name);
        resp_write_cstr(out, value);
    }
}

/* An argument tree, depth first. The depth is that of the static metadata (a few levels). */
static void write_args(struct resp_out *out, const struct cmd_arg *args, size_t n_args)
{
    resp_write_array(out, n_args);
    for (size_t i = 0; i < n_args; i++) {
        const struct cmd_arg *a = &args[i];
        size_t n = 2 + (a->display_text != NULL) + (a->key_spec_index >= 0) +
                   (a->token != NULL) + (a->summary != NULL) + (a->since != NULL) +
                   (a->deprecated_since != NULL) + (a->flags != 0) + (a->n_args > 0);
        assert(a->type < N_OF(arg_type_names));
        resp_write_map(out, n);
        write_field(out, "name", a->name);
        write_field(out, "type", arg_type_names[a->type]);
        write_field(out, "display_text", a->display_text);
        if (a->key_spec_index >= 0) {
            resp_write_cstr(out, "key_spec_index");
            resp_write_int(out, a->key_spec_index);
        }
        write_field(out, "token", a->token);
        write_field(out, "summary", a->summary);
        write_field(out, "since", a->since);
        write_field(out, "deprecated_since", a->deprecated_since);
        if (a->flags != 0) {
            resp_write_cstr(out, "flags");
            write_flag_set(out, a->flags, arg_flag_names, N_OF(arg_flag_names));
        }
        if (a->n_args > 0) {
            resp_write_cstr(out, "arguments");
            write_args(out, cmd_meta_children(a), a->n_args);
        }
    }
}

/* The fields of cmd_meta in a DOCS map, in Redis's order (between group and subcommands). */
static void write_meta_docs(struct resp_out *out, const struct cmd_meta *m)
{
    write_field(out, "complexity", m->complexity);
    if (m->doc_flags != 0) {
        resp_write_cstr(out, "doc_flags");
        write_flag_set(out, m->doc_flags, doc_flag_names, N_OF(doc_flag_names));
    }
    write_field(out, "deprecated_since", m->deprecated_since);
    write_field(out, "replaced_by", m->replaced_by);
    if (m->n_history > 0) {
        resp_write_cstr(out, "history");
        resp_write_set(out, m->n_history);
        for (size_t i = 0; i < m->n_history; i++) {
            resp_write_array(out, 2);
            resp_write_cstr(out, m->history[i].version);
            resp_write_cstr(out, m->history[i].text);
        }
    }
    if (m->n_args > 0) {
        resp_write_cstr(out, "arguments");
        write_args(out, m->args, m->n_args);
    }
}

void cmd_describe_docs(struct resp_out *out, const struct cmd_def *d)
{
    const struct cmd_meta *m = cmd_meta_find(d->name);
    const char *summary = m != NULL ? m->summary : d->summary;
    const char *since = m != NULL ? m->since : d->since;
    const char *group = m != NULL ? m->group : d->group;
    size_t n = (summary != NULL) + (since != NULL) + (group != NULL) + (d->subcmds != NULL);

    if (m != NULL) {
        n += (m->complexity != NULL) + (m->doc_flags != 0) + (m->deprecated_since != NULL) +
             (m->replaced_by != NULL) + (m->n_history > 0) + (m->n_args > 0);
    }
    resp_write_map(out, n);
    write_field(out, "summary", summary);
    write_field(out, "since", since);
    write_field(out, "group", group);
    if (m != NULL) {
        write_meta_docs(out, m);
    }
    if (d->subcmds != NULL) {
        resp_write_cstr(out, "subcommands");
        resp_write_map(out, cmd_subcmd_count(d->subcmds));
        for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
            resp_write_cstr(out, s->name);
            cmd_describe_docs(out, s);
        }
    }
}

void cmd_describe_ks_flags(struct resp_out *out, unsigned flags)
{
    write_flag_set(out, flags, ks_flag_names, CMD_KS_N_FLAGS);
}
