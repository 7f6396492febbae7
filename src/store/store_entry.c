/*
 * store_entry: the one-block entry (layout in store_internal.h), its accessors and its access
 * metadata: a 24-bit LRU clock in seconds and Redis's 8-bit logarithmic LFU counter
 * (lfu-log-factor STORE_LFU_LOG_FACTOR, decay STORE_LFU_DECAY_MIN minutes per step).
 *
 * The expiry and the int64 value sit at offsets that are not always 8-aligned (the int64
 * follows the key), so they are read and written with memcpy.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <string.h>

#include "core/core_mem.h"

static bool entry_has_expire(const struct store_entry *e)
{
    return (e->meta & STORE_META_EXPIRE) != 0;
}

static size_t entry_key_off(const struct store_entry *e)
{
    return entry_has_expire(e) ? sizeof(int64_t) : 0;
}

size_t store_entry_size(size_t klen, size_t vlen, bool has_expire)
{
    return STORE_ENTRY_HDR + (has_expire ? sizeof(int64_t) : 0) + klen + vlen;
}

uint32_t store_clock_lru(int64_t now_ms)
{
    return (uint32_t)((uint64_t)(now_ms / 1000) & STORE_LRU_MAX);
}

uint16_t store_clock_ldt(int64_t now_ms)
{
    return (uint16_t)((uint64_t)(now_ms / 60000) & 0xffffu);
}

uint64_t store_rng_next(struct store_shard *s)
{
    /* xorshift64*: statistically fine for sampling, and the state is per shard. */
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static void entry_fill(struct store_entry *e, enum store_enc enc, const void *val, uint32_t vlen,
                       int64_t expire_ms, const void *key_src, size_t klen)
{
    bool has_exp = expire_ms >= 0;
    size_t off = has_exp ? sizeof(int64_t) : 0;

    /* The key may already be in the block (rewrite): memmove handles the overlap. */
    if (klen > 0) {
        memmove(e->data + off, key_src, klen);
    }
    if (has_exp) {
        memcpy(e->data, &expire_ms, sizeof(expire_ms));
    }
    e->meta = (uint8_t)((unsigned)STORE_TYPE_STRING |
                        ((unsigned)enc << STORE_META_ENC_SHIFT) |
                        (has_exp ? STORE_META_EXPIRE : 0u));
    e->vlen = vlen;
    if (vlen > 0) {
        memcpy(e->data + off + klen, val, vlen);
    }
}

struct store_entry *store_entry_make(const void *key, uint32_t klen, enum store_enc enc,
                                     const void *val, uint32_t vlen, int64_t expire_ms,
                                     int64_t now_ms)
{
    struct store_entry *e = core_alloc(store_entry_size(klen, vlen, expire_ms >= 0));
    if (e == NULL) {
        return NULL;
    }
    e->next = NULL;
    e->klen = klen;
    e->clock = store_clock_lru(now_ms) | (STORE_LFU_INIT << STORE_LRU_BITS);
    e->ldt = store_clock_ldt(now_ms);
    e->pad = 0;
    e->meta = 0;
    entry_fill(e, enc, val, vlen, expire_ms, key, klen);
    return e;
}

void store_entry_rewrite(struct store_entry *e, enum store_enc enc, const void *val,
                         uint32_t vlen, int64_t expire_ms)
{
    assert(store_entry_size(e->klen, vlen, expire_ms >= 0) <= core_mem_usable(e));
    entry_fill(e, enc, val, vlen, expire_ms, e->data + entry_key_off(e), e->klen);
}

unsigned char *store_entry_valp(struct store_entry *e)
{
    return e->data + entry_key_off(e) + e->klen;
}

void store_entry_expire_put(struct store_entry *e, int64_t expire_ms)
{
    size_t body = (size_t)e->klen + e->vlen;

    if (expire_ms < 0) {
        if (entry_has_expire(e)) {
            memmove(e->data, e->data + sizeof(int64_t), body);
            e->meta &= (uint8_t)~STORE_META_EXPIRE;
        }
        return;
    }
    if (!entry_has_expire(e)) {
        assert(store_entry_size(e->klen, e->vlen, true) <= core_mem_usable(e));
        memmove(e->data + sizeof(int64_t), e->data, body);
        e->meta |= STORE_META_EXPIRE;
    }
    memcpy(e->data, &expire_ms, sizeof(expire_ms));
}

bool store_entry_expired(const struct store_entry *e, int64_t now_ms)
{
    int64_t when;

    if (!entry_has_expire(e)) {
        return false;
    }
    memcpy(&when, e->data, sizeof(when));
    return when <= now_ms;
}

/* ---- LRU / LFU ---- */

static uint32_t lfu_elapsed_min(uint16_t ldt, int64_t now_ms)
{
    uint16_t now = store_clock_ldt(now_ms);
    return now >= ldt ? (uint32_t)(now - ldt) : 65535u - ldt + now;
}

unsigned store_entry_lfu_at(const struct store_entry *e, int64_t now_ms, int decay_min)
{
    unsigned counter = e->clock >> STORE_LRU_BITS;
    uint32_t periods;

    if (decay_min <= 0) {
        return counter; /* lfu-decay-time 0: never decays, as Redis */
    }
    periods = lfu_elapsed_min(e->ldt, now_ms) / (uint32_t)decay_min;
    return periods >= counter ? 0 : counter - periods;
}

static unsigned lfu_decayed(const struct store_entry *e, int64_t now_ms)
{
    return store_entry_lfu_at(e, now_ms, STORE_LFU_DECAY_MIN);
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
    if (r < 1.0 / (base * STORE_LFU_LOG_FACTOR + 1.0)) {
        counter++;
    }
    return counter;
}

void store_entry_touch(struct store_shard *s, struct store_entry *e, int64_t now_ms)
{
    unsigned counter = lfu_log_incr(s, lfu_decayed(e, now_ms));
    e->clock = store_clock_lru(now_ms) | ((uint32_t)counter << STORE_LRU_BITS);
    e->ldt = store_clock_ldt(now_ms);
}

/* ---- public accessors ---- */

const uint8_t *store_entry_key(const struct store_entry *e, size_t *klen)
{
    *klen = e->klen;
    return e->data + entry_key_off(e);
}

enum store_type store_entry_type(const struct store_entry *e)
{
    return (enum store_type)(e->meta & STORE_META_TYPE_MASK);
}

enum store_enc store_entry_enc(const struct store_entry *e)
{
    return (enum store_enc)((e->meta & STORE_META_ENC_MASK) >> STORE_META_ENC_SHIFT);
}

int64_t store_entry_int(const struct store_entry *e)
{
    int64_t v;
    assert(store_entry_enc(e) == STORE_ENC_INT);
    memcpy(&v, e->data + entry_key_off(e) + e->klen, sizeof(v));
    return v;
}

const uint8_t *store_entry_val(const struct store_entry *e, size_t *len)
{
    assert(store_entry_enc(e) == STORE_ENC_STR);
    *len = e->vlen;
    return e->data + entry_key_off(e) + e->klen;
}

uint8_t *store_entry_val_mut(struct store_entry *e, size_t *len)
{
    *len = e->vlen;
    return store_entry_valp(e);
}

int64_t store_entry_expire(const struct store_entry *e)
{
    int64_t when;

    if (!entry_has_expire(e)) {
        return STORE_NO_EXPIRE;
    }
    memcpy(&when, e->data, sizeof(when));
    return when;
}

uint64_t store_entry_idle_s(const struct store_entry *e, int64_t now_ms)
{
    uint32_t now = store_clock_lru(now_ms);
    uint32_t lru = e->clock & STORE_LRU_MAX;
    return now >= lru ? (uint64_t)(now - lru) : (uint64_t)(STORE_LRU_MAX - lru) + now;
}

unsigned store_entry_freq(const struct store_entry *e, int64_t now_ms)
{
    return lfu_decayed(e, now_ms);
}

size_t store_entry_mem(const struct store_entry *e)
{
    return core_mem_usable(e);
}

struct store_entry *store_entry_clone(const struct store_entry *src, const void *key,
                                      uint32_t klen)
{
    bool has_exp = (src->meta & STORE_META_EXPIRE) != 0;
    size_t off = has_exp ? sizeof(int64_t) : 0;
    struct store_entry *e = core_alloc(store_entry_size(klen, src->vlen, has_exp));

    if (e == NULL) {
        return NULL;
    }
    memcpy(e, src, STORE_ENTRY_HDR + off);
    e->next = NULL;
    e->klen = klen;
    if (klen > 0) {
        memcpy(e->data + off, key, klen);
    }
    if (src->vlen > 0) {
        memcpy(e->data + off + klen, src->data + off + src->klen, src->vlen);
    }
    return e;
}
