/*
 * srv_hooks: what commands may ask of other layers (clock, config, memory, clients,
 * shutdown), given to cmd as struct cmd_hooks so that cmd includes none of them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "server/aof/srv_aof.h"
#include "server/snapshot/srv_persist.h"
#include "server/srv_conn.h"
#include "server/srv_hooks.h"
#include "server/srv_main.h"
#include "store/store.h"
#include "terse/status.h"


static int64_t hook_now_ms(void *arg)
{
    (void)arg;
    return core_time_unix_ms();
}

static int64_t hook_now_unix_us(void *arg)
{
    (void)arg;
    return core_time_unix_us();
}

static uint64_t hook_now_us(void *arg)
{
    (void)arg;
    return core_time_mono_us();
}

static bool hook_input_ready(void *arg)
{
    return core_loop_ready(((struct srv *)arg)->loop);
}

/* Resident set size from /proc/self/statm, in bytes (0 if unavailable). */
static uint64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;

    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%llu %llu", &size, &res) != 2) {
        res = 0;
    }
    fclose(f);
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void hook_sysinfo(void *arg, struct cmd_sysinfo *out)
{
    struct srv *s = arg;
    struct core_mem_stats ms;
    struct rusage ru;
    uint64_t in = s->net_in, outb = s->net_out;

    core_mem_stats_get(&ms);
    for (const struct cmd_client *cl = s->cmd.clients; cl != NULL; cl = cl->next) {
        const struct srv_client *c = srv_client_of(cl);
        in += c->conn.n_in;
        outb += c->conn.n_out;
    }
    memset(out, 0, sizeof(*out));
    out->used_memory = ms.used_bytes;
    out->used_memory_peak = ms.peak_bytes;
    out->used_memory_rss = rss_bytes();
    out->n_alloc = ms.n_alloc + ms.n_realloc;
    out->n_free = ms.n_free;
    out->bg_alloc = s->bg_alloc;
    out->bg_free = s->bg_free;
    out->maxmemory = s->cfg.maxmemory;
    out->connected_clients = s->n_clients;
    out->total_connections = s->total_connections;
    out->rejected_connections = s->rejected_connections;
    out->net_input_bytes = in;
    out->net_output_bytes = outb;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        out->cpu_sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        out->cpu_user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    }
    out->tcp_port = (int)s->cfg.port;
    out->pid = (long)getpid();
    out->config_file = s->config_file;
    out->executable = s->executable;
}

static void hook_client_io(void *arg, const struct cmd_client *cl, size_t *qbuf,
                           size_t *qbuf_free, size_t *obuf, size_t *omem)
{
    const struct srv_client *c = srv_client_of(cl);

    (void)arg;
    *qbuf = core_buf_pending(&c->conn.in);
    *qbuf_free = c->conn.in.cap - c->conn.in.len;
    *obuf = core_buf_pending(&c->conn.out);
    *omem = c->conn.out.cap;
}

static void hook_config_get(void *arg, const char *pattern,
                            void (*emit)(void *, const char *, const char *), void *emit_arg)
{
    struct srv *s = arg;
    core_config_get(&s->cfg, pattern, emit, emit_arg);
}

/* 1 when a CONFIG SET names maxclients (an option without aliases). */
static int sets_maxclients(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(names[i], "maxclients") == 0) {
            return 1;
        }
    }
    return 0;
}

static int hook_config_set(void *arg, const char *const *names, const char *const *values,
                           size_t n, char *errbuf, size_t errbuf_cap)
{
    struct srv *s = arg;
    struct core_config before;
    long long maxclients = s->cfg.maxclients;
    int keep = sets_maxclients(names, n), st;

    /* maxclients is checked against the descriptor limit after the values are applied; when it
     * does not fit, every value of the command is put back, as Redis's restoreBackupConfig. */
    if (keep && core_config_copy(&before, &s->cfg) != TERSE_OK) {
        snprintf(errbuf, errbuf_cap, "ERR out of memory");
        return -1;
    }
    st = core_config_set_pairs(&s->cfg, names, values, n, 0, errbuf, errbuf_cap);
    if (st == TERSE_ENOMEM) {
        snprintf(errbuf, errbuf_cap, "ERR out of memory");
    }
    if (st == TERSE_OK && s->cfg.maxclients != maxclients) {
        /* As Redis's updateMaxclients: the descriptor limit is raised if it can be, else the
         * error says what would fit. */
        long long asked = s->cfg.maxclients;
        int fit = srv_maxclients_fit(s, 0);
        if (fit != 0 || s->cfg.maxclients != asked) {
            snprintf(errbuf, errbuf_cap,
                     "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The "
                     "operating system is not able to handle the specified number of clients, "
                     "try with %lld",
                     fit != 0 ? 0LL : s->cfg.maxclients);
            core_config_deinit(&s->cfg);
            s->cfg = before;
            return -1;
        }
    }
    if (keep) {
        core_config_deinit(&before);
    }
    if (st != TERSE_OK) {
        return -1;
    }
    srv_settings_sync(s);
    return srv_aof_config_changed(s, errbuf, errbuf_cap);
}

static void hook_config_resetstat(void *arg)
{
    struct srv *s = arg;

    s->total_connections = 0;
    s->rejected_connections = 0;
    s->net_in = 0;
    s->net_out = 0;
    core_mem_peak_reset();
}

static int hook_shutdown(void *arg, unsigned flags)
{
    struct srv *s = arg;

    core_log(CORE_LOG_WARNING, "User requested shutdown...");
    if (srv_persist_shutdown(s, flags) != 0) {
        return -1;
    }
    s->stop = 1;
    return 0;
}

static void hook_log_warning(void *arg, const char *msg)
{
    (void)arg;
    core_log(CORE_LOG_WARNING, "%s", msg);
}

/* redis.log: Redis's LL_DEBUG..LL_WARNING are core_log's levels. */
static void hook_log_at(void *arg, int level, const char *msg)
{
    (void)arg;
    core_log((enum core_log_level)level, "%s", msg);
}

static uint64_t hook_mem_used(void *arg)
{
    (void)arg;
    return core_mem_used();
}

static void hook_trim_buffers(void *arg, const struct cmd_client *current)
{
    struct srv *s = arg;

    for (struct cmd_client *cl = s->cmd.clients; cl != NULL; cl = cl->next) {
        struct srv_client *c = srv_client_of(cl);
        if (cl != current) {
            core_buf_shrink(&c->conn.in, SRV_IDLE_BUF_KEEP);
            core_buf_shrink(&c->conn.out, SRV_IDLE_BUF_KEEP);
        }
    }
}

/* cmd's notification classes are core_config's letters, bit for bit. */
_Static_assert(CMD_NOTIFY_KEYSPACE == CORE_NOTIFY_KEYSPACE &&
                   CMD_NOTIFY_KEYEVENT == CORE_NOTIFY_KEYEVENT &&
                   CMD_NOTIFY_GENERIC == CORE_NOTIFY_GENERIC &&
                   CMD_NOTIFY_STRING == CORE_NOTIFY_STRING && CMD_NOTIFY_LIST == CORE_NOTIFY_LIST &&
                   CMD_NOTIFY_SET == CORE_NOTIFY_SET && CMD_NOTIFY_HASH == CORE_NOTIFY_HASH &&
                   CMD_NOTIFY_ZSET == CORE_NOTIFY_ZSET &&
                   CMD_NOTIFY_EXPIRED == CORE_NOTIFY_EXPIRED &&
                   CMD_NOTIFY_EVICTED == CORE_NOTIFY_EVICTED &&
                   CMD_NOTIFY_STREAM == CORE_NOTIFY_STREAM &&
                   CMD_NOTIFY_KEY_MISS == CORE_NOTIFY_KEY_MISS && CMD_NOTIFY_NEW == CORE_NOTIFY_NEW,
               "notify-keyspace-events bits");

void srv_hooks_install(struct srv *s)
{
    struct cmd_hooks *h = &s->cmd.hooks;

    h->srv = s;
    h->now_ms = hook_now_ms;
    h->now_us = hook_now_us;
    h->input_ready = hook_input_ready;
    h->now_unix_us = hook_now_unix_us;
    h->sysinfo = hook_sysinfo;
    h->client_io = hook_client_io;
    h->config_get = hook_config_get;
    h->config_set = hook_config_set;
    h->config_resetstat = hook_config_resetstat;
    h->shutdown = hook_shutdown;
    h->log_warning = hook_log_warning;
    h->log_at = hook_log_at;
    h->busy_events = srv_busy_events;
    h->mem_used = hook_mem_used;
    h->trim_buffers = hook_trim_buffers;
    h->client_out = srv_client_out;
    h->client_out_done = srv_client_out_done;
}
