/*
 * cmd_util: helpers shared by the command families: Redis-exact number parsing and
 * formatting, the one place statuses become RESP errors, glob matching, and key lookups. The
 * value path (encode on write, decode on read, straight into the reply) is cmd_value.h.
 */
#ifndef TERSE_CMD_UTIL_H
#define TERSE_CMD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

/* Redis's error texts, written through cmd_reply_err. */
#define CMD_ERR_SYNTAX "ERR syntax error"
#define CMD_ERR_NOT_INT "ERR value is not an integer or out of range"
#define CMD_ERR_NOT_FLOAT "ERR value is not a valid float"
#define CMD_ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define CMD_ERR_NO_KEY "ERR no such key"
#define CMD_ERR_OVERFLOW "ERR increment or decrement would overflow"
#define CMD_ERR_NAN_INF "ERR increment would produce NaN or Infinity"
#define CMD_ERR_DB_INDEX "ERR DB index is out of range"
#define CMD_ERR_OOM "OOM command not allowed when used memory > 'maxmemory'."
#define CMD_ERR_MISCONF                                                                          \
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "  \
    "to disk. Commands that may modify the data set are disabled, because this instance is "    \
    "configured to report errors during writes if RDB snapshotting fails "                       \
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the "  \
    "RDB error."
#define CMD_ERR_STRING_TOO_LONG "ERR string exceeds maximum allowed size (proto-max-bulk-len)"

/* Parses a whole slice as a long long exactly as Redis's string2ll (no spaces, no '+', no
 * leading zeros, within range). Returns 1 on success, 0 otherwise. */
int cmd_parse_ll(const uint8_t *p, size_t len, long long *out);
/* Parses a whole slice as a long double as Redis's string2ld (strtold, no spaces, not NaN; an
 * embedded NUL, where strtold would stop and take "1\0x" for 1, is refused). 1 or 0. */
int cmd_parse_ld(const uint8_t *p, size_t len, long double *out);
/* Parses a whole slice as a double as Redis's string2d (strtod: no leading space, nothing
 * left over, not NaN, no overflow nor underflow to zero; "inf" and "-inf" are accepted).
 * Slices of CMD_LD_STR_MAX bytes or more are refused. 1 or 0. */
int cmd_parse_double(const uint8_t *p, size_t len, double *out);
/* Formats v as Redis does for INCRBYFLOAT results (%.17Lg, humanfriendly). Returns length;
 * buf needs CMD_LD_STR_MAX bytes. */
#define CMD_LD_STR_MAX 5120
size_t cmd_format_ld(char *buf, size_t cap, long double v);
/* Decimal of v into buf (21 bytes suffice); returns length. */
size_t cmd_format_ll(char *buf, long long v);

/* Argument helpers that reply the error and return nonzero on failure. */
int cmd_ll_or_reply(struct cmd_call *c, size_t argi, long long *out, const char *err);
int cmd_ld_or_reply(struct cmd_call *c, size_t argi, long double *out, const char *err);

/* *v += incr for INCRBY and HINCRBY: 0, or -1 when the sum would leave long long's range
 * (replied CMD_ERR_OVERFLOW, *v unchanged). */
int cmd_ll_add_or_reply(struct cmd_call *c, long long *v, long long incr);
/* *v += incr for INCRBYFLOAT and HINCRBYFLOAT: 0, or -1 when the sum is NaN or infinite
 * (replied CMD_ERR_NAN_INF). */
int cmd_ld_add_or_reply(struct cmd_call *c, long double *v, long double incr);

/* Case-insensitive comparison of argument argi with a lowercase C string. */
int cmd_arg_is(const struct cmd_call *c, size_t argi, const char *lower);

/* The one place statuses become RESP errors (ENOMEM, EOOM, ETOOBIG, ECORRUPT...). */
void cmd_reply_status(struct cmd_call *c, int status);
void cmd_reply_err(struct cmd_call *c, const char *msg);
/* "-CORRUPT value of key '<key>' failed its checksum..." and counts/logs it. */
void cmd_reply_corrupt(struct cmd_call *c, const uint8_t *key, size_t klen);

/* 1 when the slice holds exactly the C string str (NULL: the empty string). */
int cmd_slice_eq(const struct resp_slice *s, const char *str);

/* Grows the array *p of *cap units of size bytes each (contents kept, from srv's allocator) to
 * hold at least want units: doubling from at least min. TERSE_OK or TERSE_ENOMEM (unchanged).
 * For the arrays a command keeps across calls (MULTI's queue, blocked keys) or builds (SORT). */
int cmd_grow(struct cmd_server *srv, void **p, size_t *cap, size_t want, size_t size,
             size_t min);

/* Counts an error reply of code (its first word) for INFO stats and errorstats: the
 * resp_out on_error hook server/ installs on every client's output (arg: the cmd_server). */
void cmd_count_error(void *srv, const char *code, size_t len);

/* A SCAN-family cursor parsed as Redis's strtoull does (sign wraps, no overflow, empty is 0);
 * 1 on success, 0 for CMD_SCAN_ERR_CURSOR. HSCAN takes the same. */
#define CMD_SCAN_ERR_CURSOR "ERR invalid cursor"
int cmd_scan_parse_cursor(const uint8_t *p, size_t len, uint64_t *out);

#endif /* TERSE_CMD_UTIL_H */
