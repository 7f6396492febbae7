/*
 * store_compress: background compression of values written raw (STORE_SET_PENDING).
 *
 * Why: compressing on the write path costs a quarter of SET throughput (bench/README.md), so
 * the write path stores a value of CODEC_RAW_MAX bytes or more in the codec's RAW form
 * (memcpy + checksum) and marks the entry pending; this file compresses it later, when the
 * server is idle, from the cron, or under memory pressure before anything is evicted.
 *
 * Bookkeeping, kept exact by every path that makes or frees a record (the counters are the
 * arena's: store_pending_add/sub in store_arena.c, which frees records and moves them):
 *   - an entry is pending iff its meta has STORE_META_PENDING; the shard counts them
 *     (n_pending) and their stored value bytes (pending_bytes);
 *   - every pending entry of a span starts at an offset >= that span's pend_off (a lower
 *     bound: store_pending_add lowers it, the walk raises it past what it has looked at).
 *
 * The walk: pend_span names the span looked at; in it, the records from pend_off to used are
 * visited in order and pend_off follows. A span with pend_off >= used is skipped (O(1)), so a
 * lap over the arena costs O(spans) plus the records that may be pending. A compressed entry
 * is written into the current span (it is not pending, so meeting it later costs a header
 * parse) and the old one is released: the span it leaves is freed when nothing live is left
 * in it, and compaction (run by the step up to the bytes it freed, forced: not only past
 * STORE_COMPACT_SLACK_PCT of dead space) evacuates spans that only small raw values keep
 * alive.
 *
 *   span:  | c | c | small | P | P | small | P |  free  |      c: compressed (moved out)
 *                          ^pend_off           ^used         P: pending
 */
#include "store/store.h"

#include <assert.h>

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/store_internal.h"
#include "terse/status.h"

#define STORE_ZBUF_KEEP (256u * 1024) /* a compression buffer above this is freed after a step */
#define STORE_ZBUF_MIN 4096u          /* smallest compression buffer */
#define STORE_COMPRESS_CHECK_EVERY 256 /* records or spans looked at between two clock reads */

uint64_t store_pending_count(const struct store_shard *s)
{
    return s->n_pending;
}

static int zbuf_reserve(struct store_shard *s, size_t n)
{
    size_t cap = s->zbuf_cap < STORE_ZBUF_MIN ? STORE_ZBUF_MIN : s->zbuf_cap;
    uint8_t *p;

    if (n <= s->zbuf_cap) {
        return TERSE_OK;
    }
    while (cap < n) {
        cap *= 2;
    }
    p = core_alloc(cap);
    if (p == NULL) {
        return TERSE_ENOMEM;
    }
    core_free(s->zbuf); /* nothing is kept across calls */
    s->zbuf = p;
    s->zbuf_cap = cap;
    return TERSE_OK;
}

/*
 * Compresses the pending entry at r. *freed receives the decrease of entry_bytes, *saved that
 * of value_bytes. Returns
 * TERSE_OK (done: compressed, or left raw and no longer pending) or TERSE_ENOMEM (still
 * pending, nothing changed).
 */
static int compress_one(struct store_shard *s, struct codec_ctx *c,
                        const struct store_compress_budget *b, store_ref r, size_t *freed,
                        size_t *saved)
{
    uint8_t *out;
    struct store_entry *e = store_arena_ptr(&s->arena, r), *ne;
    struct store_elens l;
    struct store_db *d = NULL;
    uint8_t *link;
    size_t zlen = 0, need;
    store_ref nr;

    *freed = 0;
    *saved = 0;
    store_entry_lens(e, &l);
    if (b != NULL && b->scratch != NULL && b->scratch_cap >= l.vlen) {
        out = b->scratch; /* the caller's: no memory of our own beside the budget's */
    } else if (zbuf_reserve(s, l.vlen) == TERSE_OK) {
        out = s->zbuf;
    } else {
        return TERSE_ENOMEM;
    }
    /* dst_cap = the stored length: the keep rule makes any kept form shorter. A header that
     * does not parse (damaged while held) stays as it is: a read reports it. */
    if (codec_value_recompress(c, store_ecb(e) + l.key_off + l.klen, l.vlen, out, l.vlen,
                               &zlen) != TERSE_OK ||
        zlen == 0) {
        store_pending_sub(s, e);
        return TERSE_OK;
    }
    need = store_entry_size(l.klen, zlen, (e->meta & STORE_META_EXPIRE) != 0);
    if (need >= l.size) {
        store_pending_sub(s, e);
        return TERSE_OK;
    }
    if (store_arena_alloc(s, need, &nr, &ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    e = store_arena_ptr(&s->arena, r); /* the span table may have moved */
    link = store_index_link_of(s, r, &d);
    assert(link != NULL);
    store_entry_copy_val(ne, e, out, (uint32_t)zlen);
    store_link_put(link, nr);
    store_account_sub(s, d, e);
    store_arena_release(s, r, l.size); /* uncounts it as pending */
    store_account_add(s, d, ne);
    *freed = l.size - need;
    *saved = l.vlen - zlen;
    return TERSE_OK;
}

static uint64_t budget_now(const struct store_compress_budget *b)
{
    return b != NULL && b->now_us != NULL ? b->now_us(b->arg) : 0;
}

static bool budget_spent(const struct store_compress_budget *b, uint64_t start_us)
{
    return b != NULL && b->now_us != NULL && b->now_us(b->arg) - start_us >= b->budget_us;
}

size_t store_compress_step(struct store_shard *s, struct codec_ctx *c,
                           const struct store_compress_budget *b, size_t *saved)
{
    struct store_arena *a = &s->arena;
    uint64_t start_us = s->n_pending > 0 ? budget_now(b) : 0;
    size_t want = b != NULL ? b->want_bytes : 0;
    size_t n_done = 0, total = 0, freed_total = 0, n_seen = 0;
    uint32_t n_skipped = 0;

    while (s->n_pending > 0 && c != NULL) {
        struct store_span *sp;
        uint32_t off;
        const uint8_t *p;
        size_t freed = 0, got = 0;

        if (++n_seen % STORE_COMPRESS_CHECK_EVERY == 0 && budget_spent(b, start_us)) {
            break;
        }
        if (s->pend_span == 0 || s->pend_span >= a->n_slot) {
            s->pend_span = 1;
        }
        sp = &a->span[s->pend_span];
        if (sp->base == NULL || sp->pend_off >= sp->used) {
            s->pend_span++;
            /* Every pending entry is at or past its span's pend_off: one lap finds one. */
            assert(n_skipped <= 2 * a->n_slot);
            if (++n_skipped > 2 * a->n_slot) {
                break;
            }
            continue;
        }
        n_skipped = 0;
        off = sp->pend_off;
        p = sp->base + off;
        sp->pend_off = off + (uint32_t)store_arena_record_size(p);
        if (p[0] == STORE_FILL_2 || p[0] == STORE_FILL_N ||
            (p[0] & (STORE_META_DEAD | STORE_META_PENDING)) != STORE_META_PENDING) {
            continue;
        }
        if (compress_one(s, c, b, store_ref_make(s->pend_span, off), &freed, &got) !=
            TERSE_OK) {
            /* Out of memory: the entry stays pending and the walk comes back to it. */
            sp = &a->span[s->pend_span];
            if (sp->base != NULL && off < sp->pend_off) {
                sp->pend_off = off;
            }
            break;
        }
        n_done++;
        total += got;
        freed_total += freed;
        if ((want > 0 && total >= want) || budget_spent(b, start_us)) {
            break;
        }
    }
    if (freed_total > 0) {
        /* Forced: the spans values were moved out of are evacuated whatever the arena's
         * overall slack (STORE_COMPACT_SLACK_PCT would leave up to that much of the memory
         * compression won in holes), within the bytes this step freed. */
        (void)store_arena_compact(s, freed_total, true, NULL, NULL);
    }
    if (s->zbuf_cap > STORE_ZBUF_KEEP) {
        core_free(s->zbuf);
        s->zbuf = NULL;
        s->zbuf_cap = 0;
    }
    if (saved != NULL) {
        *saved = total;
    }
    return n_done;
}
