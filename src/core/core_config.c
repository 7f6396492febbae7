/*
 * core_config: the option descriptor table and the parsing of one directive's words into the
 * field it names. core_config_internal.h draws how the other core_config*.c files feed it.
 *
 * CORE_CONFIG_OPTIONS (core_config.h) expands here into core_config_opts[], one const
 * descriptor per option: name, kind, offset of its field, default text, range, enum names,
 * flags; CORE_CONFIG_ALIASES into core_config_aliases[], which core_config_opt_find() resolves
 * to those descriptors, so every reader of names accepts an alias alike.
 * core_config_opt_apply() checks a directive's words against its option's kind with
 * Redis's rules (string2ll for integers, memtoull units for sizes, yes/no, enum names) and
 * stores the value. It is kept apart from the text readers and CONFIG SET/GET because it is
 * the one place that knows what a valid value is; every source of values shares it.
 */
#include "core/core_config.h"

#include "core/core_config_internal.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the descriptor table ------------------------------------------------------------------ */

/* Names of ENUM kinds, in the order of their C enums (and of Redis's error text). */
static const char *const names_loglevel[] = {"debug", "verbose", "notice", "warning", NULL};
static const char *const names_policy[] = {"volatile-lru",   "volatile-lfu",   "volatile-random",
                                           "volatile-ttl",   "allkeys-lru",    "allkeys-lfu",
                                           "allkeys-random", "noeviction",     NULL};
static const char *const names_access[] = {"no", "yes", "local", NULL};
static const char *const names_supervised[] = {"upstart", "systemd", "auto", "no", NULL};
static const char *const names_s3checksum[] = {"crc32c", "crc32", "crc64nvme", "sha1", "sha256",
                                               NULL};

static const char *const names_fsync[] = {"always", "everysec", "no", NULL};
_Static_assert(sizeof names_fsync / sizeof *names_fsync == CORE_FSYNC_COUNT + 1,
               "appendfsync names");
static const char *const names_compression[] = {"background", "inline", "off", NULL};
_Static_assert(sizeof names_compression / sizeof *names_compression ==
                   CORE_COMPRESSION_COUNT + 1,
               "terse-compression names");
_Static_assert(sizeof names_loglevel / sizeof *names_loglevel == CORE_LOGLEVEL_COUNT + 1,
               "loglevel names");
_Static_assert(sizeof names_policy / sizeof *names_policy == CORE_POLICY_COUNT + 1,
               "policy names");
_Static_assert(sizeof names_access / sizeof *names_access == CORE_ACCESS_COUNT + 1,
               "access names");
_Static_assert(sizeof names_supervised / sizeof *names_supervised == CORE_SUPERVISED_COUNT + 1,
               "supervised names");
_Static_assert(sizeof names_s3checksum / sizeof *names_s3checksum == CORE_S3_CHECKSUM_COUNT + 1,
               "s3-checksum names");

/* Per-kind selection of the MIN/MAX/ENUMNAMES columns. */
#define OPT_I_BOOL(x) 0
#define OPT_I_INT(x) (x)
#define OPT_I_CLAMP(x) (x)
#define OPT_I_MEM(x) 0
#define OPT_I_STR(x) 0
#define OPT_I_HOSTPORT(x) 0
#define OPT_I_ENUM(x) 0
#define OPT_I_BIND(x) 0
#define OPT_I_SAVE(x) 0
#define OPT_I_OBUF(x) 0
#define OPT_I_NOTIFY(x) 0
#define OPT_U_BOOL(x) 0
#define OPT_U_INT(x) 0
#define OPT_U_CLAMP(x) 0
#define OPT_U_MEM(x) (x)
#define OPT_U_STR(x) 0
#define OPT_U_HOSTPORT(x) 0
#define OPT_U_ENUM(x) 0
#define OPT_U_BIND(x) 0
#define OPT_U_SAVE(x) 0
#define OPT_U_OBUF(x) 0
#define OPT_U_NOTIFY(x) 0
#define OPT_N_BOOL(n) NULL
#define OPT_N_INT(n) NULL
#define OPT_N_CLAMP(n) NULL
#define OPT_N_MEM(n) NULL
#define OPT_N_STR(n) NULL
#define OPT_N_HOSTPORT(n) NULL
#define OPT_N_ENUM(n) names_##n
#define OPT_N_BIND(n) NULL
#define OPT_N_SAVE(n) NULL
#define OPT_N_OBUF(n) NULL
#define OPT_N_NOTIFY(n) NULL

#define OPT_ROW(name, field, kind, dflt, min, max, names, flags)                                 \
    {name,              CORE_CONFIG_KIND_##kind, offsetof(struct core_config, field),            \
     dflt,              OPT_I_##kind(min),       OPT_I_##kind(max),                              \
     OPT_U_##kind(min), OPT_U_##kind(max),       OPT_N_##kind(names),                            \
     flags},

const struct core_config_opt core_config_opts[] = {CORE_CONFIG_OPTIONS(OPT_ROW)};
const size_t core_config_n_opts = sizeof core_config_opts / sizeof core_config_opts[0];

/* The field column makes a misspelt target a compile error; core_config_alias_target finds
 * the row by offset. */
#define ALIAS_ROW(alias, field) {alias, offsetof(struct core_config, field)},

const struct core_config_alias core_config_aliases[] = {CORE_CONFIG_ALIASES(ALIAS_ROW)};
const size_t core_config_n_aliases = sizeof core_config_aliases / sizeof core_config_aliases[0];

/* ---- small helpers ------------------------------------------------------------------------- */

void core_config_err_fmt(char *err, size_t err_cap, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || err_cap == 0) {
        return;
    }
    va_start(ap, fmt);
    (void)vsnprintf(err, err_cap, fmt, ap);
    va_end(ap);
}

bool core_config_str_ieq(const char *a, const char *b)
{
    while (*a != '\0' &&
           core_config_lower((unsigned char)*a) == core_config_lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return core_config_lower((unsigned char)*a) == core_config_lower((unsigned char)*b);
}

const struct core_config_opt *core_config_alias_target(const struct core_config_alias *a)
{
    for (size_t i = 0; i < core_config_n_opts; i++) {
        if (core_config_opts[i].off == a->off) {
            return &core_config_opts[i];
        }
    }
    assert(!"an alias names a field no option has");
    return NULL;
}

const struct core_config_opt *core_config_opt_find(const char *name, const char **spelling)
{
    for (size_t i = 0; i < core_config_n_opts; i++) {
        if (core_config_str_ieq(core_config_opts[i].name, name)) {
            if (spelling != NULL) {
                *spelling = core_config_opts[i].name;
            }
            return &core_config_opts[i];
        }
    }
    for (size_t i = 0; i < core_config_n_aliases; i++) {
        if (core_config_str_ieq(core_config_aliases[i].name, name)) {
            if (spelling != NULL) {
                *spelling = core_config_aliases[i].name;
            }
            return core_config_alias_target(&core_config_aliases[i]);
        }
    }
    return NULL;
}

/* Redis's string2ll rules: optional '-', no '+', no leading zero, no blanks, no overflow. */
static bool parse_ll(const char *s, long long *out)
{
    bool neg = false;
    unsigned long long v = 0;
    unsigned long long lim;

    if (s[0] == '0' && s[1] == '\0') {
        *out = 0;
        return true;
    }
    if (*s == '-') {
        neg = true;
        s++;
    }
    if (*s < '1' || *s > '9') {
        return false;
    }
    lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
    for (; *s != '\0'; s++) {
        unsigned d;
        if (*s < '0' || *s > '9') {
            return false;
        }
        d = (unsigned)(*s - '0');
        if (v > (lim - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    if (neg) {
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        *out = (long long)v;
    }
    return true;
}

/* Digits (leading zeros allowed) with no sign; false on overflow or no digit. Sets *end. */
static bool parse_digits(const char *s, uint64_t *out, const char **end)
{
    uint64_t v = 0;
    const char *p = s;

    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    *out = v;
    *end = p;
    return p != s;
}

/* Redis's memtoull units; unlike Redis, "" and values past 2^64-1 are refused, not 0/wrapped. */
static bool parse_mem(const char *s, uint64_t *out)
{
    static const struct {
        const char *unit;
        uint64_t mul;
    } units[] = {
        {"", 1},
        {"b", 1},
        {"k", 1000},
        {"kb", 1024},
        {"m", 1000 * 1000},
        {"mb", 1024 * 1024},
        {"g", 1000ULL * 1000 * 1000},
        {"gb", 1024ULL * 1024 * 1024},
    };
    const char *end;
    uint64_t v;

    if (!parse_digits(s, &v, &end)) {
        return false;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (core_config_str_ieq(end, units[i].unit)) {
            if (v > UINT64_MAX / units[i].mul) {
                return false;
            }
            *out = v * units[i].mul;
            return true;
        }
    }
    return false;
}

/* strtoll-like non-negative count as Redis's save and soft_seconds read them: digits only. */
static bool parse_count(const char *s, long long *out)
{
    const char *end;
    uint64_t v;

    if (!parse_digits(s, &v, &end) || *end != '\0' || v > (uint64_t)LLONG_MAX) {
        return false;
    }
    *out = (long long)v;
    return true;
}

/* ---- applying one directive -------------------------------------------------------------- */

static int apply_bool(struct core_config *c, const struct core_config_opt *o, const char *v,
                      char *why, size_t why_cap)
{
    bool b;

    if (core_config_str_ieq(v, "yes")) {
        b = true;
    } else if (core_config_str_ieq(v, "no")) {
        b = false;
    } else {
        core_config_err_fmt(why, why_cap, "argument must be 'yes' or 'no'");
        return TERSE_ECONFIG;
    }
    if (b && (o->flags & CORE_CONFIG_ONLY_NO) != 0) {
        core_config_err_fmt(why, why_cap, "'%s yes' is not supported by terse", o->name);
        return TERSE_ECONFIG;
    }
    *CORE_CONFIG_PTR(c, o, bool) = b;
    return TERSE_OK;
}

static int apply_int(struct core_config *c, const struct core_config_opt *o, const char *v,
                     char *why, size_t why_cap)
{
    long long n;
    long long lo = o->kind == CORE_CONFIG_KIND_CLAMP ? 0 : o->imin;
    long long hi = o->kind == CORE_CONFIG_KIND_CLAMP ? CORE_CONFIG_INT_MAX : o->imax;

    if (!parse_ll(v, &n)) {
        core_config_err_fmt(why, why_cap, "argument couldn't be parsed into an integer");
        return TERSE_ECONFIG;
    }
    if (n < lo || n > hi) {
        core_config_err_fmt(why, why_cap, "argument must be between %lld and %lld inclusive",
                            lo, hi);
        return TERSE_ECONFIG;
    }
    if (o->kind == CORE_CONFIG_KIND_CLAMP) {
        n = n < o->imin ? o->imin : (n > o->imax ? o->imax : n);
    }
    *CORE_CONFIG_PTR(c, o, long long) = n;
    return TERSE_OK;
}

static int apply_mem(struct core_config *c, const struct core_config_opt *o, const char *v,
                     char *why, size_t why_cap)
{
    uint64_t n;

    if (!parse_mem(v, &n)) {
        core_config_err_fmt(why, why_cap, "argument must be a memory value");
        return TERSE_ECONFIG;
    }
    if (n < o->umin || n > o->umax) {
        core_config_err_fmt(why, why_cap, "argument must be between %llu and %llu inclusive",
                            (unsigned long long)o->umin, (unsigned long long)o->umax);
        return TERSE_ECONFIG;
    }
    *CORE_CONFIG_PTR(c, o, uint64_t) = n;
    return TERSE_OK;
}

static int apply_str(struct core_config *c, const struct core_config_opt *o, const char *v,
                     char *why, size_t why_cap)
{
    char **slot = CORE_CONFIG_PTR(c, o, char *);
    char *dup;

    if ((o->flags & CORE_CONFIG_BASENAME) != 0 && strpbrk(v, "/\\") != NULL) {
        core_config_err_fmt(why, why_cap, "%s can't be a path, just a filename", o->name);
        return TERSE_ECONFIG;
    }
    dup = core_strndup(v, strlen(v));
    if (dup == NULL) {
        core_config_err_fmt(why, why_cap, "out of memory");
        return TERSE_ENOMEM;
    }
    core_free(*slot);
    *slot = dup;
    return TERSE_OK;
}

/* "host port" (replicaof): a port of 0 to 65535; "" (or "no one") unsets it. */
static int apply_hostport(struct core_config *c, const struct core_config_opt *o, size_t argc,
                          char **argv, char *why, size_t why_cap)
{
    char joined[320], *end;
    long port;

    if (argc == 0 || (argc == 1 && argv[0][0] == '\0')) {
        return apply_str(c, o, "", why, why_cap);
    }
    if (argc != 2) {
        core_config_err_fmt(why, why_cap, "wrong number of arguments");
        return TERSE_ECONFIG;
    }
    if (strcasecmp(argv[0], "no") == 0 && strcasecmp(argv[1], "one") == 0) {
        return apply_str(c, o, "", why, why_cap);
    }
    errno = 0;
    port = strtol(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || end == argv[1] || port < 0 || port > 65535 ||
        strlen(argv[0]) > 255) {
        core_config_err_fmt(why, why_cap, "Invalid master port");
        return TERSE_ECONFIG;
    }
    snprintf(joined, sizeof(joined), "%s %ld", argv[0], port);
    return apply_str(c, o, joined, why, why_cap);
}

static int apply_enum(struct core_config *c, const struct core_config_opt *o, const char *v,
                      char *why, size_t why_cap)
{
    size_t used;

    for (int i = 0; o->names[i] != NULL; i++) {
        if (core_config_str_ieq(v, o->names[i])) {
            *CORE_CONFIG_PTR(c, o, int) = i;
            return TERSE_OK;
        }
    }
    core_config_err_fmt(why, why_cap, "argument(s) must be one of the following: ");
    for (int i = 0; o->names[i] != NULL && why != NULL && why_cap > 0; i++) {
        used = strlen(why);
        core_config_err_fmt(why + used, why_cap - used, "%s%s", i == 0 ? "" : ", ", o->names[i]);
    }
    return TERSE_ECONFIG;
}

void core_config_bind_clear(struct core_config_bind *b)
{
    for (size_t i = 0; i < b->n_addr; i++) {
        core_free(b->addr[i]);
        b->addr[i] = NULL;
    }
    b->n_addr = 0;
}

int core_config_renames_add(struct core_config_renames *r, const char *from, const char *to)
{
    struct core_config_rename *v = core_realloc(r->v, (r->n + 1) * sizeof *v);
    char *f, *t;

    if (v == NULL) {
        return TERSE_ENOMEM;
    }
    r->v = v;
    f = core_strndup(from, strlen(from));
    t = core_strndup(to, strlen(to));
    if (f == NULL || t == NULL) {
        core_free(f);
        core_free(t);
        return TERSE_ENOMEM;
    }
    v[r->n].from = f;
    v[r->n].to = t;
    r->n++;
    return TERSE_OK;
}

void core_config_renames_clear(struct core_config_renames *r)
{
    for (size_t i = 0; i < r->n; i++) {
        core_free(r->v[i].from);
        core_free(r->v[i].to);
    }
    core_free(r->v);
    r->v = NULL;
    r->n = 0;
}

static bool bind_addr_ok(const char *a)
{
    if (*a == '\0') {
        return false;
    }
    for (; *a != '\0'; a++) {
        if (*a <= ' ' || *a >= 0x7f) {
            return false;
        }
    }
    return true;
}

static int apply_bind(struct core_config *c, const struct core_config_opt *o, size_t argc,
                      char **argv, char *why, size_t why_cap)
{
    struct core_config_bind nb = {0};

    if (argc == 1 && argv[0][0] == '\0') {
        argc = 0; /* bind "" : no TCP listener, as in Redis */
    }
    if (argc > CORE_CONFIG_BIND_MAX) {
        core_config_err_fmt(why, why_cap, "Too many bind addresses specified.");
        return TERSE_ECONFIG;
    }
    for (size_t i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (len > CORE_CONFIG_BIND_ADDR_MAX) {
            core_config_bind_clear(&nb);
            core_config_err_fmt(why, why_cap, "bind address too long");
            return TERSE_ECONFIG;
        }
        if (!bind_addr_ok(argv[i])) {
            /* An address is one word of visible characters: CONFIG GET joins them with
             * spaces, and CONFIG SET must read back what it gave. */
            core_config_bind_clear(&nb);
            core_config_err_fmt(why, why_cap, "Invalid bind address");
            return TERSE_ECONFIG;
        }
        nb.addr[i] = core_strndup(argv[i], len);
        if (nb.addr[i] == NULL) {
            core_config_bind_clear(&nb);
            core_config_err_fmt(why, why_cap, "out of memory");
            return TERSE_ENOMEM;
        }
        nb.n_addr = i + 1;
    }
    core_config_bind_clear(CORE_CONFIG_PTR(c, o, struct core_config_bind));
    *CORE_CONFIG_PTR(c, o, struct core_config_bind) = nb;
    return TERSE_OK;
}

static int apply_save(struct core_config *c, const struct core_config_opt *o, size_t argc,
                      char **argv, struct core_config_session *s, char *why, size_t why_cap)
{
    struct core_config_save *sv = CORE_CONFIG_PTR(c, o, struct core_config_save);
    struct core_config_save ns;

    if (argc == 1 && argv[0][0] == '\0') {
        argc = 0; /* save "" : no snapshots */
    }
    if (argc % 2 != 0) {
        core_config_err_fmt(why, why_cap, "Invalid save parameters");
        return TERSE_ECONFIG;
    }
    /* The first save of a session replaces, later ones in the same file add points. */
    ns = *sv;
    if (!s->save_seen) {
        ns.n_point = 0;
    }
    for (size_t i = 0; i < argc; i += 2) {
        struct core_config_save_point p;
        if (!parse_count(argv[i], &p.seconds) || p.seconds < 1 ||
            !parse_count(argv[i + 1], &p.changes)) {
            core_config_err_fmt(why, why_cap, "Invalid save parameters");
            return TERSE_ECONFIG;
        }
        if (ns.n_point == CORE_CONFIG_SAVE_MAX) {
            core_config_err_fmt(why, why_cap, "Too many save points (at most %d)",
                                CORE_CONFIG_SAVE_MAX);
            return TERSE_ECONFIG;
        }
        ns.point[ns.n_point++] = p;
    }
    *sv = ns;
    s->save_seen = true;
    return TERSE_OK;
}

static int apply_obuf(struct core_config *c, const struct core_config_opt *o, size_t argc,
                      char **argv, char *why, size_t why_cap)
{
    struct core_config_obuf nb = *CORE_CONFIG_PTR(c, o, struct core_config_obuf);

    if (argc % 4 != 0) {
        core_config_err_fmt(why, why_cap,
                            "Wrong number of arguments in buffer limit configuration.");
        return TERSE_ECONFIG;
    }
    for (size_t i = 0; i < argc; i += 4) {
        struct core_config_obuf_class k;
        int cls;
        if (core_config_str_ieq(argv[i], "normal")) {
            cls = CORE_CLIENT_NORMAL;
        } else if (core_config_str_ieq(argv[i], "replica") ||
                   core_config_str_ieq(argv[i], "slave")) {
            cls = CORE_CLIENT_REPLICA;
        } else if (core_config_str_ieq(argv[i], "pubsub")) {
            cls = CORE_CLIENT_PUBSUB;
        } else {
            core_config_err_fmt(why, why_cap,
                                "Invalid client class specified in buffer limit configuration.");
            return TERSE_ECONFIG;
        }
        if (!parse_mem(argv[i + 1], &k.hard_bytes) || !parse_mem(argv[i + 2], &k.soft_bytes) ||
            !parse_count(argv[i + 3], &k.soft_seconds)) {
            core_config_err_fmt(
                why, why_cap,
                "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            return TERSE_ECONFIG;
        }
        nb.cls[cls] = k;
    }
    *CORE_CONFIG_PTR(c, o, struct core_config_obuf) = nb;
    return TERSE_OK;
}

int core_config_opt_apply(struct core_config *c, const struct core_config_opt *o, size_t argc,
                          char **argv, struct core_config_session *s, char *why, size_t why_cap)
{
    switch (o->kind) {
    case CORE_CONFIG_KIND_BIND:
        return apply_bind(c, o, argc, argv, why, why_cap);
    case CORE_CONFIG_KIND_SAVE:
        return apply_save(c, o, argc, argv, s, why, why_cap);
    case CORE_CONFIG_KIND_OBUF:
        return apply_obuf(c, o, argc, argv, why, why_cap);
    case CORE_CONFIG_KIND_HOSTPORT:
        return apply_hostport(c, o, argc, argv, why, why_cap);
    default:
        break;
    }
    if (argc != 1) {
        core_config_err_fmt(why, why_cap, "wrong number of arguments");
        return TERSE_ECONFIG;
    }
    switch (o->kind) {
    case CORE_CONFIG_KIND_BOOL:
        return apply_bool(c, o, argv[0], why, why_cap);
    case CORE_CONFIG_KIND_INT:
    case CORE_CONFIG_KIND_CLAMP:
        return apply_int(c, o, argv[0], why, why_cap);
    case CORE_CONFIG_KIND_MEM:
        return apply_mem(c, o, argv[0], why, why_cap);
    case CORE_CONFIG_KIND_STR:
        return apply_str(c, o, argv[0], why, why_cap);
    case CORE_CONFIG_KIND_ENUM:
        return apply_enum(c, o, argv[0], why, why_cap);
    case CORE_CONFIG_KIND_NOTIFY:
        if (!core_config_notify_parse(argv[0], CORE_CONFIG_PTR(c, o, int))) {
            core_config_err_fmt(why, why_cap,
                                "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            return TERSE_ECONFIG;
        }
        return TERSE_OK;
    default:
        break;
    }
    return TERSE_EINVAL; /* not reached: every kind is handled above */
}
