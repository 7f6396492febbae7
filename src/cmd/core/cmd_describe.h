/*
 * cmd_describe: the per-command entries of COMMAND INFO and COMMAND DOCS, byte for byte as
 * Redis 7.0.15 writes them (see cmd_describe.c for where each field comes from).
 *
 * Threading: the worker thread that owns out.
 */
#ifndef TERSE_CMD_DESCRIBE_H
#define TERSE_CMD_DESCRIBE_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/* Writes d's COMMAND INFO entry (a 10-element array, subcommands included) to out.
 * d: borrowed. Never fails (replies are buffered by resp_out). */
void cmd_describe_info(struct resp_out *out, const struct cmd_def *d);

/* Writes d's COMMAND DOCS map (without the name before it) to out. d: borrowed. */
void cmd_describe_docs(struct resp_out *out, const struct cmd_def *d);

/* Writes a set of key-spec flag names (enum cmd_ks_flags) as GETKEYSANDFLAGS does. */
void cmd_describe_ks_flags(struct resp_out *out, unsigned flags);

/* Calls fn (when not NULL) for each space-separated token of an ACL category string (acl:
 * borrowed, may be NULL) and returns the number of tokens. */
size_t cmd_describe_acl_each(const char *acl, void (*fn)(void *arg, const char *tok, size_t n),
                             void *arg);

#endif /* TERSE_CMD_DESCRIBE_H */
