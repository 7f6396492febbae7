/*
 * store_entry: the packed entry (layout in store_internal.h), its accessors and its access
 * metadata: 24 bits holding, as Redis's lru field does, either an LRU clock in seconds or
 * (under an LFU policy) a 16-bit decrement time in minutes and Redis's 8-bit logarithmic
 * counter (lfu-log-factor and lfu-decay-time from store_access_mode); and what a linked entry
 * counts for in its db and shard (store_account_add/sub).
 *
 * Entries are only 2-byte aligned and their fields sit at odd offsets, so every multi-byte
 * field is read and written with memcpy (the compiler turns it into plain loads).
 */
#include "store/store_internal.h"

#include "codec/codec_varint.h"
#include "coll/coll.h"

#include <assert.h>

static bool entry_has_expire(const struct store_entry *e)
{
    return (e->meta & STORE_META_EXPIRE) != 0;
}

/* The lengths are written with codec_varint_len/put; the reader stays here: it trusts the
 * arena's own bytes (no bound, no minimality check), unlike the value header's reader. */
static size_t varint_get(const uint8_t *p, uint32_t *v)
{
    uint32_t x = 0;
    size_t n = 0;
    unsigned shift = 0;

    do {
        x |= (uint32_t)(p[n] & 0x7f) << shift;
        shift += 7;
    } while (p[n++] & 0x80);
    *v = x;
    return n;
}

static size_t align_up(size_t n)
{
    return (n + STORE_ARENA_ALIGN - 1) & ~(size_t)(STORE_ARENA_ALIGN - 1);
}

size_t store_entry_size(size_t klen, size_t vlen, bool has_expire)
{
    return align_up(STORE_ENTRY_HDR + codec_varint_len((uint32_t)klen) +
                    codec_varint_len((uint32_t)vlen) + (has_expire ? sizeof(int64_t) : 0) + klen +
                    vlen);
}

void store_entry_lens(const struct store_entry *e, struct store_elens *l)
{
    const uint8_t *p = store_ecb(e) + STORE_ENTRY_HDR;

    p += varint_get(p, &l->klen);
    p += varint_get(p, &l->vlen);
    l->key_off = (uint32_t)(p - store_ecb(e)) + (entry_has_expire(e) ? sizeof(int64_t) : 0);
    l->size = (uint32_t)align_up((size_t)l->key_off + l->klen + l->vlen);
}

uint32_t store_clock_lru(int64_t now_ms)
{
    return (uint32_t)((uint64_t)(now_ms / 1000) & STORE_LRU_MAX);
}

/* The encoding field as stored: STORE_META_ENC_EXT for a type past STORE_TYPE_SET. */
static enum store_enc entry_enc_field(const struct store_entry *e)
{
    return (enum store_enc)((e->meta & STORE_META_ENC_MASK) >> STORE_META_ENC_SHIFT);
}

/* The encoding field an encoding is stored as (the type's share of it is set after). */
static unsigned enc_field_of(enum store_enc enc)
{
    return enc == STORE_ENC_COLL ? STORE_META_ENC_COLL : (unsigned)enc;
}

/*
 * Lays out meta, lengths, expiry, key and value from offset STORE_ENTRY_HDR on (next and
 * access are left alone). The key may already be in the entry (a rewrite): it is moved
 * first, since the new lengths or expiry may cover where it was.
 */
static void entry_layout(struct store_entry *e, const void *key_src, uint32_t klen,
                         unsigned enc_field, const void *val, uint32_t vlen, int64_t expire_ms,
                         uint8_t keep_bits)
{
    bool has_exp = expire_ms >= 0;
    uint8_t *p = store_eb(e);
    size_t lens = codec_varint_len(klen) + codec_varint_len(vlen);
    size_t key_off = STORE_ENTRY_HDR + lens + (has_exp ? sizeof(int64_t) : 0);
    size_t end = key_off + klen + vlen;

    if (klen > 0) {
        memmove(p + key_off, key_src, klen);
    }
    p += STORE_ENTRY_HDR;
    p += codec_varint_put(p, klen);
    p += codec_varint_put(p, vlen);
    if (has_exp) {
        memcpy(p, &expire_ms, sizeof(expire_ms));
    }
    if (vlen > 0) {
        memcpy(store_eb(e) + key_off + klen, val, vlen);
    }
    if (end % STORE_ARENA_ALIGN != 0) {
        store_eb(e)[end] = 0; /* deterministic padding */
    }
    e->meta = (uint8_t)((unsigned)STORE_TYPE_STRING | (enc_field << STORE_META_ENC_SHIFT) |
                        (has_exp ? STORE_META_EXPIRE : 0u) | keep_bits);
}

void store_entry_fill(struct store_entry *e, const void *key, uint32_t klen, enum store_enc enc,
                      const void *val, uint32_t vlen, int64_t expire_ms, uint32_t access)
{
    store_st32(store_entry_link(e), STORE_REF_NONE);
    store_entry_set_access(e, access);
    entry_layout(e, key, klen, enc_field_of(enc), val, vlen, expire_ms, 0);
}

void store_entry_rewrite(struct store_entry *e, enum store_enc enc, const void *val,
                         uint32_t vlen, int64_t expire_ms)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    entry_layout(e, store_eb(e) + l.key_off, l.klen, enc_field_of(enc), val, vlen, expire_ms, 0);
}

void store_entry_copy(struct store_entry *dst, const struct store_entry *src, const void *key,
                      uint32_t klen, int64_t expire_ms)
{
    struct store_elens l;

    store_entry_lens(src, &l);
    store_st32(store_entry_link(dst), STORE_REF_NONE);
    store_entry_set_access(dst, store_entry_access(src));
    entry_layout(dst, key, klen, entry_enc_field(src), store_ecb(src) + l.key_off + l.klen,
                 l.vlen, expire_ms,
                 (uint8_t)(src->meta &
                           (STORE_META_TYPE_MASK | STORE_META_RAW | STORE_META_PENDING)));
}

void store_entry_copy_val(struct store_entry *dst, const struct store_entry *src, const void *val,
                          uint32_t vlen)
{
    struct store_elens l;

    store_entry_lens(src, &l);
    store_link_put(store_entry_link(dst), store_entry_next(src));
    store_entry_set_access(dst, store_entry_access(src));
    entry_layout(dst, store_ecb(src) + l.key_off, l.klen, entry_enc_field(src), val, vlen,
                 store_entry_expire(src),
                 (uint8_t)(src->meta & (STORE_META_TYPE_MASK | STORE_META_RAW)));
}

unsigned char *store_entry_valp(struct store_entry *e)
{
    struct store_elens l;
    store_entry_lens(e, &l);
    return store_eb(e) + l.key_off + l.klen;
}

const uint8_t *store_entry_keyp(const struct store_entry *e, uint32_t *klen)
{
    struct store_elens l;
    store_entry_lens(e, &l);
    *klen = l.klen;
    return store_ecb(e) + l.key_off;
}

static const uint8_t *expire_p(const struct store_entry *e)
{
    const uint8_t *p = store_ecb(e) + STORE_ENTRY_HDR;
    uint32_t skip;

    p += varint_get(p, &skip);
    p += varint_get(p, &skip);
    return p;
}

bool store_entry_expired(const struct store_entry *e, int64_t now_ms)
{
    return entry_has_expire(e) && store_entry_expire(e) <= now_ms;
}

/* ---- LRU / LFU ---- */

void store_access_mode(struct store_shard *s, bool lfu, int lfu_log_factor, int lfu_decay_time)
{
    s->lfu = lfu;
    s->lfu_log_factor = lfu_log_factor;
    s->lfu_decay_min = lfu_decay_time;
}

static uint32_t clock_ldt(int64_t now_ms)
{
    return (uint32_t)((uint64_t)(now_ms / 60000) & 0xffffu);
}

static uint32_t lfu_pack(int64_t now_ms, unsigned counter)
{
    return clock_ldt(now_ms) << 8 | counter;
}

uint32_t store_access_new(const struct store_shard *s, int64_t now_ms)
{
    return s->lfu ? lfu_pack(now_ms, STORE_LFU_INIT) : store_clock_lru(now_ms);
}

uint32_t store_access_overwrite(const struct store_shard *s, const struct store_entry *old,
                                int64_t now_ms)
{
    return s->lfu ? store_entry_access(old) : store_clock_lru(now_ms);
}

unsigned store_entry_lfu_at(const struct store_entry *e, int64_t now_ms, int decay_min)
{
    uint32_t a = store_entry_access(e);
    unsigned counter = a & 0xffu;
    uint32_t ldt = a >> 8;
    uint32_t now = clock_ldt(now_ms);
    uint32_t periods;

    if (decay_min <= 0) {
        return counter; /* lfu-decay-time 0: never decays, as Redis */
    }
    periods = (now >= ldt ? now - ldt : 65535u - ldt + now) / (uint32_t)decay_min;
    return periods >= counter ? 0 : counter - periods;
}

static unsigned lfu_log_incr(struct store_shard *s, unsigned counter)
{
    double r;
    double base;

    if (counter >= 255) {
        return 255;
    }
    /* 53 random bits -> [0, 1). */
    r = (double)(store_rng_next(s) >> 11) / 9007199254740992.0;
    base = counter > STORE_LFU_INIT ? (double)(counter - STORE_LFU_INIT) : 0.0;
    if (r < 1.0 / (base * s->lfu_log_factor + 1.0)) {
        counter++;
    }
    return counter;
}

void store_entry_touch(struct store_shard *s, struct store_entry *e, int64_t now_ms)
{
    if (s->lfu) {
        unsigned counter = lfu_log_incr(s, store_entry_lfu_at(e, now_ms, s->lfu_decay_min));
        store_entry_set_access(e, lfu_pack(now_ms, counter));
    } else {
        store_entry_set_access(e, store_clock_lru(now_ms));
    }
}

/* ---- public accessors ---- */

const uint8_t *store_entry_key(const struct store_entry *e, size_t *klen)
{
    uint32_t n;
    const uint8_t *k = store_entry_keyp(e, &n);
    *klen = n;
    return k;
}

/* A container's type as the store names it. */
static enum store_type coll_store_type(const struct coll *c)
{
    switch ((enum coll_type)c->type) {
    case COLL_LIST:
        return STORE_TYPE_LIST;
    case COLL_HASH:
        return STORE_TYPE_HASH;
    case COLL_SET:
        return STORE_TYPE_SET;
    case COLL_ZSET:
        return STORE_TYPE_ZSET;
    case COLL_STREAM:
    case COLL_PEL: /* never a key's: a stream's part */
        return STORE_TYPE_STREAM;
    }
    return STORE_TYPE_LIST;
}

struct coll *store_entry_coll(const struct store_entry *e)
{
    struct store_elens l;
    struct coll *c;

    assert((unsigned)entry_enc_field(e) == STORE_META_ENC_COLL);
    store_entry_lens(e, &l);
    memcpy(&c, store_ecb(e) + l.key_off + l.klen, sizeof(c));
    return c;
}

void store_entry_put_coll(struct store_entry *e, struct coll *c)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    memcpy(store_eb(e) + l.key_off + l.klen, &c, sizeof(c));
}

enum store_type store_entry_type(const struct store_entry *e)
{
    unsigned t = e->meta & STORE_META_TYPE_MASK;
    unsigned enc = (unsigned)entry_enc_field(e);

    if (enc == STORE_META_ENC_EXT) {
        t += STORE_META_EXT_BASE;
    } else if (enc == STORE_META_ENC_COLL) {
        return coll_store_type(store_entry_coll(e));
    }
    return (enum store_type)t;
}

void store_entry_set_type(struct store_entry *e, enum store_type type)
{
    if ((unsigned)entry_enc_field(e) == STORE_META_ENC_COLL) {
        return; /* the container names its type */
    }
    if ((unsigned)type > STORE_META_EXT_BASE) {
        e->meta = (uint8_t)((e->meta & ~(STORE_META_TYPE_MASK | STORE_META_ENC_MASK)) |
                            ((unsigned)type - STORE_META_EXT_BASE) |
                            (STORE_META_ENC_EXT << STORE_META_ENC_SHIFT));
    } else {
        e->meta |= (uint8_t)type;
    }
}

enum store_enc store_entry_enc(const struct store_entry *e)
{
    unsigned enc = (unsigned)entry_enc_field(e);

    if (enc == STORE_META_ENC_COLL) {
        return STORE_ENC_COLL;
    }
    return enc == STORE_META_ENC_EXT ? STORE_ENC_STR : (enum store_enc)enc;
}

int64_t store_entry_int(const struct store_entry *e)
{
    struct store_elens l;
    int64_t v;

    assert(store_entry_enc(e) == STORE_ENC_INT);
    store_entry_lens(e, &l);
    memcpy(&v, store_ecb(e) + l.key_off + l.klen, sizeof(v));
    return v;
}

const uint8_t *store_entry_val(const struct store_entry *e, size_t *len)
{
    struct store_elens l;

    assert(store_entry_enc(e) == STORE_ENC_STR);
    store_entry_lens(e, &l);
    *len = l.vlen;
    return store_ecb(e) + l.key_off + l.klen;
}

uint8_t *store_entry_val_mut(struct store_entry *e, size_t *len)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    *len = l.vlen;
    return store_eb(e) + l.key_off + l.klen;
}

int64_t store_entry_expire(const struct store_entry *e)
{
    int64_t when;

    if (!entry_has_expire(e)) {
        return STORE_NO_EXPIRE;
    }
    memcpy(&when, expire_p(e), sizeof(when));
    return when;
}

uint64_t store_entry_idle_s(const struct store_entry *e, int64_t now_ms)
{
    uint32_t now = store_clock_lru(now_ms);
    uint32_t lru = store_entry_access(e);
    return now >= lru ? (uint64_t)(now - lru) : (uint64_t)(STORE_LRU_MAX - lru) + now;
}

unsigned store_entry_freq(const struct store_shard *s, const struct store_entry *e,
                          int64_t now_ms)
{
    return store_entry_lfu_at(e, now_ms, s->lfu_decay_min);
}

void store_entry_access_restore(const struct store_shard *s, struct store_entry *e,
                                long long freq, long long idle_s, int64_t now_ms)
{
    if (s->lfu && freq >= 0) {
        store_entry_set_access(e, lfu_pack(now_ms, (unsigned)(freq > 255 ? 255 : freq)));
    } else if (!s->lfu && idle_s >= 0) {
        /* the clock idle_s seconds back, modulo the clock's 24 bits (Redis's lru_abs) */
        uint32_t now = store_clock_lru(now_ms);
        uint64_t idle = (uint64_t)idle_s % ((uint64_t)STORE_LRU_MAX + 1);
        store_entry_set_access(e, idle <= now ? now - (uint32_t)idle
                                              : (uint32_t)(STORE_LRU_MAX + 1 - idle + now));
    }
}

size_t store_entry_mem_all(const struct store_entry *e)
{
    size_t n = store_entry_mem(e);

    if ((unsigned)entry_enc_field(e) == STORE_META_ENC_COLL) {
        n += (size_t)coll_mem(store_entry_coll(e));
    }
    return n;
}

size_t store_entry_mem(const struct store_entry *e)
{
    struct store_elens l;
    store_entry_lens(e, &l);
    return l.size;
}

void store_entry_drop_expire(struct store_entry *e)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    if (!entry_has_expire(e)) {
        return;
    }
    memmove(store_eb(e) + l.key_off - sizeof(int64_t), store_eb(e) + l.key_off,
            (size_t)l.klen + l.vlen);
    e->meta &= (uint8_t)~STORE_META_EXPIRE;
    store_entry_lens(e, &l);
    if (((size_t)l.key_off + l.klen + l.vlen) % STORE_ARENA_ALIGN != 0) {
        store_eb(e)[l.key_off + l.klen + l.vlen] = 0;
    }
}

/* ---- accounting: what a linked entry adds to its db's and shard's counters ---- */

void store_account_add(struct store_shard *s, struct store_db *d, const struct store_entry *e)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    d->n_keys++;
    s->n_keys++;
    s->entry_bytes += l.size;
    if (store_entry_enc(e) == STORE_ENC_STR) {
        s->value_bytes += l.vlen;
    }
    if (e->meta & STORE_META_EXPIRE) {
        d->n_expires++;
    }
}

void store_account_sub(struct store_shard *s, struct store_db *d, const struct store_entry *e)
{
    struct store_elens l;

    store_entry_lens(e, &l);
    d->n_keys--;
    s->n_keys--;
    s->entry_bytes -= l.size;
    if (store_entry_enc(e) == STORE_ENC_STR) {
        s->value_bytes -= l.vlen;
    }
    if (e->meta & STORE_META_EXPIRE) {
        d->n_expires--;
    }
}
