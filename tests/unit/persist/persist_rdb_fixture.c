/*
 * persist_rdb_fixture: the shard, codec and reader memory of the chunked-load
 * tests (persist_rdb_fixture.h).
 */
#include "persist_rdb_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "coll/coll.h"
#include "core/core_mem.h"
#include "terse/status.h"

static void *core_alloc_fn(void *opaque, size_t n)
{
    (void)opaque;
    return core_alloc(n);
}

static void core_free_fn(void *opaque, void *p)
{
    (void)opaque;
    core_free(p);
}

int rdb_fx_setup(void **state)
{
    struct rdb_fx *x = calloc(1, sizeof(*x));
    terse_allocator a = {core_alloc_fn, core_free_fn, NULL};

    assert_non_null(x);
    assert_int_equal(store_shard_create(&x->s, 16), TERSE_OK);
    assert_int_equal(codec_ctx_create(&x->codec, NULL), TERSE_OK);
    coll_env_set_codec(store_coll_env(x->s), x->codec); /* as cmd_value_load_shapes does */
    persist_rdb_work_init(&x->w, &a);
    x->w.load_ck.env = store_coll_env(x->s);
    x->w.load_ck.list = (struct coll_list_shape){8192, 0, 0};
    x->w.load_ck.elems = (struct coll_hash_shape){4096};
    x->w.load_ck.batch = 64u << 10; /* 2 MiB forms: dozens of batches each */
    x->w.load_ck.stream_min = 2048; /* half stream-node-max-bytes 4096 */
    *state = x;
    return 0;
}

int rdb_fx_teardown(void **state)
{
    struct rdb_fx *x = *state;

    persist_rdb_work_deinit(&x->w);
    store_shard_destroy(&x->s);
    codec_ctx_destroy(&x->codec);
    free(x);
    return 0;
}
