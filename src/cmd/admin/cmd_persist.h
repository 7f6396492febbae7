/*
 * cmd_persist: the persistence commands (SAVE, BGSAVE, LASTSAVE). Their table,
 * cmd_persist_defs, is declared below; the work is done by the
 * server through the save hooks of struct cmd_hooks (cmd never calls persist/).
 */
#ifndef TERSE_CMD_PERSIST_H
#define TERSE_CMD_PERSIST_H

#include "cmd/core/cmd.h"

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_persist_defs[];

#endif /* TERSE_CMD_PERSIST_H */
