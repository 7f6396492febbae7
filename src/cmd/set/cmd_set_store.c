/*
 * cmd_set_store: how a set is stored after a write (cmd_set_commit), and the encoding Redis
 * would hold it in (cmd_set_encoding, cmd_set_form_is_table).
 *
 * Order. While every member is an integer (as Redis's string2ll reads one) the form holds them
 * in ascending numeric order, whatever the encoding mark: that is the order Redis's intset
 * answers SMEMBERS, SSCAN, SINTER... in, and a set Redis holds as a hashtable only because of
 * its size may come back as an intset from a snapshot (cmd_value_after_load), or be rebuilt as
 * one (SPOP, the STORE forms). cmd_set_commit restores the order after a write appended
 * integers out of order: the members already in order are kept, the others sorted (heapsort,
 * no allocation) and merged, so a write stays O(n + k log k) for k new members. A set with a
 * non-integer member keeps insertion order (Redis answers in its dict's order then).
 *
 * OBJECT ENCODING answers what Redis 7.0 would hold: "intset" while every member is an
 * integer and there are at most set-max-intset-entries of them, then "hashtable" for good (the
 * entry's raw mark; Redis never converts back, except when it builds a new set: a load
 * (cmd_value_after_load), the STORE forms, SPOP's rebuild: enum cmd_set_enc). A
 * hashtable-encoded set whose form passes terse-chunk-bytes is stored in chunks
 * (cmd_elems_coll.h), in its chunks' hash order.
 *
 * Buffers: the form to store is in scratch2; sorting it uses scratch and scratch3 (all the
 * cmd_server's, cmd_value.h). Nothing is allocated per request once they have grown.
 */
#include "cmd/set/cmd_set_store.h"

#include <limits.h>
#include <string.h>

#include "cmd/core/cmd_elems.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "store/form/store_hash.h"
#include "store/form/store_set.h"
#include "terse/status.h"

const char *cmd_set_encoding(const struct store_entry *e)
{
    return store_entry_is_raw(e) || store_entry_enc(e) == STORE_ENC_COLL ? "hashtable"
                                                                         : "intset";
}

/* Whether an intset cannot hold the member: it is no integer (cmd_elems_form_is_table's test). */
static bool member_not_int(const struct cmd_server *srv, const struct store_hash_kv *kv)
{
    long long v;

    (void)srv;
    return !cmd_parse_ll(kv->f, kv->flen, &v);
}

int cmd_set_form_is_table(const struct cmd_server *srv, const uint8_t *form, size_t len)
{
    return cmd_elems_form_is_table(srv, form, len, srv->settings.set_max_intset_entries,
                                   member_not_int);
}

/* ---- keeping an all-integer set in numeric order ------------------------------------------ */

/*
 * Rewrites the all-integer form in scratch2 (len bytes, n members, not in order) in ascending
 * numeric order; *out_len gets the new length (the same). The form is copied to scratch, its
 * members and their values laid out in scratch3 (twice n items: store_set_form_sorted merges
 * into the second half), and the form written back into scratch2.
 */
static int sort_form(struct cmd_server *srv, size_t len, size_t n, size_t *out_len)
{
    struct store_hash_it it;
    struct store_set_num *a;
    uint64_t count;
    int st;

    if (cmd_scratch_reserve(srv, len) != TERSE_OK ||
        cmd_scratch3_reserve(srv, 2 * n * sizeof(*a)) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memcpy(srv->scratch, srv->scratch2, len);
    a = (struct store_set_num *)(void *)srv->scratch3;
    st = store_hash_open(srv->scratch, len, &it, &count);
    for (size_t i = 0; st == TERSE_OK && i < n; i++) {
        st = store_hash_next(&it, &a[i].kv) == 1 ? TERSE_OK : TERSE_ECORRUPT;
        if (st == TERSE_OK && !cmd_parse_ll(a[i].kv.f, a[i].kv.flen, &a[i].v)) {
            st = TERSE_ECORRUPT;
        }
    }
    if (st != TERSE_OK) {
        return st;
    }
    return store_set_form_sorted(a, n, srv->scratch2, srv->scratch2_cap, out_len);
}

int cmd_set_normalize(struct cmd_server *srv, size_t len, size_t *out_len, uint64_t *n,
                      bool *all_int)
{
    struct store_hash_it it;
    struct store_hash_kv kv;
    long long v, prev = LLONG_MIN;
    bool sorted = true;
    size_t k = 0;
    int st;

    *out_len = len;
    *n = 0;
    *all_int = true;
    if (len == 0) {
        return TERSE_OK;
    }
    st = store_hash_open(srv->scratch2, len, &it, n);
    while (st == TERSE_OK && (st = store_hash_next(&it, &kv)) == 1) {
        st = TERSE_OK;
        if (*all_int && !cmd_parse_ll(kv.f, kv.flen, &v)) {
            *all_int = false;
        }
        if (*all_int) {
            sorted = sorted && (k == 0 || v > prev);
            prev = v;
        }
        k++;
    }
    if (st < 0) {
        return st;
    }
    if (k != *n) {
        return TERSE_ECORRUPT;
    }
    if (*all_int && !sorted) {
        return sort_form(srv, len, (size_t)*n, out_len);
    }
    return TERSE_OK;
}

int cmd_set_commit(struct cmd_call *c, const struct resp_slice *key, size_t len,
                   enum cmd_set_enc how, bool was_table)
{
    uint64_t n;
    bool all_int, table;
    int st;

    c->emptied = 0;
    if (len == 0) {
        c->emptied = store_delete(cmd_shard(c, key->p, key->len), c->cl->db, key->p, key->len,
                                  c->now_ms);
        return TERSE_OK;
    }
    st = cmd_set_normalize(c->srv, len, &len, &n, &all_int);
    if (st != TERSE_OK) {
        return st;
    }
    table = how == CMD_SET_ENC_FRESH ? false : was_table;
    if (how != CMD_SET_ENC_KEEP) {
        table = table || !all_int || n > (uint64_t)c->srv->settings.set_max_intset_entries;
    }
    if (cmd_elems_wants_chunks(c->srv, table, len)) {
        return cmd_elems_coll_store_form(c, key, STORE_TYPE_SET, len);
    }
    return cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_SET, len,
                                table ? (unsigned)STORE_SET_RAW : 0u);
}
