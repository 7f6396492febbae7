/*
 * store_expire: active expiry, after Redis's activeExpireCycle.
 *
 * There is no separate expires table (it would cost a slot and more per volatile key): each
 * db keeps a SCAN-style cursor over its own index and a sample is "walk buckets from the
 * cursor until STORE_EXPIRE_SAMPLE keys with an expiry were seen", bounded by
 * STORE_EXPIRE_SAMPLE * STORE_EXPIRE_BUCKETS_PER_KEY buckets and by one full pass. Because the
 * cursor is the reverse-binary SCAN cursor, resizes between calls neither skip buckets nor
 * restart the walk. Expired keys met in a sampled bucket are deleted on the spot.
 *
 * A db is sampled again while more than a quarter of its last sample had expired (the key
 * population is then mostly stale and worth the work). Each call covers at most
 * STORE_EXPIRE_DBS_PER_CALL dbs, resuming where the previous call stopped, and reads the
 * caller's clock every STORE_EXPIRE_CHECK_EVERY samples to honour the time budget.
 */
#include "store/store.h"

#include "store/store_internal.h"

#define STORE_EXPIRE_SAMPLE 20          /* keys with an expiry per sample */
#define STORE_EXPIRE_BUCKETS_PER_KEY 20 /* bucket visits allowed per sampled key */
#define STORE_EXPIRE_DBS_PER_CALL 16    /* dbs one call may visit */
#define STORE_EXPIRE_CHECK_EVERY 16     /* samples between two clock reads */

struct expire_ctx {
    struct store_shard *s;
    struct store_db *d;
    int64_t now_ms;
    size_t n_sampled; /* keys with an expiry seen */
    size_t n_expired; /* of which deleted */
};

static void expire_bucket(void *arg, uint8_t *head)
{
    struct expire_ctx *c = arg;
    uint8_t *link = head;

    while (store_link_get(link) != STORE_REF_NONE) {
        struct store_entry *e = store_link_entry(c->s, link);
        if (e->meta & STORE_META_EXPIRE) {
            c->n_sampled++;
            if (store_entry_expired(e, c->now_ms)) {
                store_unlink_free(c->s, c->d, link, STORE_CHANGE_EXPIRED);
                c->s->expired_keys++;
                c->n_expired++;
                continue;
            }
        }
        link = store_entry_link(e);
    }
}

/* One sample of d; returns the context's counts through c. */
static void expire_sample(struct expire_ctx *c)
{
    struct store_db *d = c->d;
    size_t n_buckets = 0;

    do {
        d->expire_cursor = store_index_scan(d, d->expire_cursor, expire_bucket, c);
        n_buckets++;
    } while (c->n_sampled < STORE_EXPIRE_SAMPLE && d->n_expires > 0 && d->expire_cursor != 0 &&
             n_buckets < STORE_EXPIRE_SAMPLE * STORE_EXPIRE_BUCKETS_PER_KEY);
}

size_t store_active_expire(struct store_shard *s, int64_t now_ms, uint64_t time_budget_us,
                           uint64_t (*now_us_fn)(void))
{
    uint64_t start_us = now_us_fn != NULL ? now_us_fn() : 0;
    int n_dbs = s->n_db < STORE_EXPIRE_DBS_PER_CALL ? s->n_db : STORE_EXPIRE_DBS_PER_CALL;
    size_t n_deleted = 0;
    unsigned n_samples = 0;
    bool timed_out = false;

    for (int i = 0; i < n_dbs && !timed_out; i++) {
        struct store_db *d = &s->db[s->expire_db_next];
        struct expire_ctx c;

        s->expire_db_next = (s->expire_db_next + 1) % s->n_db;
        do {
            if (d->n_expires == 0) {
                break;
            }
            c = (struct expire_ctx){s, d, now_ms, 0, 0};
            expire_sample(&c);
            n_deleted += c.n_expired;
            n_samples++;
            if (now_us_fn == NULL) {
                break;
            }
            if (n_samples % STORE_EXPIRE_CHECK_EVERY == 0 &&
                now_us_fn() - start_us > time_budget_us) {
                timed_out = true;
            }
        } while (!timed_out && c.n_expired * 4 > c.n_sampled);
        store_index_maybe_shrink(s, d, STORE_EXPIRE_SAMPLE);
        if (now_us_fn != NULL && !timed_out && now_us_fn() - start_us > time_budget_us) {
            timed_out = true;
        }
    }
    return n_deleted;
}
