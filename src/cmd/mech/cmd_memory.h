/*
 * cmd_memory: the memory budget: maxmemory admission before a command, eviction, and the
 * background compression steps that run before anything is evicted.
 */
#ifndef TERSE_CMD_MEMORY_H
#define TERSE_CMD_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The maxmemory admission of d about to run as c (Redis's performEvictions
 * before a command): evicts as the policy allows; returns 1 to run the command, 0 when it
 * does not fit and is a CMD_DENYOOM command or deny is set (nothing is replied). */
int cmd_memory_admit(struct cmd_call *c, const struct cmd_def *d, int deny);

enum cmd_evict_result {
    CMD_EVICT_OK = 0,      /* within maxmemory (none set, or enough was evicted) */
    CMD_EVICT_RUNNING = 1, /* keys were evicted but the time ran out before enough was */
    CMD_EVICT_FAIL = 2     /* over maxmemory: noeviction, or no key left to evict */
};

/*
 * Evicts keys under the configured maxmemory-policy until hooks.mem_used() + need fits in
 * settings.maxmemory, for at most budget_us microseconds (hooks.now_us; at least one batch
 * of keys is evicted whatever the budget). need: bytes a write about to run will add (0 to
 * just bring memory under the limit, as cron does). Counts evicted keys in stats. May free
 * memory; allocates nothing. Worker thread only.
 */
enum cmd_evict_result cmd_memory_evict(struct cmd_server *srv, size_t need, uint64_t budget_us,
                                       int64_t now_ms);
/*
 * One background compression step (store_compress_step with the server's codec context) for
 * at most budget_us microseconds (hooks.now_us), or until want_bytes of stored value bytes were
 * saved (0: no goal). Lowers stats.stored_value_bytes by what it saved, and returns that. Worker
 * thread only; called from the server's idle hook and cron, and by cmd_memory_evict before it
 * evicts anything.
 */
size_t cmd_compress_step(struct cmd_server *srv, uint64_t budget_us, size_t want_bytes);
/* The step a busy loop runs between requests (the cron's share of its period, srv_cron.c):
 * cmd_compress_step with no goal, but the chunks of big containers compressed at LZ4's fast
 * level (a 4 KiB chunk in about 6 us instead of LZ4HC's 20-40 us, a request waiting behind
 * it waits that much less); idle steps compress them at terse-compression-level. */
size_t cmd_compress_slice(struct cmd_server *srv, uint64_t budget_us);
/* 1 when values await background compression and terse-compression is not off (values left
 * pending by a switch to off, or loaded from a snapshot, wait until it is on again). */
int cmd_compress_pending(const struct cmd_server *srv);
/* Values and chunks awaiting background compression. */
size_t cmd_compress_backlog(const struct cmd_server *srv);
/* Redis's eviction time limit for a maxmemory-eviction-tenacity (0..100): 50 us per step up to
 * 10, then 15% more per step; UINT64_MAX (no limit) at 100. */
uint64_t cmd_memory_evict_budget_us(int tenacity);

/* Bytes the lazy-free queue gives back per step at least (cron, eviction). */
#define CMD_LAZYFREE_STEP (4u * 1024 * 1024)
/* Frees chunked containers released by deletes, flushes and evictions for up to budget
 * bytes (0: all): Redis's lazyfree, in bounded steps on the worker. Returns bytes freed. */
size_t cmd_lazyfree_step(struct cmd_server *srv, size_t budget);

#endif /* TERSE_CMD_MEMORY_H */
