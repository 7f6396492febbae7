/*
 * core_config_runtime: whole-struct operations on a struct core_config (init, deinit, deep
 * copy) and its run-time view, CONFIG SET and CONFIG GET.
 *
 * core_config_init applies each option's DEFAULT text through core_config_opt_apply, so a
 * default is parsed exactly as a config file's value; deinit frees what STR and BIND fields
 * own. CONFIG SET checks every name first (Redis's order of errors), then applies the values
 * to a deep copy and swaps it in only when every pair passed, so a failure leaves the live
 * config as it was. CONFIG GET formats a field as Redis shows it and matches patterns with
 * Redis's stringmatch glob rules over the option names and their aliases, in
 * O(len(pattern) * len(name)) per name, never exponential. Kept apart from the table and the
 * text reader because these walk the whole struct, at startup and for clients, while those
 * handle one directive at a time.
 */
#include "core/core_config.h"

#include "core/core_config_internal.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <stdio.h>
#include <string.h>

/* ---- init, deinit, copy ------------------------------------------------------------------ */

void core_config_deinit(struct core_config *c)
{
    if (c == NULL) {
        return;
    }
    for (size_t i = 0; i < core_config_n_opts; i++) {
        const struct core_config_opt *o = &core_config_opts[i];
        if (CORE_CONFIG_KIND_IS_STR(o->kind)) {
            core_free(*CORE_CONFIG_PTR(c, o, char *));
        } else if (o->kind == CORE_CONFIG_KIND_BIND) {
            core_config_bind_clear(CORE_CONFIG_PTR(c, o, struct core_config_bind));
        }
    }
    core_config_renames_clear(&c->renames);
    memset(c, 0, sizeof *c);
}

int core_config_init(struct core_config *c)
{
    char why[CORE_CONFIG_ERR_CAP];

    if (c == NULL) {
        return TERSE_EINVAL;
    }
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < core_config_n_opts; i++) {
        struct core_config_session s = {false};
        const struct core_config_opt *o = &core_config_opts[i];
        /* Multi-word defaults are split like a config line; single ones are one word. */
        struct core_config_words w = {0};
        char *one[1];
        int rc;
        if (core_config_opt_multiword(o)) {
            rc = core_config_words_split(o->dflt, strlen(o->dflt), &w);
            if (rc == TERSE_OK) {
                rc = core_config_opt_apply(c, o, w.n, w.v, &s, why, sizeof why);
            }
            core_config_words_release(&w);
        } else {
            one[0] = (char *)(uintptr_t)o->dflt; /* core_config_opt_apply only reads its words */
            rc = core_config_opt_apply(c, o, 1, one, &s, why, sizeof why);
        }
        if (rc != TERSE_OK) {
            core_config_deinit(c);
            return rc == TERSE_ENOMEM ? rc : TERSE_EINVAL;
        }
    }
    return TERSE_OK;
}

int core_config_copy(struct core_config *dst, const struct core_config *src)
{
    memcpy(dst, src, sizeof *dst);
    dst->renames.n = 0;
    dst->renames.v = NULL;
    /* First detach every owned pointer, so a failure part-way frees only fresh copies. */
    for (size_t i = 0; i < core_config_n_opts; i++) {
        const struct core_config_opt *o = &core_config_opts[i];
        if (CORE_CONFIG_KIND_IS_STR(o->kind)) {
            *CORE_CONFIG_PTR(dst, o, char *) = NULL;
        } else if (o->kind == CORE_CONFIG_KIND_BIND) {
            struct core_config_bind *b = CORE_CONFIG_PTR(dst, o, struct core_config_bind);
            memset(b->addr, 0, sizeof b->addr);
            b->n_addr = 0;
        }
    }
    for (size_t i = 0; i < core_config_n_opts; i++) {
        const struct core_config_opt *o = &core_config_opts[i];
        if (CORE_CONFIG_KIND_IS_STR(o->kind)) {
            const char *s = *CORE_CONFIG_CPTR(src, o, char *);
            char *d = core_strndup(s, strlen(s));
            if (d == NULL) {
                goto fail;
            }
            *CORE_CONFIG_PTR(dst, o, char *) = d;
        } else if (o->kind == CORE_CONFIG_KIND_BIND) {
            const struct core_config_bind *sb = CORE_CONFIG_CPTR(src, o, struct core_config_bind);
            struct core_config_bind *db = CORE_CONFIG_PTR(dst, o, struct core_config_bind);
            for (size_t j = 0; j < sb->n_addr; j++) {
                db->addr[j] = core_strndup(sb->addr[j], strlen(sb->addr[j]));
                if (db->addr[j] == NULL) {
                    goto fail;
                }
                db->n_addr = j + 1;
            }
        }
    }
    for (size_t i = 0; i < src->renames.n; i++) {
        const struct core_config_rename *r = &src->renames.v[i];
        if (core_config_renames_add(&dst->renames, r->from, r->to) != TERSE_OK) {
            goto fail;
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

static int set_one(struct core_config *c, const struct core_config_opt *o, const char *value,
                   char *why, size_t why_cap)
{
    struct core_config_session s = {false};
    size_t len = strlen(value);
    char *copy;
    char **v;
    size_t n;
    int rc;

    if (!core_config_opt_multiword(o)) {
        char *one[1] = {(char *)(uintptr_t)value}; /* core_config_opt_apply only reads its words */
        return core_config_opt_apply(c, o, 1, one, &s, why, why_cap);
    }
    copy = core_strndup(value, len);
    v = core_alloc((len + 1) * sizeof *v);
    if (copy == NULL || v == NULL) {
        core_free(copy);
        core_free(v);
        return TERSE_ENOMEM;
    }
    n = split_spaces(copy, v);
    rc = core_config_opt_apply(c, o, n, v, &s, why, why_cap);
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
        const char *spelling;
        const struct core_config_opt *o = core_config_opt_find(names[i], &spelling);
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
            /* Redis keeps an alias as a second entry of its table: an option and its alias
             * are two parameters here, and the later pair wins when both apply. */
            const char *spelling_j = NULL;
            if (core_config_opt_find(names[j], &spelling_j) == o && spelling_j == spelling) {
                bad_name = names[i];
                bad_why = "duplicate parameter";
                break;
            }
        }
    }
    if (unknown != NULL) {
        core_config_err_fmt(err, err_cap,
                            "ERR Unknown option or number of arguments for CONFIG SET - '%s'",
                            unknown);
        return TERSE_ECONFIG;
    }
    if (bad_name != NULL) {
        core_config_err_fmt(err, err_cap,
                            "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                            bad_name, bad_why);
        return TERSE_ECONFIG;
    }
    /* Second pass on a copy, so a failure anywhere leaves c as it was. */
    rc = core_config_copy(&tmp, c);
    if (rc != TERSE_OK) {
        core_config_err_fmt(err, err_cap, "ERR CONFIG SET failed - out of memory");
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const char *spelling;
        const struct core_config_opt *o = core_config_opt_find(names[i], &spelling);
        if (values[i] == NULL) {
            core_config_deinit(&tmp);
            return TERSE_EINVAL;
        }
        why[0] = '\0';
        rc = set_one(&tmp, o, values[i], why, sizeof why);
        if (rc != TERSE_OK) {
            core_config_deinit(&tmp);
            /* Redis names the option by the table's spelling of the name used here (the
             * alias's, when an alias was used), unlike in the first pass. */
            core_config_err_fmt(err, err_cap,
                                "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                                spelling, rc == TERSE_ENOMEM ? "out of memory" : why);
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
static const char *opt_format(const struct core_config *c, const struct core_config_opt *o,
                              char *buf)
{
    size_t n = 0;
    const size_t cap = CORE_CONFIG_VALUE_CAP;

    buf[0] = '\0';
    switch (o->kind) {
    case CORE_CONFIG_KIND_BOOL:
        return *CORE_CONFIG_CPTR(c, o, bool) ? "yes" : "no";
    case CORE_CONFIG_KIND_INT:
    case CORE_CONFIG_KIND_CLAMP:
        (void)snprintf(buf, cap, "%lld", *CORE_CONFIG_CPTR(c, o, long long));
        return buf;
    case CORE_CONFIG_KIND_MEM:
        (void)snprintf(buf, cap, "%llu", (unsigned long long)*CORE_CONFIG_CPTR(c, o, uint64_t));
        return buf;
    case CORE_CONFIG_KIND_STR:
    case CORE_CONFIG_KIND_HOSTPORT:
        return *CORE_CONFIG_CPTR(c, o, char *) != NULL ? *CORE_CONFIG_CPTR(c, o, char *) : "";
    case CORE_CONFIG_KIND_NOTIFY:
        core_config_notify_format(*CORE_CONFIG_CPTR(c, o, int), buf);
        return buf;
    case CORE_CONFIG_KIND_ENUM: {
        int v = *CORE_CONFIG_CPTR(c, o, int);
        for (int i = 0; o->names[i] != NULL; i++) {
            if (i == v) {
                return o->names[i];
            }
        }
        return ""; /* a value no parser stores */
    }
    case CORE_CONFIG_KIND_BIND: {
        const struct core_config_bind *b = CORE_CONFIG_CPTR(c, o, struct core_config_bind);
        for (size_t i = 0; i < b->n_addr && n < cap; i++) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", i == 0 ? "" : " ", b->addr[i]);
        }
        return buf;
    }
    case CORE_CONFIG_KIND_SAVE: {
        const struct core_config_save *s = CORE_CONFIG_CPTR(c, o, struct core_config_save);
        for (size_t i = 0; i < s->n_point && n < cap; i++) {
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld %lld", i == 0 ? "" : " ",
                                  s->point[i].seconds, s->point[i].changes);
        }
        return buf;
    }
    case CORE_CONFIG_KIND_OBUF: {
        static const char *const cls_names[] = {"normal", "slave", "pubsub"};
        const struct core_config_obuf *ob = CORE_CONFIG_CPTR(c, o, struct core_config_obuf);
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
    int c = core_config_lower((unsigned char)ch);

    if (*p == '?') {
        *next = p + 1;
        return true;
    }
    if (*p == '\\' && p[1] != '\0') {
        *next = p + 2;
        return core_config_lower((unsigned char)p[1]) == c;
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
                hit = hit || core_config_lower((unsigned char)p[1]) == c;
                p += 2;
            } else if (p[1] == '-' && p[2] != '\0') {
                int lo = core_config_lower((unsigned char)p[0]);
                int hi = core_config_lower((unsigned char)p[2]);
                if (lo > hi) {
                    int t = lo;
                    lo = hi;
                    hi = t;
                }
                hit = hit || (c >= lo && c <= hi);
                p += 3;
            } else {
                hit = hit || core_config_lower((unsigned char)*p) == c;
                p++;
            }
        }
        *next = *p == ']' ? p + 1 : p;
        return neg ? !hit : hit;
    }
    *next = p + 1;
    return core_config_lower((unsigned char)*p) == c;
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
        const struct core_config_opt *o = core_config_opt_find(pattern, NULL);
        if (o != NULL) {
            emit(arg, pattern, opt_format(c, o, buf));
        }
        return;
    }
    for (size_t i = 0; i < core_config_n_opts; i++) {
        const struct core_config_opt *o = &core_config_opts[i];
        if (glob_match(pattern, o->name)) {
            emit(arg, o->name, opt_format(c, o, buf));
        }
        /* Redis 7.0 lists a matching alias too, under its own name. */
        for (size_t k = 0; k < core_config_n_aliases; k++) {
            const struct core_config_alias *a = &core_config_aliases[k];
            if (a->off == o->off && glob_match(pattern, a->name)) {
                emit(arg, a->name, opt_format(c, o, buf));
            }
        }
    }
}

int core_config_get_one(const struct core_config *c, const char *name, char *dst,
                        size_t dst_cap, size_t *out_len)
{
    char buf[CORE_CONFIG_VALUE_CAP];
    const struct core_config_opt *o;
    const char *v;
    size_t len;

    if (c == NULL || name == NULL || out_len == NULL || (dst == NULL && dst_cap > 0)) {
        return TERSE_EINVAL;
    }
    o = core_config_opt_find(name, NULL);
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
    const struct core_config_opt *o = name != NULL ? core_config_opt_find(name, NULL) : NULL;

    if (o == NULL || out == NULL) {
        return TERSE_ENOTFOUND;
    }
    *out = o->flags;
    return TERSE_OK;
}
