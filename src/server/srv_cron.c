/*
 * srv_cron: periodic work, hz times a second, each part bounded so no run stalls clients.
 *
 * Active expiry gets 25% of the period (Redis's ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC), scaled
 * by active-expire-effort; rehashing gets a fixed number of bucket steps. When memory is over
 * maxmemory (CONFIG SET lowered it, or client buffers grew) keys are evicted down to it for
 * at most CRON_EVICT_BUDGET_US per run, so a large drop is spread over many runs.
 *
 * Background compression (values written raw, terse-compression background) runs in steps of
 * SRV_IDLE_COMPRESS_US whenever the loop is idle (srv_idle: no event for SRV_IDLE_GRACE_MS,
 * so the gaps of a client's pipelined stream are not taken for idle time; from then on the
 * loop polls without waiting while values are pending, and a request that arrives waits for
 * at most one step), and for CRON_COMPRESS_PCT of every cron period, so it progresses under a
 * load that never leaves the loop idle without taking a large share from requests. Under
 * memory pressure, admission compresses before evicting (cmd_memory.c); within a span of
 * maxmemory only the cron compresses, and evicts (or reclaims) right after. Once compression
 * has freed CRON_TRIM_OWED bytes of RAW copies (or a MiB, once nothing is left pending), the
 * cron gives the heap's free pages back to the system (malloc_trim), so RSS follows
 * used_memory down.
 */
#include <malloc.h>
#include <stdint.h>

#include "core/core_mem.h"
#include "core/core_time.h"
#include "server/aof/srv_aof.h"
#include "server/snapshot/srv_persist.h"
#include "server/snapshot/srv_rdb.h"
#include "server/srv_conn.h"
#include "server/srv_cron.h"
#include "store/store.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/mech/cmd_feed.h"
#include "cmd/mech/cmd_memory.h"
#include "cmd/core/cmd_value.h"

#define CRON_REHASH_STEPS 100 /* buckets moved per database per run */
#define CRON_SCRATCH_KEEP (1024 * 1024) /* command scratch above this is released */
#define CRON_EVICT_BUDGET_US 2000 /* eviction time per run while over maxmemory */
#define CRON_COMPRESS_PCT 5 /* share of the cron period given to background compression */
#define SRV_IDLE_COMPRESS_US 1000 /* one idle-time compression step */
/* Idle steps while little waits run at most this often: a step's lap over a big container's
 * chunks (to find the few a write marked) is then paid once for the writes of 10 ms, not
 * after each (a 200,000-field hash: 155,000 instructions of lap per HSET otherwise). */
#define SRV_IDLE_COMPRESS_GAP_US 10000
#define SRV_IDLE_BACKLOG 64 /* values and chunks waiting that make an idle step run at once */
/* While clients keep the loop busy, the cron's share of compression is spent in slices this
 * long, one per loop turn, so a request waits one chunk's compression at most, not the whole
 * share at once (a 5 ms step every 100 ms was a busy stream's p99). */
#define SRV_COMPRESS_SLICE_US 50
#define CRON_TRIM_OWED ((size_t)32 << 20) /* compression's frees that earn a malloc_trim */
#define SRV_IDLE_GRACE_MS 1       /* no event for this long: the loop is idle */

static uint64_t mono_us(void)
{
    return core_time_mono_us();
}

int srv_cron_timeout_ms(const struct srv *s)
{
    int period = (int)(1000 / (s->cfg.hz > 0 ? s->cfg.hz : 10));
    int64_t left = s->last_cron_ms + period - core_time_unix_ms();

    if (left < 0) {
        return 0;
    }
    return left > period ? period : (int)left;
}

int srv_poll_timeout_ms(const struct srv *s)
{
    int cron = srv_cron_timeout_ms(s);

    if (s->sched != NULL) {
        return 0; /* clients to resume (srv_clients_resume) */
    }
    if (s->cmd.block_next_deadline != 0) {
        /* Wake for the earliest blocked client's timeout. */
        int64_t left = s->cmd.block_next_deadline - core_time_unix_ms();
        if (left < cron) {
            cron = left < 0 ? 0 : (int)left;
        }
    }

    if (!cmd_compress_pending(&s->cmd) || cmd_memory_near_limit(&s->cmd)) {
        return cron; /* nothing to do, or only the cron may do it (srv_cron) */
    }
    if (s->idle && cmd_compress_backlog(&s->cmd) < SRV_IDLE_BACKLOG) {
        /* Little waits: the next idle step comes after the gap (srv_idle). */
        uint64_t since = mono_us() - s->idle_step_us;
        if (since < SRV_IDLE_COMPRESS_GAP_US) {
            int wait = (int)((SRV_IDLE_COMPRESS_GAP_US - since + 999) / 1000);
            return wait < cron ? wait : cron;
        }
    }
    return s->idle || cron < SRV_IDLE_GRACE_MS ? 0 : SRV_IDLE_GRACE_MS;
}

/* One slice of the compression time the cron granted (compress_owed_us). */
static void compress_slice(struct srv *s)
{
    uint64_t start, spent;

    if (s->compress_owed_us == 0) {
        return;
    }
    if (!cmd_compress_pending(&s->cmd)) {
        s->compress_owed_us = 0;
        return;
    }
    start = mono_us();
    s->trim_owed += cmd_compress_slice(&s->cmd, SRV_COMPRESS_SLICE_US);
    spent = mono_us() - start;
    s->compress_owed_us -= spent < s->compress_owed_us ? spent : s->compress_owed_us;
}

/* Called after every poll with the number of events it handled: after a poll that waited
 * and found nothing, one background compression step of SRV_IDLE_COMPRESS_US (one every
 * SRV_IDLE_COMPRESS_GAP_US while fewer than SRV_IDLE_BACKLOG wait; a step gives way as soon
 * as a client waits: cmd_compress_step). */
static void srv_idle(struct srv *s, int n_events)
{
    if (n_events > 0) {
        s->idle = 0;
        compress_slice(s);
        return;
    }
    /* A poll with no event: idle if it waited (or already was idle). A 0 timeout because the
     * cron is due is not evidence of idleness. */
    if (s->idle || srv_cron_timeout_ms(s) > 0) {
        s->idle = 1;
    }
    if (s->idle) {
        uint64_t now = mono_us();
        if (now - s->idle_step_us >= SRV_IDLE_COMPRESS_GAP_US ||
            cmd_compress_backlog(&s->cmd) >= SRV_IDLE_BACKLOG) {
            s->idle_step_us = now;
            s->trim_owed += cmd_compress_step(&s->cmd, SRV_IDLE_COMPRESS_US, 0);
        }
    }
}

static void srv_cron(struct srv *s)
{
    int64_t now = core_time_unix_ms();
    int period = (int)(1000 / (s->cfg.hz > 0 ? s->cfg.hz : 10));
    uint64_t budget_us;

    if (now - s->last_cron_ms < period) {
        return;
    }
    s->last_cron_ms = now;
    /* A replica neither evicts nor expires on its own: the master's DELs do (as Redis). */
    if (s->cmd.settings.maxmemory != 0 && !srv_is_replica(s)) {
        cmd_memory_evict(&s->cmd, 0, CRON_EVICT_BUDGET_US, now);
    }
    if (s->cmd.settings.active_expire && !srv_is_replica(s)) {
        budget_us = (uint64_t)period * 1000u * 25u / 100u;
        budget_us += budget_us * (uint64_t)(s->cfg.active_expire_effort - 1) / 4u;
        store_active_expire(s->shard, now, budget_us, mono_us);
        cmd_feed_flush(&s->cmd, 0); /* the expired keys' DELs, never wrapped (as Redis) */
    }
    budget_us = (uint64_t)period * 1000u * CRON_COMPRESS_PCT / 100u;
    if (cmd_compress_pending(&s->cmd) && cmd_memory_near_limit(&s->cmd)) {
        /* At the limit the idle-time steps wait (a step may open a span before it frees
         * one). Here the step runs anyway and eviction, or reclaim under noeviction, takes
         * used_memory back under maxmemory right after: pending values never wait forever. */
        s->trim_owed += cmd_compress_step(&s->cmd, budget_us, SIZE_MAX);
        cmd_memory_evict(&s->cmd, 0, CRON_EVICT_BUDGET_US, now);
    } else {
        /* Granted, and spent a slice at a time (srv_idle); what a period leaves unspent does
         * not pile up past two periods' worth. */
        s->compress_owed_us += budget_us;
        if (s->compress_owed_us > 2 * budget_us) {
            s->compress_owed_us = 2 * budget_us;
        }
        compress_slice(s);
    }
    (void)cmd_lazyfree_step(&s->cmd, CMD_LAZYFREE_STEP);
    if (s->cfg.activerehashing) {
        store_rehash_step(s->shard, CRON_REHASH_STEPS);
    }
    srv_persist_cron(s, now);
    srv_aof_cron(s, now);
    srv_clients_sweep(s, now);
    cmd_server_trim(&s->cmd, CRON_SCRATCH_KEEP);
    srv_rdb_trim(s, CRON_SCRATCH_KEEP);
    if (s->trim_owed >= CRON_TRIM_OWED ||
        (s->trim_owed >= CRON_TRIM_OWED / 32 && !cmd_compress_pending(&s->cmd))) {
        /* Compression frees the RAW copy of each value and chunk it packs: glibc keeps those
         * holes in the heap, so RSS would stay at the uncompressed size. Give the free pages
         * back (what MEMORY PURGE does), once per CRON_TRIM_OWED freed, and when the pass has
         * caught up with more than a MiB freed. */
        malloc_trim(0);
        s->trim_owed = 0;
    }
}

void srv_background(struct srv *s, int n_events)
{
    uint64_t a0, f0, a1, f1;

    core_mem_calls(&a0, &f0);
    srv_idle(s, n_events);
    srv_cron(s);
    core_mem_calls(&a1, &f1);
    s->bg_alloc += a1 - a0;
    s->bg_free += f1 - f0;
}
