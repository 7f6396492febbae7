/*
 * resp_reply: a reader of RESP2/RESP3 replies (what a server writes, not what a client sends).
 *
 * Pull style and stateless: each resp_reply_next call reads the header of one element at
 * *pos, and for a scalar its whole body; an aggregate yields its element count and the caller
 * reads the elements with further calls, so the caller's recursion (or its own stack) decides
 * how deep it goes, never this reader. Nothing is allocated and nothing is copied: strings are
 * slices of the input, valid as long as the caller keeps the buffer unchanged.
 *
 * The Lua scripting bridge (cmd_script_conv.c) reads the replies of the commands a script
 * calls with it; those are terse's own output, but the reader trusts nothing: every length is
 * checked against the input, and a malformed or truncated element is TERSE_EPROTO or
 * TERSE_MORE, never a read past len.
 */
#ifndef TERSE_RESP_REPLY_H
#define TERSE_RESP_REPLY_H

#include <stddef.h>
#include <stdint.h>

enum resp_reply_type {
    RESP_REPLY_SIMPLE = 0,  /* +text */
    RESP_REPLY_ERROR,       /* -text (the whole line, code included) */
    RESP_REPLY_INT,         /* :n */
    RESP_REPLY_BULK,        /* $n body */
    RESP_REPLY_NULL_BULK,   /* $-1 (RESP2) */
    RESP_REPLY_NULL_ARRAY,  /* *-1 (RESP2) */
    RESP_REPLY_NULL,        /* _ (RESP3) */
    RESP_REPLY_ARRAY,       /* *n: n elements follow */
    RESP_REPLY_MAP,         /* %n: n pairs (2n elements) follow */
    RESP_REPLY_SET,         /* ~n */
    RESP_REPLY_PUSH,        /* >n */
    RESP_REPLY_ATTR,        /* |n: n pairs, then the element they describe */
    RESP_REPLY_DOUBLE,      /* ,d */
    RESP_REPLY_BOOL,        /* #t or #f */
    RESP_REPLY_BIGNUM,      /* (digits */
    RESP_REPLY_VERBATIM     /* =n fmt:body */
};

/* Longest line of a scalar with no length prefix that the reader accepts (simple strings and
 * errors excepted: they run to their CRLF, as long as the input holds). */
#define RESP_REPLY_NUM_MAX 128

struct resp_reply {
    enum resp_reply_type type;
    const uint8_t *p; /* borrowed: SIMPLE, ERROR, BULK, BIGNUM, DOUBLE (its text), VERBATIM
                         (the body after "fmt:"); NULL for the others */
    size_t len;       /* bytes at p */
    char fmt[4];      /* VERBATIM: its 3-letter format, NUL-terminated */
    long long n;      /* INT: the value; BOOL: 0 or 1; ARRAY, SET, PUSH: elements;
                         MAP, ATTR: pairs */
    double d;         /* DOUBLE: the value (inf, -inf and nan as RESP3 spells them) */
};

/*
 * Reads the element at buf[*pos..len) into *out.
 *   TERSE_OK:     *out filled, *pos moved past the element's header (and body, for a scalar).
 *   TERSE_MORE:   the element is incomplete; *pos unchanged.
 *   TERSE_EPROTO: malformed (unknown type byte, bad number, missing CRLF, negative length
 *                 other than -1 for $ and *); *pos unchanged.
 * buf is borrowed; out->p points into it. Allocates nothing.
 */
int resp_reply_next(const uint8_t *buf, size_t len, size_t *pos, struct resp_reply *out);

/*
 * Moves *pos past one whole reply, its nested elements included, without recursion (any
 * depth). Same statuses as resp_reply_next; on an error *pos is unchanged.
 */
int resp_reply_skip(const uint8_t *buf, size_t len, size_t *pos);

#endif /* TERSE_RESP_REPLY_H */
