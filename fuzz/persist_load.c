/*
 * fuzz target persist_load: hostile bytes through the snapshot loader.
 *
 * The input is taken as a whole snapshot file. Properties checked on every input:
 *   - verification and loading never crash, never read past the input (the replay driver
 *     and libFuzzer give a block of exactly the input's size, so ASan sees any over-read);
 *   - a refused input is TERSE_ECORRUPT with a reason and an offset within the input, and
 *     leaves the shard empty (nothing half-loaded);
 *   - an accepted input verifies again with the same result (the loader is deterministic).
 *
 * The shard is created once and flushed after each input, as a server reuses its shard. It
 * is the one static of the target: libFuzzer gives no other place to keep state.
 */
#include "persist/persist.h"

#include "store/store.h"
#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>

#define FUZZ_N_DB 16
#define FUZZ_NOW_MS 1700000000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct store_shard *fuzz_shard;

static void check(int cond)
{
    if (!cond) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct persist_load_stats st;
    struct persist_error err;
    int rc;

    if (fuzz_shard == NULL && store_shard_create(&fuzz_shard, FUZZ_N_DB) != TERSE_OK) {
        return 0;
    }
    rc = persist_load_mem(fuzz_shard, data, size, FUZZ_NOW_MS, &st, &err);
    if (rc == TERSE_ECORRUPT) {
        check(err.reason[0] != '\0' && err.offset <= size);
        for (int db = 0; db < FUZZ_N_DB; db++) {
            check(store_dbsize(fuzz_shard, db) == 0);
        }
    } else if (rc == TERSE_OK) {
        check(persist_verify_mem(data, size, FUZZ_N_DB, &err) == TERSE_OK);
    } else {
        check(rc == TERSE_ENOMEM || rc == TERSE_ETOOBIG);
    }
    store_flushall(fuzz_shard);
    return 0;
}
