/*
 * cmd_memory: the memory budget: maxmemory admission, eviction and background compression.
 *
 * Budget. Before a command runs, cmd_dispatch asks cmd_memory_admit whether it may: with a
 * maxmemory set, the bytes the server holds (hooks.mem_used, which counts the store, client
 * buffers, codec contexts and scratch: everything from core_mem) plus the estimated cost of
 * the write must stay within it. When they do not, keys are evicted under maxmemory-policy
 * (store_evict) for at most the time maxmemory-eviction-tenacity allows, as Redis 7.0's
 * performEvictions does:
 *
 *   used + need <= maxmemory          -> run                       (CMD_EVICT_OK)
 *   evicted enough                    -> run                       (CMD_EVICT_OK)
 *   out of time, but keys went        -> a read runs, cron evicts the rest; a write keeps
 *                                        evicting until it fits   (CMD_EVICT_RUNNING)
 *   noeviction, or nothing to evict   -> a CMD_DENYOOM command gets -OOM and runs nothing;
 *                                        reads and deletes run     (CMD_EVICT_FAIL)
 *
 * Unlike Redis, which admits any write while used <= maxmemory, the estimate of the write is
 * counted before it runs, so the budget holds to within one eviction step rather than one
 * write. The estimate (write_cost) is store_cost_now (what the arena and index would grow by
 * now) for the key with the codec's bound of the other arguments as its value: never below
 * what the write stores, since a value is stored compressed or raw, never larger than
 * codec_value_bound of its bytes.
 *
 * Values awaiting background compression (terse-compression background) are compressed
 * before any key is evicted: cmd_memory_evict first runs compression steps within the same
 * time budget, crediting the drop of mem_used they cause, and evicts only if that was not
 * enough. Under noeviction, what deleted keys left dead in the arena is then compacted away
 * (store_reclaim) before a write is refused, as a DEL in Redis gives its memory back at once.
 * Before any of it, the emptied buffers of other clients shrink back (hooks.trim_buffers):
 * a pipeline's replies or requests would otherwise keep their high-water mark in the budget.
 *
 * Freed bytes are credited as the larger of what store_evict reports and the drop of
 * mem_used, so a store that keeps freed space in its arenas (reusable, not returned to the
 * allocator) is not emptied by one admission.
 */
#include "cmd/mech/cmd_memory.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cmd/mech/cmd_feed.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_value.h"
#include "terse/status.h"
#include "coll/coll.h"

#define EVICT_CHUNK_KEYS 16              /* keys per store_evict call between clock reads */
#define RECLAIM_STEP_BYTES (64u * 1024)  /* bytes store_reclaim moves between clock reads */
#define EVICT_TENACITY_LINEAR 10         /* up to here: EVICT_US_PER_TENACITY per step */
#define EVICT_US_PER_TENACITY 50         /* microseconds */
#define EVICT_TENACITY_UNLIMITED 100     /* this tenacity evicts until done */

/* ---- the budget -------------------------------------------------------------------------- */

uint64_t cmd_memory_evict_budget_us(int tenacity)
{
    double us = EVICT_US_PER_TENACITY * EVICT_TENACITY_LINEAR;

    if (tenacity <= EVICT_TENACITY_LINEAR) {
        return (uint64_t)(tenacity < 0 ? 0 : tenacity) * EVICT_US_PER_TENACITY;
    }
    if (tenacity >= EVICT_TENACITY_UNLIMITED) {
        return UINT64_MAX;
    }
    /* Above the linear range the limit grows by 15% a step, as Redis's. */
    for (int i = EVICT_TENACITY_LINEAR; i < tenacity; i++) {
        us *= 1.15;
    }
    return (uint64_t)us;
}




/* Chunks of chunked containers awaiting compression. */
static uint64_t chunks_pending(const struct cmd_server *srv)
{
    struct coll_env_stats st;

    coll_env_stats_get(store_coll_env(srv->shard), &st);
    return st.n_pending;
}

size_t cmd_compress_backlog(const struct cmd_server *srv)
{
    return srv->shard == NULL ? 0 : store_pending_count(srv->shard) + chunks_pending(srv);
}

int cmd_compress_pending(const struct cmd_server *srv)
{
    return srv->shard != NULL && srv->settings.compression != CMD_COMPRESS_OFF &&
           (store_pending_count(srv->shard) > 0 || chunks_pending(srv) > 0);
}

/* A background step's clock: the server's, but past any budget once a client waits (after
 * the step's first look, which is its start), so the step ends after the value or chunk it is
 * on and the loop serves the client: a request never waits behind more than one. */
struct step_clock {
    struct cmd_server *srv;
    bool started;  /* the step's start was read */
    bool gave_way; /* a client waited: what is left of the step waits too */
};

#define STEP_GIVE_WAY_US ((uint64_t)1 << 40)

static uint64_t step_now(void *arg)
{
    struct step_clock *k = arg;
    struct cmd_hooks *h = &k->srv->hooks;
    uint64_t now = h->now_us(h->srv);

    if (k->started && h->input_ready != NULL && h->input_ready(h->srv)) {
        k->gave_way = true;
        return now + STEP_GIVE_WAY_US;
    }
    k->started = true;
    return now;
}

/* The step of cmd_compress_step and cmd_compress_slice: busy, chunks at LZ4's fast level. */
static size_t compress_step(struct cmd_server *srv, uint64_t budget_us, size_t want_bytes,
                            bool busy)
{
    /* A step with a goal (admission, the cron at the limit) frees memory a write waits for:
     * it does not give way. */
    struct step_clock clock = {srv, false, false};
    uint64_t (*now)(void *) = want_bytes == 0 && srv->hooks.now_us != NULL ? step_now
                                                                           : srv->hooks.now_us;
    void *now_arg = now == step_now ? (void *)&clock : srv->hooks.srv;
    /* scratch2 holds nothing between commands (and admission runs before the write uses it);
     * the write path grew it to the largest recent value, so the step needs no buffer. */
    struct store_compress_budget b = {budget_us, now, now_arg, want_bytes, srv->scratch2,
                                      srv->scratch2_cap};
    size_t saved = 0;

    if (!cmd_compress_pending(srv)) {
        return 0;
    }
    /* Background work must not be what pushes used_memory over maxmemory: a step may open a
     * span before it frees the one it empties. Near the budget, admission compresses instead
     * (want_bytes > 0) and checks used_memory afterwards. */
    if (want_bytes == 0 && cmd_memory_near_limit(srv)) {
        return 0;
    }
    if (store_pending_count(srv->shard) > 0) {
        (void)store_compress_step(srv->shard, srv->codec, &b, &saved);
        srv->stats.stored_value_bytes -= saved < srv->stats.stored_value_bytes
                                             ? saved
                                             : srv->stats.stored_value_bytes;
    }
    clock.started = false; /* the chunks' step reads its own start */
    if (chunks_pending(srv) > 0 && (want_bytes == 0 || saved < want_bytes) && !clock.gave_way) {
        /* Then the chunks of big containers, in what is left of the step's time. */
        struct coll_env *env = store_coll_env(srv->shard);
        int level = codec_ctx_level(srv->codec);
        coll_env_set_codec(env, srv->codec);
        if (busy && level != CODEC_LEVEL_FAST) {
            (void)codec_ctx_level_set(srv->codec, CODEC_LEVEL_FAST); /* needs no memory */
        }
        saved += coll_compress_step(env, budget_us, now, now_arg,
                                    want_bytes == 0 ? 0 : want_bytes - saved);
        (void)codec_ctx_level_set(srv->codec, level); /* its state exists: cannot fail */
    }
    return saved;
}

size_t cmd_compress_step(struct cmd_server *srv, uint64_t budget_us, size_t want_bytes)
{
    return compress_step(srv, budget_us, want_bytes, false);
}

size_t cmd_compress_slice(struct cmd_server *srv, uint64_t budget_us)
{
    return compress_step(srv, budget_us, 0, true);
}

/* Under noeviction: one step compacting away what deleted keys left dead in the arena.
 * CMD_EVICT_OK when the write fits, CMD_EVICT_RUNNING when the step moved something (the
 * caller estimates the write again: the step may have opened a span with room for it), or
 * CMD_EVICT_FAIL when nothing is left to reclaim. */
static enum cmd_evict_result reclaim(struct cmd_server *srv, size_t need)
{
    size_t moved = store_reclaim(srv->shard, RECLAIM_STEP_BYTES);

    if (cmd_mem_used(srv) + need <= srv->settings.maxmemory) {
        return CMD_EVICT_OK;
    }
    return moved > 0 ? CMD_EVICT_RUNNING : CMD_EVICT_FAIL;
}

static enum cmd_evict_result evict(struct cmd_server *srv, size_t need, uint64_t budget_us,
                                   int64_t now_ms)
{
    const struct cmd_settings *st = &srv->settings;
    uint64_t used, target, released = 0, start_us;

    if (st->maxmemory == 0 || srv->hooks.mem_used == NULL) {
        return CMD_EVICT_OK;
    }
    used = cmd_mem_used(srv);
    if (used + need <= st->maxmemory) {
        return CMD_EVICT_OK;
    }
    if (srv->shard == NULL) {
        return CMD_EVICT_FAIL;
    }
    target = used + need - st->maxmemory;
    start_us = srv->hooks.now_us != NULL ? srv->hooks.now_us(srv->hooks.srv) : 0;
    /* Compressing what is pending frees memory without losing a key: first. */
    while (cmd_compress_pending(srv)) {
        uint64_t now_used, spent;

        spent = srv->hooks.now_us != NULL ? srv->hooks.now_us(srv->hooks.srv) - start_us : 0;
        (void)cmd_compress_step(srv, spent < budget_us ? budget_us - spent : 0,
                                (size_t)(target - released));
        now_used = cmd_mem_used(srv);
        released = used > now_used ? used - now_used : 0;
        if (released >= target) {
            return CMD_EVICT_OK;
        }
        spent = srv->hooks.now_us != NULL ? srv->hooks.now_us(srv->hooks.srv) - start_us : 0;
        if (spent >= budget_us && cmd_compress_pending(srv)) {
            /* Memory is going down: a write comes back for more (cmd_memory_admit). */
            return CMD_EVICT_RUNNING;
        }
    }
    if (!st->evict_enabled) {
        return reclaim(srv, need);
    }
    for (;;) {
        size_t n = 0, rel;
        uint64_t now_used, drop;

        rel = store_evict(srv->shard, &st->evict, (size_t)(target - released), EVICT_CHUNK_KEYS,
                          now_ms, &n);
        srv->stats.evicted_keys += n;
        now_used = cmd_mem_used(srv);
        drop = used > now_used ? used - now_used : 0;
        /* Done only when the allocator's own figure has room: what the store frees can stay
         * in its arena spans for a while, and maxmemory is about used_memory. */
        if (now_used + need <= st->maxmemory) {
            return CMD_EVICT_OK;
        }
        released = drop < target ? drop : target - 1; /* ask for what is still missing */
        if (n == 0 && rel == 0) {
            return CMD_EVICT_FAIL; /* no candidate left under this policy */
        }
        if (srv->hooks.now_us == NULL ||
            srv->hooks.now_us(srv->hooks.srv) - start_us >= budget_us) {
            return CMD_EVICT_RUNNING;
        }
    }
}

size_t cmd_lazyfree_step(struct cmd_server *srv, size_t budget)
{
    return srv->shard != NULL ? coll_free_step(store_coll_env(srv->shard), budget) : 0;
}

enum cmd_evict_result cmd_memory_evict(struct cmd_server *srv, size_t need, uint64_t budget_us,
                                       int64_t now_ms)
{
    enum cmd_evict_result r;

    /* Containers released to the lazy-free queue give their memory back first. */
    (void)cmd_lazyfree_step(srv, need > 0 ? need + CMD_LAZYFREE_STEP : CMD_LAZYFREE_STEP);
    r = evict(srv, need, budget_us, now_ms);

    if (srv->feed.n_ops > 0) {
        cmd_feed_flush(srv, 0); /* the evicted keys' DELs, before the command that needed room */
    }
    return r;
}

/* Index of the last key argument of d for argc arguments (Redis's key range rules). */
static size_t last_key(const struct cmd_def *d, size_t argc)
{
    long last = d->last_key >= 0 ? d->last_key : (long)argc + d->last_key;

    if (last >= (long)argc) {
        last = (long)argc - 1;
    }
    return last < d->first_key ? (size_t)d->first_key : (size_t)last;
}

/*
 * What a CMD_DENYOOM command may add to the store: store_cost of each key, with the codec
 * bound of the other arguments' bytes as the value of the first key (or, for key/value pairs
 * such as MSET, of the argument after each key); COPY and the hash writes add the size of the
 * entry at their first key.
 */
static size_t write_cost(struct cmd_call *c, const struct cmd_def *d)
{
    struct store_shard *shard = cmd_shard(c, c->argv[0].p, 0);
    size_t rest = 0, first, last, step, n_keys = 0, klen = 0, vlen = 0;

    if (d->first_key <= 0 || (size_t)d->first_key >= c->argc) {
        for (size_t i = 1; i < c->argc; i++) {
            rest += c->argv[i].len;
        }
        return rest;
    }
    first = (size_t)d->first_key;
    last = last_key(d, c->argc);
    step = d->key_step > 0 ? (size_t)d->key_step : 1;
    if (step == 2) {
        for (size_t i = first; i <= last && i < c->argc; i += 2) {
            n_keys++;
            klen += c->argv[i].len;
            vlen += codec_value_bound(i + 1 < c->argc ? c->argv[i + 1].len : 0);
        }
    } else {
        for (size_t i = 1; i < c->argc; i++) {
            if (i < first || i > last || (i - first) % step != 0) {
                rest += c->argv[i].len;
            }
        }
        vlen = codec_value_bound(rest);
        /* COPY adds its source's size; a hash, list or set write rewrites the whole value,
         * so the old entry's size comes on top of the new elements (cmd_hash.c). */
        if (strcmp(d->name, "copy") == 0 || strcmp(d->group, "hash") == 0 ||
            strcmp(d->group, "list") == 0 || strcmp(d->group, "set") == 0) {
            const struct store_entry *e = store_lookup(shard, c->cl->db, c->argv[1].p,
                                                       c->argv[1].len, c->now_ms, 0);
            if (e != NULL && store_entry_enc(e) == STORE_ENC_COLL) {
                /* A chunked container: COPY copies it all; another write rewrites a chunk or
                 * two and may seal an end (about four chunks' worth at most). */
                uint32_t chunk = coll_chunk_bytes(store_entry_coll(e));
                vlen += strcmp(d->name, "copy") == 0 ? store_entry_mem_all(e) : 4u * chunk;
            } else if (e != NULL) {
                vlen += store_entry_mem(e);
            }
        }
        for (size_t i = first; i <= last && i < c->argc; i += step) {
            n_keys++;
            klen += c->argv[i].len;
        }
    }
    /* One key: exactly what the arena and index would grow by now. Several keys: their bytes
     * as if one entry (the span they may open) plus each key's average share. */
    if (n_keys <= 1) {
        return store_cost_now(shard, c->cl->db, klen, vlen, 1);
    }
    return store_cost_now(shard, c->cl->db, klen, vlen, 1) + store_cost(klen, vlen, 1);
}

int cmd_memory_admit(struct cmd_call *c, const struct cmd_def *d, int deny)
{
    struct cmd_server *srv = c->srv;
    size_t need;
    enum cmd_evict_result r;
    int refusable = deny || (d->flags & CMD_DENYOOM);

    if (srv->settings.maxmemory == 0 || srv->hooks.mem_used == NULL) {
        return 1;
    }
    /* Reads and deletes evict too while memory is over the limit (Redis does it before every
     * command), but are never refused. */
    need = (d->flags & CMD_DENYOOM) ? write_cost(c, d) : 0;
    if (cmd_mem_used(srv) + need > srv->settings.maxmemory && srv->hooks.trim_buffers != NULL &&
        c->now_ms != srv->last_trim_ms) {
        /* Idle clients' grown buffers first (at most once a millisecond: O(clients)). */
        srv->last_trim_ms = c->now_ms;
        srv->hooks.trim_buffers(srv->hooks.srv, c->cl);
    }
    r = cmd_memory_evict(srv, need,
                         cmd_memory_evict_budget_us(srv->settings.maxmemory_eviction_tenacity),
                         c->now_ms);
    /* maxmemory is a hard limit for a write: when the time budget ran out with memory still
     * going down, keep going until the write fits (each round evicts or compresses something,
     * and what one write needs is bounded by its size) or nothing is left to evict. */
    while (r == CMD_EVICT_RUNNING && refusable) {
        need = write_cost(c, d); /* what was freed or moved may have changed it */
        r = cmd_memory_evict(srv, need,
                             cmd_memory_evict_budget_us(srv->settings.maxmemory_eviction_tenacity),
                             c->now_ms);
    }
    return !(r == CMD_EVICT_FAIL && refusable);
}

/* ---- MEMORY ------------------------------------------------------------------------------ */

