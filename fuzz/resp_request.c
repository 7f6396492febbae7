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
 *  - Prefixes (each copied to an exact-size block, so an over-read is caught): before the
 *    first command's end a prefix gives TERSE_MORE, or the same error the whole input gave;
 *    from its end on, the same command.
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

static void fuzz_stream(struct resp_request *r, struct resp_request *back, const uint8_t *data,
                        size_t size, const struct resp_limits *lim)
{
    size_t off = 0;
    struct fuzz_result first;
    char first_err[sizeof(r->errbuf) + 64];

    first = fuzz_parse(r, data, size, lim);
    if (first.rc == TERSE_EPROTO) {
        /* err may point at r->errbuf, which the prefix parses overwrite. */
        strncpy(first_err, first.err, sizeof(first_err) - 1);
        first_err[sizeof(first_err) - 1] = '\0';
        first.err = first_err;
    }
    fuzz_prefixes(r, data, size, lim, &first);

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
