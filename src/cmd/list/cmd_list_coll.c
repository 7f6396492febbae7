/*
 * cmd_list_coll: the list commands on a chunked list, and the two conversions
 * (cmd_list_coll.h). A chunked list changes in place: nothing here stores the key again but a
 * conversion, so a write costs its elements and the chunks they sit in.
 *
 * Buffers: element views come from the container (its open ends, or a chunk decoded into
 * the container environment's buffer) and are written to the reply at once; a pushed element
 * is a slice of the request; scratch2 holds a form on its way in or out of one value.
 */
#include "cmd/list/cmd_list_coll.h"

#include <limits.h>
#include <string.h>

#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/list/cmd_list_form.h"
#include "cmd/mech/cmd_change.h"
#include "cmd/mech/cmd_feed.h"
#include "coll/coll_list.h"
#include "resp/resp_write.h"
#include "store/form/store_list.h"
#include "store/store.h"
#include "terse/status.h"

void cmd_list_shape(const struct cmd_server *srv, struct coll_list_shape *out)
{
    out->chunk_bytes = srv->settings.list_chunk_max != 0 ? srv->settings.list_chunk_max : 8192u;
    out->chunk_n = srv->settings.list_chunk_n;
    out->keep_raw = srv->settings.list_keep_raw;
}

bool cmd_list_wants_chunks(const struct cmd_server *srv, size_t len, uint64_t n)
{
    struct coll_list_shape sh;

    cmd_list_shape(srv, &sh);
    return len > sh.chunk_bytes || (sh.chunk_n != 0 && n > sh.chunk_n);
}


int cmd_list_read_whole(struct cmd_call *c, const struct resp_slice *key, int for_write,
                        const struct store_entry **e, const uint8_t **form, size_t *len,
                        uint64_t *n)
{
    struct coll *co;
    size_t sz;
    int st;

    if (cmd_list_read(c, key, for_write, e, form, len, n) != 0) {
        return -1;
    }
    if (*e == NULL || *form != NULL) {
        return 0;
    }
    co = store_entry_coll(*e);
    sz = coll_list_form_size(co);
    st = cmd_scratch_reserve(c->srv, sz);
    if (st == TERSE_OK) {
        st = coll_list_to_form(cmd_coll_env(c, key), co, c->srv->scratch, sz, len);
    }
    if (st != TERSE_OK) {
        cmd_list_reply_bad(c, key, st);
        return -1;
    }
    *form = c->srv->scratch;
    return 0;
}

struct coll *cmd_list_coll_of(const struct store_entry *e)
{
    return e != NULL && store_entry_enc(e) == STORE_ENC_COLL ? store_entry_coll(e) : NULL;
}

/* A status met on a chunked list: withdraws what the reply had written since mark. */
static int bad(struct cmd_call *c, const struct resp_slice *key, size_t mark, int st)
{
    c->out->len = mark;
    cmd_list_reply_bad(c, key, st);
    return -1;
}

int cmd_list_coll_store_form(struct cmd_call *c, const struct resp_slice *key, size_t len)
{
    struct coll_list_shape sh;
    struct coll *co;
    int st;

    if (!cmd_list_wants_chunks(c->srv, len, store_list_n(c->srv->scratch2, len))) {
        return cmd_value_store_form(c, c->cl->db, key, STORE_TYPE_LIST, len, 0);
    }
    cmd_list_shape(c->srv, &sh);
    st = coll_list_from_form(cmd_coll_env(c, key), c->srv->scratch2, len, &sh, &co);
    return st == TERSE_OK ? cmd_coll_store(c, key, co) : st;
}

int cmd_list_coll_settle(struct cmd_call *c, const struct resp_slice *key, struct coll *co)
{
    struct coll_list_shape sh;

    cmd_list_shape(c->srv, &sh);
    return cmd_coll_settle(c, key, STORE_TYPE_LIST, co,
                           coll_list_form_size(co) < sh.chunk_bytes / 4 &&
                               (sh.chunk_n == 0 || coll_count(co) <= sh.chunk_n / 4),
                           0);
}

int cmd_list_coll_push(struct cmd_call *c, struct coll *co, bool left, size_t first)
{
    struct coll_env *env = cmd_coll_env(c, &c->argv[1]);

    for (size_t i = first; i < c->argc; i++) {
        int st = coll_list_push(env, co, left, c->argv[i].p, c->argv[i].len);
        if (st != TERSE_OK) {
            /* The elements before it are in: what is there is replied, as far as it got. */
            if (i > first) {
                cmd_coll_edited(c, &c->argv[1]);
            }
            cmd_list_reply_bad(c, &c->argv[1], st);
            return -1;
        }
    }
    cmd_coll_edited(c, &c->argv[1]);
    resp_write_int(c->out, (long long)coll_count(co));
    return 0;
}

int cmd_list_coll_pop(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      bool left, uint64_t count, bool single, bool with_key)
{
    struct coll_env *env = cmd_coll_env(c, key);
    size_t mark = c->out->len;
    const uint8_t *el;
    size_t len;
    int st;

    count = count > coll_count(co) ? coll_count(co) : count;
    if (with_key) {
        resp_write_array(c->out, 2);
        resp_write_bulk(c->out, key->p, key->len);
    }
    if (!single) {
        resp_write_array(c->out, (size_t)count);
    }
    for (uint64_t i = 0; i < count; i++) {
        st = coll_list_pop(env, co, left, &el, &len);
        if (st != 1) {
            /* Pops before a corrupt element stay done; the reply says the key is corrupt. */
            if (i > 0) {
                cmd_coll_edited(c, key);
            }
            return bad(c, key, mark, st == 0 ? TERSE_ECORRUPT : st);
        }
        cmd_list_write_bulk(c, el, len);
    }
    st = cmd_list_coll_settle(c, key, co);
    if (st != TERSE_OK) {
        return bad(c, key, mark, st);
    }
    cmd_changed_edit(c, CMD_NOTIFY_LIST, left ? "lpop" : "rpop", key);
    if (with_key && cmd_feed_on(c)) {
        char num[CMD_FEED_NUM];
        struct resp_slice a[3] = {cmd_feed_str(left ? "LPOP" : "RPOP"), *key,
                                  cmd_feed_ll(num, (long long)count)};
        cmd_feed_rewrite(c, a, single ? 2 : 3);
    }
    return 0;
}

int cmd_list_coll_reply_at(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                           uint64_t at)
{
    const uint8_t *el;
    size_t len;
    int st = coll_list_index(cmd_coll_env(c, key), co, at, &el, &len);

    if (st != TERSE_OK) {
        return bad(c, key, c->out->len, st);
    }
    cmd_list_write_bulk(c, el, len);
    return 0;
}

int cmd_list_coll_range(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                        uint64_t start, uint64_t end)
{
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll_list_it it;
    size_t mark = c->out->len, len;
    const uint8_t *el;
    int st = coll_list_it_init(env, co, start, false, &it);

    if (st != TERSE_OK) {
        return bad(c, key, mark, st);
    }
    resp_write_array(c->out, (size_t)(end - start + 1));
    for (uint64_t i = start; i <= end; i++) {
        st = coll_list_it_next(env, &it, &el, &len);
        if (st != 1) {
            return bad(c, key, mark, st == 0 ? TERSE_ECORRUPT : st);
        }
        cmd_list_write_bulk(c, el, len);
    }
    return 0;
}

int cmd_list_coll_set(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      uint64_t at, const struct resp_slice *el)
{
    int st = coll_list_set(cmd_coll_env(c, key), co, at, el->p, el->len);

    if (st == TERSE_OK) {
        cmd_coll_edited(c, key);
    }
    return st == TERSE_OK ? 0 : bad(c, key, c->out->len, st);
}

int cmd_list_coll_walk_next(struct cmd_call *c, const struct resp_slice *key,
                            struct coll_list_it *it, const uint8_t **el, size_t *len)
{
    int st = coll_list_it_next(cmd_coll_env(c, key), it, el, len);

    return st >= 0 ? st : bad(c, key, c->out->len, st);
}

static bool same(const uint8_t *el, size_t len, const struct resp_slice *s)
{
    return len == s->len && (len == 0 || memcmp(el, s->p, len) == 0);
}

int cmd_list_coll_insert(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                         const struct resp_slice *pivot, bool after, const struct resp_slice *el,
                         int *found)
{
    struct coll_env *env = cmd_coll_env(c, key);
    struct coll_list_it it;
    const uint8_t *p;
    size_t len;
    uint64_t i = 0;
    int st = coll_list_it_init(env, co, 0, false, &it);

    *found = 0;
    while (st == TERSE_OK && (st = coll_list_it_next(env, &it, &p, &len)) == 1) {
        if (same(p, len, pivot)) {
            *found = 1;
            break;
        }
        i++;
        st = TERSE_OK;
    }
    if (st < 0) {
        return bad(c, key, c->out->len, st);
    }
    if (!*found) {
        return 0;
    }
    st = coll_list_insert(env, co, after ? i + 1 : i, el->p, el->len);
    if (st == TERSE_OK) {
        cmd_coll_edited(c, key);
    }
    return st == TERSE_OK ? 0 : bad(c, key, c->out->len, st);
}

int cmd_list_coll_rem(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                      long long count, const struct resp_slice *el, uint64_t *removed)
{
    struct coll_env *env = cmd_coll_env(c, key);
    uint64_t skip = 0, max = UINT64_MAX;
    int st = TERSE_OK;

    *removed = 0;
    if (count < 0) {
        /* The last -count: every match counted, the first ones skipped (one walk more). */
        uint64_t want = count == LLONG_MIN ? (uint64_t)1 << 63 : (uint64_t)-count, matches = 0;
        struct coll_list_it it;
        const uint8_t *p;
        size_t len;
        st = coll_list_it_init(env, co, 0, false, &it);
        while (st == TERSE_OK && (st = coll_list_it_next(env, &it, &p, &len)) == 1) {
            matches += same(p, len, el);
            st = TERSE_OK;
        }
        skip = matches > want ? matches - want : 0;
    } else if (count > 0) {
        max = (uint64_t)count;
    }
    if (st >= 0) {
        st = coll_list_remove(env, co, el->p, el->len, skip, max, removed);
    }
    if (st == TERSE_OK && *removed > 0) {
        st = cmd_list_coll_settle(c, key, co);
    }
    return st == TERSE_OK ? 0 : bad(c, key, c->out->len, st);
}

int cmd_list_coll_trim(struct cmd_call *c, const struct resp_slice *key, struct coll *co,
                       uint64_t ltrim, uint64_t rtrim)
{
    struct coll_env *env = cmd_coll_env(c, key);
    int st = TERSE_OK;

    if (ltrim + rtrim >= coll_count(co)) {
        st = coll_list_trim(env, co, true, coll_count(co));
    } else {
        st = coll_list_trim(env, co, true, ltrim);
        if (st == TERSE_OK) {
            st = coll_list_trim(env, co, false, rtrim);
        }
    }
    if (st == TERSE_OK) {
        st = cmd_list_coll_settle(c, key, co);
    }
    return st == TERSE_OK ? 0 : bad(c, key, c->out->len, st);
}
