/*
 * fuzz target stream_form: hostile bytes as a stream's form (store_stream.h).
 *
 * The input is taken as a form. Properties checked on every input:
 *   - nothing reads past the input (libFuzzer and the replay driver give a block of exactly
 *     its size) and the encoder writes nothing past its cap (each output is a heap block of
 *     exactly the cap, so ASan sees an over-write);
 *   - store_stream_decode answers TERSE_OK or TERSE_ECORRUPT only, and a refused input leaves
 *     an empty model;
 *   - an accepted form has one spelling: encode(decode(x)) == x (a version 1 form is written
 *     as version 2, which then reads back as itself), store_stream_size included,
 *     and one byte less of room is TERSE_ETOOBIG;
 *   - edits drawn from the input (append an entry above the last ID into nodes of 0-3 slots
 *     (0: no limit), remove entries (emptied nodes go), insert
 *     and remove groups, consumers and pending entries, as the commands do) keep the model's
 *     invariants: each round's result decodes (TERSE_OK) to a model that encodes back to the
 *     same bytes. Three rounds run in a row, each on the previous result.
 */
#include "store/form/store_stream.h"

#include "terse/status.h"

#include "fuzz_form.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZ_ROUNDS 3
#define FZ_EDITS 12

/* Encodes s into a block of exactly its size; checks the size, the cap, and one byte less. */
static uint8_t *fz_encode(const struct store_stream *s, size_t *len)
{
    size_t need = store_stream_size(s);
    uint8_t *out = malloc(need != 0 ? need : 1);

    fz_check(out != NULL);
    fz_check(store_stream_encode(s, out, need - 1, len) == TERSE_ETOOBIG);
    fz_check(store_stream_encode(s, out, need, len) == TERSE_OK && *len == need);
    return out;
}

/* Some bytes of the input (or of the form) to name a group or consumer: borrowed. */
static void fz_name(struct fz_rng *r, const uint8_t *data, size_t size, const uint8_t **p,
                    size_t *len)
{
    size_t at = size != 0 ? (size_t)(fz_next(r) % size) : 0;

    *len = size != 0 ? (size_t)(fz_next(r) % (size - at < 6 ? size - at + 1 : 6)) : 0;
    *p = size != 0 ? data + at : (const uint8_t *)"";
}

static const uint8_t fz_pairs[] = {1, 'f', 0}; /* one pair: "f" and "" */

static void fz_edit(struct store_stream *s, struct fz_rng *r, const uint8_t *data, size_t size,
                    int64_t now)
{
    uint64_t op = fz_next(r) % 8;
    const uint8_t *name;
    size_t nlen;
    bool found;

    if (op == 0 && !(s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX)) {
        struct store_stream_entry e = {s->last_id, 1, fz_pairs, sizeof(fz_pairs)};
        if (e.id.seq == UINT64_MAX) {
            e.id.ms++;
            e.id.seq = 0;
        } else {
            e.id.seq++;
        }
        fz_check(store_stream_append(s, &e, (size_t)(fz_next(r) % 4),
                                     fz_next(r) % 2 ? UINT64_MAX : fz_next(r) % 512) == TERSE_OK);
        s->last_id = e.id;
        s->entries_added++;
    } else if (op == 1 && s->n_ents > 0) {
        size_t at = (size_t)(fz_next(r) % s->n_ents);
        store_stream_remove(s, at, (size_t)(fz_next(r) % (s->n_ents - at + 1)));
    } else if (op == 2) {
        size_t at;
        fz_name(r, data, size, &name, &nlen);
        at = store_stream_group_find(s, name, nlen, &found);
        if (!found) {
            fz_check(store_stream_group_insert(s, at, name, nlen, s->last_id, -1) == TERSE_OK);
        }
    } else if (op == 3 && s->n_groups > 0) {
        store_stream_group_remove(s, (size_t)(fz_next(r) % s->n_groups));
    } else if (op >= 4 && s->n_groups > 0) {
        struct store_stream_group *g = &s->groups[fz_next(r) % s->n_groups];
        if (op == 4) {
            size_t at;
            fz_name(r, data, size, &name, &nlen);
            at = store_stream_consumer_find(g, name, nlen, &found);
            if (!found) {
                fz_check(store_stream_consumer_insert(s, g, at, name, nlen, now) == TERSE_OK);
            }
        } else if (op == 5 && g->n_cons > 0) {
            size_t pending, before = g->n_pel, ci = (size_t)(fz_next(r) % g->n_cons);
            size_t want = store_stream_consumer_pending(g, ci);
            store_stream_consumer_remove(g, ci, &pending);
            fz_check(pending == want && g->n_pel == before - pending);
        } else if (op == 6 && g->n_cons > 0) {
            struct store_stream_pending p = {{fz_next(r) % 4, fz_next(r) % 4},
                                             (size_t)(fz_next(r) % g->n_cons), now, 1};
            size_t at = store_stream_pel_find(g, &p.id, &found);
            if (!found) {
                fz_check(store_stream_pel_insert(s, g, at, &p) == TERSE_OK);
            }
        } else if (op == 7 && g->n_pel > 0) {
            store_stream_pel_remove(g, (size_t)(fz_next(r) % g->n_pel));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct store_stream s;
    struct fz_rng r;
    struct fz_chain chain;
    uint8_t *out;
    size_t len;
    int st = store_stream_decode(&s, NULL, data, size);

    if (st != TERSE_OK) {
        fz_check(st == TERSE_ECORRUPT && s.n_ents == 0 && s.n_groups == 0);
        store_stream_deinit(&s);
        return 0;
    }
    out = fz_encode(&s, &len);
    if (data[0] == STORE_STREAM_VERSION) {
        fz_check(len == size && memcmp(out, data, size) == 0);
    } else {
        /* A version 1 form loads with its node sizes counted; it is written as version 2,
         * which reads back as itself. */
        struct store_stream v2;
        uint8_t *again;
        size_t alen;
        fz_check(store_stream_decode(&v2, NULL, out, len) == TERSE_OK);
        again = fz_encode(&v2, &alen);
        fz_check(alen == len && memcmp(again, out, len) == 0);
        free(again);
        store_stream_deinit(&v2);
    }
    free(out);
    fz_rng_init(&r, data, size);
    fz_chain_init(&chain, data, size);
    for (int round = 0; round < FZ_ROUNDS; round++) {
        struct store_stream d;
        for (int k = 0; k < FZ_EDITS; k++) {
            fz_edit(&s, &r, data, size, (int64_t)fz_next(&r));
        }
        out = fz_encode(&s, &len);
        store_stream_deinit(&s);
        (void)fz_chain_take(&chain, out, len);
        fz_check(store_stream_decode(&d, NULL, chain.form, chain.len) == TERSE_OK);
        out = fz_encode(&d, &len);
        fz_check(len == chain.len && memcmp(out, chain.form, len) == 0);
        free(out);
        s = d; /* the next round edits the decoded result (borrowing chain.form) */
    }
    store_stream_deinit(&s);
    fz_chain_deinit(&chain);
    return 0;
}
