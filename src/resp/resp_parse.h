/*
 * resp_parse: the request parser (RESP multibulk and inline commands).
 *
 * Each call is given the bytes from the start of one command and parses it, or returns
 * TERSE_MORE having consumed nothing. A command that arrives in pieces is resumed where the
 * last call stopped (the request keeps its place, as offsets from the command's first byte), so
 * its cost is linear in its bytes however they arrive: the caller calls again with the same
 * command start and more bytes after it (its buffer may have moved), or calls
 * resp_request_reset when it drops those bytes. Arguments are slices of the input (no copies);
 * they stay valid until the caller compacts, grows or reuses the input buffer.
 *
 * The argv array grows as elements arrive (never sized from a declared count) through the
 * realloc callback the owner sets; in steady state it is reused and nothing is allocated.
 *
 * Inline commands: an argument that is a contiguous run of the input (a plain word, or a quoted
 * word without escapes) is a slice of the input like any other. An argument whose bytes are
 * not contiguous in the input (escapes such as \x41 or \n inside "double quotes", \' inside
 * 'single quotes', or a word that mixes quoted and unquoted parts) is unescaped into ibuf, a
 * buffer owned by the request; such slices stay valid until the next resp_parse_request or
 * resp_request_deinit on the same request. ibuf is grown (via realloc_fn) only when a line
 * holding a quote character is longer than its capacity, so steady state does not allocate.
 *
 * Redis compatibility (7.0 networking.c is the oracle, each point checked on redis-server):
 *  - Redis finds line ends with strchr() over a NUL-terminated buffer, so a NUL byte before the
 *    '\r' of a length line (or the '\n' of an inline line) hides it: the parser waits for more
 *    input, and fails with "too big ..." once more than RESP_INLINE_MAX bytes are buffered.
 *  - A length line ends at its first '\r'; the byte after it is skipped without being checked.
 *  - Bulk data is followed by two bytes that are skipped without being checked (normally CRLF).
 *  - "*0", and any negative count ("*-1", "*-5"), consume the line and yield argc 0.
 *  - Lengths are parsed like Redis's string2ll(): no '+', no leading zeros, no "-0", at most
 *    20 characters, no overflow.
 *  - A line longer than RESP_INLINE_MAX is refused only when no terminator has arrived yet, as
 *    in Redis, so a long inline line delivered in one buffer is accepted.
 * Not done here: the smaller limits Redis applies before AUTH ("unauthenticated multibulk
 * length" above 10 elements, "unauthenticated bulk length" above 16384 bytes); the caller
 * knows the connection's auth state.
 *
 * No error is sticky: TERSE_OK and TERSE_EPROTO both end the command in progress; after
 * TERSE_EPROTO the caller replies and closes the connection.
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
#define RESP_MAX_MULTIBULK 2147483647LL /* count above this: invalid (INT_MAX, as Redis 7.0) */

struct resp_limits {
    long long max_bulk_len;      /* proto-max-bulk-len, bytes */
    long long max_multibulk_len; /* largest accepted element count */
    /* Nonzero while the client has not authenticated (requirepass set): Redis 7.0 then
     * refuses counts above RESP_UNAUTH_MBULK_MAX and bulks above RESP_UNAUTH_BULK_MAX. */
    int unauthenticated;
};

#define RESP_UNAUTH_MBULK_MAX 10
#define RESP_UNAUTH_BULK_MAX 16384

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
    /* Added: unescaped inline arguments (see the file comment). Owned by the request, grown via
     * realloc_fn, freed by deinit. Invariant: ibuf == NULL iff ibuf_cap == 0. */
    uint8_t *ibuf;
    size_t ibuf_cap; /* bytes allocated at ibuf */
    /* The command in progress (after TERSE_MORE), as offsets from its first byte; cleared by
     * TERSE_OK, TERSE_EPROTO and resp_request_reset. */
    int active;         /* 1 while a command is in progress */
    size_t pos;         /* bytes done with: the count line, whole bulks, the current header */
    size_t scan;        /* bytes of the line at pos already searched for its end */
    int line_nul;       /* a NUL came before the end of the line at pos: it never ends */
    long long left;     /* multibulk elements still to parse; -1 before the count line */
    long long bulk_len; /* length of the bulk whose header ends at pos; -1: none */
    size_t nargs;       /* arguments parsed so far: argv[0..nargs), multibulk ones as offsets */
};

/*
 * resp_request_init: prepares r (memory the caller owns) with no argv and no ibuf; allocates
 * nothing. realloc_fn/free_fn are retained until deinit; NULL for both means libc
 * realloc/free. realloc_fn(NULL, n) must behave like malloc(n).
 */
void resp_request_init(struct resp_request *r, void *(*realloc_fn)(void *, size_t),
                       void (*free_fn)(void *));
/* resp_request_deinit: frees argv and ibuf through free_fn; r may be re-initialized after. */
void resp_request_deinit(struct resp_request *r);
/* resp_request_reset: forgets the command in progress (the caller dropped its bytes); argv and
 * ibuf keep their capacity. Allocates nothing. */
void resp_request_reset(struct resp_request *r);

/*
 * resp_parse_request: parses one command from buf[0..len), going on from where the last call
 * stopped when that call returned TERSE_MORE (buf[0] is then the same command's first byte and
 * len at least what it was; a smaller len starts the command over).
 *   TERSE_OK:     r->argv[0..argc) hold the arguments, *consumed = bytes used. argc may be 0
 *                 (empty inline line, "*0\r\n", "*-1\r\n"): nothing to execute.
 *   TERSE_MORE:   incomplete; *consumed = 0; r->need as documented above; the command stays
 *                 in progress.
 *   TERSE_EPROTO: malformed; r->err holds Redis's text, e.g.
 *                 "Protocol error: invalid bulk length". The caller replies "-ERR <err>"
 *                 and closes the connection after the reply.
 *   TERSE_ENOMEM: argv could not grow.
 * Does not allocate except to grow argv (and ibuf, see above).
 * buf is borrowed (argv slices point into it); len may be 0. lim is borrowed; NULL means
 * { RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK }. A count above lim->max_multibulk_len is
 * "invalid multibulk length" (Redis 7.0: above INT_MAX), a bulk length above
 * lim->max_bulk_len is "invalid bulk length". After TERSE_ENOMEM argc is 0, the command stays
 * in progress and the same call may be retried.
 */
int resp_parse_request(struct resp_request *r, const uint8_t *buf, size_t len,
                       const struct resp_limits *lim, size_t *consumed);

#endif /* TERSE_RESP_PARSE_H */
