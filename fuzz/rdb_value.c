/*
 * fuzz target rdb_value: hostile bytes as a DUMP payload (persist_rdb.h).
 *
 * The input is taken as a whole payload: the footer check runs on it (its answer is not
 * asserted: a random CRC rarely matches), then the object reader on the bytes before the
 * footer, and on the whole input as well (so inputs need no valid CRC to reach the reader).
 * Properties checked on every input:
 *   - nothing reads past the input (the replay driver and libFuzzer give a block of exactly
 *     its size), nothing crashes or leaks, every failure is TERSE_ECORRUPT, TERSE_ETOOBIG or
 *     TERSE_ENOMEM;
 *   - a value read is one the store accepts: a string, or a form its checker passes (the
 *     reader checks that; here the round trip below relies on it);
 *   - DUMP of the value read gives a payload whose footer checks, and reading that payload
 *     gives the same value: the same type and bytes (a stream: the same type; its node slots
 *     may shrink, deleted entries are not written). The exact payload size is enough and one
 *     byte less is TERSE_ETOOBIG.
 * The reader's working memory is kept from one input to the next, as the server keeps it.
 */
#include "persist/persist_rdb.h"

#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_one(struct persist_rdb_work *w, struct persist_rdb_work *w2, const uint8_t *p,
                      size_t n)
{
    struct persist_rdb_value v, v2;
    size_t len = 0, len2 = 0;
    uint8_t *buf;
    int st = persist_rdb_value_read(w, p, n, &v, NULL);

    if (st != TERSE_OK) {
        if (st != TERSE_ECORRUPT && st != TERSE_ETOOBIG && st != TERSE_ENOMEM) {
            abort();
        }
        return;
    }
    if (persist_rdb_dump(&v, NULL, NULL, 0, &len) != TERSE_ETOOBIG || len < 11) {
        abort();
    }
    buf = malloc(len);
    if (buf == NULL) {
        return;
    }
    if (persist_rdb_dump(&v, NULL, buf, len - 1, &len2) != TERSE_ETOOBIG || len2 != len ||
        persist_rdb_dump(&v, NULL, buf, len, &len2) != TERSE_OK || len2 != len ||
        persist_rdb_payload_check(buf, len) != TERSE_OK ||
        persist_rdb_value_read(w2, buf, len - PERSIST_RDB_FOOTER_LEN, &v2, NULL) != TERSE_OK ||
        v2.type != v.type) {
        abort();
    }
    if (v.type != STORE_TYPE_STREAM &&
        (v2.is_int != v.is_int || v2.len != v.len || (v.len > 0 && memcmp(v.p, v2.p, v.len)))) {
        abort();
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct persist_rdb_work w, w2;
    static int ready;

    if (!ready) {
        persist_rdb_work_init(&w, NULL);
        persist_rdb_work_init(&w2, NULL);
        ready = 1;
    }
    if (persist_rdb_payload_check(data, size) == TERSE_OK) {
        check_one(&w, &w2, data, size - PERSIST_RDB_FOOTER_LEN);
    }
    check_one(&w, &w2, data, size);
    persist_rdb_work_trim(&w, 1 << 20);
    persist_rdb_work_trim(&w2, 1 << 20);
    return 0;
}
