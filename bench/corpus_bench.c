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
 */
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64
#define MAX_KEY (1u << 16)
#define MAX_VALUE (64u << 20)

struct opts {
    const char *host;
    int port;
    long pid;
    const char *corpus;
    uint64_t skip;
    uint64_t count; /* 0: all */
    int conns;
    int pipeline;
    uint64_t keys;
    const char *dist;
    double alpha;
    uint64_t requests;
    uint64_t seed;
    uint64_t perm_seed;
    uint64_t verify_every;
    bool fill_on_miss;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "corpus_bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n != 0 ? n : 1);
    if (p == NULL) {
        die("out of memory (%s)", "malloc");
    }
    return p;
}

static redisContext *connect_to(const struct opts *o)
{
    struct timeval tv = {5, 0};
    redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
    if (c == NULL || c->err) {
        die("cannot connect: %s", c != NULL ? c->errstr : "no context");
    }
    struct timeval rt = {120, 0};
    redisSetTimeout(c, rt);
    return c;
}

/* One reply or exit: a failed read means the server closed the connection or died. */
static redisReply *get_reply(redisContext *c, const char *what)
{
    void *r = NULL;
    if (redisGetReply(c, &r) != REDIS_OK || r == NULL) {
        fprintf(stderr, "corpus_bench: connection lost during %s: %s\n", what,
                c->errstr[0] != '\0' ? c->errstr : "no reply");
        exit(2);
    }
    return r;
}

/* ---- deterministic random numbers (splitmix64) ----------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s) /* [0, 1) */
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
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
    redisContext *c = connect_to(o);
    redisReply *r = redisCommand(c, "INFO");
    if (r == NULL || r->type != REDIS_REPLY_STRING) {
        die("INFO failed: %s", r != NULL && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr);
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

/* ---- corpus reading ---------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Reads one record's header; 0 at a clean end of stream, 1 on success, exits when torn. */
static int read_header(FILE *f, uint32_t *klen, uint32_t *vlen)
{
    unsigned char h[8];
    size_t got = fread(h, 1, 8, f);
    if (got == 0 && feof(f)) {
        return 0;
    }
    if (got != 8) {
        die("corpus: torn record header");
    }
    *klen = le32(h);
    *vlen = le32(h + 4);
    if (*klen == 0 || *klen > MAX_KEY || *vlen > MAX_VALUE) {
        die("corpus: implausible record lengths");
    }
    return 1;
}

static void skip_bytes(FILE *f, uint64_t n)
{
    if (n == 0) {
        return;
    }
    if (fseeko(f, (off_t)n, SEEK_CUR) == 0) {
        return;
    }
    char buf[65536]; /* a pipe: read and drop */
    while (n > 0) {
        size_t want = n < sizeof buf ? (size_t)n : sizeof buf;
        if (fread(buf, 1, want, f) != want) {
            die("corpus: ends while skipping");
        }
        n -= want;
    }
}

/* ---- load -------------------------------------------------------------------------------- */

struct loader {
    const struct opts *o;
    FILE *in;
    pthread_mutex_t lock;
    uint64_t remaining; /* records still to hand out */
    bool eof;
    _Atomic uint64_t keys, bytes, errors;
    pthread_mutex_t err_lock;
    char first_error[256];
};

struct batch {
    char *buf;
    size_t cap;
    int n;
    size_t off[4096];
    uint32_t klen[4096], vlen[4096];
};

/* Takes up to `pipeline` records from the shared stream into b; returns how many. */
static int take_batch(struct loader *L, struct batch *b)
{
    pthread_mutex_lock(&L->lock);
    b->n = 0;
    size_t used = 0;
    while (b->n < L->o->pipeline && L->remaining > 0 && !L->eof) {
        uint32_t kl, vl;
        if (read_header(L->in, &kl, &vl) == 0) {
            L->eof = true;
            break;
        }
        size_t need = used + kl + vl;
        if (need > b->cap) {
            b->cap = need * 2;
            b->buf = realloc(b->buf, b->cap);
            if (b->buf == NULL) {
                die("out of memory (%s)", "batch");
            }
        }
        if (fread(b->buf + used, 1, (size_t)kl + vl, L->in) != (size_t)kl + vl) {
            die("corpus: torn record");
        }
        b->off[b->n] = used;
        b->klen[b->n] = kl;
        b->vlen[b->n] = vl;
        b->n++;
        used = need;
        L->remaining--;
    }
    pthread_mutex_unlock(&L->lock);
    return b->n;
}

static void note_error(struct loader *L, const char *msg)
{
    atomic_fetch_add(&L->errors, 1);
    pthread_mutex_lock(&L->err_lock);
    if (L->first_error[0] == '\0') {
        snprintf(L->first_error, sizeof L->first_error, "%s", msg);
    }
    pthread_mutex_unlock(&L->err_lock);
}

static void *load_thread(void *arg)
{
    struct loader *L = arg;
    redisContext *c = connect_to(L->o);
    struct batch *b = xmalloc(sizeof *b);
    b->buf = NULL;
    b->cap = 0;
    while (take_batch(L, b) > 0) {
        uint64_t bytes = 0;
        for (int i = 0; i < b->n; i++) {
            const char *argv[3] = {"SET", b->buf + b->off[i], b->buf + b->off[i] + b->klen[i]};
            size_t argl[3] = {3, b->klen[i], b->vlen[i]};
            redisAppendCommandArgv(c, 3, argv, argl);
            bytes += (uint64_t)b->klen[i] + b->vlen[i];
        }
        for (int i = 0; i < b->n; i++) {
            redisReply *r = get_reply(c, "SET");
            if (r->type == REDIS_REPLY_ERROR) {
                note_error(L, r->str);
            }
            freeReplyObject(r);
        }
        atomic_fetch_add(&L->keys, (uint64_t)b->n);
        atomic_fetch_add(&L->bytes, bytes);
    }
    free(b->buf);
    free(b);
    redisFree(c);
    return NULL;
}

static FILE *open_corpus(const char *path)
{
    if (strcmp(path, "-") == 0) {
        return stdin;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        die("cannot open corpus %s", path);
    }
    return f;
}

static int cmd_load(const struct opts *o)
{
    struct loader L;
    memset(&L, 0, sizeof L);
    L.o = o;
    L.in = open_corpus(o->corpus);
    static char iobuf[1 << 20];
    setvbuf(L.in, iobuf, _IOFBF, sizeof iobuf);
    pthread_mutex_init(&L.lock, NULL);
    pthread_mutex_init(&L.err_lock, NULL);
    for (uint64_t i = 0; i < o->skip; i++) {
        uint32_t kl, vl;
        if (read_header(L.in, &kl, &vl) == 0) {
            die("corpus: shorter than --skip");
        }
        skip_bytes(L.in, (uint64_t)kl + vl);
    }
    L.remaining = o->count != 0 ? o->count : UINT64_MAX;

    pthread_t th[MAX_CONNS];
    double t0 = now_s();
    for (int i = 0; i < o->conns; i++) {
        pthread_create(&th[i], NULL, load_thread, &L);
    }
    for (int i = 0; i < o->conns; i++) {
        pthread_join(th[i], NULL);
    }
    double dt = now_s() - t0;
    if (L.in != stdin) {
        fclose(L.in);
    }
    uint64_t keys = atomic_load(&L.keys);
    printf("RESULT mode=load keys=%" PRIu64 " bytes=%" PRIu64 " seconds=%.3f keys_per_s=%.0f "
           "mb_per_s=%.1f errors=%" PRIu64 " first_error=\"%s\"\n",
           keys, atomic_load(&L.bytes), dt, keys / dt, atomic_load(&L.bytes) / dt / 1e6,
           atomic_load(&L.errors), L.first_error);
    return 0;
}

/* ---- get --------------------------------------------------------------------------------- */

struct corpus_map {
    unsigned char *base;
    size_t size;
    uint64_t n;
    uint64_t *off; /* offset of record i's header */
};

static void map_corpus(const char *path, uint64_t keys, struct corpus_map *m)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        die("cannot open corpus %s (get needs a file, not a pipe)", path);
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 8) {
        die("corpus %s is empty", path);
    }
    m->size = (size_t)st.st_size;
    m->base = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m->base == MAP_FAILED) {
        die("cannot map corpus %s", path);
    }
    m->off = xmalloc(sizeof *m->off * keys);
    size_t p = 0;
    uint64_t i = 0;
    while (i < keys && p + 8 <= m->size) {
        uint32_t kl = le32(m->base + p), vl = le32(m->base + p + 4);
        if (p + 8 + kl + (uint64_t)vl > m->size) {
            die("corpus: torn record");
        }
        m->off[i++] = p;
        p += 8 + (size_t)kl + vl;
    }
    if (i < keys) {
        die("corpus has fewer records than --keys");
    }
    m->n = keys;
}

struct getter {
    const struct opts *o;
    const struct corpus_map *m;
    uint32_t *sample; /* key index per request */
    uint64_t nreq;
    _Atomic uint64_t next;
    _Atomic uint64_t hits, misses, hits_late, misses_late, verified, mismatches, errors, fills,
        bytes;
    pthread_mutex_t err_lock;
    char first_problem[512];
};

__attribute__((format(printf, 2, 3))) static void note_problem(struct getter *G,
                                                               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&G->err_lock);
    if (G->first_problem[0] == '\0') {
        vsnprintf(G->first_problem, sizeof G->first_problem, fmt, ap);
    }
    pthread_mutex_unlock(&G->err_lock);
    va_end(ap);
}

static void *get_thread(void *arg)
{
    struct getter *G = arg;
    const struct opts *o = G->o;
    redisContext *c = connect_to(o);
    uint64_t miss_idx[4096];
    const uint64_t P = (uint64_t)o->pipeline;
    for (;;) {
        uint64_t start = atomic_fetch_add(&G->next, P);
        if (start >= G->nreq) {
            break;
        }
        uint64_t end = start + P < G->nreq ? start + P : G->nreq;
        for (uint64_t q = start; q < end; q++) {
            const unsigned char *rec = G->m->base + G->m->off[G->sample[q]];
            const char *argv[2] = {"GET", (const char *)rec + 8};
            size_t argl[2] = {3, le32(rec)};
            redisAppendCommandArgv(c, 2, argv, argl);
        }
        int nmiss = 0;
        uint64_t hits = 0, misses = 0, hl = 0, ml = 0, ver = 0, bad = 0, errs = 0, bytes = 0;
        for (uint64_t q = start; q < end; q++) {
            redisReply *r = get_reply(c, "GET");
            const unsigned char *rec = G->m->base + G->m->off[G->sample[q]];
            uint32_t kl = le32(rec), vl = le32(rec + 4);
            bool late = q >= G->nreq / 2;
            if (r->type == REDIS_REPLY_STRING) {
                hits++;
                hl += late;
                bytes += (uint64_t)r->len;
                if (o->verify_every != 0 && q % o->verify_every == 0) {
                    ver++;
                    if ((size_t)r->len != vl || memcmp(r->str, rec + 8 + kl, vl) != 0) {
                        bad++;
                        char key[256];
                        snprintf(key, sizeof key, "%.*s", (int)(kl < 200 ? kl : 200),
                                 (const char *)rec + 8);
                        note_problem(G, "wrong value for key %s (reply %zu bytes, corpus %u)",
                                     key, (size_t)r->len, vl);
                    }
                }
            } else if (r->type == REDIS_REPLY_NIL) {
                misses++;
                ml += late;
                miss_idx[nmiss++] = G->sample[q];
            } else {
                errs++;
                note_problem(G, "GET reply: %s",
                             r->type == REDIS_REPLY_ERROR ? r->str : "unexpected type");
            }
            freeReplyObject(r);
        }
        if (o->fill_on_miss && nmiss > 0) {
            for (int i = 0; i < nmiss; i++) {
                const unsigned char *rec = G->m->base + G->m->off[miss_idx[i]];
                uint32_t kl = le32(rec), vl = le32(rec + 4);
                const char *argv[3] = {"SET", (const char *)rec + 8, (const char *)rec + 8 + kl};
                size_t argl[3] = {3, kl, vl};
                redisAppendCommandArgv(c, 3, argv, argl);
            }
            for (int i = 0; i < nmiss; i++) {
                redisReply *r = get_reply(c, "SET (fill)");
                if (r->type == REDIS_REPLY_ERROR) {
                    errs++;
                    note_problem(G, "SET (fill) reply: %s", r->str);
                }
                freeReplyObject(r);
            }
            atomic_fetch_add(&G->fills, (uint64_t)nmiss);
        }
        atomic_fetch_add(&G->hits, hits);
        atomic_fetch_add(&G->misses, misses);
        atomic_fetch_add(&G->hits_late, hl);
        atomic_fetch_add(&G->misses_late, ml);
        atomic_fetch_add(&G->verified, ver);
        atomic_fetch_add(&G->mismatches, bad);
        atomic_fetch_add(&G->errors, errs);
        atomic_fetch_add(&G->bytes, bytes);
    }
    redisFree(c);
    return NULL;
}

/* Request sample: key indices, uniform, or Zipf(alpha) over ranks 1..N where rank r names the
 * key perm[r-1] of a shuffle seeded by --perm-seed (so hot keys are spread over the load
 * order, and the same keys are hot whatever --seed draws the requests). */
static uint32_t *make_sample(const struct opts *o, uint64_t n)
{
    uint64_t s = o->seed;
    uint32_t *sample = xmalloc(sizeof *sample * o->requests);
    if (strcmp(o->dist, "uniform") == 0) {
        for (uint64_t q = 0; q < o->requests; q++) {
            sample[q] = (uint32_t)(rng_next(&s) % n);
        }
        return sample;
    }
    if (strcmp(o->dist, "zipf") != 0) {
        die("unknown --dist %s", o->dist);
    }
    uint32_t *perm = xmalloc(sizeof *perm * n);
    uint64_t ps = o->perm_seed; /* fixed apart from --seed: the hot keys stay the same */
    for (uint64_t i = 0; i < n; i++) {
        perm[i] = (uint32_t)i;
    }
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = rng_next(&ps) % (i + 1);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    double *cdf = xmalloc(sizeof *cdf * n);
    double acc = 0;
    for (uint64_t r = 0; r < n; r++) {
        acc += pow((double)(r + 1), -o->alpha);
        cdf[r] = acc;
    }
    for (uint64_t q = 0; q < o->requests; q++) {
        double u = rng_unit(&s) * acc;
        uint64_t lo = 0, hi = n - 1; /* first r with cdf[r] > u */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (cdf[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        sample[q] = perm[lo];
    }
    free(cdf);
    free(perm);
    return sample;
}

static int cmd_get(const struct opts *o)
{
    if (o->keys == 0 || o->keys > UINT32_MAX) {
        die("get needs --keys N (1 .. 2^32-1)");
    }
    struct corpus_map m;
    map_corpus(o->corpus, o->keys, &m);
    struct getter G;
    memset(&G, 0, sizeof G);
    G.o = o;
    G.m = &m;
    G.nreq = o->requests;
    G.sample = make_sample(o, m.n);
    pthread_mutex_init(&G.err_lock, NULL);
    pthread_t th[MAX_CONNS];
    double t0 = now_s();
    for (int i = 0; i < o->conns; i++) {
        pthread_create(&th[i], NULL, get_thread, &G);
    }
    for (int i = 0; i < o->conns; i++) {
        pthread_join(th[i], NULL);
    }
    double dt = now_s() - t0;
    uint64_t hits = G.hits, misses = G.misses;
    uint64_t hl = G.hits_late, ml = G.misses_late;
    printf("RESULT mode=get dist=%s requests=%" PRIu64 " seconds=%.3f gets_per_s=%.0f "
           "mb_per_s=%.1f hits=%" PRIu64 " misses=%" PRIu64 " hit_rate=%.4f "
           "hit_rate_second_half=%.4f fills=%" PRIu64 " verified=%" PRIu64
           " mismatches=%" PRIu64 " errors=%" PRIu64 " first_problem=\"%s\"\n",
           o->dist, o->requests, dt, o->requests / dt, (double)G.bytes / dt / 1e6, hits, misses,
           hits + misses ? (double)hits / (double)(hits + misses) : 0.0,
           hl + ml ? (double)hl / (double)(hl + ml) : 0.0, (uint64_t)G.fills,
           (uint64_t)G.verified, (uint64_t)G.mismatches, (uint64_t)G.errors, G.first_problem);
    free(G.sample);
    free(m.off);
    munmap(m.base, m.size);
    return G.mismatches != 0 ? 1 : 0;
}

/* ---- all: one server, every phase --------------------------------------------------------- */

static int cmd_all(struct opts *o)
{
    if (strcmp(o->corpus, "-") == 0) {
        die("all needs a corpus file (the GET phase reads it at random)");
    }
    struct mem base = read_mem(o);
    fflush(stdout);
    cmd_load(o);
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
    rc |= cmd_get(o);
    fflush(stdout);
    o->dist = "zipf";
    rc |= cmd_get(o);
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
        die("--conns must be 1..64 and --pipeline 1..4096");
    }
    const char *mode = argv[1];
    if (strcmp(mode, "mem") == 0) {
        return cmd_mem(&o);
    }
    if (strcmp(mode, "load") == 0) {
        return cmd_load(&o);
    }
    if (strcmp(mode, "get") == 0) {
        return cmd_get(&o);
    }
    if (strcmp(mode, "all") == 0) {
        return cmd_all(&o);
    }
    usage();
    return 2;
}
