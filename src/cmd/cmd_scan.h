/*
 * cmd_scan: the keyspace walks of the keyspace family (KEYS, SCAN, RANDOMKEY, DBSIZE). Their
 * rows are in cmd_keys_defs (cmd_keys.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_SCAN_H
#define TERSE_CMD_SCAN_H

#include "cmd/cmd.h"

void cmd_keys_proc(struct cmd_call *c);      /* KEYS pattern */
/* A SCAN-family cursor parsed as Redis's strtoull does (sign wraps, no overflow, empty is 0);
 * 1 on success, 0 for CMD_SCAN_ERR_CURSOR. HSCAN takes the same. */
#define CMD_SCAN_ERR_CURSOR "ERR invalid cursor"
int cmd_scan_parse_cursor(const uint8_t *p, size_t len, uint64_t *out);
void cmd_scan_proc(struct cmd_call *c);      /* SCAN cursor [MATCH p] [COUNT n] [TYPE t] */
void cmd_randomkey_proc(struct cmd_call *c); /* RANDOMKEY */
void cmd_dbsize_proc(struct cmd_call *c);    /* DBSIZE */

#endif /* TERSE_CMD_SCAN_H */
