/*
 * cmd_hash_read: the hash family's reads (HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS,
 * HSTRLEN, HRANDFIELD, HSCAN). Each decodes the hash's fields once into the server's scratch
 * (cmd_hash_read, checksum verified) and writes the reply from there into the connection's
 * output buffer. A form found corrupt part way through a reply withdraws what was written
 * (the output is cut back to where the reply began) and answers the CORRUPT error instead.
 */
#ifndef TERSE_CMD_HASH_READ_H
#define TERSE_CMD_HASH_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_hash.h"

void cmd_hash_hget(struct cmd_call *c);
void cmd_hash_hmget(struct cmd_call *c);
void cmd_hash_hgetall(struct cmd_call *c);
void cmd_hash_hkeys(struct cmd_call *c);
void cmd_hash_hvals(struct cmd_call *c);
void cmd_hash_hlen(struct cmd_call *c);
void cmd_hash_hexists(struct cmd_call *c);
void cmd_hash_hstrlen(struct cmd_call *c);
void cmd_hash_hrandfield(struct cmd_call *c);
void cmd_hash_hscan(struct cmd_call *c);

#endif /* TERSE_CMD_HASH_READ_H */
