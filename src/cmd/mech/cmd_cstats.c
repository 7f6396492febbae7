/*
 * cmd_cstats: per-command statistics (see cmd_cstats.h): building, resetting and listing
 * the table. The slots are open addressing keyed by the row's address, at most half full:
 * a lookup (cmd_cstat_of, inline) is a multiply, a shift and, nearly always, one compare.
 */
#include "cmd/mech/cmd_cstats.h"

#include <string.h>

#include "cmd/core/cmd_table.h"
#include "terse/status.h"

static void put(struct cmd_cstat *slots, size_t mask, const struct cmd_def *d)
{
    size_t at = cmd_cstat_slot(d, mask);

    while (slots[at].d != NULL && slots[at].d != d) {
        at = (at + 1) & mask;
    }
    slots[at].d = d;
}

int cmd_cstats_build(struct cmd_server *srv)
{
    size_t n = 0, cap = 16;

    for (size_t i = 0; i < srv->n_table; i++) {
        n += 1 + (srv->table[i]->subcmds != NULL ? cmd_subcmd_count(srv->table[i]->subcmds) : 0);
    }
    while (cap < 2 * n) {
        cap *= 2;
    }
    srv->cstats = srv->alloc.alloc(srv->alloc.opaque, cap * sizeof(*srv->cstats));
    if (srv->cstats == NULL) {
        return TERSE_ENOMEM;
    }
    memset(srv->cstats, 0, cap * sizeof(*srv->cstats));
    srv->cstats_mask = cap - 1;
    for (size_t i = 0; i < srv->n_table; i++) {
        const struct cmd_def *d = srv->table[i];
        put(srv->cstats, srv->cstats_mask, d);
        for (const struct cmd_def *s = d->subcmds; s != NULL && s->name != NULL; s++) {
            put(srv->cstats, srv->cstats_mask, s);
        }
    }
    srv->cstats_err_mark = 0;
    return TERSE_OK;
}

void cmd_cstats_free(struct cmd_server *srv)
{
    srv->alloc.free(srv->alloc.opaque, srv->cstats);
    srv->cstats = NULL;
    srv->cstats_mask = 0;
}

void cmd_cstats_reset(struct cmd_server *srv)
{
    for (size_t i = 0; srv->cstats != NULL && i <= srv->cstats_mask; i++) {
        struct cmd_cstat *st = &srv->cstats[i];
        st->calls = st->usec = st->rejected = st->failed = 0;
    }
    cmd_cstats_mark(srv);
}

void cmd_cstats_rejected(struct cmd_server *srv, const struct cmd_def *d)
{
    struct cmd_cstat *st = cmd_cstat_of(srv, d);

    if (st != NULL) {
        st->rejected++;
    }
    cmd_cstats_mark(srv);
}

void cmd_cstats_each(const struct cmd_server *srv,
                     void (*fn)(void *arg, const struct cmd_cstat *st), void *arg)
{
    for (size_t i = 0; i < srv->n_table; i++) {
        const struct cmd_def *d = srv->table[i];
        for (const struct cmd_def *s = d; s != NULL && s->name != NULL;
             s = s == d ? d->subcmds : s + 1) {
            const struct cmd_cstat *st = cmd_cstat_of(srv, s);
            if (st != NULL && (st->calls > 0 || st->rejected > 0 || st->failed > 0)) {
                fn(arg, st);
            }
        }
    }
}
