/*
 * cmd_info: INFO [section ...], formatted exactly as Redis 7.0 does so that dashboards and
 * exporters read terse unchanged:
 *
 *   "# Server\r\n" "field:value\r\n" ... "\r\n" "# Clients\r\n" ... "field:value\r\n"
 *
 * Sections come in Redis's order whatever the order asked for, separated by one empty line;
 * the reply is one bulk string (RESP3: a verbatim string of format "txt"). Section names are
 * case-insensitive; "default" is every section but commandstats and latencystats, "all" and
 * "everything" are all of them; unknown names select nothing. terse adds a "# Terse" section
 * (in default and all) with the codec's figures:
 *
 *   value_bytes_original / value_bytes_stored   bytes written through the SET family, before
 *                                               and after encoding (cumulative, RESETSTAT;
 *                                               stored bytes drop as background compression
 *                                               compresses values written raw)
 *   compression_ratio                           original / stored of those
 *   values_raw / values_lz4 / values_zstd       values encoded per codec kind (cumulative; a
 *                                               value written raw for background compression
 *                                               counts when the background encodes it)
 *   values_pending, bytes_pending               values awaiting background compression and
 *                                               their stored (raw) bytes, now
 *   chunks_pending                              big containers' chunks awaiting it, now
 *   values_decoded                              successful decodes
 *   corrupt_values                              values that failed their checksum on read
 *   dataset_keys, dataset_value_bytes           live keys and the stored bytes of their values
 *   index_bytes, entry_bytes                    the store's memory for its index and entries
 *   allocator_allocs, allocator_frees           allocator calls ever
 *   allocator_background_allocs, ..._frees      those of the server's background work
 *                                               (compression, cron): the rest are the
 *                                               request path's, which a warm loop must not
 *                                               move
 *
 * Fields terse has no counterpart for (replication, AOF, forks, modules) carry the values a
 * standalone Redis without persistence reports. The text is built in the server's scratch
 * buffer (grown, never shrunk, so a repeated INFO allocates nothing) and then copied into the
 * reply, because a bulk header needs the length first.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/admin/cmd_server.h"
#include "cmd/script/cmd_script.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/admin/cmd_memory_cmd.h"
#include "cmd/mech/cmd_cstats.h"
#include "cmd/mech/cmd_pubsub.h"
#include "coll/coll.h"
#include "store/store.h"
#include "terse/status.h"

/* Longest single field line INFO writes (executable paths included). */
#define INFO_LINE_MAX 4224
/* Redis's LRU clock: seconds, wrapping at 24 bits. */
#define INFO_LRU_CLOCK_MAX ((1u << 24) - 1)

enum info_section {
    INFO_SERVER,
    INFO_CLIENTS,
    INFO_MEMORY,
    INFO_PERSISTENCE,
    INFO_STATS,
    INFO_REPLICATION,
    INFO_CPU,
    INFO_MODULES,
    INFO_COMMANDSTATS,
    INFO_ERRORSTATS,
    INFO_LATENCYSTATS,
    INFO_CLUSTER,
    INFO_KEYSPACE,
    INFO_TERSE,
    INFO_N_SECTIONS
};

/* Argument name and header of each section, in Redis's order. */
static const struct {
    const char *arg;
    const char *title;
} sections[INFO_N_SECTIONS] = {
    {"server", "Server"},           {"clients", "Clients"},
    {"memory", "Memory"},           {"persistence", "Persistence"},
    {"stats", "Stats"},             {"replication", "Replication"},
    {"cpu", "CPU"},                 {"modules", "Modules"},
    {"commandstats", "Commandstats"}, {"errorstats", "Errorstats"},
    {"latencystats", "Latencystats"}, {"cluster", "Cluster"},
    {"keyspace", "Keyspace"},       {"terse", "Terse"}};

#define INFO_ALL ((1u << INFO_N_SECTIONS) - 1)
#define INFO_DEFAULT (INFO_ALL & ~((1u << INFO_COMMANDSTATS) | (1u << INFO_LATENCYSTATS)))

/* The text under construction, in srv->scratch. A failed grow is sticky. */
struct info_buf {
    struct cmd_server *srv;
    size_t len;
    int err;
};

static void info_addf(struct info_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void info_addf(struct info_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->err) {
        return;
    }
    if (b->srv->scratch_cap < b->len + INFO_LINE_MAX) {
        /* A reserve does not keep the contents: park the text in scratch2 meanwhile. */
        if (b->len > 0 && cmd_scratch2_reserve(b->srv, b->len) != TERSE_OK) {
            b->err = 1;
            return;
        }
        if (b->len > 0) {
            memcpy(b->srv->scratch2, b->srv->scratch, b->len);
        }
        if (cmd_scratch_reserve(b->srv, b->len + INFO_LINE_MAX) != TERSE_OK) {
            b->err = 1;
            return;
        }
        if (b->len > 0) {
            memcpy(b->srv->scratch, b->srv->scratch2, b->len);
        }
    }
    va_start(ap, fmt);
    n = vsnprintf((char *)b->srv->scratch + b->len, INFO_LINE_MAX, fmt, ap);
    va_end(ap);
    if (n > 0) {
        b->len += (size_t)n < INFO_LINE_MAX ? (size_t)n : INFO_LINE_MAX - 1;
    }
}

/* Redis's bytesToHuman: B under 1 KiB, then K, M, G, T, P with two decimals. */
static void human_bytes(char *buf, size_t cap, uint64_t n)
{
    static const char units[] = "KMGTP";
    double d = (double)n;
    size_t u = 0;

    if (n < 1024) {
        snprintf(buf, cap, "%lluB", (unsigned long long)n);
        return;
    }
    d /= 1024;
    while (d >= 1024 && u + 1 < sizeof(units) - 1) {
        d /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.2f%c", d, units[u]);
}

/* Everything the sections print, gathered once. */
struct info_data {
    struct cmd_sysinfo si;
    struct store_stats st;
    struct codec_stats cs;
    struct coll_env_stats colls;
    int64_t now_ms;
};

static void info_server(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    struct utsname un;
    char run_id[41];
    int64_t up_s = (d->now_ms - c->srv->start_ms) / 1000;

    if (uname(&un) != 0) {
        memset(&un, 0, sizeof(un));
    }
    cmd_server_id(c->srv, d->si.pid, 0, run_id);
    info_addf(b, "redis_version:%s\r\n", CMD_SERVER_REDIS_VERSION);
    info_addf(b, "redis_git_sha1:00000000\r\nredis_git_dirty:0\r\n");
    info_addf(b, "terse_version:%s\r\n", CMD_SERVER_TERSE_VERSION);
    info_addf(b, "redis_mode:standalone\r\n");
    info_addf(b, "os:%s %s %s\r\n", un.sysname, un.release, un.machine);
    info_addf(b, "arch_bits:%d\r\n", (int)(sizeof(void *) * 8));
    info_addf(b, "monotonic_clock:POSIX clock_gettime\r\n");
    /* core's event loop is epoll based. */
    info_addf(b, "multiplexing_api:epoll\r\n");
#if defined(__GNUC__)
    info_addf(b, "gcc_version:%d.%d.%d\r\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
    info_addf(b, "gcc_version:0.0.0\r\n");
#endif
    info_addf(b, "process_id:%ld\r\n", d->si.pid);
    info_addf(b, "process_supervised:no\r\n");
    info_addf(b, "run_id:%s\r\n", run_id);
    info_addf(b, "tcp_port:%d\r\n", d->si.tcp_port);
    info_addf(b, "server_time_usec:%lld\r\n", (long long)d->now_ms * 1000);
    info_addf(b, "uptime_in_seconds:%lld\r\n", (long long)up_s);
    info_addf(b, "uptime_in_days:%lld\r\n", (long long)(up_s / 86400));
    /* terse's cron runs at Redis's default frequency. */
    info_addf(b, "hz:10\r\nconfigured_hz:10\r\n");
    info_addf(b, "lru_clock:%u\r\n", (unsigned)((d->now_ms / 1000) & INFO_LRU_CLOCK_MAX));
    info_addf(b, "executable:%s\r\n", d->si.executable != NULL ? d->si.executable : "");
    info_addf(b, "config_file:%s\r\n", d->si.config_file != NULL ? d->si.config_file : "");
    info_addf(b, "io_threads_active:0\r\n");
}

/* Blocked clients with a deadline (Redis's clients_in_timeout_table). */
static size_t clients_in_timeout(const struct cmd_server *srv)
{
    size_t n = 0;

    for (const struct cmd_client *cl = srv->clients; srv->n_blocked > 0 && cl != NULL;
         cl = cl->next) {
        n += (cl->flags & CMD_CLIENT_BLOCKED) && cl->block_deadline_ms != 0;
    }
    return n;
}

static void info_clients(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    char maxclients[32];

    if (!cmd_server_config_value(c->srv, "maxclients", maxclients, sizeof(maxclients))) {
        snprintf(maxclients, sizeof(maxclients), "10000");
    }
    info_addf(b, "connected_clients:%llu\r\n", (unsigned long long)d->si.connected_clients);
    info_addf(b, "cluster_connections:0\r\n");
    info_addf(b, "maxclients:%s\r\n", maxclients);
    info_addf(b, "client_recent_max_input_buffer:0\r\nclient_recent_max_output_buffer:0\r\n");
    info_addf(b, "blocked_clients:%zu\r\ntracking_clients:0\r\nclients_in_timeout_table:%zu\r\n",
              c->srv->n_blocked, clients_in_timeout(c->srv));
}

static void info_memory(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    const struct cmd_sysinfo *si = &d->si;
    const struct cmd_settings *st = &c->srv->settings;
    uint64_t used = si->used_memory, peak = si->used_memory_peak, rss = si->used_memory_rss;
    uint64_t startup = c->srv->used_memory_startup;
    /* The dataset is the store's entries (keys, stored values, expiries); its index, the
     * startup allocations, client buffers, codec contexts and scratch are overhead. */
    uint64_t dataset = d->st.entry_bytes;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t total = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    struct cmd_mem_figures f;
    uint64_t alloc, active;
    char h[5][32];

    cmd_memory_figures(c->srv, &f);
    alloc = f.alloc_allocated;
    active = f.alloc_active > alloc ? f.alloc_active : alloc;

    if (peak < used) {
        peak = used;
    }
    if (dataset > used) {
        dataset = used;
    }
    if (startup > used) {
        startup = used;
    }
    human_bytes(h[0], sizeof(h[0]), used);
    human_bytes(h[1], sizeof(h[1]), rss);
    human_bytes(h[2], sizeof(h[2]), peak);
    human_bytes(h[3], sizeof(h[3]), total);
    human_bytes(h[4], sizeof(h[4]), st->maxmemory);
    info_addf(b, "used_memory:%llu\r\nused_memory_human:%s\r\n", (unsigned long long)used, h[0]);
    info_addf(b, "used_memory_rss:%llu\r\nused_memory_rss_human:%s\r\n",
              (unsigned long long)rss, h[1]);
    info_addf(b, "used_memory_peak:%llu\r\nused_memory_peak_human:%s\r\n",
              (unsigned long long)peak, h[2]);
    info_addf(b, "used_memory_peak_perc:%.2f%%\r\n",
              peak > 0 ? (double)used * 100 / (double)peak : 100.0);
    info_addf(b, "used_memory_overhead:%llu\r\n", (unsigned long long)(used - dataset));
    info_addf(b, "used_memory_startup:%llu\r\n", (unsigned long long)startup);
    info_addf(b, "used_memory_dataset:%llu\r\n", (unsigned long long)dataset);
    /* As Redis: the dataset's share of what was allocated after startup. */
    info_addf(b, "used_memory_dataset_perc:%.2f%%\r\n",
              used > startup ? (double)dataset * 100 / (double)(used - startup) : 0.0);
    /* glibc's own view (mallinfo2): what it handed out, and what it holds from the system. */
    info_addf(b, "allocator_allocated:%llu\r\nallocator_active:%llu\r\n"
                 "allocator_resident:%llu\r\n",
              (unsigned long long)alloc, (unsigned long long)active, (unsigned long long)rss);
    info_addf(b, "total_system_memory:%llu\r\ntotal_system_memory_human:%s\r\n",
              (unsigned long long)total, h[3]);
    {
        /* Lua's heap (the libc allocator's, as in Redis: not in used_memory) and the scripts
         * it caches; no FUNCTION libraries in terse. */
        struct cmd_script_figures sf;
        char lua_human[32], scripts_h[32];
        cmd_script_info(c->srv, &sf);
        human_bytes(lua_human, sizeof(lua_human), sf.lua_bytes);
        human_bytes(scripts_h, sizeof(scripts_h), sf.body_bytes);
        info_addf(b, "used_memory_lua:%llu\r\nused_memory_vm_eval:%llu\r\n"
                     "used_memory_lua_human:%s\r\nused_memory_scripts_eval:%llu\r\n"
                     "number_of_cached_scripts:%llu\r\nnumber_of_functions:0\r\n"
                     "number_of_libraries:0\r\nused_memory_vm_functions:0\r\n"
                     "used_memory_vm_total:%llu\r\nused_memory_vm_total_human:%s\r\n"
                     "used_memory_functions:0\r\nused_memory_scripts:%llu\r\n"
                     "used_memory_scripts_human:%s\r\n",
                  (unsigned long long)sf.lua_bytes, (unsigned long long)sf.lua_bytes, lua_human,
                  (unsigned long long)sf.body_bytes, (unsigned long long)sf.n_scripts,
                  (unsigned long long)sf.lua_bytes, lua_human, (unsigned long long)sf.body_bytes,
                  scripts_h);
    }
    info_addf(b, "maxmemory:%llu\r\nmaxmemory_human:%s\r\n", (unsigned long long)st->maxmemory,
              h[4]);
    info_addf(b, "maxmemory_policy:%s\r\n",
              st->maxmemory_policy != NULL ? st->maxmemory_policy : "noeviction");
    info_addf(b, "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%lld\r\n",
              alloc > 0 ? (double)active / (double)alloc : 0.0,
              (long long)active - (long long)alloc);
    info_addf(b, "allocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%lld\r\n",
              active > 0 ? (double)rss / (double)active : 0.0, (long long)rss - (long long)active);
    info_addf(b, "rss_overhead_ratio:1.00\r\nrss_overhead_bytes:0\r\n");
    info_addf(b, "mem_fragmentation_ratio:%.2f\r\n", used > 0 ? (double)rss / (double)used : 0.0);
    info_addf(b, "mem_fragmentation_bytes:%lld\r\n", (long long)rss - (long long)used);
    info_addf(b, "mem_not_counted_for_evict:0\r\nmem_replication_backlog:0\r\n"
                 "mem_total_replication_buffers:0\r\n"
                 "mem_clients_slaves:0\r\nmem_clients_normal:%llu\r\n"
                 "mem_cluster_links:0\r\nmem_aof_buffer:0\r\n",
              (unsigned long long)f.clients);
    info_addf(b, "mem_allocator:libc\r\n");
    info_addf(b, "active_defrag_running:0\r\n");
    {
        struct coll_env_stats cs;

        coll_env_stats_get(store_coll_env(c->srv->shard), &cs);
        info_addf(b, "lazyfree_pending_objects:%llu\r\nlazyfreed_objects:%llu\r\n",
                  (unsigned long long)cs.n_lazy, (unsigned long long)cs.n_lazy_freed);
    }
}

static void info_persistence(struct info_buf *b, struct cmd_call *c)
{
    struct cmd_persist_info p;

    memset(&p, 0, sizeof(p));
    p.last_bgsave_ok = 1;
    p.last_save_s = c->srv->start_ms / 1000;
    p.last_bgsave_time_s = -1;
    p.current_bgsave_time_s = -1;
    p.aof_last_rewrite_time_s = -1;
    p.aof_current_rewrite_time_s = -1;
    p.aof_last_bgrewrite_ok = 1;
    p.aof_last_write_ok = 1;
    if (c->srv->hooks.persist_info != NULL) {
        c->srv->hooks.persist_info(c->srv->hooks.srv, &p);
    }
    info_addf(b, "loading:%d\r\nasync_loading:0\r\n", p.loading);
    info_addf(b, "current_cow_peak:0\r\ncurrent_cow_size:0\r\ncurrent_cow_size_age:0\r\n"
                 "current_fork_perc:0.00\r\ncurrent_save_keys_processed:0\r\n"
                 "current_save_keys_total:0\r\n");
    info_addf(b, "rdb_changes_since_last_save:%llu\r\nrdb_bgsave_in_progress:%d\r\n",
              (unsigned long long)c->srv->dirty, p.bgsave_in_progress);
    info_addf(b, "rdb_last_save_time:%lld\r\n", (long long)p.last_save_s);
    info_addf(b, "rdb_last_bgsave_status:%s\r\nrdb_last_bgsave_time_sec:%lld\r\n"
                 "rdb_current_bgsave_time_sec:%lld\r\nrdb_saves:%llu\r\n",
              p.last_bgsave_ok ? "ok" : "err", p.last_bgsave_time_s, p.current_bgsave_time_s,
              (unsigned long long)p.saves);
    info_addf(b, "rdb_last_cow_size:0\r\nrdb_last_load_keys_expired:%llu\r\n"
                 "rdb_last_load_keys_loaded:%llu\r\n",
              (unsigned long long)p.last_load_keys_expired,
              (unsigned long long)p.last_load_keys_loaded);
    info_addf(b, "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:%d\r\n"
                 "aof_last_rewrite_time_sec:%lld\r\naof_current_rewrite_time_sec:%lld\r\n",
              p.aof_enabled, p.aof_rewrite_in_progress, p.aof_rewrite_scheduled,
              p.aof_last_rewrite_time_s, p.aof_current_rewrite_time_s);
    info_addf(b, "aof_last_bgrewrite_status:%s\r\naof_rewrites:%llu\r\n"
                 "aof_rewrites_consecutive_failures:%llu\r\naof_last_write_status:%s\r\n"
                 "aof_last_cow_size:0\r\n",
              p.aof_last_bgrewrite_ok ? "ok" : "err", (unsigned long long)p.aof_rewrites,
              (unsigned long long)p.aof_rewrites_consecutive_failures,
              p.aof_last_write_ok ? "ok" : "err");
    info_addf(b, "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n");
    if (p.aof_enabled) {
        info_addf(b, "aof_current_size:%llu\r\naof_base_size:%llu\r\naof_pending_rewrite:%d\r\n"
                     "aof_buffer_length:%llu\r\naof_pending_bio_fsync:%llu\r\n"
                     "aof_delayed_fsync:%llu\r\n",
                  (unsigned long long)p.aof_current_size, (unsigned long long)p.aof_base_size,
                  p.aof_rewrite_scheduled, (unsigned long long)p.aof_buffer_length,
                  (unsigned long long)p.aof_pending_bio_fsync,
                  (unsigned long long)p.aof_delayed_fsync);
    }
}

static void info_stats(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    const struct cmd_stats *s = &c->srv->stats;

    info_addf(b, "total_connections_received:%llu\r\n",
              (unsigned long long)d->si.total_connections);
    info_addf(b, "total_commands_processed:%llu\r\n", (unsigned long long)s->total_commands);
    info_addf(b, "instantaneous_ops_per_sec:0\r\n");
    info_addf(b, "total_net_input_bytes:%llu\r\ntotal_net_output_bytes:%llu\r\n",
              (unsigned long long)d->si.net_input_bytes,
              (unsigned long long)d->si.net_output_bytes);
    info_addf(b, "total_net_repl_input_bytes:0\r\ntotal_net_repl_output_bytes:0\r\n");
    info_addf(b, "instantaneous_input_kbps:0.00\r\ninstantaneous_output_kbps:0.00\r\n");
    info_addf(b, "rejected_connections:%llu\r\n",
              (unsigned long long)d->si.rejected_connections);
    {
        struct cmd_repl_info r;
        memset(&r, 0, sizeof(r));
        if (c->srv->hooks.repl_info != NULL) {
            c->srv->hooks.repl_info(c->srv->hooks.srv, &r, NULL, NULL);
        }
        info_addf(b, "sync_full:%llu\r\nsync_partial_ok:%llu\r\nsync_partial_err:%llu\r\n",
                  (unsigned long long)r.sync_full, (unsigned long long)r.sync_partial_ok,
                  (unsigned long long)r.sync_partial_err);
    }
    info_addf(b, "expired_keys:%llu\r\n", (unsigned long long)d->st.expired_keys);
    info_addf(b, "evicted_keys:%llu\r\nevicted_clients:0\r\n",
              (unsigned long long)s->evicted_keys);
    info_addf(b, "keyspace_hits:%llu\r\nkeyspace_misses:%llu\r\n",
              (unsigned long long)s->keyspace_hits, (unsigned long long)s->keyspace_misses);
    info_addf(b, "pubsub_channels:%zu\r\npubsub_patterns:%zu\r\npubsubshard_channels:%zu\r\n",
              cmd_pubsub_names(c->srv, 0), cmd_pubsub_names(c->srv, 1),
              cmd_pubsub_names(c->srv, 2));
    info_addf(b, "latest_fork_usec:0\r\ntotal_forks:0\r\n");
    info_addf(b, "migrate_cached_sockets:0\r\nslave_expires_tracked_keys:0\r\n");
    info_addf(b, "active_defrag_hits:0\r\nactive_defrag_misses:0\r\nactive_defrag_key_hits:0\r\n"
                 "active_defrag_key_misses:0\r\n");
    info_addf(b, "tracking_total_keys:0\r\ntracking_total_items:0\r\n"
                 "tracking_total_prefixes:0\r\n");
    info_addf(b, "unexpected_error_replies:0\r\ntotal_error_replies:%llu\r\n",
              (unsigned long long)s->total_error_replies);
}

/* "errorstat_<code>:count=<n>" by code in byte order, as Redis lists its error table. */
static void info_errorstats(struct info_buf *b, struct cmd_call *c)
{
    const struct cmd_stats *st = &c->srv->stats;
    const char *last = "";

    for (size_t k = 0; k < st->n_errstats; k++) {
        const struct cmd_errstat *next = NULL;
        for (size_t i = 0; i < st->n_errstats; i++) {
            const struct cmd_errstat *e = &st->errstats[i];
            if (strcmp(e->code, last) > 0 && (next == NULL || strcmp(e->code, next->code) < 0)) {
                next = e;
            }
        }
        info_addf(b, "errorstat_%s:count=%llu\r\n", next->code,
                  (unsigned long long)next->count);
        last = next->code;
    }
}

static void info_cmdstat(void *arg, const struct cmd_cstat *st)
{
    info_addf(arg, "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
                   "failed_calls=%llu\r\n",
              st->d->name, (unsigned long long)st->calls, (unsigned long long)st->usec,
              st->calls > 0 ? (double)st->usec / (double)st->calls : 0.0,
              (unsigned long long)st->rejected, (unsigned long long)st->failed);
}

struct info_replicas {
    struct info_buf *b;
    size_t i;
};

static void info_replica(void *arg, const struct cmd_repl_replica *r)
{
    struct info_replicas *a = arg;

    info_addf(a->b, "slave%zu:ip=%s,port=%d,state=%s,offset=%llu,lag=%lld\r\n", a->i++, r->ip,
              r->port, r->state, (unsigned long long)r->offset, r->lag);
}

/* terse is always a master; the figures come from server/ (srv_repl.c). */
static void info_replication(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    struct cmd_hooks *h = &c->srv->hooks;
    struct cmd_repl_info r;
    struct info_replicas acc = {b, 0};

    memset(&r, 0, sizeof(r));
    if (h->repl_info != NULL) {
        h->repl_info(h->srv, &r, NULL, NULL);
    } else {
        cmd_server_id(c->srv, d->si.pid, 1, r.replid);
    }
    if (r.replica) {
        info_addf(b, "role:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\n", r.master_host,
                  r.master_port);
        info_addf(b, "master_link_status:%s\r\nmaster_last_io_seconds_ago:%lld\r\n",
                  r.link_up ? "up" : "down", r.last_io_s);
        info_addf(b, "master_sync_in_progress:%d\r\n", r.sync_in_progress);
        info_addf(b, "slave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n",
                  r.slave_offset, r.slave_offset);
        if (r.sync_in_progress) {
            info_addf(b, "master_sync_total_bytes:%lld\r\nmaster_sync_read_bytes:%lld\r\n"
                         "master_sync_left_bytes:%lld\r\n",
                      r.sync_total, r.sync_read, r.sync_total - r.sync_read);
        }
        if (!r.link_up) {
            info_addf(b, "master_link_down_since_seconds:%lld\r\n", r.down_since_s);
        }
        info_addf(b, "slave_priority:100\r\nslave_read_only:%d\r\nreplica_announced:1\r\n",
                  r.read_only);
        info_addf(b, "connected_slaves:%zu\r\n", r.n_replicas);
    } else {
        info_addf(b, "role:master\r\nconnected_slaves:%zu\r\n", r.n_replicas);
    }
    if (c->srv->settings.min_replicas_to_write > 0 && c->srv->settings.min_replicas_max_lag > 0) {
        info_addf(b, "min_slaves_good_slaves:%lld\r\n",
                  h->repl_good != NULL
                      ? h->repl_good(h->srv, c->srv->settings.min_replicas_max_lag)
                      : 0);
    }
    if (h->repl_info != NULL && r.n_replicas > 0) {
        h->repl_info(h->srv, &r, info_replica, &acc);
    }
    info_addf(b, "master_failover_state:no-failover\r\nmaster_replid:%s\r\n", r.replid);
    info_addf(b, "master_replid2:0000000000000000000000000000000000000000\r\n");
    info_addf(b, "master_repl_offset:%llu\r\nsecond_repl_offset:-1\r\n",
              (unsigned long long)r.offset);
    info_addf(b, "repl_backlog_active:%d\r\nrepl_backlog_size:%llu\r\n", r.backlog_active,
              (unsigned long long)(r.backlog_size != 0 ? r.backlog_size : 1048576));
    info_addf(b, "repl_backlog_first_byte_offset:%llu\r\nrepl_backlog_histlen:%llu\r\n",
              (unsigned long long)r.backlog_first, (unsigned long long)r.backlog_histlen);
}

static void info_cpu(struct info_buf *b, const struct info_data *d)
{
    info_addf(b, "used_cpu_sys:%.6f\r\nused_cpu_user:%.6f\r\n", d->si.cpu_sys, d->si.cpu_user);
    info_addf(b, "used_cpu_sys_children:0.000000\r\nused_cpu_user_children:0.000000\r\n");
}

static void info_keyspace(struct info_buf *b, struct cmd_call *c)
{
    int n_db = c->srv->shard != NULL ? store_shard_n_db(c->srv->shard) : 0;

    for (int db = 0; db < n_db; db++) {
        size_t keys = store_dbsize(c->srv->shard, db);
        if (keys == 0) {
            continue;
        }
        info_addf(b, "db%d:keys=%zu,expires=%zu,avg_ttl=0\r\n", db, keys,
                  store_db_n_expires(c->srv->shard, db));
    }
}

static void info_terse(struct info_buf *b, struct cmd_call *c, const struct info_data *d)
{
    const struct cmd_stats *s = &c->srv->stats;

    info_addf(b, "value_bytes_original:%llu\r\nvalue_bytes_stored:%llu\r\n",
              (unsigned long long)s->orig_value_bytes, (unsigned long long)s->stored_value_bytes);
    info_addf(b, "compression_ratio:%.2f\r\n",
              s->stored_value_bytes > 0
                  ? (double)s->orig_value_bytes / (double)s->stored_value_bytes
                  : 1.0);
    info_addf(b, "values_raw:%llu\r\nvalues_lz4:%llu\r\nvalues_zstd:%llu\r\n",
              (unsigned long long)d->cs.n_encoded[CODEC_RAW],
              (unsigned long long)d->cs.n_encoded[CODEC_LZ4],
              (unsigned long long)d->cs.n_encoded[CODEC_ZSTD]);
    info_addf(b, "values_pending:%llu\r\nbytes_pending:%llu\r\n",
              (unsigned long long)d->st.n_pending, (unsigned long long)d->st.pending_bytes);
    info_addf(b, "chunks_pending:%llu\r\n", (unsigned long long)d->colls.n_pending);
    info_addf(b, "values_decoded:%llu\r\n", (unsigned long long)d->cs.n_decoded);
    info_addf(b, "corrupt_values:%llu\r\n", (unsigned long long)s->corrupt_values);
    info_addf(b, "dataset_keys:%llu\r\ndataset_value_bytes:%llu\r\n",
              (unsigned long long)d->st.n_keys, (unsigned long long)d->st.value_bytes);
    info_addf(b, "index_bytes:%llu\r\nentry_bytes:%llu\r\n", (unsigned long long)d->st.index_bytes,
              (unsigned long long)d->st.entry_bytes);
    info_addf(b, "allocator_allocs:%llu\r\nallocator_frees:%llu\r\n",
              (unsigned long long)d->si.n_alloc, (unsigned long long)d->si.n_free);
    info_addf(b, "allocator_background_allocs:%llu\r\nallocator_background_frees:%llu\r\n",
              (unsigned long long)d->si.bg_alloc, (unsigned long long)d->si.bg_free);
}

static void info_section(struct info_buf *b, struct cmd_call *c, const struct info_data *d,
                         enum info_section sec)
{
    switch (sec) {
    case INFO_SERVER: info_server(b, c, d); break;
    case INFO_CLIENTS: info_clients(b, c, d); break;
    case INFO_MEMORY: info_memory(b, c, d); break;
    case INFO_PERSISTENCE: info_persistence(b, c); break;
    case INFO_STATS: info_stats(b, c, d); break;
    case INFO_REPLICATION: info_replication(b, c, d); break;
    case INFO_CPU: info_cpu(b, d); break;
    case INFO_CLUSTER: info_addf(b, "cluster_enabled:0\r\n"); break;
    case INFO_KEYSPACE: info_keyspace(b, c); break;
    case INFO_TERSE: info_terse(b, c, d); break;
    case INFO_ERRORSTATS: info_errorstats(b, c); break;
    case INFO_COMMANDSTATS: cmd_cstats_each(c->srv, info_cmdstat, b); break;
    default: break; /* modules, latencystats: nothing to list */
    }
}

/* The sections named by argv[1..] as a bitmask (Redis's genInfoSectionDict). */
static unsigned info_select(const struct cmd_call *c)
{
    unsigned mask = 0;

    if (c->argc == 1) {
        return INFO_DEFAULT;
    }
    for (size_t i = 1; i < c->argc; i++) {
        if (cmd_arg_is(c, i, "default")) {
            mask |= INFO_DEFAULT;
        } else if (cmd_arg_is(c, i, "all") || cmd_arg_is(c, i, "everything")) {
            mask |= INFO_ALL;
        } else {
            for (unsigned s = 0; s < INFO_N_SECTIONS; s++) {
                if (cmd_arg_is(c, i, sections[s].arg)) {
                    mask |= 1u << s;
                }
            }
        }
    }
    return mask;
}

void cmd_info_proc(struct cmd_call *c)
{
    struct info_buf b = {c->srv, 0, 0};
    struct info_data d;
    unsigned mask = info_select(c);
    int n = 0;

    memset(&d, 0, sizeof(d));
    d.now_ms = c->now_ms;
    if (c->srv->hooks.sysinfo != NULL) {
        c->srv->hooks.sysinfo(c->srv->hooks.srv, &d.si);
    }
    if (c->srv->shard != NULL) {
        store_stats_get(c->srv->shard, &d.st);
        coll_env_stats_get(store_coll_env(c->srv->shard), &d.colls);
    }
    if (c->srv->codec != NULL) {
        codec_ctx_stats(c->srv->codec, &d.cs);
    }
    for (unsigned s = 0; s < INFO_N_SECTIONS; s++) {
        if (!(mask & (1u << s))) {
            continue;
        }
        info_addf(&b, "%s# %s\r\n", n++ > 0 ? "\r\n" : "", sections[s].title);
        info_section(&b, c, &d, (enum info_section)s);
    }
    if (b.err) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    /* No section selected: an empty text, and scratch may not exist yet. */
    resp_write_verbatim(c->out, "txt", b.len > 0 ? (const void *)b.srv->scratch : "", b.len);
}
