/*
 * cmd_util: helpers shared by the command families.
 *
 * Number parsing and formatting follow Redis's util.c rules exactly (a client that sends
 * " 1" or "01" to INCRBY must get the same error from terse as from Redis). The value path
 * (encode on write, decode on read) is cmd_value.c.
 */
#include "cmd/core/cmd_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terse/status.h"

/* ---- numbers ----------------------------------------------------------------------------- */

int cmd_parse_ll(const uint8_t *p, size_t len, long long *out)
{
    unsigned long long v = 0;
    size_t i = 0;
    int neg = 0;

    if (len == 0 || len > 20) {
        return 0;
    }
    if (len == 1 && p[0] == '0') {
        *out = 0;
        return 1;
    }
    if (p[0] == '-') {
        neg = 1;
        i = 1;
        if (len == 1) {
            return 0;
        }
    }
    /* First digit must be 1-9: no leading zeros, no "-0". */
    if (p[i] < '1' || p[i] > '9') {
        return 0;
    }
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return 0;
        }
        if (v > (ULLONG_MAX / 10)) {
            return 0;
        }
        v *= 10;
        if (v > ULLONG_MAX - (unsigned long long)(p[i] - '0')) {
            return 0;
        }
        v += (unsigned long long)(p[i] - '0');
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) {
            return 0;
        }
        *out = (long long)(0 - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) {
            return 0;
        }
        *out = (long long)v;
    }
    return 1;
}

int cmd_parse_ld(const uint8_t *p, size_t len, long double *out)
{
    char buf[CMD_LD_STR_MAX];
    char *end = NULL;
    long double v;

    /* An embedded NUL would end strtold early; Redis refuses such a value. */
    if (len == 0 || len >= sizeof(buf) || memchr(p, '\0', len) != NULL) {
        return 0;
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    v = strtold(buf, &end);
    if (isspace((unsigned char)buf[0]) || *end != '\0' || errno == EINVAL || isnan(v)) {
        return 0;
    }
    if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || fpclassify(v) == FP_ZERO)) {
        return 0;
    }
    *out = v;
    return 1;
}

int cmd_parse_double(const uint8_t *p, size_t len, double *out)
{
    char buf[CMD_LD_STR_MAX];
    char *end = NULL;
    double v;

    /* An embedded NUL ends strtod early, so the length check below refuses it, as Redis's
     * does. */
    if (len == 0 || len >= sizeof(buf)) {
        return 0;
    }
    /* An optional '-' and up to 15 digits: an integer under 2^53, which a double holds
     * exactly, so the sum of its digits is the value strtod would give (-0 included). A ZADD
     * score is most often one; strtod costs a thousand instructions. */
    if (len <= 16) {
        size_t i = p[0] == '-';
        uint64_t u = 0;

        if (i < len && len - i <= 15) {
            while (i < len && p[i] >= '0' && p[i] <= '9') {
                u = u * 10 + (uint64_t)(p[i++] - '0');
            }
            if (i == len) {
                *out = p[0] == '-' ? -(double)u : (double)u;
                return 1;
            }
        }
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    v = strtod(buf, &end);
    if (isspace((unsigned char)buf[0]) || (size_t)(end - buf) != len || isnan(v)) {
        return 0;
    }
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO)) {
        return 0;
    }
    *out = v;
    return 1;
}

size_t cmd_format_ld(char *buf, size_t cap, long double v)
{
    int n;
    char *dot;

    if (isinf(v)) {
        n = snprintf(buf, cap, "%s", v > 0 ? "inf" : "-inf");
        return n < 0 ? 0 : (size_t)n;
    }
    /* Fixed notation, 17 decimals, then trailing zeros (and a bare '.') removed: the
     * "human friendly" form Redis uses for INCRBYFLOAT. */
    n = snprintf(buf, cap, "%.17Lf", v);
    if (n < 0 || (size_t)n + 1 > cap) {
        return 0;
    }
    dot = strchr(buf, '.');
    if (dot != NULL) {
        char *q = buf + n - 1;
        while (*q == '0') {
            q--;
            n--;
        }
        if (*q == '.') {
            n--;
        }
    }
    if (n == 2 && buf[0] == '-' && buf[1] == '0') {
        buf[0] = '0';
        n = 1;
    }
    buf[n] = '\0';
    return (size_t)n;
}

size_t cmd_format_ll(char *buf, long long v)
{
    char tmp[24];
    size_t n = 0, i;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

    do {
        tmp[n++] = (char)('0' + (u % 10));
        u /= 10;
    } while (u != 0);
    i = 0;
    if (v < 0) {
        buf[i++] = '-';
    }
    while (n > 0) {
        buf[i++] = tmp[--n];
    }
    buf[i] = '\0';
    return i;
}

int cmd_ll_or_reply(struct cmd_call *c, size_t argi, long long *out, const char *err)
{
    if (cmd_parse_ll(c->argv[argi].p, c->argv[argi].len, out)) {
        return 0;
    }
    cmd_reply_err(c, err != NULL ? err : CMD_ERR_NOT_INT);
    return -1;
}

int cmd_ld_or_reply(struct cmd_call *c, size_t argi, long double *out, const char *err)
{
    if (cmd_parse_ld(c->argv[argi].p, c->argv[argi].len, out)) {
        return 0;
    }
    cmd_reply_err(c, err != NULL ? err : CMD_ERR_NOT_FLOAT);
    return -1;
}

int cmd_ll_add_or_reply(struct cmd_call *c, long long *v, long long incr)
{
    if ((incr < 0 && *v < 0 && incr < LLONG_MIN - *v) ||
        (incr > 0 && *v > 0 && incr > LLONG_MAX - *v)) {
        cmd_reply_err(c, CMD_ERR_OVERFLOW);
        return -1;
    }
    *v += incr;
    return 0;
}

int cmd_ld_add_or_reply(struct cmd_call *c, long double *v, long double incr)
{
    *v += incr;
    if (isnan(*v) || isinf(*v)) {
        cmd_reply_err(c, CMD_ERR_NAN_INF);
        return -1;
    }
    return 0;
}

int cmd_arg_is(const struct cmd_call *c, size_t argi, const char *lower)
{
    size_t n = strlen(lower);

    if (argi >= c->argc || c->argv[argi].len != n) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (tolower(c->argv[argi].p[i]) != lower[i]) {
            return 0;
        }
    }
    return 1;
}

/* ---- errors ------------------------------------------------------------------------------ */

void cmd_reply_err(struct cmd_call *c, const char *msg)
{
    resp_write_error(c->out, msg);
}

void cmd_reply_status(struct cmd_call *c, int status)
{
    switch (status) {
    case TERSE_EOOM:
        cmd_reply_err(c, CMD_ERR_OOM);
        break;
    case TERSE_ETOOBIG:
        cmd_reply_err(c, CMD_ERR_STRING_TOO_LONG);
        break;
    case TERSE_ENOMEM:
        cmd_reply_err(c, "ERR out of memory");
        break;
    default:
        resp_write_errorf(c->out, "ERR %s", terse_strerror(status));
        break;
    }
}

/* Copies at most cap-1 bytes of key into buf, replacing bytes that are not printable. */
static void key_printable(char *buf, size_t cap, const uint8_t *key, size_t klen)
{
    size_t n = klen < cap - 4 ? klen : cap - 4;

    for (size_t i = 0; i < n; i++) {
        buf[i] = (key[i] >= 0x20 && key[i] < 0x7f && key[i] != '\'') ? (char)key[i] : '?';
    }
    if (n < klen) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
}

void cmd_reply_corrupt(struct cmd_call *c, const uint8_t *key, size_t klen)
{
    char k[128];
    char line[256];

    key_printable(k, sizeof(k), key, klen);
    c->srv->stats.corrupt_values++;
    snprintf(line, sizeof(line), "corrupted value: key '%s' in db %d failed its checksum",
             k, c->cl->db);
    if (c->srv->hooks.log_warning != NULL) {
        c->srv->hooks.log_warning(c->srv->hooks.srv, line);
    }
    resp_write_errorf(c->out, "CORRUPT value of key '%s' is corrupted (checksum mismatch); "
                      "not returned", k);
}

int cmd_grow(struct cmd_server *srv, void **p, size_t *cap, size_t want, size_t size,
             size_t min)
{
    size_t n = *cap > min ? *cap : min;
    void *np;

    if (want <= *cap) {
        return TERSE_OK;
    }
    while (n < want) {
        if (n > SIZE_MAX / 2 / size) {
            return TERSE_ENOMEM;
        }
        n *= 2;
    }
    np = srv->alloc.alloc(srv->alloc.opaque, n * size);
    if (np == NULL) {
        return TERSE_ENOMEM;
    }
    if (*cap > 0) {
        memcpy(np, *p, *cap * size);
    }
    srv->alloc.free(srv->alloc.opaque, *p);
    *p = np;
    *cap = n;
    return TERSE_OK;
}

int cmd_slice_eq(const struct resp_slice *s, const char *str)
{
    size_t n = str != NULL ? strlen(str) : 0;

    return s->len == n && (n == 0 || memcmp(s->p, str, n) == 0);
}

void cmd_count_error(void *arg, const char *code, size_t len)
{
    struct cmd_stats *st = &((struct cmd_server *)arg)->stats;
    size_t i;

    st->total_error_replies++;
    if (len > CMD_ERRCODE_MAX) {
        len = CMD_ERRCODE_MAX;
    }
    for (i = 0; i < st->n_errstats; i++) {
        if (strncmp(st->errstats[i].code, code, len) == 0 && st->errstats[i].code[len] == '\0') {
            st->errstats[i].count++;
            return;
        }
    }
    if (i == CMD_ERRSTATS_MAX) {
        return; /* past Redis's limit of codes: counted in the total only */
    }
    memcpy(st->errstats[i].code, code, len);
    st->errstats[i].code[len] = '\0';
    st->errstats[i].count = 1;
    st->n_errstats++;
}


/*
 * Parses a SCAN cursor as Redis does with strtoull: no leading space, optional sign (a
 * negative value wraps), decimal digits, nothing after them (an embedded NUL ends the string
 * as it does for Redis), no overflow. An empty cursor is 0. 1 on success, 0 otherwise.
 */
int cmd_scan_parse_cursor(const uint8_t *p, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    int neg = 0;
    size_t digits_at;

    if (len == 0 || p[0] == '\0') {
        *out = 0;
        return 1;
    }
    if (p[0] == '+' || p[0] == '-') {
        neg = p[0] == '-';
        i++;
    }
    digits_at = i;
    for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return 0;
        }
        v = v * 10 + d;
    }
    if (i == digits_at || (i < len && p[i] != '\0')) {
        return 0;
    }
    *out = neg ? (uint64_t)0 - v : v;
    return 1;
}

