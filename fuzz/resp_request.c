/*
 * libFuzzer target: the RESP request parser (resp_parse_request).
 *
 * The input is a connection's byte stream. It is parsed command after command as the server
 * would, with one static-lifetime struct resp_request reused across inputs (as a connection
 * reuses its request: argv and ibuf keep their capacity). Beyond "no crash, no sanitizer
 * report", each input checks these properties, under the default limits and under tiny ones:
 *  - TERSE_OK consumes 1..len bytes, every argument lies inside the input or inside ibuf;
 *    TERSE_MORE and errors consume nothing and leave argc 0; an error carries a text that
 *    starts with "Protocol error: "; need, when set, is more than the bytes given.
 *  - Prefixes (each copied to an exact-size block, so an over-read is caught), given in
 *    increasing order to the same request so that each call resumes the last: before the first
 *    command's end a prefix gives TERSE_MORE, or the same error the whole input gave; from its
 *    end on, the same command.
 *  - Pieces: the whole stream delivered in pieces of sizes drawn from the input, each call on
 *    a fresh exact-size copy of the bytes from the command's start (the buffer moves, as a
 *    connection's does), gives the same commands and the same final error as parsing it whole.
 *    A second pass overwrites with NUL the bytes the request says it is done with (before
 *    r->pos) in every copy: the commands, lengths and errors must not change, which shows that
 *    no call reads them again (a command's cost is linear in its bytes).
 *  - Round trip: each parsed command, written back with resp_write as a multibulk array,
 *    parses to the same arguments.
 * Replayed with gcc by fuzz/fuzz_replay.c in `make fuzz-replay`.
 */
#include "resp/resp_parse.h"
#include "resp/resp_write.h"

#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs up to this size are checked at every prefix; longer ones at FUZZ_SAMPLES offsets. */
#define FUZZ_ALL_PREFIXES 512
#define FUZZ_SAMPLES 24

#define FUZZ_CHECK(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* Result of one parse, detached from the buffers it pointed into. */
struct fuzz_result {
    int rc;
    size_t consumed;
    size_t argc;
    uint64_t hash; /* FNV-1a over every argument's length and bytes */
    const char *err;
};

static uint64_t fuzz_hash_args(const struct resp_request *r)
{
    uint64_t h = 1469598103934665603ULL;
    size_t i;
    size_t j;

    for (i = 0; i < r->argc; i++) {
        size_t len = r->argv[i].len;

        for (j = 0; j < sizeof(len); j++) {
            h = (h ^ (uint8_t)(len >> (8 * j))) * 1099511628211ULL;
        }
        for (j = 0; j < len; j++) {
            h = (h ^ r->argv[i].p[j]) * 1099511628211ULL;
        }
    }
    return h;
}

static int fuzz_inside(const uint8_t *p, size_t len, const uint8_t *base, size_t n)
{
    return base != NULL && p >= base && len <= n && (size_t)(p - base) <= n - len;
}

/* Parses buf[0..n) once and checks the per-call invariants. */
static struct fuzz_result fuzz_parse(struct resp_request *r, const uint8_t *buf, size_t n,
                                     const struct resp_limits *lim)
{
    struct fuzz_result res;
    size_t i;

    memset(&res, 0, sizeof(res));
    res.rc = resp_parse_request(r, buf, n, lim, &res.consumed);
    if (res.rc == TERSE_OK) {
        FUZZ_CHECK(res.consumed > 0 && res.consumed <= n);
        for (i = 0; i < r->argc; i++) {
            const struct resp_slice *s = &r->argv[i];

            FUZZ_CHECK(s->p != NULL);
            FUZZ_CHECK(fuzz_inside(s->p, s->len, buf, res.consumed) ||
                       (r->inline_cmd && fuzz_inside(s->p, s->len, r->ibuf, r->ibuf_cap)));
        }
        res.argc = r->argc;
        res.hash = fuzz_hash_args(r);
        return res;
    }
    FUZZ_CHECK(res.consumed == 0);
    FUZZ_CHECK(r->argc == 0);
    if (res.rc == TERSE_MORE) {
        FUZZ_CHECK(r->need == 0 || r->need > n);
    } else if (res.rc == TERSE_EPROTO) {
        FUZZ_CHECK(r->err != NULL);
        FUZZ_CHECK(strncmp(r->err, "Protocol error: ", 16) == 0);
        res.err = r->err;
    } else {
        FUZZ_CHECK(res.rc == TERSE_ENOMEM);
    }
    return res;
}

static int fuzz_grow(void *owner, struct resp_out *o, size_t need)
{
    size_t cap = o->cap != 0 ? o->cap : 64;
    uint8_t *p;

    (void)owner;
    while (cap - o->len < need) {
        cap *= 2;
    }
    p = realloc(o->p, cap);
    if (p == NULL) {
        return -1;
    }
    o->p = p;
    o->cap = cap;
    return 0;
}

/* Writes r's arguments as a multibulk request and checks they parse back identically (under
 * the default limits: inline arguments are not bound by the bulk limits). */
static void fuzz_round_trip(struct resp_request *r, struct resp_request *back)
{
    struct resp_out o = { NULL, 0, 0, fuzz_grow, NULL, 2, 0, NULL, NULL };
    uint64_t want = fuzz_hash_args(r);
    size_t want_argc = r->argc;
    struct fuzz_result res;
    size_t i;

    if (want_argc == 0) {
        return;
    }
    resp_write_array(&o, want_argc);
    for (i = 0; i < want_argc; i++) {
        resp_write_bulk(&o, r->argv[i].p, r->argv[i].len);
    }
    FUZZ_CHECK(o.err == 0);
    res = fuzz_parse(back, o.p, o.len, NULL);
    FUZZ_CHECK(res.rc == TERSE_OK && res.consumed == o.len);
    FUZZ_CHECK(res.argc == want_argc && res.hash == want);
    free(o.p);
}

/* Checks the first command of data at prefixes of the input. */
static void fuzz_prefixes(struct resp_request *r, const uint8_t *data, size_t size,
                          const struct resp_limits *lim, const struct fuzz_result *whole)
{
    size_t step = size <= FUZZ_ALL_PREFIXES ? 1 : size / FUZZ_SAMPLES + 1;
    size_t k;

    for (k = 0; k < size; k += step) {
        uint8_t *copy = malloc(k != 0 ? k : 1);
        struct fuzz_result res;

        FUZZ_CHECK(copy != NULL);
        if (k != 0) {
            memcpy(copy, data, k);
        }
        res = fuzz_parse(r, copy, k, lim);
        if (whole->rc == TERSE_OK && k >= whole->consumed) {
            FUZZ_CHECK(res.rc == TERSE_OK && res.consumed == whole->consumed);
            FUZZ_CHECK(res.argc == whole->argc && res.hash == whole->hash);
        } else if (res.rc != TERSE_MORE) {
            FUZZ_CHECK(res.rc == TERSE_EPROTO && whole->rc == TERSE_EPROTO);
            FUZZ_CHECK(strcmp(res.err, whole->err) == 0);
        }
        free(copy);
    }
}

/* The commands of a stream parsed whole, for comparison with the pieces. */
#define FUZZ_MAX_CMDS 64
struct fuzz_seq {
    size_t n;                           /* commands parsed (TERSE_OK) */
    struct fuzz_result cmd[FUZZ_MAX_CMDS];
    int end_rc;                         /* what ended it: TERSE_MORE, TERSE_EPROTO */
    char end_err[64 + sizeof(((struct resp_request *)0)->errbuf)];
};

static void fuzz_seq_end(struct fuzz_seq *q, const struct fuzz_result *res)
{
    q->end_rc = res->rc;
    q->end_err[0] = '\0';
    if (res->rc == TERSE_EPROTO) {
        strncpy(q->end_err, res->err, sizeof(q->end_err) - 1);
        q->end_err[sizeof(q->end_err) - 1] = '\0';
    }
}

static void fuzz_seq_whole(struct resp_request *r, const uint8_t *data, size_t size,
                           const struct resp_limits *lim, struct fuzz_seq *q)
{
    size_t off = 0;

    resp_request_reset(r);
    q->n = 0;
    for (;;) {
        struct fuzz_result res = fuzz_parse(r, data + off, size - off, lim);

        if (res.rc != TERSE_OK || q->n == FUZZ_MAX_CMDS) {
            fuzz_seq_end(q, &res);
            return;
        }
        q->cmd[q->n++] = res;
        off += res.consumed;
    }
}

/* Piece sizes: 1..64 bytes, from the input itself so a finding replays. */
static size_t fuzz_piece(const uint8_t *data, size_t size, size_t i)
{
    return size == 0 ? 1 : 1 + (size_t)((data[i % size] ^ (uint8_t)(i * 37)) & 63);
}

static void fuzz_pieces(struct resp_request *r, const uint8_t *data, size_t size,
                        const struct resp_limits *lim, const struct fuzz_seq *want, int poison)
{
    size_t start = 0; /* the current command's first byte */
    size_t have = 0;  /* bytes delivered so far */
    size_t done = 0;  /* bytes of the current command the request is done with */
    size_t n = 0;
    size_t i = 0;

    resp_request_reset(r);
    for (;;) {
        size_t len = have - start;
        uint8_t *copy = malloc(len != 0 ? len : 1);
        struct fuzz_result res;

        FUZZ_CHECK(copy != NULL);
        if (len != 0) {
            memcpy(copy, data + start, len);
        }
        if (poison) {
            memset(copy, 0, done);
        }
        res = fuzz_parse(r, copy, len, lim);
        free(copy);
        if (res.rc == TERSE_OK) {
            FUZZ_CHECK(n < want->n);
            FUZZ_CHECK(res.consumed == want->cmd[n].consumed);
            FUZZ_CHECK(res.argc == want->cmd[n].argc);
            FUZZ_CHECK(poison || res.hash == want->cmd[n].hash);
            n++;
            start += res.consumed;
            done = 0;
            if (n == FUZZ_MAX_CMDS) {
                return;
            }
            continue; /* the next command may be there already */
        }
        if (res.rc == TERSE_EPROTO) {
            FUZZ_CHECK(n == want->n && want->end_rc == TERSE_EPROTO);
            FUZZ_CHECK(strcmp(res.err, want->end_err) == 0);
            return;
        }
        FUZZ_CHECK(res.rc == TERSE_MORE);
        done = r->active ? r->pos : 0;
        if (have == size) {
            FUZZ_CHECK(n == want->n && want->end_rc == TERSE_MORE);
            return;
        }
        have += fuzz_piece(data, size, i++);
        if (have > size) {
            have = size;
        }
    }
}

static void fuzz_stream(struct resp_request *r, struct resp_request *back, const uint8_t *data,
                        size_t size, const struct resp_limits *lim)
{
    static struct fuzz_seq seq;
    size_t off = 0;
    struct fuzz_result first;
    char first_err[sizeof(r->errbuf) + 64];

    fuzz_seq_whole(r, data, size, lim, &seq);
    fuzz_pieces(r, data, size, lim, &seq, 0);
    fuzz_pieces(r, data, size, lim, &seq, 1);

    resp_request_reset(r);
    first = fuzz_parse(r, data, size, lim);
    if (first.rc == TERSE_EPROTO) {
        /* err may point at r->errbuf, which the prefix parses overwrite. */
        strncpy(first_err, first.err, sizeof(first_err) - 1);
        first_err[sizeof(first_err) - 1] = '\0';
        first.err = first_err;
    }
    resp_request_reset(r);
    fuzz_prefixes(r, data, size, lim, &first);

    resp_request_reset(r);
    while (off < size) {
        struct fuzz_result res = fuzz_parse(r, data + off, size - off, lim);

        if (res.rc != TERSE_OK) {
            break;
        }
        fuzz_round_trip(r, back);
        off += res.consumed;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Static lifetime on purpose: the request is reused across inputs like a connection's. */
    static struct resp_request req;
    static struct resp_request back;
    static int ready;
    static const struct resp_limits tiny = { 64, 8, 0 };

    if (!ready) {
        resp_request_init(&req, NULL, NULL);
        resp_request_init(&back, NULL, NULL);
        ready = 1;
    }
    fuzz_stream(&req, &back, data, size, NULL);
    fuzz_stream(&req, &back, data, size, &tiny);
    return 0;
}
