/*
 * store_stream_node: the size of the listpack Redis 7.0 would hold for a stream node
 * (store_stream.h), so that terse opens a node where Redis does (stream-node-max-bytes,
 * stream-node-max-entries) and trims, counts and chunks nodes as Redis's are.
 *
 * Redis's node listpack (t_stream.c, streamAppendItem): a 6-byte header and a 1-byte end;
 * the master entry: count, deleted, the number of master fields, the master fields, a 0; then
 * per entry: flags, ms - master ms, seq - master seq, [the number of fields and the fields,
 * unless they are the master's: SAMEFIELDS], the values, and lp-count (the entry's elements).
 * Each element is its encoding (an integer's 1 to 9 bytes, a string's 1, 2 or 5 header bytes
 * and its bytes; a string that reads as an int64 is stored as that integer) and a back-length
 * of 1 to 5 bytes. Also here: the orders of IDs and names, and an entry's record. Nothing
 * here allocates.
 */
#include "store/form/store_stream.h"

#include <string.h>

#include "codec/codec_varint.h"

int store_stream_id_cmp(const struct store_stream_id *a, const struct store_stream_id *b)
{
    if (a->ms != b->ms) {
        return a->ms < b->ms ? -1 : 1;
    }
    if (a->seq != b->seq) {
        return a->seq < b->seq ? -1 : 1;
    }
    return 0;
}

int store_stream_name_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n != 0 ? memcmp(a, b, n) : 0;

    if (c != 0) {
        return c < 0 ? -1 : 1;
    }
    return (alen > blen) - (alen < blen);
}

size_t store_stream_entry_size(const struct store_stream_entry *e)
{
    return codec_varint_len(e->id.ms) + codec_varint_len(e->id.seq) + codec_varint_len(e->n_pairs) +
           e->pairs_len;
}

uint8_t *store_stream_entry_put(uint8_t *p, const struct store_stream_entry *e)
{
    p += codec_varint_put(p, e->id.ms);
    p += codec_varint_put(p, e->id.seq);
    p += codec_varint_put(p, e->n_pairs);
    if (e->pairs_len != 0) {
        memcpy(p, e->pairs, e->pairs_len);
    }
    return p + e->pairs_len;
}

#define LP_HEADER_AND_END 7u      /* total bytes u32, element count u16, end byte */
#define LP_STREAM_MAX (1ull << 30) /* Redis's STREAM_LISTPACK_MAX_SIZE */

/* Bytes of the back-length of an element of enc bytes. */
static uint64_t backlen(uint64_t enc)
{
    return enc <= 127 ? 1 : enc < 16383 ? 2 : enc < 2097151 ? 3 : enc < 268435455 ? 4 : 5;
}

static uint64_t lp_int(int64_t v)
{
    uint64_t enc = v >= 0 && v <= 127                ? 1
                   : v >= -4096 && v <= 4095         ? 2
                   : v >= -32768 && v <= 32767       ? 3
                   : v >= -8388608 && v <= 8388607   ? 4
                   : v >= INT32_MIN && v <= INT32_MAX ? 5
                                                      : 9;
    return enc + backlen(enc);
}

/* Whether b reads as an int64 as listpack's lpStringToInt64 (Redis's string2ll): "0", or an
 * optional '-' and digits with no leading zero, in range. */
static bool as_int64(const uint8_t *b, size_t len, int64_t *v)
{
    uint64_t u = 0;
    size_t i = 0;
    bool neg;

    if (len == 0 || len > 20) {
        return false;
    }
    if (len == 1 && b[0] == '0') {
        *v = 0;
        return true;
    }
    neg = b[0] == '-';
    i = neg;
    if (i == len || b[i] < '1' || b[i] > '9') {
        return false;
    }
    for (; i < len; i++) {
        if (b[i] < '0' || b[i] > '9' || u > (UINT64_MAX - 9) / 10) {
            return false;
        }
        u = u * 10 + (uint64_t)(b[i] - '0');
    }
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX) {
        return false;
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

static uint64_t lp_str(const uint8_t *b, size_t len)
{
    int64_t v;
    uint64_t enc;

    if (as_int64(b, len, &v)) {
        return lp_int(v);
    }
    enc = (len < 64 ? 1 : len < 4096 ? 2 : 5) + (uint64_t)len;
    return enc + backlen(enc);
}

/* The i-th string (field 2k, value 2k+1) walk of an entry's pairs. */
struct pairs {
    const uint8_t *p, *end;
};

static bool pairs_next(struct pairs *w, const uint8_t **b, size_t *len)
{
    return store_stream_pair_next(&w->p, w->end, b, len) == 0;
}

/* Whether e's fields are first's, in order. */
static bool same_fields(const struct store_stream_entry *first, const struct store_stream_entry *e)
{
    struct pairs a = {first->pairs, first->pairs + first->pairs_len};
    struct pairs b = {e->pairs, e->pairs + e->pairs_len};

    if (first->n_pairs != e->n_pairs) {
        return false;
    }
    for (uint64_t i = 0; i < e->n_pairs; i++) {
        const uint8_t *fa, *fb, *skip;
        size_t la, lb, sl;
        if (!pairs_next(&a, &fa, &la) || !pairs_next(&b, &fb, &lb) || la != lb ||
            (la > 0 && memcmp(fa, fb, la) != 0) || !pairs_next(&a, &skip, &sl) ||
            !pairs_next(&b, &skip, &sl)) {
            return false;
        }
    }
    return true;
}

uint64_t store_stream_lp_add(const struct store_stream_entry *first,
                             const struct store_stream_entry *e)
{
    struct pairs w = {e->pairs, e->pairs + e->pairs_len};
    bool same = first == NULL || same_fields(first, e);
    const struct store_stream_entry *m = first != NULL ? first : e;
    uint64_t n = 0, nf = e->n_pairs;

    if (first == NULL) {
        /* The header and end, the master's field count, its fields and its 0 terminator (the
         * two counts are store_stream_lp_bytes's). */
        n += LP_HEADER_AND_END + lp_int((int64_t)nf) + lp_int(0);
    }
    n += lp_int(same ? 2 : 0); /* flags: SAMEFIELDS or none (never deleted when added) */
    n += lp_int((int64_t)(e->id.ms - m->id.ms)) + lp_int((int64_t)(e->id.seq - m->id.seq));
    if (!same) {
        n += lp_int((int64_t)nf);
    }
    for (uint64_t i = 0; i < nf; i++) {
        const uint8_t *f, *v;
        size_t fl, vl;
        if (!pairs_next(&w, &f, &fl) || !pairs_next(&w, &v, &vl)) {
            break; /* a model's entries were checked when read */
        }
        if (first == NULL) {
            n += lp_str(f, fl); /* the master's field */
        }
        if (!same) {
            n += lp_str(f, fl);
        }
        n += lp_str(v, vl);
    }
    return n + lp_int((int64_t)(same ? nf + 3 : 2 * nf + 4));
}

uint64_t store_stream_lp_bytes(const struct store_stream_node *nd)
{
    return nd->lp + lp_int((int64_t)nd->live) + lp_int((int64_t)(nd->slots - nd->live));
}

bool store_stream_node_full(const struct store_stream_node *nd, const struct store_stream_entry *e,
                            size_t max_entries, uint64_t max_bytes)
{
    uint64_t tot = 0;
    struct pairs w = {e->pairs, e->pairs + e->pairs_len};
    const uint8_t *b;
    size_t len;

    if (nd == NULL || nd->slots == SIZE_MAX) {
        return true;
    }
    if (max_bytes != UINT64_MAX) {
        if (max_bytes == 0 || max_bytes > LP_STREAM_MAX) {
            max_bytes = LP_STREAM_MAX;
        }
        while (pairs_next(&w, &b, &len)) {
            tot += len; /* Redis's totelelen: the fields' and values' bytes */
        }
        if (store_stream_lp_bytes(nd) + tot >= max_bytes) {
            return true;
        }
    }
    return max_entries != 0 && nd->slots >= max_entries;
}
