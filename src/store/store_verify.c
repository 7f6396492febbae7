/*
 * store_verify: a full consistency check of a shard, for tests and fuzzers (it walks every
 * entry: never call it on a request path).
 *
 * Checked: every entry sits in the bucket its hash names in its table; tab[0] buckets below
 * rehash_idx are empty; table sizes are 0 or powers of two; per-db n_keys and n_expires and
 * the shard's n_keys, entry_bytes, value_bytes and index_bytes equal the sums over the
 * entries and tables.
 */
#include "store/store_internal.h"

#include "core/core_mem.h"
#include "terse/status.h"

static int table_verify(const struct store_shard *s, const struct store_db *d, int t,
                        struct store_stats *sum, size_t *n_keys, size_t *n_expires)
{
    const struct store_table *tab = &d->tab[t];

    if (tab->size != 0 && (tab->size & (tab->size - 1)) != 0) {
        return TERSE_ECORRUPT;
    }
    if ((tab->size == 0) != (tab->slot == NULL)) {
        return TERSE_ECORRUPT;
    }
    if (tab->slot != NULL) {
        sum->index_bytes += core_mem_usable(tab->slot);
    }
    for (uint64_t b = 0; b < tab->size; b++) {
        for (const struct store_entry *e = tab->slot[b]; e != NULL; e = e->next) {
            size_t klen;
            const uint8_t *key = store_entry_key(e, &klen);
            if (t == 0 && d->rehash_idx >= 0 && b < (uint64_t)d->rehash_idx) {
                return TERSE_ECORRUPT;
            }
            if ((store_hash(s, key, klen) & (tab->size - 1)) != b) {
                return TERSE_ECORRUPT;
            }
            if (store_entry_size(klen, e->vlen, (e->meta & STORE_META_EXPIRE) != 0) >
                core_mem_usable(e)) {
                return TERSE_ECORRUPT;
            }
            (*n_keys)++;
            *n_expires += (e->meta & STORE_META_EXPIRE) ? 1 : 0;
            sum->entry_bytes += core_mem_usable(e);
            sum->value_bytes += store_entry_enc(e) == STORE_ENC_STR ? e->vlen : 0;
        }
    }
    return TERSE_OK;
}

int store_verify(const struct store_shard *s)
{
    struct store_stats sum = {0};

    for (int i = 0; i < s->n_db; i++) {
        const struct store_db *d = &s->db[i];
        size_t n_keys = 0;
        size_t n_expires = 0;
        if (d->rehash_idx < 0 && d->tab[1].size != 0) {
            return TERSE_ECORRUPT;
        }
        for (int t = 0; t < 2; t++) {
            int rc = table_verify(s, d, t, &sum, &n_keys, &n_expires);
            if (rc != TERSE_OK) {
                return rc;
            }
        }
        if (n_keys != d->n_keys || n_expires != d->n_expires) {
            return TERSE_ECORRUPT;
        }
        sum.n_keys += n_keys;
    }
    if (sum.n_keys != s->n_keys || sum.entry_bytes != s->entry_bytes ||
        sum.value_bytes != s->value_bytes || sum.index_bytes != s->index_bytes) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}
