/*
 * resp_write: RESP2/RESP3 reply writers (see resp_write.h for the contract).
 *
 * Every writer computes its exact size first, reserves it with one resp_out_reserve() (so at
 * most one grow() per reply element), then fills the bytes. After a failed grow o->err is set
 * and every later writer returns without touching the buffer.
 *
 * Deferred aggregate headers reserve RESP_DEFER_ROOM bytes, and the end call writes the real
 * header at the front of that gap and slides the body down over the rest:
 *
 *   begin:  | ... | <RESP_DEFER_ROOM placeholder> | body ...... |
 *   end:    | ... | *<n>\r\n | body ...... |
 *                 ^ at
 */
#include "resp/resp_write.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Largest aggregate header: type byte, 20 digits of a size_t, CRLF. */
#define RESP_DEFER_ROOM 23
_Static_assert(RESP_DEFER_ROOM <= RESP_HEADER_MAX, "deferred header room exceeds the max");

/* Digits of v written at the end of dst[0..20); returns the count. */
static size_t resp_fmt_ull(char dst[20], unsigned long long v)
{
    size_t n = 0;

    do {
        dst[19 - n] = (char)('0' + v % 10);
        v /= 10;
        n++;
    } while (v != 0);
    return n;
}

size_t resp_ull_digits(char *dst, unsigned long long v)
{
    char digits[20];
    size_t nd = resp_fmt_ull(digits, v);

    memcpy(dst, digits + 20 - nd, nd);
    return nd;
}

/* Writes "<type><v>\r\n" (with '-' when neg) into dst; returns its length (<= 24). */
static size_t resp_fmt_header(uint8_t *dst, char type, int neg, unsigned long long v)
{
    char digits[20];
    size_t nd = resp_fmt_ull(digits, v);
    size_t k = 0;

    dst[k++] = (uint8_t)type;
    if (neg) {
        dst[k++] = '-';
    }
    memcpy(dst + k, digits + 20 - nd, nd);
    k += nd;
    dst[k++] = '\r';
    dst[k++] = '\n';
    return k;
}

/* Header length of "<type><v>\r\n" without writing it. */
static size_t resp_header_len(int neg, unsigned long long v)
{
    size_t n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return 1 + (neg ? 1 : 0) + n + 2;
}

uint8_t *resp_out_reserve(struct resp_out *o, size_t n)
{
    if (o->err) {
        return NULL;
    }
    if (o->cap - o->len < n) {
        if (o->grow == NULL || o->grow(o->owner, o, n) != 0 || o->cap - o->len < n) {
            o->err = 1;
            return NULL;
        }
    }
    return o->p + o->len;
}

void resp_out_commit(struct resp_out *o, size_t n)
{
    if (o->err || n > o->cap - o->len) {
        return;
    }
    o->len += n;
}

void resp_write_raw(struct resp_out *o, const void *p, size_t n)
{
    uint8_t *d = resp_out_reserve(o, n);

    if (d == NULL) {
        return;
    }
    if (n != 0) {
        memcpy(d, p, n);
    }
    o->len += n;
}

/* "<type>" + body with CR/LF mapped to spaces + CRLF. */
static void resp_write_line(struct resp_out *o, char type, const char *s, size_t n)
{
    uint8_t *d;
    size_t i;

    if (n > SIZE_MAX - 3) {
        o->err = 1;
        return;
    }
    d = resp_out_reserve(o, n + 3);
    if (d == NULL) {
        return;
    }
    d[0] = (uint8_t)type;
    for (i = 0; i < n; i++) {
        char c = s[i];

        d[1 + i] = (uint8_t)(c == '\r' || c == '\n' ? ' ' : c);
    }
    d[1 + n] = '\r';
    d[2 + n] = '\n';
    o->len += n + 3;
}

void resp_write_simple(struct resp_out *o, const char *s)
{
    resp_write_line(o, '+', s, strlen(s));
}

void resp_write_ok(struct resp_out *o)
{
    resp_write_raw(o, "+OK\r\n", 5);
}

/* Reports the error line just written at o->p + at ('-', the text, CRLF) to o->on_error. */
static void report_error(struct resp_out *o, size_t at)
{
    const char *text;
    size_t n = 0, max;

    if (o->on_error == NULL || o->err) {
        return;
    }
    text = (const char *)o->p + at + 1;
    max = o->len - at - 3;
    while (n < max && text[n] != ' ') {
        n++;
    }
    o->on_error(o->err_arg, text, n);
}

void resp_write_error(struct resp_out *o, const char *msg)
{
    size_t at = o->len;

    /* A caller that already put the '-' in gets one, not two (as addReplyErrorLength). */
    if (msg[0] == '-') {
        msg++;
    }
    resp_write_line(o, '-', msg, strlen(msg));
    report_error(o, at);
}

void resp_write_errorf(struct resp_out *o, const char *fmt, ...)
{
    va_list ap;
    va_list ap2;
    int n;
    uint8_t *d;
    size_t len;
    size_t start = 1;
    size_t i;

    if (o->err) {
        return;
    }
    va_start(ap, fmt);
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        o->err = 1;
        return;
    }
    /* '-', the text, and room for vsnprintf's NUL, which the CRLF then overwrites. */
    d = resp_out_reserve(o, (size_t)n + 3);
    if (d == NULL) {
        va_end(ap2);
        return;
    }
    vsnprintf((char *)d + 1, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    len = (size_t)n;
    /* As addReplyErrorFormat: trim CR/LF at both ends, map the rest to spaces. */
    while (len > 0 && (d[len] == '\r' || d[len] == '\n')) {
        len--;
    }
    while (start <= len && (d[start] == '\r' || d[start] == '\n')) {
        start++;
    }
    if (start <= len && d[start] == '-') {
        start++;
    }
    d[0] = '-';
    for (i = start; i <= len; i++) {
        d[1 + i - start] = d[i] == '\r' || d[i] == '\n' ? ' ' : d[i];
    }
    len = len + 1 - start; /* body bytes */
    d[1 + len] = '\r';
    d[2 + len] = '\n';
    o->len += len + 3;
    report_error(o, o->len - len - 3);
}

static void resp_write_header(struct resp_out *o, char type, int neg, unsigned long long v)
{
    uint8_t *d = resp_out_reserve(o, resp_header_len(neg, v));

    if (d == NULL) {
        return;
    }
    o->len += resp_fmt_header(d, type, neg, v);
}

static void resp_write_signed(struct resp_out *o, char type, long long v)
{
    /* Magnitude in unsigned space, so LLONG_MIN does not overflow. */
    unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    resp_write_header(o, type, v < 0, m);
}

void resp_write_int(struct resp_out *o, long long v)
{
    resp_write_signed(o, ':', v);
}

void resp_write_bulk(struct resp_out *o, const void *p, size_t n)
{
    size_t hl = resp_header_len(0, n);
    uint8_t *d;

    if (n > SIZE_MAX - hl - 2) {
        o->err = 1;
        return;
    }
    d = resp_out_reserve(o, hl + n + 2);
    if (d == NULL) {
        return;
    }
    resp_fmt_header(d, '$', 0, n);
    if (n != 0) {
        memcpy(d + hl, p, n);
    }
    d[hl + n] = '\r';
    d[hl + n + 1] = '\n';
    o->len += hl + n + 2;
}

void resp_write_cstr(struct resp_out *o, const char *s)
{
    resp_write_bulk(o, s, strlen(s));
}

void resp_write_bulk_ll(struct resp_out *o, long long v)
{
    unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char digits[21];
    size_t nd = resp_fmt_ull(digits + 1, m);
    char *s = digits + 21 - nd;

    if (v < 0) {
        *--s = '-';
        nd++;
    }
    resp_write_bulk(o, s, nd);
}

void resp_write_bulk_header(struct resp_out *o, size_t n)
{
    resp_write_header(o, '$', 0, n);
}

void resp_write_crlf(struct resp_out *o)
{
    resp_write_raw(o, "\r\n", 2);
}

void resp_write_null(struct resp_out *o)
{
    if (o->proto >= 3) {
        resp_write_raw(o, "_\r\n", 3);
    } else {
        resp_write_raw(o, "$-1\r\n", 5);
    }
}

void resp_write_null_array(struct resp_out *o)
{
    if (o->proto >= 3) {
        resp_write_raw(o, "_\r\n", 3);
    } else {
        resp_write_raw(o, "*-1\r\n", 5);
    }
}

void resp_write_array(struct resp_out *o, size_t n)
{
    resp_write_header(o, '*', 0, n);
}

void resp_write_map(struct resp_out *o, size_t n)
{
    if (o->proto >= 3) {
        resp_write_header(o, '%', 0, n);
    } else {
        resp_write_header(o, '*', 0, (unsigned long long)n * 2);
    }
}

void resp_write_push(struct resp_out *o, size_t n)
{
    resp_write_header(o, o->proto >= 3 ? '>' : '*', 0, n);
}

void resp_write_set(struct resp_out *o, size_t n)
{
    resp_write_header(o, o->proto >= 3 ? '~' : '*', 0, n);
}

size_t resp_fmt_g17(char buf[RESP_G17_MAX], double d)
{
    int n;

    /* An integer under 2^53 in magnitude (never NaN: the comparisons fail): "%.17g" spells it
     * as its digits (no exponent below 1e17), so they are written directly; -0 and every other
     * value go through snprintf. */
    if (d > -9007199254740992.0 && d < 9007199254740992.0 && d == (double)(long long)d &&
        !(d == 0 && signbit(d))) {
        long long v = (long long)d;
        unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        char digits[20];
        size_t nd = resp_fmt_ull(digits, m), k = 0;

        if (v < 0) {
            buf[k++] = '-';
        }
        memcpy(buf + k, digits + 20 - nd, nd);
        return k + nd;
    }
    n = snprintf(buf, RESP_G17_MAX, "%.17g", d);
    return n < 0 || n >= RESP_G17_MAX ? 0 : (size_t)n;
}

void resp_write_double(struct resp_out *o, double d)
{
    /* Redis 7.0 addReplyDouble: inf spelled out, everything else "%.17g". */
    char buf[RESP_G17_MAX];
    size_t n;

    if (isinf(d)) {
        const char *s = d > 0 ? "inf" : "-inf";

        if (o->proto >= 3) {
            resp_write_line(o, ',', s, strlen(s));
        } else {
            resp_write_cstr(o, s);
        }
        return;
    }
    n = resp_fmt_g17(buf, d);
    if (n == 0) {
        o->err = 1;
        return;
    }
    if (o->proto >= 3) {
        resp_write_line(o, ',', buf, n);
    } else {
        resp_write_bulk(o, buf, n);
    }
}

void resp_write_bool(struct resp_out *o, int b)
{
    if (o->proto >= 3) {
        resp_write_raw(o, b ? "#t\r\n" : "#f\r\n", 4);
    } else {
        resp_write_raw(o, b ? ":1\r\n" : ":0\r\n", 4);
    }
}

void resp_write_verbatim(struct resp_out *o, const char *fmt3, const void *p, size_t n)
{
    size_t hl;
    size_t i;
    uint8_t *d;

    if (o->proto < 3) {
        resp_write_bulk(o, p, n);
        return;
    }
    if (n > SIZE_MAX - RESP_HEADER_MAX - 6) {
        o->err = 1;
        return;
    }
    hl = resp_header_len(0, (unsigned long long)n + 4);
    d = resp_out_reserve(o, hl + 4 + n + 2);
    if (d == NULL) {
        return;
    }
    resp_fmt_header(d, '=', 0, (unsigned long long)n + 4);
    /* Exactly three format bytes; a shorter fmt3 is padded with spaces. */
    for (i = 0; i < 3 && fmt3[i] != '\0'; i++) {
        d[hl + i] = (uint8_t)fmt3[i];
    }
    for (; i < 3; i++) {
        d[hl + i] = ' ';
    }
    d[hl + 3] = ':';
    if (n != 0) {
        memcpy(d + hl + 4, p, n);
    }
    d[hl + 4 + n] = '\r';
    d[hl + 5 + n] = '\n';
    o->len += hl + 6 + n;
}

size_t resp_write_deferred_begin(struct resp_out *o)
{
    size_t at = o->len;

    if (resp_out_reserve(o, RESP_DEFER_ROOM) != NULL) {
        o->len += RESP_DEFER_ROOM;
    }
    return at;
}

void resp_write_deferred_end(struct resp_out *o, size_t at, char kind, size_t n)
{
    uint8_t hdr[RESP_HEADER_MAX];
    unsigned long long v = n;
    size_t hl;

    if (o->err || at > o->len || o->len - at < RESP_DEFER_ROOM) {
        return;
    }
    if (o->proto < 3 && kind == '%') {
        kind = '*';
        v = (unsigned long long)n * 2;
    } else if (o->proto < 3 && kind == '~') {
        kind = '*';
    }
    hl = resp_fmt_header(hdr, kind, 0, v);
    memcpy(o->p + at, hdr, hl);
    memmove(o->p + at + hl, o->p + at + RESP_DEFER_ROOM, o->len - at - RESP_DEFER_ROOM);
    o->len -= RESP_DEFER_ROOM - hl;
}
