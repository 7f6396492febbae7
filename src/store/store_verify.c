/*
 * store_verify: a full consistency check of a shard, for tests and fuzzers (it walks every
 * entry and every arena record: never call it on a request path).
 *
 * Checked: every entry sits in the bucket its hash names; bucket counts are within the table;
 * per-db n_keys and n_expires and the shard's n_keys, entry_bytes, value_bytes and
 * index_bytes equal the sums over the entries and tables; every span's records tile
 * [0, used) exactly, its live count is the sum of its live entries' footprints, and the live
 * entries of the arena are exactly the indexed ones; n_pending and pending_bytes count the
 * entries marked pending, and none lies below its span's pend_off.
 */
#include "store/store_internal.h"

#include "core/core_mem.h"
#include "terse/status.h"

static int db_verify(const struct store_shard *s, struct store_db *d, struct store_stats *sum)
{
    size_t n_keys = 0;
    size_t n_expires = 0;

    if ((d->n_buckets == 0) != (d->seg == NULL) || (d->n_keys > 0 && d->n_buckets == 0)) {
        return TERSE_ECORRUPT;
    }
    if (d->seg == NULL) {
        return d->n_keys == 0 && d->n_expires == 0 ? TERSE_OK : TERSE_ECORRUPT;
    }
    sum->index_bytes += core_mem_usable(d->seg);
    for (uint64_t i = 0; i < d->n_seg; i++) {
        sum->index_bytes += core_mem_usable(d->seg[i]);
    }
    if (d->n_seg != (d->n_buckets - 1) / STORE_SEG_BUCKETS + 1) {
        return TERSE_ECORRUPT;
    }
    /* Heads past the last bucket (segment 0 is never shrunk) are empty. */
    for (uint64_t b = d->n_buckets; b < d->seg0_cap; b++) {
        if (d->seg[0][b] != STORE_REF_NONE) {
            return TERSE_ECORRUPT;
        }
    }
    for (uint64_t b = 0; b < d->n_buckets; b++) {
        store_ref r = store_link_get(store_index_bucket(d, b));
        while (r != STORE_REF_NONE) {
            const struct store_entry *e = store_arena_ptr(&s->arena, r);
            struct store_elens l;
            store_entry_lens(e, &l);
            if (e->meta & STORE_META_DEAD || e->meta == STORE_FILL_2 || e->meta == STORE_FILL_N) {
                return TERSE_ECORRUPT;
            }
            if (store_index_bucket_of(d, store_hash(s, store_ecb(e) + l.key_off, l.klen)) != b) {
                return TERSE_ECORRUPT;
            }
            n_keys++;
            n_expires += (e->meta & STORE_META_EXPIRE) ? 1 : 0;
            sum->entry_bytes += l.size;
            sum->value_bytes += store_entry_enc(e) == STORE_ENC_STR ? l.vlen : 0;
            if (n_keys > d->n_keys) {
                return TERSE_ECORRUPT; /* also stops a cycle */
            }
            r = store_entry_next(e);
        }
    }
    if (n_keys != d->n_keys || n_expires != d->n_expires) {
        return TERSE_ECORRUPT;
    }
    sum->n_keys += n_keys;
    return TERSE_OK;
}

static int arena_verify(const struct store_shard *s, uint64_t *n_live, uint64_t *span_bytes,
                        struct store_stats *pend)
{
    const struct store_arena *a = &s->arena;
    uint64_t dead = 0;

    for (uint32_t i = 1; i < a->n_slot; i++) {
        const struct store_span *sp = &a->span[i];
        uint64_t live = 0;
        uint32_t off = 0;
        if (sp->base == NULL) {
            continue;
        }
        *span_bytes += core_mem_usable(sp->base);
        dead += sp->used - sp->live;
        if (sp->used > sp->cap || sp->cap > core_mem_usable(sp->base)) {
            return TERSE_ECORRUPT;
        }
        while (off < sp->used) {
            const uint8_t *p = sp->base + off;
            size_t size;
            if (p[0] == STORE_FILL_2) {
                size = 2;
            } else if (p[0] == STORE_FILL_N) {
                size = (size_t)p[1] | (size_t)p[2] << 8 | (size_t)p[3] << 16;
            } else {
                struct store_elens l;
                store_entry_lens((const struct store_entry *)(const void *)p, &l);
                size = l.size;
                if (!(p[0] & STORE_META_DEAD)) {
                    live += size;
                    (*n_live)++;
                }
                if (!(p[0] & STORE_META_DEAD) && (p[0] & STORE_META_PENDING)) {
                    if (off < sp->pend_off) {
                        return TERSE_ECORRUPT;
                    }
                    pend->n_pending++;
                    pend->pending_bytes += l.vlen;
                }
            }
            if (size == 0 || size % STORE_ARENA_ALIGN != 0 || size > sp->used - off) {
                return TERSE_ECORRUPT;
            }
            off += (uint32_t)size;
        }
        if (live != sp->live || (live == 0 && i != a->cur)) {
            return TERSE_ECORRUPT;
        }
    }
    return dead == a->dead_bytes ? TERSE_OK : TERSE_ECORRUPT;
}

int store_verify(const struct store_shard *s)
{
    struct store_stats sum = {0};
    uint64_t n_live = 0;
    uint64_t span_bytes = 0;

    for (int i = 0; i < s->n_db; i++) {
        int rc = db_verify(s, &s->db[i], &sum);
        if (rc != TERSE_OK) {
            return rc;
        }
    }
    if (arena_verify(s, &n_live, &span_bytes, &sum) != TERSE_OK ||
        sum.n_pending != s->n_pending || sum.pending_bytes != s->pending_bytes) {
        return TERSE_ECORRUPT;
    }
    if (sum.n_keys != s->n_keys || sum.entry_bytes != s->entry_bytes ||
        sum.value_bytes != s->value_bytes || sum.index_bytes != s->index_bytes ||
        n_live != s->n_keys || span_bytes != s->arena.span_bytes ||
        core_mem_usable(s->arena.span) != s->arena.table_bytes) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}
