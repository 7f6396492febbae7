/*
 * srv_main: terse-server's entry point.
 *
 *   terse-server [config-file] [--name value ...]
 *
 * Setup order: config (defaults, file, command line) -> log -> s3 (libcurl, OpenSSL) ->
 * maxclients fitted to the descriptor limit -> signals -> shard, codec and command state (the
 * config's rename-command lines applied to the table) -> snapshot or AOF load -> listeners ->
 * loop. Teardown runs in reverse, so every byte is freed before exit (the sanitizer build
 * checks it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "s3/s3_client.h"
#include "server/aof/srv_aof.h"
#include "server/repl/srv_repl.h"
#include "server/repl/srv_replica.h"
#include "server/snapshot/srv_persist.h"
#include "server/snapshot/srv_rdb.h"
#include "server/srv_conn.h"
#include "server/srv_cron.h"
#include "server/srv_hooks.h"
#include "server/srv_main.h"
#include "store/store.h"
#include "terse/status.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/core/cmd_table.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: terse-server [/path/to/terse.conf] [options] [-]\n"
            "       terse-server -v or --version\n"
            "       terse-server -h or --help\n"
            "\n"
            "Options are configuration directives, as in the config file, prefixed by --:\n"
            "       terse-server --port 7777\n"
            "       terse-server /etc/terse/6379.conf --loglevel verbose\n"
            "With no config file the embedded defaults apply: 127.0.0.1:6379, 16 databases,\n"
            "no password, no automatic snapshots (./dump.terse is loaded if present), log to\n"
            "stdout.\n");
}

static void *codec_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return core_alloc(n);
}

static void codec_free(void *opaque, void *p)
{
    (void)opaque;
    core_free(p);
}

static void make_run_id(char out[41])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[20];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, raw, sizeof(raw)) : -1;

    if (n != (ssize_t)sizeof(raw)) {
        uint64_t t = core_time_mono_us() ^ (uint64_t)getpid();
        for (size_t i = 0; i < sizeof(raw); i++) {
            t = t * 6364136223846793005ULL + 1442695040888963407ULL;
            raw[i] = (unsigned char)(t >> 56);
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[40] = '\0';
}

/* Loads defaults, the optional file and the command line. Exits the process on error, as
 * redis-server does, with the reason on stderr. */
static int load_config(struct srv *s, int argc, char **argv)
{
    char err[CORE_CONFIG_ERR_CAP];
    int first = 1;

    if (core_config_init(&s->cfg) != TERSE_OK) {
        fprintf(stderr, "terse: out of memory\n");
        return -1;
    }
    s->cfg.command_known = cmd_name_known; /* rename-command lines are checked as read */
    s->config_file = "";
    if (argc > 1 && strncmp(argv[1], "--", 2) != 0 && strcmp(argv[1], "-") != 0) {
        s->config_file = argv[1];
        if (core_config_load_file(&s->cfg, argv[1], err, sizeof(err)) != TERSE_OK) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
        first = 2;
    }
    if (core_config_apply_args(&s->cfg, argc - first, argv + first, err, sizeof(err)) !=
        TERSE_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int setup_signals(struct srv *s)
{
    sigset_t set;

    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) {
        return -1;
    }
    s->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return s->signal_fd < 0 ? -1 : 0;
}

static void on_signal(struct core_loop *loop, int fd, void *arg, unsigned events)
{
    struct srv *s = arg;
    struct signalfd_siginfo si;

    (void)loop;
    (void)events;
    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        core_log(CORE_LOG_WARNING, "Received %s scheduling shutdown...",
                 si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        if (srv_persist_shutdown(s, 0) == 0) {
            s->stop = 1;
        }
    }
}

int srv_maxclients_fit(struct srv *s, int startup)
{
    uint64_t want = (uint64_t)s->cfg.maxclients + SRV_RESERVED_FDS, old, got;
    int os_err;

    if (net_fd_limit_raise(want, &old, &got, &os_err) != TERSE_OK) {
        core_log(CORE_LOG_WARNING,
                 "Unable to obtain the current NOFILE limit (%s), assuming 1024 and setting the "
                 "max clients configuration accordingly.",
                 strerror(os_err));
        if (s->cfg.maxclients > 1024 - SRV_RESERVED_FDS) {
            s->cfg.maxclients = 1024 - SRV_RESERVED_FDS;
        }
        return 0;
    }
    if (got >= want) {
        if (got > old) {
            core_log(CORE_LOG_NOTICE,
                     "Increased maximum number of open files to %llu (it was originally set to "
                     "%llu).",
                     (unsigned long long)got, (unsigned long long)old);
        }
        return 0;
    }
    if (got <= SRV_RESERVED_FDS) {
        if (startup) {
            core_log(CORE_LOG_WARNING,
                     "Your current 'ulimit -n' of %llu is not enough for the server to start. "
                     "Please increase your open file limit to at least %llu. Exiting.",
                     (unsigned long long)old, (unsigned long long)want);
        }
        return -1;
    }
    core_log(CORE_LOG_WARNING,
             "You requested maxclients of %lld requiring at least %llu max file descriptors.",
             s->cfg.maxclients, (unsigned long long)want);
    core_log(CORE_LOG_WARNING,
             "Server can't set maximum open files to %llu because of OS error: %s.",
             (unsigned long long)want, strerror(os_err));
    s->cfg.maxclients = (long long)(got - SRV_RESERVED_FDS);
    core_log(CORE_LOG_WARNING,
             "Current maximum open files is %llu. maxclients has been reduced to %lld to "
             "compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
             (unsigned long long)got, s->cfg.maxclients);
    return 0;
}

static int setup_listeners(struct srv *s)
{
    char err[256];

    for (size_t i = 0; i < s->cfg.bind.n_addr; i++) {
        const char *a = s->cfg.bind.addr[i];
        int optional = a[0] == '-';
        int fd;

        if (optional) {
            a++;
        }
        if (net_listen(a, (int)s->cfg.port, (int)s->cfg.tcp_backlog, &fd, err, sizeof(err)) !=
            TERSE_OK) {
            if (optional) {
                core_log(CORE_LOG_NOTICE, "Skipping optional bind address %s: %s", a, err);
                continue;
            }
            core_log(CORE_LOG_WARNING, "%s", err);
            return -1;
        }
        if (core_loop_add(s->loop, fd, CORE_EV_READ, srv_on_accept, s) != TERSE_OK) {
            close(fd);
            return -1;
        }
        s->listen_fd[s->n_listen++] = fd;
    }
    if (s->n_listen == 0) {
        core_log(CORE_LOG_WARNING, "Configured to not listen anywhere, exiting.");
        return -1;
    }
    return 0;
}

static int setup(struct srv *s)
{
    s->cmd.alloc.alloc = codec_alloc;
    s->cmd.alloc.free = codec_free;
    s->cmd.alloc.opaque = NULL;
    srv_aof_init(s);
    if (srv_maxclients_fit(s, 1) != 0) {
        return -1;
    }
    if (setup_signals(s) != 0 || core_loop_create(&s->loop) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "Event loop setup failed: %s", strerror(errno));
        return -1;
    }
    if (core_loop_add(s->loop, s->signal_fd, CORE_EV_READ, on_signal, s) != TERSE_OK ||
        store_shard_create(&s->shard, (int)s->cfg.databases) != TERSE_OK ||
        codec_ctx_create(&s->codec, &s->cmd.alloc) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "Out of memory during setup");
        return -1;
    }
    s->cmd.shard = s->shard;
    s->cmd.codec = s->codec;
    /* The shard's containers decode with the server's codec from the start: a snapshot's load
     * and a save's walk read chunks before any command has run. */
    coll_env_set_codec(store_coll_env(s->shard), s->codec);
    srv_hooks_install(s);
    srv_persist_hooks_install(s);
    srv_rdb_hooks_install(s);
    srv_settings_sync(s);
    s->cmd.settings.active_expire = 1;
    make_run_id(s->cmd.settings.run_id);
    s->cmd.start_ms = core_time_unix_ms();
    if (cmd_server_init(&s->cmd) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "Out of memory during setup");
        return -1;
    }
    for (size_t i = 0; i < s->cfg.renames.n; i++) {
        /* Checked by the config loader against the same table: only memory can fail. */
        const struct core_config_rename *r = &s->cfg.renames.v[i];
        if (cmd_table_rename(&s->cmd, r->from, r->to) != TERSE_OK) {
            core_log(CORE_LOG_WARNING, "rename-command %s '%s' failed during setup", r->from,
                     r->to);
            return -1;
        }
    }
    s->client_new = srv_client_new;
    srv_repl_init(s);
    srv_repl_hooks_install(s);
    srv_aof_hooks_install(s);
    srv_replica_init(s);
    /* The whole snapshot (or, with appendonly yes, the AOF, as Redis loads it instead) is
     * verified and loaded before any client can connect. */
    if (s->cfg.appendonly ? srv_aof_startup(s) != 0 : srv_persist_load(s) != 0) {
        return -1;
    }
    return setup_listeners(s);
}

static void teardown(struct srv *s)
{
    for (size_t i = 0; i < s->n_listen; i++) {
        core_loop_del(s->loop, s->listen_fd[i]);
        close(s->listen_fd[i]);
    }
    s->n_listen = 0;
    srv_persist_teardown(s);
    if (s->loop != NULL) {
        srv_aof_flush(s); /* the AOF holds the writes whose replies go out just below */
        srv_close_all_clients(s);
    }
    srv_aof_teardown(s);
    srv_replica_teardown(s);
    srv_repl_teardown(s);
    cmd_server_deinit(&s->cmd);
    srv_rdb_trim(s, 0);
    codec_ctx_destroy(&s->codec);
    store_shard_destroy(&s->shard);
    if (s->signal_fd >= 0) {
        if (s->loop != NULL) {
            core_loop_del(s->loop, s->signal_fd);
        }
        close(s->signal_fd);
    }
    core_loop_destroy(&s->loop);
    core_config_deinit(&s->cfg);
}

int main(int argc, char **argv)
{
    struct srv s;
    int rc = 1;

    if (argc == 2 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0)) {
        printf("terse-server v=%s (Redis protocol compatible with 7.0)\n", SRV_VERSION);
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    memset(&s, 0, sizeof(s));
    s.signal_fd = -1;
    s.executable = argv[0];
    if (load_config(&s, argc, argv) != 0) {
        core_config_deinit(&s.cfg);
        return 1;
    }
    if (core_log_setup(s.cfg.logfile, (enum core_log_level)s.cfg.loglevel) != TERSE_OK) {
        fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
        core_config_deinit(&s.cfg);
        return 1;
    }
    core_log(CORE_LOG_NOTICE, "terse %s starting, pid=%ld", SRV_VERSION, (long)getpid());
    if (s.config_file[0] == '\0') {
        core_log(CORE_LOG_WARNING, "No config file specified, using the default config.");
    }
    /* Before anything allocates through OpenSSL; with an s3:// dir, libcurl's and OpenSSL's
     * allocations go to the s3 pool, so backups of any size make the same heap calls. */
    if (s3_setup(srv_backup_is_s3(s.cfg.dir)) != TERSE_OK) {
        core_log(CORE_LOG_WARNING, "libcurl initialisation failed");
        core_log_teardown();
        core_config_deinit(&s.cfg);
        return 1;
    }
    if (setup(&s) == 0) {
        core_log(CORE_LOG_NOTICE, "Server initialized; listening on port %lld",
                 (long long)s.cfg.port);
        core_log(CORE_LOG_NOTICE, "Ready to accept connections");
        while (!s.stop) {
            int n = core_loop_poll(s.loop, srv_accept_poll_ms(&s, srv_poll_timeout_ms(&s)));

            if (n < 0) {
                core_log(CORE_LOG_WARNING, "epoll_wait failed: %s", strerror(errno));
                break;
            }
            srv_accept_resume(&s);
            srv_repl_step(&s, 0);
            srv_replica_step(&s, 0);
            srv_clients_resume(&s);
            srv_background(&s, n);
            srv_aof_flush(&s); /* what cron and resumed clients fed */
        }
        rc = s.stop ? 0 : 1;
        core_log(CORE_LOG_WARNING, "terse is now ready to exit, bye bye...");
    }
    teardown(&s);
    s3_teardown();
    core_log_teardown();
    return rc;
}
