/*
 * srv_main: terse-server's entry point.
 */
#ifndef TERSE_SRV_MAIN_H
#define TERSE_SRV_MAIN_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_main.c: fits maxclients to the descriptors the process may open (Redis's
 * adjustOpenFilesLimit): raises RLIMIT_NOFILE toward maxclients + SRV_RESERVED_FDS, or lowers
 * maxclients to what the limit leaves, logging either as Redis does. Returns 0; -1 when the
 * limit leaves no room for a single client (maxclients unchanged; logged at startup, where
 * the server then exits, as Redis does). */
int srv_maxclients_fit(struct srv *s, int startup);

#endif /* TERSE_SRV_MAIN_H */
