/*
 * resp_parse: the request parser (RESP multibulk and inline commands).
 *
 * Stateless over its input: each call parses one whole command from the start of the bytes it
 * is given, or returns TERSE_MORE having consumed nothing. Arguments are slices of the input
 * (no copies); they stay valid until the caller compacts, grows or reuses the input buffer.
 *
 * The argv array grows as elements arrive (never sized from a declared count) through the
 * realloc callback the owner sets; in steady state it is reused and nothing is allocated.
 */
#ifndef TERSE_RESP_PARSE_H
#define TERSE_RESP_PARSE_H

#include <stddef.h>
#include <stdint.h>

struct resp_slice {
    const uint8_t *p; /* borrowed: points into the caller's input buffer */
    size_t len;       /* bytes */
};

/* Limits, with Redis's defaults. */
#define RESP_INLINE_MAX (64 * 1024)               /* PROTO_INLINE_MAX_SIZE */
#define RESP_MBULK_BIG_ARG (32 * 1024)            /* PROTO_MBULK_BIG_ARG */
#define RESP_DEFAULT_MAX_BULK (512LL * 1024 * 1024) /* proto-max-bulk-len */
#define RESP_MAX_MULTIBULK (1024LL * 1024 * 1024) /* count above this: invalid (INT_MAX in 7.0) */

struct resp_limits {
    long long max_bulk_len;      /* proto-max-bulk-len, bytes */
    long long max_multibulk_len; /* largest accepted element count */
};

struct resp_request {
    struct resp_slice *argv; /* owned by the request; grown via realloc_fn, freed by deinit */
    size_t argc;             /* arguments of the last parsed command */
    size_t argv_cap;         /* slots allocated */
    /* realloc-like; set by the owner. resp calls no other layer, so memory comes from here. */
    void *(*realloc_fn)(void *p, size_t n);
    void (*free_fn)(void *p);
    /* After TERSE_MORE: total input bytes needed before a re-parse can make progress
     * (0 = unknown, any more bytes may help). Lets the caller read a big bulk without
     * re-parsing on every read. */
    size_t need;
    int inline_cmd;       /* 1 when the last command was inline */
    const char *err;      /* after TERSE_EPROTO: the text after "ERR " (static or errbuf) */
    char errbuf[64];      /* storage for err when it carries a byte of the input */
};

void resp_request_init(struct resp_request *r, void *(*realloc_fn)(void *, size_t),
                       void (*free_fn)(void *));
void resp_request_deinit(struct resp_request *r);

/*
 * resp_parse_request: parses one command from buf[0..len).
 *   TERSE_OK:     r->argv[0..argc) hold the arguments, *consumed = bytes used. argc may be 0
 *                 (empty inline line, "*0\r\n", "*-1\r\n"): nothing to execute.
 *   TERSE_MORE:   incomplete; *consumed = 0; r->need as documented above.
 *   TERSE_EPROTO: malformed; r->err holds Redis's text, e.g.
 *                 "Protocol error: invalid bulk length". The caller replies "-ERR <err>"
 *                 and closes the connection after the reply.
 *   TERSE_ENOMEM: argv could not grow.
 * Does not allocate except to grow argv.
 */
int resp_parse_request(struct resp_request *r, const uint8_t *buf, size_t len,
                       const struct resp_limits *lim, size_t *consumed);

#endif /* TERSE_RESP_PARSE_H */
