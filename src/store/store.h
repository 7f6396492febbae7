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
 *
 * Memory: every byte comes from core_mem. Lookups and accessors never allocate. Entries are
 * packed into arena spans and chained from a linear-hashing index through 32-bit refs
 * (layouts in store_internal.h, docs/formats/store.md): per key the store spends 14-15 bytes
 * of entry header for keys under 128 bytes and values under 16 KiB (8 more with an expiry)
 * plus 1-2 bytes of bucket head. Dead space left by deletes and overwrites is reclaimed by
 * compaction (store_rehash_step, store_maintain, store_evict), which moves entries: entry
 * pointers are borrowed until the next call that may modify the shard, as always.
 * Limits: 8 GiB of arena per shard (STORE_SPAN_MAX_ID spans; TERSE_ENOMEM beyond).
 */
#ifndef TERSE_STORE_H
#define TERSE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_NO_EXPIRE (-1)   /* expire_ms: the key does not expire */
#define STORE_KEEP_TTL (-2)    /* store_set_*: keep the existing key's expiry */
#define STORE_DB_MAX 16384     /* largest n_db store_shard_create accepts */
#define STORE_LEN_MAX UINT32_MAX /* largest key or stored value, bytes (else TERSE_ETOOBIG) */
#define STORE_RANDOM_MAX_EXPIRED 100 /* expired keys one store_random call may delete */

/* A key's type. Every type but a string is one value: the codec stored form of its byte form
 * (store_hash.h, store_list.h, store_set.h, ...), compressed and checksummed like a string. */
enum store_type {
    STORE_TYPE_STRING = 0,
    STORE_TYPE_HASH = 1,
    STORE_TYPE_LIST = 2,
    STORE_TYPE_SET = 3,
    STORE_TYPE_ZSET = 4,
    STORE_TYPE_STREAM = 5
};
#define STORE_TYPE_MAX STORE_TYPE_STREAM

enum store_enc {
    STORE_ENC_INT = 0, /* string held as an int64 (INCR family, integer-looking SET) */
    STORE_ENC_STR = 1, /* string held in codec stored form */
    STORE_ENC_COLL = 2 /* a chunked container (coll.h): the entry holds a struct coll the key
                          owns; its type is the container's */
};

struct store_shard;
struct store_entry;
struct coll;
struct coll_env;

/* Creates a shard with n_db databases (1..STORE_DB_MAX); *out is set on TERSE_OK (NULL
 * otherwise) and owned by the caller until store_shard_destroy. Empty databases hold no table.
 * The hash seed is drawn from the kernel once here. TERSE_OK, TERSE_EINVAL, TERSE_ENOMEM. */
int store_shard_create(struct store_shard **out, int n_db);
/* Frees everything; *pp = NULL. NULL-safe. */
void store_shard_destroy(struct store_shard **pp);
int store_shard_n_db(const struct store_shard *s);

/* ---- lookups ---------------------------------------------------------------------------- */

/*
 * What the 24 access bits of every entry hold from now on, as Redis's maxmemory-policy decides
 * what an object's lru field holds: an LRU clock (lfu false, the default), or an LFU counter
 * and its last decrement time (lfu true), counted with lfu_log_factor and decayed one point
 * per lfu_decay_time minutes (0: never). Nothing is converted, as in Redis.
 */
void store_access_mode(struct store_shard *s, bool lfu, int lfu_log_factor, int lfu_decay_time);

enum store_lookup_flags {
    STORE_LOOKUP_TOUCH = 1 /* update the entry's LRU clock and LFU counter */
};

/*
 * Returns the live entry for key in db, or NULL (also for a db out of range). A key whose
 * expiry is <= now_ms is deleted (counted in expired_keys) and NULL is returned. key is
 * borrowed. Never allocates and never moves an entry.
 */
struct store_entry *store_lookup(struct store_shard *s, int db, const void *key, size_t klen,
                                 int64_t now_ms, int flags);

/* The entry for key in db even if its expiry has passed (NULL when absent or db out of range):
 * no side effect at all, not even a lazy delete. For callers that must tell a stale key from a
 * missing one without changing either (WATCH across SWAPDB). */
struct store_entry *store_peek(struct store_shard *s, int db, const void *key, size_t klen);

/* Why the change listener is called. */
enum store_change {
    STORE_CHANGE_WRITE = 0,   /* value or expiry written, or the key deleted or flushed */
    STORE_CHANGE_ADDED = 1,   /* the key was added: a write to a missing key, or the destination
                                 of RENAME, MOVE or COPY (Redis's dbAdd) */
    STORE_CHANGE_EXPIRED = 2, /* the key went because its expiry passed (lazy or active) */
    STORE_CHANGE_EVICTED = 3  /* the key went to store_evict */
};

/*
 * Change listener (WATCH, keyspace notifications): fn(arg, db, key, klen, why) is called
 * whenever a key's value or expiry is written or the key goes (delete, lazy or active expiry,
 * eviction, flush, rename, move, copy onto it), after the change, with why it changed. key is
 * borrowed for the call. fn must not change the shard (store_key_hash is fine). SWAPDB calls
 * nothing (the caller knows both dbs). NULL fn: no listener (the default; a write then costs
 * one pointer test).
 */
typedef void store_change_fn(void *arg, int db, const void *key, size_t klen,
                             enum store_change why);
void store_watch_changes(struct store_shard *s, store_change_fn *fn, void *arg);
/* The shard's seeded hash of key (xxHash3), for a caller's own table of keys. */
uint64_t store_key_hash(const struct store_shard *s, const void *key, size_t klen);

/* ---- entry accessors (no side effects) --------------------------------------------------- */

const uint8_t *store_entry_key(const struct store_entry *e, size_t *klen);
enum store_type store_entry_type(const struct store_entry *e);
enum store_enc store_entry_enc(const struct store_entry *e);
int64_t store_entry_int(const struct store_entry *e);                   /* STORE_ENC_INT */
const uint8_t *store_entry_val(const struct store_entry *e, size_t *len); /* STORE_ENC_STR */
/* Mutable view of the value bytes, for DEBUG CORRUPT-VALUE only (ENC_INT: the 8 bytes of the
 * int64, host order). */
uint8_t *store_entry_val_mut(struct store_entry *e, size_t *len);
int64_t store_entry_expire(const struct store_entry *e); /* STORE_NO_EXPIRE or unix ms */
/* Seconds since the last touching access (OBJECT IDLETIME), given now_ms; meaningful while
 * the shard is in LRU mode (store_access_mode). */
uint64_t store_entry_idle_s(const struct store_entry *e, int64_t now_ms);
/* LFU logarithmic counter (OBJECT FREQ), decayed to now_ms at the shard's lfu-decay-time;
 * meaningful while the shard is in LFU mode (store_access_mode). */
unsigned store_entry_freq(const struct store_shard *s, const struct store_entry *e,
                          int64_t now_ms);
/* RESTORE's IDLETIME and FREQ (Redis's objectSetLRUOrLFU) on key in db, expired or not: in
 * LFU mode a freq >= 0 (0..255) becomes the counter, decremented last at now_ms; in LRU mode an
 * idle_s >= 0 sets the clock idle_s seconds before now_ms. -1: not given. Missing key: no-op.
 * Never allocates, never moves an entry. */
void store_access_set(struct store_shard *s, int db, const void *key, size_t klen,
                      long long freq, long long idle_s, int64_t now_ms);
/* Bytes this entry occupies in the arena (its footprint), for MEMORY USAGE and accounting. */
size_t store_entry_mem(const struct store_entry *e);

/* ---- writes ------------------------------------------------------------------------------ */

/*
 * Sets key to a string value given in codec stored form (copied in), replacing any value.
 * expire_ms: STORE_NO_EXPIRE, STORE_KEEP_TTL, or an absolute unix ms time. Replacing a key
 * without STORE_KEEP_TTL clears its expiry; STORE_KEEP_TTL on an absent or expired key means
 * no expiry. An overwrite keeps the LFU counter and refreshes the LRU clock.
 * key and stored are borrowed. Allocates the entry, and sometimes a larger index table; an
 * overwrite whose new size fits the old block reuses it and allocates nothing.
 * Returns TERSE_OK or TERSE_ENOMEM (the old value, if any, is then untouched); TERSE_EINVAL
 * for a db out of range, an expire_ms below STORE_KEEP_TTL or a NULL pointer with a non-zero
 * length; TERSE_ETOOBIG when klen or stored_len exceeds STORE_LEN_MAX.
 */
int store_set_str(struct store_shard *s, int db, const void *key, size_t klen, const void *stored,
                  size_t stored_len, int64_t expire_ms, int64_t now_ms);
/* Flags of store_set_str_flags. */
enum store_set_flags {
    STORE_SET_RAW = 1,    /* modified in place (APPEND, SETRANGE): store_entry_is_raw() is 1 */
    STORE_SET_PENDING = 2 /* stored is a codec RAW value to compress in the background
                             (store_compress_step): store_entry_is_pending() is 1 */
};
/* store_set_str with flags; a later write without STORE_SET_RAW (STORE_SET_PENDING) clears
 * that mark. */
int store_set_str_flags(struct store_shard *s, int db, const void *key, size_t klen,
                        const void *stored, size_t stored_len, int64_t expire_ms, int64_t now_ms,
                        unsigned flags);
/* store_set_str_flags for a value of any type: stored is the codec stored form of the type's
 * byte form. For a hash or set, STORE_SET_RAW marks the encoding Redis would hold as a
 * hashtable (OBJECT ENCODING); STORE_SET_PENDING is for strings only (else TERSE_EINVAL). */
int store_set_value(struct store_shard *s, int db, const void *key, size_t klen,
                    enum store_type type, const void *stored, size_t stored_len,
                    int64_t expire_ms, int64_t now_ms, unsigned flags);
/* Sets (on) or clears the STORE_SET_RAW mark of key in db, expired or not, without touching
 * anything else: after a load, the encoding Redis would give a loaded hash or set. A missing
 * key is a no-op. */
void store_mark_raw(struct store_shard *s, int db, const void *key, size_t klen, int on);
/* 1 when the string was last written with STORE_SET_RAW (OBJECT ENCODING "raw"); for a
 * hash, 1 when it is marked hashtable. */
int store_entry_is_raw(const struct store_entry *e);
/* 1 while the string awaits background compression (written with STORE_SET_PENDING, not yet
 * visited by store_compress_step, not overwritten since). RENAME, COPY, MOVE and a first
 * EXPIRE keep the mark. */
int store_entry_is_pending(const struct store_entry *e);
/* Same, for an integer-encoded string. */
int store_set_int(struct store_shard *s, int db, const void *key, size_t klen, int64_t v,
                  int64_t expire_ms, int64_t now_ms);

/* ---- chunked containers (coll.h) ------------------------------------------------------------ */

/* The shard's container environment (its chunks' decode buffers, background compression,
 * lazy free). Borrowed, lives as long as the shard. */
struct coll_env *store_coll_env(struct store_shard *s);
/*
 * Sets key to the chunked container c (its type is c's), replacing any value (a container the
 * key held before is released), keeping (STORE_KEEP_TTL) or setting the expiry as
 * store_set_str. On TERSE_OK the key owns c: deleting, overwriting, expiring, evicting or
 * flushing the key releases it (coll_release), COPY copies it, RENAME and MOVE move it. On
 * any error the caller still owns c. Statuses as store_set_str.
 */
int store_set_coll(struct store_shard *s, int db, const void *key, size_t klen, struct coll *c,
                   int64_t expire_ms, int64_t now_ms);
/* The container of an entry of encoding STORE_ENC_COLL (borrowed: the key owns it). */
struct coll *store_entry_coll(const struct store_entry *e);
/* Bytes an entry holds: its footprint plus, for a chunked container, the container's. */
size_t store_entry_mem_all(const struct store_entry *e);

/* Deletes key; returns 1 if it existed (and was live at now_ms), else 0. */
int store_delete(struct store_shard *s, int db, const void *key, size_t klen, int64_t now_ms);

/* Sets (when_ms >= 0) or removes (STORE_NO_EXPIRE) the expiry of an existing live key.
 * Returns 1 if the key exists, 0 if not. A when_ms <= now_ms is stored as given: the next
 * lookup deletes the key (the caller deletes immediately where Redis does).
 * The expiry is stored only in entries that have one, so giving a key its first expiry may
 * grow the entry by 8 bytes: when its block has no slack this reallocates, and a failure
 * returns TERSE_ENOMEM with the key unchanged. TERSE_EINVAL: db out of range, or when_ms
 * negative and not STORE_NO_EXPIRE. Entry pointers held by the caller are invalid after it. */
int store_expire_set(struct store_shard *s, int db, const void *key, size_t klen, int64_t when_ms,
                     int64_t now_ms);

/*
 * Moves the entry of src to dst (within db), replacing dst, keeping the expiry and access
 * metadata. src == dst is TERSE_OK when the key exists (nothing changes).
 * Returns TERSE_OK, TERSE_ENOTFOUND (no src), TERSE_ENOMEM (nothing changed), TERSE_EINVAL
 * (db out of range), TERSE_ETOOBIG (dst_len > STORE_LEN_MAX).
 */
int store_rename(struct store_shard *s, int db, const void *src, size_t src_len, const void *dst,
                 size_t dst_len, int64_t now_ms);
/* Moves key from src_db to dst_db (the entry itself moves, nothing is copied); TERSE_OK,
 * TERSE_ENOTFOUND (no key in src_db), TERSE_EINVAL (key already in dst_db, src_db == dst_db
 * or a db out of range), TERSE_ENOMEM (only when dst_db's table is overloaded and cannot
 * grow; nothing changed). */
int store_move(struct store_shard *s, int src_db, int dst_db, const void *key, size_t klen,
               int64_t now_ms);
/* Copies src (in src_db) to dst (in dst_db), with its expiry; the copy starts a fresh
 * LRU/LFU history. replace: overwrite dst.
 * TERSE_OK, TERSE_ENOTFOUND (no src), TERSE_EINVAL (dst exists and !replace; src and dst are
 * the same key of the same db; a db out of range), TERSE_ENOMEM (nothing changed),
 * TERSE_ETOOBIG (dst_len > STORE_LEN_MAX). */
int store_copy(struct store_shard *s, int src_db, const void *src, size_t src_len, int dst_db,
               const void *dst, size_t dst_len, int replace, int64_t now_ms);

/* Free every key of db (all dbs), and its tables, at once; not incremental. expired_keys is
 * kept. A db out of range is ignored. */
/*
 * Whether a key's chunked container is freed at once or queued for lazy free (coll_release:
 * freed in bounded steps by coll_free_step), by why the key goes (Redis's lazyfree-lazy-*):
 * USER for DEL and FLUSH* (the command layer sets it around UNLINK and FLUSH* ASYNC), SERVER
 * for a value overwritten or replaced (SET, RENAME and MOVE onto it, a store command),
 * EXPIRE and EVICT. A bit set: lazily. Default 0: every container freed at once.
 */
enum store_lazy {
    STORE_LAZY_USER = 1u,
    STORE_LAZY_SERVER = 2u,
    STORE_LAZY_EXPIRE = 4u,
    STORE_LAZY_EVICT = 8u
};
void store_set_lazy(struct store_shard *s, unsigned mask);

/* Key's container was changed in place: the change listener hears a write
 * (STORE_CHANGE_WRITE), as for a value stored. Nothing else changes. */
void store_edited(struct store_shard *s, int db, const void *key, size_t klen);
unsigned store_lazy(const struct store_shard *s);

void store_flushdb(struct store_shard *s, int db);
void store_flushall(struct store_shard *s);
/* Exchanges the contents of two dbs (O(1)); out-of-range or equal indexes are a no-op. */
void store_swapdb(struct store_shard *s, int a, int b);

/* ---- iteration and sizes ----------------------------------------------------------------- */

size_t store_dbsize(const struct store_shard *s, int db);        /* keys, expired or not */
size_t store_db_n_expires(const struct store_shard *s, int db);  /* keys with an expiry */

/*
 * One SCAN step: calls fn for entries of db starting at cursor and returns the next cursor
 * (0 when the iteration is complete). Redis's guarantee holds across resizes: a key present
 * for the whole iteration is returned at least once. Visits at least `count` buckets' worth of
 * entries when there are that many, and at most STORE_SCAN_BUCKETS_PER_COUNT * count buckets
 * (store_keyspace.c) on sparse tables.
 * Expired entries are not reported (nor deleted). fn must not modify the shard; the entry
 * it gets is borrowed for the call. Never allocates. Cursor 0 starts an iteration; a db out
 * of range or empty returns 0.
 */
uint64_t store_scan(struct store_shard *s, int db, uint64_t cursor, size_t count, int64_t now_ms,
                    void (*fn)(void *arg, const struct store_entry *e), void *arg);
/* store_scan that also deletes the expired entries it meets (SCAN's lazy expiry, as Redis's
 * scanGenericCommand does; the change listener sees them go as STORE_CHANGE_EXPIRED). */
uint64_t store_scan_reap(struct store_shard *s, int db, uint64_t cursor, size_t count,
                         int64_t now_ms, void (*fn)(void *arg, const struct store_entry *e),
                         void *arg);

/* A random live key of db, or NULL if db is empty. May delete expired keys it meets (at most
 * STORE_RANDOM_MAX_EXPIRED, after which it gives up and returns NULL). Picks a random bucket,
 * then a random entry of its chain; on a very sparse table the k-th of a walk (uniform, O(table)).
 * Never allocates. */
struct store_entry *store_random(struct store_shard *s, int db, int64_t now_ms);
/* 64 random bits from the shard's generator (seeded from the OS at creation; not for
 * secrets): HRANDFIELD's picks. */
uint64_t store_rand(struct store_shard *s);

/*
 * Active expiry: one bounded step over all dbs, in the spirit of Redis's
 * activeExpireCycle: samples keys with an expiry, deletes the expired ones, repeats while more
 * than a quarter of a sample was expired, and stops after time_budget_us microseconds
 * (measured by the caller-supplied clock now_us_fn, NULL = stop after one sample per db).
 * A sample is the buckets from a per-db SCAN cursor holding STORE_EXPIRE_SAMPLE keys with an
 * expiry, bounded in buckets; at most STORE_EXPIRE_DBS_PER_CALL dbs per call (constants in
 * store_expire.c), resuming where the previous call stopped. May start
 * the shrink of a db it emptied (allocates; a failure is ignored).
 * Returns the number of keys deleted.
 */
size_t store_active_expire(struct store_shard *s, int64_t now_ms, uint64_t time_budget_us,
                           uint64_t (*now_us_fn)(void));

/* Cron work in bounded steps: for every db, merges up to n index buckets if it is sparse
 * (store_index.c), then compacts the arena by moving up to n * STORE_COMPACT_BYTES_PER_STEP
 * bytes of entries (store_internal.h) when it holds too much dead space. May allocate (an
 * arena span); failures are ignored. Entry pointers held by the caller are invalid after it. */
void store_rehash_step(struct store_shard *s, int n);

/* Arena compaction alone: moves up to max_bytes of live entries out of the sparsest spans
 * while the arena holds more than STORE_COMPACT_SLACK_PCT percent of dead space (beyond the
 * current span), freeing each span it empties. Returns the bytes moved (0: nothing to do).
 * May allocate a span; a failure stops the step. Entry pointers are invalid after it. */
size_t store_maintain(struct store_shard *s, size_t max_bytes);

/* The same whatever the share of dead space, as long as a span outside the current one is not
 * nearly full: what deleted keys left behind goes back to the allocator without losing a
 * key (maxmemory under noeviction, where nothing else would give it back). Returns the bytes
 * moved (0: nothing to reclaim). May allocate a span. Entry pointers are invalid after it. */
size_t store_reclaim(struct store_shard *s, size_t max_bytes);

/* ---- background compression -------------------------------------------------------------- */

struct codec_ctx;

/*
 * Compresses pending values (STORE_SET_PENDING) in one bounded step, off the request path.
 * The walk keeps its own cursor over the arena (span by span, each span remembering the
 * lowest offset that may hold a pending entry), so it resumes where the last call stopped,
 * sees every pending entry within one lap, and costs nothing while none is pending. Each
 * pending value is recompressed through codec_value_recompress with c (borrowed; its level,
 * codec_ctx_level_set): when that saves enough, the entry is rewritten into a smaller one
 * (key, expiry, access metadata kept) that replaces it in the index; otherwise it stays raw.
 * Either way it is no longer pending. The shard is single-threaded, so no request ever sees
 * a half-swapped value; a value overwritten or deleted meanwhile simply is not pending any
 * more. The step then compacts the arena by up to the bytes it freed (forced: any span that
 * is not nearly full, whatever the overall slack), so the memory comes back to the
 * allocator as it goes.
 * Stops when nothing is pending, after b->want_bytes of stored value bytes were saved (0: no
 * such goal), or when b->budget_us microseconds passed on the clock b->now_us(b->arg) (NULL
 * clock: no time limit; b NULL: no limit at all). *saved (may be NULL) receives the stored
 * value bytes saved (the decrease of store_stats.value_bytes). Returns the number of pending
 * values handled. Allocates only to grow the shard's compression buffer (when b->scratch is
 * too small for a value) to the largest value met (kept; a buffer above STORE_ZBUF_KEEP bytes is freed at the end of the
 * step) and, like any write, arena spans; an allocation failure ends the step with the value
 * still pending. Entry pointers are invalid after it.
 */
struct store_compress_budget {
    uint64_t budget_us;              /* time the step may take, microseconds */
    uint64_t (*now_us)(void *arg);   /* monotonic clock in microseconds; NULL: no time limit */
    void *arg;                       /* passed to now_us */
    size_t want_bytes;               /* stop once this many stored bytes were saved; 0: no goal */
    uint8_t *scratch;                /* borrowed output buffer for the compressed form, used for
                                        values of up to scratch_cap bytes (NULL: none) */
    size_t scratch_cap;
};
size_t store_compress_step(struct store_shard *s, struct codec_ctx *c,
                           const struct store_compress_budget *b, size_t *saved);

/* Values awaiting compression (0: store_compress_step has nothing to do); store_stats_get
 * also gives their bytes. Cheap: a counter. */
uint64_t store_pending_count(const struct store_shard *s);

/* ---- eviction ------------------------------------------------------------------------------ */

enum store_evict_policy {
    STORE_EVICT_LRU = 0,    /* least recently used (approximated by sampling, as Redis) */
    STORE_EVICT_LFU = 1,    /* least frequently used (Redis's logarithmic counter) */
    STORE_EVICT_RANDOM = 2, /* any key */
    STORE_EVICT_TTL = 3     /* soonest expiry (volatile only) */
};

struct store_evict_opts {
    enum store_evict_policy policy;
    int volatile_only;  /* 1: only keys with an expiry (volatile-*), 0: all keys (allkeys-*) */
    int samples;        /* maxmemory-samples: keys sampled per pick, >= 1 */
    int lfu_log_factor; /* lfu-log-factor */
    int lfu_decay_time; /* lfu-decay-time, minutes */
};

/*
 * Evicts keys, best candidates first as the policy ranks them (sampled, with a pool of good
 * candidates kept across calls as Redis's evictionPoolPopulate does), until at least `bytes`
 * of store memory (entries and index) has been released or no candidate is left.
 * *n_evicted receives the number of keys evicted (also added to store_stats.evicted_keys).
 * Returns the bytes released: exactly the decrease of entry_bytes + index_bytes. Deleting
 * only marks arena space dead; the call compacts whenever a span's worth is dead, so the
 * decrease of core_mem_used() follows within about one arena span (at most 1 MiB, about 1/32
 * of the arena). Bounded: stops after max_keys deletions (0 = no limit) so a caller can
 * spread a large eviction over steps. A victim found already expired is deleted as expired
 * (expired_keys, not n_evicted); its bytes count as released. Volatile policies (and TTL
 * always) only consider keys with an expiry. Never allocates. Pointers to entries are invalid
 * after it. samples is clamped to 1..64.
 */
size_t store_evict(struct store_shard *s, const struct store_evict_opts *o, size_t bytes,
                   size_t max_keys, int64_t now_ms, size_t *n_evicted);

/* Bytes the store would need to hold one more key of klen bytes with a stored value of
 * vlen bytes and (has_expire) an expiry: the admission estimate for a write (the entry's
 * footprint plus its share of bucket heads; arena spans are allocated a span at a time). */
size_t store_cost(size_t klen, size_t vlen, int has_expire);

/*
 * Upper bound of what writing one more key of klen bytes with a stored value of vlen bytes
 * (and an expiry when has_expire) into db would add to core_mem_used() right now: 0 while the
 * entry fits the arena's current span and the index needs no new memory, else the span (or
 * index segment) it would open. Admission with used + store_cost_now <= maxmemory keeps the
 * budget exact, where store_cost, which cannot see the shard, is only an average. Pure: never
 * allocates. A db out of range counts no index growth.
 */
size_t store_cost_now(const struct store_shard *s, int db, size_t klen, size_t vlen,
                      int has_expire);

struct store_stats {
    uint64_t expired_keys;  /* deleted because of their expiry, lazily or actively */
    uint64_t n_keys;        /* over all dbs */
    uint64_t entry_bytes;   /* footprints of all live entries (store_entry_mem) */
    uint64_t index_bytes;   /* usable bytes of the index (segments, directories) */
    uint64_t value_bytes;   /* stored bytes of string values (after compression) */
    uint64_t evicted_keys;  /* deleted by store_evict, ever */
    uint64_t arena_bytes;   /* usable bytes of the arena (spans, span table and the cache of
                               empty spans kept for reuse): entry_bytes
                               plus dead and free space awaiting compaction */
    uint64_t n_pending;     /* values awaiting background compression */
    uint64_t pending_bytes; /* their stored bytes (RAW form) */
};
void store_stats_get(const struct store_shard *s, struct store_stats *out);

#endif /* TERSE_STORE_H */
