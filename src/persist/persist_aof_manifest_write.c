/*
 * persist_aof_manifest_write: a manifest written as Redis writes it (format in
 * persist_aof_manifest.h): "file <name> seq <n> type <t>\n" per entry, base first, then
 * history, then incr files; a name holding blanks, quotes, backslashes or bytes outside
 * printable ASCII is written double-quoted with escapes, as Redis's sdscatrepr does, so the
 * parser's sdssplitargs rules read it back.
 */
#include "persist/persist_aof_manifest.h"

#include <stdio.h>
#include <string.h>

#define LINE_CAP (PERSIST_AOF_NAME_CAP * 4 + 64)
#define ENTRY_TAIL_MAX 48 /* " seq <19 digits> type x\n" */

static int needs_repr(const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c >= 127 || c == '"' || c == '\'' || c == '\\') {
            return 1;
        }
    }
    return 0;
}

/* The name as written: itself, or quoted with escapes (at most 4 bytes per byte + 2). */
size_t persist_aof_name_repr(const char *s, char *dst)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;

    if (!needs_repr(s)) {
        n = strlen(s);
        memcpy(dst, s, n);
        return n;
    }
    dst[n++] = '"';
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        const char *esc = c == '\\' ? "\\\\" : c == '"' ? "\\\"" : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\a' ? "\\a"
                        : c == '\b' ? "\\b" : NULL;
        if (esc != NULL) {
            dst[n++] = esc[0];
            dst[n++] = esc[1];
        } else if (c < ' ' || c >= 127) {
            dst[n++] = '\\';
            dst[n++] = 'x';
            dst[n++] = hex[c >> 4];
            dst[n++] = hex[c & 15];
        } else {
            dst[n++] = (char)c;
        }
    }
    dst[n++] = '"';
    return n;
}

static size_t put_entry(const struct persist_aof_file *f, char *dst)
{
    size_t n = 5;

    memcpy(dst, "file ", 5);
    n += persist_aof_name_repr(f->name, dst + n);
    n += (size_t)snprintf(dst + n, ENTRY_TAIL_MAX, " seq %lld type %c\n", f->seq, f->type);
    return n;
}

size_t persist_aof_manifest_size(const struct persist_aof_manifest *m)
{
    char line[LINE_CAP];
    size_t n = m->has_base ? put_entry(&m->base, line) : 0;

    for (size_t i = 0; i < m->n_hist; i++) {
        n += put_entry(&m->hist[i], line);
    }
    for (size_t i = 0; i < m->n_incr; i++) {
        n += put_entry(&m->incr[i], line);
    }
    return n;
}

size_t persist_aof_manifest_format(const struct persist_aof_manifest *m, char *dst, size_t cap)
{
    char line[LINE_CAP];
    size_t n = 0;
    size_t total = m->n_hist + m->n_incr + (m->has_base ? 1u : 0u);

    for (size_t i = 0; i < total; i++) {
        const struct persist_aof_file *f =
            m->has_base && i == 0 ? &m->base
            : i - (m->has_base ? 1u : 0u) < m->n_hist ? &m->hist[i - (m->has_base ? 1u : 0u)]
                                                      : &m->incr[i - (m->has_base ? 1u : 0u) -
                                                                 m->n_hist];
        size_t k = put_entry(f, line);
        if (n + k > cap) {
            return 0;
        }
        memcpy(dst + n, line, k);
        n += k;
    }
    return n;
}

int persist_aof_name_fits(const char *name)
{
    char buf[LINE_CAP];

    return 5 + persist_aof_name_repr(name, buf) + ENTRY_TAIL_MAX < PERSIST_AOF_LINE_MAX;
}
