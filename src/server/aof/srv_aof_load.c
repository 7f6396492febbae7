/*
 * srv_aof_load: the AOF read back, at startup (appendonly yes) and for DEBUG LOADAOF, as
 * Redis 7.0's loadAppendOnlyFiles does: the base (an RDB file, persist_rdb_load.c, verified
 * before anything is inserted; or commands), then each incr file in sequence order. Commands
 * (persist_aof_read.c) run through cmd_dispatch on a client of the loader's own whose replies
 * are dropped; MULTI/EXEC run as they ran. A file listed in the manifest but missing, a
 * malformed command, an unknown command, or a file that ends inside a command stops the load
 * with the file, the offset and the reason; except that a truncated last file is cut at its
 * last complete command (a transaction left open: before its MULTI) when aof-load-truncated is
 * yes, with a warning, as Redis does.
 *
 * Memory: files are mapped read-only for the load; the reply buffer and the argument arrays
 * are the loader's (core_alloc), freed before return. The write feed is off while loading:
 * the loaded commands are already in the AOF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/mech/cmd_change.h"
#include "cmd/mech/cmd_client.h"
#include "cmd/dispatch/cmd_dispatch.h"
#include "cmd/mech/cmd_feed.h"
#include "core/core_log.h"
#include "core/core_mem.h"
#include "core/core_time.h"
#include "persist/persist_aof_read.h"
#include "persist/persist_rdb_load.h"
#include "server/aof/srv_aof.h"
#include "server/aof/srv_aof_files.h"
#include "server/aof/srv_aof_load.h"
#include "server/aof/srv_aof_rewrite.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"
#include "cmd/keyspace/cmd_after_load.h"

#define AOF_PATH_MAX 4096

struct replay {
    struct srv *s;
    struct cmd_client cl;         /* the loader's client; replies dropped */
    struct resp_out out;
    uint8_t *obuf;                /* owned: the replies' buffer, emptied after each command */
    size_t ocap;
    struct persist_aof_reader rd; /* owned argv array of persist_aof_arg */
    struct resp_slice *argv;      /* owned: the same arguments as cmd_dispatch takes them */
    size_t argv_cap;
    uint64_t n_cmds;
};

static int out_grow(void *owner, struct resp_out *o, size_t need)
{
    struct replay *r = owner;
    size_t cap = r->ocap * 2 > o->len + need ? r->ocap * 2 : o->len + need;
    uint8_t *p = core_realloc(r->obuf, cap);

    if (p == NULL) {
        return -1;
    }
    r->obuf = p;
    r->ocap = cap;
    o->p = p;
    o->cap = cap;
    return 0;
}

static void replay_init(struct replay *r, struct srv *s)
{
    memset(r, 0, sizeof(*r));
    r->s = s;
    cmd_client_init(&s->cmd, &r->cl);
    r->cl.flags |= CMD_CLIENT_AUTHED | CMD_CLIENT_MUST_OBEY;
    snprintf(r->cl.addr, sizeof(r->cl.addr), "aof-loader");
    r->out.grow = out_grow;
    r->out.owner = r;
    r->out.proto = 2;
    r->cl.out = &r->out;
    r->cl.fd = -1;
    persist_aof_reader_init(&r->rd, &s->cmd.alloc);
}

static void replay_deinit(struct replay *r)
{
    r->cl.out = NULL;
    cmd_client_deinit(&r->s->cmd, &r->cl);
    core_free(r->obuf);
    core_free(r->argv);
    persist_aof_reader_deinit(&r->rd);
}

static void run(struct replay *r, const struct resp_slice *argv, size_t argc)
{
    r->out.p = r->obuf;
    r->out.cap = r->ocap;
    r->out.len = 0;
    r->out.err = 0;
    cmd_dispatch(&r->s->cmd, &r->cl, argv, argc);
    r->out.len = 0;
    r->n_cmds++;
}

/* The commands of buf from off. Returns 0; 1 when the file was cut (aof-load-truncated);
 * -1 after logging why it cannot be loaded. */
static int replay_cmds(struct replay *r, const char *name, const char *path, const uint8_t *buf,
                       size_t len, size_t off, int last)
{
    struct srv *s = r->s;
    size_t valid = off, before_multi = off, used;
    const char *why = NULL;
    int st = TERSE_OK;

    while (off < len) {
        st = persist_aof_read_cmd(&r->rd, buf + off, len - off, &used, &why);
        if (st != TERSE_OK) {
            break;
        }
        if (r->rd.argc > 0) {
            const struct persist_aof_arg *a = r->rd.argv;
            if (cmd_lookup(&s->cmd, a[0].p, a[0].len) == NULL) {
                core_log(CORE_LOG_WARNING, "Unknown command '%.*s' reading the append only "
                         "file %s at offset %zu", (int)(a[0].len > 64 ? 64 : a[0].len),
                         (const char *)a[0].p, name, off);
                return -1;
            }
            if (r->rd.argc > r->argv_cap) {
                size_t cap = r->rd.argc < 16 ? 16 : r->rd.argc;
                struct resp_slice *v = core_realloc(r->argv, cap * sizeof(*v));
                if (v == NULL) {
                    st = TERSE_ENOMEM;
                    break;
                }
                r->argv = v;
                r->argv_cap = cap;
            }
            for (size_t i = 0; i < r->rd.argc; i++) {
                r->argv[i].p = a[i].p;
                r->argv[i].len = a[i].len;
            }
            if (a[0].len == 5 && strncasecmp((const char *)a[0].p, "multi", 5) == 0) {
                before_multi = valid;
            }
            run(r, r->argv, r->rd.argc);
        }
        off += used;
        valid = off;
    }
    if (st == TERSE_EPROTO) {
        core_log(CORE_LOG_WARNING, "Bad file format reading the append only file %s at offset "
                 "%zu: %s", name, off, why);
        return -1;
    }
    if (st == TERSE_ENOMEM) {
        core_log(CORE_LOG_WARNING, "Out of memory reading the append only file %s", name);
        return -1;
    }
    if (r->cl.flags & CMD_CLIENT_MULTI) {
        static const struct resp_slice discard = {(const uint8_t *)"DISCARD", 7};
        core_log(CORE_LOG_WARNING, "Revert incomplete MULTI/EXEC transaction in AOF file %s",
                 name);
        run(r, &discard, 1);
        valid = before_multi;
        st = TERSE_MORE;
    }
    if (st != TERSE_MORE) {
        return 0;
    }
    if (!last || !s->cfg.aof_load_truncated) {
        core_log(CORE_LOG_WARNING, "Unexpected end of file reading the append only file %s at "
                 "offset %zu%s", name, valid, !last ? " (and it is not the last file)" :
                 ": set aof-load-truncated yes to load it cut at its last complete command");
        return -1;
    }
    core_log(CORE_LOG_WARNING, "!!! Warning: short read while loading the AOF file %s!!!",
             name);
    core_log(CORE_LOG_WARNING, "!!! Truncating the AOF %s at offset %zu !!!", name, valid);
    if (truncate(path, (off_t)valid) != 0) {
        core_log(CORE_LOG_WARNING, "Error truncating the AOF file %s: %s", name,
                 strerror(errno));
        return -1;
    }
    core_log(CORE_LOG_WARNING, "AOF %s loaded anyway because aof-load-truncated is enabled",
             name);
    return 1;
}

static int load_file(struct replay *r, const char *name, int base, int last)
{
    struct srv *s = r->s;
    char path[AOF_PATH_MAX];
    struct persist_load_stats st;
    struct persist_error err;
    struct stat sb;
    const uint8_t *buf;
    size_t len, off = 0;
    int fd, rc;

    srv_aof_path(s, name, path, sizeof(path));
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        core_log(CORE_LOG_WARNING, "Fatal error: can't open the append log file %s for "
                 "reading: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    len = (size_t)sb.st_size;
    if (len == 0) {
        close(fd);
        return 0;
    }
    buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (buf == MAP_FAILED) {
        core_log(CORE_LOG_WARNING, "Can't map the append log file %s: %s", path,
                 strerror(errno));
        return -1;
    }
    rc = 0;
    if (base && persist_rdb_is_rdb(buf, len)) {
        int lr;
        /* Big lists, hashes, sets and sorted sets are built in chunks as they are read. */
        s->rdb.load_ck.env = cmd_value_load_shapes(&s->cmd, &s->rdb.load_ck.list,
                                                   &s->rdb.load_ck.elems,
                                                   &s->rdb.load_ck.stream_min);
        lr = persist_rdb_load_mem(s->shard, 0, &s->rdb, buf, len, core_time_unix_ms(), &st,
                                  &off, &err);
        if (lr != TERSE_OK) {
            core_log(CORE_LOG_WARNING, "Bad RDB base of the AOF %s at offset %llu: %s", name,
                     (unsigned long long)err.offset, err.reason);
            rc = -1;
        } else {
            s->persist.load_loaded = st.n_loaded;
            s->persist.load_expired = st.n_expired;
        }
    }
    if (rc == 0) {
        rc = replay_cmds(r, name, path, buf, len, off, last);
    }
    munmap((void *)(uintptr_t)buf, len);
    if (rc >= 0) {
        core_log(CORE_LOG_NOTICE, "DB loaded from %s file %s", base ? "base" : "incr", name);
    }
    return rc < 0 ? -1 : 0;
}

int srv_aof_load(struct srv *s)
{
    const struct persist_aof_manifest *m = &s->aof.man;
    size_t total = m->n_incr + (m->has_base ? 1u : 0u), done = 0;
    struct cmd_call *saved = s->cmd.cur_call;
    uint64_t total_commands = s->cmd.stats.total_commands;
    uint64_t maxmemory = s->cmd.settings.maxmemory;
    struct replay r;
    int rc = 0;

    if (total == 0) {
        return 1;
    }
    /* Redis loads whatever the AOF holds, maxmemory or not: no write is refused here. */
    s->cmd.settings.maxmemory = 0;
    replay_init(&r, s);
    if (m->has_base) {
        rc = load_file(&r, m->base.name, 1, ++done == total);
    }
    for (size_t i = 0; i < m->n_incr && rc == 0; i++) {
        rc = load_file(&r, m->incr[i].name, 0, ++done == total);
    }
    replay_deinit(&r);
    s->cmd.settings.maxmemory = maxmemory;
    s->cmd.cur_call = saved;
    s->cmd.stats.total_commands = total_commands; /* Redis runs them without counting */
    s->cmd.dirty = 0;
    if (rc == 0) {
        cmd_value_after_load(&s->cmd);
        cmd_settings_changed(&s->cmd);
    }
    return rc;
}

int srv_aof_loadaof(void *srv, char *errbuf, size_t cap)
{
    struct srv *s = srv;
    struct srv_aof *a = &s->aof;
    struct store_shard *fresh = NULL, *old = s->shard;
    int feed_on = s->cmd.feed.on, rc;

    if (a->state == SRV_AOF_WAIT_REWRITE && a->child_pid > 0) {
        srv_aof_rewrite_reap(s, 1); /* the first rewrite makes the AOF exist */
    }
    srv_aof_flush(s);
    if (a->fd >= 0 && fdatasync(a->fd) != 0 && errno != EINVAL) {
        core_log(CORE_LOG_WARNING, "Fail to fsync the AOF file: %s", strerror(errno));
    }
    if (srv_aof_manifest_read(s) < 0) {
        snprintf(errbuf, cap, "ERR Error reading the AOF manifest, check server logs.");
        return -1;
    }
    a->man_loaded = 1;
    if (store_shard_create(&fresh, store_shard_n_db(old)) != TERSE_OK) {
        snprintf(errbuf, cap, "ERR Error loading the AOF: out of memory");
        return -1;
    }
    s->shard = fresh;
    s->cmd.shard = fresh;
    if (feed_on) {
        cmd_feed_enable(&s->cmd, 0);
    }
    rc = srv_aof_load(s);
    if (rc < 0) {
        s->shard = old;
        s->cmd.shard = old;
        store_shard_destroy(&fresh);
    } else {
        store_shard_destroy(&old);
    }
    if (feed_on) {
        cmd_feed_enable(&s->cmd, 1);
    }
    cmd_settings_changed(&s->cmd);
    if (rc < 0) {
        snprintf(errbuf, cap, "ERR Error loading the AOF, check server logs.");
        return -1;
    }
    core_log(CORE_LOG_WARNING, "Append Only File loaded by DEBUG LOADAOF");
    return 0;
}
