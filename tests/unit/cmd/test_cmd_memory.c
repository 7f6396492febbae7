/*
 * test_cmd_memory: cmocka tests of src/cmd/admin/cmd_memory_cmd.c and src/cmd/mech/cmd_memory.c: the MEMORY command (replies as
 * redis-server 7.0.15 shapes them), the maxmemory admission in cmd_dispatch (noeviction
 * refuses with Redis's -OOM text and leaves no trace; eviction policies make room; volatile
 * policies never touch persistent keys), the bounded evict-down step cron runs, and the
 * memory fields of INFO.
 *
 * Commands go through cmd_dispatch over the real table, a real shard and codec, and fake
 * hooks. The fake used memory is a fixed base plus the store's entry and index bytes, so
 * evicting keys really lowers it, as core_mem's figure does in the server.
 */
#include "cmd/core/cmd.h"

#include "cmd/core/cmd_util.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd_fixture.h"
#include "cmd/mech/cmd_memory.h"

#define T0_MS 1700000000123LL
#define BASE_USED (1024 * 1024) /* the fake server's memory besides the store */
#define MB (1024 * 1024)

struct fx {
    struct cmd_server srv;
    struct cmd_client cl;
    struct resp_out out;
    uint64_t peak, rss;      /* fake sysinfo figures; 0 = same as used */
    uint64_t extra;          /* added to the fake used memory (a DOCTOR scenario) */
    uint64_t clock_us;       /* fake monotonic clock */
    int64_t now_ms, tick_ms; /* fake wall clock; run() advances it by tick_ms */
    char reply[1 << 16];
};

/* ---- fake hooks -------------------------------------------------------------------------- */

static int64_t fake_now_ms(void *srv)
{
    return ((struct fx *)srv)->now_ms;
}

static uint64_t fake_now_us(void *srv)
{
    return ((struct fx *)srv)->clock_us;
}

static uint64_t fake_mem_used(void *srv)
{
    struct fx *f = srv;
    struct store_stats st;

    store_stats_get(f->srv.shard, &st);
    return BASE_USED + f->extra + st.entry_bytes + st.index_bytes;
}

static void fake_sysinfo(void *srv, struct cmd_sysinfo *out)
{
    struct fx *f = srv;

    memset(out, 0, sizeof(*out));
    out->used_memory = fake_mem_used(srv);
    out->used_memory_peak = f->peak != 0 ? f->peak : out->used_memory;
    out->used_memory_rss = f->rss != 0 ? f->rss : out->used_memory;
    out->maxmemory = f->srv.settings.maxmemory;
    out->connected_clients = 1;
    out->pid = 42;
    out->config_file = "";
    out->executable = "/usr/bin/terse-server";
}

static void fake_client_io(void *srv, const struct cmd_client *cl, size_t *qbuf,
                           size_t *qbuf_free, size_t *obuf, size_t *omem)
{
    (void)srv;
    (void)cl;
    *qbuf = 100;
    *qbuf_free = 16284;
    *obuf = 0;
    *omem = 16384;
}

/* Sets the policy as srv_settings_sync does from the config. */
static void set_policy(struct fx *f, const char *name, enum store_evict_policy p, int vol)
{
    struct cmd_settings *st = &f->srv.settings;

    st->maxmemory_policy = name;
    st->evict_enabled = strcmp(name, "noeviction") != 0;
    st->evict.policy = p;
    st->evict.volatile_only = vol;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct cmd_hooks *h;

    assert_non_null(f);
    cmd_fixture_setup(&f->srv);
    f->srv.settings.active_expire = 1;
    f->srv.settings.proto_max_bulk_len = 512 * MB;
    f->srv.settings.maxmemory_eviction_tenacity = 10;
    f->srv.settings.evict.samples = 5;
    f->srv.settings.evict.lfu_log_factor = 10;
    f->srv.settings.evict.lfu_decay_time = 1;
    set_policy(f, "noeviction", STORE_EVICT_LRU, 0);
    f->srv.start_ms = T0_MS - 5000;
    f->clock_us = 1000;
    f->now_ms = T0_MS;
    h = &f->srv.hooks;
    h->srv = f;
    h->now_ms = fake_now_ms;
    h->now_us = fake_now_us;
    h->sysinfo = fake_sysinfo;
    h->client_io = fake_client_io;
    h->mem_used = fake_mem_used;
    cmd_fixture_init(&f->srv, &f->cl, &f->out);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;

    cmd_fixture_deinit(&f->srv, &f->cl);
    cmd_fixture_teardown(&f->srv, &f->out);
    free(f);
    return 0;
}

/* Runs one command given as space-separated words; the reply is left in f->reply. */
static const char *run(struct fx *f, const char *line)
{
    f->now_ms += f->tick_ms;
    return cmd_fixture_dispatch(&f->srv, &f->cl, &f->out, line, f->reply, sizeof(f->reply));
}

#define assert_reply(f, line, want) assert_string_equal(run((f), (line)), (want))
#define assert_starts(s, lit) assert_true(strncmp((s), (lit), sizeof(lit) - 1) == 0)

/* "SET key <n bytes of incompressible text>" in buf. */
static const char *set_line(char *buf, size_t cap, const char *key, size_t n, unsigned seed)
{
    size_t len = (size_t)snprintf(buf, cap, "SET %s ", key);
    uint32_t x = seed * 2654435761u + 1;

    assert_true(len + n < cap);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[len + i] = (char)('!' + x % 90);
    }
    buf[len + n] = '\0';
    return buf;
}

static size_t dbsize(struct fx *f)
{
    return store_dbsize(f->srv.shard, 0);
}

static uint64_t used(struct fx *f)
{
    return fake_mem_used(f);
}

/* ---- MEMORY ------------------------------------------------------------------------------ */

static void test_memory_help_and_errors(void **state)
{
    struct fx *f = *state;

    run(f, "MEMORY HELP");
    assert_starts(f->reply, "*14\r\n+MEMORY <subcommand> [<arg> [value] [opt] ...]. "
                            "Subcommands are:\r\n+DOCTOR\r\n");
    assert_non_null(strstr(f->reply, "+USAGE <key> [SAMPLES <count>]\r\n"));
    assert_reply(f, "MEMORY", "-ERR wrong number of arguments for 'memory' command\r\n");
    assert_reply(f, "memory nosuch", "-ERR unknown subcommand 'nosuch'. Try MEMORY HELP.\r\n");
    assert_reply(f, "MEMORY USAGE",
                 "-ERR wrong number of arguments for 'memory|usage' command\r\n");
    assert_reply(f, "MEMORY STATS x",
                 "-ERR wrong number of arguments for 'memory|stats' command\r\n");
    assert_reply(f, "MEMORY DOCTOR x",
                 "-ERR wrong number of arguments for 'memory|doctor' command\r\n");
    assert_reply(f, "MEMORY PURGE x",
                 "-ERR wrong number of arguments for 'memory|purge' command\r\n");
    assert_reply(f, "MEMORY PURGE", "+OK\r\n");
    assert_reply(f, "MEMORY MALLOC-STATS",
                 "$45\r\nStats not supported for the current allocator\r\n");
}

static void test_memory_usage(void **state)
{
    struct fx *f = *state;
    char buf[4096], want[32];
    long long small, big;

    assert_reply(f, "MEMORY USAGE nokey", "$-1\r\n");
    /* Arguments are checked before the key is looked up, as Redis does. */
    assert_reply(f, "MEMORY USAGE nokey SAMPLES x",
                 "-ERR value is not an integer or out of range\r\n");
    assert_reply(f, "SET foo bar", "+OK\r\n");
    run(f, "MEMORY USAGE foo");
    assert_int_equal(f->reply[0], ':');
    small = atoll(f->reply + 1);
    assert_true(small >= 6 && small < 128);
    snprintf(want, sizeof(want), ":%lld\r\n", small);
    assert_reply(f, "MEMORY USAGE foo SAMPLES 0", want);
    assert_reply(f, "MEMORY USAGE foo samples 3 SAMPLES 2", want);
    assert_reply(f, "MEMORY USAGE foo SAMPLES -1", "-ERR syntax error\r\n");
    assert_reply(f, "MEMORY USAGE foo SAMPLES", "-ERR syntax error\r\n");
    assert_reply(f, "MEMORY USAGE foo foo 1", "-ERR syntax error\r\n");
    run(f, set_line(buf, sizeof(buf), "big", 2000, 1));
    run(f, "MEMORY USAGE big");
    big = atoll(f->reply + 1);
    assert_true(big > 2000 && big < 2200);
    f->cl.resp = 3;
    assert_reply(f, "MEMORY USAGE nokey", "_\r\n");
}

static void test_memory_stats(void **state)
{
    struct fx *f = *state;

    run(f, "MEMORY STATS");
    assert_starts(f->reply, "*54\r\n$14\r\npeak.allocated\r\n:");
    assert_null(strstr(f->reply, "db.0"));
    assert_non_null(strstr(f->reply, "$14\r\nclients.normal\r\n:32768\r\n"));
    assert_non_null(strstr(f->reply, "$10\r\nkeys.count\r\n:0\r\n"));
    assert_non_null(strstr(f->reply, "$18\r\nkeys.bytes-per-key\r\n:0\r\n"));
    assert_reply(f, "SET a 1", "+OK\r\n");
    assert_reply(f, "SELECT 3", "+OK\r\n");
    assert_reply(f, "SET b hello EX 100", "+OK\r\n");
    run(f, "MEMORY STATS");
    assert_starts(f->reply, "*58\r\n");
    assert_non_null(strstr(f->reply, "$4\r\ndb.0\r\n*6\r\n$23\r\noverhead.hashtable.main\r\n:"));
    assert_non_null(strstr(f->reply, "$4\r\ndb.3\r\n*6\r\n"));
    assert_non_null(strstr(f->reply, "$26\r\noverhead.hashtable.expires\r\n:8\r\n"));
    assert_non_null(strstr(f->reply, "$10\r\nkeys.count\r\n:2\r\n"));
    /* Ratios are doubles: bulk strings in RESP2, ',' in RESP3. */
    assert_non_null(strstr(f->reply, "$15\r\npeak.percentage\r\n$3\r\n100\r\n"));
    f->cl.resp = 3;
    run(f, "MEMORY STATS");
    assert_starts(f->reply, "%29\r\n");
    assert_non_null(strstr(f->reply, "$4\r\ndb.3\r\n%3\r\n"));
    assert_non_null(strstr(f->reply, "$15\r\npeak.percentage\r\n,100\r\n"));
}

static void test_memory_doctor(void **state)
{
    struct fx *f = *state;

    run(f, "MEMORY DOCTOR");
    assert_starts(f->reply, "$268\r\nHi Sam, this instance is empty");
    f->extra = 10 * MB;
    run(f, "MEMORY DOCTOR");
    assert_starts(f->reply, "$105\r\nHi Sam, I can't find any memory issue in your instance. "
                            "I can only account for what occurs on this base.\n\r\n");
    f->peak = 30 * MB;
    run(f, "MEMORY DOCTOR");
    assert_non_null(strstr(f->reply, "\r\nSam, I detected a few issues in this Redis instance "
                                     "memory implants:\n\n * Peak memory:"));
    assert_null(strstr(f->reply, "High total RSS"));
    assert_non_null(strstr(f->reply, "I'm here to keep you safe, Sam. I want to help you.\n\r\n"));
    f->rss = 40 * MB;
    run(f, "MEMORY DOCTOR");
    assert_non_null(strstr(f->reply, " * High total RSS:"));
    f->cl.resp = 3;
    run(f, "MEMORY DOCTOR");
    assert_non_null(strstr(f->reply, "\r\ntxt:Sam, I detected"));
}

/* ---- admission --------------------------------------------------------------------------- */

static void test_budget_us(void **state)
{
    (void)state;
    assert_int_equal(cmd_memory_evict_budget_us(0), 0);
    assert_int_equal(cmd_memory_evict_budget_us(10), 500);
    assert_int_equal(cmd_memory_evict_budget_us(11), 575);
    assert_true(cmd_memory_evict_budget_us(99) > 500000);
    assert_true(cmd_memory_evict_budget_us(100) == UINT64_MAX);
}

static void test_noeviction_refuses(void **state)
{
    struct fx *f = *state;
    char buf[4096];
    char key[32];
    int i, n_ok = 0;

    f->srv.settings.maxmemory = BASE_USED + 64 * 1024;
    for (i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        if (strcmp(run(f, set_line(buf, sizeof(buf), key, 1000, (unsigned)i)), "+OK\r\n") != 0) {
            break;
        }
        n_ok++;
    }
    assert_string_equal(f->reply,
                        "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_true(n_ok > 40 && n_ok < 70);
    /* The budget holds: nothing was admitted past it. */
    assert_true(used(f) <= f->srv.settings.maxmemory);
    /* The refused write left no trace. */
    assert_int_equal(dbsize(f), (size_t)n_ok);
    snprintf(buf, sizeof(buf), "EXISTS k%d", n_ok);
    assert_reply(f, buf, ":0\r\n");
    /* Every denyoom write is refused, small ones included once the room is gone; reads,
     * deletes and non-denyoom writes run. */
    f->srv.settings.maxmemory = used(f);
    assert_reply(f, "INCR counter", "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_reply(f, "MSET a 1 b 2", "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_reply(f, "APPEND k0 x", "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_reply(f, "COPY k0 k0copy", "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_reply(f, "EXISTS counter a b k0copy", ":0\r\n");
    run(f, "GET k0");
    assert_true(strncmp(f->reply, "$1000\r\n", 7) == 0);
    assert_reply(f, "EXPIRE k1 100", ":1\r\n");
    assert_reply(f, "DEL k0", ":1\r\n");
    assert_reply(f, "PING", "+PONG\r\n");
    /* DEL made room: a write fits again. */
    assert_reply(f, "SET small v", "+OK\r\n");
    run(f, "INFO stats");
    assert_non_null(strstr(f->reply, "evicted_keys:0\r\n"));
}

static void test_allkeys_lru_evicts(void **state)
{
    struct fx *f = *state;
    char buf[4096];
    char key[32];

    set_policy(f, "allkeys-lru", STORE_EVICT_LRU, 0);
    f->srv.settings.maxmemory = BASE_USED + 64 * 1024;
    f->tick_ms = 1000; /* the LRU clock counts seconds */
    for (int i = 0; i < 300; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        assert_reply(f, set_line(buf, sizeof(buf), key, 1000, (unsigned)i), "+OK\r\n");
        assert_true(used(f) <= f->srv.settings.maxmemory);
    }
    assert_true(dbsize(f) > 40 && dbsize(f) < 70);
    assert_reply(f, "EXISTS k299", ":1\r\n");
    assert_reply(f, "EXISTS k0", ":0\r\n");
    assert_int_equal(f->srv.stats.evicted_keys, 300 - dbsize(f));
    run(f, "INFO stats");
    snprintf(buf, sizeof(buf), "evicted_keys:%zu\r\n", 300 - dbsize(f));
    assert_non_null(strstr(f->reply, buf));
    /* A write larger than the whole budget cannot fit however much is evicted. */
    assert_string_equal(run(f, set_line(buf, sizeof(buf), "huge", 3000, 7)), "+OK\r\n");
    f->srv.settings.maxmemory = BASE_USED + 2048;
    assert_string_equal(run(f, set_line(buf, sizeof(buf), "huge2", 3000, 8)),
                        "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_int_equal(dbsize(f), 0);
}

static void test_volatile_spares_persistent(void **state)
{
    struct fx *f = *state;
    char buf[4096];
    char key[32];
    size_t n_persistent = 0;
    int n_left[2] = {0, 0};

    set_policy(f, "volatile-lru", STORE_EVICT_LRU, 1);
    f->srv.settings.maxmemory = BASE_USED + 64 * 1024;
    for (int i = 0; i < 30; i++) {
        snprintf(key, sizeof(key), "p%d", i);
        assert_reply(f, set_line(buf, sizeof(buf), key, 1000, (unsigned)i), "+OK\r\n");
        n_persistent++;
    }
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "v%d", i);
        set_line(buf, sizeof(buf), key, 1000, (unsigned)i + 100);
        strcat(buf, " EX 1000");
        assert_reply(f, buf, "+OK\r\n");
    }
    for (int i = 0; i < 30; i++) {
        snprintf(buf, sizeof(buf), "EXISTS p%d", i);
        assert_reply(f, buf, ":1\r\n");
    }
    assert_true(f->srv.stats.evicted_keys > 100);
    f->srv.stats.evicted_keys = 0;
    /* A persistent write evicts volatile keys to make room. */
    f->srv.settings.maxmemory = used(f);
    assert_string_equal(run(f, set_line(buf, sizeof(buf), "p-new", 1000, 999)), "+OK\r\n");
    n_persistent++;
    assert_int_equal(dbsize(f) - store_db_n_expires(f->srv.shard, 0), n_persistent);
    /* Only persistent keys left: nothing may be evicted, the write is refused. */
    for (int i = 0; i < 200; i++) {
        snprintf(buf, sizeof(buf), "DEL v%d", i);
        run(f, buf);
    }
    assert_int_equal(store_db_n_expires(f->srv.shard, 0), 0);
    f->srv.settings.maxmemory = used(f);
    assert_string_equal(run(f, set_line(buf, sizeof(buf), "p-new2", 1000, 998)),
                        "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    assert_int_equal(dbsize(f), n_persistent);

    /* volatile-ttl: the soonest expiries go first: odd keys live long, even ones do not. */
    set_policy(f, "volatile-ttl", STORE_EVICT_TTL, 1);
    run(f, "FLUSHALL");
    f->srv.settings.maxmemory = BASE_USED + 64 * 1024;
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof(key), "t%d", i);
        set_line(buf, sizeof(buf), key, 1000, (unsigned)i);
        snprintf(buf + strlen(buf), 32, " EX %d", 1000 + (i % 2) * 100000);
        assert_reply(f, buf, "+OK\r\n");
    }
    assert_true(f->srv.stats.evicted_keys > 30);
    /* Sampled, as Redis's: nearly every long-lived key stays. */
    for (int i = 0; i < 100; i++) {
        snprintf(buf, sizeof(buf), "EXISTS t%d", i);
        n_left[i % 2] += strcmp(run(f, buf), ":1\r\n") == 0;
    }
    assert_true(n_left[1] >= 45);
    assert_true(n_left[0] + 30 <= n_left[1]);
}

/* A compressible value of n bytes: SET key <text>. */
static const char *set_text(char *buf, size_t cap, const char *key, size_t n, unsigned seed)
{
    static const char words[] = "alpha-beta-gamma-delta-epsilon-zeta-eta-theta-iota-kappa-";
    size_t len = (size_t)snprintf(buf, cap, "SET %s %u:", key, seed);

    assert_true(len + n < cap);
    for (size_t i = 0; i < n; i++) {
        buf[len + i] = words[(i * 7 + seed) % (sizeof(words) - 1)];
    }
    buf[len + n] = '\0';
    return buf;
}

/* Background compression: values are stored raw and pending; over maxmemory, admission
 * compresses them before it evicts anything, and reads see the same bytes throughout. */
static void test_compress_before_evict(void **state)
{
    struct fx *f = *state;
    char buf[4096];
    char key[32];
    struct store_stats st;
    uint64_t before;

    set_policy(f, "allkeys-lru", STORE_EVICT_LRU, 0);
    f->srv.settings.compression = CMD_COMPRESS_BACKGROUND;
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "c%d", i);
        assert_reply(f, set_text(buf, sizeof(buf), key, 2000, (unsigned)i), "+OK\r\n");
    }
    store_stats_get(f->srv.shard, &st);
    assert_int_equal(st.n_pending, 200);
    assert_true(cmd_compress_pending(&f->srv));
    before = used(f);
    /* Half of what is used now: compression alone gets there (text compresses >4x). */
    f->srv.settings.maxmemory = BASE_USED + (before - BASE_USED) / 2;
    for (int steps = 0; cmd_memory_evict(&f->srv, 0, 0, T0_MS) == CMD_EVICT_RUNNING; steps++) {
        assert_true(steps < 1000);
    }
    assert_true(used(f) <= f->srv.settings.maxmemory);
    assert_int_equal(f->srv.stats.evicted_keys, 0);
    assert_int_equal(dbsize(f), 200);
    store_stats_get(f->srv.shard, &st);
    assert_true(st.n_pending < 200);
    /* Every value reads back, compressed or still pending. */
    for (int i = 0; i < 200; i += 7) {
        size_t n = strlen(set_text(buf, sizeof(buf), "x", 2000, (unsigned)i)) - 6;
        char get[32];
        snprintf(get, sizeof(get), "GET c%d", i);
        run(f, get);
        assert_memory_equal(f->reply + strlen(f->reply) - n - 2, buf + 6, n);
    }
    /* off: nothing is compressed any more, so noeviction fails at once. */
    f->srv.settings.compression = CMD_COMPRESS_OFF;
    assert_false(cmd_compress_pending(&f->srv));
}

static void test_evict_down_bounded(void **state)
{
    struct fx *f = *state;
    char buf[4096];
    char key[32];
    int steps = 0;
    enum cmd_evict_result r;

    set_policy(f, "allkeys-random", STORE_EVICT_RANDOM, 0);
    /* Nothing pending: eviction alone (test_compress_before_evict covers the background). */
    f->srv.settings.compression = CMD_COMPRESS_INLINE;
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        assert_reply(f, set_line(buf, sizeof(buf), key, 1000, (unsigned)i), "+OK\r\n");
    }
    /* CONFIG SET maxmemory below what is used: each cron step with a zero time budget (the
     * fake clock stands still) evicts one batch and reports it is still running. */
    f->srv.settings.maxmemory = BASE_USED + 32 * 1024;
    do {
        size_t before = dbsize(f);
        r = cmd_memory_evict(&f->srv, 0, 0, T0_MS);
        assert_true(before - dbsize(f) <= 16);
        steps++;
    } while (r == CMD_EVICT_RUNNING && steps < 100);
    assert_int_equal(r, CMD_EVICT_OK);
    assert_true(steps >= 5);
    assert_true(used(f) <= f->srv.settings.maxmemory);
    assert_true(dbsize(f) > 10);
    /* Within the limit nothing more goes. */
    assert_int_equal(cmd_memory_evict(&f->srv, 0, 0, T0_MS), CMD_EVICT_OK);
    /* No limit: no eviction at all. */
    f->srv.settings.maxmemory = 0;
    assert_int_equal(cmd_memory_evict(&f->srv, 1u << 30, 0, T0_MS), CMD_EVICT_OK);
    /* noeviction over the limit compacts what the evictions left dead (running while it
     * moves something), then fails, and deletes nothing. */
    set_policy(f, "noeviction", STORE_EVICT_LRU, 0);
    f->srv.settings.maxmemory = BASE_USED;
    steps = (int)dbsize(f);
    for (int i = 0; i < 1000 && (r = cmd_memory_evict(&f->srv, 0, 0, T0_MS)) == CMD_EVICT_RUNNING;
         i++) {
    }
    assert_int_equal(r, CMD_EVICT_FAIL);
    assert_int_equal(dbsize(f), (size_t)steps);
}

/* ---- INFO -------------------------------------------------------------------------------- */

static void test_info_memory(void **state)
{
    static const char *const fields[] = {
        "used_memory:",          "used_memory_human:",      "used_memory_rss:",
        "used_memory_rss_human:", "used_memory_peak:",      "used_memory_peak_human:",
        "used_memory_peak_perc:", "used_memory_overhead:",  "used_memory_startup:",
        "used_memory_dataset:",  "used_memory_dataset_perc:", "total_system_memory:",
        "total_system_memory_human:", "maxmemory:",          "maxmemory_human:",
        "maxmemory_policy:",     "mem_fragmentation_ratio:", "mem_fragmentation_bytes:",
        "mem_allocator:",        "mem_clients_normal:",     NULL};
    struct fx *f = *state;
    char want[128];

    set_policy(f, "allkeys-lfu", STORE_EVICT_LFU, 0);
    f->srv.settings.maxmemory = 3 * MB;
    f->rss = 2 * MB;
    assert_reply(f, "SET a hello", "+OK\r\n");
    run(f, "INFO memory");
    for (size_t i = 0; fields[i] != NULL; i++) {
        snprintf(want, sizeof(want), "\r\n%s", fields[i]);
        assert_non_null(strstr(f->reply, want));
    }
    snprintf(want, sizeof(want), "\r\nused_memory:%llu\r\n", (unsigned long long)used(f));
    assert_non_null(strstr(f->reply, want));
    assert_non_null(strstr(f->reply, "\r\nmaxmemory:3145728\r\nmaxmemory_human:3.00M\r\n"
                                     "maxmemory_policy:allkeys-lfu\r\n"));
    assert_non_null(strstr(f->reply, "\r\nused_memory_startup:1048576\r\n"));
    assert_non_null(strstr(f->reply, "\r\nmem_allocator:libc\r\n"));
    assert_non_null(strstr(f->reply, "\r\nmem_clients_normal:32768\r\n"));
    /* A long INFO built over a grown scratch keeps its first sections intact. */
    f->srv.scratch_cap = 0;
    cmd_fixture_free(NULL, f->srv.scratch);
    f->srv.scratch = cmd_fixture_alloc(NULL, 16);
    f->srv.scratch_cap = 16;
    run(f, "INFO all");
    assert_non_null(strstr(f->reply, "# Server\r\nredis_version:7.0.15\r\n"));
    assert_non_null(strstr(f->reply, "\r\n# Memory\r\nused_memory:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_memory_help_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_usage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_doctor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_us, setup, teardown),
        cmocka_unit_test_setup_teardown(test_noeviction_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allkeys_lru_evicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_volatile_spares_persistent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_evict_down_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compress_before_evict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_info_memory, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
