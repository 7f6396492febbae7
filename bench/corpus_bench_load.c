/*
 * corpus_bench_load: the load mode of corpus_bench (corpus_bench.c describes the modes). The
 * records of a make_corpus.py --format bin stream (a file, or - for stdin) are read by one
 * shared reader under a lock, in batches of --pipeline records; each of --conns threads
 * pipelines its batch as SETs on its own connection and then reads the batch's replies.
 * --skip S records are passed over first (seeking when the stream allows it), --count C
 * bounds the records sent.
 */
#include "corpus_bench.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ---- corpus reading ---------------------------------------------------------------------- */

/* Reads one record's header; 0 at a clean end of stream, 1 on success, exits when torn. */
static int read_header(FILE *f, uint32_t *klen, uint32_t *vlen)
{
    unsigned char h[8];
    size_t got = fread(h, 1, 8, f);
    if (got == 0 && feof(f)) {
        return 0;
    }
    if (got != 8) {
        cb_die("corpus: torn record header");
    }
    *klen = cb_le32(h);
    *vlen = cb_le32(h + 4);
    if (*klen == 0 || *klen > MAX_KEY || *vlen > MAX_VALUE) {
        cb_die("corpus: implausible record lengths");
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
            cb_die("corpus: ends while skipping");
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
                cb_die("out of memory (%s)", "batch");
            }
        }
        if (fread(b->buf + used, 1, (size_t)kl + vl, L->in) != (size_t)kl + vl) {
            cb_die("corpus: torn record");
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
    redisContext *c = cb_connect(L->o);
    struct batch *b = cb_xmalloc(sizeof *b);
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
            redisReply *r = cb_get_reply(c, "SET");
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
        cb_die("cannot open corpus %s", path);
    }
    return f;
}

int cb_cmd_load(const struct opts *o)
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
            cb_die("corpus: shorter than --skip");
        }
        skip_bytes(L.in, (uint64_t)kl + vl);
    }
    L.remaining = o->count != 0 ? o->count : UINT64_MAX;

    pthread_t th[MAX_CONNS];
    double t0 = cb_now_s();
    for (int i = 0; i < o->conns; i++) {
        pthread_create(&th[i], NULL, load_thread, &L);
    }
    for (int i = 0; i < o->conns; i++) {
        pthread_join(th[i], NULL);
    }
    double dt = cb_now_s() - t0;
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
