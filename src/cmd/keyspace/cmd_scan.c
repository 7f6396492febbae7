/*
 * cmd_scan: the keyspace walks of the keyspace family (KEYS, SCAN, RANDOMKEY, DBSIZE), with
 * Redis 7.0's syntax, replies and error texts. Their rows are in cmd_keys_defs (cmd_keys.c).
 *
 * Invariants:
 * - Every walk goes through cmd_keys_all_shard(): the first version has one shard, and that
 *   function is the one place that becomes a loop over shards.
 * - Expired keys are never listed, even before the store reclaims them.
 *
 * SCAN reply layout: the cursor precedes the keys but is known only once the store step has
 * run, so the keys are written after a gap reserved in the output and the header is written
 * into the gap afterwards, closing what remains of it:
 *
 *   before:  | ... | gap (KEYS_SCAN_GAP bytes) | $k1 $k2 ... |
 *   after:   | ... | *2 $cursor *n | $k1 $k2 ... |
 */
#include "cmd/keyspace/cmd_scan.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_lookup.h"
#include "cmd/core/cmd_glob.h"

/* Entries visited per store step while KEYS walks a whole database. */
#define KEYS_WALK_STEP 1024
/* Bytes reserved ahead of the SCAN keys: "*2\r\n" + "$20\r\n" + 20 digits + CRLF + array
 * header; two headers of RESP_HEADER_MAX always suffice. */
#define KEYS_SCAN_GAP (2 * RESP_HEADER_MAX)

/* ---- KEYS, SCAN, RANDOMKEY, DBSIZE --------------------------------------------------------- */

static void keys_reply_key(struct cmd_call *c, const struct store_entry *e)
{
    size_t klen;
    const uint8_t *k = store_entry_key(e, &klen);

    resp_write_bulk(c->out, k, klen);
}

/* State of one KEYS or SCAN walk, passed to the store's scan callback. */
struct keys_walk {
    struct cmd_call *c;
    const uint8_t *pat;   /* glob pattern, or NULL to match every key */
    size_t pat_len;
    const uint8_t *type;  /* SCAN TYPE name, or NULL */
    size_t type_len;
    size_t n;             /* keys written so far */
};

static int keys_type_matches(const struct keys_walk *w, const struct store_entry *e)
{
    const char *name = cmd_keys_type_name(e);

    /* Redis looks each key up to get its type, which counts as a keyspace hit. */
    w->c->srv->stats.keyspace_hits++;
    return strlen(name) == w->type_len &&
           strncasecmp(name, (const char *)w->type, w->type_len) == 0;
}

/* Scan callback: writes the key as a bulk string if it passes the filters. */
static void keys_walk_emit(void *arg, const struct store_entry *e)
{
    struct keys_walk *w = arg;
    size_t klen;
    const uint8_t *k = store_entry_key(e, &klen);
    int64_t exp = store_entry_expire(e);

    if (w->pat != NULL && !cmd_glob_match(w->pat, w->pat_len, k, klen, 0)) {
        return;
    }
    if (w->type != NULL && !keys_type_matches(w, e)) {
        return;
    }
    /* The store does not report expired entries; keep the rule visible here too. */
    if (exp != STORE_NO_EXPIRE && exp <= w->c->now_ms) {
        return;
    }
    resp_write_bulk(w->c->out, k, klen);
    w->n++;
}

static int keys_pattern_is_all(const struct resp_slice *pat)
{
    return pat->len == 1 && pat->p[0] == '*';
}

/* KEYS pattern: the whole db, in store steps, into one deferred-length array. */
void cmd_keys_proc(struct cmd_call *c)
{
    struct keys_walk w = {.c = c};
    struct store_shard *s = cmd_keys_all_shard(c);
    uint64_t cursor = 0;
    size_t at;

    if (!keys_pattern_is_all(&c->argv[1])) {
        w.pat = c->argv[1].p;
        w.pat_len = c->argv[1].len;
    }
    at = resp_write_deferred_begin(c->out);
    do {
        cursor = store_scan(s, c->cl->db, cursor, KEYS_WALK_STEP, c->now_ms, keys_walk_emit, &w);
    } while (cursor != 0 && !c->out->err);
    resp_write_deferred_end(c->out, at, '*', w.n);
}

/* Writes the SCAN header into the gap at `at` and closes what is left of the gap. */
static void keys_scan_finish(struct resp_out *o, size_t at, uint64_t cursor, size_t n)
{
    char cur[24], hdr[KEYS_SCAN_GAP];
    int cl, hl;

    if (o->err) {
        return;
    }
    cl = snprintf(cur, sizeof(cur), "%llu", (unsigned long long)cursor);
    hl = snprintf(hdr, sizeof(hdr), "*2\r\n$%d\r\n%s\r\n*%zu\r\n", cl, cur, n);
    assert(hl > 0 && (size_t)hl <= KEYS_SCAN_GAP);
    memcpy(o->p + at, hdr, (size_t)hl);
    memmove(o->p + at + hl, o->p + at + KEYS_SCAN_GAP, o->len - at - KEYS_SCAN_GAP);
    o->len -= KEYS_SCAN_GAP - (size_t)hl;
}

/* SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] */
void cmd_scan_proc(struct cmd_call *c)
{
    struct keys_walk w = {.c = c};
    uint64_t cursor;
    long long count = 10;
    size_t at;

    if (!cmd_scan_parse_cursor(c->argv[1].p, c->argv[1].len, &cursor)) {
        cmd_reply_err(c, CMD_SCAN_ERR_CURSOR);
        return;
    }
    for (size_t i = 2; i < c->argc; i += 2) {
        int has_value = i + 1 < c->argc;
        if (cmd_arg_is(c, i, "count") && has_value) {
            if (cmd_ll_or_reply(c, i + 1, &count, NULL) != 0) {
                return;
            }
            if (count < 1) {
                cmd_reply_err(c, CMD_ERR_SYNTAX);
                return;
            }
        } else if (cmd_arg_is(c, i, "match") && has_value) {
            const struct resp_slice *pat = &c->argv[i + 1];
            w.pat = keys_pattern_is_all(pat) ? NULL : pat->p;
            w.pat_len = pat->len;
        } else if (cmd_arg_is(c, i, "type") && has_value) {
            w.type = c->argv[i + 1].p;
            w.type_len = c->argv[i + 1].len;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (resp_out_reserve(c->out, KEYS_SCAN_GAP) == NULL) {
        return; /* sticky output error: the connection is closing */
    }
    at = c->out->len;
    resp_out_commit(c->out, KEYS_SCAN_GAP);
    /* Expired keys met on the way are deleted, as Redis's SCAN does (fed as DELs). */
    cursor = store_scan_reap(cmd_keys_all_shard(c), c->cl->db, cursor, (size_t)count,
                             c->now_ms, keys_walk_emit, &w);
    keys_scan_finish(c->out, at, cursor, w.n);
}

void cmd_randomkey_proc(struct cmd_call *c)
{
    const struct store_entry *e = store_random(cmd_keys_all_shard(c), c->cl->db, c->now_ms);

    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    keys_reply_key(c, e);
}

/* Counts keys whether expired or not, as Redis's DBSIZE does. */
void cmd_dbsize_proc(struct cmd_call *c)
{
    resp_write_int(c->out, (long long)store_dbsize(cmd_keys_all_shard(c), c->cl->db));
}
