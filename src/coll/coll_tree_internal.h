/*
 * coll_tree_internal: the node of the counted B+tree (its layout is drawn in coll_tree.c),
 * private to coll_tree.c and coll_tree_verify.c.
 */
#ifndef TERSE_COLL_TREE_INTERNAL_H
#define TERSE_COLL_TREE_INTERNAL_H

#include "coll/coll_tree.h"

struct coll_node {
    struct coll_node *parent;
    struct coll_node *prev, *next; /* leaves: neighbours in order (NULL at the ends) */
    uint16_t n;                    /* entries */
    uint16_t leaf;                 /* 1: d[], 0: child[], cnt[], key[] */
    uint16_t pos;                  /* index in parent's child[] */
    uint64_t total;                /* elements under this node */
    union {
        struct coll_desc d[COLL_TREE_FAN];
        struct {
            struct coll_node *child[COLL_TREE_FAN];
            uint64_t cnt[COLL_TREE_FAN];
            struct coll_key key[COLL_TREE_FAN];
        } in;
    } u;
};

/* The key of the first descriptor under n. */
static inline const struct coll_key *first_key(const struct coll_node *n)
{
    return n->leaf ? &n->u.d[0].key : &n->u.in.key[0];
}

#endif /* TERSE_COLL_TREE_INTERNAL_H */
