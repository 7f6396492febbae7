/*
 * cmd_zset: the sorted-set family (ZADD ... ZINTERCARD), over the zset form (store_zset.h),
 * held as one codec value per key. cmd_zset.c has the read and commit steps, the encoding,
 * ZADD, ZINCRBY, ZREM and the table; cmd_zset_read.c ZCARD, ZSCORE, ZMSCORE, ZRANK,
 * ZREVRANK; cmd_zset_range.c the ranges (ZRANGE and its older forms, ZRANGESTORE, ZCOUNT,
 * ZLEXCOUNT, ZREMRANGEBY*); cmd_zset_pop.c the pops, the
 * random picks and ZSCAN; cmd_zset_algebra.c ZUNION, ZINTER, ZDIFF, their STORE forms and
 * ZINTERCARD. Everything runs on the worker thread that owns the shard.
 *
 * Buffers, all the cmd_server's (cmd_value.h), nothing allocated per request once they have
 * grown: a read decodes the form into scratch and lays its elements out as an array of
 * struct store_zset_el in scratch3 (pointing into scratch, in the form's order: a rank is an
 * index); a write edits that array in place and writes the next form into scratch2, which
 * cmd_value_store_form encodes into scratch (so a reply that names an element is written
 * before the commit).
 */
#ifndef TERSE_CMD_ZSET_H
#define TERSE_CMD_ZSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_zset.h"

#define CMD_ZSET_ERR_MINMAX "ERR min or max is not a float"
#define CMD_ZSET_ERR_LEX "ERR min or max not valid string range item"
#define CMD_ZSET_ERR_NAN "ERR resulting score is not a number (NaN)"

void cmd_zset_zcard(struct cmd_call *c);
void cmd_zset_zscore(struct cmd_call *c);
void cmd_zset_zmscore(struct cmd_call *c);
void cmd_zset_zrank(struct cmd_call *c);
void cmd_zset_zrevrank(struct cmd_call *c);
void cmd_zset_zrange(struct cmd_call *c);
void cmd_zset_zrangestore(struct cmd_call *c);
void cmd_zset_zrevrange(struct cmd_call *c);
void cmd_zset_zrangebyscore(struct cmd_call *c);
void cmd_zset_zrevrangebyscore(struct cmd_call *c);
void cmd_zset_zrangebylex(struct cmd_call *c);
void cmd_zset_zrevrangebylex(struct cmd_call *c);
void cmd_zset_zcount(struct cmd_call *c);
void cmd_zset_zlexcount(struct cmd_call *c);
void cmd_zset_zremrangebyrank(struct cmd_call *c);
void cmd_zset_zremrangebyscore(struct cmd_call *c);
void cmd_zset_zremrangebylex(struct cmd_call *c);
void cmd_zset_zpopmin(struct cmd_call *c);
void cmd_zset_zpopmax(struct cmd_call *c);
void cmd_zset_zmpop(struct cmd_call *c);
void cmd_zset_bzpopmin(struct cmd_call *c);
void cmd_zset_bzpopmax(struct cmd_call *c);
void cmd_zset_bzmpop(struct cmd_call *c);
void cmd_zset_zrandmember(struct cmd_call *c);
void cmd_zset_zscan(struct cmd_call *c);
void cmd_zset_zunion(struct cmd_call *c);
void cmd_zset_zinter(struct cmd_call *c);
void cmd_zset_zdiff(struct cmd_call *c);
void cmd_zset_zunionstore(struct cmd_call *c);
void cmd_zset_zinterstore(struct cmd_call *c);
void cmd_zset_zdiffstore(struct cmd_call *c);
void cmd_zset_zintercard(struct cmd_call *c);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_zset_defs[];

#endif /* TERSE_CMD_ZSET_H */
