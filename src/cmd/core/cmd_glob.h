/*
 * cmd_glob: Redis's glob-style pattern matching (stringmatchlen), for KEYS, SCAN MATCH, HSCAN,
 * PSUBSCRIBE, CONFIG GET, COMMAND LIST FILTERBY PATTERN and CLIENT KILL.
 */
#ifndef TERSE_CMD_GLOB_H
#define TERSE_CMD_GLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Glob match as Redis's stringmatchlen (*, ?, [...], \\ escapes). nocase: 1 to ignore case. */
int cmd_glob_match(const uint8_t *pat, size_t plen, const uint8_t *s, size_t slen, int nocase);

#endif /* TERSE_CMD_GLOB_H */
