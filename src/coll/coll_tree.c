/*
 * coll_tree: the counted B+tree of chunk descriptors (coll_tree.h).
 *
 *   leaf:   parent | prev, next leaf | n | d[0..n)            descriptors
 *   inner:  parent | n | child[0..n), cnt[0..n), key[0..n)   cnt[i] = elements under child[i],
 *                                                            key[i] = its first descriptor's key
 *
 * Every node knows its parent and its index there (pos), so a change walks up without a
 * stack: a count change adds its delta to each cnt on the path (O(depth)); a structural change
 * (split, borrow, merge) recomputes the node it touched and refreshes the parent's entry for
 * it (fix_up: O(depth * COLL_TREE_FAN)).
 */
#include "coll/coll_tree.h"
#include "coll/coll_tree_internal.h"

#include <string.h>

#include "terse/status.h"

size_t coll_tree_node_size(void)
{
    return sizeof(struct coll_node);
}

void coll_tree_init(struct coll_tree *t, const struct coll_alloc *alloc)
{
    memset(t, 0, sizeof(*t));
    t->alloc = *alloc;
}

static struct coll_node *node_new(struct coll_tree *t, int leaf)
{
    struct coll_node *n = t->alloc.alloc(t->alloc.opaque, sizeof(*n));

    if (n == NULL) {
        return NULL;
    }
    memset(n, 0, sizeof(*n));
    n->leaf = (uint16_t)leaf;
    t->bytes += sizeof(*n);
    return n;
}

static void node_free(struct coll_tree *t, struct coll_node *n)
{
    t->bytes -= sizeof(*n);
    t->alloc.free(t->alloc.opaque, n);
}

static void free_subtree(struct coll_tree *t, struct coll_node *n)
{
    if (!n->leaf) {
        for (unsigned i = 0; i < n->n; i++) {
            free_subtree(t, n->u.in.child[i]);
        }
    }
    node_free(t, n);
}

void coll_tree_deinit(struct coll_tree *t)
{
    if (t->root != NULL) {
        free_subtree(t, t->root);
    }
    t->root = t->first = t->last = NULL;
    t->n_chunks = 0;
}

uint64_t coll_tree_total(const struct coll_tree *t)
{
    return t->root != NULL ? t->root->total : 0;
}

struct coll_desc *coll_tree_desc(const struct coll_it *it)
{
    return &it->leaf->u.d[it->slot];
}

struct coll_it coll_tree_begin(const struct coll_tree *t)
{
    struct coll_it it = {t->first, 0};
    return it;
}

struct coll_it coll_tree_end(const struct coll_tree *t)
{
    struct coll_it it = {t->last, t->last != NULL ? (unsigned)t->last->n - 1 : 0};
    return it;
}

void coll_tree_next(struct coll_it *it)
{
    if (++it->slot >= it->leaf->n) {
        it->leaf = it->leaf->next;
        it->slot = 0;
    }
}

void coll_tree_prev(struct coll_it *it)
{
    if (it->slot > 0) {
        it->slot--;
        return;
    }
    it->leaf = it->leaf->prev;
    it->slot = it->leaf != NULL ? (unsigned)it->leaf->n - 1 : 0;
}

bool coll_tree_seek_rank(const struct coll_tree *t, uint64_t rank, struct coll_it *it,
                         uint64_t *within)
{
    const struct coll_node *n = t->root;
    unsigned i;

    if (n == NULL || rank >= n->total) {
        it->leaf = NULL;
        return false;
    }
    while (!n->leaf) {
        for (i = 0; i + 1 < n->n && rank >= n->u.in.cnt[i]; i++) {
            rank -= n->u.in.cnt[i];
        }
        n = n->u.in.child[i];
    }
    for (i = 0; i + 1 < n->n && rank >= n->u.d[i].count; i++) {
        rank -= n->u.d[i].count;
    }
    it->leaf = (struct coll_node *)(uintptr_t)n;
    it->slot = i;
    *within = rank;
    return true;
}

/* The elements of n's entries before entry k: summed from whichever end is nearer (the node's
 * total less the entries from k on), so a rank costs at most half a node's entries a level. */
static uint64_t count_before(const struct coll_node *n, unsigned k)
{
    bool low = k <= n->n / 2u;
    uint64_t r = 0;

    for (unsigned i = low ? 0 : k; i < (low ? k : n->n); i++) {
        r += n->leaf ? n->u.d[i].count : n->u.in.cnt[i];
    }
    return low ? r : n->total - r;
}

uint64_t coll_tree_rank_of(const struct coll_it *it)
{
    const struct coll_node *n = it->leaf;
    uint64_t r = count_before(n, it->slot);

    for (; n->parent != NULL; n = n->parent) {
        r += count_before(n->parent, n->pos);
    }
    return r;
}

bool coll_tree_seek_key(const struct coll_tree *t, coll_key_cmp *cmp, void *arg,
                        struct coll_it *it)
{
    const struct coll_node *n = t->root;
    unsigned i;

    if (n == NULL) {
        it->leaf = NULL;
        return false;
    }
    /* In each node the entry taken is the last whose key is not after the target (the first
     * when every key is): a binary search, since "after" holds for a suffix of the keys. */
    while (!n->leaf) {
        unsigned lo = 1, hi = n->n;
        while (lo < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            if (cmp(arg, &n->u.in.key[mid]) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        n = n->u.in.child[lo - 1];
    }
    {
        unsigned lo = 1, hi = n->n;
        while (lo < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            if (cmp(arg, &n->u.d[mid].key) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        i = lo - 1;
    }
    it->leaf = (struct coll_node *)(uintptr_t)n;
    it->slot = i;
    return true;
}

/* In keys [1, n) of a node (stride bytes apart from key1), the last whose k is not after the
 * target, or 0: a binary search, as coll_tree_seek_key's. */
static unsigned last_not_after(const uint8_t *key1, size_t stride, unsigned n, uint64_t k,
                               bool strict)
{
    unsigned lo = 1, hi = n;

    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        uint64_t km = ((const struct coll_key *)(const void *)(key1 + (mid - 1) * stride))->k;

        if (strict ? k <= km : k < km) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo - 1;
}

bool coll_tree_seek_k(const struct coll_tree *t, uint64_t k, bool strict, struct coll_it *it)
{
    const struct coll_node *n = t->root;

    if (n == NULL) {
        it->leaf = NULL;
        return false;
    }
    while (!n->leaf) {
        n = n->u.in.child[last_not_after((const uint8_t *)&n->u.in.key[1],
                                         sizeof(n->u.in.key[0]), n->n, k, strict)];
    }
    it->leaf = (struct coll_node *)(uintptr_t)n;
    it->slot = last_not_after((const uint8_t *)&n->u.d[1].key, sizeof(n->u.d[0]), n->n, k,
                              strict);
    return true;
}

/* ---- keeping counts and keys --------------------------------------------------------------- */

static void recount(struct coll_node *n)
{
    uint64_t sum = 0;

    for (unsigned i = 0; i < n->n; i++) {
        sum += n->leaf ? n->u.d[i].count : n->u.in.cnt[i];
    }
    n->total = sum;
}

/* n's entries changed: its total, then each ancestor's entry for it, up to the root. */
static void fix_up(struct coll_node *n)
{
    recount(n);
    while (n->parent != NULL && n->n > 0) {
        struct coll_node *p = n->parent;
        p->u.in.cnt[n->pos] = n->total;
        p->u.in.key[n->pos] = *first_key(n);
        recount(p);
        n = p;
    }
}

void coll_tree_set_count(struct coll_tree *t, const struct coll_it *it, uint32_t count)
{
    t->edits++;
    struct coll_node *n = it->leaf;
    int64_t delta = (int64_t)count - (int64_t)n->u.d[it->slot].count;

    (void)t;
    n->u.d[it->slot].count = count;
    n->total = (uint64_t)((int64_t)n->total + delta);
    while (n->parent != NULL) {
        struct coll_node *p = n->parent;
        p->u.in.cnt[n->pos] = n->total;
        p->total = (uint64_t)((int64_t)p->total + delta);
        n = p;
    }
}

void coll_tree_set_key(struct coll_tree *t, const struct coll_it *it, const struct coll_key *key)
{
    t->edits++;
    struct coll_node *n = it->leaf;
    unsigned slot = it->slot;

    (void)t;
    n->u.d[slot].key = *key;
    while (slot == 0 && n->parent != NULL) {
        slot = n->pos;
        n->parent->u.in.key[slot] = *key;
        n = n->parent;
    }
}

/* ---- structure: entries of a node ---------------------------------------------------------- */

/* Inner entry i of p is child c (placed there, pos and parent set). */
static void put_child(struct coll_node *p, unsigned i, struct coll_node *c)
{
    p->u.in.child[i] = c;
    p->u.in.cnt[i] = c->total;
    p->u.in.key[i] = *first_key(c);
    c->parent = p;
    c->pos = (uint16_t)i;
}

/* Opens room at i in n (n->n < FAN), shifting entries i.. right. */
static void open_at(struct coll_node *n, unsigned i)
{
    unsigned k = n->n - i;

    if (n->leaf) {
        memmove(&n->u.d[i + 1], &n->u.d[i], k * sizeof(n->u.d[0]));
    } else {
        memmove(&n->u.in.child[i + 1], &n->u.in.child[i], k * sizeof(n->u.in.child[0]));
        memmove(&n->u.in.cnt[i + 1], &n->u.in.cnt[i], k * sizeof(n->u.in.cnt[0]));
        memmove(&n->u.in.key[i + 1], &n->u.in.key[i], k * sizeof(n->u.in.key[0]));
        for (unsigned j = i + 1; j <= n->n; j++) {
            n->u.in.child[j]->pos = (uint16_t)j;
        }
    }
    n->n++;
}

/* Closes entry i of n, shifting entries i + 1.. left. */
static void close_at(struct coll_node *n, unsigned i)
{
    unsigned k = n->n - i - 1;

    if (n->leaf) {
        memmove(&n->u.d[i], &n->u.d[i + 1], k * sizeof(n->u.d[0]));
    } else {
        memmove(&n->u.in.child[i], &n->u.in.child[i + 1], k * sizeof(n->u.in.child[0]));
        memmove(&n->u.in.cnt[i], &n->u.in.cnt[i + 1], k * sizeof(n->u.in.cnt[0]));
        memmove(&n->u.in.key[i], &n->u.in.key[i + 1], k * sizeof(n->u.in.key[0]));
        for (unsigned j = i; j + 1 < n->n; j++) {
            n->u.in.child[j]->pos = (uint16_t)j;
        }
    }
    n->n--;
}

/* Moves entries [from, n->n) of n to the start of r (empty, same kind). */
static void move_tail(struct coll_node *n, unsigned from, struct coll_node *r)
{
    unsigned k = n->n - from;

    if (n->leaf) {
        memcpy(&r->u.d[0], &n->u.d[from], k * sizeof(n->u.d[0]));
    } else {
        for (unsigned j = 0; j < k; j++) {
            r->u.in.child[j] = n->u.in.child[from + j];
            r->u.in.cnt[j] = n->u.in.cnt[from + j];
            r->u.in.key[j] = n->u.in.key[from + j];
            r->u.in.child[j]->parent = r;
            r->u.in.child[j]->pos = (uint16_t)j;
        }
    }
    r->n = (uint16_t)k;
    n->n = (uint16_t)from;
}

/* Appends all of src's entries to dst (same kind, room for them). */
static void append_all(struct coll_node *dst, struct coll_node *src)
{
    for (unsigned j = 0; j < src->n; j++) {
        unsigned at = dst->n;
        dst->n++;
        if (dst->leaf) {
            dst->u.d[at] = src->u.d[j];
        } else {
            put_child(dst, at, src->u.in.child[j]);
        }
    }
    src->n = 0;
}

/* ---- insert --------------------------------------------------------------------------------- */

/* Puts c (a new node holding the upper half of n) after n in n's parent, splitting upwards.
 * TERSE_OK or TERSE_ENOMEM (the tree then still holds every entry: c is linked or freed by
 * the caller's undo). */
static int insert_sibling(struct coll_tree *t, struct coll_node *n, struct coll_node *c)
{
    struct coll_node *p = n->parent;

    if (p == NULL) {
        p = node_new(t, 0);
        if (p == NULL) {
            return TERSE_ENOMEM;
        }
        p->n = 1;
        put_child(p, 0, n);
        t->root = p;
    }
    if (p->n < COLL_TREE_FAN) {
        open_at(p, n->pos + 1u);
        put_child(p, n->pos + 1u, c);
        fix_up(n);
        fix_up(c);
        return TERSE_OK;
    }
    {
        struct coll_node *q = node_new(t, 0);
        unsigned half = COLL_TREE_FAN / 2, at = n->pos + 1u;
        int rc;

        if (q == NULL) {
            return TERSE_ENOMEM;
        }
        move_tail(p, half, q);
        if (at <= half) {
            open_at(p, at);
            put_child(p, at, c);
        } else {
            open_at(q, at - half);
            put_child(q, at - half, c);
        }
        recount(p);
        recount(q);
        rc = insert_sibling(t, p, q);
        if (rc != TERSE_OK) {
            /* Take c out again, then put q's entries back into p, which then fits them. */
            struct coll_node *cp = c->parent;
            close_at(cp, c->pos);
            recount(cp);
            append_all(p, q);
            node_free(t, q);
            fix_up(p);
            return rc;
        }
        fix_up(n);
        fix_up(c);
        return TERSE_OK;
    }
}

int coll_tree_insert(struct coll_tree *t, struct coll_it *at, const struct coll_desc *d)
{
    t->edits++;
    struct coll_node *leaf = at->leaf;
    unsigned slot = at->slot;

    if (t->root == NULL) {
        leaf = node_new(t, 1);
        if (leaf == NULL) {
            return TERSE_ENOMEM;
        }
        t->root = t->first = t->last = leaf;
        slot = 0;
    } else if (leaf == NULL) {
        leaf = t->last;
        slot = leaf->n;
    }
    if (leaf->n == COLL_TREE_FAN) {
        struct coll_node *r = node_new(t, 1);
        unsigned half = COLL_TREE_FAN / 2;

        if (r == NULL) {
            return TERSE_ENOMEM;
        }
        move_tail(leaf, half, r);
        recount(leaf);
        recount(r);
        r->prev = leaf;
        r->next = leaf->next;
        if (insert_sibling(t, leaf, r) != TERSE_OK) {
            append_all(leaf, r);
            node_free(t, r);
            fix_up(leaf);
            return TERSE_ENOMEM;
        }
        if (leaf->next != NULL) {
            leaf->next->prev = r;
        } else {
            t->last = r;
        }
        leaf->next = r;
        if (slot > half) {
            leaf = r;
            slot -= half;
        }
    }
    open_at(leaf, slot);
    leaf->u.d[slot] = *d;
    fix_up(leaf);
    t->n_chunks++;
    at->leaf = leaf;
    at->slot = slot;
    return TERSE_OK;
}

/* ---- remove --------------------------------------------------------------------------------- */

/* Drops n (now empty, or merged away) from its parent, rebalancing upwards. */
static void rebalance(struct coll_tree *t, struct coll_node *n);

static void unlink_leaf(struct coll_tree *t, struct coll_node *n)
{
    if (n->prev != NULL) {
        n->prev->next = n->next;
    } else {
        t->first = n->next;
    }
    if (n->next != NULL) {
        n->next->prev = n->prev;
    } else {
        t->last = n->prev;
    }
}

static void drop_child(struct coll_tree *t, struct coll_node *p, struct coll_node *c)
{
    close_at(p, c->pos);
    if (c->leaf) {
        unlink_leaf(t, c);
    }
    node_free(t, c);
    recount(p);
    rebalance(t, p);
}

static void rebalance(struct coll_tree *t, struct coll_node *n)
{
    struct coll_node *p = n->parent, *s;

    if (p == NULL) {
        if (!n->leaf && n->n == 1) {
            struct coll_node *c = n->u.in.child[0];
            c->parent = NULL;
            c->pos = 0;
            t->root = c;
            node_free(t, n);
        } else if (n->n == 0) {
            node_free(t, n);
            t->root = t->first = t->last = NULL;
        }
        return;
    }
    if (n->n >= COLL_TREE_MIN) {
        fix_up(n);
        return;
    }
    if (n->pos > 0) {
        s = p->u.in.child[n->pos - 1u];
        if (s->n > COLL_TREE_MIN) {
            /* Borrow s's last entry. */
            open_at(n, 0);
            if (n->leaf) {
                n->u.d[0] = s->u.d[s->n - 1u];
            } else {
                put_child(n, 0, s->u.in.child[s->n - 1u]);
            }
            s->n--;
            fix_up(s);
            fix_up(n);
            return;
        }
        append_all(s, n); /* merge n into its left neighbour */
        fix_up(s);
        drop_child(t, p, n);
        return;
    }
    s = p->u.in.child[1];
    if (s->n > COLL_TREE_MIN) {
        /* Borrow s's first entry. */
        unsigned at = n->n;
        n->n++;
        if (n->leaf) {
            n->u.d[at] = s->u.d[0];
        } else {
            put_child(n, at, s->u.in.child[0]);
        }
        close_at(s, 0);
        fix_up(n);
        fix_up(s);
        return;
    }
    append_all(n, s); /* merge the right neighbour into n */
    fix_up(n);
    drop_child(t, p, s);
}

void coll_tree_remove(struct coll_tree *t, struct coll_it *at)
{
    t->edits++;
    struct coll_node *leaf = at->leaf;

    close_at(leaf, at->slot);
    t->n_chunks--;
    recount(leaf);
    if (leaf->parent == NULL) {
        if (leaf->n == 0) {
            node_free(t, leaf);
            t->root = t->first = t->last = NULL;
        }
    } else if (leaf->n == 0) {
        drop_child(t, leaf->parent, leaf);
    } else {
        rebalance(t, leaf);
    }
    at->leaf = NULL;
    at->slot = 0;
}
