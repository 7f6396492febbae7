/*
 * fuzz target persist_aof_read: hostile bytes through the AOF command reader, read command
 * after command as the loader reads a file.
 *
 * Properties: no crash or over-read; every argument lies inside the input; progress on every
 * TERSE_OK; the same input cut anywhere before a command's end reads as incomplete, never as
 * another command (checked on the first command).
 */
#include "persist/persist_aof_read.h"

#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct persist_aof_reader r;
    size_t off = 0, used, first = 0;
    const char *why;
    int rc = TERSE_OK;

    persist_aof_reader_init(&r, NULL);
    while (off < size) {
        rc = persist_aof_read_cmd(&r, data + off, size - off, &used, &why);
        if (rc != TERSE_OK) {
            break;
        }
        check(used > 0 && used <= size - off);
        for (size_t i = 0; i < r.argc; i++) {
            check(r.argv[i].p >= data + off && r.argv[i].p + r.argv[i].len <= data + off + used);
        }
        if (off == 0) {
            first = used;
        }
        off += used;
    }
    check(rc == TERSE_OK || rc == TERSE_MORE || rc == TERSE_EPROTO || rc == TERSE_ENOMEM);
    if (first > 0) {
        size_t u2;
        for (size_t cut = 0; cut < first; cut++) {
            check(persist_aof_read_cmd(&r, data, cut, &u2, &why) != TERSE_OK || u2 < first);
        }
    }
    persist_aof_reader_deinit(&r);
    return 0;
}
