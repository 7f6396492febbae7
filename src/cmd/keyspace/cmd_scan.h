/*
 * cmd_scan: the keyspace walks of the keyspace family (KEYS, SCAN, RANDOMKEY, DBSIZE). Their
 * rows are in cmd_keys_defs (cmd_keys.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_SCAN_H
#define TERSE_CMD_SCAN_H

#include "cmd/core/cmd.h"

void cmd_keys_proc(struct cmd_call *c);      /* KEYS pattern */
void cmd_scan_proc(struct cmd_call *c);      /* SCAN cursor [MATCH p] [COUNT n] [TYPE t] */
void cmd_randomkey_proc(struct cmd_call *c); /* RANDOMKEY */
void cmd_dbsize_proc(struct cmd_call *c);    /* DBSIZE */

#endif /* TERSE_CMD_SCAN_H */
