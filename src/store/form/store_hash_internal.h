/*
 * store_hash_internal: what the hash form's reader (store_hash.c) and its editor
 * (store_hash_edit.c) share, private to those two files (and to fuzz/hash_form.c, which
 * includes both .c files a second time with small tables).
 *
 * Reading a field. rec_read reads one field with store_varint_read for every length, which
 * refuses a varint running past the end, one over 64 bits and a non-minimal spelling, so a hash
 * has exactly one form (the one store_hash_edit writes): equal forms are equal hashes.
 * form_scan checks all but uniqueness, before check looks for duplicates and before edit
 * trusts the old form.
 *
 * Matching fields. store_hash_check (duplicates) and store_hash_edit (old fields against `set`
 * and `del`, `set` against itself) compare fields through one open-addressed table on the
 * stack (struct tab, STORE_HASH_TAB_WORDS words, 64 KiB), keyed by XXH3-64 of the field. A slot
 * holds a 16-bit tag of that hash and a 48-bit reference to the field (its offset in the form,
 * or its index among the arguments), so only a tag match costs a memcmp, and the table stays
 * at most 5/8 full, a couple of probes per lookup. More fields than a table takes go in blocks;
 * each file's top comment says how it walks them.
 *
 *   slot: | tag: bits 63..48 of XXH3-64(field) | reference + 1: bits 47..0 (0: empty) |
 *   val:  (edit only, one word beside each slot) VAL_* flags and the last `set` index + 1
 *
 * Plain static functions, not inline, in a header: each of the two files gets the code and the
 * inlining choices it had when they were one file (inline raises gcc's inlining limits and
 * changed what it inlined into store_hash_edit). Both files use every function here, so none
 * is ever unused; tab_ref, which only edit needs, stays in store_hash_edit.c.
 */
#ifndef TERSE_STORE_HASH_INTERNAL_H
#define TERSE_STORE_HASH_INTERNAL_H

#include "store/form/store_hash.h"

#include "store/form/store_varint.h"
#include "terse/status.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <xxhash.h>

/* Words of the stack table (a power of two, at least 32). The fuzz target includes the two .c
 * files with a small value so that short inputs reach the paths production reaches at
 * thousands of fields. */
#ifndef STORE_HASH_TAB_WORDS
#define STORE_HASH_TAB_WORDS 8192
#endif
_Static_assert(STORE_HASH_TAB_WORDS >= 32 &&
                   (STORE_HASH_TAB_WORDS & (STORE_HASH_TAB_WORDS - 1)) == 0,
               "STORE_HASH_TAB_WORDS: a power of two, at least 32");

#define SLOT_TAG (~(uint64_t)0 << 48)    /* high 16 bits of the field's hash */
#define SLOT_REF (((uint64_t)1 << 48) - 1) /* reference + 1 (0: empty slot) */
#define REF_MAX (SLOT_REF - 1)

/* ---- reading ---------------------------------------------------------------------------- */

/* Reads the field at *pp, before end: 0 with *kv filled and *pp past it, or -1. */
static int rec_read(const uint8_t **pp, const uint8_t *end, struct store_hash_kv *kv)
{
    const uint8_t *p = *pp;
    uint64_t flen, vlen;

    if (store_varint_read(&p, end, &flen) != 0 || flen > (uint64_t)(end - p)) {
        return -1;
    }
    kv->f = p;
    kv->flen = (size_t)flen;
    p += flen;
    if (store_varint_read(&p, end, &vlen) != 0 || vlen > (uint64_t)(end - p)) {
        return -1;
    }
    kv->v = p;
    kv->vlen = (size_t)vlen;
    *pp = p + vlen;
    return 0;
}

/* Reads the count: TERSE_OK with *body at the first field, or TERSE_ECORRUPT. */
static int form_head(const uint8_t *form, size_t len, const uint8_t **body, uint64_t *n)
{
    const uint8_t *p = form;

    if (form == NULL || len == 0 || store_varint_read(&p, form + len, n) != 0) {
        return TERSE_ECORRUPT;
    }
    *body = p;
    return TERSE_OK;
}

/* Checks everything but uniqueness: at least one field, every length within the bytes, the
 * count matching, nothing left over. TERSE_OK with *body and *n, or TERSE_ECORRUPT. */
static int form_scan(const uint8_t *form, size_t len, const uint8_t **body, uint64_t *n)
{
    const uint8_t *p, *end;
    struct store_hash_kv kv;

    if (form_head(form, len, body, n) != TERSE_OK || *n == 0) {
        return TERSE_ECORRUPT;
    }
    p = *body;
    end = form + len;
    /* Every field takes at least 2 bytes, so a huge count fails at the end of the bytes. */
    for (uint64_t i = 0; i < *n; i++) {
        if (rec_read(&p, end, &kv) != 0) {
            return TERSE_ECORRUPT;
        }
    }
    return p == end ? TERSE_OK : TERSE_ECORRUPT;
}

static bool bytes_eq(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

static bool kv_eq(const struct store_hash_kv *a, const struct store_hash_kv *b)
{
    return bytes_eq(a->f, a->flen, b->f, b->flen);
}

static uint64_t field_hash(const struct store_hash_kv *kv)
{
    /* An empty field may come with f == NULL. */
    return XXH3_64bits(kv->flen != 0 ? (const void *)kv->f : (const void *)"", kv->flen);
}

/* ---- the stack table -------------------------------------------------------------------- */

/* What a table's references name: offsets of fields in form (args false), or indexes into
 * set (below n) and then del (args true). */
struct tab_src {
    bool args;
    const uint8_t *form;
    const uint8_t *end;
    const struct store_hash_kv *set;
    size_t n;
    const struct store_hash_kv *del;
};

struct tab {
    uint64_t *slot; /* 0: empty; else tag (SLOT_TAG) | reference + 1 (SLOT_REF) */
    uint64_t *val;  /* beside each slot (edit: VAL_*, store_hash_edit.c), NULL for check */
    size_t mask;    /* slots - 1; slots a power of two, filled to 5/8 at most */
    const struct tab_src *src;
};

/* Fields a table of `slots` slots takes. */
static size_t tab_cap(size_t slots)
{
    return slots / 8 * 5;
}

/* Sets t up for count fields in words (n_words of them; two words a slot when with_val). */
static void tab_init(struct tab *t, uint64_t *words, size_t n_words, size_t count, bool with_val,
                     const struct tab_src *src)
{
    size_t slots = 16;

    while (tab_cap(slots) < count) {
        slots *= 2;
    }
    assert(slots * (with_val ? 2 : 1) <= n_words);
    (void)n_words;
    t->slot = words;
    t->val = with_val ? words + slots : NULL;
    t->mask = slots - 1;
    t->src = src;
    memset(t->slot, 0, slots * sizeof(*t->slot));
}

static void tab_field(const struct tab *t, uint64_t ref, struct store_hash_kv *kv)
{
    const struct tab_src *s = t->src;

    if (s->args) {
        *kv = ref < s->n ? s->set[ref] : s->del[ref - s->n];
    } else {
        const uint8_t *p = s->form + ref;
        int rc = rec_read(&p, s->end, kv);

        assert(rc == 0); /* the form was scanned before anything went in the table */
        (void)rc;
    }
}

/* The slot holding kv's field, or the empty slot where it would go. */
static size_t tab_probe(const struct tab *t, uint64_t h, const struct store_hash_kv *kv)
{
    uint64_t tag = h & SLOT_TAG;
    size_t i = (size_t)h & t->mask;

    for (;; i = (i + 1) & t->mask) {
        uint64_t e = t->slot[i];
        struct store_hash_kv g;

        if (e == 0) {
            return i;
        }
        if ((e & SLOT_TAG) == tag) {
            tab_field(t, (e & SLOT_REF) - 1, &g);
            if (kv_eq(&g, kv)) {
                return i;
            }
        }
    }
}

/* Finds kv's field: its slot, or SIZE_MAX when absent. */
static size_t tab_find(const struct tab *t, const struct store_hash_kv *kv)
{
    size_t i = tab_probe(t, field_hash(kv), kv);

    return t->slot[i] != 0 ? i : SIZE_MAX;
}

/* Finds kv's field, adding it under ref when absent: its slot; *fresh says which. */
static size_t tab_add(struct tab *t, const struct store_hash_kv *kv, uint64_t ref, bool *fresh)
{
    uint64_t h = field_hash(kv);
    size_t i = tab_probe(t, h, kv);

    *fresh = t->slot[i] == 0;
    if (*fresh) {
        t->slot[i] = (h & SLOT_TAG) | (ref + 1);
        if (t->val != NULL) {
            t->val[i] = 0;
        }
    }
    return i;
}

#endif /* TERSE_STORE_HASH_INTERNAL_H */
