/*
 * cmd_util: helpers shared by the command families: Redis-exact number parsing and
 * formatting, the one place statuses become RESP errors, glob matching, and key lookups. The
 * value path (encode on write, decode on read, straight into the reply) is cmd_value.h.
 */
#ifndef TERSE_CMD_UTIL_H
#define TERSE_CMD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"

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
/* Formats a zset score as Redis's "%.17g" (inf, -inf, -0 as such). Returns the length; buf
 * needs CMD_SCORE_STR_MAX bytes. */
#define CMD_SCORE_STR_MAX 32
size_t cmd_format_score(char *buf, double d);
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

/* Glob match as Redis's stringmatchlen (*, ?, [...], \\ escapes). nocase: 1 to ignore case. */
int cmd_glob_match(const uint8_t *pat, size_t plen, const uint8_t *s, size_t slen, int nocase);

/* The shard owning key (one shard in this version, reached only through this call). */
struct store_shard *cmd_shard(struct cmd_call *c, const uint8_t *key, size_t klen);

/* ---- lookups ----------------------------------------------------------------------------- */

/*
 * Looks a string key up in the client's db. Returns the entry or NULL; with replied non-NULL,
 * an entry of another type makes it reply WRONGTYPE, set *replied = 1 and return NULL.
 */
struct store_entry *cmd_lookup_read(struct cmd_call *c, const struct resp_slice *key,
                                    int *replied);
/* Same, for a write: no hit/miss counting, no LRU touch. */
struct store_entry *cmd_lookup_write(struct cmd_call *c, const struct resp_slice *key,
                                     int *replied);
/* The two lookups for a key wanted of another type (a hash). */
struct store_entry *cmd_lookup_read_type(struct cmd_call *c, const struct resp_slice *key,
                                         enum store_type type, int *replied);
struct store_entry *cmd_lookup_write_type(struct cmd_call *c, const struct resp_slice *key,
                                          enum store_type type, int *replied);

/* 1 when the slice holds exactly the C string str (NULL: the empty string). */
int cmd_slice_eq(const struct resp_slice *s, const char *str);

/* Grows the array *p of *cap units of size bytes each (contents kept, from srv's allocator) to
 * hold at least want units: doubling from at least min. TERSE_OK or TERSE_ENOMEM (unchanged).
 * For the arrays a command keeps across calls (MULTI's queue, blocked keys) or builds (SORT). */
int cmd_grow(struct cmd_server *srv, void **p, size_t *cap, size_t want, size_t size,
             size_t min);

/* Rewrites for the write feed (cmd_feed.c). */
/* Arguments of a rewrite: a C string (static), a number printed into buf (CMD_FEED_NUM). */
#define CMD_FEED_NUM 24
struct resp_slice cmd_feed_str(const char *s);
struct resp_slice cmd_feed_ll(char buf[CMD_FEED_NUM], long long v);
/* Room for n arguments of a rewrite, owned by the feed and reused (valid until the next
 * call); NULL when it cannot grow (the unit is then reported lost). */
struct resp_slice *cmd_feed_argv(struct cmd_server *srv, size_t n);
/* Drops the ops recorded since the feed held n_ops of them (a write that failed after
 * recording what it took). */
void cmd_feed_undo(struct cmd_server *srv, size_t n_ops);
/* Feeds "DEL key" in place of the command (GETDEL, an expiry in the past). */
void cmd_feed_rewrite_del(struct cmd_call *c, const struct resp_slice *key);
/* Feeds "PEXPIREAT key when_ms" in place of the command (EXPIRE family, GETEX). */
void cmd_feed_rewrite_pexpireat(struct cmd_call *c, const struct resp_slice *key,
                                int64_t when_ms);

#endif /* TERSE_CMD_UTIL_H */
