/*
 * cmd_records: commands kept for later (struct cmd_records): MULTI's queue, a blocked client's
 * command. Each record copies its arguments out of the input buffer, which moves on.
 *
 * Record layout: the table row (a pointer, host order), the argument count (u32), then per
 * argument its length (u32) and its bytes. Lengths fit: proto-max-bulk-len is far below 4 GiB.
 */
#include "cmd/mech/cmd_records.h"

#include <string.h>

#include "cmd/core/cmd_util.h"
#include "terse/status.h"

#define RECORDS_MIN 256u   /* first buffer, bytes */
#define RECORDS_ARGV_MIN 8 /* first argv, slices */

int cmd_records_put(struct cmd_server *srv, struct cmd_records *q, const struct cmd_def *d,
                    const struct resp_slice *argv, size_t argc)
{
    size_t need = sizeof(d) + sizeof(uint32_t) * (1 + argc);
    uint8_t *p;
    uint32_t u;

    for (size_t i = 0; i < argc; i++) {
        need += argv[i].len;
    }
    if (argc > UINT32_MAX ||
        cmd_grow(srv, (void **)&q->buf, &q->cap, q->len + need, 1, RECORDS_MIN) != TERSE_OK ||
        cmd_grow(srv, (void **)&q->argv, &q->argv_cap, argc, sizeof(*q->argv),
                 RECORDS_ARGV_MIN) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    p = q->buf + q->len;
    memcpy(p, &d, sizeof(d));
    p += sizeof(d);
    u = (uint32_t)argc;
    memcpy(p, &u, sizeof(u));
    p += sizeof(u);
    for (size_t i = 0; i < argc; i++) {
        u = (uint32_t)argv[i].len;
        memcpy(p, &u, sizeof(u));
        p += sizeof(u);
        if (u > 0) {
            memcpy(p, argv[i].p, u);
        }
        p += u;
    }
    q->len += need;
    q->n++;
    q->flags |= d->flags;
    q->inv_flags |= ~d->flags;
    return TERSE_OK;
}

const struct cmd_def *cmd_records_next(struct cmd_records *q, size_t *pos, size_t *argc)
{
    const uint8_t *p = q->buf + *pos;
    const struct cmd_def *d;
    uint32_t n, len;

    memcpy(&d, p, sizeof(d));
    p += sizeof(d);
    memcpy(&n, p, sizeof(n));
    p += sizeof(n);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&len, p, sizeof(len));
        p += sizeof(len);
        q->argv[i].p = p;
        q->argv[i].len = len;
        p += len;
    }
    *pos = (size_t)(p - q->buf);
    *argc = n;
    return d;
}

void cmd_records_clear(struct cmd_records *q)
{
    q->len = 0;
    q->n = 0;
    q->flags = 0;
    q->inv_flags = 0;
}

void cmd_records_free(struct cmd_server *srv, struct cmd_records *q)
{
    srv->alloc.free(srv->alloc.opaque, q->buf);
    srv->alloc.free(srv->alloc.opaque, q->argv);
    memset(q, 0, sizeof(*q));
}

void cmd_records_trim(struct cmd_server *srv, struct cmd_records *q, size_t keep)
{
    if (q->n == 0 && q->cap + q->argv_cap * sizeof(*q->argv) > keep) {
        cmd_records_free(srv, q);
    }
}

size_t cmd_records_mem(const struct cmd_records *q)
{
    return q->cap + q->argv_cap * sizeof(*q->argv);
}
