/*
 * libFuzzer target: the RESP reply reader (resp_reply_next, resp_reply_skip), what the Lua
 * bridge reads the replies of a script's commands with.
 *
 * The input is a stream of replies. Beyond "no crash, no sanitizer report" (the input is
 * copied to an exact-size block, so an over-read is caught), each input checks:
 *  - resp_reply_skip over the stream moves by at least 3 bytes per reply and never past len;
 *    TERSE_MORE and TERSE_EPROTO leave the position unchanged.
 *  - Walking the same reply element by element with resp_reply_next (an explicit count of
 *    pending elements, as skip does) ends at the same position with the same status; every
 *    string it returns lies inside the input.
 *  - Every proper prefix of a whole reply is TERSE_MORE or TERSE_EPROTO, never TERSE_OK.
 * Replayed with gcc by fuzz/fuzz_replay.c in `make fuzz-replay`.
 */
#include "resp/resp_reply.h"

#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ALL_PREFIXES 256

#define FUZZ_CHECK(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* One reply at *pos read element by element; same contract as resp_reply_skip. */
static int walk(const uint8_t *p, size_t len, size_t *pos)
{
    unsigned long long pending = 1;
    size_t at = *pos;
    struct resp_reply r;

    while (pending > 0) {
        int rc = resp_reply_next(p, len, &at, &r);
        if (rc != TERSE_OK) {
            return rc;
        }
        FUZZ_CHECK(at <= len);
        if (r.p != NULL) {
            FUZZ_CHECK(r.p >= p && r.p + r.len <= p + len);
        }
        pending--;
        if (r.type == RESP_REPLY_ARRAY || r.type == RESP_REPLY_SET || r.type == RESP_REPLY_PUSH) {
            pending += (unsigned long long)r.n;
        } else if (r.type == RESP_REPLY_MAP) {
            pending += 2 * (unsigned long long)r.n;
        } else if (r.type == RESP_REPLY_ATTR) {
            pending += 2 * (unsigned long long)r.n + 1;
        }
        if (pending > (len - at) / 3) {
            return TERSE_MORE;
        }
    }
    *pos = at;
    return TERSE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size > 0 ? size : 1);
    size_t pos = 0;

    if (p == NULL) {
        return 0;
    }
    memcpy(p, data, size);
    while (pos < size) {
        size_t a = pos, b = pos;
        int ra = resp_reply_skip(p, size, &a);
        int rb = walk(p, size, &b);
        FUZZ_CHECK(ra == rb && a == b);
        if (ra != TERSE_OK) {
            FUZZ_CHECK(a == pos);
            break;
        }
        FUZZ_CHECK(a >= pos + 3 && a <= size);
        if (pos == 0 && a <= FUZZ_ALL_PREFIXES) {
            for (size_t k = 0; k < a; k++) {
                uint8_t *q = malloc(k > 0 ? k : 1);
                size_t at = 0;
                FUZZ_CHECK(q != NULL);
                memcpy(q, p, k);
                FUZZ_CHECK(resp_reply_skip(q, k, &at) != TERSE_OK && at == 0);
                free(q);
            }
        }
        pos = a;
    }
    free(p);
    return 0;
}
