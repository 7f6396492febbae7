/*
 * store_internal: layouts and helpers shared by the store_*.c files; nothing outside store/
 * includes this header.
 *
 * Entry (one core_alloc block per key):
 *
 *     0        8         12        16         20      22     23     24
 *     +--------+---------+---------+----------+-------+------+------+------------------------+
 *     | next   | klen    | vlen    | clock    | ldt   | meta | pad  | [expire_ms] key value  |
 *     | ptr    | u32     | u32     | lru|lfu  | u16   | u8   | u8   | (int64, only if        |
 *     |        |         |         | u32      |       |      |      |  STORE_META_EXPIRE)    |
 *     +--------+---------+---------+----------+-------+------+------+------------------------+
 *
 *   next     next entry in the same index bucket (chaining), NULL at the end
 *   klen     key bytes
 *   vlen     value bytes: the stored length of a STORE_ENC_STR value, 8 for STORE_ENC_INT
 *   clock    low 24 bits: LRU clock in seconds (mod 2^24); high 8 bits: LFU log counter
 *   ldt      LFU last decrement time, minutes mod 2^16
 *   meta     bits 0-3 type, bits 4-5 encoding, bit 6 "has expiry", bit 7 "raw" (modified
 *            in place by APPEND/SETRANGE, which Redis always reports as encoding "raw")
 *   data     the optional expiry (unaligned-safe: always read with memcpy), then the key,
 *            then the value (an int64 in host order for ENC_INT, codec stored bytes for ENC_STR)
 *
 * So the fixed header is STORE_ENTRY_HDR (24) bytes, 32 with an expiry, plus one 8-byte bucket
 * pointer in the index per key at load factor 1 (between 1/8 and 1 between resizes).
 *
 * Index (one per db): two power-of-two tables of bucket heads. tab[0] is the live table;
 * while a resize is in progress (rehash_idx >= 0) tab[1] is the new one and buckets
 * tab[0][0 .. rehash_idx-1] are already empty. Inserts go to tab[1] during a rehash, lookups
 * look in both. The reverse-binary SCAN cursor works over any sequence of power-of-two
 * resizes (see store_index.c).
 */
#ifndef TERSE_STORE_INTERNAL_H
#define TERSE_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define STORE_ENTRY_HDR 24u
#define STORE_META_TYPE_MASK 0x0fu
#define STORE_META_ENC_SHIFT 4
#define STORE_META_ENC_MASK 0x30u
#define STORE_META_EXPIRE 0x40u
#define STORE_META_RAW 0x80u /* string written by APPEND/SETRANGE: OBJECT ENCODING "raw" */

#define STORE_LRU_BITS 24
#define STORE_LRU_MAX ((1u << STORE_LRU_BITS) - 1)
#define STORE_LFU_INIT 5u       /* counter of a new key, as Redis's LFU_INIT_VAL */
#define STORE_LFU_LOG_FACTOR 10 /* Redis lfu-log-factor default */
#define STORE_LFU_DECAY_MIN 1   /* Redis lfu-decay-time default, minutes */

#define STORE_TABLE_MIN 4u         /* smallest table, buckets */
#define STORE_SHRINK_RATIO 8u      /* shrink when n_keys * ratio < buckets */
#define STORE_FORCE_GROW_RATIO 8u  /* past this load a failed grow fails the write */
#define STORE_REHASH_EMPTY_VISITS 10 /* empty buckets a rehash step may skip per move */

struct store_entry {
    struct store_entry *next; /* bucket chain; NULL terminates */
    uint32_t klen;            /* key bytes */
    uint32_t vlen;            /* value bytes (8 for ENC_INT) */
    uint32_t clock;           /* lru seconds (24 low bits) | lfu counter (8 high bits) */
    uint16_t ldt;             /* LFU last decrement time, minutes mod 2^16 */
    uint8_t meta;             /* type, encoding, STORE_META_EXPIRE */
    uint8_t pad;              /* zero; keeps the data 8-aligned */
    unsigned char data[];     /* [int64 expire_ms] key value */
};

struct store_table {
    struct store_entry **slot; /* bucket heads; NULL when size is 0 */
    uint64_t size;             /* buckets, 0 or a power of two */
};

struct store_db {
    struct store_table tab[2]; /* see the header comment */
    int64_t rehash_idx;        /* next tab[0] bucket to move, -1 when not rehashing */
    size_t n_keys;             /* entries in tab[0] + tab[1], expired or not */
    size_t n_expires;          /* entries with STORE_META_EXPIRE */
    uint64_t expire_cursor;    /* active-expiry scan cursor over this db */
};

/* One remembered eviction candidate (store_evict.c). The key is copied (up to
 * STORE_EVICT_KEY_CAP bytes; a longer key is found again by its hash, length and prefix), so
 * a candidate never points into an entry that may have been freed or moved since. */
#define STORE_EVICT_POOL 16     /* candidates kept across calls, as Redis's EVPOOL_SIZE */
#define STORE_EVICT_KEY_CAP 64  /* key bytes copied into a candidate */
struct store_evict_cand {
    uint64_t score; /* higher = better to evict; the pool is sorted ascending */
    uint64_t hash;  /* store_hash of the whole key */
    uint32_t klen;  /* the whole key's length */
    int db;         /* database index */
    uint8_t key[STORE_EVICT_KEY_CAP]; /* the first min(klen, cap) key bytes */
};

struct store_shard {
    struct store_db *db;    /* n_db of them */
    int n_db;               /* 1..STORE_DB_MAX */
    int expire_db_next;     /* db where the next active-expire call starts */
    uint64_t seed;          /* hash seed, fixed for the shard's life */
    uint64_t rng;           /* xorshift state for random keys and LFU; never 0 */
    uint64_t expired_keys;  /* see struct store_stats */
    uint64_t n_keys;        /* sum of db[].n_keys */
    uint64_t entry_bytes;   /* sum of core_mem_usable() of entries */
    uint64_t index_bytes;   /* sum of core_mem_usable() of tables */
    uint64_t value_bytes;   /* sum of vlen of ENC_STR entries */
    uint64_t evicted_keys;  /* see struct store_stats */
    int evict_db_next;      /* db the next random eviction starts from */
    int n_pool;             /* candidates in pool[0 .. n_pool-1], sorted by score */
    struct store_evict_cand pool[STORE_EVICT_POOL];
};

/* ---- store_entry.c ---- */

/* Bytes an entry with these lengths needs (before allocator rounding). */
size_t store_entry_size(size_t klen, size_t vlen, bool has_expire);
/* Allocates and fills an entry (next = NULL, fresh LRU/LFU at now_ms); NULL on ENOMEM. */
struct store_entry *store_entry_make(const void *key, uint32_t klen, enum store_enc enc,
                                     const void *val, uint32_t vlen, int64_t expire_ms,
                                     int64_t now_ms);
/* A copy of src under another key (expiry, value and access metadata kept); NULL on ENOMEM. */
struct store_entry *store_entry_clone(const struct store_entry *src, const void *key,
                                      uint32_t klen);
/* Rewrites e in place for a new value (same key); the caller checked it fits. */
void store_entry_rewrite(struct store_entry *e, enum store_enc enc, const void *val,
                         uint32_t vlen, int64_t expire_ms);
/* Points at the value bytes (ENC_INT: the 8 bytes of the int64). */
unsigned char *store_entry_valp(struct store_entry *e);
/* Sets the expiry of an entry that has room for it (has one already, or slack). */
void store_entry_expire_put(struct store_entry *e, int64_t expire_ms);
bool store_entry_expired(const struct store_entry *e, int64_t now_ms);
/* LFU counter of e decayed to now_ms at one point per decay_min minutes (0: no decay). */
unsigned store_entry_lfu_at(const struct store_entry *e, int64_t now_ms, int decay_min);
void store_entry_touch(struct store_shard *s, struct store_entry *e, int64_t now_ms);
uint32_t store_clock_lru(int64_t now_ms);
uint16_t store_clock_ldt(int64_t now_ms);
uint64_t store_rng_next(struct store_shard *s);

/* ---- store_index.c ---- */

uint64_t store_hash(const struct store_shard *s, const void *key, size_t klen);
/* The link (bucket head or a predecessor's next) that points at key's entry, or NULL. */
struct store_entry **store_index_find(const struct store_shard *s, struct store_db *d,
                                      const void *key, size_t klen);
/* Like store_index_find for a precomputed hash h, matching entries with eq(e, arg). */
struct store_entry **store_index_find_h(struct store_db *d, uint64_t h,
                                        bool (*eq)(const struct store_entry *e, void *arg),
                                        void *arg);
/* Collects up to n entries (only ones with an expiry when volatile_only) from consecutive
 * buckets starting at a random one, visiting at most max_buckets buckets; returns how many.
 * The pointers are borrowed until the shard is next modified. */
size_t store_index_sample(struct store_shard *s, struct store_db *d, struct store_entry **out,
                          size_t n, bool volatile_only, size_t max_buckets);
/* Links a new entry (key absent) into the table that takes inserts. */
void store_index_link(const struct store_shard *s, struct store_db *d, struct store_entry *e);
/* Before inserting one key: starts a grow if needed. TERSE_OK or TERSE_ENOMEM (only when the
 * load factor is past STORE_FORCE_GROW_RATIO and the table could not grow). */
int store_index_reserve(struct store_shard *s, struct store_db *d);
/* Starts a shrink if the db is sparse; failures are ignored (it is only an optimisation). */
void store_index_maybe_shrink(struct store_shard *s, struct store_db *d);
/* One bounded rehash step; no-op when not rehashing. */
void store_index_rehash_step(struct store_shard *s, struct store_db *d);
/* Frees the tables (not the entries). */
void store_index_release(struct store_shard *s, struct store_db *d);
/* Visits the bucket(s) cursor names and returns the next cursor; see store_index.c. */
typedef void (*store_bucket_fn)(void *arg, struct store_entry **head);
uint64_t store_index_scan(struct store_db *d, uint64_t cursor, store_bucket_fn fn, void *arg);

/* ---- store.c ---- */

struct store_db *store_db_get(struct store_shard *s, int db);
/* Unlinks *link's entry, updates the counters and frees it. */
void store_unlink_free(struct store_shard *s, struct store_db *d, struct store_entry **link);
/* Accounts a freshly linked entry. */
void store_account_add(struct store_shard *s, struct store_db *d, const struct store_entry *e);
/* Frees every entry and table of d and resets it (counters included). */
void store_db_clear(struct store_shard *s, struct store_db *d);
/* Finds key, deleting it (counted as expired) if its expiry <= now_ms. */
struct store_entry **store_find_live(struct store_shard *s, struct store_db *d, const void *key,
                                     size_t klen, int64_t now_ms);

/* ---- store_verify.c ---- */

/* Walks the whole shard checking the index and every counter; TERSE_OK or TERSE_ECORRUPT.
 * For tests and fuzzers only: O(keys + buckets). */
int store_verify(const struct store_shard *s);

#endif /* TERSE_STORE_INTERNAL_H */
