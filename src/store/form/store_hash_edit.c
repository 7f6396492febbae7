/*
 * store_hash_edit: writes the next form of a hash (store_hash_edit in store_hash.h) from the old
 * form, the pairs to set and the fields to delete, in one pass over the old form and a bounded
 * amount of stack: no allocation, whatever the number of fields.
 *
 * Matching fields. Old fields against `set` and `del`, and `set` against itself, go through the
 * stack table (store_hash_internal.h):
 *
 *   edit:  n + m <= EDIT_LINEAR: plain scans of the arguments, no hashing (HSET/HDEL of a few
 *          fields on a big hash cost a copy and a few length compares per field).
 *          n + m <= one block (2560): one table of `set` and `del`; each old field and each
 *          `set` field is looked up once: O(k + n + m).
 *          beyond: blocks of old fields (every argument looked up against each), then blocks
 *          of `set` fields (the other `set` fields, `del`, and the old fields unless phase one
 *          noted them in a bitmap, looked up against each): O((k + n) * (k + n + m) / 2560)
 *          lookups at worst (measured: a 100000-field hash built in one call 80 ms, 5000
 *          fields set on it 10 ms; 1M fields in one call 7.7 s).
 *
 * Writing the count. The count leads the form but is known only at the end, and deciding each
 * field (a hash lookup) costs far more than moving bytes, so there is no counting pass: the
 * fields are written after a guess of the count's width (the old count's) and slid once at the
 * end when the guess was wrong (a count crossing a power of 128). When room runs out they
 * first slide down to offset 1, so a cap that fits the result is never refused.
 */
#include "store/form/store_hash.h"

#include "codec/codec_varint.h"
#include "store/form/store_hash_internal.h"
#include "terse/status.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

/* How many `set` fields edit's bitmap can note as old (a multiple of 64); the fuzz target
 * includes this file with a small value, as it does STORE_HASH_TAB_WORDS. */
#ifndef STORE_HASH_IN_OLD_BITS
#define STORE_HASH_IN_OLD_BITS 8192
#endif
_Static_assert(STORE_HASH_IN_OLD_BITS >= 64 && STORE_HASH_IN_OLD_BITS % 64 == 0,
               "STORE_HASH_IN_OLD_BITS: a multiple of 64");

#define EDIT_LINEAR 8 /* store_hash_edit scans n + m up to this many arguments linearly */

#define VAL_LAST SLOT_REF             /* index + 1 of the last `set` pair with this field */
#define VAL_DEL ((uint64_t)1 << 63)    /* the field is in `del` */
#define VAL_OLD ((uint64_t)1 << 62)    /* the field is an old field */
#define VAL_EARLIER ((uint64_t)1 << 61) /* a `set` pair before the block has this field */

#define NO_SET SIZE_MAX

size_t store_hash_pair_overhead(size_t flen, size_t vlen)
{
    return codec_varint_len(flen) + codec_varint_len(vlen);
}

struct edit {
    const uint8_t *form;             /* the old form, NULL when the hash is new */
    const uint8_t *body;             /* its first field */
    const uint8_t *end;              /* its end */
    uint64_t k;                      /* its field count */
    const struct store_hash_kv *set; /* n pairs */
    size_t n;
    const struct store_hash_kv *del; /* m fields */
    size_t m;
    uint8_t *out;                    /* cap bytes */
    size_t cap;
    size_t off;                      /* out[off..pos): the fields written, the count goes first */
    size_t pos;
    const uint8_t *run;              /* first old field not yet copied (copied in runs) */
    size_t added;
    size_t removed;
    bool note_old;                   /* n <= STORE_HASH_IN_OLD_BITS: in_old is kept */
    uint64_t in_old[STORE_HASH_IN_OLD_BITS / 64]; /* bit i: set[i]'s field is an old field */
};

static uint64_t tab_ref(const struct tab *t, size_t i)
{
    return (t->slot[i] & SLOT_REF) - 1;
}

/* Room for need more bytes after pos: TERSE_OK or TERSE_ETOOBIG (see the top of the file). */
static int out_room(struct edit *e, size_t need)
{
    if (need <= e->cap - e->pos) {
        return TERSE_OK;
    }
    if (e->off > 1) {
        memmove(e->out + 1, e->out + e->off, e->pos - e->off);
        e->pos -= e->off - 1;
        e->off = 1;
        if (need <= e->cap - e->pos) {
            return TERSE_OK;
        }
    }
    return TERSE_ETOOBIG;
}

/* Writes the field of fkv with the value of vkv. */
static int out_field(struct edit *e, const struct store_hash_kv *fkv,
                     const struct store_hash_kv *vkv)
{
    size_t need = store_hash_pair_overhead(fkv->flen, vkv->vlen) + fkv->flen + vkv->vlen;
    uint8_t *p;

    if (out_room(e, need) != TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    p = e->out + e->pos;
    p += codec_varint_put(p, fkv->flen);
    if (fkv->flen != 0) {
        memcpy(p, fkv->f, fkv->flen);
        p += fkv->flen;
    }
    p += codec_varint_put(p, vkv->vlen);
    if (vkv->vlen != 0) {
        memcpy(p, vkv->v, vkv->vlen);
    }
    e->pos += need;
    return TERSE_OK;
}

/* Copies the old fields from e->run up to upto as they are. */
static int old_flush(struct edit *e, const uint8_t *upto)
{
    size_t len;

    if (upto == e->run) {
        return TERSE_OK; /* also the new hash's case, both NULL */
    }
    len = (size_t)(upto - e->run);
    if (out_room(e, len) != TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    memcpy(e->out + e->pos, e->run, len);
    e->pos += len;
    e->run = upto;
    return TERSE_OK;
}

/* The old field kv, at [rec, next): kept, dropped, or given set[j]'s value (j != NO_SET). */
static int old_emit(struct edit *e, const uint8_t *rec, const uint8_t *next,
                    const struct store_hash_kv *kv, bool drop, size_t j)
{
    if (!drop && j == NO_SET) {
        return TERSE_OK; /* stays in the run */
    }
    if (old_flush(e, rec) != TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    e->run = next;
    if (drop) {
        e->removed++;
        return TERSE_OK;
    }
    return out_field(e, kv, &e->set[j]);
}

static void note_old(struct edit *e, size_t j)
{
    if (e->note_old) {
        e->in_old[j / 64] |= (uint64_t)1 << (j % 64);
    }
}

static bool noted_old(const struct edit *e, size_t j)
{
    return e->note_old && (e->in_old[j / 64] >> (j % 64) & 1) != 0;
}

/* n + m <= EDIT_LINEAR: every question is a scan of the arguments. */
static int edit_linear(struct edit *e)
{
    const uint8_t *p = e->body;
    int rc;

    for (uint64_t r = 0; r < e->k; r++) {
        const uint8_t *rec = p;
        struct store_hash_kv kv;
        size_t j = NO_SET;
        bool drop = false;

        (void)rec_read(&p, e->end, &kv); /* scanned before */
        for (size_t d = 0; d < e->m; d++) {
            drop = drop || kv_eq(&kv, &e->del[d]);
        }
        for (size_t i = 0; i < e->n; i++) {
            if (kv_eq(&kv, &e->set[i])) {
                j = i;
                note_old(e, i);
            }
        }
        if ((rc = old_emit(e, rec, p, &kv, drop, j)) != TERSE_OK) {
            return rc;
        }
    }
    if ((rc = old_flush(e, e->end)) != TERSE_OK) {
        return rc;
    }
    for (size_t i = 0; i < e->n; i++) {
        const struct store_hash_kv *s = &e->set[i];
        size_t last = i;
        bool skip = noted_old(e, i);

        for (size_t j = 0; j < i && !skip; j++) {
            skip = kv_eq(s, &e->set[j]);
        }
        for (size_t d = 0; d < e->m && !skip; d++) {
            skip = kv_eq(s, &e->del[d]);
        }
        if (skip) {
            continue;
        }
        for (size_t j = e->n - 1; j > i; j--) {
            if (kv_eq(s, &e->set[j])) {
                last = j;
                break;
            }
        }
        if ((rc = out_field(e, s, &e->set[last])) != TERSE_OK) {
            return rc;
        }
        e->added++;
    }
    return TERSE_OK;
}

/* Adds set[a..b) to t (references: their indexes), each slot's VAL_LAST the last of them. */
static void tab_add_set(struct tab *t, const struct edit *e, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        bool fresh;
        size_t s = tab_add(t, &e->set[i], i, &fresh);

        t->val[s] = (t->val[s] & ~VAL_LAST) | (i + 1);
    }
}

/* Marks VAL_DEL on the slots of the `del` fields t holds (adding them when add). */
static void tab_mark_del(struct tab *t, const struct edit *e, bool add)
{
    for (size_t d = 0; d < e->m; d++) {
        size_t s;

        if (add) {
            bool fresh;

            s = tab_add(t, &e->del[d], e->n + d, &fresh);
        } else if ((s = tab_find(t, &e->del[d])) == SIZE_MAX) {
            continue;
        }
        t->val[s] |= VAL_DEL;
    }
}

/* Old fields [p, upto) against t: each one's fate from the VAL_* of its slot. */
static int old_apply(struct edit *e, struct tab *t, const uint8_t *p, const uint8_t *upto)
{
    while (p != upto) {
        const uint8_t *rec = p;
        struct store_hash_kv kv;
        size_t s, j = NO_SET;
        bool drop = false;
        int rc;

        (void)rec_read(&p, e->end, &kv); /* scanned before */
        if ((s = tab_find(t, &kv)) != SIZE_MAX) {
            uint64_t v = t->val[s];

            t->val[s] |= VAL_OLD;
            drop = (v & VAL_DEL) != 0;
            j = (v & VAL_LAST) != 0 ? (size_t)(v & VAL_LAST) - 1 : NO_SET;
        }
        if ((rc = old_emit(e, rec, p, &kv, drop, j)) != TERSE_OK) {
            return rc;
        }
    }
    return TERSE_OK;
}

/* Appends, in order, the set[a..b) that are first of their field and neither old nor deleted,
 * with the value of the last pair of their field (t holds set[a..b)). */
static int new_apply(struct edit *e, struct tab *t, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        size_t s;
        uint64_t v;
        int rc;

        if (noted_old(e, i)) {
            continue;
        }
        s = tab_find(t, &e->set[i]);
        assert(s != SIZE_MAX);
        v = t->val[s];
        if (tab_ref(t, s) != i || (v & (VAL_DEL | VAL_OLD | VAL_EARLIER)) != 0) {
            continue;
        }
        if ((rc = out_field(e, &e->set[i], &e->set[(v & VAL_LAST) - 1])) != TERSE_OK) {
            return rc;
        }
        e->added++;
    }
    return TERSE_OK;
}

/* n + m fit one table: set and del go in, then each old field and each pair is looked up. */
static int edit_table(struct edit *e, uint64_t *words)
{
    struct tab_src src = {.args = true, .set = e->set, .n = e->n, .del = e->del};
    struct tab t;
    int rc;

    tab_init(&t, words, STORE_HASH_TAB_WORDS, e->n + e->m, true, &src);
    tab_add_set(&t, e, 0, e->n); /* before del: a set field's reference is its first pair */
    tab_mark_del(&t, e, true);
    if ((rc = old_apply(e, &t, e->body, e->end)) != TERSE_OK ||
        (rc = old_flush(e, e->end)) != TERSE_OK) {
        return rc;
    }
    return new_apply(e, &t, 0, e->n);
}

/* Any number of arguments: blocks of old fields, then blocks of pairs. */
static int edit_blocks(struct edit *e, uint64_t *words)
{
    struct tab_src old_src = {.form = e->form, .end = e->end};
    struct tab_src arg_src = {.args = true, .set = e->set, .n = e->n, .del = e->del};
    size_t cap = tab_cap(STORE_HASH_TAB_WORDS / 2);
    const uint8_t *p = e->body;
    uint64_t left = e->k;
    struct tab t;
    int rc;

    while (left > 0) {
        size_t take = left < cap ? (size_t)left : cap;
        const uint8_t *blk = p;

        tab_init(&t, words, STORE_HASH_TAB_WORDS, take, true, &old_src);
        for (size_t i = 0; i < take; i++) {
            uint64_t ref = (uint64_t)(p - e->form);
            struct store_hash_kv kv;
            bool fresh;

            (void)rec_read(&p, e->end, &kv); /* scanned before */
            (void)tab_add(&t, &kv, ref, &fresh); /* a duplicate (corrupt form) shares a slot */
        }
        for (size_t j = 0; j < e->n; j++) {
            size_t s = tab_find(&t, &e->set[j]);

            if (s != SIZE_MAX) {
                t.val[s] = (t.val[s] & ~VAL_LAST) | (j + 1);
                note_old(e, j);
            }
        }
        tab_mark_del(&t, e, false);
        if ((rc = old_apply(e, &t, blk, p)) != TERSE_OK) {
            return rc;
        }
        left -= take;
    }
    if ((rc = old_flush(e, e->end)) != TERSE_OK) {
        return rc;
    }
    for (size_t a = 0; a < e->n; a += cap) {
        size_t b = e->n - a < cap ? e->n : a + cap;

        tab_init(&t, words, STORE_HASH_TAB_WORDS, b - a, true, &arg_src);
        tab_add_set(&t, e, a, b);
        for (size_t j = 0; j < e->n; j++) {
            size_t s;

            if (j == a) {
                j = b - 1; /* the block itself went in above */
                continue;
            }
            if ((s = tab_find(&t, &e->set[j])) == SIZE_MAX) {
                continue;
            }
            if (j < a) {
                t.val[s] |= VAL_EARLIER;
            } else {
                t.val[s] = (t.val[s] & ~VAL_LAST) | (j + 1);
            }
        }
        if (!e->note_old) {
            const uint8_t *q = e->body;

            for (uint64_t r = 0; r < e->k; r++) {
                struct store_hash_kv kv;
                size_t s;

                (void)rec_read(&q, e->end, &kv);
                if ((s = tab_find(&t, &kv)) != SIZE_MAX) {
                    t.val[s] |= VAL_OLD;
                }
            }
        }
        tab_mark_del(&t, e, false);
        if ((rc = new_apply(e, &t, a, b)) != TERSE_OK) {
            return rc;
        }
    }
    return TERSE_OK;
}

/* The count goes in front of the fields: TERSE_OK with *out_len, or TERSE_ETOOBIG. */
static int out_finish(struct edit *e, size_t *out_len)
{
    uint64_t count = e->k - e->removed + e->added;
    size_t len = e->pos - e->off;
    size_t w;

    if (count == 0) {
        assert(len == 0);
        *out_len = 0;
        return TERSE_OK;
    }
    w = codec_varint_len(count);
    if (w > e->cap || len > e->cap - w) {
        return TERSE_ETOOBIG;
    }
    if (w != e->off) {
        memmove(e->out + w, e->out + e->off, len);
    }
    codec_varint_put(e->out, count);
    *out_len = w + len;
    return TERSE_OK;
}

int store_hash_edit(const uint8_t *form, size_t len, const struct store_hash_kv *set, size_t n,
                    const struct store_hash_kv *del, size_t m, uint8_t *out, size_t cap,
                    size_t *out_len, size_t *added, size_t *removed)
{
    uint64_t words[STORE_HASH_TAB_WORDS];
    struct edit e = {.set = set, .n = n, .del = del, .m = m, .out = out, .cap = cap};
    size_t guess;
    int rc;

    *out_len = 0;
    *added = 0;
    *removed = 0;
    if (len != 0) {
        if (form_scan(form, len, &e.body, &e.k) != TERSE_OK) {
            return TERSE_ECORRUPT;
        }
        e.form = form;
        e.end = form + len;
        e.run = e.body;
    }
    /* References are 48 bits; no machine holds that many arguments or bytes. */
    if (len > REF_MAX || n > REF_MAX - m) {
        return TERSE_ETOOBIG;
    }
    e.note_old = n <= STORE_HASH_IN_OLD_BITS; /* in_old starts zeroed with the rest of e */
    guess = codec_varint_len(e.k != 0 ? e.k : n);
    e.off = guess < cap ? guess : cap;
    e.pos = e.off;
    if (n + m <= EDIT_LINEAR) {
        rc = edit_linear(&e);
    } else if (n + m <= tab_cap(STORE_HASH_TAB_WORDS / 2)) {
        rc = edit_table(&e, words);
    } else {
        rc = edit_blocks(&e, words);
    }
    if (rc == TERSE_OK) {
        rc = out_finish(&e, out_len);
    }
    if (rc == TERSE_OK) {
        *added = e.added;
        *removed = e.removed;
    }
    return rc;
}
