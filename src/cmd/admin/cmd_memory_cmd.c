/*
 * cmd_memory_cmd: the MEMORY command (USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE, HELP) with
 * Redis 7.0's reply shapes, and the figures INFO memory shows; the figures are terse's (libc
 * allocator, expiry kept inside entries).
 */
#include "cmd/admin/cmd_memory_cmd.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_lookup.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"

#define DOCTOR_MIN_USED (5u * 1024 * 1024) /* below this MEMORY DOCTOR has nothing to say */
#define DOCTOR_PEAK_RATIO 1.5            /* peak / used above this: "Peak memory" */
#define DOCTOR_RSS_RATIO 1.4             /* rss / used above this ... */
#define DOCTOR_RSS_MIN_BYTES (10u * 1024 * 1024) /* ... and rss - used above this */
#define DOCTOR_CLIENT_BUF (200u * 1024)  /* average client buffers above this: "Big clients" */

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
    usage = store_entry_mem_all(e);
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
