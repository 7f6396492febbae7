/*
 * cmd_gate: the server-state checks that refuse a write before it runs (-MISCONF after a failed
 * save or AOF write, -NOREPLICAS under min-replicas-to-write), for dispatch and scripts.
 */
#ifndef TERSE_CMD_GATE_H
#define TERSE_CMD_GATE_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* The -MISCONF error of settings.misconf, with its leading '-' (Redis's text
 * for the snapshot, "Errors writing to the AOF file: <strerror>" for the AOF); NULL when
 * writes are not refused. Points to a constant or to srv->misconf_text, rewritten by the
 * next call. */
const char *cmd_misconf_text(struct cmd_server *srv);

/* min-replicas-to-write: 1 when a write may go (not asked for, a replica, or enough online
 * replicas acknowledged within min-replicas-max-lag), 0 for -NOREPLICAS. */
#define CMD_ERR_NOREPLICAS "NOREPLICAS Not enough good replicas to write."
int cmd_repl_enough_replicas(struct cmd_server *srv);

#endif /* TERSE_CMD_GATE_H */
