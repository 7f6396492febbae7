/*
 * cmd_table: the command table.
 *
 * The rows live in one static array per family (cmd_string_defs, ...), which dispatch hands
 * to cmd_table_build at init: they are merged into one array of pointers sorted by name (what
 * COMMAND lists) and a hash table by name (what cmd_lookup searches, case-insensitive): no
 * allocation per lookup. rename-command (cmd_table_rename, at startup) changes the name a
 * command is found by, or takes it out of both; the row, and so the name COMMAND and error
 * texts show, stays its own.
 */
#include "cmd/core/cmd_table.h"


#include <assert.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terse/status.h"


/* ASCII lower case: command names are ASCII, and a locale must not change which one runs. */
static inline int lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int name_cmp(const uint8_t *a, size_t alen, const char *b)
{
    size_t i;

    for (i = 0; i < alen && b[i] != '\0'; i++) {
        int ca = lower(a[i]), cb = (unsigned char)b[i];
        if (ca != cb) {
            return ca - cb;
        }
    }
    if (i < alen) {
        return 1;
    }
    return b[i] == '\0' ? 0 : -1;
}

/* a (len bytes, any case) is b (len bytes, lower case as the table holds names). */
static inline bool name_eq(const uint8_t *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (lower(a[i]) != (uint8_t)b[i]) {
            return false;
        }
    }
    return true;
}

/* FNV-1a over the lower-cased name: the slot of the lookup table (cmd_lookup). */
static uint32_t name_hash(const uint8_t *p, size_t len)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ (uint32_t)lower(p[i])) * 16777619u;
    }
    return h;
}

/* Puts d in slots (mask + 1 of them, never full) under name. */
static void htab_put(struct cmd_name_slot *slots, size_t mask, const char *name,
                     const struct cmd_def *d)
{
    size_t len = strlen(name);
    uint32_t h = name_hash((const uint8_t *)name, len);
    size_t at = h & mask;

    while (slots[at].name != NULL) {
        at = (at + 1) & mask;
    }
    slots[at] = (struct cmd_name_slot){name, d, h, (uint32_t)len};
}

/* Builds srv->htab: every top-level command under its own name, in an open-addressing table at
 * least twice its size (linear probing), so a lookup is one hash and, nearly always, one
 * comparison. */
static int htab_build(struct cmd_server *srv)
{
    size_t cap = 16;

    while (cap < srv->n_table * 2) {
        cap <<= 1;
    }
    srv->htab = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*srv->htab));
    if (srv->htab == NULL) {
        return TERSE_ENOMEM;
    }
    memset((void *)srv->htab, 0, cap * sizeof(*srv->htab));
    srv->htab_mask = cap - 1;
    for (size_t i = 0; i < srv->n_table; i++) {
        htab_put(srv->htab, srv->htab_mask, srv->table[i]->name, srv->table[i]);
    }
    return TERSE_OK;
}

static int def_sort(const void *a, const void *b)
{
    const struct cmd_def *const *x = a;
    const struct cmd_def *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* Case-insensitive equality of two NUL-terminated names (rename-command's are any case). */
static int name_ieq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (lower((uint8_t)*a) != lower((uint8_t)*b)) {
            return 0;
        }
    }
    return *a == *b;
}

int cmd_table_build(struct cmd_server *srv, const struct cmd_def *const *fam, size_t n_fam)
{
    size_t n = 0, k = 0;

    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            n++;
        }
    }
    srv->table = srv->alloc.alloc(srv->alloc.opaque, n * sizeof(*srv->table));
    if (srv->table == NULL) {
        return TERSE_ENOMEM;
    }
    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            srv->table[k++] = d;
        }
    }
    qsort((void *)srv->table, n, sizeof(*srv->table), def_sort);
    srv->n_table = n;
    if (htab_build(srv) != TERSE_OK) {
        srv->alloc.free(srv->alloc.opaque, (void *)srv->table);
        srv->table = NULL;
        return TERSE_ENOMEM;
    }
    srv->renamed = NULL;
    srv->n_renamed = 0;
    return TERSE_OK;
}

void cmd_table_free(struct cmd_server *srv)
{
    srv->alloc.free(srv->alloc.opaque, (void *)srv->table);
    srv->table = NULL;
    srv->n_table = 0;
    srv->alloc.free(srv->alloc.opaque, (void *)srv->htab);
    srv->htab = NULL;
    for (size_t i = 0; i < srv->n_renamed; i++) {
        srv->alloc.free(srv->alloc.opaque, srv->renamed[i]);
    }
    srv->alloc.free(srv->alloc.opaque, (void *)srv->renamed);
    srv->renamed = NULL;
    srv->n_renamed = 0;
}

int cmd_table_has(const struct cmd_def *const *fam, size_t n_fam, const char *name)
{
    for (size_t f = 0; f < n_fam; f++) {
        for (const struct cmd_def *d = fam[f]; d->name != NULL; d++) {
            if (name_ieq(name, d->name)) {
                return 1;
            }
        }
    }
    return 0;
}



size_t cmd_table_count(const struct cmd_server *srv)
{
    return srv->n_table;
}

const struct cmd_def *cmd_table_at(const struct cmd_server *srv, size_t i)
{
    return i < srv->n_table ? srv->table[i] : NULL;
}

const struct cmd_def *cmd_lookup(const struct cmd_server *srv, const uint8_t *name, size_t len)
{
    uint32_t h = name_hash(name, len);

    for (size_t at = h & srv->htab_mask; srv->htab[at].name != NULL;
         at = (at + 1) & srv->htab_mask) {
        const struct cmd_name_slot *s = &srv->htab[at];

        if (s->hash == h && s->len == len && name_eq(name, s->name, len)) {
            return s->d;
        }
    }
    return NULL;
}



int cmd_table_rename(struct cmd_server *srv, const char *from, const char *to)
{
    const struct cmd_def *d = cmd_lookup(srv, (const uint8_t *)from, strlen(from));
    const struct cmd_def *other = cmd_lookup(srv, (const uint8_t *)to, strlen(to));
    size_t cap = srv->htab_mask + 1;
    struct cmd_name_slot *slots;
    char *copy = NULL, **names = NULL;

    if (d == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (to[0] != '\0' && other != NULL && other != d) {
        return TERSE_EINVAL; /* other == d: to is from in another case */
    }
    slots = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*slots));
    if (to[0] != '\0') {
        copy = srv->alloc.alloc(srv->alloc.opaque, strlen(to) + 1);
        names = srv->alloc.alloc(srv->alloc.opaque, (srv->n_renamed + 1) * sizeof(*names));
    }
    if (slots == NULL || (to[0] != '\0' && (copy == NULL || names == NULL))) {
        srv->alloc.free(srv->alloc.opaque, slots);
        srv->alloc.free(srv->alloc.opaque, copy);
        srv->alloc.free(srv->alloc.opaque, (void *)names);
        return TERSE_ENOMEM;
    }
    /* A new table without d's name (open addressing has no cheap delete; this runs at
     * startup only), then d under its new one or out of the table. */
    memset((void *)slots, 0, cap * sizeof(*slots));
    for (size_t i = 0; i < cap; i++) {
        if (srv->htab[i].name != NULL && srv->htab[i].d != d) {
            htab_put(slots, srv->htab_mask, srv->htab[i].name, srv->htab[i].d);
        }
    }
    if (copy != NULL) {
        for (size_t i = 0; i <= strlen(to); i++) {
            copy[i] = (char)lower((uint8_t)to[i]); /* cmd_lookup compares with lower case */
        }
        if (srv->n_renamed > 0) {
            memcpy((void *)names, (void *)srv->renamed, srv->n_renamed * sizeof(*names));
        }
        names[srv->n_renamed++] = copy;
        srv->alloc.free(srv->alloc.opaque, (void *)srv->renamed);
        srv->renamed = names;
        htab_put(slots, srv->htab_mask, copy, d);
    } else {
        size_t i = 0;
        while (i < srv->n_table && srv->table[i] != d) {
            i++;
        }
        assert(i < srv->n_table); /* every command in htab is in table */
        memmove((void *)&srv->table[i], (void *)&srv->table[i + 1],
                (srv->n_table - i - 1) * sizeof(*srv->table));
        srv->n_table--;
    }
    srv->alloc.free(srv->alloc.opaque, (void *)srv->htab);
    srv->htab = slots;
    return TERSE_OK;
}

size_t cmd_subcmd_count(const struct cmd_def *subcmds)
{
    size_t n = 0;

    while (subcmds != NULL && subcmds[n].name != NULL) {
        n++;
    }
    return n;
}

const struct cmd_def *cmd_resolve(const struct cmd_server *srv, const struct resp_slice *argv,
                                  size_t argc)
{
    const struct cmd_def *d = cmd_lookup(srv, argv[0].p, argv[0].len);

    if (d == NULL || d->subcmds == NULL || argc < 2) {
        return d;
    }
    for (const struct cmd_def *s = d->subcmds; s->name != NULL; s++) {
        const char *bar = strchr(s->name, '|');
        if (bar != NULL && name_cmp(argv[1].p, argv[1].len, bar + 1) == 0) {
            return s;
        }
    }
    return NULL;
}

void cmd_reply_help(struct cmd_call *c, const char *const *lines)
{
    size_t n = 0;

    while (lines[n] != NULL) {
        n++;
    }
    resp_write_array(c->out, n);
    for (size_t i = 0; i < n; i++) {
        resp_write_simple(c->out, lines[i]);
    }
}





void cmd_reply_unknown_subcommand(struct cmd_call *c)
{
    char name[129];
    size_t n = c->argv[0].len > 128 ? 128 : c->argv[0].len;
    int sub = c->argv[1].len > 128 ? 128 : (int)c->argv[1].len;

    for (size_t i = 0; i < n; i++) {
        name[i] = (char)toupper(c->argv[0].p[i]);
    }
    name[n] = '\0';
    resp_write_errorf(c->out, "ERR unknown subcommand '%.*s'. Try %s HELP.", sub,
                      (const char *)c->argv[1].p, name);
}







void cmd_push_begin(struct cmd_call *c)
{
    if (c->cl->flags & (CMD_CLIENT_REPLY_OFF | CMD_CLIENT_REPLY_SKIP)) {
        c->out->len = c->pushed;
    }
}

void cmd_push_end(struct cmd_call *c)
{
    c->pushed = c->out->len;
}

