/*
 * persist_rdb_fixture: what the tests of RDB loads built in chunks share
 * (test_persist_rdb_rcoll.c: lists, hashes, sets and sorted sets;
 * test_persist_rdb_rstream.c: streams): a shard with its codec, the reader's
 * working memory on the counting allocator (core_mem.h: its peak is what the
 * tests bound), and its load_ck set as the server sets it but with a 64 KiB
 * batch, so a form of a few MiB takes dozens of batches.
 */
#ifndef TERSE_TEST_PERSIST_RDB_FIXTURE_H
#define TERSE_TEST_PERSIST_RDB_FIXTURE_H

#include "codec/codec_value.h"
#include "persist/persist_rdb.h"
#include "store/store.h"

struct rdb_fx {
    struct store_shard *s;
    struct codec_ctx *codec;
    struct persist_rdb_work w;
};

/* cmocka setup and teardown: *state a struct rdb_fx, freed with all it holds.
 */
int rdb_fx_setup(void **state);
int rdb_fx_teardown(void **state);

#endif /* TERSE_TEST_PERSIST_RDB_FIXTURE_H */
