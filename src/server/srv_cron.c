/*
 * srv_cron: periodic work, hz times a second, each part bounded so no run stalls clients.
 *
 * Active expiry gets 25% of the period (Redis's ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC), scaled
 * by active-expire-effort; rehashing gets a fixed number of bucket steps. When memory is over
 * maxmemory (CONFIG SET lowered it, or client buffers grew) keys are evicted down to it for
 * at most CRON_EVICT_BUDGET_US per run, so a large drop is spread over many runs.
 */
#include "core/core_time.h"
#include "server/srv_internal.h"
#include "store/store.h"

#define CRON_REHASH_STEPS 100 /* buckets moved per database per run */
#define CRON_SCRATCH_KEEP (1024 * 1024) /* command scratch above this is released */
#define CRON_EVICT_BUDGET_US 2000 /* eviction time per run while over maxmemory */

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

void srv_cron(struct srv *s)
{
    int64_t now = core_time_unix_ms();
    int period = (int)(1000 / (s->cfg.hz > 0 ? s->cfg.hz : 10));
    uint64_t budget_us;

    if (now - s->last_cron_ms < period) {
        return;
    }
    s->last_cron_ms = now;
    if (s->cmd.settings.maxmemory != 0) {
        cmd_memory_evict(&s->cmd, 0, CRON_EVICT_BUDGET_US, now);
    }
    if (s->cmd.settings.active_expire) {
        budget_us = (uint64_t)period * 1000u * 25u / 100u;
        budget_us += budget_us * (uint64_t)(s->cfg.active_expire_effort - 1) / 4u;
        store_active_expire(s->shard, now, budget_us, mono_us);
    }
    if (s->cfg.activerehashing) {
        store_rehash_step(s->shard, CRON_REHASH_STEPS);
    }
    srv_persist_cron(s, now);
    srv_clients_sweep(s, now);
    cmd_server_trim(&s->cmd, CRON_SCRATCH_KEEP);
}
