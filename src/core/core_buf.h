/*
 * core_buf: a growable byte buffer, used for connection input and output.
 *
 *   p                  p+off            p+len             p+cap
 *   |  consumed bytes  |  pending bytes  |   free room     |
 *
 * Invariants: off <= len <= cap. Bytes [off, len) are pending (not yet parsed / not yet
 * sent). Memory comes from core_mem; the buffer's owner (a connection) calls core_buf_deinit.
 * Any pointer into p is valid only until the next call that may grow or compact the buffer
 * (core_buf_reserve, core_buf_compact, core_buf_shrink).
 */
#ifndef TERSE_CORE_BUF_H
#define TERSE_CORE_BUF_H

#include <stddef.h>
#include <stdint.h>

struct core_buf {
    uint8_t *p; /* owned; NULL when cap == 0 */
    size_t off; /* bytes already consumed from the front */
    size_t len; /* bytes filled */
    size_t cap; /* bytes allocated */
};

void core_buf_init(struct core_buf *b);
void core_buf_deinit(struct core_buf *b);
/* Ensures at least n bytes of free room after len. Returns TERSE_OK or TERSE_ENOMEM (buffer
 * unchanged). Grows geometrically; compacts first when that alone makes room. */
int core_buf_reserve(struct core_buf *b, size_t n);
/* Appends n bytes (reserving room first). TERSE_OK or TERSE_ENOMEM (buffer unchanged). */
int core_buf_append(struct core_buf *b, const void *p, size_t n);
/* Moves pending bytes to the front (off becomes 0). */
void core_buf_compact(struct core_buf *b);
/* Marks n pending bytes consumed; when all are consumed, off and len reset to 0. */
void core_buf_consume(struct core_buf *b, size_t n);
/* Releases memory above keep_cap when the buffer is empty (idle connections). */
void core_buf_shrink(struct core_buf *b, size_t keep_cap);

static inline size_t core_buf_pending(const struct core_buf *b)
{
    return b->len - b->off;
}

#endif /* TERSE_CORE_BUF_H */
