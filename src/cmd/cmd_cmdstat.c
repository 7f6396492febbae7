/*
 * cmd_cmdstat: INFO commandstats, as Redis 7.0 keeps it: per command and subcommand, calls,
 * microseconds spent, rejected calls (refused before they ran: arity, NOAUTH, OOM, not allowed
 * in a transaction...) and failed calls (they ran and replied an error).
 *
 * A row of the command table is found by its address: at init every row (subcommands too) is
 * put in an array sorted by address, beside one counter record each; both are owned by the
 * server (from alloc) and freed by cmd_cmdstat_free. A command then costs a binary search
 * over a few hundred pointers and the two monotonic clock reads around it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_internal.h"
#include "terse/status.h"

struct cmd_cmdstat {
    const struct cmd_def *d;
    uint64_t calls, usec, rejected, failed;
};

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct cmd_cmdstat *)a)->d;
    uintptr_t y = (uintptr_t)((const struct cmd_cmdstat *)b)->d;

    return (x > y) - (x < y);
}

int cmd_cmdstat_init(struct cmd_server *srv)
{
    size_t n = 0, k = 0;

    for (size_t i = 0; i < srv->n_table; i++) {
        n += 1 + cmd_subcmd_count(srv->table[i]->subcmds);
    }
    srv->cmdstats = srv->alloc.alloc(srv->alloc.opaque, n * sizeof(*srv->cmdstats));
    if (srv->cmdstats == NULL) {
        return TERSE_ENOMEM;
    }
    memset(srv->cmdstats, 0, n * sizeof(*srv->cmdstats));
    for (size_t i = 0; i < srv->n_table; i++) {
        const struct cmd_def *d = srv->table[i];
        srv->cmdstats[k++].d = d;
        for (const struct cmd_def *s = d->subcmds; s != NULL && s->name != NULL; s++) {
            srv->cmdstats[k++].d = s;
        }
    }
    qsort(srv->cmdstats, n, sizeof(*srv->cmdstats), by_address);
    srv->n_cmdstats = n;
    return TERSE_OK;
}

void cmd_cmdstat_free(struct cmd_server *srv)
{
    srv->alloc.free(srv->alloc.opaque, srv->cmdstats);
    srv->cmdstats = NULL;
    srv->n_cmdstats = 0;
}

void cmd_cmdstat_reset(struct cmd_server *srv)
{
    for (size_t i = 0; i < srv->n_cmdstats; i++) {
        const struct cmd_def *d = srv->cmdstats[i].d;
        memset(&srv->cmdstats[i], 0, sizeof(srv->cmdstats[i]));
        srv->cmdstats[i].d = d;
    }
}

static struct cmd_cmdstat *find(struct cmd_server *srv, const struct cmd_def *d)
{
    size_t lo = 0, hi = srv->n_cmdstats;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (srv->cmdstats[mid].d == d) {
            return &srv->cmdstats[mid];
        }
        if ((uintptr_t)srv->cmdstats[mid].d < (uintptr_t)d) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

void cmd_cmdstat_count(struct cmd_server *srv, const struct cmd_def *d, enum cmd_cmdstat_what what,
                       uint64_t usec)
{
    struct cmd_cmdstat *st = find(srv, d);

    if (st == NULL) {
        return;
    }
    st->usec += usec;
    switch (what) {
    case CMD_STAT_CALL:
        st->calls++;
        break;
    case CMD_STAT_FAILED_CALL:
        st->calls++;
        st->failed++;
        break;
    case CMD_STAT_FAILED:
        st->failed++;
        break;
    case CMD_STAT_REJECTED:
        st->rejected++;
        break;
    }
}

void cmd_cmdstat_info(struct cmd_server *srv,
                      void (*line)(void *arg, const char *name, uint64_t calls, uint64_t usec,
                                   uint64_t rejected, uint64_t failed),
                      void *arg)
{
    /* Table order (names sorted, a container's subcommands after it); Redis's is its dict's. */
    for (size_t i = 0; i < srv->n_table; i++) {
        const struct cmd_def *d = srv->table[i];
        for (const struct cmd_def *s = d; s != NULL && s->name != NULL;
             s = s == d ? d->subcmds : s + 1) {
            const struct cmd_cmdstat *st = find(srv, s);
            if (st != NULL && (st->calls || st->rejected || st->failed)) {
                line(arg, s->name, st->calls, st->usec, st->rejected, st->failed);
            }
        }
    }
}
