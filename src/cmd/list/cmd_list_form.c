/*
 * cmd_list_form: the steps every list command shares: read the list at a key (decoded into
 * scratch), store a new form for it (or delete the key when it is empty), splice elements in
 * and out, find an index, and reply an element.
 */
#include "cmd/list/cmd_list_form.h"


#include <stdbool.h>
#include <string.h>

#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/list/cmd_list_coll.h"
#include "coll/coll.h"
#include "store/store.h"
#include "resp/resp_write.h"
#include "terse/status.h"

void cmd_list_reply_bad(struct cmd_call *c, const struct resp_slice *key, int status)
{
    cmd_value_reply_bad(c, key, status);
}

int cmd_list_read(struct cmd_call *c, const struct resp_slice *key, int for_write,
                  const struct store_entry **e, const uint8_t **form, size_t *len, uint64_t *n)
{
    struct store_list_it it;
    int st;

    *n = 0;
    if (cmd_value_read_form(c, key, STORE_TYPE_LIST, for_write, e, form, len) != 0) {
        return -1;
    }
    if (*e == NULL) {
        return 0;
    }
    if (*form == NULL) {
        *n = coll_count(store_entry_coll(*e)); /* chunked: the commands use its engine */
        return 0;
    }
    st = store_list_open(*form, *len, &it, n);
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, key, st);
        return -1;
    }
    return 0;
}

int cmd_list_store(struct cmd_call *c, const struct resp_slice *key, size_t out_len)
{
    if (out_len == 0) {
        c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                  c->now_ms);
        return TERSE_OK;
    }
    c->emptied = 0;
    return cmd_list_coll_store_form(c, key, out_len);
}

int cmd_list_splice_store(struct cmd_call *c, const struct resp_slice *key,
                          const uint8_t *form, size_t len, uint64_t at, uint64_t n_del,
                          const struct store_list_el *ins, size_t n_ins)
{
    size_t cap = len + STORE_LIST_COUNT_MAX, out_len = 0;
    int st;

    for (size_t i = 0; i < n_ins; i++) {
        cap += store_list_el_size(ins[i].len);
    }
    st = cmd_scratch2_reserve(c->srv, cap);
    if (st == TERSE_OK) {
        st = store_list_splice(form, len, at, n_del, ins, n_ins, c->srv->scratch2, cap,
                               &out_len);
    }
    return st == TERSE_OK ? cmd_list_store(c, key, out_len) : st;
}

bool cmd_list_index(long long index, uint64_t n, uint64_t *at)
{
    if (index < 0) {
        index += (long long)n;
    }
    if (index < 0 || (uint64_t)index >= n) {
        return false;
    }
    *at = (uint64_t)index;
    return true;
}

int cmd_list_at(const uint8_t *form, size_t len, uint64_t i, const uint8_t **el,
                size_t *el_len)
{
    struct store_list_it it;
    uint64_t n;
    int st = store_list_open(form, len, &it, &n);

    if (st == TERSE_OK) {
        st = store_list_skip(&it, i);
    }
    if (st == TERSE_OK && store_list_next(&it, el, el_len) != 1) {
        st = TERSE_ECORRUPT;
    }
    return st;
}

void cmd_list_write_bulk(struct cmd_call *c, const uint8_t *p, size_t len)
{
    resp_write_bulk(c->out, len != 0 ? (const void *)p : (const void *)"", len);
}
