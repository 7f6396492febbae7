/*
 * cmd_stream_big: a chunked stream's state while a stream command runs on it (cmd_stream.h),
 * for the files of this folder that read it: cmd_stream_big.c (entries), cmd_stream_pel.c
 * (pending entries).
 *
 * Buffers: the struct and its arrays are the server's (srv->stream_big), made on first use,
 * reused by every command and freed by cmd_stream_big_free: ents grown by
 * coll_stream_read_node, recs by coll_pel_read_chunk, pends from alloc (the server's). Views in ents
 * point into a chunk or the env's decode buffers (valid while coll_env_decodes has grown by at
 * most one since node_turns); pends holds copies, valid until the PEL is written.
 */
#ifndef TERSE_CMD_STREAM_BIG_H
#define TERSE_CMD_STREAM_BIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "coll/coll_pel.h"
#include "coll/coll_stream.h"
#include "store/form/store_stream.h"
#include "terse/alloc.h"

struct cmd_stream_big {
    struct coll *co;
    struct coll_env *env;
    struct coll_stream_node node; /* the node last read, when cached */
    bool cached;
    uint64_t node_turns;             /* coll_env_decodes when it was read */
    struct store_stream_entry *ents; /* its entries */
    size_t cap;
    int bad;       /* a status a read met (cmd_stream_failed replies it), 0: none */
    bool appended; /* this command appended an entry (undone when the store fails) */
    /* The PEL last looked at: that of group pel_gi (NULL: none yet this command), and the
     * chunk of it last read, its records converted (consumers as the group's indexes). */
    struct coll *pel;
    size_t pel_gi;
    bool pcached;
    uint64_t pfirst; /* rank of pends[0] */
    size_t pn;
    struct store_stream_pending *pends;
    size_t pcap;
    struct coll_pel_rec *recs;
    size_t rcap;
    terse_allocator alloc; /* the server's: pends comes from it */
};

#endif /* TERSE_CMD_STREAM_BIG_H */
