/*
 * cmd_zset_form: the steps the sorted-set commands share: read a zset (decoded into scratch),
 * find a member, decide the encoding Redis would give (listpack or skiplist), store a new
 * form, and reply elements with or without scores.
 */
#ifndef TERSE_CMD_ZSET_FORM_H
#define TERSE_CMD_ZSET_FORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_zset.h"

/* OBJECT ENCODING of the zset e: "skiplist" once a write converted it or a load found it past
 * the limits (the entry's raw mark), else "listpack". */
const char *cmd_zset_encoding(const struct store_entry *e);

/* Whether e (NULL: no) is a skiplist to Redis: the raw mark, or held in chunks. */
bool cmd_zset_entry_is_table(const struct store_entry *e);

/* Whether Redis 7.0 would hold a zset of n members, the longest maxlen bytes, as a skiplist
 * (more than zset-max-listpack-entries, or a member longer than zset-max-listpack-value). */
bool cmd_zset_is_table(const struct cmd_server *srv, size_t n, size_t maxlen);

/* The same decision for a form, as a load makes it: 1, 0, or TERSE_ECORRUPT. */
int cmd_zset_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len);

/*
 * The zset at key (for_write: no hit/miss counted, no access recorded): *e NULL when missing
 * (*n 0), else its elements in *a (scratch3, room for extra more after them), *n of them.
 * Returns 0 to go on, -1 when it replied (WRONGTYPE, CORRUPT, an error for a status).
 */
int cmd_zset_read(struct cmd_call *c, const struct resp_slice *key, int for_write, size_t extra,
                  const struct store_entry **e, struct store_zset_el **a, size_t *n);

/* Decodes the form (len bytes, decoded from key's value; NULL, 0 for none) into *a in scratch3
 * as cmd_zset_read does. 0, or -1 when it replied (CORRUPT, an error for a status). */
int cmd_zset_decode_or_reply(struct cmd_call *c, const struct resp_slice *key,
                             const uint8_t *form, size_t len, size_t extra,
                             struct store_zset_el **a, size_t *n);

/*
 * Stores a[0..n) (store_zset_cmp order, distinct members) as key's zset in the client's db,
 * keeping any expiry; n == 0 deletes the key. table: the encoding mark (cmd_zset_encoding);
 * when false a score of -0 becomes 0, as Redis's listpack stores it (an integer 0), while a
 * skiplist keeps the sign.
 * a may point into scratch and scratch3, not scratch2. TERSE_OK or a status for
 * cmd_value_reply_bad.
 */
int cmd_zset_commit(struct cmd_call *c, const struct resp_slice *key, struct store_zset_el *a,
                    size_t n, bool table);

/* The index of the member m (mlen bytes) in a[0..n), or n when absent: a linear look. */
size_t cmd_zset_find(const struct store_zset_el *a, size_t n, const uint8_t *m, size_t mlen);

/* The longest member of a[0..n), in bytes (for cmd_zset_is_table). */
size_t cmd_zset_max_len(const struct store_zset_el *a, size_t n);

/* Replies a[0..n) as an array, in order or reversed (rev), members alone or each with its
 * score (RESP2: flat; RESP3: a pair of its own, the score a double), as ZRANGE does. */
void cmd_zset_reply_els(struct cmd_call *c, const struct store_zset_el *a, size_t n, bool rev,
                        bool withscores);

/* A score argument (argv[argi]) as Redis's getDoubleFromObjectOrReply: 0, or -1 when it
 * replied err (NULL: "ERR value is not a valid float"). */
int cmd_zset_score_or_reply(struct cmd_call *c, size_t argi, double *out, const char *err);

#endif /* TERSE_CMD_ZSET_FORM_H */
