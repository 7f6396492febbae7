/*
 * cmd_set: the set family (SADD ... SSCAN), over a hash form whose values are empty
 * (store_hash.h), held as one codec value per key. cmd_set.c has the read step and the
 * single-key writes, cmd_set_store.c how a written set is stored (order, encoding),
 * cmd_set_read.c the reads, cmd_set_algebra.c SINTER, SUNION, SDIFF and their STORE and CARD
 * forms. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_SET_H
#define TERSE_CMD_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* ---- shared by the family's files ---------------------------------------------------------- */

/* The set at key, as cmd_value_read_form with STORE_TYPE_SET: form in scratch. */
int cmd_set_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                 const struct store_entry **e, const uint8_t **form, size_t *len);


/* The reads (cmd_set_read.c). */
void cmd_set_smembers(struct cmd_call *c);
void cmd_set_sismember(struct cmd_call *c);
void cmd_set_smismember(struct cmd_call *c);
void cmd_set_scard(struct cmd_call *c);
void cmd_set_srandmember(struct cmd_call *c);
void cmd_set_sscan(struct cmd_call *c);

/* The algebra (cmd_set_algebra.c). */
void cmd_set_sinter(struct cmd_call *c);
void cmd_set_sintercard(struct cmd_call *c);
void cmd_set_sinterstore(struct cmd_call *c);
void cmd_set_sunion(struct cmd_call *c);
void cmd_set_sunionstore(struct cmd_call *c);
void cmd_set_sdiff(struct cmd_call *c);
void cmd_set_sdiffstore(struct cmd_call *c);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_set_defs[];

#endif /* TERSE_CMD_SET_H */
