/*
 * srv_state: what the parts of the server read of one another's state, so that none of them
 * calls up: whether a forked child runs and what a child does first, whether the write feed
 * has a consumer, whether writes are refused (MISCONF), the settings the command layer works
 * from, and small tests of a part's state (the AOF wants the feed, the snapshot dir is on S3).
 */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/mech/cmd_feed.h"
#include "core/core_log.h"
#include "server/state/srv_internal.h"
#include "terse/status.h"

static const char *const policy_names[] = {"volatile-lru", "volatile-lfu", "volatile-random",
                                           "volatile-ttl", "allkeys-lru", "allkeys-lfu",
                                           "allkeys-random", "noeviction"};

int srv_child_busy(const struct srv *s)
{
    return s->persist.child_pid > 0 || srv_repl_child_busy(s) || s->aof.child_pid > 0;
}

int srv_aof_wants_feed(const struct srv *s)
{
    return s->aof.state == SRV_AOF_ON ||
           (s->aof.state == SRV_AOF_WAIT_REWRITE && s->aof.child_pid > 0);
}

int srv_aof_write_err(const struct srv *s)
{
    const struct srv_aof *a = &s->aof;

    if (a->state == SRV_AOF_OFF) {
        return 0;
    }
    return !a->last_write_ok ? a->last_write_errno : a->bio_err;
}

void srv_child_enter(struct srv *s, pid_t parent)
{
    sigset_t all;

    /* The parent blocks SIGINT/SIGTERM for its signalfd; the child takes them by default. */
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
        _exit(1);
    }
    for (size_t i = 0; i < s->n_listen; i++) {
        close(s->listen_fd[i]);
    }
}

void srv_persist_misconf_sync(struct srv *s)
{
    int aof_err = srv_aof_write_err(s);

    if (s->cfg.stop_writes_on_bgsave_error && s->cfg.save.n_point > 0 &&
        !s->persist.last_bgsave_ok) {
        s->cmd.settings.misconf = CMD_MISCONF_RDB;
    } else if (aof_err != 0) {
        s->cmd.settings.misconf = CMD_MISCONF_AOF;
    } else {
        s->cmd.settings.misconf = CMD_MISCONF_NONE;
    }
    s->cmd.settings.misconf_errno = aof_err;
}

void srv_feed_consumers_changed(struct srv *s)
{
    /* The backlog records the stream while no replica is attached too: one that comes back
     * continues from it. The AOF, while on (or waiting for its first rewrite), is the other
     * consumer. */
    int on = s->repl.n_replicas > 0 || s->repl.backlog != NULL || srv_aof_wants_feed(s);

    if (on != s->cmd.feed.on) {
        cmd_feed_enable(&s->cmd, on);
    }
}

int srv_repl_child_busy(const struct srv *s)
{
    return s->repl.child_pid > 0;
}

int srv_backup_is_s3(const char *dir)
{
    return dir != NULL && strncmp(dir, "s3://", 5) == 0;
}

struct srv_client *srv_client_of(const struct cmd_client *cl)
{
    return (struct srv_client *)(void *)((char *)(uintptr_t)cl -
                                         offsetof(struct srv_client, cmd));
}

/* The store's eviction parameters for a maxmemory-policy (noeviction gives LRU, unused). */
static void evict_opts(struct store_evict_opts *o, int policy)
{
    o->volatile_only = policy >= CORE_POLICY_VOLATILE_LRU && policy <= CORE_POLICY_VOLATILE_TTL;
    switch (policy) {
    case CORE_POLICY_VOLATILE_LFU:
    case CORE_POLICY_ALLKEYS_LFU: o->policy = STORE_EVICT_LFU; break;
    case CORE_POLICY_VOLATILE_RANDOM:
    case CORE_POLICY_ALLKEYS_RANDOM: o->policy = STORE_EVICT_RANDOM; break;
    case CORE_POLICY_VOLATILE_TTL: o->policy = STORE_EVICT_TTL; break;
    default: o->policy = STORE_EVICT_LRU; break;
    }
}

void srv_settings_sync(struct srv *s)
{
    struct cmd_settings *st = &s->cmd.settings;
    int p = s->cfg.maxmemory_policy;

    st->databases = (int)s->cfg.databases;
    st->requirepass = s->cfg.requirepass;
    st->enable_debug_command = s->cfg.enable_debug_command == CORE_ACCESS_YES     ? 1
                               : s->cfg.enable_debug_command == CORE_ACCESS_LOCAL ? 2
                                                                                  : 0;
    st->proto_max_bulk_len = (long long)s->cfg.proto_max_bulk_len;
    st->maxmemory_policy = (p >= 0 && p < CORE_POLICY_COUNT) ? policy_names[p] : "noeviction";
    st->lfu_log_factor = (int)s->cfg.lfu_log_factor;
    st->lfu_decay_time = (int)s->cfg.lfu_decay_time;
    st->hash_max_listpack_entries = s->cfg.hash_max_listpack_entries;
    /* At most LLONG_MAX: the option's range, as Redis's (size_t, LONG_MAX). */
    st->hash_max_listpack_value = (long long)s->cfg.hash_max_listpack_value;
    st->set_max_intset_entries = s->cfg.set_max_intset_entries;
    st->zset_max_listpack_entries = s->cfg.zset_max_listpack_entries;
    st->zset_max_listpack_value = (long long)s->cfg.zset_max_listpack_value;
    st->stream_node_max_entries = s->cfg.stream_node_max_entries;
    st->stream_node_max_bytes = (long long)s->cfg.stream_node_max_bytes;
    st->maxmemory = s->cfg.maxmemory;
    st->maxmemory_eviction_tenacity = (int)s->cfg.maxmemory_eviction_tenacity;
    st->evict_enabled = p != CORE_POLICY_NOEVICTION;
    evict_opts(&st->evict, p);
    st->evict.samples = (int)s->cfg.maxmemory_samples;
    st->evict.lfu_log_factor = st->lfu_log_factor;
    st->evict.lfu_decay_time = st->lfu_decay_time;
    if (s->shard != NULL) {
        store_access_mode(s->shard, st->evict.policy == STORE_EVICT_LFU,
                          st->lfu_log_factor, st->lfu_decay_time);
    }
    st->compression = s->cfg.terse_compression == CORE_COMPRESSION_INLINE ? CMD_COMPRESS_INLINE
                      : s->cfg.terse_compression == CORE_COMPRESSION_OFF  ? CMD_COMPRESS_OFF
                                                                          : CMD_COMPRESS_BACKGROUND;
    if (s->codec != NULL &&
        codec_ctx_level_set(s->codec, (int)s->cfg.terse_compression_level) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "terse-compression-level %lld: out of memory, level kept",
                 (long long)s->cfg.terse_compression_level);
    }
    st->notify = (int)s->cfg.notify_keyspace_events;
    st->min_replicas_to_write = s->cfg.min_replicas_to_write;
    st->replica = srv_is_replica(s);
    st->replica_ro = st->replica && s->cfg.replica_read_only;
    st->replica_stale = st->replica && !s->cfg.replica_serve_stale_data &&
                        s->master.state != SRV_MASTER_CONNECTED;
    st->min_replicas_max_lag = s->cfg.min_replicas_max_lag;
    srv_persist_misconf_sync(s);
    st->busy_reply_threshold_ms = s->cfg.busy_reply_threshold;
    {
        long long lp = s->cfg.list_max_listpack_size;
        st->list_chunk_max = lp < 0 && lp >= -5 ? 4096u << (unsigned)(-lp - 1) : 8192u;
        st->list_chunk_n = lp > 0 ? (uint32_t)(lp < 65535 ? lp : 65535) : 0;
        st->list_keep_raw =
            s->cfg.list_compress_depth > 1 ? (int)s->cfg.list_compress_depth - 1 : 0;
    }
    st->coll_chunk_bytes = (uint32_t)s->cfg.terse_chunk_bytes;
    st->lazy_user_flush = s->cfg.lazyfree_lazy_user_flush != 0;
    {
        unsigned lazy = (s->cfg.lazyfree_lazy_user_del ? STORE_LAZY_USER : 0u) |
                        (s->cfg.lazyfree_lazy_server_del ? STORE_LAZY_SERVER : 0u) |
                        (s->cfg.lazyfree_lazy_expire ? STORE_LAZY_EXPIRE : 0u) |
                        (s->cfg.lazyfree_lazy_eviction ? STORE_LAZY_EVICT : 0u);
        if (s->shard != NULL) {
            store_set_lazy(s->shard, lazy);
        }
    }
    core_log_set_level((enum core_log_level)s->cfg.loglevel);
    cmd_settings_changed(&s->cmd);
}
