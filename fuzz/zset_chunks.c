/*
 * fuzz target zset_chunks: hostile order and member-map chunks under a chunked sorted set
 * (coll/coll_zset.h), as a snapshot's CHUNKED record hands them to the load (persist_load.c).
 *
 * Bytes 0..2: chunk_bytes, fingerprint bits (3..8: collisions), the map's seed, the map the
 * input's or rebuilt from the order (coll_zset_map_rebuild). Then chunks `u8 flags | u8 count |
 * u8 ksel | u16 len | bytes` of the order or the map, their form as is or built: the elements
 * `u8 mlen | member | u8 score selector [| 8 bytes]` of all built order chunks sorted, deduped
 * and dealt back in order; built map chunks share the map's records for them (coll_zset_map.c's
 * top), cut by hash ranges. Each is stored RAW with a valid checksum (or a byte flipped after
 * it) and adopted as the load does (count true or the input's; order keys the first score's
 * image or an input score's, never decreasing; map keys 0 then increasing). Then, never a
 * crash, an over-read (ASan) or a leak (LeakSanitizer), and:
 *   - verify says TERSE_OK, TERSE_ECORRUPT or TERSE_ENOMEM; a rebuild on a non-empty map fails;
 *   - when TERSE_OK: a whole walk gives the count, strictly increasing, a reverse walk the same
 *     backwards; a whole ZSCAN (random COUNT) every member once with the walk's score; score,
 *     rank, at and seek_score agree with the walk;
 *   - edits (add under every flag, rem, remove_range) answer statuses and, on a set that
 *     verified, what ZADD/ZREM promise (result, old score, count, the score after); verify is
 *     then TERSE_OK or TERSE_ECORRUPT, TERSE_OK if it was before;
 *   - when verify fails, reads answer statuses, never more elements than the count (no edit).
 */
#include "coll/coll_hash_internal.h"
#include "coll/coll_zset_internal.h"
#include "codec/codec_value.h"
#include "terse/status.h"

#include "fuzz_form.h"

#include <math.h>

#define FZ_CHUNKS_MAX 48
#define FZ_MLEN_MAX 16
#define FZ_OPS 24

#define FR_MAP 0x01u   /* a map chunk (else the order's) */
#define FR_RAW 0x02u   /* the bytes are the form as is (else built) */
#define FR_FLIP 0x04u  /* one byte flipped after the checksum */
#define FR_COUNT 0x08u /* the descriptor's count is the input's count byte */
#define FR_KEY 0x10u   /* the key is made up from ksel */

#define FH_FPBITS 0x01u  /* fingerprints of 3..8 bits */
#define FH_REBUILD 0x02u /* the map rebuilt from the order */
#define FH_BOTH 0x04u    /* with FH_REBUILD: the map's chunks adopted too (a rebuild refused) */
#define FH_DUPS 0x08u    /* members kept twice in the built order */
#define FH_NORUN 0x10u   /* the built map ignores the run rule (shorts in long runs) */
#define FH_COMPRESS 0x20u

/* Copies of elements (fuzzer-owned, never views of the env's buffers): members in one block. */
struct fz_item {
    size_t off, mlen;
    double score;
};

struct fz_list {
    struct fz_item *it;
    uint8_t *bytes;
    size_t n, cap, blen, bcap;
};

struct fz_rec {
    uint8_t flags, count, ksel;
    const uint8_t *p;
    size_t len, take; /* take: a built order chunk's elements from the sorted pool */
};

static void fz_add(struct fz_list *l, const uint8_t *m, size_t mlen, double score)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->it = realloc(l->it, l->cap * sizeof(*l->it));
        fz_check(l->it != NULL);
    }
    if (l->bytes == NULL || l->blen + mlen > l->bcap) {
        l->bcap = (l->blen + mlen) * 2 + 64;
        l->bytes = realloc(l->bytes, l->bcap);
        fz_check(l->bytes != NULL);
    }
    if (mlen > 0) {
        memcpy(l->bytes + l->blen, m, mlen);
    }
    l->it[l->n++] = (struct fz_item){l->blen, mlen, score};
    l->blen += mlen;
}

static void fz_free(struct fz_list *l)
{
    free(l->it);
    free(l->bytes);
    memset(l, 0, sizeof(*l));
}

static struct store_zset_el el_at(const struct fz_list *l, size_t i)
{
    struct store_zset_el e = {l->bytes + l->it[i].off, l->it[i].mlen, l->it[i].score};
    return e;
}

static bool el_same(const struct store_zset_el *a, const struct store_zset_el *b)
{
    return fz_eq(a->m, a->mlen, b->m, b->mlen) && coll_zset_same_bits(a->score, b->score);
}

/* A score from a selector byte (and 8 raw bytes at *p for selector 15, which may be NaN). */
static double fz_score(uint8_t sel, const uint8_t **p, const uint8_t *end)
{
    static const double tab[12] = {0.0,   -0.0,    1.0,      -1.0,      0.5,     2.5,
                                   1e300, -1e300, INFINITY, -INFINITY, 5e-324, 3.0};
    unsigned i = sel & 15u;
    double d;
    if (i < 12) {
        return tab[i];
    }
    if (i < 15 || p == NULL || end - *p < 8) {
        return (double)(sel >> 4) - (i == 14 ? 8 : 0); /* small integers: ties */
    }
    memcpy(&d, *p, 8);
    *p += 8;
    return d;
}

/* The list whose items qsort orders (qsort takes no context). */
static const struct fz_list *sort_of;

/* Redis's order, NaN after every number (store_zset_cmp takes none): a total order. */
static int order_cmp(const void *pa, const void *pb)
{
    const struct fz_item *ia = pa, *ib = pb;
    struct store_zset_el a = {sort_of->bytes + ia->off, ia->mlen, ia->score};
    struct store_zset_el b = {sort_of->bytes + ib->off, ib->mlen, ib->score};
    if (isnan(a.score) != isnan(b.score)) {
        return isnan(a.score) ? 1 : -1;
    }
    return isnan(a.score) ? store_zset_member_cmp(a.m, a.mlen, b.m, b.mlen)
                          : store_zset_cmp(&a, &b);
}

static int member_cmp(const void *pa, const void *pb)
{
    const struct fz_item *ia = pa, *ib = pb;
    int r = store_zset_member_cmp(sort_of->bytes + ia->off, ia->mlen, sort_of->bytes + ib->off,
                                  ib->mlen);
    return r != 0 ? r : order_cmp(pa, pb);
}

static void fz_sort(struct fz_list *l, int (*cmp)(const void *, const void *))
{
    sort_of = l;
    if (l->n > 1) {
        qsort(l->it, l->n, sizeof(*l->it), cmp);
    }
}

/* The pool in order, a member's later copies dropped (unless dups). */
static void pool_settle(struct fz_list *pool, bool dups)
{
    size_t w = 0;
    fz_sort(pool, member_cmp);
    for (size_t i = 0; i < pool->n; i++) {
        struct store_zset_el a = el_at(pool, i), b = w > 0 ? el_at(pool, w - 1) : a;
        if (dups || w == 0 || !fz_eq(a.m, a.mlen, b.m, b.mlen)) {
            pool->it[w++] = pool->it[i];
        }
    }
    pool->n = w;
    fz_sort(pool, order_cmp);
}

/* Stores form RAW (a byte flipped after the checksum when asked) and adopts it into c. */
static void adopt(struct coll_env *env, struct coll *c, const uint8_t *form, size_t len,
                  const struct fz_rec *rc, uint32_t count, uint64_t k, struct fz_rng *r)
{
    size_t cap = codec_value_bound(len), slen = 0;
    uint8_t *stored = malloc(cap);
    struct coll_key key = {k, 0};
    struct codec_value_info info;
    fz_check(stored != NULL);
    fz_check(codec_value_encode_raw(form, len, stored, cap, &slen) == TERSE_OK);
    if ((rc->flags & FR_FLIP) && codec_value_info(stored, slen, &info) == TERSE_OK &&
        info.payload_len > 0) {
        uint64_t x = fz_next(r);
        stored[info.header_len + (size_t)(x % info.payload_len)] ^= (uint8_t)(1u << (x >> 61));
    }
    (void)coll_adopt_chunk(env, c, stored, slen, count, &key);
    free(stored);
}

/* A map record (fp8 | value) being built, placed by its hash in the map's space. */
struct fz_mrec {
    uint64_t h;      /* a fingerprint, or a record's place in the map's hash space */
    size_t off, len; /* an element's index, or a record's bytes */
};

static int mrec_cmp(const void *pa, const void *pb)
{
    const struct fz_mrec *a = pa, *b = pb;
    return a->h != b->h ? (a->h > b->h) - (a->h < b->h) : (a->off > b->off) - (a->off < b->off);
}

/* The map's records for the order's elements el[0..n) (in order): one per fingerprint, a
 * short entry for one member not in a long run, full entries for the others. Returns the
 * records' block; *recs their places, sorted by hash. */
static uint8_t *map_records(struct coll_env *env, struct coll *c, const struct fz_list *el,
                            uint8_t hdr0, uint8_t policy, struct fz_mrec **recs, size_t *n_recs)
{
    size_t n = el->n;
    struct fz_mrec *fx = malloc((n + 1) * sizeof(*fx));
    bool *full = malloc((n + 1) * sizeof(*full));
    uint8_t *block = malloc(n * 64 + 64), *w = block, *val = malloc(n * 40 + 16);
    size_t run = 0, g = 0;
    *recs = malloc((n + 1) * sizeof(**recs));
    fz_check(fx != NULL && full != NULL && block != NULL && val != NULL && *recs != NULL);
    for (size_t i = 0; i <= n; i++) {
        if (i > 0 && (i == n || el->it[i].score != el->it[i - 1].score)) {
            for (size_t j = run; j < i; j++) {
                full[j] = !(hdr0 & FH_NORUN) && i - run >= COLL_ZSET_RUN_FULL;
            }
            run = i;
        }
        if (i < n) {
            struct store_zset_el e = el_at(el, i);
            fx[i] = (struct fz_mrec){coll_zset_fp(env, c, e.m, e.mlen), i, 0};
        }
    }
    qsort(fx, n, sizeof(*fx), mrec_cmp);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1, elig = 0, pick, k = 0;
        uint8_t fp8[8], *v = val + 1 + STORE_ZSET_SCORE_LEN, *f;
        bool has_short = false;
        while (b < n && fx[b].h == fx[a].h) {
            b++;
        }
        for (size_t j = a; j < b; j++) {
            elig += !full[fx[j].off];
        }
        pick = elig > 0 ? policy % elig : 0;
        for (size_t j = a; j < b; j++) {
            struct store_zset_el e = el_at(el, fx[j].off);
            if (!full[fx[j].off] && k++ == pick) {
                has_short = true;
                store_zset_score_put(val + 1, e.score);
                continue;
            }
            store_zset_score_put(v, e.score);
            v += STORE_ZSET_SCORE_LEN;
            v += codec_varint_put(v, e.mlen);
            memcpy(v, e.m, e.mlen);
            v += e.mlen;
        }
        for (int i = 0; i < 8; i++) {
            fp8[i] = (uint8_t)(fx[a].h >> (8 * i));
        }
        /* A short entry alone is its 8 bytes, else flags | [short] | full entries. */
        val[has_short ? 0 : STORE_ZSET_SCORE_LEN] = has_short;
        f = v == val + 9 ? val + 1 : has_short ? val : val + STORE_ZSET_SCORE_LEN;
        w = coll_hash_rec_put(w, fp8, 8, f, (size_t)(v - f));
        (*recs)[g].h = coll_hash_seeded(c->aux->seed, fp8, 8);
        (*recs)[g].off = g == 0 ? 0 : (*recs)[g - 1].off + (*recs)[g - 1].len;
        (*recs)[g].len = (size_t)(w - block) - (*recs)[g].off;
        g++;
        a = b;
    }
    qsort(*recs, g, sizeof(**recs), mrec_cmp);
    *n_recs = g;
    free(fx);
    free(full);
    free(val);
    return block;
}

/* Reads the input's records; returns how many. */
static size_t parse(const uint8_t *data, size_t size, struct fz_rec *recs, struct fz_list *pool,
                    size_t *last_map)
{
    size_t at = 3, n = 0;
    while (n < FZ_CHUNKS_MAX && size >= at + 5) {
        struct fz_rec *rc = &recs[n++];
        size_t len = (size_t)data[at + 3] | (size_t)data[at + 4] << 8;
        const uint8_t *p, *end;
        rc->flags = data[at];
        rc->count = data[at + 1];
        rc->ksel = data[at + 2];
        at += 5;
        rc->len = len < size - at ? len : size - at;
        rc->p = data + at;
        rc->take = 0;
        at += rc->len;
        if (rc->flags & (FR_MAP | FR_RAW)) {
            *last_map = (rc->flags & FR_RAW) ? *last_map : n - 1; /* the last built map chunk */
            continue;
        }
        for (p = rc->p, end = rc->p + rc->len; p < end;) {
            size_t ml = *p++ % FZ_MLEN_MAX;
            const uint8_t *m = p;
            ml = ml < (size_t)(end - p) ? ml : (size_t)(end - p);
            p += ml;
            fz_add(pool, m, ml, fz_score(p < end ? *p++ : 0, &p, end));
            rc->take++;
        }
    }
    return n;
}

/* Builds and adopts every chunk the records describe. */
static void build(struct coll_env *env, struct coll *c, const uint8_t *data, size_t size,
                  struct fz_rng *r)
{
    static struct fz_rec recs[FZ_CHUNKS_MAX];
    struct fz_list pool = {0};
    size_t last_map = FZ_CHUNKS_MAX, n_pool, used = 0, n_mrecs = 0, mi = 0;
    size_t n = parse(data, size, recs, &pool, &last_map);
    uint64_t last_k = 0, last_mk = 0;
    bool map_first = true, want_map = !(data[0] & FH_REBUILD) || (data[0] & FH_BOTH);
    struct fz_mrec *mrecs = NULL;
    uint8_t *mblock, *form = malloc(pool.n * 64 + 80);
    fz_check(form != NULL);
    pool_settle(&pool, (data[0] & FH_DUPS) != 0);
    n_pool = pool.n;
    mblock = map_records(env, c, &pool, data[0], data[1] >> 3, &mrecs, &n_mrecs);
    for (size_t i = 0; i < n; i++) {
        const struct fz_rec *rc = &recs[i];
        const uint8_t *f = rc->p;
        size_t len = rc->len, cnt = rc->count;
        uint64_t k = 0;
        if (!(rc->flags & FR_MAP)) {
            if (!(rc->flags & FR_RAW)) { /* the next elements of the sorted pool */
                uint8_t *w = form;
                cnt = rc->take < n_pool - used ? rc->take : n_pool - used;
                if (cnt == 0) {
                    continue;
                }
                w += codec_varint_put(w, cnt);
                for (size_t j = used; j < used + cnt; j++) {
                    struct store_zset_el e = el_at(&pool, j);
                    w = coll_zset_rec_put(w, e.m, e.mlen, e.score);
                }
                k = coll_zset_score_key(pool.it[used].score);
                used += cnt;
                f = form;
                len = (size_t)(w - form);
            }
            if (rc->flags & (FR_KEY | FR_RAW)) {
                k = coll_zset_score_key(fz_score(rc->ksel, NULL, NULL));
            }
            k = k < last_k ? last_k : k; /* the load refuses a decreasing key */
            last_k = k;
            adopt(env, c, f, len, rc, (rc->flags & FR_COUNT) ? rc->count : (uint32_t)cnt, k, r);
            continue;
        }
        if (!want_map) {
            continue;
        } else if (!(rc->flags & FR_RAW)) { /* count records of the map, all that is left at last */
            size_t take = i == last_map ? n_mrecs - mi : rc->count;
            uint8_t *w = form;
            take = take < n_mrecs - mi ? take : n_mrecs - mi;
            if (take == 0) {
                continue;
            }
            w += codec_varint_put(w, take);
            for (size_t j = mi; j < mi + take; j++) {
                memcpy(w, mblock + mrecs[j].off, mrecs[j].len);
                w += mrecs[j].len;
            }
            k = mrecs[mi].h;
            mi += take;
            f = form;
            len = (size_t)(w - form);
            cnt = take;
        }
        /* The load's rule: 0 first, then increasing (a made-up key cuts the ranges wrong). */
        if (!map_first && (rc->flags & (FR_KEY | FR_RAW))) {
            k = last_mk + 1 + rc->ksel;
        }
        k = map_first ? 0 : k <= last_mk ? last_mk + 1 : k;
        map_first = false;
        last_mk = k;
        adopt(env, c->aux, f, len, rc, (rc->flags & FR_COUNT) ? rc->count : (uint32_t)cnt, k,
              r);
    }
    free(mrecs);
    free(mblock);
    free(form);
    fz_free(&pool);
}

/* ---- reads ------------------------------------------------------------------------------- */

static bool st_known(int st)
{
    return st >= 0 || st == TERSE_ECORRUPT || st == TERSE_ENOMEM || st == TERSE_EINVAL ||
           st == TERSE_ETOOBIG;
}

static int collect(void *arg, const struct store_zset_el *el)
{
    fz_add(arg, el->m, el->mlen, el->score);
    return 0;
}

/* A whole walk into l: 0 at its end, or the status it stopped on. */
static int walk(struct coll_env *env, struct coll *c, bool reverse, struct fz_list *l)
{
    struct coll_zset_it it;
    struct store_zset_el el;
    uint64_t n = coll_count(c);
    int st = coll_zset_it_init(env, c, reverse && n > 0 ? n - 1 : 0, reverse, &it);
    fz_check(st == TERSE_OK);
    while ((st = coll_zset_it_next(env, &it, &el)) == 1) {
        fz_add(l, el.m, el.mlen, el.score);
        fz_check(l->n <= n);
    }
    fz_check(st == 0 || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
    return st;
}

/* A whole ZSCAN into l, from cursor 0 until the next is 0 (or steps ran out: 1). */
static int scan_all(struct coll_env *env, struct coll *c, struct fz_rng *r, int steps,
                    struct fz_list *l)
{
    uint64_t cur = 0, next = 0;
    for (int i = 0; i < steps; i++) {
        int st = coll_zset_scan(env, c, cur, 1 + (size_t)(fz_next(r) % 24), collect, l, &next);
        fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
        if (st != TERSE_OK || next == 0) {
            return st;
        }
        cur = next;
    }
    return 1;
}

/* Point reads of a verified set against its walk w. */
static void check_points(struct coll_env *env, struct coll *c, struct fz_rng *r,
                         const struct fz_list *w)
{
    size_t n = w->n, step = n > 128 ? n / 64 : 1;
    struct store_zset_el el;
    uint64_t rank, got;
    double s;
    for (size_t i = 0; i < n; i += step) { /* a sample of 64 at most */
        struct store_zset_el e = el_at(w, i);
        fz_check(coll_zset_score(env, c, e.m, e.mlen, &s) == 1 &&
                 coll_zset_same_bits(s, e.score));
        fz_check(coll_zset_rank(env, c, e.m, e.mlen, &rank, &s) == 1 && rank == i &&
                 coll_zset_same_bits(s, e.score));
    }
    for (int i = 0; i < 8 && n > 0; i++) {
        struct store_zset_el e = el_at(w, rank = fz_next(r) % n);
        fz_check(coll_zset_at(env, c, rank, &el) == TERSE_OK && el_same(&el, &e));
    }
    fz_check(coll_zset_at(env, c, n, &el) == TERSE_EINVAL);
    for (int i = 0; i < 4; i++) {
        double q = fz_score((uint8_t)fz_next(r), NULL, NULL);
        bool ex = i & 1;
        fz_check(coll_zset_seek_score(env, c, q, ex, &got) == TERSE_OK && got <= n);
        fz_check(got == n || (ex ? w->it[got].score > q : w->it[got].score >= q));
        fz_check(got == 0 || (ex ? w->it[got - 1].score <= q : w->it[got - 1].score < q));
    }
}

/* verify, and when it passes, every read agrees with a whole walk, left in w. */
static bool check_whole(struct coll_env *env, struct coll *c, struct fz_rng *r,
                        struct fz_list *w)
{
    int st = coll_zset_verify(env, c);
    uint64_t n = coll_count(c);
    struct fz_list rv = {0}, s = {0};
    fz_free(w);
    fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
    fz_check(coll_tree_total(&c->tree) == n);
    if (st != TERSE_OK) { /* reads answer statuses, never more than the count */
        uint64_t rank;
        (void)walk(env, c, false, w);
        (void)scan_all(env, c, r, 256, &s);
        for (size_t i = 0; i < w->n && i < 16; i++) {
            struct store_zset_el e = el_at(w, i);
            double sc;
            fz_check(st_known(coll_zset_score(env, c, e.m, e.mlen, &sc)));
            fz_check(st_known(coll_zset_rank(env, c, e.m, e.mlen, &rank, &sc)));
        }
        fz_free(&s);
        return false;
    }
    fz_check(walk(env, c, false, w) == 0 && w->n == n);
    for (size_t i = 1; i < w->n; i++) {
        struct store_zset_el a = el_at(w, i - 1), b = el_at(w, i);
        fz_check(store_zset_cmp(&a, &b) < 0);
    }
    fz_check(walk(env, c, true, &rv) == 0 && rv.n == n); /* and backwards */
    for (size_t i = 0; i < n; i++) {
        struct store_zset_el a = el_at(w, w->n - 1 - i), b = el_at(&rv, i);
        fz_check(el_same(&a, &b));
    }
    check_points(env, c, r, w);
    /* The scan gives the walk's elements, each once (w is left in member order). */
    fz_check(scan_all(env, c, r, 100000, &s) == 0 && s.n == n);
    fz_sort(w, member_cmp);
    fz_sort(&s, member_cmp);
    for (size_t i = 0; i < n; i++) {
        struct store_zset_el a = el_at(w, i), b = el_at(&s, i);
        fz_check(el_same(&a, &b));
    }
    fz_free(&rv);
    fz_free(&s);
    return true;
}

/* ---- edits ------------------------------------------------------------------------------- */

struct fz_range {
    struct fz_list got;
    uint64_t stop; /* fn stops before this element */
};

static int range_fn(void *arg, const struct store_zset_el *el)
{
    struct fz_range *g = arg;
    if (g->got.n == g->stop) {
        return 7;
    }
    fz_add(&g->got, el->m, el->mlen, el->score);
    return 0;
}

static const unsigned fz_flags[9] = {
    0, COLL_ZSET_NX, COLL_ZSET_XX, COLL_ZSET_GT, COLL_ZSET_LT, COLL_ZSET_XX | COLL_ZSET_GT,
    COLL_ZSET_XX | COLL_ZSET_LT, COLL_ZSET_NX | COLL_ZSET_GT, COLL_ZSET_GT | COLL_ZSET_LT};

/* ZADD of (m, s) under a drawn flag: on a verified set (ok), what ZADD promises. */
static int op_add(struct coll_env *env, struct coll *c, uint64_t x, const uint8_t *m,
                  size_t mlen, bool ok)
{
    unsigned f = fz_flags[(x >> 8) % 9];
    double s = (x >> 16) % 32 == 0 ? NAN : fz_score((uint8_t)(x >> 24), NULL, NULL);
    bool inval = isnan(s) || ((f & COLL_ZSET_NX) && (f & ~COLL_ZSET_NX)) ||
                 ((f & COLL_ZSET_GT) && (f & COLL_ZSET_LT));
    enum coll_zset_result res = COLL_ZSET_UNTOUCHED;
    struct coll_zset_hint hint;
    double before = 0, old = 0, after = 0;
    uint64_t n = coll_count(c);
    bool looked = ok || (x & 0x10000000000ull);
    int pre = 0, st, now;
    if (looked) {
        pre = coll_zset_score_hint(env, c, m, mlen, &before, &hint);
        fz_check(st_known(pre) && (!ok || pre == 0 || pre == 1));
    }
    if (looked && pre >= 0 && (x & 0x20000000000ull)) { /* ZADD's path: the lookup made */
        old = before;
        st = coll_zset_add_hint(env, c, m, mlen, s,
                                f | (pre == 1 ? COLL_ZSET_KNOWN_AT : COLL_ZSET_KNOWN_ABSENT),
                                &res, &old, &hint);
    } else {
        st = coll_zset_add(env, c, m, mlen, s, f, &res, &old);
    }
    fz_check(st == TERSE_OK || st == TERSE_EINVAL || st == TERSE_ECORRUPT ||
             st == TERSE_ENOMEM);
    fz_check((st == TERSE_EINVAL) == inval);
    if (!ok || st != TERSE_OK) { /* a failed ZADD changes nothing; a verified set fails none */
        fz_check(st == TERSE_OK || (coll_count(c) == n && (!ok || inval)));
        return st;
    }
    if (pre == 0) {
        fz_check(res == ((f & COLL_ZSET_XX) ? COLL_ZSET_UNTOUCHED : COLL_ZSET_ADDED));
    } else {
        fz_check(res != COLL_ZSET_ADDED && coll_zset_same_bits(old, before));
        fz_check(res != COLL_ZSET_UPDATED ||
                 (!(f & COLL_ZSET_NX) && s != before && (!(f & COLL_ZSET_GT) || s > before) &&
                  (!(f & COLL_ZSET_LT) || s < before)));
        fz_check(res == COLL_ZSET_UPDATED || (f & COLL_ZSET_NX) || s == before ||
                 ((f & COLL_ZSET_GT) && !(s > before)) || ((f & COLL_ZSET_LT) && !(s < before)));
    }
    fz_check(coll_count(c) == n + (res == COLL_ZSET_ADDED));
    now = coll_zset_score(env, c, m, mlen, &after);
    fz_check(now == (pre == 1 || res == COLL_ZSET_ADDED));
    fz_check(now == 0 || coll_zset_same_bits(after, res != COLL_ZSET_UNTOUCHED ? s : before));
    return st;
}

static int op_rem(struct coll_env *env, struct coll *c, const uint8_t *m, size_t mlen, bool ok)
{
    uint64_t n = coll_count(c);
    double sc;
    int pre = ok ? coll_zset_score(env, c, m, mlen, &sc) : 0;
    int st = coll_zset_rem(env, c, m, mlen);
    fz_check(st == 0 || st == 1 || st == TERSE_ECORRUPT || st == TERSE_ENOMEM);
    fz_check(coll_count(c) == n - (st == 1));
    if (ok) {
        fz_check(st == pre && coll_zset_score(env, c, m, mlen, &sc) == 0);
    }
    return st < 0 ? st : TERSE_OK;
}

static int op_range(struct coll_env *env, struct coll *c, uint64_t x, bool ok)
{
    uint64_t n = coll_count(c), start = (x >> 8) % (n + 2), cnt, removed = 0, want;
    struct fz_range g = {{0}, (x & 0x80000) ? (x >> 48) % 8 : UINT64_MAX};
    bool with_fn = !(x & 0x10000);
    int st;
    cnt = (x & 0x20000) ? (x >> 32) % 8 : (x & 0x40000) ? UINT64_MAX : (x >> 32) % 200;
    st = coll_zset_remove_range(env, c, start, cnt, with_fn ? range_fn : NULL, &g, &removed);
    fz_check(st == TERSE_OK || st == TERSE_ECORRUPT || st == TERSE_ENOMEM || st == 7);
    fz_check(coll_count(c) == n - removed && removed <= cnt);
    fz_check(!with_fn || g.got.n >= removed);
    if (ok) {
        want = start >= n ? 0 : cnt < n - start ? cnt : n - start;
        if (with_fn && g.stop < want) {
            fz_check(st == 7 && removed == g.stop);
        } else {
            fz_check(st == TERSE_OK && removed == want);
        }
    }
    fz_free(&g.got);
    return st == 7 ? TERSE_OK : st;
}

static void ops(struct coll_env *env, struct coll *c, struct fz_rng *r, bool ok,
                const struct fz_list *w, const uint8_t *data, size_t size)
{
    /* Edits only on a set that verified: the load refuses others, no command meets them. */
    for (int i = 0; i < FZ_OPS && ok; i++) {
        uint64_t x = fz_next(r), y = fz_next(r);
        uint8_t tmp[8];
        const uint8_t *m = tmp;
        size_t mlen;
        int st = TERSE_OK, v;
        /* A walked member (a copy), an input slice, or a short made-up one. */
        if (w->n > 0 && (y & 3) != 0) {
            size_t k = (size_t)(y >> 8) % w->n;
            m = w->bytes + w->it[k].off;
            mlen = w->it[k].mlen;
        } else if (y & 4) {
            size_t at = (size_t)(y >> 8) % size, len = (size_t)(y >> 40) % 12;
            m = data + at;
            mlen = len < size - at ? len : size - at;
        } else {
            memcpy(tmp, &y, 8);
            mlen = (size_t)(y >> 60) % 9;
        }
        coll_env_turn_begin(env); /* a command's turn, as cmd_run brackets one */
        if (x % 6 < 3) {
            st = op_add(env, c, x >> 3, m, mlen, ok);
        } else {
            st = x % 6 < 5 ? op_rem(env, c, m, mlen, ok) : op_range(env, c, x >> 3, ok);
        }
        coll_env_turn_end(env);
        v = coll_zset_verify(env, c);
        fz_check(v == TERSE_OK || v == TERSE_ECORRUPT || v == TERSE_ENOMEM);
        fz_check(coll_tree_total(&c->tree) == coll_count(c));
        /* A verified set stays so, whatever the edit answered (failures change nothing). */
        fz_check(!ok || v == TERSE_OK || (st != TERSE_OK && v == TERSE_ENOMEM));
        ok = v == TERSE_OK;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t sizes[4] = {64, 256, 1024, 4096};
    struct coll_env *env = NULL;
    struct codec_ctx *codec = NULL;
    struct coll *c = NULL;
    struct coll_zset_shape sh;
    struct fz_list w = {0};
    struct fz_rng r;
    bool ok;
    if (size < 3) {
        return 0;
    }
    fz_rng_init(&r, data, size);
    fz_check(coll_env_create(&env) == TERSE_OK);
    fz_check(codec_ctx_create(&codec, NULL) == TERSE_OK);
    coll_env_set_codec(env, codec);
    if (data[0] & FH_FPBITS) {
        coll_env_set_fp_bits(env, 3 + (data[1] & 7u) % 6);
    }
    sh.chunk_bytes = sizes[data[0] >> 6];
    fz_check(coll_zset_create(env, &sh, &c) == TERSE_OK);
    c->aux->seed = (uint64_t)data[2] * 0x9e3779b97f4a7c15ull; /* the snapshot's map seed */
    build(env, c, data, size, &r);
    if (data[0] & FH_REBUILD) { /* refused on a map not empty */
        bool full = coll_count(c->aux) != 0 && coll_count(c) != 0;
        int st = coll_zset_map_rebuild(env, c);
        fz_check(st == TERSE_ECORRUPT || (!full && (st == TERSE_OK || st == TERSE_ENOMEM)));
    }
    ok = check_whole(env, c, &r, &w);
    ops(env, c, &r, ok, &w, data, size);
    ok = check_whole(env, c, &r, &w);
    if ((data[0] & FH_COMPRESS) && ok) {
        /* Compressed by the background pass (merged, then LZ4), then read again. */
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
        (void)coll_compress_step(env, 0, NULL, NULL, 0);
        fz_check(check_whole(env, c, &r, &w));
        ops(env, c, &r, true, &w, data, size);
        (void)check_whole(env, c, &r, &w);
    }
    fz_free(&w);
    coll_destroy(env, c);
    coll_env_destroy(&env);
    codec_ctx_destroy(&codec);
    return 0;
}
