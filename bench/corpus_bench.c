/* corpus_bench: load generator for the cache-value corpus (make bench-memory / bench-evict).
 *
 * Reads make_corpus.py --format bin records (u32le key_len, u32le value_len, key, value) and
 * drives one Redis-protocol server with hiredis, over several connections (one thread each),
 * each pipelining a batch of commands and then reading the batch's replies.
 *
 *   corpus_bench mem  --port P [--pid PID]
 *       one line: used_memory, RSS (VmRSS of PID, or of INFO's process_id), maxmemory,
 *       evicted_keys, keys.
 *   corpus_bench load --port P --corpus FILE|- [--skip S] [--count C] [--conns 4]
 *                     [--pipeline 64]
 *       SET records S .. S+C-1 of the stream (all when no --count); prints keys/s.
 *   corpus_bench get  --port P --corpus FILE --keys N [--dist uniform|zipf] [--alpha 0.99]
 *                     [--requests R] [--seed 1] [--perm-seed 1] [--verify-every 8]
 *                     [--fill-on-miss]
 *       GET over the first N keys of the corpus; every K-th hit is compared byte for byte
 *       with the corpus value. With --fill-on-miss a miss is followed by a SET of the value
 *       (cache-aside), as a cache in front of a database would do.
 *   corpus_bench all  --port P --corpus FILE [--pid PID] [...]
 *       mem, load, mem, GET uniform, GET zipf against one server, with bytes/key.
 *
 * Every result is one line "RESULT key=value ..." for the driver (bench/corpus_driver.py).
 * A connection error (a crashed server) ends the program with status 2 and a message.
 *
 * This file holds the command line, the mem and all modes and the helpers every mode uses;
 * load is corpus_bench_load.c, get corpus_bench_get.c; corpus_bench.h is what they share.
 */
#include "corpus_bench.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double cb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cb_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "corpus_bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void *cb_xmalloc(size_t n)
{
    void *p = malloc(n != 0 ? n : 1);
    if (p == NULL) {
        cb_die("out of memory (%s)", "malloc");
    }
    return p;
}

redisContext *cb_connect(const struct opts *o)
{
    struct timeval tv = {5, 0};
    redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
    if (c == NULL || c->err) {
        cb_die("cannot connect: %s", c != NULL ? c->errstr : "no context");
    }
    struct timeval rt = {120, 0};
    redisSetTimeout(c, rt);
    return c;
}

redisReply *cb_get_reply(redisContext *c, const char *what)
{
    void *r = NULL;
    if (redisGetReply(c, &r) != REDIS_OK || r == NULL) {
        fprintf(stderr, "corpus_bench: connection lost during %s: %s\n", what,
                c->errstr[0] != '\0' ? c->errstr : "no reply");
        exit(2);
    }
    return r;
}

/* ---- INFO and RSS ------------------------------------------------------------------------ */

static bool info_field(const char *info, const char *name, unsigned long long *out)
{
    size_t n = strlen(name);
    for (const char *p = info; p != NULL && *p != '\0';) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            *out = strtoull(p + n + 1, NULL, 10);
            return true;
        }
        p = strchr(p, '\n');
        if (p != NULL) {
            p++;
        }
    }
    return false;
}

static long long rss_of(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtoll(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

struct mem {
    unsigned long long used, maxmemory, evicted, keys, pid;
    long long rss;
};

static struct mem read_mem(const struct opts *o)
{
    struct mem m = {0};
    redisContext *c = cb_connect(o);
    redisReply *r = redisCommand(c, "INFO");
    if (r == NULL || r->type != REDIS_REPLY_STRING) {
        cb_die("INFO failed: %s", r != NULL && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
    }
    info_field(r->str, "used_memory", &m.used);
    info_field(r->str, "maxmemory", &m.maxmemory);
    info_field(r->str, "evicted_keys", &m.evicted);
    info_field(r->str, "process_id", &m.pid);
    const char *db0 = strstr(r->str, "db0:keys=");
    m.keys = db0 != NULL ? strtoull(db0 + 9, NULL, 10) : 0;
    freeReplyObject(r);
    redisFree(c);
    long pid = o->pid > 0 ? o->pid : (long)m.pid;
    m.rss = rss_of(pid);
    return m;
}

static int cmd_mem(const struct opts *o)
{
    struct mem m = read_mem(o);
    printf("RESULT mode=mem used_memory=%llu rss=%lld maxmemory=%llu evicted_keys=%llu "
           "keys=%llu\n",
           m.used, m.rss, m.maxmemory, m.evicted, m.keys);
    return 0;
}

/* ---- all: one server, every phase --------------------------------------------------------- */

static int cmd_all(struct opts *o)
{
    if (strcmp(o->corpus, "-") == 0) {
        cb_die("all needs a corpus file (the GET phase reads it at random)");
    }
    struct mem base = read_mem(o);
    fflush(stdout);
    cb_cmd_load(o);
    struct mem full = read_mem(o);
    if (o->keys == 0) {
        o->keys = full.keys;
    }
    double k = o->keys ? (double)o->keys : 1.0;
    printf("RESULT mode=bytes_per_key keys=%" PRIu64 " rss_per_key=%.1f used_per_key=%.1f "
           "rss_base=%lld used_base=%llu rss=%lld used=%llu\n",
           o->keys, (double)(full.rss - base.rss) / k, ((double)full.used - (double)base.used) / k,
           base.rss, base.used, full.rss, full.used);
    fflush(stdout);
    int rc = 0;
    o->dist = "uniform";
    rc |= cb_cmd_get(o);
    fflush(stdout);
    o->dist = "zipf";
    rc |= cb_cmd_get(o);
    return rc;
}

/* ---- command line ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr,
            "usage: corpus_bench mem|load|get|all --port P [--host H] [--pid PID]\n"
            "       [--corpus FILE|-] [--skip S] [--count C] [--conns 4] [--pipeline 64]\n"
            "       [--keys N] [--dist uniform|zipf] [--alpha 0.99] [--requests R] [--seed 1]\n"
            "       [--perm-seed 1] [--verify-every 8] [--fill-on-miss]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage();
    }
    struct opts o = {.host = "127.0.0.1", .port = 6379, .corpus = "-", .conns = 4,
                     .pipeline = 64, .dist = "uniform", .alpha = 0.99, .requests = 1000000,
                     .seed = 1, .perm_seed = 1, .verify_every = 8};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--fill-on-miss") == 0) {
            o.fill_on_miss = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage();
        }
        const char *v = argv[++i];
        if (strcmp(a, "--host") == 0) {
            o.host = v;
        } else if (strcmp(a, "--port") == 0) {
            o.port = atoi(v);
        } else if (strcmp(a, "--pid") == 0) {
            o.pid = atol(v);
        } else if (strcmp(a, "--corpus") == 0) {
            o.corpus = v;
        } else if (strcmp(a, "--skip") == 0) {
            o.skip = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--count") == 0) {
            o.count = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--conns") == 0) {
            o.conns = atoi(v);
        } else if (strcmp(a, "--pipeline") == 0) {
            o.pipeline = atoi(v);
        } else if (strcmp(a, "--keys") == 0) {
            o.keys = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--dist") == 0) {
            o.dist = v;
        } else if (strcmp(a, "--alpha") == 0) {
            o.alpha = atof(v);
        } else if (strcmp(a, "--requests") == 0) {
            o.requests = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--seed") == 0) {
            o.seed = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--perm-seed") == 0) {
            o.perm_seed = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--verify-every") == 0) {
            o.verify_every = strtoull(v, NULL, 10);
        } else {
            usage();
        }
    }
    if (o.conns < 1 || o.conns > MAX_CONNS || o.pipeline < 1 || o.pipeline > 4096) {
        cb_die("--conns must be 1..64 and --pipeline 1..4096");
    }
    const char *mode = argv[1];
    if (strcmp(mode, "mem") == 0) {
        return cmd_mem(&o);
    }
    if (strcmp(mode, "load") == 0) {
        return cb_cmd_load(&o);
    }
    if (strcmp(mode, "get") == 0) {
        return cb_cmd_get(&o);
    }
    if (strcmp(mode, "all") == 0) {
        return cmd_all(&o);
    }
    usage();
    return 2;
}
