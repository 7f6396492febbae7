/*
 * core_config_load: the redis.conf reader. Turns a config file, a config string or a
 * redis-server command line into directives and hands each one's words to
 * core_config_opt_apply (core_config.c).
 *
 * A line is trimmed, skipped when empty or a '#' comment, and split into words as Redis's
 * sdssplitargs does (core_config_words_split); the first word names the option. The command
 * line is rebuilt as config lines, each argument re-quoted as Redis's sdscatrepr would, so
 * one parser serves both. The first bad line stops the load with Redis's "FATAL CONFIG FILE
 * ERROR" text naming the file and line (or the option number on the command line).
 * Kept apart from core_config.c because it knows text formats, not values.
 */
#include "core/core_config.h"

#include "core/core_config_internal.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- splitting words --------------------------------------------------------------------- */

void core_config_words_release(struct core_config_words *w)
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
    ch = (char)core_config_lower((unsigned char)ch);
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

int core_config_words_split(const char *line, size_t len, struct core_config_words *w)
{
    size_t i = 0;
    size_t o = 0;
    size_t max_words = len / 2 + 1;

    w->n = 0;
    w->buf = core_alloc(len + max_words + 1);
    w->v = core_alloc(max_words * sizeof *w->v);
    if (w->buf == NULL || w->v == NULL) {
        core_config_words_release(w);
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
            /* not reachable: a word and its separator take >= 2 bytes */
            core_config_words_release(w);
            return TERSE_EPROTO;
        }
        w->v[w->n] = w->buf + o;
        if (!word_decode(line, len, &i, w->buf, &o)) {
            core_config_words_release(w);
            return TERSE_EPROTO;
        }
        w->n++;
    }
}

/* ---- rename-command ---------------------------------------------------------------------- */

/* Whether a command is called name after the renames so far: the last pair that names it
 * decides (as its target: yes; as its source: no, it was renamed away), else whether the
 * table starts with it. Within a pair the command leaves `from` before it takes `to`. */
static bool rename_name_exists(const struct core_config *c, const char *name)
{
    for (size_t i = c->renames.n; i-- > 0;) {
        const struct core_config_rename *r = &c->renames.v[i];
        if (r->to[0] != '\0' && core_config_str_ieq(r->to, name)) {
            return true;
        }
        if (core_config_str_ieq(r->from, name)) {
            return false;
        }
    }
    return c->command_known != NULL && c->command_known(name) != 0;
}

/* "rename-command <from> <to>", as Redis 7.0 checks it: from must name a command now; to,
 * unless empty, must name none once from is gone. */
static int rename_apply(struct core_config *c, const char *from, const char *to, char *why,
                        size_t why_cap)
{
    if (!rename_name_exists(c, from)) {
        core_config_err_fmt(why, why_cap, "No such command in rename-command");
        return TERSE_ECONFIG;
    }
    if (to[0] != '\0' && !core_config_str_ieq(from, to) && rename_name_exists(c, to)) {
        core_config_err_fmt(why, why_cap, "Target command name already exists");
        return TERSE_ECONFIG;
    }
    if (core_config_renames_add(&c->renames, from, to) != TERSE_OK) {
        core_config_err_fmt(why, why_cap, "out of memory");
        return TERSE_ENOMEM;
    }
    return TERSE_OK;
}

/* ---- loading text ------------------------------------------------------------------------ */

static const char fatal_head[] = "\n*** FATAL CONFIG FILE ERROR (terse) ***\n";

static void line_err(char *err, size_t err_cap, const char *origin, bool cmdline, size_t lineno,
                     const char *line, size_t line_len, const char *why)
{
    int shown = line_len > 1024 ? 1024 : (int)line_len;

    if (cmdline) {
        core_config_err_fmt(err, err_cap,
                            "%sReading the command line, at option %zu\n>>> '%.*s'\n%s", fatal_head,
                            lineno, shown, line, why);
    } else {
        core_config_err_fmt(
            err, err_cap, "%sReading the configuration file '%s', at line %zu\n>>> '%.*s'\n%s",
            fatal_head, origin != NULL ? origin : "(string)", lineno, shown, line, why);
    }
}

static int load_text(struct core_config *c, const char *text, size_t len, const char *origin,
                     bool cmdline, char *err, size_t err_cap)
{
    struct core_config_session s = {false};
    size_t pos = 0;
    size_t lineno = 0;

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;
        const char *line = text + pos;
        size_t line_len = end - pos;
        char why[CORE_CONFIG_ERR_CAP];
        struct core_config_words w;
        const struct core_config_opt *o;
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
        rc = core_config_words_split(line, line_len, &w);
        if (rc == TERSE_ENOMEM) {
            core_config_err_fmt(err, err_cap, "out of memory while reading the configuration");
            return rc;
        }
        if (rc != TERSE_OK) {
            line_err(err, err_cap, origin, cmdline, lineno, line, line_len,
                     "Unbalanced quotes in configuration line");
            return TERSE_ECONFIG;
        }
        if (w.n == 3 && core_config_str_ieq(w.v[0], "rename-command")) {
            why[0] = '\0';
            rc = rename_apply(c, w.v[1], w.v[2], why, sizeof why);
            core_config_words_release(&w);
            if (rc != TERSE_OK) {
                line_err(err, err_cap, origin, cmdline, lineno, line, line_len, why);
                return rc;
            }
            continue;
        }
        o = w.n > 0 ? core_config_opt_find(w.v[0], NULL) : NULL;
        if (o == NULL) {
            core_config_words_release(&w);
            line_err(err, err_cap, origin, cmdline, lineno, line, line_len,
                     "Bad directive or wrong number of arguments");
            return TERSE_ECONFIG;
        }
        why[0] = '\0';
        if (core_config_opt_multiword(o) && w.n == 2 && w.v[1][0] != '\0') {
            /* A multi-word option given as one quoted word ("normal 1mb 512kb 0", as a
             * command line passes it) is split again, as Redis does for such options. */
            struct core_config_words inner;
            rc = core_config_words_split(w.v[1], strlen(w.v[1]), &inner);
            if (rc == TERSE_OK) {
                rc = core_config_opt_apply(c, o, inner.n, inner.v, &s, why, sizeof why);
                core_config_words_release(&inner);
            } else if (rc != TERSE_ENOMEM) {
                core_config_err_fmt(why, sizeof why, "Unbalanced quotes in configuration line");
                rc = TERSE_ECONFIG;
            }
        } else {
            rc = core_config_opt_apply(c, o, w.n - 1, w.v + 1, &s, why, sizeof why);
        }
        core_config_words_release(&w);
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
        core_config_err_fmt(err, err_cap, "Fatal error, can't open config file '%s': %s", path,
                            strerror(errno));
        return TERSE_EIO;
    }
    for (;;) {
        size_t got;
        if (len == cap) {
            size_t ncap = cap == 0 ? 4096 : cap * 2;
            char *nb;
            if (cap >= CORE_CONFIG_FILE_MAX) {
                core_config_err_fmt(err, err_cap, "config file '%s' is larger than %u bytes",
                                    path, CORE_CONFIG_FILE_MAX);
                rc = TERSE_ETOOBIG;
                goto out;
            }
            nb = core_realloc(buf, ncap);
            if (nb == NULL) {
                core_config_err_fmt(err, err_cap, "out of memory while reading '%s'", path);
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
        core_config_err_fmt(err, err_cap, "Fatal error, can't read config file '%s'", path);
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
        core_config_err_fmt(err, err_cap, "%sReading the command line, at option 1\n>>> '%s'\n%s",
                            fatal_head, argv[0], "argument given before any --option");
        return TERSE_ECONFIG;
    }
    text = core_alloc(cap);
    if (text == NULL) {
        core_config_err_fmt(err, err_cap, "out of memory while reading the command line");
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
            if (one_word && core_config_str_ieq(a + 2, "save") &&
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
