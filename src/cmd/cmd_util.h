/*
 * cmd_util: helpers shared by the command families: Redis-exact number parsing and
 * formatting, the one place statuses become RESP errors, glob matching, and the value path
 * (encode on write, decode on read, straight into the reply).
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
#define CMD_ERR_DB_INDEX "ERR DB index is out of range"
#define CMD_ERR_OOM "OOM command not allowed when used memory > 'maxmemory'."
#define CMD_ERR_STRING_TOO_LONG "ERR string exceeds maximum allowed size (proto-max-bulk-len)"

/* Parses a whole slice as a long long exactly as Redis's string2ll (no spaces, no '+', no
 * leading zeros, within range). Returns 1 on success, 0 otherwise. */
int cmd_parse_ll(const uint8_t *p, size_t len, long long *out);
/* Parses a long double as Redis's string2ld (strtold, no spaces, not NaN). 1 or 0. */
int cmd_parse_ld(const uint8_t *p, size_t len, long double *out);
/* Formats v as Redis does for INCRBYFLOAT results (%.17Lg, humanfriendly). Returns length;
 * buf needs CMD_LD_STR_MAX bytes. */
#define CMD_LD_STR_MAX 5120
size_t cmd_format_ld(char *buf, size_t cap, long double v);
/* Decimal of v into buf (21 bytes suffice); returns length. */
size_t cmd_format_ll(char *buf, long long v);

/* Argument helpers that reply the error and return nonzero on failure. */
int cmd_ll_or_reply(struct cmd_call *c, size_t argi, long long *out, const char *err);
int cmd_ld_or_reply(struct cmd_call *c, size_t argi, long double *out, const char *err);

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

/* ---- values ------------------------------------------------------------------------------ */

/*
 * Looks key up in the client's db. Returns the entry or NULL; with want_string, an entry of
 * another type makes it reply WRONGTYPE, set *replied = 1 and return NULL.
 */
struct store_entry *cmd_lookup_read(struct cmd_call *c, const struct resp_slice *key,
                                    int *replied);
/* Same, for a write: no hit/miss counting, no LRU touch. */
struct store_entry *cmd_lookup_write(struct cmd_call *c, const struct resp_slice *key,
                                     int *replied);

/* The original length of a string entry (cheap: header only). TERSE_OK or TERSE_ECORRUPT. */
int cmd_value_len(struct cmd_call *c, const struct store_entry *e, size_t *len);

/*
 * Decodes a string entry into the server's scratch buffer (or formats its integer).
 * *p is valid until the next cmd_value_* call or scratch reserve. TERSE_OK, TERSE_ENOMEM,
 * TERSE_ECORRUPT (not counted here: the caller replies with cmd_reply_corrupt, which counts).
 * The caller may compose a new value in scratch and hand it to cmd_value_set, which encodes
 * into scratch2; reserving scratch never disturbs scratch2 and the other way round.
 */
int cmd_value_get(struct cmd_call *c, const struct store_entry *e, const uint8_t **p,
                  size_t *len);

/*
 * Replies the value of a string entry as a bulk string, decoding straight into the output
 * buffer. On corruption, replies the CORRUPT error instead (nothing of the value is sent); the
 * reply starts with '-' exactly then. A handler may truncate out->len back to a mark it saved
 * before, to withdraw a reply it has not finished.
 */
void cmd_reply_value(struct cmd_call *c, const struct store_entry *e, const struct resp_slice *key);

/*
 * Stores a string value for key in the client's db: an integer-looking value (as Redis's
 * string2ll, at most 20 bytes) is held as an int, anything else goes through the codec.
 * expire_ms as store_set_str. TERSE_OK, TERSE_ENOMEM, TERSE_ETOOBIG, TERSE_EOOM.
 */
int cmd_value_set(struct cmd_call *c, const struct resp_slice *key, const uint8_t *p, size_t len,
                  int64_t expire_ms);
int cmd_value_set_db(struct cmd_call *c, int db, const struct resp_slice *key, const uint8_t *p,
                     size_t len, int64_t expire_ms);

/* cmd_value_set_db with options: CMD_VALUE_RAW keeps the bytes a string even when they look
 * like an integer, and marks it "raw" for OBJECT ENCODING (APPEND, SETRANGE: Redis turns the
 * value into a raw string). Encodes into scratch2, so p must not point into scratch2. */
#define CMD_VALUE_RAW 1u
int cmd_value_store(struct cmd_call *c, int db, const struct resp_slice *key, const uint8_t *p,
                    size_t len, int64_t expire_ms, unsigned opts);

/* Grows the server's scratch (or scratch2) to at least n bytes. TERSE_OK or TERSE_ENOMEM.
 * Callers must not hold a pointer from cmd_value_get across a scratch_reserve. */
int cmd_scratch_reserve(struct cmd_server *srv, size_t n);

int cmd_scratch2_reserve(struct cmd_server *srv, size_t n);

#endif /* TERSE_CMD_UTIL_H */
