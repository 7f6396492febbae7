/*
 * cmd_debug_proto: DEBUG PROTOCOL and DEBUG SET-DISABLE-DENY-SCRIPTS, the two DEBUG
 * subcommands Redis's scripting tests lean on: one reply of each RESP type in the caller's
 * protocol (a script's client included, which is how the tests read every conversion), and
 * lifting the ban on CMD_NOSCRIPT commands inside scripts.
 */
#ifndef TERSE_CMD_DEBUG_PROTO_H
#define TERSE_CMD_DEBUG_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* DEBUG PROTOCOL <type> (one reply of every RESP type, as Redis 7.0's) and
 * DEBUG SET-DISABLE-DENY-SCRIPTS <0|1> (scripts may then call CMD_NOSCRIPT commands). */
void cmd_debug_protocol(struct cmd_call *c);
void cmd_debug_set_disable_deny_scripts(struct cmd_call *c);

#endif /* TERSE_CMD_DEBUG_PROTO_H */
