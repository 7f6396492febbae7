/*
 * store: the keyspace of one shard.
 *
 * A shard owns n_db databases (SELECT 0..n_db-1). Each database maps a binary key to an entry:
 * the key bytes, the value (an int64, or a string in the codec's stored form, see
 * codec_value.h), an optional absolute expiry time and access metadata (LRU clock, LFU
 * counter). One thread only touches a shard.
 *
 * Entry pointers returned by lookups are borrowed: they stay valid until the next call that
 * may modify the shard (any store_* call that is not a lookup or an accessor, and the lazy
 * expiry a lookup itself performs on *another* key never happens: lookups only ever delete
 * the key they were asked for).
 *
 * Times are Unix milliseconds supplied by the caller (store never reads the clock), so tests
 * can drive expiry deterministically.
 */
#ifndef TERSE_STORE_H
#define TERSE_STORE_H

#include <stddef.h>
#include <stdint.h>

#define STORE_NO_EXPIRE (-1)   /* expire_ms: the key does not expire */
#define STORE_KEEP_TTL (-2)    /* store_set_*: keep the existing key's expiry */
#define STORE_DB_MAX 16384     /* largest n_db store_shard_create accepts */

enum store_type {
    STORE_TYPE_STRING = 0 /* other Redis types are appended later */
};

enum store_enc {
    STORE_ENC_INT = 0, /* string held as an int64 (INCR family, integer-looking SET) */
    STORE_ENC_STR = 1  /* string held in codec stored form */
};

struct store_shard;
struct store_entry;

/* Creates a shard with n_db databases (1..16384). TERSE_OK, TERSE_EINVAL, TERSE_ENOMEM. */
int store_shard_create(struct store_shard **out, int n_db);
/* Frees everything; *pp = NULL. NULL-safe. */
void store_shard_destroy(struct store_shard **pp);
int store_shard_n_db(const struct store_shard *s);

/* ---- lookups ---------------------------------------------------------------------------- */

enum store_lookup_flags {
    STORE_LOOKUP_TOUCH = 1 /* update the entry's LRU clock and LFU counter */
};

/*
 * Returns the live entry for key in db, or NULL. A key whose expiry is <= now_ms is deleted
 * (counted in expired_keys) and NULL is returned.
 */
struct store_entry *store_lookup(struct store_shard *s, int db, const void *key, size_t klen,
                                 int64_t now_ms, int flags);

/* ---- entry accessors (no side effects) --------------------------------------------------- */

const uint8_t *store_entry_key(const struct store_entry *e, size_t *klen);
enum store_type store_entry_type(const struct store_entry *e);
enum store_enc store_entry_enc(const struct store_entry *e);
int64_t store_entry_int(const struct store_entry *e);                   /* STORE_ENC_INT */
const uint8_t *store_entry_val(const struct store_entry *e, size_t *len); /* STORE_ENC_STR */
/* Mutable view of the stored bytes, for DEBUG CORRUPT-VALUE only. */
uint8_t *store_entry_val_mut(struct store_entry *e, size_t *len);
int64_t store_entry_expire(const struct store_entry *e); /* STORE_NO_EXPIRE or unix ms */
/* Seconds since the last touching access (OBJECT IDLETIME), given now_ms. */
uint64_t store_entry_idle_s(const struct store_entry *e, int64_t now_ms);
/* LFU logarithmic counter (OBJECT FREQ), decayed to now_ms. */
unsigned store_entry_freq(const struct store_entry *e, int64_t now_ms);
/* Bytes this entry occupies (allocator usable size), for MEMORY USAGE and accounting. */
size_t store_entry_mem(const struct store_entry *e);

/* ---- writes ------------------------------------------------------------------------------ */

/*
 * Sets key to a string value given in codec stored form (copied in), replacing any value.
 * expire_ms: STORE_NO_EXPIRE, STORE_KEEP_TTL, or an absolute unix ms time.
 * Returns TERSE_OK or TERSE_ENOMEM (the old value, if any, is then untouched).
 */
int store_set_str(struct store_shard *s, int db, const void *key, size_t klen, const void *stored,
                  size_t stored_len, int64_t expire_ms, int64_t now_ms);
/* Same, for an integer-encoded string. */
int store_set_int(struct store_shard *s, int db, const void *key, size_t klen, int64_t v,
                  int64_t expire_ms, int64_t now_ms);

/* Deletes key; returns 1 if it existed (and was live at now_ms), else 0. */
int store_delete(struct store_shard *s, int db, const void *key, size_t klen, int64_t now_ms);

/* Sets (when_ms >= 0) or removes (STORE_NO_EXPIRE) the expiry of an existing live key.
 * Returns 1 if the key exists, 0 if not. A when_ms <= now_ms is stored as given: the next
 * lookup deletes the key (the caller deletes immediately where Redis does). */
int store_expire_set(struct store_shard *s, int db, const void *key, size_t klen, int64_t when_ms,
                     int64_t now_ms);

/*
 * Moves the entry of src to dst (within db), replacing dst, keeping the expiry.
 * Returns TERSE_OK, TERSE_ENOTFOUND (no src), TERSE_ENOMEM.
 */
int store_rename(struct store_shard *s, int db, const void *src, size_t src_len, const void *dst,
                 size_t dst_len, int64_t now_ms);
/* Moves key from src_db to dst_db; TERSE_OK, TERSE_ENOTFOUND (no key in src_db),
 * TERSE_EINVAL (key already in dst_db), TERSE_ENOMEM. */
int store_move(struct store_shard *s, int src_db, int dst_db, const void *key, size_t klen,
               int64_t now_ms);
/* Copies src (in src_db) to dst (in dst_db), with its expiry. replace: overwrite dst.
 * TERSE_OK, TERSE_ENOTFOUND (no src), TERSE_EINVAL (dst exists and !replace), TERSE_ENOMEM. */
int store_copy(struct store_shard *s, int src_db, const void *src, size_t src_len, int dst_db,
               const void *dst, size_t dst_len, int replace, int64_t now_ms);

void store_flushdb(struct store_shard *s, int db);
void store_flushall(struct store_shard *s);
void store_swapdb(struct store_shard *s, int a, int b);

/* ---- iteration and sizes ----------------------------------------------------------------- */

size_t store_dbsize(const struct store_shard *s, int db);        /* keys, expired or not */
size_t store_db_n_expires(const struct store_shard *s, int db);  /* keys with an expiry */

/*
 * One SCAN step: calls fn for entries of db starting at cursor and returns the next cursor
 * (0 when the iteration is complete). Redis's guarantee holds across resizes: a key present
 * for the whole iteration is returned at least once. Visits at least `count` buckets' worth of
 * entries when there are that many. Expired entries are not reported. fn must not modify the
 * shard.
 */
uint64_t store_scan(struct store_shard *s, int db, uint64_t cursor, size_t count, int64_t now_ms,
                    void (*fn)(void *arg, const struct store_entry *e), void *arg);

/* A random live key of db, or NULL if db is empty. May delete expired keys it meets. */
struct store_entry *store_random(struct store_shard *s, int db, int64_t now_ms);

/*
 * Active expiry: one bounded step over all dbs, in the spirit of Redis's
 * activeExpireCycle: samples keys with an expiry, deletes the expired ones, repeats while more
 * than a quarter of a sample was expired, and stops after time_budget_us microseconds
 * (measured by the caller-supplied clock now_us_fn, NULL = stop after one sample per db).
 * Returns the number of keys deleted.
 */
size_t store_active_expire(struct store_shard *s, int64_t now_ms, uint64_t time_budget_us,
                           uint64_t (*now_us_fn)(void));

/* Work that must be done in bounded steps (incremental rehash): does up to n steps. */
void store_rehash_step(struct store_shard *s, int n);

struct store_stats {
    uint64_t expired_keys;  /* deleted because of their expiry, lazily or actively */
    uint64_t n_keys;        /* over all dbs */
    uint64_t entry_bytes;   /* usable bytes of all entries */
    uint64_t index_bytes;   /* bytes of the index tables */
    uint64_t value_bytes;   /* stored bytes of string values (after compression) */
};
void store_stats_get(const struct store_shard *s, struct store_stats *out);

#endif /* TERSE_STORE_H */
