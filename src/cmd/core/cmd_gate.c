/*
 * cmd_gate: the server-state checks that refuse a write before it runs, shared by dispatch
 * and scripts: min-replicas-to-write (-NOREPLICAS) and a failed save or AOF write (-MISCONF,
 * with the reason's text).
 */
#include "cmd/core/cmd_gate.h"

#include <stdio.h>
#include <string.h>

#include "cmd/core/cmd_util.h"

int cmd_repl_enough_replicas(struct cmd_server *srv)
{
    struct cmd_hooks *h = &srv->hooks;

    if (srv->settings.min_replicas_to_write <= 0 || srv->settings.min_replicas_max_lag <= 0 ||
        srv->settings.replica) {
        return 1; /* not asked for, or a replica (whose master decides) */
    }
    return h->repl_good != NULL &&
           h->repl_good(h->srv, srv->settings.min_replicas_max_lag) >=
               srv->settings.min_replicas_to_write;
}

const char *cmd_misconf_text(struct cmd_server *srv)
{
    if (srv->settings.misconf == CMD_MISCONF_RDB) {
        return "-" CMD_ERR_MISCONF;
    }
    if (srv->settings.misconf == CMD_MISCONF_AOF) {
        snprintf(srv->misconf_text, sizeof(srv->misconf_text),
                 "-MISCONF Errors writing to the AOF file: %s",
                 strerror(srv->settings.misconf_errno));
        return srv->misconf_text;
    }
    return NULL;
}
