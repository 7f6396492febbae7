/*
 * persist_aof_read: the AOF command reader (format in the header).
 */
#include "persist/persist_aof_read.h"

#include <stdlib.h>
#include <string.h>

#include "terse/status.h"

#define MIN_ARGV 16
#define ARG_MIN_BYTES 6 /* "$0\r\n" and the two bytes after the (empty) argument */

void persist_aof_reader_init(struct persist_aof_reader *r, const terse_allocator *alloc)
{
    memset(r, 0, sizeof(*r));
    if (alloc != NULL) {
        r->alloc = *alloc;
    }
}

void persist_aof_reader_deinit(struct persist_aof_reader *r)
{
    if (r->alloc.free != NULL) {
        r->alloc.free(r->alloc.opaque, r->argv);
    } else {
        free(r->argv);
    }
    r->argv = NULL;
    r->argc = 0;
    r->argv_cap = 0;
}

static int reserve(struct persist_aof_reader *r, size_t n)
{
    struct persist_aof_arg *p;
    size_t cap = r->argv_cap < MIN_ARGV ? MIN_ARGV : r->argv_cap;

    if (n <= r->argv_cap) {
        return TERSE_OK;
    }
    while (cap < n) {
        cap *= 2;
    }
    p = r->alloc.alloc != NULL ? r->alloc.alloc(r->alloc.opaque, cap * sizeof(*p))
                               : malloc(cap * sizeof(*p));
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    persist_aof_reader_deinit(r);
    r->argv = p;
    r->argv_cap = cap;
    return TERSE_OK;
}

/*
 * A head line at buf[*off]: the marker byte, a decimal number, "\r\n" (the '\r' optional, as
 * Redis's atoi/strtol ignore what follows the digits only up to the line end it found).
 * TERSE_OK with *v, TERSE_MORE, or TERSE_EPROTO.
 */
static int head(const uint8_t *buf, size_t len, size_t *off, uint8_t marker, uint64_t *v)
{
    size_t i = *off, lim = len - *off > PERSIST_AOF_HEAD_MAX ? *off + PERSIST_AOF_HEAD_MAX : len;
    uint64_t n = 0;
    size_t digits = 0;

    if (i >= len) {
        return TERSE_MORE;
    }
    if (buf[i] != marker) {
        return TERSE_EPROTO;
    }
    for (i++; i < lim && buf[i] >= '0' && buf[i] <= '9'; i++, digits++) {
        if (n > (UINT64_MAX - 9) / 10) {
            return TERSE_EPROTO;
        }
        n = n * 10 + (uint64_t)(buf[i] - '0');
    }
    if (i < lim && buf[i] == '\r') {
        i++;
    }
    if (i >= lim) {
        return lim == len ? TERSE_MORE : TERSE_EPROTO;
    }
    if (buf[i] != '\n' || digits == 0) {
        return TERSE_EPROTO;
    }
    *off = i + 1;
    *v = n;
    return TERSE_OK;
}

int persist_aof_read_cmd(struct persist_aof_reader *r, const uint8_t *buf, size_t len,
                         size_t *used, const char **why)
{
    size_t off = 0;
    uint64_t argc = 0;
    int st;

    *used = 0;
    r->argc = 0;
    if (len == 0) {
        return TERSE_MORE;
    }
    if (buf[0] == '#') {
        const uint8_t *nl = memchr(buf, '\n', len);
        if (nl == NULL) {
            return TERSE_MORE;
        }
        *used = (size_t)(nl - buf) + 1;
        return TERSE_OK;
    }
    st = head(buf, len, &off, '*', &argc);
    if (st == TERSE_EPROTO || (st == TERSE_OK && argc < 1)) {
        *why = "a command must start with *<count> (count >= 1)";
        return TERSE_EPROTO;
    }
    if (st != TERSE_OK) {
        return st;
    }
    if (argc > (len - off) / ARG_MIN_BYTES + 1) {
        /* More arguments than the bytes left can hold: the file ends inside this command
         * (nothing is sized for the declared count). */
        return TERSE_MORE;
    }
    if (reserve(r, (size_t)argc) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    for (uint64_t j = 0; j < argc; j++) {
        uint64_t n = 0;
        st = head(buf, len, &off, '$', &n);
        if (st == TERSE_EPROTO) {
            *why = "an argument must start with $<length>";
            return TERSE_EPROTO;
        }
        if (st != TERSE_OK) {
            return st;
        }
        if (n > len - off || len - off - n < 2) {
            return TERSE_MORE;
        }
        r->argv[j].p = buf + off;
        r->argv[j].len = (size_t)n;
        off += (size_t)n + 2; /* the two bytes after the argument are not checked */
    }
    r->argc = (size_t)argc;
    *used = off;
    return TERSE_OK;
}
