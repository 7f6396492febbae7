/*
 * cmd_memory: the memory budget (maxmemory admission and eviction) and the MEMORY command.
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
 *
 * MEMORY USAGE / STATS / DOCTOR / MALLOC-STATS / PURGE / HELP answer with Redis 7.0's reply
 * shapes; the figures are terse's (libc allocator, expiry kept inside entries).
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_internal.h"
#include "cmd/cmd_util.h"
#include "terse/status.h"

#define EVICT_CHUNK_KEYS 16              /* keys per store_evict call between clock reads */
#define RECLAIM_STEP_BYTES (64u * 1024)  /* bytes store_reclaim moves between clock reads */
#define EVICT_TENACITY_LINEAR 10         /* up to here: EVICT_US_PER_TENACITY per step */
#define EVICT_US_PER_TENACITY 50         /* microseconds */
#define EVICT_TENACITY_UNLIMITED 100     /* this tenacity evicts until done */
#define DOCTOR_MIN_USED (5u * 1024 * 1024) /* below this MEMORY DOCTOR has nothing to say */
#define DOCTOR_PEAK_RATIO 1.5            /* peak / used above this: "Peak memory" */
#define DOCTOR_RSS_RATIO 1.4             /* rss / used above this ... */
#define DOCTOR_RSS_MIN_BYTES (10u * 1024 * 1024) /* ... and rss - used above this */
#define DOCTOR_CLIENT_BUF (200u * 1024)  /* average client buffers above this: "Big clients" */

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

static uint64_t mem_used(const struct cmd_server *srv)
{
    return srv->hooks.mem_used != NULL ? srv->hooks.mem_used(srv->hooks.srv) : 0;
}

/* Room a background compression step may need for a new arena span (the store's largest). */
#define COMPRESS_HEADROOM (1024u * 1024u + 4096u)

int cmd_memory_near_limit(const struct cmd_server *srv)
{
    return srv->settings.maxmemory != 0 &&
           mem_used(srv) + COMPRESS_HEADROOM > srv->settings.maxmemory;
}

int cmd_compress_pending(const struct cmd_server *srv)
{
    return srv->shard != NULL && srv->settings.compression != CMD_COMPRESS_OFF &&
           store_pending_count(srv->shard) > 0;
}

size_t cmd_compress_step(struct cmd_server *srv, uint64_t budget_us, size_t want_bytes)
{
    /* scratch2 holds nothing between commands (and admission runs before the write uses it);
     * the write path grew it to the largest recent value, so the step needs no buffer. */
    struct store_compress_budget b = {budget_us, srv->hooks.now_us, srv->hooks.srv, want_bytes,
                                      srv->scratch2, srv->scratch2_cap};
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
    (void)store_compress_step(srv->shard, srv->codec, &b, &saved);
    srv->stats.stored_value_bytes -= saved < srv->stats.stored_value_bytes
                                         ? saved
                                         : srv->stats.stored_value_bytes;
    return saved;
}

/* Under noeviction: one step compacting away what deleted keys left dead in the arena.
 * CMD_EVICT_OK when the write fits, CMD_EVICT_RUNNING when the step moved something (the
 * caller estimates the write again: the step may have opened a span with room for it), or
 * CMD_EVICT_FAIL when nothing is left to reclaim. */
static enum cmd_evict_result reclaim(struct cmd_server *srv, size_t need)
{
    size_t moved = store_reclaim(srv->shard, RECLAIM_STEP_BYTES);

    if (mem_used(srv) + need <= srv->settings.maxmemory) {
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
    used = mem_used(srv);
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
        now_used = mem_used(srv);
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
        now_used = mem_used(srv);
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

enum cmd_evict_result cmd_memory_evict(struct cmd_server *srv, size_t need, uint64_t budget_us,
                                       int64_t now_ms)
{
    enum cmd_evict_result r = evict(srv, need, budget_us, now_ms);

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
            vlen += e != NULL ? store_entry_mem(e) : 0;
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
    if (mem_used(srv) + need > srv->settings.maxmemory && srv->hooks.trim_buffers != NULL &&
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

void cmd_memory_figures(const struct cmd_server *srv, struct cmd_mem_figures *f)
{
    struct mallinfo2 mi = mallinfo2();

    memset(f, 0, sizeof(*f));
    for (const struct cmd_client *cl = srv->clients; cl != NULL; cl = cl->next) {
        size_t qbuf = 0, qfree = 0, obuf = 0, omem = 0;
        if (srv->hooks.client_io != NULL) {
            srv->hooks.client_io(srv->hooks.srv, cl, &qbuf, &qfree, &obuf, &omem);
        }
        f->clients += qbuf + qfree + omem;
        f->n_clients++;
    }
    f->alloc_allocated = mi.uordblks + mi.hblkhd;
    f->alloc_active = mi.arena + mi.hblkhd;
}

/* Figures MEMORY STATS and DOCTOR share. */
struct mem_report {
    struct cmd_sysinfo si;
    struct store_stats st;
    struct cmd_mem_figures f;
    uint64_t used, peak, startup;
    uint64_t overhead, dataset, net; /* overhead + dataset == used; net = used - startup */
};

static void mem_report_get(struct cmd_call *c, struct mem_report *r)
{
    struct cmd_server *srv = c->srv;

    memset(r, 0, sizeof(*r));
    if (srv->hooks.sysinfo != NULL) {
        srv->hooks.sysinfo(srv->hooks.srv, &r->si);
    }
    if (srv->shard != NULL) {
        store_stats_get(srv->shard, &r->st);
    }
    cmd_memory_figures(srv, &r->f);
    r->used = r->si.used_memory;
    r->peak = r->si.used_memory_peak > r->used ? r->si.used_memory_peak : r->used;
    r->startup = srv->used_memory_startup < r->used ? srv->used_memory_startup : r->used;
    /* The dataset is the store's entries (keys, values, expiries); the index, startup
     * allocations, client buffers and scratch are overhead: INFO's used_memory_dataset. */
    r->dataset = r->st.entry_bytes < r->used ? r->st.entry_bytes : r->used;
    r->overhead = r->used - r->dataset;
    r->net = r->used - r->startup;
}

static double ratio(uint64_t a, uint64_t b)
{
    return b > 0 ? (double)a / (double)b : 0.0;
}

/* Rounds to float precision, as Redis reports these ratios. */
static void write_ratio(struct resp_out *o, double d)
{
    resp_write_double(o, (double)(float)d);
}

static void kv_int(struct resp_out *o, const char *k, long long v)
{
    resp_write_cstr(o, k);
    resp_write_int(o, v);
}

static void kv_ratio(struct resp_out *o, const char *k, double v)
{
    resp_write_cstr(o, k);
    write_ratio(o, v);
}

static long long diff(uint64_t a, uint64_t b)
{
    return (long long)a - (long long)b;
}

static void memory_stats_proc(struct cmd_call *c)
{
    struct mem_report r;
    struct resp_out *o = c->out;
    int n_db = c->srv->shard != NULL ? store_shard_n_db(c->srv->shard) : 0;
    size_t n_used_db = 0;
    uint64_t rss;

    mem_report_get(c, &r);
    rss = r.si.used_memory_rss;
    for (int db = 0; db < n_db; db++) {
        n_used_db += store_dbsize(c->srv->shard, db) > 0;
    }
    resp_write_map(o, 27 + n_used_db);
    kv_int(o, "peak.allocated", (long long)r.peak);
    kv_int(o, "total.allocated", (long long)r.used);
    kv_int(o, "startup.allocated", (long long)r.startup);
    kv_int(o, "replication.backlog", 0);
    kv_int(o, "clients.slaves", 0);
    kv_int(o, "clients.normal", (long long)r.f.clients);
    kv_int(o, "cluster.links", 0);
    kv_int(o, "aof.buffer", 0);
    kv_int(o, "lua.caches", 0);
    kv_int(o, "functions.caches", 0);
    for (int db = 0; db < n_db; db++) {
        size_t keys = store_dbsize(c->srv->shard, db);
        char name[32];
        if (keys == 0) {
            continue;
        }
        /* The index is shared by all dbs: each gets its share by key count. Expiry times live
         * in the entries (8 bytes each), not in a table of their own. */
        snprintf(name, sizeof(name), "db.%d", db);
        resp_write_cstr(o, name);
        resp_write_map(o, 3);
        kv_int(o, "overhead.hashtable.main",
               r.st.n_keys > 0 ? (long long)(r.st.index_bytes * keys / r.st.n_keys) : 0);
        kv_int(o, "overhead.hashtable.expires",
               (long long)store_db_n_expires(c->srv->shard, db) * 8);
        kv_int(o, "overhead.hashtable.slot-to-keys", 0);
    }
    kv_int(o, "overhead.total", (long long)r.overhead);
    kv_int(o, "keys.count", (long long)r.st.n_keys);
    kv_int(o, "keys.bytes-per-key", r.st.n_keys > 0 ? (long long)(r.net / r.st.n_keys) : 0);
    kv_int(o, "dataset.bytes", (long long)r.dataset);
    kv_ratio(o, "dataset.percentage", ratio(r.dataset * 100, r.net));
    kv_ratio(o, "peak.percentage", ratio(r.used * 100, r.peak));
    kv_int(o, "allocator.allocated", (long long)r.f.alloc_allocated);
    kv_int(o, "allocator.active", (long long)r.f.alloc_active);
    kv_int(o, "allocator.resident", (long long)rss);
    kv_ratio(o, "allocator-fragmentation.ratio", ratio(r.f.alloc_active, r.f.alloc_allocated));
    kv_int(o, "allocator-fragmentation.bytes", diff(r.f.alloc_active, r.f.alloc_allocated));
    kv_ratio(o, "allocator-rss.ratio", ratio(rss, r.f.alloc_active));
    kv_int(o, "allocator-rss.bytes", diff(rss, r.f.alloc_active));
    kv_ratio(o, "rss-overhead.ratio", 1.0);
    kv_int(o, "rss-overhead.bytes", 0);
    kv_ratio(o, "fragmentation", ratio(rss, r.used));
    kv_int(o, "fragmentation.bytes", diff(rss, r.used));
}

/* Opening and closing of the report, and the two fixed answers, as Redis words them. */
#define DOCTOR_EMPTY                                                                               \
    "Hi Sam, this instance is empty or is using very little memory, my issues detector can't "    \
    "be used in these conditions. Please, leave for your mission on Earth and fill it with some " \
    "data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
#define DOCTOR_FINE                                                                                \
    "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs " \
    "on this base.\n"
#define DOCTOR_HEAD "Sam, I detected a few issues in this Redis instance memory implants:\n\n"
#define DOCTOR_TAIL "I'm here to keep you safe, Sam. I want to help you.\n"

/* terse's own wording of each finding. */
#define DOCTOR_PEAK                                                                                \
    " * Peak memory: the peak of this instance is more than 150% of what it uses now. The "       \
    "allocator keeps much of the memory freed since, so RSS and the fragmentation ratio stay "    \
    "high; that memory is reused as data grows again. MEMORY PURGE may return some of it.\n\n"
#define DOCTOR_RSS                                                                                 \
    " * High total RSS: the resident set is more than 1.4 times the memory terse has "           \
    "allocated. After a peak this is expected (see above); otherwise the workload fragments "    \
    "the heap: MEMORY PURGE returns free pages to the system.\n\n"
#define DOCTOR_CLIENTS                                                                             \
    " * Big client buffers: clients use more than 200k of buffers each on average, usually "     \
    "because of large pipelines or replies a client reads slowly. Check CLIENT LIST (qbuf, "     \
    "omem) and the client-output-buffer-limit setting.\n\n"

static void memory_doctor_proc(struct cmd_call *c)
{
    struct mem_report r;
    char text[2048];
    size_t len = 0;
    int peak, rss, clients;

    mem_report_get(c, &r);
    if (r.used < DOCTOR_MIN_USED) {
        resp_write_verbatim(c->out, "txt", DOCTOR_EMPTY, sizeof(DOCTOR_EMPTY) - 1);
        return;
    }
    peak = ratio(r.peak, r.used) > DOCTOR_PEAK_RATIO;
    rss = ratio(r.si.used_memory_rss, r.used) > DOCTOR_RSS_RATIO &&
          r.si.used_memory_rss > r.used + DOCTOR_RSS_MIN_BYTES;
    clients = r.f.n_clients > 0 && r.f.clients / r.f.n_clients > DOCTOR_CLIENT_BUF;
    if (!peak && !rss && !clients) {
        resp_write_verbatim(c->out, "txt", DOCTOR_FINE, sizeof(DOCTOR_FINE) - 1);
        return;
    }
    len = (size_t)snprintf(text, sizeof(text), "%s%s%s%s%s", DOCTOR_HEAD, peak ? DOCTOR_PEAK : "",
                           rss ? DOCTOR_RSS : "", clients ? DOCTOR_CLIENTS : "", DOCTOR_TAIL);
    resp_write_verbatim(c->out, "txt", text, len < sizeof(text) ? len : sizeof(text) - 1);
}

static void memory_usage_proc(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[2];
    const struct store_entry *e;
    struct store_stats st;
    long long samples;
    size_t usage;

    /* SAMPLES only matters for aggregate types; it is checked as Redis does. */
    for (size_t i = 3; i < c->argc; i++) {
        if (cmd_arg_is(c, i, "samples") && i + 1 < c->argc) {
            if (cmd_ll_or_reply(c, i + 1, &samples, CMD_ERR_NOT_INT) != 0) {
                return;
            }
            if (samples < 0) {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return;
            }
            i++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    e = store_lookup(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len, c->now_ms, 0);
    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    /* The entry (key, value, expiry, metadata) plus its share of the index. */
    store_stats_get(c->srv->shard, &st);
    usage = store_entry_mem(e);
    if (st.n_keys > 0) {
        usage += (size_t)((st.index_bytes + st.n_keys - 1) / st.n_keys);
    }
    resp_write_int(c->out, (long long)usage);
}

static void memory_malloc_stats_proc(struct cmd_call *c)
{
    /* What Redis built without jemalloc answers. */
    resp_write_cstr(c->out, "Stats not supported for the current allocator");
}

static void memory_purge_proc(struct cmd_call *c)
{
    /* glibc: return free memory at the top of the heap and in free chunks to the system. */
    malloc_trim(0);
    resp_write_ok(c->out);
}

static void memory_help_proc(struct cmd_call *c)
{
    static const char *const lines[] = {
        "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/* ---- the table --------------------------------------------------------------------------- */

static const struct cmd_def memory_subcmds[] = {
    {"memory|doctor", 2, 0, 0, 0, 0, memory_doctor_proc, "@slow", "Outputs memory problems report",
     "4.0.0", "server", NULL},
    {"memory|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, memory_help_proc, "@slow",
     "Show helpful text about the different subcommands", "4.0.0", "server", NULL},
    {"memory|malloc-stats", 2, 0, 0, 0, 0, memory_malloc_stats_proc, "@slow",
     "Show allocator internal stats", "4.0.0", "server", NULL},
    {"memory|purge", 2, 0, 0, 0, 0, memory_purge_proc, "@slow",
     "Ask the allocator to release memory", "4.0.0", "server", NULL},
    {"memory|stats", 2, 0, 0, 0, 0, memory_stats_proc, "@slow", "Show memory usage details",
     "4.0.0", "server", NULL},
    {"memory|usage", -3, CMD_READONLY, 2, 2, 1, memory_usage_proc, "@read @slow",
     "Estimate the memory usage of a key", "4.0.0", "server", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

const struct cmd_def cmd_memory_defs[] = {
    {"memory", -2, 0, 0, 0, 0, NULL, "@slow", "A container for memory diagnostics commands",
     "4.0.0", "server", memory_subcmds},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
