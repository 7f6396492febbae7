/*
 * cmd_value: the value path shared by the command families: encode on write, decode on read
 * (straight into the reply), and the server's scratch buffers they compose values in.
 * Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_VALUE_H
#define TERSE_CMD_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

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
 * value into a raw string); CMD_VALUE_STR keeps them a string without the mark (INCRBYFLOAT:
 * Redis stores its result as an embstr, integral or not). Encodes into scratch2, so p must not
 * point into scratch2. */
#define CMD_VALUE_RAW 1u
#define CMD_VALUE_STR 2u
int cmd_value_store(struct cmd_call *c, int db, const struct resp_slice *key, const uint8_t *p,
                    size_t len, int64_t expire_ms, unsigned opts);

/* ---- hashes, lists and sets: one value each (store.h, enum store_type) ---------------------- */

/*
 * The key of the given type for a command: *e NULL when it is missing (a read counts a
 * keyspace miss), else its byte form decoded into scratch (*form, *len: valid until the next
 * scratch reserve), or, for a chunked container (store_entry_enc STORE_ENC_COLL), no form
 * (*form NULL): the caller works through the container's engine. A read records the access; a write does not. Returns 0 to go on, -1 when
 * it already replied (WRONGTYPE, or the CORRUPT error for a value that fails its checksum).
 */
int cmd_value_read_form(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                        int for_write, const struct store_entry **e, const uint8_t **form,
                        size_t *len);

/* ---- chunked containers, whatever their type (coll/coll_form.h) ------------------------- */

struct coll;

/* co's whole form in scratch (the O(n) readers: SORT, the algebra, ZRANDMEMBER of everything):
 * *form, *len. TERSE_OK or a status. */
int cmd_coll_whole(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                   const uint8_t **form, size_t *len);

/* co stored as key's value in the client's db, keeping its expiry; on failure co is freed.
 * TERSE_OK or a status (nothing changed). */
int cmd_coll_store(struct cmd_call *c, const struct resp_slice *key, struct coll *co);

/* After a chunked container lost elements: deletes the key when it is empty (c->emptied);
 * when small (the caller's measure against its type's chunk shape) makes it one value of
 * type again, stored with flags (STORE_SET_RAW: still a table to Redis), through scratch2;
 * else tells the store of the edit. TERSE_OK or a status. */
int cmd_coll_settle(struct cmd_call *c, const struct resp_slice *key, enum store_type type,
                    struct coll *co, bool small, unsigned flags);

/*
 * Stores the byte form in scratch2 (len bytes) as key's value of the given type in db, keeping
 * any expiry: encodes it into scratch (inline LZ4 above CODEC_RAW_MAX unless terse-compression
 * is off; the background pass is for strings), then store_set_value with flags. TERSE_OK, or a
 * status for cmd_value_reply_bad.
 */
int cmd_value_store_form(struct cmd_call *c, int db, const struct resp_slice *key,
                         enum store_type type, size_t len, unsigned flags);

/* Replies a status met on key's value: the CORRUPT error (counted, logged) for TERSE_ECORRUPT,
 * a too-large error for TERSE_ETOOBIG, else cmd_reply_status. */
void cmd_value_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status);

/* Grows the server's scratch (or scratch2) to at least n bytes. TERSE_OK or TERSE_ENOMEM.
 * Callers must not hold a pointer from cmd_value_get across a scratch_reserve. */
int cmd_scratch_reserve(struct cmd_server *srv, size_t n);

int cmd_scratch2_reserve(struct cmd_server *srv, size_t n);
/* The third scratch (cmd_server.scratch3), for arrays: independent of the other two. */
int cmd_scratch3_reserve(struct cmd_server *srv, size_t n);

/* 1 when maxmemory is set and used_memory is within a span's size of it: background
 * compression waits (it may open a span before it frees one) and writes compress inline. */
int cmd_memory_near_limit(const struct cmd_server *srv);

#endif /* TERSE_CMD_VALUE_H */
