/*
 * fuzz target persist_rdb_load: hostile bytes through the whole-file RDB loader (an AOF's
 * base, a redis-server dump).
 *
 * Properties checked on every input:
 *   - loading never crashes and never reads past the input (the replay driver and libFuzzer
 *     give a block of exactly the input's size);
 *   - a refusal is TERSE_ECORRUPT (or ETOOBIG / ENOMEM) with a reason and an offset within
 *     the input, and leaves the shard empty (verification runs before any insert);
 *   - an accepted input verifies again alone, with the same byte count (deterministic).
 *
 * The shard and the reader memory are created once and reused, as a server reuses its own.
 * Big lists, hashes, sets, sorted sets and streams are built in chunks as read
 * (persist_rdb_rcoll.c), with chunks and a batch small enough that a fuzzer's inputs reach
 * that path.
 */
#include "persist/persist_rdb_load.h"

#include "codec/codec_value.h"
#include "coll/coll.h"
#include "store/store.h"
#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>

#define FUZZ_N_DB 16
#define FUZZ_NOW_MS 1700000000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct store_shard *fuzz_shard;
static struct persist_rdb_work fuzz_work;
static struct codec_ctx *fuzz_codec;

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
    size_t used = 0, used2 = 0;
    int rc;

    if (fuzz_shard == NULL) {
        if (store_shard_create(&fuzz_shard, FUZZ_N_DB) != TERSE_OK) {
            return 0;
        }
        if (codec_ctx_create(&fuzz_codec, NULL) != TERSE_OK) {
            store_shard_destroy(&fuzz_shard);
            return 0;
        }
        coll_env_set_codec(store_coll_env(fuzz_shard), fuzz_codec);
        persist_rdb_work_init(&fuzz_work, NULL);
        fuzz_work.load_ck.env = store_coll_env(fuzz_shard);
        fuzz_work.load_ck.list = (struct coll_list_shape){64, 4, 0};
        fuzz_work.load_ck.elems = (struct coll_hash_shape){64};
        fuzz_work.load_ck.batch = 32;
    }
    rc = persist_rdb_load_mem(fuzz_shard, 0, &fuzz_work, data, size, FUZZ_NOW_MS, &st, &used,
                              &err);
    if (rc == TERSE_OK) {
        check(used <= size);
        check(persist_rdb_load_mem(NULL, FUZZ_N_DB, &fuzz_work, data, size, FUZZ_NOW_MS, &st,
                                   &used2, &err) == TERSE_OK);
        check(used2 == used);
    } else {
        check(rc == TERSE_ECORRUPT || rc == TERSE_ETOOBIG || rc == TERSE_ENOMEM);
        check(err.reason[0] != '\0' && err.offset <= size);
        for (int db = 0; db < FUZZ_N_DB; db++) {
            check(store_dbsize(fuzz_shard, db) == 0);
        }
    }
    store_flushall(fuzz_shard);
    persist_rdb_work_trim(&fuzz_work, 1 << 20);
    return 0;
}
