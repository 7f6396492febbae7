/*
 * cmd_conn: the connection commands (AUTH, HELLO, PING, ECHO, SELECT, QUIT, RESET) and the
 * password comparison AUTH and HELLO share.
 */
#ifndef TERSE_CMD_CONN_H
#define TERSE_CMD_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* 1 when a[0, alen) and b[0, blen) (borrowed; NULL only with length 0) are the
 * same bytes, compared in time that does not depend on where they differ nor on their
 * lengths' relation (SHA-256 digests compared in full, as Redis 7.0 compares passwords);
 * 0 otherwise, and when libcrypto fails. Allocates only inside libcrypto. */
int cmd_auth_secret_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* 1 when d is PING's row (refused like a write under MISCONF, as in Redis). */
int cmd_conn_is_ping(const struct cmd_def *d);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_conn_defs[];

#endif /* TERSE_CMD_CONN_H */
