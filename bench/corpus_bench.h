/*
 * corpus_bench: what the files of the corpus load generator share (make corpus-bench links
 * them into one binary, build/bench/corpus_bench): corpus_bench.c (the command line, mem, all,
 * and the helpers below), corpus_bench_load.c (load: SET the records of a stream, several
 * connections pipelining), corpus_bench_get.c (get: GET a uniform or Zipf sample of the
 * corpus's keys, verifying values). The modes and their output are described in
 * corpus_bench.c.
 */
#ifndef CORPUS_BENCH_H
#define CORPUS_BENCH_H

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stdint.h>

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

/* Monotonic seconds. */
double cb_now_s(void);
/* Prints "corpus_bench: " and the message to stderr and exits with status 2. */
__attribute__((format(printf, 1, 2), noreturn)) void cb_die(const char *fmt, ...);
/* malloc that exits on failure (n == 0 allocates one byte). */
void *cb_xmalloc(size_t n);
/* A connection to o's server (5 s to connect, 120 s per reply); exits on failure. */
redisContext *cb_connect(const struct opts *o);
/* One reply or exit: a failed read means the server closed the connection or died. */
redisReply *cb_get_reply(redisContext *c, const char *what);

/* A record header's little-endian u32. */
static inline uint32_t cb_le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The load and get modes: print their RESULT line; 0, or 1 when get saw a wrong value. */
int cb_cmd_load(const struct opts *o);
int cb_cmd_get(const struct opts *o);

#endif /* CORPUS_BENCH_H */
