/*
 * core_config: parsing, validation and formatting of the options listed in core_config.h.
 *
 * The option table (CORE_CONFIG_OPTIONS) expands here into `opts[]`, one const descriptor per
 * option: name, kind, offset of its field, default text, range, enum names, flags. Every
 * source of values goes through one function, opt_apply(), which parses the words of one
 * directive into the field:
 *
 *   file / string --split lines, sdssplitargs--> words --+
 *   command line  --rebuilt as config lines-------------+--> opt_apply(opt, argc, argv)
 *   CONFIG SET    --split multi-word values on ' '-------+       |
 *   defaults      --the DEFAULT column, as one word------+       v
 *                                                            struct core_config field
 *
 * Invariants: after core_config_init every STR field is a non-NULL string from core_mem and
 * bind.addr[0, n_addr) are too; opt_apply never leaves a field half-written (it builds the
 * new value first, then swaps), so a failed directive keeps the old value.
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the descriptor table ------------------------------------------------------------------ */

enum opt_kind {
    KIND_BOOL,
    KIND_INT,
    KIND_CLAMP,
    KIND_MEM,
    KIND_STR,
    KIND_ENUM,
    KIND_BIND,
    KIND_SAVE,
    KIND_OBUF
};

/* Names of ENUM kinds, in the order of their C enums (and of Redis's error text). */
static const char *const names_loglevel[] = {"debug", "verbose", "notice", "warning", NULL};
static const char *const names_policy[] = {"volatile-lru",   "volatile-lfu",   "volatile-random",
                                           "volatile-ttl",   "allkeys-lru",    "allkeys-lfu",
                                           "allkeys-random", "noeviction",     NULL};
static const char *const names_access[] = {"no", "yes", "local", NULL};
static const char *const names_supervised[] = {"upstart", "systemd", "auto", "no", NULL};
static const char *const names_s3checksum[] = {"crc32c", "crc32", "crc64nvme", "sha1", "sha256",
                                               NULL};

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

struct opt {
    const char *name;
    enum opt_kind kind;
    size_t off;               /* offsetof the field in struct core_config */
    const char *dflt;         /* default, as config-file text */
    long long imin, imax;     /* INT: accepted range; CLAMP: clamp range */
    uint64_t umin, umax;      /* MEM: accepted range */
    const char *const *names; /* ENUM: NULL-terminated names; else NULL */
    unsigned flags;           /* CORE_CONFIG_* */
};

/* Per-kind selection of the MIN/MAX/ENUMNAMES columns. */
#define OPT_I_BOOL(x) 0
#define OPT_I_INT(x) (x)
#define OPT_I_CLAMP(x) (x)
#define OPT_I_MEM(x) 0
#define OPT_I_STR(x) 0
#define OPT_I_ENUM(x) 0
#define OPT_I_BIND(x) 0
#define OPT_I_SAVE(x) 0
#define OPT_I_OBUF(x) 0
#define OPT_U_BOOL(x) 0
#define OPT_U_INT(x) 0
#define OPT_U_CLAMP(x) 0
#define OPT_U_MEM(x) (x)
#define OPT_U_STR(x) 0
#define OPT_U_ENUM(x) 0
#define OPT_U_BIND(x) 0
#define OPT_U_SAVE(x) 0
#define OPT_U_OBUF(x) 0
#define OPT_N_BOOL(n) NULL
#define OPT_N_INT(n) NULL
#define OPT_N_CLAMP(n) NULL
#define OPT_N_MEM(n) NULL
#define OPT_N_STR(n) NULL
#define OPT_N_ENUM(n) names_##n
#define OPT_N_BIND(n) NULL
#define OPT_N_SAVE(n) NULL
#define OPT_N_OBUF(n) NULL

#define OPT_ROW(name, field, kind, dflt, min, max, names, flags)                                 \
    {name,         KIND_##kind,      offsetof(struct core_config, field),                        \
     dflt,         OPT_I_##kind(min), OPT_I_##kind(max),                                         \
     OPT_U_##kind(min), OPT_U_##kind(max), OPT_N_##kind(names),                                  \
     flags},

static const struct opt opts[] = {CORE_CONFIG_OPTIONS(OPT_ROW)};
#define N_OPTS (sizeof opts / sizeof opts[0])

/* Field access through the descriptor; the void * step keeps -Wcast-align quiet, and offsetof
 * of a member of that type guarantees the alignment. */
#define FIELD(c, o, type) ((type *)(void *)((char *)(c) + (o)->off))
#define CFIELD(c, o, type) ((type const *)(const void *)((const char *)(c) + (o)->off))

/* ---- small helpers ------------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static void err_fmt(char *err, size_t err_cap,
                                                          const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || err_cap == 0) {
        return;
    }
    va_start(ap, fmt);
    (void)vsnprintf(err, err_cap, fmt, ap);
    va_end(ap);
}

static int lower(int ch)
{
    return (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch;
}

static bool str_ieq(const char *a, const char *b)
{
    while (*a != '\0' && lower((unsigned char)*a) == lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return lower((unsigned char)*a) == lower((unsigned char)*b);
}

static const struct opt *opt_find(const char *name)
{
    for (size_t i = 0; i < N_OPTS; i++) {
        if (str_ieq(opts[i].name, name)) {
            return &opts[i];
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
        if (str_ieq(end, units[i].unit)) {
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

/* State of one load (a file, a string, a command line, one CONFIG SET pair). */
struct session {
    bool save_seen; /* a "save" directive was applied in this session already */
};

static int apply_bool(struct core_config *c, const struct opt *o, const char *v, char *why,
                      size_t why_cap)
{
    bool b;

    if (str_ieq(v, "yes")) {
        b = true;
    } else if (str_ieq(v, "no")) {
        b = false;
    } else {
        err_fmt(why, why_cap, "argument must be 'yes' or 'no'");
        return TERSE_ECONFIG;
    }
    if (b && (o->flags & CORE_CONFIG_ONLY_NO) != 0) {
        err_fmt(why, why_cap, "'%s yes' is not supported by terse", o->name);
        return TERSE_ECONFIG;
    }
    *FIELD(c, o, bool) = b;
    return TERSE_OK;
}

static int apply_int(struct core_config *c, const struct opt *o, const char *v, char *why,
                     size_t why_cap)
{
    long long n;
    long long lo = o->kind == KIND_CLAMP ? 0 : o->imin;
    long long hi = o->kind == KIND_CLAMP ? CORE_CONFIG_INT_MAX : o->imax;

    if (!parse_ll(v, &n)) {
        err_fmt(why, why_cap, "argument couldn't be parsed into an integer");
        return TERSE_ECONFIG;
    }
    if (n < lo || n > hi) {
        err_fmt(why, why_cap, "argument must be between %lld and %lld inclusive", lo, hi);
        return TERSE_ECONFIG;
    }
    if (o->kind == KIND_CLAMP) {
        n = n < o->imin ? o->imin : (n > o->imax ? o->imax : n);
    }
    *FIELD(c, o, long long) = n;
    return TERSE_OK;
}

static int apply_mem(struct core_config *c, const struct opt *o, const char *v, char *why,
                     size_t why_cap)
{
    uint64_t n;

    if (!parse_mem(v, &n)) {
        err_fmt(why, why_cap, "argument must be a memory value");
        return TERSE_ECONFIG;
    }
    if (n < o->umin || n > o->umax) {
        err_fmt(why, why_cap, "argument must be between %llu and %llu inclusive",
                (unsigned long long)o->umin, (unsigned long long)o->umax);
        return TERSE_ECONFIG;
    }
    *FIELD(c, o, uint64_t) = n;
    return TERSE_OK;
}

static int apply_str(struct core_config *c, const struct opt *o, const char *v, char *why,
                     size_t why_cap)
{
    char **slot = FIELD(c, o, char *);
    char *dup;

    if ((o->flags & CORE_CONFIG_BASENAME) != 0 && strpbrk(v, "/\\") != NULL) {
        err_fmt(why, why_cap, "%s can't be a path, just a filename", o->name);
        return TERSE_ECONFIG;
    }
    dup = core_strndup(v, strlen(v));
    if (dup == NULL) {
        err_fmt(why, why_cap, "out of memory");
        return TERSE_ENOMEM;
    }
    core_free(*slot);
    *slot = dup;
    return TERSE_OK;
}

static int apply_enum(struct core_config *c, const struct opt *o, const char *v, char *why,
                      size_t why_cap)
{
    size_t used;

    for (int i = 0; o->names[i] != NULL; i++) {
        if (str_ieq(v, o->names[i])) {
            *FIELD(c, o, int) = i;
            return TERSE_OK;
        }
    }
    err_fmt(why, why_cap, "argument(s) must be one of the following: ");
    for (int i = 0; o->names[i] != NULL && why != NULL && why_cap > 0; i++) {
        used = strlen(why);
        err_fmt(why + used, why_cap - used, "%s%s", i == 0 ? "" : ", ", o->names[i]);
    }
    return TERSE_ECONFIG;
}

static void bind_clear(struct core_config_bind *b)
{
    for (size_t i = 0; i < b->n_addr; i++) {
        core_free(b->addr[i]);
        b->addr[i] = NULL;
    }
    b->n_addr = 0;
}

static int apply_bind(struct core_config *c, const struct opt *o, size_t argc, char **argv,
                      char *why, size_t why_cap)
{
    struct core_config_bind nb = {0};

    if (argc == 1 && argv[0][0] == '\0') {
        argc = 0; /* bind "" : no TCP listener, as in Redis */
    }
    if (argc > CORE_CONFIG_BIND_MAX) {
        err_fmt(why, why_cap, "Too many bind addresses specified.");
        return TERSE_ECONFIG;
    }
    for (size_t i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (len > CORE_CONFIG_BIND_ADDR_MAX) {
            bind_clear(&nb);
            err_fmt(why, why_cap, "bind address too long");
            return TERSE_ECONFIG;
        }
        nb.addr[i] = core_strndup(argv[i], len);
        if (nb.addr[i] == NULL) {
            bind_clear(&nb);
            err_fmt(why, why_cap, "out of memory");
            return TERSE_ENOMEM;
        }
        nb.n_addr = i + 1;
    }
    bind_clear(FIELD(c, o, struct core_config_bind));
    *FIELD(c, o, struct core_config_bind) = nb;
    return TERSE_OK;
}

static int apply_save(struct core_config *c, const struct opt *o, size_t argc, char **argv,
                      struct session *s, char *why, size_t why_cap)
{
    struct core_config_save *sv = FIELD(c, o, struct core_config_save);
    struct core_config_save ns;

    if (argc == 1 && argv[0][0] == '\0') {
        argc = 0; /* save "" : no snapshots */
    }
    if (argc % 2 != 0) {
        err_fmt(why, why_cap, "Invalid save parameters");
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
            err_fmt(why, why_cap, "Invalid save parameters");
            return TERSE_ECONFIG;
        }
        if (ns.n_point == CORE_CONFIG_SAVE_MAX) {
            err_fmt(why, why_cap, "Too many save points (at most %d)", CORE_CONFIG_SAVE_MAX);
            return TERSE_ECONFIG;
        }
        ns.point[ns.n_point++] = p;
    }
    *sv = ns;
    s->save_seen = true;
    return TERSE_OK;
}

static int apply_obuf(struct core_config *c, const struct opt *o, size_t argc, char **argv,
                      char *why, size_t why_cap)
{
    struct core_config_obuf nb = *FIELD(c, o, struct core_config_obuf);

    if (argc % 4 != 0) {
        err_fmt(why, why_cap, "Wrong number of arguments in buffer limit configuration.");
        return TERSE_ECONFIG;
    }
    for (size_t i = 0; i < argc; i += 4) {
        struct core_config_obuf_class k;
        int cls;
        if (str_ieq(argv[i], "normal")) {
            cls = CORE_CLIENT_NORMAL;
        } else if (str_ieq(argv[i], "replica") || str_ieq(argv[i], "slave")) {
            cls = CORE_CLIENT_REPLICA;
        } else if (str_ieq(argv[i], "pubsub")) {
            cls = CORE_CLIENT_PUBSUB;
        } else {
            err_fmt(why, why_cap, "Invalid client class specified in buffer limit configuration.");
            return TERSE_ECONFIG;
        }
        if (!parse_mem(argv[i + 1], &k.hard_bytes) || !parse_mem(argv[i + 2], &k.soft_bytes) ||
            !parse_count(argv[i + 3], &k.soft_seconds)) {
            err_fmt(why, why_cap,
                    "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            return TERSE_ECONFIG;
        }
        nb.cls[cls] = k;
    }
    *FIELD(c, o, struct core_config_obuf) = nb;
    return TERSE_OK;
}

/* Applies the words of one directive (argv[0, argc), without the name) to option o.
 * Returns TERSE_OK, TERSE_ECONFIG or TERSE_ENOMEM with the reason in why. */
static int opt_apply(struct core_config *c, const struct opt *o, size_t argc, char **argv,
                     struct session *s, char *why, size_t why_cap)
{
    switch (o->kind) {
    case KIND_BIND:
        return apply_bind(c, o, argc, argv, why, why_cap);
    case KIND_SAVE:
        return apply_save(c, o, argc, argv, s, why, why_cap);
    case KIND_OBUF:
        return apply_obuf(c, o, argc, argv, why, why_cap);
    default:
        break;
    }
    if (argc != 1) {
        err_fmt(why, why_cap, "wrong number of arguments");
        return TERSE_ECONFIG;
    }
    switch (o->kind) {
    case KIND_BOOL:
        return apply_bool(c, o, argv[0], why, why_cap);
    case KIND_INT:
    case KIND_CLAMP:
        return apply_int(c, o, argv[0], why, why_cap);
    case KIND_MEM:
        return apply_mem(c, o, argv[0], why, why_cap);
    case KIND_STR:
        return apply_str(c, o, argv[0], why, why_cap);
    case KIND_ENUM:
        return apply_enum(c, o, argv[0], why, why_cap);
    default:
        break;
    }
    return TERSE_EINVAL; /* not reached: every kind is handled above */
}

/* ---- splitting words --------------------------------------------------------------------- */

/* The words of one line: `buf` holds them NUL-separated, `v[0, n)` point into it. */
struct words {
    size_t n;
    char **v;
    char *buf;
};

static void words_release(struct words *w)
{
    core_free(w->v);
    core_free(w->buf);
    w->v = NULL;
    w->buf = NULL;
    w->n = 0;
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static int hex_val(char ch)
{
    if (ch >= '0' && ch <= '9') {
        return ch - '0';
    }
    ch = (char)lower((unsigned char)ch);
    return (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : -1;
}

/* Decodes one quoted or bare word starting at line[*i] into out (advancing *o).
 * Returns false on unbalanced quotes or an embedded NUL byte. */
static bool word_decode(const char *line, size_t len, size_t *i, char *out, size_t *o)
{
    char quote = 0;
    size_t p = *i;
    size_t start = *o;

    for (;;) {
        char ch;
        if (p == len) {
            if (quote != 0) {
                return false;
            }
            break;
        }
        ch = line[p];
        if (quote == 0) {
            if (is_blank(ch)) {
                break;
            }
            if (ch == '"' || ch == '\'') {
                quote = ch;
                p++;
                continue;
            }
            out[(*o)++] = ch;
            p++;
            continue;
        }
        if (ch == quote) {
            /* A closing quote must end the word. */
            if (p + 1 < len && !is_blank(line[p + 1])) {
                return false;
            }
            p++;
            break;
        }
        if (ch == '\\' && p + 1 < len) {
            char e = line[p + 1];
            if (quote == '"' && e == 'x' && p + 3 < len && hex_val(line[p + 2]) >= 0 &&
                hex_val(line[p + 3]) >= 0) {
                out[(*o)++] = (char)(hex_val(line[p + 2]) * 16 + hex_val(line[p + 3]));
                p += 4;
                continue;
            }
            if (quote == '"') {
                static const char from[] = "nrtab", to[] = "\n\r\t\a\b";
                const char *m = strchr(from, e);
                out[(*o)++] = (m != NULL && e != '\0') ? to[m - from] : e;
                p += 2;
                continue;
            }
            if (e == '\'') {
                out[(*o)++] = '\'';
                p += 2;
                continue;
            }
        }
        out[(*o)++] = ch;
        p++;
    }
    *i = p;
    if (memchr(out + start, '\0', *o - start) != NULL) {
        return false;
    }
    out[(*o)++] = '\0';
    return true;
}

/* Splits line[0, len) into w. Returns TERSE_OK, TERSE_ENOMEM, or TERSE_EPROTO (unbalanced
 * quotes or NUL byte). On error w holds nothing. */
static int words_split(const char *line, size_t len, struct words *w)
{
    size_t i = 0;
    size_t o = 0;
    size_t max_words = len / 2 + 1;

    w->n = 0;
    w->buf = core_alloc(len + max_words + 1);
    w->v = core_alloc(max_words * sizeof *w->v);
    if (w->buf == NULL || w->v == NULL) {
        words_release(w);
        return TERSE_ENOMEM;
    }
    for (;;) {
        while (i < len && is_blank(line[i])) {
            i++;
        }
        if (i == len) {
            return TERSE_OK;
        }
        if (w->n == max_words) {
            words_release(w); /* not reachable: a word and its separator take >= 2 bytes */
            return TERSE_EPROTO;
        }
        w->v[w->n] = w->buf + o;
        if (!word_decode(line, len, &i, w->buf, &o)) {
            words_release(w);
            return TERSE_EPROTO;
        }
        w->n++;
    }
}

/* ---- loading text ------------------------------------------------------------------------ */

static const char fatal_head[] = "\n*** FATAL CONFIG FILE ERROR (terse) ***\n";

static void line_err(char *err, size_t err_cap, const char *origin, bool cmdline, size_t lineno,
                     const char *line, size_t line_len, const char *why)
{
    int shown = line_len > 1024 ? 1024 : (int)line_len;

    if (cmdline) {
        err_fmt(err, err_cap, "%sReading the command line, at option %zu\n>>> '%.*s'\n%s",
                fatal_head, lineno, shown, line, why);
    } else {
        err_fmt(err, err_cap, "%sReading the configuration file '%s', at line %zu\n>>> '%.*s'\n%s",
                fatal_head, origin != NULL ? origin : "(string)", lineno, shown, line, why);
    }
}

static int load_text(struct core_config *c, const char *text, size_t len, const char *origin,
                     bool cmdline, char *err, size_t err_cap)
{
    struct session s = {false};
    size_t pos = 0;
    size_t lineno = 0;

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;
        const char *line = text + pos;
        size_t line_len = end - pos;
        char why[CORE_CONFIG_ERR_CAP];
        struct words w;
        const struct opt *o;
        int rc;

        pos = nl != NULL ? end + 1 : len;
        lineno++;
        while (line_len > 0 && is_blank(line[0])) {
            line++;
            line_len--;
        }
        while (line_len > 0 && is_blank(line[line_len - 1])) {
            line_len--;
        }
        if (line_len == 0 || line[0] == '#') {
            continue;
        }
        rc = words_split(line, line_len, &w);
        if (rc == TERSE_ENOMEM) {
            err_fmt(err, err_cap, "out of memory while reading the configuration");
            return rc;
        }
        if (rc != TERSE_OK) {
            line_err(err, err_cap, origin, cmdline, lineno, line, line_len,
                     "Unbalanced quotes in configuration line");
            return TERSE_ECONFIG;
        }
        o = w.n > 0 ? opt_find(w.v[0]) : NULL;
        if (o == NULL) {
            words_release(&w);
            line_err(err, err_cap, origin, cmdline, lineno, line, line_len,
                     "Bad directive or wrong number of arguments");
            return TERSE_ECONFIG;
        }
        why[0] = '\0';
        if ((o->kind == KIND_BIND || o->kind == KIND_SAVE || o->kind == KIND_OBUF) && w.n == 2 &&
            w.v[1][0] != '\0') {
            /* A multi-word option given as one quoted word ("normal 1mb 512kb 0", as a
             * command line passes it) is split again, as Redis does for such options. */
            struct words inner;
            rc = words_split(w.v[1], strlen(w.v[1]), &inner);
            if (rc == TERSE_OK) {
                rc = opt_apply(c, o, inner.n, inner.v, &s, why, sizeof why);
                words_release(&inner);
            } else if (rc != TERSE_ENOMEM) {
                err_fmt(why, sizeof why, "Unbalanced quotes in configuration line");
                rc = TERSE_ECONFIG;
            }
        } else {
            rc = opt_apply(c, o, w.n - 1, w.v + 1, &s, why, sizeof why);
        }
        words_release(&w);
        if (rc != TERSE_OK) {
            line_err(err, err_cap, origin, cmdline, lineno, line, line_len, why);
            return rc;
        }
    }
    return TERSE_OK;
}

int core_config_load_string(struct core_config *c, const char *text, size_t len,
                            const char *origin, char *err, size_t err_cap)
{
    if (c == NULL || (text == NULL && len > 0)) {
        return TERSE_EINVAL;
    }
    return load_text(c, text, len, origin, false, err, err_cap);
}

int core_config_load_file(struct core_config *c, const char *path, char *err, size_t err_cap)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0;
    size_t cap = 0;
    int rc = TERSE_OK;

    if (c == NULL || path == NULL) {
        return TERSE_EINVAL;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        err_fmt(err, err_cap, "Fatal error, can't open config file '%s': %s", path,
                strerror(errno));
        return TERSE_EIO;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap == 0 ? 4096 : cap * 2;
            char *nb;
            if (cap >= CORE_CONFIG_FILE_MAX) {
                err_fmt(err, err_cap, "config file '%s' is larger than %u bytes", path,
                        CORE_CONFIG_FILE_MAX);
                rc = TERSE_ETOOBIG;
                goto out;
            }
            nb = core_realloc(buf, ncap);
            if (nb == NULL) {
                err_fmt(err, err_cap, "out of memory while reading '%s'", path);
                rc = TERSE_ENOMEM;
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        err_fmt(err, err_cap, "Fatal error, can't read config file '%s'", path);
        rc = TERSE_EIO;
        goto out;
    }
    rc = load_text(c, buf, len, path, false, err, err_cap);
out:
    core_free(buf);
    (void)fclose(f);
    return rc;
}

/* Appends s as a double-quoted config word (Redis's sdscatrepr) at dst[*n]; dst has room for
 * 4 * strlen(s) + 3 more bytes. */
static void repr_append(char *dst, size_t *n, const char *s)
{
    dst[(*n)++] = '"';
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        static const char from[] = "\\\"\n\r\t\a\b", to[] = "\\\"nrtab";
        const char *m = ch != 0 ? strchr(from, ch) : NULL;
        if (m != NULL) {
            dst[(*n)++] = '\\';
            dst[(*n)++] = to[m - from];
        } else if (ch < 0x20 || ch >= 0x7f) {
            *n += (size_t)snprintf(dst + *n, 5, "\\x%02x", ch);
        } else {
            dst[(*n)++] = (char)ch;
        }
    }
    dst[(*n)++] = '"';
}

int core_config_apply_args(struct core_config *c, int argc, char **argv, char *err,
                           size_t err_cap)
{
    size_t cap = 1;
    size_t n = 0;
    char *text;
    bool want_arg = false; /* the last "--name" has no argument yet */
    int rc;

    if (c == NULL || argc < 0 || (argc > 0 && argv == NULL)) {
        return TERSE_EINVAL;
    }
    for (int i = 0; i < argc; i++) {
        if (argv[i] == NULL) {
            return TERSE_EINVAL;
        }
        cap += 4 * strlen(argv[i]) + 6;
    }
    if (argc > 0 && strncmp(argv[0], "--", 2) != 0) {
        err_fmt(err, err_cap, "%sReading the command line, at option 1\n>>> '%s'\n%s", fatal_head,
                argv[0], "argument given before any --option");
        return TERSE_ECONFIG;
    }
    text = core_alloc(cap);
    if (text == NULL) {
        err_fmt(err, err_cap, "out of memory while reading the command line");
        return TERSE_ENOMEM;
    }
    /* Rebuild the options as config lines, as redis-server does, so one parser serves both. */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool is_name = !want_arg && a[0] == '-' && a[1] == '-';
        if (is_name) {
            size_t alen = strlen(a + 2);
            bool one_word = strpbrk(a + 2, " \t\r\n") == NULL;
            if (n > 0) {
                text[n++] = '\n';
            }
            for (size_t k = 0; k < alen; k++) {
                /* A line break inside one word must not start a second directive. */
                char ch = a[2 + k];
                text[n++] = (ch == '\n' || ch == '\r') ? ' ' : ch;
            }
            text[n++] = ' ';
            want_arg = one_word;
            if (one_word && str_ieq(a + 2, "save") &&
                (i == argc - 1 || strncmp(argv[i + 1], "--", 2) == 0)) {
                /* "--save" alone or before another option means save "" (no snapshots). */
                text[n++] = '"';
                text[n++] = '"';
                want_arg = false;
            }
        } else {
            repr_append(text, &n, a);
            text[n++] = ' ';
            want_arg = false;
        }
    }
    rc = load_text(c, text, n, NULL, true, err, err_cap);
    core_free(text);
    return rc;
}

/* ---- init, deinit, copy ------------------------------------------------------------------ */

void core_config_deinit(struct core_config *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].kind == KIND_STR) {
            core_free(*FIELD(c, &opts[i], char *));
        } else if (opts[i].kind == KIND_BIND) {
            bind_clear(FIELD(c, &opts[i], struct core_config_bind));
        }
    }
    memset(c, 0, sizeof *c);
}

int core_config_init(struct core_config *c)
{
    char why[CORE_CONFIG_ERR_CAP];

    if (c == NULL) {
        return TERSE_EINVAL;
    }
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < N_OPTS; i++) {
        struct session s = {false};
        const struct opt *o = &opts[i];
        /* Multi-word defaults are split like a config line; single ones are one word. */
        struct words w = {0};
        char *one[1];
        int rc;
        if (o->kind == KIND_BIND || o->kind == KIND_SAVE || o->kind == KIND_OBUF) {
            rc = words_split(o->dflt, strlen(o->dflt), &w);
            if (rc == TERSE_OK) {
                rc = opt_apply(c, o, w.n, w.v, &s, why, sizeof why);
            }
            words_release(&w);
        } else {
            one[0] = (char *)(uintptr_t)o->dflt; /* opt_apply only reads its words */
            rc = opt_apply(c, o, 1, one, &s, why, sizeof why);
        }
        if (rc != TERSE_OK) {
            core_config_deinit(c);
            return rc == TERSE_ENOMEM ? rc : TERSE_EINVAL;
        }
    }
    return TERSE_OK;
}

/* Deep copy of src into dst (dst's contents ignored). TERSE_OK or TERSE_ENOMEM (dst empty). */
static int config_copy(struct core_config *dst, const struct core_config *src)
{
    memcpy(dst, src, sizeof *dst);
    /* First detach every owned pointer, so a failure part-way frees only fresh copies. */
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].kind == KIND_STR) {
            *FIELD(dst, &opts[i], char *) = NULL;
        } else if (opts[i].kind == KIND_BIND) {
            struct core_config_bind *b = FIELD(dst, &opts[i], struct core_config_bind);
            memset(b->addr, 0, sizeof b->addr);
            b->n_addr = 0;
        }
    }
    for (size_t i = 0; i < N_OPTS; i++) {
        const struct opt *o = &opts[i];
        if (o->kind == KIND_STR) {
            const char *s = *CFIELD(src, o, char *);
            char *d = core_strndup(s, strlen(s));
            if (d == NULL) {
                goto fail;
            }
            *FIELD(dst, o, char *) = d;
        } else if (o->kind == KIND_BIND) {
            const struct core_config_bind *sb = CFIELD(src, o, struct core_config_bind);
            struct core_config_bind *db = FIELD(dst, o, struct core_config_bind);
            for (size_t j = 0; j < sb->n_addr; j++) {
                db->addr[j] = core_strndup(sb->addr[j], strlen(sb->addr[j]));
                if (db->addr[j] == NULL) {
                    goto fail;
                }
                db->n_addr = j + 1;
            }
        }
    }
    return TERSE_OK;
fail:
    core_config_deinit(dst);
    return TERSE_ENOMEM;
}

/* ---- CONFIG SET -------------------------------------------------------------------------- */

static bool protected_allowed(const struct core_config *c, unsigned flags)
{
    return c->enable_protected_configs == CORE_ACCESS_YES ||
           (c->enable_protected_configs == CORE_ACCESS_LOCAL &&
            (flags & CORE_CONFIG_SET_LOCAL) != 0);
}

/* Splits a CONFIG SET value of a multi-word option on single spaces, in place, as Redis's
 * sdssplitlen(" ") does ("" gives one empty word). v gets at most strlen(s) + 1 words. */
static size_t split_spaces(char *s, char **v)
{
    size_t n = 0;

    v[n++] = s;
    for (; *s != '\0'; s++) {
        if (*s == ' ') {
            *s = '\0';
            v[n++] = s + 1;
        }
    }
    return n;
}

static int set_one(struct core_config *c, const struct opt *o, const char *value, char *why,
                   size_t why_cap)
{
    struct session s = {false};
    size_t len = strlen(value);
    char *copy;
    char **v;
    size_t n;
    int rc;

    if (o->kind != KIND_BIND && o->kind != KIND_SAVE && o->kind != KIND_OBUF) {
        char *one[1] = {(char *)(uintptr_t)value}; /* opt_apply only reads its words */
        return opt_apply(c, o, 1, one, &s, why, why_cap);
    }
    copy = core_strndup(value, len);
    v = core_alloc((len + 1) * sizeof *v);
    if (copy == NULL || v == NULL) {
        core_free(copy);
        core_free(v);
        return TERSE_ENOMEM;
    }
    n = split_spaces(copy, v);
    rc = opt_apply(c, o, n, v, &s, why, why_cap);
    core_free(v);
    core_free(copy);
    return rc;
}

int core_config_set_pairs(struct core_config *c, const char *const *names,
                          const char *const *values, size_t n, unsigned flags, char *err,
                          size_t err_cap)
{
    const char *unknown = NULL;
    const char *bad_name = NULL;
    const char *bad_why = NULL;
    struct core_config tmp;
    char why[CORE_CONFIG_ERR_CAP];
    int rc;

    if (c == NULL || names == NULL || values == NULL || n == 0) {
        return TERSE_EINVAL;
    }
    /* Redis's first pass: names only. An unknown name seen before any other problem wins. */
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = opt_find(names[i]);
        if (o == NULL) {
            if (unknown == NULL && bad_name == NULL) {
                unknown = names[i];
            }
            continue;
        }
        if (unknown != NULL || bad_name != NULL) {
            continue;
        }
        if ((o->flags & CORE_CONFIG_IMMUTABLE) != 0) {
            bad_name = names[i];
            bad_why = "can't set immutable config";
            continue;
        }
        if ((o->flags & CORE_CONFIG_PROTECTED) != 0 && !protected_allowed(c, flags)) {
            bad_name = names[i];
            bad_why = "can't set protected config";
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            if (opt_find(names[j]) == o) {
                bad_name = names[i];
                bad_why = "duplicate parameter";
                break;
            }
        }
    }
    if (unknown != NULL) {
        err_fmt(err, err_cap, "ERR Unknown option or number of arguments for CONFIG SET - '%s'",
                unknown);
        return TERSE_ECONFIG;
    }
    if (bad_name != NULL) {
        err_fmt(err, err_cap, "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                bad_name, bad_why);
        return TERSE_ECONFIG;
    }
    /* Second pass on a copy, so a failure anywhere leaves c as it was. */
    rc = config_copy(&tmp, c);
    if (rc != TERSE_OK) {
        err_fmt(err, err_cap, "ERR CONFIG SET failed - out of memory");
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = opt_find(names[i]);
        if (values[i] == NULL) {
            core_config_deinit(&tmp);
            return TERSE_EINVAL;
        }
        why[0] = '\0';
        rc = set_one(&tmp, o, values[i], why, sizeof why);
        if (rc != TERSE_OK) {
            core_config_deinit(&tmp);
            /* Redis names the option by its own spelling here, unlike in the first pass. */
            err_fmt(err, err_cap, "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                    o->name, rc == TERSE_ENOMEM ? "out of memory" : why);
            return rc;
        }
    }
    core_config_deinit(c);
    *c = tmp;
    return TERSE_OK;
}

int core_config_set(struct core_config *c, const char *name, const char *value, char *err,
                    size_t err_cap)
{
    return core_config_set_pairs(c, &name, &value, 1, 0, err, err_cap);
}

/* ---- CONFIG GET -------------------------------------------------------------------------- */

/* Formats o's value; returns the text (buf, or the STR field's own storage). buf has
 * CORE_CONFIG_VALUE_CAP bytes. */
static const char *opt_format(const struct core_config *c, const struct opt *o, char *buf)
{
    size_t n = 0;
    const size_t cap = CORE_CONFIG_VALUE_CAP;

    buf[0] = '\0';
    switch (o->kind) {
    case KIND_BOOL:
        return *CFIELD(c, o, bool) ? "yes" : "no";
    case KIND_INT:
    case KIND_CLAMP:
        (void)snprintf(buf, cap, "%lld", *CFIELD(c, o, long long));
        return buf;
    case KIND_MEM:
        (void)snprintf(buf, cap, "%llu", (unsigned long long)*CFIELD(c, o, uint64_t));
        return buf;
    case KIND_STR:
        return *CFIELD(c, o, char *) != NULL ? *CFIELD(c, o, char *) : "";
    case KIND_ENUM: {
        int v = *CFIELD(c, o, int);
        for (int i = 0; o->names[i] != NULL; i++) {
            if (i == v) {
                return o->names[i];
            }
        }
        return ""; /* a value no parser stores */
    }
    case KIND_BIND: {
        const struct core_config_bind *b = CFIELD(c, o, struct core_config_bind);
        for (size_t i = 0; i < b->n_addr && n < cap; i++) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : " ", b->addr[i]);
        }
        return buf;
    }
    case KIND_SAVE: {
        const struct core_config_save *s = CFIELD(c, o, struct core_config_save);
        for (size_t i = 0; i < s->n_point && n < cap; i++) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld %lld", i == 0 ? "" : " ",
                                  s->point[i].seconds, s->point[i].changes);
        }
        return buf;
    }
    case KIND_OBUF: {
        static const char *const cls_names[] = {"normal", "slave", "pubsub"};
        const struct core_config_obuf *ob = CFIELD(c, o, struct core_config_obuf);
        for (size_t i = 0; i < CORE_CLIENT_CLASS_COUNT && n < cap; i++) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%s %llu %llu %lld", i == 0 ? "" : " ",
                                  cls_names[i], (unsigned long long)ob->cls[i].hard_bytes,
                                  (unsigned long long)ob->cls[i].soft_bytes,
                                  ob->cls[i].soft_seconds);
        }
        return buf;
    }
    }
    return buf;
}

/* One token of a glob at p against ch; *next gets the position after the token. */
static bool glob_token(const char *p, char ch, const char **next)
{
    int c = lower((unsigned char)ch);

    if (*p == '?') {
        *next = p + 1;
        return true;
    }
    if (*p == '\\' && p[1] != '\0') {
        *next = p + 2;
        return lower((unsigned char)p[1]) == c;
    }
    if (*p == '[') {
        bool neg = false;
        bool hit = false;
        p++;
        if (*p == '^') {
            neg = true;
            p++;
        }
        /* An unterminated class ends with the pattern, as in Redis's stringmatch. */
        while (*p != '\0' && *p != ']') {
            if (*p == '\\' && p[1] != '\0') {
                hit = hit || lower((unsigned char)p[1]) == c;
                p += 2;
            } else if (p[1] == '-' && p[2] != '\0') {
                int lo = lower((unsigned char)p[0]);
                int hi = lower((unsigned char)p[2]);
                if (lo > hi) {
                    int t = lo;
                    lo = hi;
                    hi = t;
                }
                hit = hit || (c >= lo && c <= hi);
                p += 3;
            } else {
                hit = hit || lower((unsigned char)*p) == c;
                p++;
            }
        }
        *next = *p == ']' ? p + 1 : p;
        return neg ? !hit : hit;
    }
    *next = p + 1;
    return lower((unsigned char)*p) == c;
}

/* Glob match with one backtrack point per '*': O(len(p) * len(s)), never exponential. */
static bool glob_match(const char *p, const char *s)
{
    const char *star_p = NULL;
    const char *star_s = NULL;

    for (;;) {
        const char *next;
        if (*p == '*') {
            while (*p == '*') {
                p++;
            }
            if (*p == '\0') {
                return true;
            }
            star_p = p;
            star_s = s;
            continue;
        }
        if (*s == '\0') {
            break;
        }
        if (*p != '\0' && glob_token(p, *s, &next)) {
            p = next;
            s++;
            continue;
        }
        if (star_p == NULL) {
            return false;
        }
        p = star_p;
        s = ++star_s;
    }
    while (*p == '*') {
        p++;
    }
    return *p == '\0';
}

void core_config_get(const struct core_config *c, const char *pattern,
                     void (*emit)(void *arg, const char *name, const char *value), void *arg)
{
    char buf[CORE_CONFIG_VALUE_CAP];

    if (c == NULL || pattern == NULL || emit == NULL) {
        return;
    }
    if (strpbrk(pattern, "*?[") == NULL) {
        const struct opt *o = opt_find(pattern);
        if (o != NULL) {
            emit(arg, pattern, opt_format(c, o, buf));
        }
        return;
    }
    for (size_t i = 0; i < N_OPTS; i++) {
        if (glob_match(pattern, opts[i].name)) {
            emit(arg, opts[i].name, opt_format(c, &opts[i], buf));
        }
    }
}

int core_config_get_one(const struct core_config *c, const char *name, char *dst,
                        size_t dst_cap, size_t *out_len)
{
    char buf[CORE_CONFIG_VALUE_CAP];
    const struct opt *o;
    const char *v;
    size_t len;

    if (c == NULL || name == NULL || out_len == NULL || (dst == NULL && dst_cap > 0)) {
        return TERSE_EINVAL;
    }
    o = opt_find(name);
    if (o == NULL) {
        return TERSE_ENOTFOUND;
    }
    v = opt_format(c, o, buf);
    len = strlen(v);
    *out_len = len;
    if (len + 1 > dst_cap) {
        return TERSE_EDSTSIZE;
    }
    memcpy(dst, v, len + 1);
    return TERSE_OK;
}

int core_config_flags(const char *name, unsigned *out)
{
    const struct opt *o = name != NULL ? opt_find(name) : NULL;

    if (o == NULL || out == NULL) {
        return TERSE_ENOTFOUND;
    }
    *out = o->flags;
    return TERSE_OK;
}
