/*
 * cmd_meta: what COMMAND INFO and COMMAND DOCS say about a command beyond its table row.
 *
 * The command table (struct cmd_def) holds what dispatch needs plus summary, since and group.
 * Redis 7.0 also reports, per command, tips and key specs (COMMAND INFO) and complexity, doc
 * flags, deprecation, history and the argument tree (COMMAND DOCS). Those live here, with
 * Redis's own summary/since/group (what DOCS answers, whatever a row says), in one
 * read-only table keyed by the full command name ("get", "client|list"), generated from
 * Redis 7.0.15 by tools/gen_cmd_meta.py into cmd_meta.c. A command without a row has none of
 * them (empty tips and key specs, docs of summary/since/group only).
 *
 *   struct cmd_meta ──┬─ tips ──────► "request_policy:all_shards", ...     (n_tips)
 *                     ├─ keyspecs ──► {flags, begin_search, find_keys}     (n_keyspecs)
 *                     ├─ history ───► {"6.2.0", "Added the ..."}           (n_history)
 *                     └─ args ──────► {name, type, ..., child, n_args}     (n_args)
 *                                      └─ cmd_meta_children(arg) ─► n_args more args
 *
 * All data is static and constant: any thread may read it.
 */
#ifndef TERSE_CMD_META_H
#define TERSE_CMD_META_H

#include <stddef.h>
#include <stdint.h>

/* Key-spec flags, in the order Redis 7.0 lists them. */
enum cmd_ks_flags {
    CMD_KS_RO = 1 << 0,
    CMD_KS_RW = 1 << 1,
    CMD_KS_OW = 1 << 2,
    CMD_KS_RM = 1 << 3,
    CMD_KS_ACCESS = 1 << 4,
    CMD_KS_UPDATE = 1 << 5,
    CMD_KS_INSERT = 1 << 6,
    CMD_KS_DELETE = 1 << 7,
    CMD_KS_NOT_KEY = 1 << 8,
    CMD_KS_INCOMPLETE = 1 << 9,
    CMD_KS_VARIABLE_FLAGS = 1 << 10
};

/* Number of cmd_ks_flags, for name tables. */
#define CMD_KS_N_FLAGS 11

/* How a key spec finds its first key. */
enum cmd_ks_bs { CMD_KS_BS_UNKNOWN, CMD_KS_BS_INDEX, CMD_KS_BS_KEYWORD };

/* How it finds the keys from there. */
enum cmd_ks_fk { CMD_KS_FK_UNKNOWN, CMD_KS_FK_RANGE, CMD_KS_FK_KEYNUM };

struct cmd_keyspec {
    const char *notes;      /* NULL when none */
    uint16_t flags;         /* enum cmd_ks_flags */
    uint8_t bs_type;        /* enum cmd_ks_bs */
    const char *bs_keyword; /* KEYWORD: the keyword (upper case); else NULL */
    int bs_pos;             /* INDEX: argument index; KEYWORD: startfrom (< 0 from the end) */
    uint8_t fk_type;        /* enum cmd_ks_fk */
    /* RANGE: lastkey (relative to the first key; < 0 from the end), keystep, limit.
     * KEYNUM: keynumidx, firstkey (both relative to the begin_search match), keystep. */
    int fk[3];
};

struct cmd_history {
    const char *version; /* e.g. "6.2.0" */
    const char *text;
};

enum cmd_arg_type {
    CMD_ARG_STRING,
    CMD_ARG_INTEGER,
    CMD_ARG_DOUBLE,
    CMD_ARG_KEY,
    CMD_ARG_PATTERN,
    CMD_ARG_UNIX_TIME,
    CMD_ARG_PURE_TOKEN,
    CMD_ARG_ONEOF,
    CMD_ARG_BLOCK
};

enum cmd_arg_flags { CMD_ARG_OPTIONAL = 1, CMD_ARG_MULTIPLE = 2, CMD_ARG_MULTIPLE_TOKEN = 4 };

enum cmd_doc_flags { CMD_DOC_DEPRECATED = 1, CMD_DOC_SYSCMD = 2 };

/* One node of a command's argument tree (COMMAND DOCS "arguments"). */
struct cmd_arg {
    const char *name;
    uint8_t type;           /* enum cmd_arg_type */
    uint8_t flags;          /* enum cmd_arg_flags */
    int8_t key_spec_index;  /* index into the command's key specs; -1 when none */
    const char *display_text, *token, *summary, *since, *deprecated_since; /* NULL: absent */
    uint16_t child;         /* first child, for cmd_meta_children; 0 when n_args == 0 */
    uint16_t n_args;        /* number of children (ONEOF and BLOCK only) */
};

struct cmd_meta {
    const char *name;             /* full name, lower case: "get", "client|list" */
    const char *summary;          /* Redis's docs text; preferred over the table row's */
    const char *since;            /* NULL: absent (also for the next two) */
    const char *group;
    const char *complexity;       /* NULL: absent */
    uint8_t doc_flags;            /* enum cmd_doc_flags */
    const char *deprecated_since; /* NULL: absent */
    const char *replaced_by;      /* NULL: absent */
    const char *const *tips;
    size_t n_tips;
    const struct cmd_keyspec *keyspecs;
    size_t n_keyspecs;
    const struct cmd_history *history;
    size_t n_history;
    const struct cmd_arg *args;
    size_t n_args;
};

/* The metadata of a command by full name (lower case, "container|sub" for a subcommand),
 * or NULL when there is none. name: borrowed. Binary search; does not allocate. */
const struct cmd_meta *cmd_meta_find(const char *name);

/* The n_args children of an argument of ONEOF or BLOCK type (a borrowed view of static
 * data). Only meaningful when a->n_args > 0. */
const struct cmd_arg *cmd_meta_children(const struct cmd_arg *a);

#endif /* TERSE_CMD_META_H */
