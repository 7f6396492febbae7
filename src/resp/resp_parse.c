/*
 * resp_parse: request parser, multibulk and inline (see resp_parse.h for the contract).
 *
 * A multibulk command is laid out as
 *
 *   *<count>\r\n  $<len>\r\n<len bytes>\r\n  $<len>\r\n<len bytes>\r\n ...
 *   ^ count line  ^ bulk line ^ bulk data     (repeated count times)
 *
 * and an inline command is one line ended by '\n' (an optional '\r' before it is dropped),
 * split into words the way Redis's sdssplitargs() does.
 *
 * A command that arrives in pieces is parsed once: the request remembers how far it got
 * (pos: the lines and bulks done with; scan: how much of the next line was searched for its
 * end; left and bulk_len: what comes next), and the next call goes on from there, as hiredis's
 * reader and Redis's processMultibulkBuffer keep their place. All of it is offsets from the
 * command's first byte, so the caller may move its buffer between calls.
 *
 * Invariants on return: TERSE_OK sets *consumed > 0, argv[0..argc) slices of buf (or of ibuf,
 * inline only) and no command in progress; every other status sets *consumed = 0 and argc = 0.
 */
#include "resp/resp_parse.h"

#include "terse/status.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Redis's LONG_STR_SIZE: string2ll() refuses strings of this many characters or more. */
#define RESP_LL_STR_MAX 21
/* First argv allocation, in slots. */
#define RESP_ARGV_MIN 8

static const char RESP_ERR_MBULK_LEN[] = "Protocol error: invalid multibulk length";
static const char RESP_ERR_BULK_LEN[] = "Protocol error: invalid bulk length";
static const char RESP_ERR_UNAUTH_MBULK[] = "Protocol error: unauthenticated multibulk length";
static const char RESP_ERR_UNAUTH_BULK[] = "Protocol error: unauthenticated bulk length";
static const char RESP_ERR_MBULK_BIG[] = "Protocol error: too big mbulk count string";
static const char RESP_ERR_BULK_BIG[] = "Protocol error: too big bulk count string";
static const char RESP_ERR_INLINE_BIG[] = "Protocol error: too big inline request";
static const char RESP_ERR_QUOTES[] = "Protocol error: unbalanced quotes in request";

void resp_request_init(struct resp_request *r, void *(*realloc_fn)(void *, size_t),
                       void (*free_fn)(void *))
{
    memset(r, 0, sizeof(*r));
    if (realloc_fn == NULL || free_fn == NULL) {
        realloc_fn = realloc;
        free_fn = free;
    }
    r->realloc_fn = realloc_fn;
    r->free_fn = free_fn;
    resp_request_reset(r);
}

void resp_request_deinit(struct resp_request *r)
{
    if (r->argv != NULL) {
        r->free_fn(r->argv);
    }
    if (r->ibuf != NULL) {
        r->free_fn(r->ibuf);
    }
    r->argv = NULL;
    r->argv_cap = 0;
    r->argc = 0;
    r->ibuf = NULL;
    r->ibuf_cap = 0;
    resp_request_reset(r);
}

/*
 * Mirrors Redis's string2ll(): optional '-', then "0" alone or a digit 1-9 followed by digits,
 * fewer than RESP_LL_STR_MAX characters, within long long. Returns 1 and sets *out, or 0.
 */
static int resp_str_to_ll(const uint8_t *s, size_t n, long long *out)
{
    size_t i = 0;
    int neg = 0;
    unsigned long long v;

    if (n == 0 || n >= RESP_LL_STR_MAX) {
        return 0;
    }
    if (n == 1 && s[0] == '0') {
        *out = 0;
        return 1;
    }
    if (s[0] == '-') {
        neg = 1;
        i++;
        if (i == n) {
            return 0;
        }
    }
    if (s[i] < '1' || s[i] > '9') {
        return 0;
    }
    v = (unsigned long long)(s[i] - '0');
    for (i++; i < n; i++) {
        unsigned d;

        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
        d = (unsigned)(s[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) {
            return 0;
        }
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) {
            return 0;
        }
        /* -(LLONG_MAX + 1) is representable; negate in unsigned space to avoid overflow. */
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) {
            return 0;
        }
        *out = (long long)v;
    }
    return 1;
}

/*
 * Finds the end of the line that starts at buf[r->pos]: its first `term`, as strchr() finds it
 * in Redis's NUL-terminated query buffer (a NUL before it hides it, for good). The search
 * resumes after the r->scan bytes that earlier calls searched, so a line arriving in pieces is
 * read once. Returns 1 and sets *at (offset of term from r->pos; r->scan stays there, so a
 * call waiting for the byte after term finds it at once), or 0 when not (yet) visible.
 */
static int resp_line_end(struct resp_request *r, const uint8_t *buf, size_t len, uint8_t term,
                         size_t *at)
{
    const uint8_t *from = buf + r->pos + r->scan;
    size_t n = len - r->pos - r->scan;
    const uint8_t *t;
    size_t upto;

    if (r->line_nul) {
        return 0;
    }
    t = memchr(from, term, n);
    upto = t != NULL ? (size_t)(t - from) : n;
    if (memchr(from, '\0', upto) != NULL) {
        r->line_nul = 1;
        return 0;
    }
    r->scan += upto;
    if (t == NULL) {
        return 0;
    }
    *at = r->scan;
    return 1;
}

/* Forgets the command in progress; argv and ibuf keep their capacity. */
void resp_request_reset(struct resp_request *r)
{
    r->active = 0;
    r->pos = 0;
    r->scan = 0;
    r->line_nul = 0;
    r->left = -1;
    r->bulk_len = -1;
    r->nargs = 0;
    r->argc = 0;
}

/* The next line starts at pos: nothing of it searched yet. */
static void resp_line_next(struct resp_request *r, size_t pos)
{
    r->pos = pos;
    r->scan = 0;
    r->line_nul = 0;
}

static int resp_fail(struct resp_request *r, const char *text)
{
    resp_request_reset(r);
    r->err = text;
    return TERSE_EPROTO;
}

/*
 * Appends one argument (argv[nargs]), doubling argv when full. argv keeps its old block on
 * failure. A multibulk argument is stored as an offset from the command's first byte until
 * the command is complete (resp_parse_multibulk's rebase).
 */
static int resp_argv_push(struct resp_request *r, const uint8_t *p, size_t len)
{
    if (r->nargs == r->argv_cap) {
        size_t cap = r->argv_cap != 0 ? r->argv_cap * 2 : RESP_ARGV_MIN;
        struct resp_slice *argv;

        if (cap > SIZE_MAX / sizeof(*argv)) {
            return TERSE_ENOMEM;
        }
        argv = r->realloc_fn(r->argv, cap * sizeof(*argv));
        if (argv == NULL) {
            return TERSE_ENOMEM;
        }
        r->argv = argv;
        r->argv_cap = cap;
    }
    r->argv[r->nargs].p = p;
    r->argv[r->nargs].len = len;
    r->nargs++;
    return TERSE_OK;
}

/* TERSE_MORE with r->need = total (0 = unknown); the command stays in progress. */
static int resp_more(struct resp_request *r, size_t total)
{
    r->need = total;
    r->argc = 0;
    return TERSE_MORE;
}

/* The command is complete: argv[0..nargs) are its arguments, it took `used` bytes. */
static int resp_done(struct resp_request *r, size_t used, size_t *consumed)
{
    size_t n = r->nargs;

    resp_request_reset(r);
    r->argc = n;
    *consumed = used;
    return TERSE_OK;
}

/* need = a + b + c, saturated (a bulk length near LLONG_MAX must not wrap). */
static size_t resp_sum_sat(size_t a, unsigned long long b, size_t c)
{
    if (b > SIZE_MAX || a > SIZE_MAX - (size_t)b || a + (size_t)b > SIZE_MAX - c) {
        return SIZE_MAX;
    }
    return a + (size_t)b + c;
}

/* "Protocol error: expected '$', got '<c>'" into errbuf. */
static int resp_fail_dollar(struct resp_request *r, uint8_t got)
{
    static const char pre[] = "Protocol error: expected '$', got '";
    size_t k = sizeof(pre) - 1;
    /* Redis formats the byte with %c, then maps CR and LF in error texts to spaces. */
    uint8_t c = got == '\r' || got == '\n' ? ' ' : got;

    _Static_assert(sizeof(pre) + 2 <= sizeof(r->errbuf), "errbuf too small");
    memcpy(r->errbuf, pre, k);
    r->errbuf[k] = (char)c;
    r->errbuf[k + 1] = '\'';
    r->errbuf[k + 2] = '\0';
    return resp_fail(r, r->errbuf);
}

/*
 * The common length line, read in one pass: at p (avail bytes), lead ('*' or '$'), a digit
 * 1-9 then up to 17 more digits (or "0" alone), '\r' and one byte after it. Returns 1 with *v and *cr (the offset of
 * the '\r'), or 0 for anything else (a sign, a leading zero, a line not all here), which the
 * general path reads. Such a line holds no NUL and is what resp_str_to_ll accepts, so both
 * paths give every line one meaning.
 */
static int len_line_fast(const uint8_t *p, size_t avail, uint8_t lead, long long *v, size_t *cr)
{
    unsigned long long x = 0;
    size_t i = 1;

    if (avail < 4 || p[0] != lead || (unsigned)(p[1] - '0') > 9 ||
        (p[1] == '0' && p[2] != '\r')) {
        return 0;
    }
    for (; i < avail && i <= 18 && (unsigned)(p[i] - '0') <= 9; i++) {
        x = x * 10 + (unsigned)(p[i] - '0');
    }
    if (i + 1 >= avail || p[i] != '\r') {
        return 0;
    }
    *v = (long long)x;
    *cr = i;
    return 1;
}

/* The count line at the command's start. TERSE_OK with r->left set (the command may be
 * complete already: a count of 0 or less). */
static int resp_parse_count(struct resp_request *r, const uint8_t *buf, size_t len,
                            const struct resp_limits *lim)
{
    size_t cr;
    long long count;

    if (r->scan != 0 || !len_line_fast(buf, len, '*', &count, &cr)) {
        if (!resp_line_end(r, buf, len, '\r', &cr)) {
            if (len > RESP_INLINE_MAX) {
                return resp_fail(r, RESP_ERR_MBULK_BIG);
            }
            return resp_more(r, 0);
        }
        /* Redis wants one byte after the '\r' (normally '\n') and skips it unchecked. */
        if (len - cr < 2) {
            return resp_more(r, cr + 2);
        }
        if (!resp_str_to_ll(buf + 1, cr - 1, &count)) {
            return resp_fail(r, RESP_ERR_MBULK_LEN);
        }
    }
    if (count > lim->max_multibulk_len) {
        return resp_fail(r, RESP_ERR_MBULK_LEN);
    }
    if (lim->unauthenticated && count > RESP_UNAUTH_MBULK_MAX) {
        return resp_fail(r, RESP_ERR_UNAUTH_MBULK);
    }
    r->left = count > 0 ? count : 0;
    resp_line_next(r, cr + 2);
    return TERSE_OK;
}

/* The header line of the next bulk, at r->pos: sets r->bulk_len and moves pos past it. */
static int resp_parse_bulk_header(struct resp_request *r, const uint8_t *buf, size_t len,
                                  const struct resp_limits *lim)
{
    const uint8_t *line = buf + r->pos;
    size_t avail = len - r->pos;
    size_t cr;
    long long blen;

    if (r->scan != 0 || !len_line_fast(line, avail, '$', &blen, &cr)) {
        if (!resp_line_end(r, buf, len, '\r', &cr)) {
            if (avail > RESP_INLINE_MAX) {
                return resp_fail(r, RESP_ERR_BULK_BIG);
            }
            return resp_more(r, 0);
        }
        if (avail - cr < 2) {
            return resp_more(r, r->pos + cr + 2);
        }
        if (line[0] != '$') {
            return resp_fail_dollar(r, line[0]);
        }
        if (!resp_str_to_ll(line + 1, cr - 1, &blen) || blen < 0) {
            return resp_fail(r, RESP_ERR_BULK_LEN);
        }
    }
    if (blen > lim->max_bulk_len) {
        return resp_fail(r, RESP_ERR_BULK_LEN);
    }
    if (lim->unauthenticated && blen > RESP_UNAUTH_BULK_MAX) {
        return resp_fail(r, RESP_ERR_UNAUTH_BULK);
    }
    r->bulk_len = blen;
    resp_line_next(r, r->pos + cr + 2);
    return TERSE_OK;
}

/*
 * Resumes the multibulk command in progress: each call goes on from r->pos, so a command's
 * cost is linear in its bytes however they arrive. Arguments are kept as offsets while the
 * command is incomplete (the caller's buffer may move between calls) and become slices of
 * buf once it is complete.
 */
static int resp_parse_multibulk(struct resp_request *r, const uint8_t *buf, size_t len,
                                const struct resp_limits *lim, size_t *consumed)
{
    size_t i;
    int rc;

    if (r->left < 0) {
        rc = resp_parse_count(r, buf, len, lim);
        if (rc != TERSE_OK) {
            return rc;
        }
    }
    while (r->left > 0) {
        size_t avail;
        unsigned long long blen;

        if (r->bulk_len < 0) {
            rc = resp_parse_bulk_header(r, buf, len, lim);
            if (rc != TERSE_OK) {
                return rc;
            }
        }
        blen = (unsigned long long)r->bulk_len;
        avail = len - r->pos;
        /* Data plus the two bytes after it, which Redis skips without checking. */
        if (avail < 2 || blen > avail - 2) {
            return resp_more(r, resp_sum_sat(r->pos, blen, 2));
        }
        rc = resp_argv_push(r, (const uint8_t *)(uintptr_t)r->pos, (size_t)blen);
        if (rc != TERSE_OK) {
            r->argc = 0;
            return rc; /* still in progress: the same call may be retried */
        }
        resp_line_next(r, r->pos + (size_t)blen + 2);
        r->bulk_len = -1;
        r->left--;
    }
    for (i = 0; i < r->nargs; i++) {
        r->argv[i].p = buf + (uintptr_t)r->argv[i].p;
    }
    return resp_done(r, r->pos, consumed);
}

/* ---- inline commands ------------------------------------------------------------------- */

/* isspace() in the C locale, which is what Redis runs sdssplitargs() under. */
static int resp_is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int resp_hex_val(uint8_t c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/*
 * One word being built. While its bytes are a contiguous run of the line it stays a slice of
 * the input (run, len); the first byte that breaks contiguity moves it to ibuf + off.
 */
struct resp_word {
    const uint8_t *run; /* start of the run in the input; NULL until the first byte */
    size_t len;         /* bytes in the word so far */
    uint8_t *out;       /* NULL while a slice; else ibuf + off, where the word is copied */
};

static void resp_word_to_copy(struct resp_word *w, uint8_t *dst)
{
    if (w->len != 0) {
        memcpy(dst, w->run, w->len);
    }
    w->out = dst;
}

/* Appends the input byte at s. */
static void resp_word_add_src(struct resp_word *w, uint8_t *dst, const uint8_t *s)
{
    if (w->out == NULL) {
        if (w->len == 0) {
            w->run = s;
            w->len = 1;
            return;
        }
        if (s == w->run + w->len) {
            w->len++;
            return;
        }
        resp_word_to_copy(w, dst);
    }
    w->out[w->len++] = *s;
}

/* Appends a byte that is not in the input (an unescaped character). */
static void resp_word_add_byte(struct resp_word *w, uint8_t *dst, uint8_t b)
{
    if (w->out == NULL) {
        resp_word_to_copy(w, dst);
    }
    w->out[w->len++] = b;
}

static uint8_t resp_unescape(uint8_t c)
{
    switch (c) {
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    case 'b':
        return '\b';
    case 'a':
        return '\a';
    default:
        return c;
    }
}

/*
 * Reads one word starting at line[*pi] (not a blank), as sdssplitargs() does. Returns 1 with
 * *pi past the word, or 0 on unbalanced quotes. dst has room for the rest of the line when the
 * line holds a quote (unescaping never makes a word longer than its source).
 */
static int resp_split_word(const uint8_t *line, size_t n, size_t *pi, uint8_t *dst,
                           struct resp_word *w)
{
    size_t i = *pi;
    int inq = 0;
    int insq = 0;

    for (;;) {
        int at_end = i >= n;
        uint8_t c = at_end ? 0 : line[i];

        if (inq) {
            if (at_end) {
                return 0;
            }
            if (c == '\\' && i + 3 < n && line[i + 1] == 'x' && resp_hex_val(line[i + 2]) >= 0 &&
                resp_hex_val(line[i + 3]) >= 0) {
                resp_word_add_byte(
                    w, dst, (uint8_t)(resp_hex_val(line[i + 2]) * 16 + resp_hex_val(line[i + 3])));
                i += 3;
            } else if (c == '\\' && i + 1 < n) {
                i++;
                resp_word_add_byte(w, dst, resp_unescape(line[i]));
            } else if (c == '"') {
                /* A closing quote must be followed by a blank or the end of the line. */
                if (i + 1 < n && !resp_is_space(line[i + 1])) {
                    return 0;
                }
                *pi = i + 1;
                return 1;
            } else {
                resp_word_add_src(w, dst, line + i);
            }
        } else if (insq) {
            if (at_end) {
                return 0;
            }
            if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
                i++;
                resp_word_add_src(w, dst, line + i);
            } else if (c == '\'') {
                if (i + 1 < n && !resp_is_space(line[i + 1])) {
                    return 0;
                }
                *pi = i + 1;
                return 1;
            } else {
                resp_word_add_src(w, dst, line + i);
            }
        } else {
            if (at_end || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                /* sdssplitargs() steps over the terminating blank too. */
                *pi = at_end ? i : i + 1;
                return 1;
            }
            if (c == '"') {
                inq = 1;
            } else if (c == '\'') {
                insq = 1;
            } else {
                resp_word_add_src(w, dst, line + i);
            }
        }
        i++;
    }
}

/* Ensures ibuf holds at least n bytes. Old contents are not needed (nothing points there yet
 * in this call). */
static int resp_ibuf_reserve(struct resp_request *r, size_t n)
{
    uint8_t *p;

    if (r->ibuf_cap >= n) {
        return TERSE_OK;
    }
    p = r->realloc_fn(r->ibuf, n);
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    r->ibuf = p;
    r->ibuf_cap = n;
    return TERSE_OK;
}

/* The inline command in progress: its line is searched for '\n' once, however it arrives,
 * then split in one go. */
static int resp_parse_inline(struct resp_request *r, const uint8_t *buf, size_t len,
                             size_t *consumed)
{
    size_t nl;
    size_t n;
    size_t i = 0;
    size_t off = 0;
    uint8_t *dst = NULL;
    int rc;

    if (!resp_line_end(r, buf, len, '\n', &nl)) {
        if (len > RESP_INLINE_MAX) {
            return resp_fail(r, RESP_ERR_INLINE_BIG);
        }
        return resp_more(r, 0);
    }
    n = nl > 0 && buf[nl - 1] == '\r' ? nl - 1 : nl;
    if (n != 0 && (memchr(buf, '"', n) != NULL || memchr(buf, '\'', n) != NULL)) {
        rc = resp_ibuf_reserve(r, n);
        if (rc != TERSE_OK) {
            return rc;
        }
        dst = r->ibuf;
    }
    r->nargs = 0;
    for (;;) {
        struct resp_word w = { NULL, 0, NULL };

        while (i < n && resp_is_space(buf[i])) {
            i++;
        }
        if (i >= n) {
            break;
        }
        if (!resp_split_word(buf, n, &i, dst != NULL ? dst + off : NULL, &w)) {
            return resp_fail(r, RESP_ERR_QUOTES);
        }
        if (w.out != NULL) {
            off += w.len;
            rc = resp_argv_push(r, w.out, w.len);
        } else {
            /* An empty word ("" or '') still gets a non-NULL pointer into the input. */
            rc = resp_argv_push(r, w.run != NULL ? w.run : buf + i, w.len);
        }
        if (rc != TERSE_OK) {
            r->nargs = 0;
            return rc; /* the line stays found: a retry splits it again */
        }
    }
    return resp_done(r, nl + 1, consumed);
}

int resp_parse_request(struct resp_request *r, const uint8_t *buf, size_t len,
                       const struct resp_limits *lim, size_t *consumed)
{
    static const struct resp_limits defaults = {RESP_DEFAULT_MAX_BULK, RESP_MAX_MULTIBULK, 0};
    int rc;

    *consumed = 0;
    r->argc = 0;
    r->need = 0;
    r->err = NULL;
    if (lim == NULL) {
        lim = &defaults;
    }
    if (len == 0) {
        return TERSE_MORE;
    }
    if (r->active && len < r->pos + r->scan) {
        /* The caller gave fewer bytes than it did before without a reset: not the same
         * command, so start over rather than read past the end. */
        resp_request_reset(r);
    }
    if (!r->active) {
        resp_request_reset(r);
        r->active = 1;
        r->inline_cmd = buf[0] != '*';
    }
    if (r->inline_cmd) {
        rc = resp_parse_inline(r, buf, len, consumed);
    } else {
        rc = resp_parse_multibulk(r, buf, len, lim, consumed);
    }
    if (rc != TERSE_OK) {
        *consumed = 0;
        r->argc = 0;
    }
    return rc;
}
