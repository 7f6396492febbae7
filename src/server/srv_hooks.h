/*
 * srv_hooks: what commands may ask of other layers (clock, config, memory, clients,
 * shutdown), given to cmd as struct cmd_hooks so that cmd includes none of them.
 */
#ifndef TERSE_SRV_HOOKS_H
#define TERSE_SRV_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_hooks.c */
void srv_hooks_install(struct srv *s);

#endif /* TERSE_SRV_HOOKS_H */
