/*
 * cmd_cstats: per-command statistics (INFO commandstats), as Redis 7.0 keeps them: for every
 * command and subcommand row, the calls that ran, the microseconds they took, the calls
 * refused before they ran (rejected_calls: wrong arity, -OOM, NOAUTH, ...) and the calls that
 * ran and answered an error (failed_calls).
 *
 * A call is counted when it ends: a blocking command that waits is counted once, when it is
 * served, times out or is unblocked, with the time of its runs (not of its wait), as Redis's
 * updateStatsOnUnblock does. An error is charged to the innermost call that wrote it: a
 * command inside EXEC or a script that fails makes that command failed, not EXEC or EVAL,
 * unless they answer an error of their own.
 *
 * Memory: the table (one slot per row, keyed by the row's address) is built from the server's
 * allocator by cmd_cstats_build at init and freed by cmd_cstats_free; counting allocates
 * nothing.
 */
#ifndef TERSE_CMD_CSTATS_H
#define TERSE_CMD_CSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

struct cmd_cstat {
    const struct cmd_def *d; /* NULL: a free slot */
    uint64_t calls, usec, rejected, failed;
};

/* Builds srv->cstats for every row of srv's table and their subcommands (after
 * cmd_table_build). TERSE_OK or TERSE_ENOMEM (nothing kept). */
int cmd_cstats_build(struct cmd_server *srv);
void cmd_cstats_free(struct cmd_server *srv);
/* Zeroes every counter (CONFIG RESETSTAT). */
void cmd_cstats_reset(struct cmd_server *srv);

/* Where d's search starts in a table of mask + 1 slots (Fibonacci hashing of its address). */
static inline size_t cmd_cstat_slot(const struct cmd_def *d, size_t mask)
{
    return (size_t)(((uint64_t)(uintptr_t)d * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}
/* d's slot, NULL for a row outside the table. Inline: every command looks its row up. */
static inline struct cmd_cstat *cmd_cstat_of(const struct cmd_server *srv,
                                             const struct cmd_def *d)
{
    size_t mask = srv->cstats_mask, at = cmd_cstat_slot(d, mask);

    if (srv->cstats == NULL) {
        return NULL;
    }
    while (srv->cstats[at].d != d) {
        if (srv->cstats[at].d == NULL) {
            return NULL;
        }
        at = (at + 1) & mask;
    }
    return &srv->cstats[at];
}
/* d ran to its end in usec microseconds: a call, failed when an error reply was counted
 * since the last call or refusal ended (cmd_count_error). Returns d's slot (NULL: none). */
static inline struct cmd_cstat *cmd_cstats_called(struct cmd_server *srv,
                                                  const struct cmd_def *d, uint64_t usec)
{
    struct cmd_cstat *st = cmd_cstat_of(srv, d);

    if (st != NULL) {
        st->calls++;
        st->usec += usec;
        st->failed += srv->stats.total_error_replies != srv->cstats_err_mark;
    }
    srv->cstats_err_mark = srv->stats.total_error_replies;
    return st;
}
/* d was refused before it ran, its error reply written. */
void cmd_cstats_rejected(struct cmd_server *srv, const struct cmd_def *d);
/* The clock calls are timed with: hooks.now_unix_us (one read gives a top-level command its
 * now_ms and its start), 0 without the hook. */
static inline int64_t cmd_cstats_clock(const struct cmd_server *srv)
{
    return srv->hooks.now_unix_us != NULL ? srv->hooks.now_unix_us(srv->hooks.srv) : 0;
}
/* Microseconds from t0 to now; 0 if the wall clock stepped back. */
static inline uint64_t cmd_cstats_since(const struct cmd_server *srv, int64_t t0)
{
    int64_t t1 = cmd_cstats_clock(srv);

    return t1 > t0 ? (uint64_t)(t1 - t0) : 0;
}
/* Errors counted so far are nobody's (a command starts at the top level). */
static inline void cmd_cstats_mark(struct cmd_server *srv)
{
    srv->cstats_err_mark = srv->stats.total_error_replies;
}

/* The running call ends failed though the error it answers was counted already (a script
 * answering the error of a command it called, as Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE):
 * the mark is put behind the count, which no error moves. */
static inline void cmd_cstats_fail_running(struct cmd_server *srv)
{
    srv->cstats_err_mark = srv->stats.total_error_replies - 1;
}

/* Calls fn for every row with a count, in name order (Redis's "cmdstat_<name>" lines). */
void cmd_cstats_each(const struct cmd_server *srv,
                     void (*fn)(void *arg, const struct cmd_cstat *st), void *arg);

#endif /* TERSE_CMD_CSTATS_H */
