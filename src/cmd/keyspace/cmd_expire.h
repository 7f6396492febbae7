/*
 * cmd_expire: the expiry commands of the keyspace family (EXPIRE, PEXPIRE, EXPIREAT,
 * PEXPIREAT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST). Their rows are in cmd_keys_defs
 * (cmd_keys.c); the handlers (cmd_proc) are declared here.
 */
#ifndef TERSE_CMD_EXPIRE_H
#define TERSE_CMD_EXPIRE_H

#include "cmd/core/cmd.h"

void cmd_expire_proc(struct cmd_call *c);      /* EXPIRE key seconds [NX|XX|GT|LT] */
void cmd_pexpire_proc(struct cmd_call *c);     /* PEXPIRE key milliseconds [...] */
void cmd_expireat_proc(struct cmd_call *c);    /* EXPIREAT key unix-seconds [...] */
void cmd_pexpireat_proc(struct cmd_call *c);   /* PEXPIREAT key unix-milliseconds [...] */
void cmd_ttl_proc(struct cmd_call *c);         /* TTL key */
void cmd_pttl_proc(struct cmd_call *c);        /* PTTL key */
void cmd_expiretime_proc(struct cmd_call *c);  /* EXPIRETIME key */
void cmd_pexpiretime_proc(struct cmd_call *c); /* PEXPIRETIME key */
/* PERSIST key (the command; SAVE, BGSAVE and LASTSAVE are cmd_persist.c). */
void cmd_persist_key_proc(struct cmd_call *c);

#endif /* TERSE_CMD_EXPIRE_H */
