/*
 * store_compact: evacuating sparse arena spans, so that memory freed entry by entry goes back
 * to the allocator span by span.
 *
 * Freeing an entry only marks it dead in its span (store_arena.c). Compaction
 * (store_arena_compact, bounded steps from the cron, from background compression and from
 * eviction) evacuates the span with the fewest live bytes while the arena holds more than
 * STORE_COMPACT_SLACK_PCT percent over the live bytes plus the current span: each live entry
 * is copied to the current span and the one link naming it (found again through its key's
 * hash, store_index_link_of) is repointed, unless the caller's drop function deletes it
 * instead (eviction: a cold entry goes rather than moves). The victim span and the offset
 * reached in it are kept in the arena (victim, victim_off), so a step resumes where the last
 * one stopped; the arena forgets a victim it frees.
 *
 * It sits above the arena and the index: it is the one arena job that must know where an
 * entry is linked.
 */
#include "store/store_internal.h"

#include <assert.h>

#include "terse/status.h"

/* Copies the live entry at ref r (named by link) elsewhere and repoints the link; a link is
 * a bucket head or a field inside an entry, neither of which an allocation moves.
 * TERSE_ENOMEM stops. */
static int relocate(struct store_shard *s, store_ref r, size_t size, uint8_t *link)
{
    struct store_entry *ne;
    store_ref nr;

    if (store_arena_alloc(s, size, &nr, &ne) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memcpy(ne, store_arena_ptr(&s->arena, r), size); /* the span table may have moved */
    store_link_put(link, nr);
    store_pending_add(s, nr, ne);
    store_arena_release(s, r, size);
    return TERSE_OK;
}

static uint32_t victim_pick(const struct store_arena *a)
{
    uint32_t best = 0;

    for (uint32_t i = 1; i < a->n_slot; i++) {
        const struct store_span *sp = &a->span[i];
        if (sp->base == NULL || i == a->cur || sp->live >= sp->used * 15ull / 16) {
            continue; /* not worth moving (an entry's own span is always full) */
        }
        if (best == 0 || sp->live < a->span[best].live) {
            best = i;
        }
    }
    return best;
}

static bool compact_wanted(const struct store_shard *s)
{
    return store_arena_dead(&s->arena) * 100 > s->entry_bytes * STORE_COMPACT_SLACK_PCT;
}

size_t store_arena_compact(struct store_shard *s, size_t max_bytes, bool force,
                           store_drop_fn drop, void *arg)
{
    struct store_arena *a = &s->arena;
    size_t done = 0;

    while (done < max_bytes) {
        struct store_span *sp;
        const uint8_t *p;
        size_t size;

        if (a->victim == 0) {
            if ((!force && !compact_wanted(s)) || (a->victim = victim_pick(a)) == 0) {
                break;
            }
            a->victim_off = 0;
        }
        sp = &a->span[a->victim];
        if (a->victim_off >= sp->used) {
            assert(!"a span with nothing live left is freed");
            a->victim = 0;
            break;
        }
        p = sp->base + a->victim_off;
        size = store_arena_record_size(p);
        if (p[0] != STORE_FILL_2 && p[0] != STORE_FILL_N && !(p[0] & STORE_META_DEAD)) {
            uint32_t v = a->victim;
            store_ref r = store_ref_make(v, (uint32_t)(p - sp->base));
            struct store_db *d = NULL;
            uint8_t *link = store_index_link_of(s, r, &d);
            enum store_drop act;

            assert(link != NULL && "a live entry is in no index");
            act = drop != NULL ? drop(arg, d, link) : STORE_DROP_KEEP;

            if (act == STORE_DROP_STOP) {
                break; /* the entry stays; the next step starts with it */
            }
            a->victim_off += (uint32_t)size; /* before: releasing the last one frees it */
            if (act == STORE_DROP_KEEP && relocate(s, r, size, link) != TERSE_OK) {
                a->victim_off -= a->victim == v ? (uint32_t)size : 0;
                break;
            }
            done += size;
            continue;
        }
        a->victim_off += (uint32_t)size;
    }
    return done;
}
