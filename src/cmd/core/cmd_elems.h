/*
 * cmd_elems: the element-walking helpers the hash and set families share. A set is held as a
 * hash form whose values are empty (store_hash.h), so every walk over "the elements of the
 * container at argv[1]" is one walk: HLEN and SCARD, HGETALL/HKEYS/HVALS and SMEMBERS, HSCAN
 * and SSCAN, HRANDFIELD and SRANDMEMBER, the encoding decision on load. A hash's element is a
 * field and its value, a set's a member (the field; its value is empty and never replied).
 *
 * Every handler here reads argv[1] as its key through cmd_value_read_form, so the form lives
 * in the server's scratch (cmd_value.h) for the call only; nothing is allocated per request
 * once the scratches have grown. Everything runs on the worker thread that owns the shard.
 */
#ifndef TERSE_CMD_ELEMS_H
#define TERSE_CMD_ELEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_hash.h"

/* Withdraws a reply begun at output offset mark and answers status for argv[1] instead (the
 * CORRUPT error for a bad form: cmd_value_reply_bad). */
void cmd_elems_withdraw(struct cmd_call *c, size_t mark, int status);

/*
 * The arguments from argv[first] as elements for store_hash_edit, an array in scratch3 (valid
 * until the next scratch3 reserve; the slices borrow the request): field and value pairs when
 * with_values (an odd last argument is left out), else fields with empty values (set members,
 * fields to delete). *n gets the count. NULL when scratch3 cannot grow.
 */
struct store_hash_kv *cmd_elems_from_args(struct cmd_call *c, size_t first, bool with_values,
                                          size_t *n);

/*
 * Opens the form (len bytes) of the container at argv[1], which exists and so holds an
 * element at least: 0 with *it and *n (n >= 1), or -1 when it replied the CORRUPT error (a
 * form that does not open, or opens empty).
 */
int cmd_elems_open_or_reply(struct cmd_call *c, const uint8_t *form, size_t len,
                            struct store_hash_it *it, uint64_t *n);

/*
 * Whether Redis would hold the container of this form as a hashtable when it loads one: more
 * than max_entries elements, or an element for which too_big (given srv) says its compact
 * encoding cannot hold it. 1, 0, or TERSE_ECORRUPT.
 */
int cmd_elems_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len,
                            long long max_entries,
                            bool (*too_big)(const struct cmd_server *srv,
                                            const struct store_hash_kv *kv));

/* What a scan or a random pick replies of each element beside its field or member. */
enum cmd_elems_val {
    CMD_ELEMS_VAL_NONE = 0,  /* nothing (a set's members) */
    CMD_ELEMS_VAL_BULK = 1,  /* the value's bytes as a bulk (a hash's values) */
    CMD_ELEMS_VAL_SCORE = 2  /* a zset's score (store_zset.h): a double (RESP3 ,), in a scan a
                                bulk of its text (%.17g), as Redis's ZSCAN spells it */
};

/* HLEN, SCARD, ZCARD key: the element count of the container of type at argv[1] (0 when
 * missing). */
void cmd_elems_card(struct cmd_call *c, enum store_type type);

/* HMGET (with_values), SMISMEMBER key element [element ...]: for each argument from argv[2], in
 * order, its value or null (with_values), else 1 or 0 as it is there or not. */
void cmd_elems_find_each(struct cmd_call *c, enum store_type type, bool with_values);

/* What cmd_elems_all replies of each element, and under which header. */
enum cmd_elems_all_kind {
    CMD_ELEMS_ALL_PAIRS = 0,  /* field, value: a map (HGETALL) */
    CMD_ELEMS_ALL_FIELDS = 1, /* fields: an array (HKEYS) */
    CMD_ELEMS_ALL_VALUES = 2, /* values: an array (HVALS) */
    CMD_ELEMS_ALL_MEMBERS = 3 /* fields: a set, RESP3 ~ (SMEMBERS) */
};

/* HGETALL, HKEYS, HVALS, SMEMBERS key: every element of the container of type at argv[1], in
 * the form's order. */
void cmd_elems_all(struct cmd_call *c, enum store_type type, enum cmd_elems_all_kind kind);

/*
 * HSCAN, SSCAN key cursor [MATCH pattern] [COUNT count] on the container of type at argv[1].
 * A container is one block, so one call returns every element (cursor 0), as Redis does for
 * a listpack or an intset; the guarantee that an element present for the whole iteration is
 * returned holds trivially. As in Redis the cursor is parsed first, then the key looked up (a
 * missing key answers an empty scan whatever the options), then the options. vals: what
 * follows each matching field (HSCAN its value, ZSCAN its score).
 */
void cmd_elems_scan(struct cmd_call *c, enum store_type type, enum cmd_elems_val vals);

/* A scan's value: its bytes, or a zset's score as Redis's scan spells it (a bulk, %.17g). */
void cmd_elems_write_scan_value(struct cmd_call *c, const struct store_hash_kv *kv,
                                enum cmd_elems_val vals);

/* One random pick: the field, or the field and its value (a pair of its own in RESP3; a
 * zset's score a double). */
void cmd_elems_write_pick(struct cmd_call *c, const struct store_hash_kv *kv,
                          enum cmd_elems_val vals);

/* The count of HRANDFIELD or SRANDMEMBER at argv[argi] into *count: 0, or -1 when it replied
 * (not an integer, or LLONG_MIN, whose negation, the number of picks, Redis refuses). */
int cmd_elems_rand_count_or_reply(struct cmd_call *c, size_t argi, long long *count);

/* The arguments of HRANDFIELD and ZRANDMEMBER key [count [with_word]] (with_word "withvalues"
 * or "withscores"): *count (left as it is when not given) and *with. 0, or -1 when it replied
 * (Redis's order: the count, the syntax, then with the option a count whose doubled reply
 * would not fit). */
int cmd_elems_rand_args_or_reply(struct cmd_call *c, const char *with_word, long long *count,
                                 bool *with);

/* The arguments of LMPOP and ZMPOP numkeys key [key ...] end_a|end_b [COUNT count] (end_a,
 * end_b: "left", "right" or "min", "max"), numkeys at argv[at] (1; 2 after BLMPOP's and
 * BZMPOP's timeout): *nkeys (the keys from argv[at + 1]), *is_a (end_a was given) and *count
 * (1 when not given). 0, or -1 when it replied, with Redis's texts and order: numkeys, the
 * end, then the options (COUNT once). */
int cmd_elems_mpop_args_or_reply(struct cmd_call *c, size_t at, const char *end_a,
                                 const char *end_b, size_t *nkeys, bool *is_a, long long *count);

/* The answer of HRANDFIELD or SRANDMEMBER when there is nothing to pick: an empty array when
 * a count was given (with_count), else null. */
void cmd_elems_rand_reply_none(struct cmd_call *c, bool with_count);

/*
 * Answers random elements of the form (len bytes, n >= 1 elements, opened by
 * cmd_elems_open_or_reply) of the container at argv[1]: one field as a bulk when single;
 * else -count picks with repetition when count < 0, min(count, n) distinct picks in the form's
 * order when count >= 0, as an array. vals: each pick is the field and its value or score (a
 * pair of its own in RESP3). Picks with repetition have no natural bound: past
 * CMD_ELEMS_RAND_REPLY_MAX reply bytes the reply is withdrawn for err_too_big. A corrupt form
 * withdraws the reply for the CORRUPT error.
 */
#define CMD_ELEMS_RAND_REPLY_MAX ((size_t)1 << 30)
void cmd_elems_rand_reply(struct cmd_call *c, const uint8_t *form, size_t len, uint64_t n,
                          bool single, long long count, enum cmd_elems_val vals,
                          const char *err_too_big);

#endif /* TERSE_CMD_ELEMS_H */
