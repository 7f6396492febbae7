/*
 * cmd_records: commands kept for later with copies of their arguments (a transaction's queue,
 * a blocked client's command).
 */
#ifndef TERSE_CMD_RECORDS_H
#define TERSE_CMD_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Appends a record of d with its arguments (copied); the argv room grows to fit it.
 * TERSE_OK or TERSE_ENOMEM (nothing appended). */
int cmd_records_put(struct cmd_server *srv, struct cmd_records *q, const struct cmd_def *d,
                    const struct resp_slice *argv, size_t argc);
/* The record at *pos (0 for the first): points q->argv at its arguments, sets *argc, moves
 * *pos past it, returns its row. */
const struct cmd_def *cmd_records_next(struct cmd_records *q, size_t *pos, size_t *argc);
void cmd_records_clear(struct cmd_records *q);             /* no record; buffers kept */
void cmd_records_free(struct cmd_server *srv, struct cmd_records *q);
/* Frees q's buffers when empty and above keep bytes. */
void cmd_records_trim(struct cmd_server *srv, struct cmd_records *q, size_t keep);
size_t cmd_records_mem(const struct cmd_records *q);      /* bytes of its buffers */

#endif /* TERSE_CMD_RECORDS_H */
