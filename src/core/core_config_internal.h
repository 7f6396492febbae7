/*
 * core_config_internal: the option descriptors and helpers shared by the core_config*.c files;
 * only those files include this header.
 *
 * Every source of values ends in one function, core_config_opt_apply(), which parses the
 * words of one directive into the field of struct core_config its descriptor names:
 *
 *   file / string --split lines, core_config_words_split--> words --+
 *   command line  --rebuilt as config lines-------------------------+--> core_config_opt_apply
 *   CONFIG SET    --split multi-word values on ' '------------------+       |
 *   defaults      --the DEFAULT column, as one word-----------------+       v
 *                                                                  struct core_config field
 *
 * One job a file:
 *   core_config.c          the descriptor table, the value parsers, core_config_opt_apply
 *   core_config_load.c     config file, config string and command line: lines, words, errors
 *   core_config_runtime.c  init (the defaults), deinit, copy; CONFIG SET and CONFIG GET
 *
 * Invariants: after core_config_init every STR field is a non-NULL string from core_mem and
 * bind.addr[0, n_addr) are too; core_config_opt_apply never leaves a field half-written (it
 * builds the new value first, then swaps), so a failed directive keeps the old value.
 */
#ifndef TERSE_CORE_CONFIG_INTERNAL_H
#define TERSE_CORE_CONFIG_INTERNAL_H

#include "core/core_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The KIND column of CORE_CONFIG_OPTIONS (core_config.h describes each). */
enum core_config_kind {
    CORE_CONFIG_KIND_BOOL,
    CORE_CONFIG_KIND_INT,
    CORE_CONFIG_KIND_CLAMP,
    CORE_CONFIG_KIND_MEM,
    CORE_CONFIG_KIND_STR,
    CORE_CONFIG_KIND_ENUM,
    CORE_CONFIG_KIND_BIND,
    CORE_CONFIG_KIND_SAVE,
    CORE_CONFIG_KIND_OBUF,
    CORE_CONFIG_KIND_NOTIFY,
    CORE_CONFIG_KIND_HOSTPORT /* "host port" kept as one string (replicaof); "" when unset */
};

/* True for the kinds held as an owned string (STR, HOSTPORT). */
#define CORE_CONFIG_KIND_IS_STR(k) ((k) == CORE_CONFIG_KIND_STR || (k) == CORE_CONFIG_KIND_HOSTPORT)

/* One row of CORE_CONFIG_OPTIONS, as data. */
struct core_config_opt {
    const char *name;
    enum core_config_kind kind;
    size_t off;               /* offsetof the field in struct core_config */
    const char *dflt;         /* default, as config-file text */
    long long imin, imax;     /* INT: accepted range; CLAMP: clamp range */
    uint64_t umin, umax;      /* MEM: accepted range */
    const char *const *names; /* ENUM: NULL-terminated names; else NULL */
    unsigned flags;           /* CORE_CONFIG_* */
};

/* Every option, in table order (core_config.c); core_config_n_opts rows. */
extern const struct core_config_opt core_config_opts[];
extern const size_t core_config_n_opts;

/* One row of CORE_CONFIG_ALIASES, as data: a second name of the option whose field is at off.
 * Invariants: an option has that field (each option has its own field, so exactly one;
 * asserted where resolved); no alias is the name of an option or of another alias (checked
 * by test_core_config, as core_config_opt_find would never reach such a row). */
struct core_config_alias {
    const char *name;
    size_t off; /* offsetof the field in struct core_config, as core_config_opt.off */
};

/* Every alias, in table order (core_config.c); core_config_n_aliases rows. */
extern const struct core_config_alias core_config_aliases[];
extern const size_t core_config_n_aliases;

/* Field access through the descriptor; the void * step keeps -Wcast-align quiet, and offsetof
 * of a member of that type guarantees the alignment. */
#define CORE_CONFIG_PTR(c, o, type) ((type *)(void *)((char *)(c) + (o)->off))
#define CORE_CONFIG_CPTR(c, o, type) ((type const *)(const void *)((const char *)(c) + (o)->off))

/* State of one load (a file, a string, a command line, one CONFIG SET pair). */
struct core_config_session {
    bool save_seen; /* a "save" directive was applied in this session already */
};

/* The words of one line: `buf` holds them NUL-separated, `v[0, n)` point into it. */
struct core_config_words {
    size_t n;
    char **v;
    char *buf;
};

/* ASCII lower case, whatever the locale. */
static inline int core_config_lower(int ch)
{
    return (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch;
}

/* True for the kinds whose value is several words (BIND, SAVE, OBUF). */
static inline bool core_config_opt_multiword(const struct core_config_opt *o)
{
    return o->kind == CORE_CONFIG_KIND_BIND || o->kind == CORE_CONFIG_KIND_SAVE ||
           o->kind == CORE_CONFIG_KIND_OBUF || o->kind == CORE_CONFIG_KIND_HOSTPORT;
}

/* ---- core_config.c ------------------------------------------------------------------------ */

/* snprintf into err (err_cap bytes, truncated, NUL-terminated); no-op when err is NULL or
 * err_cap is 0. */
__attribute__((format(printf, 3, 4))) void core_config_err_fmt(char *err, size_t err_cap,
                                                               const char *fmt, ...);

/* ASCII case-insensitive string equality. */
bool core_config_str_ieq(const char *a, const char *b);

/* The descriptor of option `name` (case-insensitive; its own name or an alias), or NULL.
 * spelling: NULL, or gets the table's spelling of the name that matched: o->name or the
 * alias's name (static storage). Two lookups matched the same name iff both pointers are
 * equal. */
const struct core_config_opt *core_config_opt_find(const char *name, const char **spelling);

/* The descriptor of the option alias a names (never NULL for a table row). */
const struct core_config_opt *core_config_alias_target(const struct core_config_alias *a);

/* Applies the words of one directive (argv[0, argc), without the name; only read) to option o
 * of c, within session s. Returns TERSE_OK, TERSE_ECONFIG or TERSE_ENOMEM with the reason in
 * why (why_cap bytes). */
int core_config_opt_apply(struct core_config *c, const struct core_config_opt *o, size_t argc,
                          char **argv, struct core_config_session *s, char *why, size_t why_cap);

/* Frees the addresses b owns and empties it. */
void core_config_bind_clear(struct core_config_bind *b);

/* Appends a copy of the pair (from, to) to r. TERSE_OK, or TERSE_ENOMEM with r unchanged. */
int core_config_renames_add(struct core_config_renames *r, const char *from, const char *to);

/* Frees what r owns and empties it. */
void core_config_renames_clear(struct core_config_renames *r);

/* ---- core_config_load.c ------------------------------------------------------------------- */

/* Splits line[0, len) into w, as Redis's sdssplitargs. Returns TERSE_OK, TERSE_ENOMEM, or
 * TERSE_EPROTO (unbalanced quotes or NUL byte). On error w holds nothing. Allocates: release
 * w with core_config_words_release. */
int core_config_words_split(const char *line, size_t len, struct core_config_words *w);

/* Frees what w holds and empties it; an empty w is a no-op. */
void core_config_words_release(struct core_config_words *w);

#endif /* TERSE_CORE_CONFIG_INTERNAL_H */
