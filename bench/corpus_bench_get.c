/*
 * corpus_bench_get: the get mode of corpus_bench (corpus_bench.c describes the modes). The
 * corpus file is mapped and its first --keys records indexed; a sample of --requests key
 * indices is drawn (uniform, or Zipf(--alpha) over a fixed shuffle of the keys), and --conns
 * threads GET it in pipelined batches, comparing every --verify-every-th hit with the corpus
 * value and, with --fill-on-miss, SETting each missed key (cache-aside). Hit rates are also
 * given for the second half of the requests alone, once a cache has warmed.
 */
#include "corpus_bench.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
        cb_die("cannot open corpus %s (get needs a file, not a pipe)", path);
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 8) {
        cb_die("corpus %s is empty", path);
    }
    m->size = (size_t)st.st_size;
    m->base = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m->base == MAP_FAILED) {
        cb_die("cannot map corpus %s", path);
    }
    m->off = cb_xmalloc(sizeof *m->off * keys);
    size_t p = 0;
    uint64_t i = 0;
    while (i < keys && p + 8 <= m->size) {
        uint32_t kl = cb_le32(m->base + p), vl = cb_le32(m->base + p + 4);
        if (p + 8 + kl + (uint64_t)vl > m->size) {
            cb_die("corpus: torn record");
        }
        m->off[i++] = p;
        p += 8 + (size_t)kl + vl;
    }
    if (i < keys) {
        cb_die("corpus has fewer records than --keys");
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
    redisContext *c = cb_connect(o);
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
            size_t argl[2] = {3, cb_le32(rec)};
            redisAppendCommandArgv(c, 2, argv, argl);
        }
        int nmiss = 0;
        uint64_t hits = 0, misses = 0, hl = 0, ml = 0, ver = 0, bad = 0, errs = 0, bytes = 0;
        for (uint64_t q = start; q < end; q++) {
            redisReply *r = cb_get_reply(c, "GET");
            const unsigned char *rec = G->m->base + G->m->off[G->sample[q]];
            uint32_t kl = cb_le32(rec), vl = cb_le32(rec + 4);
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
                uint32_t kl = cb_le32(rec), vl = cb_le32(rec + 4);
                const char *argv[3] = {"SET", (const char *)rec + 8, (const char *)rec + 8 + kl};
                size_t argl[3] = {3, kl, vl};
                redisAppendCommandArgv(c, 3, argv, argl);
            }
            for (int i = 0; i < nmiss; i++) {
                redisReply *r = cb_get_reply(c, "SET (fill)");
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
    uint32_t *sample = cb_xmalloc(sizeof *sample * o->requests);
    if (strcmp(o->dist, "uniform") == 0) {
        for (uint64_t q = 0; q < o->requests; q++) {
            sample[q] = (uint32_t)(rng_next(&s) % n);
        }
        return sample;
    }
    if (strcmp(o->dist, "zipf") != 0) {
        cb_die("unknown --dist %s", o->dist);
    }
    uint32_t *perm = cb_xmalloc(sizeof *perm * n);
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
    double *cdf = cb_xmalloc(sizeof *cdf * n);
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

int cb_cmd_get(const struct opts *o)
{
    if (o->keys == 0 || o->keys > UINT32_MAX) {
        cb_die("get needs --keys N (1 .. 2^32-1)");
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
    double t0 = cb_now_s();
    for (int i = 0; i < o->conns; i++) {
        pthread_create(&th[i], NULL, get_thread, &G);
    }
    for (int i = 0; i < o->conns; i++) {
        pthread_join(th[i], NULL);
    }
    double dt = cb_now_s() - t0;
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
