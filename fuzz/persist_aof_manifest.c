/*
 * fuzz target persist_aof_manifest: hostile bytes through the AOF manifest parser.
 *
 * Properties: parsing never crashes or over-reads; a refusal has a reason and leaves the
 * manifest empty; an accepted manifest, written back with persist_aof_manifest_format (into
 * exactly persist_aof_manifest_size bytes), parses again to the same entries.
 */
#include "persist/persist_aof_manifest.h"

#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond)
{
    if (!cond) {
        abort();
    }
}

static int same_file(const struct persist_aof_file *a, const struct persist_aof_file *b)
{
    return strcmp(a->name, b->name) == 0 && a->seq == b->seq && a->type == b->type;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct persist_aof_manifest m, m2;
    struct persist_error err;
    size_t n, cap;
    char *text;
    int rc;

    persist_aof_manifest_init(&m, NULL);
    persist_aof_manifest_init(&m2, NULL);
    rc = persist_aof_manifest_parse(&m, data, size, &err);
    if (rc != TERSE_OK) {
        check(rc == TERSE_ECORRUPT || rc == TERSE_ENOMEM);
        check(err.reason[0] != '\0' && !m.has_base && m.n_incr == 0 && m.n_hist == 0);
    } else {
        cap = persist_aof_manifest_size(&m);
        text = malloc(cap > 0 ? cap : 1);
        check(text != NULL);
        n = persist_aof_manifest_format(&m, text, cap);
        check(n == cap);
        if (n > 0) {
            check(persist_aof_manifest_parse(&m2, (const uint8_t *)text, n, &err) == TERSE_OK);
            check(m2.has_base == m.has_base && m2.n_incr == m.n_incr && m2.n_hist == m.n_hist);
            check(!m.has_base || same_file(&m.base, &m2.base));
            for (size_t i = 0; i < m.n_incr; i++) {
                check(same_file(&m.incr[i], &m2.incr[i]));
            }
        }
        free(text);
    }
    persist_aof_manifest_deinit(&m);
    persist_aof_manifest_deinit(&m2);
    return 0;
}
