/*
 * cmd_keyspec: which arguments of a command line are keys, and with which key-spec flags, as
 * Redis 7.0's COMMAND GETKEYS / GETKEYSANDFLAGS find them (getKeysFromCommandWithSpecs).
 *
 * A command with metadata (cmd_meta) is searched by its key specs; one whose specs say their
 * flags vary (VARIABLE_FLAGS) goes to its own key finder, as in Redis; one without metadata
 * falls back to the row's first/last/step with no flags.
 */
#ifndef TERSE_CMD_KEYSPEC_H
#define TERSE_CMD_KEYSPEC_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/* Called once per key found: pos is its index in argv, flags its enum cmd_ks_flags. */
typedef void cmd_keyspec_visit(void *arg, size_t pos, unsigned flags);

/* 1 when the command may have keys at all (Redis's doesCommandHaveKeys), else 0. */
int cmd_keyspec_has_keys(const struct cmd_def *d);

/*
 * Finds the keys of the command line argv[0..argc) (argv[0] the command name, the line's
 * arity already checked) for d, the row it resolves to, and returns their number; calls visit
 * (when not NULL) for each key in order. A line that does not fit the specs (a keyword or
 * count out of range) has no keys: 0, and visit is not called. argv: borrowed. Does not
 * allocate.
 */
size_t cmd_keyspec_keys(const struct cmd_def *d, const struct resp_slice *argv, size_t argc,
                        cmd_keyspec_visit *visit, void *arg);

#endif /* TERSE_CMD_KEYSPEC_H */
