/*
 * coll_form: a container's whole form, by its type's engine (coll_form.h).
 */
#include "coll/coll_form.h"

#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_zset.h"
#include "terse/status.h"

size_t coll_form_size(const struct coll *c)
{
    switch ((enum coll_type)c->type) {
    case COLL_LIST:
        return coll_list_form_size(c);
    case COLL_HASH:
    case COLL_SET:
        return coll_hash_form_size(c);
    case COLL_ZSET:
        return coll_zset_form_size(c);
    case COLL_STREAM:
        break;
    }
    return 0;
}

int coll_to_form(struct coll_env *env, struct coll *c, uint8_t *out, size_t cap, size_t *len)
{
    switch ((enum coll_type)c->type) {
    case COLL_LIST:
        return coll_list_to_form(env, c, out, cap, len);
    case COLL_HASH:
    case COLL_SET:
        return coll_hash_to_form(env, c, out, cap, len);
    case COLL_ZSET:
        return coll_zset_to_form(env, c, out, cap, len);
    case COLL_STREAM:
        break;
    }
    return TERSE_EINVAL;
}
