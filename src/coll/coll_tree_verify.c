/*
 * coll_tree_verify: the whole-tree check of coll_tree.h's invariants (entry counts within
 * bounds, leaves at one depth and linked in order, counts and first keys as the children say,
 * keys in the caller's order, the node bytes accounted), for loads and tests.
 */
#include "coll/coll_tree.h"
#include "coll/coll_tree_internal.h"

#include "terse/status.h"

struct verify {
    const struct coll_tree *t;
    coll_key_order *order;
    const struct coll_key *prev_key;
    const struct coll_node *prev_leaf;
    uint64_t n_desc, n_nodes;
    int leaf_depth;
};

static int key_eq(const struct coll_key *a, const struct coll_key *b)
{
    return a->k == b->k && a->aux == b->aux;
}

static int verify_node(struct verify *v, const struct coll_node *n, int depth)
{
    uint64_t sum = 0;

    v->n_nodes++;
    if (n->n == 0 || n->n > COLL_TREE_FAN || (n->parent != NULL && n->n < COLL_TREE_MIN)) {
        return TERSE_ECORRUPT;
    }
    if (n->leaf) {
        if (v->leaf_depth < 0) {
            v->leaf_depth = depth;
        } else if (v->leaf_depth != depth) {
            return TERSE_ECORRUPT;
        }
        if (n->prev != v->prev_leaf || (v->prev_leaf == NULL && v->t->first != n)) {
            return TERSE_ECORRUPT;
        }
        for (unsigned i = 0; i < n->n; i++) {
            const struct coll_desc *d = &n->u.d[i];
            if (d->count == 0 || d->chunk == NULL) {
                return TERSE_ECORRUPT;
            }
            if (v->order != NULL && v->prev_key != NULL && v->order(v->prev_key, &d->key) > 0) {
                return TERSE_ECORRUPT;
            }
            v->prev_key = &d->key;
            sum += d->count;
        }
        v->n_desc += n->n;
        v->prev_leaf = n;
    } else {
        for (unsigned i = 0; i < n->n; i++) {
            const struct coll_node *c = n->u.in.child[i];
            if (c->parent != n || c->pos != i || n->u.in.cnt[i] != c->total ||
                !key_eq(&n->u.in.key[i], first_key(c))) {
                return TERSE_ECORRUPT;
            }
            if (verify_node(v, c, depth + 1) != TERSE_OK) {
                return TERSE_ECORRUPT;
            }
            sum += c->total;
        }
    }
    return sum == n->total ? TERSE_OK : TERSE_ECORRUPT;
}

int coll_tree_verify(const struct coll_tree *t, coll_key_order *order)
{
    struct verify v = {t, order, NULL, NULL, 0, 0, -1};

    if (t->root == NULL) {
        return t->first == NULL && t->last == NULL && t->n_chunks == 0 && t->bytes == 0
                   ? TERSE_OK
                   : TERSE_ECORRUPT;
    }
    if (t->root->parent != NULL || verify_node(&v, t->root, 0) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    if (v.prev_leaf != t->last || t->last->next != NULL || v.n_desc != t->n_chunks ||
        v.n_nodes * sizeof(struct coll_node) != t->bytes) {
        return TERSE_ECORRUPT;
    }
    return TERSE_OK;
}
