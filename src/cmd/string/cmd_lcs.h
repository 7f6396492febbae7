/*
 * cmd_lcs: the LCS command (longest common subsequence of two string keys), Redis 7.0's
 * LEN, IDX, MINMATCHLEN and WITHMATCHLEN options and replies. Its row is in cmd_string.c.
 *
 * Threading: runs on the worker thread that owns the keys' shard, as every handler.
 */
#ifndef TERSE_CMD_LCS_H
#define TERSE_CMD_LCS_H

#include "cmd/core/cmd.h"

/*
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: replies the subsequence (bulk),
 * its length (LEN), or the match ranges and length (IDX: a map in RESP3, a flat array in
 * RESP2). A missing key is the empty string. The dynamic-programming table,
 * (len1 + 1) * (len2 + 1) * 4 bytes, is allocated from c->srv->alloc for the command's
 * duration; above settings.proto_max_bulk_len it is refused with Redis's error instead.
 */
void cmd_lcs_proc(struct cmd_call *c);

#endif /* TERSE_CMD_LCS_H */
