/*
 * persist_aof_manifest: parsing and writing the multi-part AOF's manifest (format in the
 * header). The parser works line by line on the caller's bytes; a line's words are unescaped
 * into a stack buffer of PERSIST_AOF_LINE_MAX bytes (a word is never longer than its line), so
 * parsing allocates only to grow the entry arrays.
 */
#include "persist/persist_aof_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terse/status.h"

#define MAX_WORDS (PERSIST_AOF_LINE_MAX / 2 + 1)
#define MIN_ENTRIES 4

static void *m_alloc(const struct persist_aof_manifest *m, size_t n)
{
    return m->alloc.alloc != NULL ? m->alloc.alloc(m->alloc.opaque, n) : malloc(n);
}

static void m_free(const struct persist_aof_manifest *m, void *p)
{
    if (m->alloc.free != NULL) {
        m->alloc.free(m->alloc.opaque, p);
    } else {
        free(p);
    }
}

void persist_aof_manifest_init(struct persist_aof_manifest *m, const terse_allocator *alloc)
{
    memset(m, 0, sizeof(*m));
    if (alloc != NULL) {
        m->alloc = *alloc;
    }
}

void persist_aof_manifest_deinit(struct persist_aof_manifest *m)
{
    terse_allocator a = m->alloc;

    m_free(m, m->incr);
    m_free(m, m->hist);
    memset(m, 0, sizeof(*m));
    m->alloc = a;
}

void persist_aof_manifest_reset(struct persist_aof_manifest *m)
{
    m->has_base = 0;
    m->n_incr = 0;
    m->n_hist = 0;
    m->base_seq = 0;
    m->incr_seq = 0;
}

/* Room for one more entry in *arr (n used of *cap). */
static int grow(struct persist_aof_manifest *m, struct persist_aof_file **arr, size_t n,
                size_t *cap)
{
    struct persist_aof_file *p;
    size_t c;

    if (n < *cap) {
        return TERSE_OK;
    }
    c = *cap < MIN_ENTRIES ? MIN_ENTRIES : *cap * 2;
    p = m_alloc(m, c * sizeof(*p));
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    if (n > 0) {
        memcpy(p, *arr, n * sizeof(*p));
    }
    m_free(m, *arr);
    *arr = p;
    *cap = c;
    return TERSE_OK;
}

static int name_ok(const char *name)
{
    size_t n = strlen(name);

    return n > 0 && n < PERSIST_AOF_NAME_CAP && strchr(name, '/') == NULL && persist_aof_name_fits(name);
}

static void file_set(struct persist_aof_file *f, char type, const char *name, long long seq)
{
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->seq = seq;
    f->type = type;
}

int persist_aof_manifest_add(struct persist_aof_manifest *m, char type, const char *name,
                             long long seq)
{
    if (!name_ok(name) || seq <= 0) {
        return TERSE_EINVAL;
    }
    if (type == PERSIST_AOF_BASE) {
        if (m->has_base) {
            if (grow(m, &m->hist, m->n_hist, &m->hist_cap) != TERSE_OK) {
                return TERSE_ENOMEM;
            }
            m->base.type = PERSIST_AOF_HIST;
            m->hist[m->n_hist++] = m->base;
        }
        file_set(&m->base, type, name, seq);
        m->has_base = 1;
        m->base_seq = seq;
        return TERSE_OK;
    }
    if (type == PERSIST_AOF_INCR) {
        if (seq <= m->incr_seq || grow(m, &m->incr, m->n_incr, &m->incr_cap) != TERSE_OK) {
            return seq <= m->incr_seq ? TERSE_EINVAL : TERSE_ENOMEM;
        }
        file_set(&m->incr[m->n_incr++], type, name, seq);
        m->incr_seq = seq;
        return TERSE_OK;
    }
    if (type == PERSIST_AOF_HIST) {
        if (grow(m, &m->hist, m->n_hist, &m->hist_cap) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
        file_set(&m->hist[m->n_hist++], type, name, seq);
        return TERSE_OK;
    }
    return TERSE_EINVAL;
}

int persist_aof_manifest_retire(struct persist_aof_manifest *m)
{
    size_t need = m->n_hist + m->n_incr + (m->has_base ? 1u : 0u);

    while (m->hist_cap < need) {
        if (grow(m, &m->hist, m->hist_cap, &m->hist_cap) != TERSE_OK) {
            return TERSE_ENOMEM;
        }
    }
    if (m->has_base) {
        m->base.type = PERSIST_AOF_HIST;
        m->hist[m->n_hist++] = m->base;
        m->has_base = 0;
    }
    for (size_t i = 0; i < m->n_incr; i++) {
        m->incr[i].type = PERSIST_AOF_HIST;
        m->hist[m->n_hist++] = m->incr[i];
    }
    m->n_incr = 0;
    return TERSE_OK;
}

/* ---- parsing ---------------------------------------------------------------------------- */

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Splits [p, end) into words as sdssplitargs does; the words go NUL-terminated into out
 * (room: the line's length plus MAX_WORDS), their starts into words. Returns the count, or
 * -1 for unbalanced quotes or too many words. */
static int split_words(const char *p, const char *end, char *out, char **words)
{
    int argc = 0;

    for (;;) {
        while (p < end && is_blank((unsigned char)*p)) {
            p++;
        }
        if (p == end) {
            return argc;
        }
        if (argc == MAX_WORDS) {
            return -1;
        }
        words[argc++] = out;
        int inq = 0, insq = 0, done = 0;
        while (!done) {
            if (inq) {
                if (p == end) {
                    return -1;
                }
                if (*p == '\\' && p + 3 < end && p[1] == 'x' && hexval(p[2]) >= 0 &&
                    hexval(p[3]) >= 0) {
                    *out++ = (char)(hexval(p[2]) * 16 + hexval(p[3]));
                    p += 3;
                } else if (*p == '\\' && p + 1 < end) {
                    char c = *++p;
                    *out++ = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t'
                           : c == 'b' ? '\b' : c == 'a' ? '\a' : c;
                } else if (*p == '"') {
                    if (p + 1 < end && !is_blank((unsigned char)p[1])) {
                        return -1; /* a closing quote must be followed by a blank */
                    }
                    done = 1;
                } else {
                    *out++ = *p;
                }
            } else if (insq) {
                if (p == end) {
                    return -1;
                }
                if (*p == '\\' && p + 1 < end && p[1] == '\'') {
                    *out++ = '\'';
                    p++;
                } else if (*p == '\'') {
                    if (p + 1 < end && !is_blank((unsigned char)p[1])) {
                        return -1;
                    }
                    done = 1;
                } else {
                    *out++ = *p;
                }
            } else if (p == end || is_blank((unsigned char)*p)) {
                done = 1;
                p--; /* not consumed */
            } else if (*p == '"') {
                inq = 1;
            } else if (*p == '\'') {
                insq = 1;
            } else {
                *out++ = *p;
            }
            p++;
        }
        *out++ = '\0';
    }
}

static int parse_seq(const char *s, long long *out)
{
    long long v = 0;

    if (*s == '\0') {
        return 0;
    }
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10) {
            return 0;
        }
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return v > 0;
}

/* One non-comment line (without its '\n'): an entry into m, or a reason. */
static const char *parse_line(struct persist_aof_manifest *m, const char *p, const char *end,
                              int *nomem)
{
    char buf[PERSIST_AOF_LINE_MAX + MAX_WORDS + 1];
    char *words[MAX_WORDS];
    const char *name = NULL;
    long long seq = 0;
    char type = 0;
    int argc;

    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
        p++;
    }
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) {
        end--;
    }
    if (p == end || memchr(p, '\0', (size_t)(end - p)) != NULL) {
        return "Invalid AOF manifest file format";
    }
    argc = split_words(p, end, buf, words);
    if (argc < 6 || argc % 2 != 0) {
        return "Invalid AOF manifest file format";
    }
    for (int i = 0; i < argc; i += 2) {
        if (strcasecmp(words[i], "file") == 0) {
            if (strchr(words[i + 1], '/') != NULL) {
                return "File can't be a path, just a filename";
            }
            name = words[i + 1];
        } else if (strcasecmp(words[i], "seq") == 0) {
            if (!parse_seq(words[i + 1], &seq)) {
                seq = 0;
            }
        } else if (strcasecmp(words[i], "type") == 0) {
            type = words[i + 1][0];
        }
    }
    if (name == NULL || name[0] == '\0' || seq == 0 || type == 0) {
        return "Invalid AOF manifest file format";
    }
    if (strlen(name) >= PERSIST_AOF_NAME_CAP || !persist_aof_name_fits(name)) {
        return "AOF file name too long";
    }
    if (type == PERSIST_AOF_BASE && m->has_base) {
        return "Found duplicate base file information";
    }
    if (type == PERSIST_AOF_INCR && seq <= m->incr_seq) {
        return "Found a non-monotonic sequence number";
    }
    if (type != PERSIST_AOF_BASE && type != PERSIST_AOF_INCR && type != PERSIST_AOF_HIST) {
        return "Unknown AOF file type";
    }
    if (persist_aof_manifest_add(m, type, name, seq) != TERSE_OK) {
        *nomem = 1;
        return "out of memory";
    }
    return NULL;
}

int persist_aof_manifest_parse(struct persist_aof_manifest *m, const uint8_t *buf, size_t len,
                               struct persist_error *err)
{
    const char *p = (const char *)buf, *end = p + len;
    const char *why = NULL;
    uint64_t line = 0;
    int nomem = 0;

    persist_aof_manifest_reset(m);
    if (len == 0) {
        why = "Found an empty AOF manifest";
    }
    while (why == NULL && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

        line++;
        if (n >= PERSIST_AOF_LINE_MAX && p[0] != '#') {
            why = "The AOF manifest file contains too long line";
            break;
        }
        if (p[0] == '#') {
            /* fgets reads a long comment in pieces, each skipped only if it starts with
             * '#': terse skips the whole line, which is what a comment means. */
            p = nl != NULL ? nl + 1 : end;
            continue;
        }
        if (nl == NULL) {
            why = "The AOF manifest file contains too long line";
            break;
        }
        why = parse_line(m, p, nl, &nomem);
        p = nl + 1;
    }
    if (why == NULL) {
        return TERSE_OK;
    }
    persist_aof_manifest_reset(m);
    if (err != NULL) {
        err->offset = line;
        snprintf(err->reason, sizeof(err->reason), "%s", why);
    }
    return nomem ? TERSE_ENOMEM : TERSE_ECORRUPT;
}
