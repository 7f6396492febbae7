/*
 * store_internal: layouts and helpers shared by the store_*.c files; nothing outside store/
 * includes this header.
 *
 * The modules of the keyspace, from the bottom; each calls only modules listed before it, so
 * no two of them use each other (tools/check_layers.py: no circle inside a room):
 *
 *   store_entry     the entry's bytes, its access metadata, the counters it adds to
 *   store_arena     spans and refs, records freed in place, the pending counters
 *   store_index     the per-db hash index over refs
 *   store_compact   evacuating sparse spans: the arena job that repoints index links
 *   store_compress  background compression of pending values
 *   store_verify    the consistency walk (tests and fuzzers)
 *   store           shard lifecycle, lookup, set, delete, expiry changes
 *   store_keyspace, store_expire, store_evict: whole-key operations, active expiry, eviction
 *
 * The value encodings (store_hash*, store_list, store_set, store_zset, store_stream) call
 * none of these. What several modules need and none owns is an inline helper here
 * (store_rng_next, the ref and field accessors).
 *
 * Entries live in the shard's arena (store_arena.c) and are named by a 32-bit ref; the index
 * (store_index.c) chains them through a 4-byte next ref kept in the entry.
 *
 * Arena: a table of spans, each one core_alloc block; small entries are packed back to back
 * (2-byte aligned) into the current span, an entry larger than a span gets a span of its own.
 *
 *   ref (u32):  | span id (STORE_REF_SPAN_BITS) | offset / 2 (STORE_REF_OFF_BITS) |
 *               span id 0 is never used, so ref 0 is STORE_REF_NONE.
 *
 *   span:  +---------+---------+--------+------+---------+------------------------+
 *          | entry   | entry   | filler | dead | entry   |   free (used .. cap)   |
 *          +---------+---------+--------+------+---------+------------------------+
 *          0                                            used                     cap
 *   Deleted entries stay in place, marked STORE_META_DEAD, until compaction moves the live
 *   entries of a sparse span to the current one and frees the span. A filler (first byte
 *   STORE_FILL_2 or STORE_FILL_N) covers the tail an in-place rewrite gave back.
 *
 * Entry (byte offsets; multi-byte fields unaligned, always read with memcpy):
 *
 *     0      1          5          8                        STORE_ENTRY_HDR + lens
 *     +------+----------+----------+--------+--------+-------------+-----+-------+-----+
 *     | meta | next ref | access   | klen   | vlen   | [expire_ms] | key | value | pad |
 *     | u8   | u32      | u24      | varint | varint | int64, if   |     |       | 0-1 |
 *     |      |          |          | 1-5 B  | 1-5 B  | META_EXPIRE |     |       |     |
 *     +------+----------+----------+--------+--------+-------------+-----+-------+-----+
 *
 *   meta     bits 0-1 type, bit 2 "pending" (a RAW value awaiting background compression,
 *            store_compress.c), bit 3 dead, bits 4-5 encoding, bit 6 "has expiry", bit 7 "raw"
 *   next     next entry of the same index bucket, STORE_REF_NONE at the end
 *   access   24 bits read as the shard's access mode says (store_access_mode), as Redis reads
 *            its object's lru field: LRU clock in seconds (mod 2^24), or under an LFU policy
 *            the last decrement time in minutes (mod 2^16) << 8 | the 8-bit log counter.
 *            A mode change converts nothing (as in Redis): old entries read oddly until touched.
 *   klen     key bytes, vlen value bytes (8 for ENC_INT): LEB128 varints
 *   The footprint (store_entry_mem) is all of it rounded up to STORE_ARENA_ALIGN.
 *
 * Index (one per db): linear hashing over n_buckets u32 bucket heads. With L the level
 * (2^L <= n_buckets < 2^(L+1)) and split = n_buckets - 2^L, a hash h lives in bucket
 * h mod 2^L, or h mod 2^(L+1) when that is below split. One insert splits at most a couple of
 * buckets and one delete merges at most one, so the table never stops to resize; the load
 * stays between STORE_LOAD_MIN and STORE_LOAD_MAX keys per bucket. The heads sit in segments
 * of STORE_SEG_BUCKETS (the first one grows by doubling up to that size) under a directory.
 *
 *   dir -> [seg 0: head head ... head] [seg 1: ...] ...     bucket b = seg[b / SEG][b % SEG]
 *
 * This is exactly the state of a Redis incremental rehash from 2^L to 2^(L+1) buckets with
 * rehash_idx = split, so the reverse-binary SCAN cursor keeps its guarantee (store_index.c).
 *
 * Per key, for a 32-byte key and a value of 128..16383 bytes: 8 fixed header bytes + 1 + 2
 * varint bytes + 0.5 padding on average + 4 / load of bucket head (4.0 at the load growth
 * keeps, STORE_LOAD_MAX; 8.0 at worst after mass deletes) = 15.5 (19.5 at worst); a byte
 * less for values under 128 bytes; + 8 with an expiry (docs/formats/store.md). One key per
 * bucket keeps a lookup to about one entry visited (a cache miss each) instead of four.
 */
#ifndef TERSE_STORE_INTERNAL_H
#define TERSE_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/store.h"

#define STORE_ENTRY_HDR 8u /* meta, next, access */
#define STORE_OFF_NEXT 1
#define STORE_OFF_ACCESS 5
#define STORE_META_TYPE_MASK 0x03u
#define STORE_META_PENDING 0x04u /* string stored RAW, to be compressed (store_compress.c) */
#define STORE_META_DEAD 0x08u
#define STORE_META_ENC_SHIFT 4
#define STORE_META_ENC_MASK 0x30u
#define STORE_META_EXPIRE 0x40u
#define STORE_META_RAW 0x80u /* string written by APPEND/SETRANGE: OBJECT ENCODING "raw" */
/* The type bits hold 2 bits of the type: a type past STORE_TYPE_SET (never a string, so its
 * encoding field is otherwise always STORE_ENC_STR) stores type - STORE_META_EXT_BASE in the
 * type bits and STORE_META_ENC_EXT in the encoding field. store_entry_type undoes it. */
#define STORE_META_ENC_EXT 2u
/* Encoding field 3 (with type bits 0): a chunked container; the value is the 8 bytes of a
 * struct coll pointer the key owns, and the type is the container's (store_entry_type). */
#define STORE_META_ENC_COLL 3u
#define STORE_META_EXT_BASE 3u
#define STORE_FILL_2 0xfeu   /* a 2-byte filler */
#define STORE_FILL_N 0xffu   /* a filler whose length is the next 3 bytes (little endian) */

#define STORE_ACCESS_BITS 24
#define STORE_LRU_MAX ((1u << STORE_ACCESS_BITS) - 1)
#define STORE_LFU_INIT 5u       /* counter of a new key, as Redis's LFU_INIT_VAL */
#define STORE_LFU_LOG_FACTOR 10 /* Redis lfu-log-factor default */
#define STORE_LFU_DECAY_MIN 1   /* Redis lfu-decay-time default, minutes */

/* Arena. */
typedef uint32_t store_ref;
#define STORE_REF_NONE 0u
#define STORE_ARENA_ALIGN 2u
#define STORE_REF_OFF_BITS 19 /* offset / STORE_ARENA_ALIGN: spans up to 1 MiB */
#define STORE_REF_SPAN_BITS 13
#define STORE_SPAN_MAX_ID ((1u << STORE_REF_SPAN_BITS) - 1) /* so 8191 spans, 8 GiB */
#define STORE_SPAN_MIN 4096u   /* smallest shared span, bytes (requested as 4096 - 8) */
#define STORE_SPAN_FRACTION 32 /* a new shared span is about 1/this of the arena */
#define STORE_SPAN_MAX (1024u * 1024 - 24) /* largest span request: exactly 256 mmapped pages */
#define STORE_SPAN_CAP_MAX ((1u << STORE_REF_OFF_BITS) * STORE_ARENA_ALIGN) /* bytes a ref reaches */
#define STORE_COMPACT_SLACK_PCT 8 /* compact while dead bytes > live * this / 100 */
#define STORE_COMPACT_BYTES_PER_STEP 1024u /* bytes moved per store_rehash_step step */
#define STORE_SPAN_CACHE_MAX 32u /* emptied shared spans kept for reuse (store_arena.c) ... */
#define STORE_SPAN_CACHE_BYTES (256u * 1024) /* ... up to this many bytes, or one span */

/* Index. */
#define STORE_LOAD_MAX 1u        /* split while n_keys > n_buckets * this */
#define STORE_LOAD_MIN_DIV 2u    /* merge while n_keys * this < n_buckets * STORE_LOAD_MAX */
#define STORE_TABLE_MIN 4u       /* never fewer buckets (while the db has keys) */
#define STORE_SEG_BUCKETS 4096u  /* bucket heads per full segment (16 KiB) */
#define STORE_SEG0_GROW_PCT 25u  /* segment 0 grows by this much at a time, up to a segment */
#define STORE_FORCE_GROW_RATIO 8u /* past this load a failed split fails the write */
#define STORE_SPLITS_PER_INSERT 2 /* so the load converges after bulk inserts */

struct store_entry {
    uint8_t meta;   /* see the header comment; the rest is unaligned bytes */
    uint8_t rest[]; /* next, access, lengths, data */
};

struct store_span {
    uint8_t *base; /* core_alloc block, NULL when the slot is free */
    uint32_t cap;  /* bytes usable for records */
    uint32_t used; /* records occupy [0, used) */
    uint32_t live; /* footprint bytes of live entries in it */
    uint32_t pend_off; /* no pending entry starts below this offset (UINT32_MAX: none) */
};

struct store_arena {
    struct store_span *span; /* slots 0 .. n_slot-1; slot 0 never holds a span */
    uint32_t n_slot;         /* slots ever used (high water), >= 1 once created */
    uint32_t cap_slot;       /* slots allocated */
    uint32_t cur;            /* span taking small entries, 0 = none yet */
    uint32_t victim;         /* span being evacuated by compaction, 0 = none */
    uint32_t victim_off;     /* next record of victim to look at */
    uint64_t span_bytes;     /* sum of core_mem_usable of spans */
    uint64_t table_bytes;    /* core_mem_usable of the span table */
    uint64_t dead_bytes;     /* sum over spans of used - live: what compaction can reclaim
                                (free tails past used are not counted) */
    uint8_t *cache[STORE_SPAN_CACHE_MAX]; /* emptied shared spans, all of request cache_req */
    uint32_t n_cache;        /* spans in cache[] */
    uint32_t cache_taken;    /* spans taken from the cache since the last trim */
    size_t cache_req;        /* the request size the cached spans were made with */
    uint64_t cache_bytes;    /* sum of core_mem_usable of cached spans */
};

struct store_db {
    uint32_t **seg;          /* n_seg segments of bucket heads; NULL when no table */
    uint64_t n_seg;          /* segments allocated */
    uint64_t dir_cap;        /* directory slots */
    uint64_t seg0_cap;       /* heads in segment 0 (grows to STORE_SEG_BUCKETS) */
    uint64_t n_buckets;      /* 0 (no table) or >= STORE_TABLE_MIN */
    size_t n_keys;           /* entries, expired or not */
    size_t n_expires;        /* entries with STORE_META_EXPIRE */
    uint64_t expire_cursor;  /* active-expiry scan cursor over this db */
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
    uint64_t entry_bytes;   /* sum of footprints of live entries */
    uint64_t index_bytes;   /* sum of core_mem_usable() of segments and directories */
    uint64_t value_bytes;   /* sum of vlen of ENC_STR entries */
    uint64_t evicted_keys;  /* see struct store_stats */
    struct store_arena arena;
    int evict_db_next;      /* db the next random eviction starts from */
    int n_pool;             /* candidates in pool[0 .. n_pool-1], sorted by score */
    int pool_policy;        /* enum store_evict_policy the pool's scores were computed for */
    struct store_evict_cand pool[STORE_EVICT_POOL];
    uint64_t n_pending;     /* live entries with STORE_META_PENDING */
    uint64_t pending_bytes; /* sum of their stored value lengths */
    uint32_t pend_span;     /* span the compression walk looks at next (store_compress.c) */
    uint8_t *zbuf;          /* compression output, reused; core_alloc, zbuf_cap bytes */
    size_t zbuf_cap;
    bool lfu;               /* access fields hold LFU data (store_access_mode) */
    int lfu_log_factor;     /* lfu-log-factor */
    int lfu_decay_min;      /* lfu-decay-time, minutes (0: no decay) */
    store_change_fn *on_change; /* store_watch_changes; NULL: nobody listens */
    void *on_change_arg;
    struct coll_env *colls;     /* the chunked containers' environment (owned) */
    uint64_t n_coll_keys;       /* keys holding a chunked container (shard destroy frees them) */
    unsigned lazy;              /* enum store_lazy bits: which causes free containers lazily */
};

/* Tells the listener (store_watch_changes), if any, that key of db d changed or went. */
static inline void store_changed(struct store_shard *s, const struct store_db *d,
                                 const void *key, size_t klen, enum store_change why)
{
    if (s->on_change != NULL) {
        s->on_change(s->on_change_arg, (int)(d - s->db), key, klen, why);
    }
}

/* The shard's next random number: xorshift64*, statistically fine for sampling (random keys,
 * eviction samples, the LFU counter's coin), the state per shard. Inline: every module of the
 * room draws from it, so it belongs to none of them. */
static inline uint64_t store_rng_next(struct store_shard *s)
{
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* ---- unaligned field access ---- */

static inline uint32_t store_ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void store_st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

static inline const uint8_t *store_ecb(const struct store_entry *e)
{
    return (const uint8_t *)e;
}

static inline uint8_t *store_eb(struct store_entry *e)
{
    return (uint8_t *)e;
}

static inline store_ref store_entry_next(const struct store_entry *e)
{
    return store_ld32(store_ecb(e) + STORE_OFF_NEXT);
}

/* The link (4 bytes holding a ref) inside e that names the next entry of its bucket. */
static inline uint8_t *store_entry_link(struct store_entry *e)
{
    return store_eb(e) + STORE_OFF_NEXT;
}

/* The 24-bit access field (see the header comment). */
static inline uint32_t store_entry_access(const struct store_entry *e)
{
    const uint8_t *p = store_ecb(e) + STORE_OFF_ACCESS;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline void store_entry_set_access(struct store_entry *e, uint32_t v)
{
    uint8_t *p = store_eb(e) + STORE_OFF_ACCESS;
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
}

/* Decoded lengths and offsets of an entry. */
struct store_elens {
    uint32_t klen;
    uint32_t vlen;
    uint32_t key_off; /* offset of the key (after the expiry, if any) */
    uint32_t size;    /* footprint, a multiple of STORE_ARENA_ALIGN */
};

/* ---- refs ---- */

static inline uint32_t store_ref_span(store_ref r)
{
    return r >> STORE_REF_OFF_BITS;
}

static inline uint32_t store_ref_off(store_ref r)
{
    return (r & ((1u << STORE_REF_OFF_BITS) - 1)) * STORE_ARENA_ALIGN;
}

static inline store_ref store_ref_make(uint32_t span, uint32_t off)
{
    return (span << STORE_REF_OFF_BITS) | (off / STORE_ARENA_ALIGN);
}

/* ---- store_entry.c ---- */

void store_entry_lens(const struct store_entry *e, struct store_elens *l);
/* Footprint of an entry with these lengths. */
size_t store_entry_size(size_t klen, size_t vlen, bool has_expire);
/* Writes a whole entry at e (next = NONE, the given access field). */
void store_entry_fill(struct store_entry *e, const void *key, uint32_t klen, enum store_enc enc,
                      const void *val, uint32_t vlen, int64_t expire_ms, uint32_t access);
/* Copies src to dst (footprint of the copy: size) with key as its key; dst's next = NONE. The
 * raw and pending marks are copied (the caller counts a pending copy: store_pending_add). */
void store_entry_copy(struct store_entry *dst, const struct store_entry *src, const void *key,
                      uint32_t klen, int64_t expire_ms);
/* Writes at dst a copy of src (key, expiry, access metadata, next ref, raw mark; not the
 * pending mark) holding value val of vlen bytes instead of src's; dst must not overlap src. */
void store_entry_copy_val(struct store_entry *dst, const struct store_entry *src, const void *val,
                          uint32_t vlen);
/* Sets the type of an entry just laid out as a string of encoding STORE_ENC_STR (its type bits
 * still 0); a type past STORE_TYPE_SET takes the encoding field too (STORE_META_ENC_EXT). */
void store_entry_set_type(struct store_entry *e, enum store_type type);
/* Rewrites e in place for a new value and expiry (same key, next and access); the caller
 * checked that the new footprint is not larger. */
void store_entry_rewrite(struct store_entry *e, enum store_enc enc, const void *val,
                         uint32_t vlen, int64_t expire_ms);
/* Removes the expiry in place; the footprint shrinks by 8 bytes (the caller gives them back). */
void store_entry_drop_expire(struct store_entry *e);
unsigned char *store_entry_valp(struct store_entry *e);
const uint8_t *store_entry_keyp(const struct store_entry *e, uint32_t *klen);
bool store_entry_expired(const struct store_entry *e, int64_t now_ms);
/* The access field of a new object at now_ms in the shard's mode (fresh clock, or the LFU
 * initial counter). */
uint32_t store_access_new(const struct store_shard *s, int64_t now_ms);
/* The access field an overwrite gives the new value: under LFU the old history (as Redis's
 * dbSetValue), else a fresh clock. */
uint32_t store_access_overwrite(const struct store_shard *s, const struct store_entry *old,
                                int64_t now_ms);
/* An access that touches: the LRU clock is set, or the LFU counter decayed and incremented. */
void store_entry_touch(struct store_shard *s, struct store_entry *e, int64_t now_ms);
/* LFU counter of e decayed to now_ms at one point per decay_min minutes (0: no decay). */
unsigned store_entry_lfu_at(const struct store_entry *e, int64_t now_ms, int decay_min);
/* The access field RESTORE's FREQ (LFU) or IDLETIME (LRU) gives e; a negative one, or the
 * one the shard's mode does not read, leaves it alone. */
void store_entry_access_restore(const struct store_shard *s, struct store_entry *e,
                                long long freq, long long idle_s, int64_t now_ms);
uint32_t store_clock_lru(int64_t now_ms);
/* Counts a freshly linked entry in d's and the shard's counters (n_keys, n_expires,
 * entry_bytes, value_bytes); store_account_sub uncounts one about to be unlinked. */
void store_account_add(struct store_shard *s, struct store_db *d, const struct store_entry *e);
void store_account_sub(struct store_shard *s, struct store_db *d, const struct store_entry *e);

/* ---- store_arena.c ---- */

/* Size of the record at p (entry, dead entry or filler). */
size_t store_arena_record_size(const uint8_t *p);

/* Entry pointer of a ref (which must name a live record). */
struct store_entry *store_arena_ptr(const struct store_arena *a, store_ref r);
/* Room for a record of size bytes (a multiple of STORE_ARENA_ALIGN); *r names it. May
 * allocate a span: TERSE_OK or TERSE_ENOMEM (nothing changed). */
int store_arena_alloc(struct store_shard *s, size_t size, store_ref *r, struct store_entry **e);
/* Marks a record of size bytes dead; frees its span when nothing live is left in it. */
void store_arena_release(struct store_shard *s, store_ref r, size_t size);
/* Gives back the tail [keep, size) of a record that was rewritten shorter in place. */
void store_arena_shrink(struct store_shard *s, store_ref r, size_t size, size_t keep);
/* Counts e, just linked at ref r, as pending if it carries STORE_META_PENDING (and lowers its
 * span's pend_off). Every path that makes a pending record live calls it; store_arena_release
 * undoes it for a pending record it frees. */
void store_pending_add(struct store_shard *s, store_ref r, const struct store_entry *e);
/* Uncounts e if pending and clears its bit (the record stays where it is). */
void store_pending_sub(struct store_shard *s, struct store_entry *e);
/* Bytes the arena would allocate to place a record of size bytes now (0 when it fits). */
size_t store_arena_grow_cost(const struct store_shard *s, size_t size);
/* Dead bytes compaction could reclaim (outside the current span). */
uint64_t store_arena_dead(const struct store_arena *a);
/* Frees every span (the shard is empty or being destroyed). */
void store_arena_clear(struct store_shard *s);
/* Frees the cached empty spans unless one was taken since the last call (cron: churn keeps
 * its spans, an idle arena gives them back within two calls). */
void store_arena_cache_trim(struct store_shard *s);
/* Closes the current span so the next allocation takes a fresh one (tests: OOM injection). */
void store_arena_seal(struct store_shard *s);

/* ---- store_index.c ---- */

uint64_t store_hash(const struct store_shard *s, const void *key, size_t klen);
/* The link (a bucket head or a predecessor's next field) holding key's ref, or NULL. */
uint8_t *store_index_find(struct store_shard *s, struct store_db *d, const void *key,
                          size_t klen);
/* Like store_index_find for a precomputed hash h, matching entries with eq(e, arg). */
uint8_t *store_index_find_h(struct store_shard *s, struct store_db *d, uint64_t h,
                            bool (*eq)(const struct store_entry *e, void *arg), void *arg);
/* The link holding ref r among the entries of hash h in d, or NULL. */
uint8_t *store_index_find_ref(struct store_shard *s, struct store_db *d, uint64_t h,
                              store_ref r);
/* The link naming the live entry at ref r in whichever db's index holds it (*d receives that
 * db), or NULL (r is in no index). */
uint8_t *store_index_link_of(struct store_shard *s, store_ref r, struct store_db **d);
/* Collects up to n entries (only ones with an expiry when volatile_only) from consecutive
 * buckets starting at a random one, visiting at most max_buckets buckets; returns how many.
 * The pointers are borrowed until the shard is next modified. */
size_t store_index_sample(struct store_shard *s, struct store_db *d, struct store_entry **out,
                          size_t n, bool volatile_only, size_t max_buckets);
/* Links a new entry (key absent) named r. */
void store_index_link(struct store_shard *s, struct store_db *d, store_ref r);
/* Before inserting one key: creates the table or splits up to STORE_SPLITS_PER_INSERT
 * buckets. TERSE_OK or TERSE_ENOMEM (only when there is no table, or the load is past
 * STORE_FORCE_GROW_RATIO * STORE_LOAD_MAX and no split was possible). */
int store_index_reserve(struct store_shard *s, struct store_db *d);
/* Merges at most n buckets while the db is sparse; frees the table when it is empty. */
void store_index_maybe_shrink(struct store_shard *s, struct store_db *d, int n);
/* Bytes the next insert into d may allocate for the table (upper bound). */
size_t store_index_grow_cost(const struct store_db *d);
/* Frees the table (not the entries). */
void store_index_release(struct store_shard *s, struct store_db *d);
/* Visits the bucket(s) cursor names and returns the next cursor; see store_index.c. */
typedef void (*store_bucket_fn)(void *arg, uint8_t *head);
uint64_t store_index_scan(struct store_db *d, uint64_t cursor, store_bucket_fn fn, void *arg);
/* The bucket hash h lives in (the db has a table). */
uint64_t store_index_bucket_of(const struct store_db *d, uint64_t h);
/* Bucket b's head (b < n_buckets). */
uint8_t *store_index_bucket(struct store_db *d, uint64_t b);

static inline store_ref store_link_get(const uint8_t *link)
{
    return store_ld32(link);
}

static inline void store_link_put(uint8_t *link, store_ref r)
{
    store_st32(link, r);
}

/* ---- store_compact.c ---- */

/* What a drop function decides for a live entry compaction is about to move. */
enum store_drop {
    STORE_DROP_KEEP, /* move it */
    STORE_DROP_DONE, /* the function deleted it */
    STORE_DROP_STOP  /* leave it where it is and end the step (the next step resumes there) */
};
typedef enum store_drop (*store_drop_fn)(void *arg, struct store_db *d, uint8_t *link);
/* One bounded compaction step: moves live entries out of the sparsest span, at most
 * max_bytes of them, if span bytes exceed live by STORE_COMPACT_SLACK_PCT (or whenever a span
 * is not nearly full, with force); drop (may be NULL) decides about each first. Returns the
 * bytes moved or dropped. May allocate a span (a failure just stops the step). */
size_t store_arena_compact(struct store_shard *s, size_t max_bytes, bool force,
                           store_drop_fn drop, void *arg);

/* ---- store.c ---- */

struct store_db *store_db_get(struct store_shard *s, int db);
/* Unlinks link's entry, updates the counters, tells the listener why and frees it. */
void store_unlink_free(struct store_shard *s, struct store_db *d, uint8_t *link,
                       enum store_change why);
/* The same for a value replaced (RENAME or MOVE onto a key): its container goes as a server
 * delete does (STORE_LAZY_SERVER). */
void store_unlink_replaced(struct store_shard *s, struct store_db *d, uint8_t *link);
/* The same, the entry's container (if any) left alone: a copy of the entry holds it now. */
void store_unlink_keep(struct store_shard *s, struct store_db *d, uint8_t *link,
                       enum store_change why);
/* Frees every entry and table of d and resets it (counters included). */
void store_db_clear(struct store_shard *s, struct store_db *d);
/* Rewrites the container pointer in an entry of encoding COLL (a copy's own container). */
void store_entry_put_coll(struct store_entry *e, struct coll *c);
/* Releases every chunked container of db d, its keys left in place (shard teardown). */
void store_db_release_colls(struct store_shard *s, struct store_db *d);
/* Finds key, deleting it (counted as expired) if its expiry <= now_ms. */
uint8_t *store_find_live(struct store_shard *s, struct store_db *d, const void *key,
                         size_t klen, int64_t now_ms);
/* The entry a link names. */
struct store_entry *store_link_entry(const struct store_shard *s, const uint8_t *link);

/* ---- store_verify.c ---- */

/* Walks the whole shard checking the index, the arena and every counter; TERSE_OK or
 * TERSE_ECORRUPT. For tests and fuzzers only: O(keys + buckets + arena). */
int store_verify(const struct store_shard *s);

#endif /* TERSE_STORE_INTERNAL_H */
