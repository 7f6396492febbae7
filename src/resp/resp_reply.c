/*
 * resp_reply: the reply reader (contract in resp_reply.h).
 *
 * One element is a type byte, a line up to CRLF, and for $ and = a body of the announced
 * length followed by CRLF:
 *
 *   +OK\r\n   :12\r\n   $3\r\nabc\r\n   *2\r\n<elem><elem>   %1\r\n<key><value>
 *   _\r\n   ,1.5\r\n   #t\r\n   (123\r\n   =7\r\ntxt:abc\r\n
 */
#include "resp/resp_reply.h"

#include <stdlib.h>
#include <string.h>

#include "terse/status.h"

/* The line starting at buf[at]: its length up to (not including) CR, in *n. */
static int line_end(const uint8_t *buf, size_t len, size_t at, size_t *n)
{
    const uint8_t *cr = at < len ? memchr(buf + at, '\r', len - at) : NULL;

    if (cr == NULL) {
        return TERSE_MORE;
    }
    if ((size_t)(cr - buf) + 1 >= len) {
        return TERSE_MORE; /* the LF has not arrived */
    }
    if (cr[1] != '\n') {
        return TERSE_EPROTO;
    }
    *n = (size_t)(cr - (buf + at));
    return TERSE_OK;
}

/* A signed decimal filling p[0..n) exactly, within long long. */
static int parse_ll(const uint8_t *p, size_t n, long long *out)
{
    unsigned long long v = 0, lim;
    size_t i = 0;
    int neg = 0;

    if (n > 0 && p[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n || n > 20) {
        return TERSE_EPROTO;
    }
    lim = neg ? (unsigned long long)9223372036854775807LL + 1 : 9223372036854775807ULL;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return TERSE_EPROTO;
        }
        if (v > (lim - (unsigned)(p[i] - '0')) / 10) {
            return TERSE_EPROTO;
        }
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    *out = neg ? (long long)(0 - v) : (long long)v;
    return TERSE_OK;
}

static int parse_double(const uint8_t *p, size_t n, double *out)
{
    char tmp[RESP_REPLY_NUM_MAX + 1];
    char *end = NULL;

    if (n == 0 || n > RESP_REPLY_NUM_MAX) {
        return TERSE_EPROTO;
    }
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    *out = strtod(tmp, &end);
    return end == tmp + n ? TERSE_OK : TERSE_EPROTO;
}

/* The body of n bytes of a $ or = element, after its header line ending at *at. */
static int body(const uint8_t *buf, size_t len, size_t at, long long n, size_t *end)
{
    if (n < 0 || (unsigned long long)n > len || len - at < (size_t)n + 2) {
        return n < 0 ? TERSE_EPROTO : TERSE_MORE;
    }
    if (buf[at + (size_t)n] != '\r' || buf[at + (size_t)n + 1] != '\n') {
        return TERSE_EPROTO;
    }
    *end = at + (size_t)n + 2;
    return TERSE_OK;
}

static int aggregate(struct resp_reply *out, enum resp_reply_type t, const uint8_t *p, size_t n)
{
    int rc = parse_ll(p, n, &out->n);

    if (rc != TERSE_OK) {
        return rc;
    }
    if (out->n == -1 && t == RESP_REPLY_ARRAY) {
        out->type = RESP_REPLY_NULL_ARRAY;
        out->n = 0;
        return TERSE_OK;
    }
    if (out->n < 0) {
        return TERSE_EPROTO;
    }
    out->type = t;
    return TERSE_OK;
}

int resp_reply_next(const uint8_t *buf, size_t len, size_t *pos, struct resp_reply *out)
{
    size_t at = *pos, n, next;
    const uint8_t *line;
    int rc;

    memset(out, 0, sizeof(*out));
    if (at >= len) {
        return TERSE_MORE;
    }
    rc = line_end(buf, len, at + 1, &n);
    if (rc != TERSE_OK) {
        return rc;
    }
    line = buf + at + 1;
    next = at + 1 + n + 2;
    switch (buf[at]) {
    case '+':
    case '-':
        out->type = buf[at] == '+' ? RESP_REPLY_SIMPLE : RESP_REPLY_ERROR;
        out->p = line;
        out->len = n;
        break;
    case ':':
        out->type = RESP_REPLY_INT;
        rc = parse_ll(line, n, &out->n);
        break;
    case '(':
        out->type = RESP_REPLY_BIGNUM;
        out->p = line;
        out->len = n;
        rc = n > 0 ? TERSE_OK : TERSE_EPROTO;
        break;
    case ',':
        out->type = RESP_REPLY_DOUBLE;
        out->p = line;
        out->len = n;
        rc = parse_double(line, n, &out->d);
        break;
    case '#':
        out->type = RESP_REPLY_BOOL;
        out->n = n == 1 && line[0] == 't';
        rc = n == 1 && (line[0] == 't' || line[0] == 'f') ? TERSE_OK : TERSE_EPROTO;
        break;
    case '_':
        out->type = RESP_REPLY_NULL;
        rc = n == 0 ? TERSE_OK : TERSE_EPROTO;
        break;
    case '$':
    case '=':
        rc = parse_ll(line, n, &out->n);
        if (rc == TERSE_OK && buf[at] == '$' && out->n == -1) {
            out->type = RESP_REPLY_NULL_BULK;
            out->n = 0;
            break;
        }
        if (rc == TERSE_OK) {
            rc = body(buf, len, next, out->n, &n);
        }
        if (rc == TERSE_OK) {
            out->p = buf + next;
            out->len = (size_t)out->n;
            out->n = 0;
            next = n;
            out->type = buf[at] == '$' ? RESP_REPLY_BULK : RESP_REPLY_VERBATIM;
        }
        if (rc == TERSE_OK && out->type == RESP_REPLY_VERBATIM) {
            if (out->len < 4 || out->p[3] != ':') {
                return TERSE_EPROTO;
            }
            memcpy(out->fmt, out->p, 3);
            out->p += 4;
            out->len -= 4;
        }
        break;
    case '*':
        rc = aggregate(out, RESP_REPLY_ARRAY, line, n);
        break;
    case '%':
        rc = aggregate(out, RESP_REPLY_MAP, line, n);
        break;
    case '~':
        rc = aggregate(out, RESP_REPLY_SET, line, n);
        break;
    case '>':
        rc = aggregate(out, RESP_REPLY_PUSH, line, n);
        break;
    case '|':
        rc = aggregate(out, RESP_REPLY_ATTR, line, n);
        break;
    default:
        rc = TERSE_EPROTO;
    }
    if (rc != TERSE_OK) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    *pos = next;
    return TERSE_OK;
}

int resp_reply_skip(const uint8_t *buf, size_t len, size_t *pos)
{
    /* Elements still to read; an aggregate adds its children (an attribute also the element
     * it describes). Counted in unsigned long long: 2 * LLONG_MAX + 1 fits. */
    unsigned long long pending = 1;
    size_t at = *pos;
    struct resp_reply r;

    while (pending > 0) {
        int rc = resp_reply_next(buf, len, &at, &r);
        if (rc != TERSE_OK) {
            return rc;
        }
        pending--;
        switch (r.type) {
        case RESP_REPLY_ARRAY:
        case RESP_REPLY_SET:
        case RESP_REPLY_PUSH:
            pending += (unsigned long long)r.n;
            break;
        case RESP_REPLY_MAP:
            pending += 2 * (unsigned long long)r.n;
            break;
        case RESP_REPLY_ATTR:
            pending += 2 * (unsigned long long)r.n + 1;
            break;
        default:
            break;
        }
        /* Every element takes at least 3 bytes: more pending than bytes left is truncated. */
        if (pending > (len - at) / 3) {
            return TERSE_MORE;
        }
    }
    *pos = at;
    return TERSE_OK;
}
