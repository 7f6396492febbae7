/*
 * cmd_keys: the keyspace and expiry commands (DEL ... OBJECT), with Redis 7.0's syntax,
 * replies and error texts.
 *
 * Invariants:
 * - A key is reached only through cmd_shard(). Keyspace-wide commands (KEYS, SCAN, RANDOMKEY,
 *   DBSIZE, FLUSH*, SWAPDB) go through keys_all_shard(): the first version has one shard, and
 *   that function is the one place that becomes a loop over shards.
 * - Lookups follow Redis's lookup flags: read-side commands count keyspace hits and misses;
 *   only the commands Redis lets touch a key (TOUCH, COPY's source) update its LRU/LFU data;
 *   write-side lookups count nothing.
 * - OBJECT answers with Redis's string encodings (int, embstr, raw) whatever codec holds the
 *   value, and with the policy-dependent errors of Redis (FREQ needs an LFU policy, IDLETIME
 *   refuses one).
 * - Times are absolute unix milliseconds taken from the call (c->now_ms), read once.
 *
 * SCAN reply layout: the cursor precedes the keys but is known only once the store step has
 * run, so the keys are written after a gap reserved in the output and the header is written
 * into the gap afterwards, closing what remains of it:
 *
 *   before:  | ... | gap (KEYS_SCAN_GAP bytes) | $k1 $k2 ... |
 *   after:   | ... | *2 $cursor *n | $k1 $k2 ... |
 */
#include "cmd/cmd.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd_internal.h"
#include "cmd/cmd_util.h"
#include "terse/status.h"

/* Redis's shared integers: values 0 <= v < KEYS_SHARED_INTEGERS are one shared object whose
 * OBJECT REFCOUNT is KEYS_SHARED_REFCOUNT (INT_MAX), when the eviction policy allows sharing. */
#define KEYS_SHARED_INTEGERS 10000
#define KEYS_SHARED_REFCOUNT INT_MAX
/* Longest string Redis reports as "embstr"; longer ones are "raw". */
#define KEYS_EMBSTR_MAX 44
/* Entries visited per store step while KEYS walks a whole database. */
#define KEYS_WALK_STEP 1024
/* Bytes reserved ahead of the SCAN keys: "*2\r\n" + "$20\r\n" + 20 digits + CRLF + array
 * header; two headers of RESP_HEADER_MAX always suffice. */
#define KEYS_SCAN_GAP (2 * RESP_HEADER_MAX)

#define KEYS_ERR_SAME_OBJECT "ERR source and destination objects are the same"
#define KEYS_ERR_CURSOR "ERR invalid cursor"
#define KEYS_ERR_LFU_FREQ                                                                         \
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "     \
    "that when switching between policies at runtime LRU and LFU data will take some time to "    \
    "adjust."
#define KEYS_ERR_LFU_IDLE                                                                         \
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "      \
    "switching between policies at runtime LRU and LFU data will take some time to adjust."

/* keys_lookup flags. */
enum keys_lookup_flags {
    KEYS_LOOKUP_TOUCH = 1 << 0, /* update LRU/LFU data (Redis's lookupKeyRead) */
    KEYS_LOOKUP_STATS = 1 << 1  /* count a keyspace hit or miss */
};

/* ---- helpers ------------------------------------------------------------------------------ */

/* The shard a keyspace-wide command works on (one shard in this version). */
static struct store_shard *keys_all_shard(struct cmd_call *c)
{
    return c->srv->shard;
}

/* Whether the maxmemory policy (settings, NULL = noeviction) is one of the "-lfu" ones. */
static int keys_policy_is_lfu(const struct cmd_call *c)
{
    const char *p = c->srv->settings.maxmemory_policy;

    return p != NULL && strstr(p, "-lfu") != NULL;
}

/*
 * Whether Redis would hold a small integer as its shared object: not when a maxmemory limit
 * is set under an LRU or LFU policy (each key then needs its own access data). Redis decides
 * when the value is written; terse answers with the settings of now.
 */
static int keys_ints_shared(const struct cmd_call *c)
{
    const char *p = c->srv->settings.maxmemory_policy;
    struct cmd_sysinfo si = {0};

    if (p == NULL || (strstr(p, "-lru") == NULL && strstr(p, "-lfu") == NULL)) {
        return 1;
    }
    if (c->srv->hooks.sysinfo != NULL) {
        c->srv->hooks.sysinfo(c->srv->hooks.srv, &si);
    }
    return si.maxmemory == 0;
}

static struct store_entry *keys_lookup(struct cmd_call *c, int db, const struct resp_slice *key,
                                       unsigned flags)
{
    struct store_entry *e;
    int sflags = (flags & KEYS_LOOKUP_TOUCH) ? STORE_LOOKUP_TOUCH : 0;

    e = store_lookup(cmd_shard(c, key->p, key->len), db, key->p, key->len, c->now_ms, sflags);
    if (flags & KEYS_LOOKUP_STATS) {
        if (e != NULL) {
            c->srv->stats.keyspace_hits++;
        } else {
            c->srv->stats.keyspace_misses++;
        }
    }
    return e;
}

static int keys_same_slice(const struct resp_slice *a, const struct resp_slice *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/*
 * Parses argument argi as an int as Redis's getIntFromObjectOrReply: not an integer, or out
 * of int range, replies msg (or Redis's default texts when msg is NULL). 0 or -1.
 */
static int keys_int_or_reply(struct cmd_call *c, size_t argi, int *out, const char *msg)
{
    long long v;

    if (!cmd_parse_ll(c->argv[argi].p, c->argv[argi].len, &v)) {
        cmd_reply_err(c, msg != NULL ? msg : CMD_ERR_NOT_INT);
        return -1;
    }
    if (v < INT_MIN || v > INT_MAX) {
        if (msg != NULL) {
            cmd_reply_err(c, msg);
        } else {
            resp_write_errorf(c->out, "ERR value is out of range, value must between %d and %d",
                              INT_MIN, INT_MAX);
        }
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int keys_db_valid(const struct cmd_call *c, int db)
{
    return db >= 0 && db < c->srv->settings.databases;
}

/* Redis's getObjectTypeName for an entry. */
static const char *keys_type_name(const struct store_entry *e)
{
    switch (store_entry_type(e)) {
    case STORE_TYPE_STRING:
        return "string";
    }
    return "none";
}

static void keys_reply_key(struct cmd_call *c, const struct store_entry *e)
{
    size_t klen;
    const uint8_t *k = store_entry_key(e, &klen);

    resp_write_bulk(c->out, k, klen);
}

/* ---- DEL, UNLINK, EXISTS, TOUCH, TYPE ----------------------------------------------------- */

/* UNLINK frees synchronously too: values are flat entries, freeing one is cheap. */
static void keys_del(struct cmd_call *c)
{
    long long n = 0;

    for (size_t i = 1; i < c->argc; i++) {
        const struct resp_slice *k = &c->argv[i];
        n += store_delete(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, c->now_ms);
    }
    resp_write_int(c->out, n);
}

/* EXISTS counts a key as often as it is named. */
static void keys_exists(struct cmd_call *c)
{
    long long n = 0;

    for (size_t i = 1; i < c->argc; i++) {
        if (keys_lookup(c, c->cl->db, &c->argv[i], KEYS_LOOKUP_STATS) != NULL) {
            n++;
        }
    }
    resp_write_int(c->out, n);
}

static void keys_touch(struct cmd_call *c)
{
    long long n = 0;

    for (size_t i = 1; i < c->argc; i++) {
        if (keys_lookup(c, c->cl->db, &c->argv[i], KEYS_LOOKUP_STATS | KEYS_LOOKUP_TOUCH) !=
            NULL) {
            n++;
        }
    }
    resp_write_int(c->out, n);
}

static void keys_type(struct cmd_call *c)
{
    const struct store_entry *e = keys_lookup(c, c->cl->db, &c->argv[1], KEYS_LOOKUP_STATS);

    resp_write_simple(c->out, e != NULL ? keys_type_name(e) : "none");
}

/* ---- RENAME, RENAMENX, COPY, MOVE --------------------------------------------------------- */

static void keys_rename_generic(struct cmd_call *c, int nx)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    struct store_shard *s = cmd_shard(c, src->p, src->len);
    int db = c->cl->db;
    int st;

    if (keys_lookup(c, db, src, 0) == NULL) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
        return;
    }
    /* Renaming a key to itself is a no-op that still requires the key to exist. */
    if (keys_same_slice(src, dst)) {
        if (nx) {
            resp_write_int(c->out, 0);
        } else {
            resp_write_ok(c->out);
        }
        return;
    }
    /* One shard in this version; a cross-shard rename arrives with the shard mailboxes. */
    assert(cmd_shard(c, dst->p, dst->len) == s);
    if (nx && keys_lookup(c, db, dst, 0) != NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    st = store_rename(s, db, src->p, src->len, dst->p, dst->len, c->now_ms);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    if (nx) {
        resp_write_int(c->out, 1);
    } else {
        resp_write_ok(c->out);
    }
}

static void keys_rename(struct cmd_call *c)
{
    keys_rename_generic(c, 0);
}

static void keys_renamenx(struct cmd_call *c)
{
    keys_rename_generic(c, 1);
}

/* COPY source destination [DB destination-db] [REPLACE] */
static void keys_copy(struct cmd_call *c)
{
    const struct resp_slice *src = &c->argv[1], *dst = &c->argv[2];
    int src_db = c->cl->db, dst_db = c->cl->db, replace = 0;
    int st;

    for (size_t j = 3; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "replace")) {
            replace = 1;
        } else if (cmd_arg_is(c, j, "db") && j + 1 < c->argc) {
            if (keys_int_or_reply(c, j + 1, &dst_db, NULL) != 0) {
                return;
            }
            if (!keys_db_valid(c, dst_db)) {
                cmd_reply_err(c, CMD_ERR_DB_INDEX);
                return;
            }
            j++;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if (src_db == dst_db && keys_same_slice(src, dst)) {
        cmd_reply_err(c, KEYS_ERR_SAME_OBJECT);
        return;
    }
    if (keys_lookup(c, src_db, src, KEYS_LOOKUP_STATS | KEYS_LOOKUP_TOUCH) == NULL) {
        resp_write_int(c->out, 0);
        return;
    }
    assert(cmd_shard(c, dst->p, dst->len) == cmd_shard(c, src->p, src->len));
    st = store_copy(cmd_shard(c, src->p, src->len), src_db, src->p, src->len, dst_db, dst->p,
                    dst->len, replace, c->now_ms);
    switch (st) {
    case TERSE_OK:
        resp_write_int(c->out, 1);
        break;
    case TERSE_ENOTFOUND: /* source gone (cannot happen after the lookup above) */
    case TERSE_EINVAL:    /* destination exists and no REPLACE */
        resp_write_int(c->out, 0);
        break;
    default:
        cmd_reply_status(c, st);
        break;
    }
}

/* MOVE key db */
static void keys_move(struct cmd_call *c)
{
    const struct resp_slice *k = &c->argv[1];
    int dst_db;
    int st;

    if (keys_int_or_reply(c, 2, &dst_db, NULL) != 0) {
        return;
    }
    if (!keys_db_valid(c, dst_db)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    if (dst_db == c->cl->db) {
        cmd_reply_err(c, KEYS_ERR_SAME_OBJECT);
        return;
    }
    st = store_move(cmd_shard(c, k->p, k->len), c->cl->db, dst_db, k->p, k->len, c->now_ms);
    switch (st) {
    case TERSE_OK:
        resp_write_int(c->out, 1);
        break;
    case TERSE_ENOTFOUND: /* no such key in the source db */
    case TERSE_EINVAL:    /* key already in the destination db */
        resp_write_int(c->out, 0);
        break;
    default:
        cmd_reply_status(c, st);
        break;
    }
}

/* ---- KEYS, SCAN, RANDOMKEY, DBSIZE --------------------------------------------------------- */

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
    const char *name = keys_type_name(e);

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
static void keys_keys(struct cmd_call *c)
{
    struct keys_walk w = {.c = c};
    struct store_shard *s = keys_all_shard(c);
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

/*
 * Parses a SCAN cursor as Redis does with strtoull: no leading space, optional sign (a
 * negative value wraps), decimal digits, nothing after them (an embedded NUL ends the string
 * as it does for Redis), no overflow. An empty cursor is 0. 1 on success, 0 otherwise.
 */
static int keys_parse_cursor(const uint8_t *p, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    int neg = 0;
    size_t digits_at;

    if (len == 0 || p[0] == '\0') {
        *out = 0;
        return 1;
    }
    if (p[0] == '+' || p[0] == '-') {
        neg = p[0] == '-';
        i++;
    }
    digits_at = i;
    for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return 0;
        }
        v = v * 10 + d;
    }
    if (i == digits_at || (i < len && p[i] != '\0')) {
        return 0;
    }
    *out = neg ? (uint64_t)0 - v : v;
    return 1;
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
static void keys_scan(struct cmd_call *c)
{
    struct keys_walk w = {.c = c};
    uint64_t cursor;
    long long count = 10;
    size_t at;

    if (!keys_parse_cursor(c->argv[1].p, c->argv[1].len, &cursor)) {
        cmd_reply_err(c, KEYS_ERR_CURSOR);
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
    cursor = store_scan(keys_all_shard(c), c->cl->db, cursor, (size_t)count, c->now_ms,
                        keys_walk_emit, &w);
    keys_scan_finish(c->out, at, cursor, w.n);
}

static void keys_randomkey(struct cmd_call *c)
{
    const struct store_entry *e = store_random(keys_all_shard(c), c->cl->db, c->now_ms);

    if (e == NULL) {
        resp_write_null(c->out);
        return;
    }
    keys_reply_key(c, e);
}

/* Counts keys whether expired or not, as Redis's DBSIZE does. */
static void keys_dbsize(struct cmd_call *c)
{
    resp_write_int(c->out, (long long)store_dbsize(keys_all_shard(c), c->cl->db));
}

/* ---- FLUSHDB, FLUSHALL, SELECT, SWAPDB ------------------------------------------------------ */

/* [ASYNC|SYNC]: both flush synchronously (entries are flat; freeing them is cheap). */
static int keys_flush_args_or_reply(struct cmd_call *c)
{
    if (c->argc == 1 || (c->argc == 2 && (cmd_arg_is(c, 1, "sync") || cmd_arg_is(c, 1, "async")))) {
        return 0;
    }
    cmd_reply_err(c, CMD_ERR_SYNTAX);
    return -1;
}

static void keys_flushdb(struct cmd_call *c)
{
    if (keys_flush_args_or_reply(c) != 0) {
        return;
    }
    store_flushdb(keys_all_shard(c), c->cl->db);
    resp_write_ok(c->out);
}

static void keys_flushall(struct cmd_call *c)
{
    if (keys_flush_args_or_reply(c) != 0) {
        return;
    }
    store_flushall(keys_all_shard(c));
    resp_write_ok(c->out);
}

static void keys_select(struct cmd_call *c)
{
    int db;

    if (keys_int_or_reply(c, 1, &db, NULL) != 0) {
        return;
    }
    if (!keys_db_valid(c, db)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    c->cl->db = db;
    resp_write_ok(c->out);
}

static void keys_swapdb(struct cmd_call *c)
{
    int a, b;

    if (keys_int_or_reply(c, 1, &a, "ERR invalid first DB index") != 0 ||
        keys_int_or_reply(c, 2, &b, "ERR invalid second DB index") != 0) {
        return;
    }
    if (!keys_db_valid(c, a) || !keys_db_valid(c, b)) {
        cmd_reply_err(c, CMD_ERR_DB_INDEX);
        return;
    }
    store_swapdb(keys_all_shard(c), a, b);
    resp_write_ok(c->out);
}

/* ---- EXPIRE family, TTL family, PERSIST ----------------------------------------------------- */

enum keys_expire_flags {
    KEYS_EXPIRE_NX = 1 << 0,
    KEYS_EXPIRE_XX = 1 << 1,
    KEYS_EXPIRE_GT = 1 << 2,
    KEYS_EXPIRE_LT = 1 << 3
};

/* Parses NX|XX|GT|LT from argument 3 on, with Redis's errors. 0 or -1 (replied). */
static int keys_expire_flags_or_reply(struct cmd_call *c, unsigned *flags)
{
    *flags = 0;
    for (size_t j = 3; j < c->argc; j++) {
        if (cmd_arg_is(c, j, "nx")) {
            *flags |= KEYS_EXPIRE_NX;
        } else if (cmd_arg_is(c, j, "xx")) {
            *flags |= KEYS_EXPIRE_XX;
        } else if (cmd_arg_is(c, j, "gt")) {
            *flags |= KEYS_EXPIRE_GT;
        } else if (cmd_arg_is(c, j, "lt")) {
            *flags |= KEYS_EXPIRE_LT;
        } else {
            resp_write_errorf(c->out, "ERR Unsupported option %.*s", (int)c->argv[j].len,
                              (const char *)c->argv[j].p);
            return -1;
        }
    }
    if ((*flags & KEYS_EXPIRE_NX) &&
        (*flags & (KEYS_EXPIRE_XX | KEYS_EXPIRE_GT | KEYS_EXPIRE_LT))) {
        cmd_reply_err(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((*flags & KEYS_EXPIRE_GT) && (*flags & KEYS_EXPIRE_LT)) {
        cmd_reply_err(c, "ERR GT and LT options at the same time are not compatible");
        return -1;
    }
    return 0;
}

/* Whether NX/XX/GT/LT let a new expiry `when` replace `cur` (STORE_NO_EXPIRE = none). */
static int keys_expire_allowed(unsigned flags, int64_t cur, long long when)
{
    int has = cur != STORE_NO_EXPIRE;

    if ((flags & KEYS_EXPIRE_NX) && has) {
        return 0;
    }
    if ((flags & KEYS_EXPIRE_XX) && !has) {
        return 0;
    }
    /* No expiry counts as an infinite one: GT never beats it, LT always does. */
    if ((flags & KEYS_EXPIRE_GT) && (!has || when <= cur)) {
        return 0;
    }
    if ((flags & KEYS_EXPIRE_LT) && has && when >= cur) {
        return 0;
    }
    return 1;
}

/*
 * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT. base_ms: added to the argument (now or 0);
 * unit_ms: 1000 for seconds, 1 for milliseconds; name: for the overflow error.
 * A resulting time at or before now deletes the key.
 */
static void keys_expire_generic(struct cmd_call *c, long long base_ms, long long unit_ms,
                                const char *name)
{
    const struct resp_slice *k = &c->argv[1];
    struct store_shard *s = cmd_shard(c, k->p, k->len);
    const struct store_entry *e;
    unsigned flags;
    long long when;

    if (keys_expire_flags_or_reply(c, &flags) != 0 || cmd_ll_or_reply(c, 2, &when, NULL) != 0) {
        return;
    }
    if (when > LLONG_MAX / unit_ms || when < LLONG_MIN / unit_ms ||
        when * unit_ms > LLONG_MAX - base_ms) {
        resp_write_errorf(c->out, "ERR invalid expire time in '%s' command", name);
        return;
    }
    when = when * unit_ms + base_ms;
    e = keys_lookup(c, c->cl->db, k, 0);
    if (e == NULL || !keys_expire_allowed(flags, store_entry_expire(e), when)) {
        resp_write_int(c->out, 0);
        return;
    }
    if (when <= c->now_ms) {
        store_delete(s, c->cl->db, k->p, k->len, c->now_ms);
    } else {
        /* A first expiry may grow the entry: ENOMEM leaves the key unchanged. */
        int st = store_expire_set(s, c->cl->db, k->p, k->len, when, c->now_ms);
        if (st < 0) {
            cmd_reply_status(c, st);
            return;
        }
    }
    resp_write_int(c->out, 1);
}

static void keys_expire(struct cmd_call *c)
{
    keys_expire_generic(c, c->now_ms, 1000, "expire");
}

static void keys_pexpire(struct cmd_call *c)
{
    keys_expire_generic(c, c->now_ms, 1, "pexpire");
}

static void keys_expireat(struct cmd_call *c)
{
    keys_expire_generic(c, 0, 1000, "expireat");
}

static void keys_pexpireat(struct cmd_call *c)
{
    keys_expire_generic(c, 0, 1, "pexpireat");
}

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 no key, -1 no expiry. Seconds round half up. */
static void keys_ttl_generic(struct cmd_call *c, int in_ms, int absolute)
{
    const struct store_entry *e = keys_lookup(c, c->cl->db, &c->argv[1], KEYS_LOOKUP_STATS);
    int64_t exp, t;

    if (e == NULL) {
        resp_write_int(c->out, -2);
        return;
    }
    exp = store_entry_expire(e);
    if (exp == STORE_NO_EXPIRE) {
        resp_write_int(c->out, -1);
        return;
    }
    t = absolute ? exp : exp - c->now_ms;
    if (t < 0) {
        t = 0;
    }
    /* (t + 500) / 1000 without overflow near INT64_MAX. */
    resp_write_int(c->out, in_ms ? t : t / 1000 + (t % 1000 >= 500));
}

static void keys_ttl(struct cmd_call *c)
{
    keys_ttl_generic(c, 0, 0);
}

static void keys_pttl(struct cmd_call *c)
{
    keys_ttl_generic(c, 1, 0);
}

static void keys_expiretime(struct cmd_call *c)
{
    keys_ttl_generic(c, 0, 1);
}

static void keys_pexpiretime(struct cmd_call *c)
{
    keys_ttl_generic(c, 1, 1);
}

static void keys_persist(struct cmd_call *c)
{
    const struct resp_slice *k = &c->argv[1];
    const struct store_entry *e = keys_lookup(c, c->cl->db, k, 0);
    int st;

    if (e == NULL || store_entry_expire(e) == STORE_NO_EXPIRE) {
        resp_write_int(c->out, 0);
        return;
    }
    st = store_expire_set(cmd_shard(c, k->p, k->len), c->cl->db, k->p, k->len, STORE_NO_EXPIRE,
                          c->now_ms);
    if (st < 0) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_int(c->out, 1);
}

/* ---- OBJECT -------------------------------------------------------------------------------- */

/* The key of an OBJECT subcommand, without touching it; replies null when missing. */
static const struct store_entry *keys_object_lookup(struct cmd_call *c)
{
    const struct store_entry *e = keys_lookup(c, c->cl->db, &c->argv[2], KEYS_LOOKUP_STATS);

    if (e == NULL) {
        resp_write_null(c->out);
    }
    return e;
}

/* Compressed or not, a value is a string to clients: report Redis's string encodings. */
static void keys_object_encoding(struct cmd_call *c)
{
    const struct store_entry *e = keys_object_lookup(c);
    size_t len;
    int st;

    if (e == NULL) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT) {
        resp_write_cstr(c->out, "int");
        return;
    }
    st = cmd_value_len(c, e, &len);
    if (st == TERSE_ECORRUPT) {
        cmd_reply_corrupt(c, c->argv[2].p, c->argv[2].len);
        return;
    }
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return;
    }
    resp_write_cstr(c->out,
                    len <= KEYS_EMBSTR_MAX && !store_entry_is_raw(e) ? "embstr" : "raw");
}

static void keys_object_freq(struct cmd_call *c)
{
    const struct store_entry *e = keys_object_lookup(c);

    if (e == NULL) {
        return;
    }
    if (!keys_policy_is_lfu(c)) {
        cmd_reply_err(c, KEYS_ERR_LFU_FREQ);
        return;
    }
    resp_write_int(c->out, (long long)store_entry_freq(e, c->now_ms));
}

static void keys_object_idletime(struct cmd_call *c)
{
    const struct store_entry *e = keys_object_lookup(c);

    if (e == NULL) {
        return;
    }
    if (keys_policy_is_lfu(c)) {
        cmd_reply_err(c, KEYS_ERR_LFU_IDLE);
        return;
    }
    resp_write_int(c->out, (long long)store_entry_idle_s(e, c->now_ms));
}

/* terse never shares values; Redis shares small integers (see keys_ints_shared), so report
 * the refcount Redis would. */
static void keys_object_refcount(struct cmd_call *c)
{
    const struct store_entry *e = keys_object_lookup(c);
    long long rc = 1;

    if (e == NULL) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT && keys_ints_shared(c)) {
        int64_t v = store_entry_int(e);
        if (v >= 0 && v < KEYS_SHARED_INTEGERS) {
            rc = KEYS_SHARED_REFCOUNT;
        }
    }
    resp_write_int(c->out, rc);
}

static void keys_object_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/* ---- the table ------------------------------------------------------------------------------ */

#define KEYS_RO_FAST (CMD_READONLY | CMD_FAST)
#define KEYS_W_FAST (CMD_WRITE | CMD_FAST)
#define KEYS_ACL_RF "@keyspace @read @fast"
#define KEYS_ACL_WF "@keyspace @write @fast"
#define KEYS_ACL_WS "@keyspace @write @slow"

static const struct cmd_def keys_object_subcmds[] = {
    {"object|encoding", 3, CMD_READONLY, 2, 2, 1, keys_object_encoding, "@keyspace @read @slow",
     "Inspect the internal encoding of a Redis object", "2.2.3", "generic", NULL},
    {"object|freq", 3, CMD_READONLY, 2, 2, 1, keys_object_freq, "@keyspace @read @slow",
     "Get the logarithmic access frequency counter of a Redis object", "4.0.0", "generic", NULL},
    {"object|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, keys_object_help, "@keyspace @slow",
     "Show helpful text about the different subcommands", "6.2.0", "generic", NULL},
    {"object|idletime", 3, CMD_READONLY, 2, 2, 1, keys_object_idletime, "@keyspace @read @slow",
     "Get the time since a Redis object was last accessed", "2.2.3", "generic", NULL},
    {"object|refcount", 3, CMD_READONLY, 2, 2, 1, keys_object_refcount, "@keyspace @read @slow",
     "Get the number of references to the value of the key", "2.2.3", "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

const struct cmd_def cmd_keys_defs[] = {
    {"copy", -3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, keys_copy, KEYS_ACL_WS, "Copy a key", "6.2.0",
     "generic", NULL},
    {"dbsize", 1, KEYS_RO_FAST, 0, 0, 0, keys_dbsize, KEYS_ACL_RF,
     "Return the number of keys in the selected database", "1.0.0", "server", NULL},
    {"del", -2, CMD_WRITE, 1, -1, 1, keys_del, KEYS_ACL_WS, "Delete a key", "1.0.0", "generic",
     NULL},
    {"exists", -2, KEYS_RO_FAST, 1, -1, 1, keys_exists, KEYS_ACL_RF, "Determine if a key exists",
     "1.0.0", "generic", NULL},
    {"expire", -3, KEYS_W_FAST, 1, 1, 1, keys_expire, KEYS_ACL_WF,
     "Set a key's time to live in seconds", "1.0.0", "generic", NULL},
    {"expireat", -3, KEYS_W_FAST, 1, 1, 1, keys_expireat, KEYS_ACL_WF,
     "Set the expiration for a key as a UNIX timestamp", "1.2.0", "generic", NULL},
    {"expiretime", 2, KEYS_RO_FAST, 1, 1, 1, keys_expiretime, KEYS_ACL_RF,
     "Get the expiration Unix timestamp for a key", "7.0.0", "generic", NULL},
    {"flushall", -1, CMD_WRITE, 0, 0, 0, keys_flushall, "@keyspace @write @slow @dangerous",
     "Remove all keys from all databases", "1.0.0", "server", NULL},
    {"flushdb", -1, CMD_WRITE, 0, 0, 0, keys_flushdb, "@keyspace @write @slow @dangerous",
     "Remove all keys from the current database", "1.0.0", "server", NULL},
    {"keys", 2, CMD_READONLY, 0, 0, 0, keys_keys, "@keyspace @read @slow @dangerous",
     "Find all keys matching the given pattern", "1.0.0", "generic", NULL},
    {"move", 3, KEYS_W_FAST, 1, 1, 1, keys_move, KEYS_ACL_WF, "Move a key to another database",
     "1.0.0", "generic", NULL},
    {"object", -2, 0, 0, 0, 0, NULL, "@slow", "A container for object introspection commands",
     "2.2.3", "generic", keys_object_subcmds},
    {"persist", 2, KEYS_W_FAST, 1, 1, 1, keys_persist, KEYS_ACL_WF,
     "Remove the expiration from a key", "2.2.0", "generic", NULL},
    {"pexpire", -3, KEYS_W_FAST, 1, 1, 1, keys_pexpire, KEYS_ACL_WF,
     "Set a key's time to live in milliseconds", "2.6.0", "generic", NULL},
    {"pexpireat", -3, KEYS_W_FAST, 1, 1, 1, keys_pexpireat, KEYS_ACL_WF,
     "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0",
     "generic", NULL},
    {"pexpiretime", 2, KEYS_RO_FAST, 1, 1, 1, keys_pexpiretime, KEYS_ACL_RF,
     "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0", "generic", NULL},
    {"pttl", 2, KEYS_RO_FAST, 1, 1, 1, keys_pttl, KEYS_ACL_RF,
     "Get the time to live for a key in milliseconds", "2.6.0", "generic", NULL},
    {"randomkey", 1, CMD_READONLY, 0, 0, 0, keys_randomkey, "@keyspace @read @slow",
     "Return a random key from the keyspace", "1.0.0", "generic", NULL},
    {"rename", 3, CMD_WRITE, 1, 2, 1, keys_rename, KEYS_ACL_WS, "Rename a key", "1.0.0",
     "generic", NULL},
    {"renamenx", 3, KEYS_W_FAST, 1, 2, 1, keys_renamenx, KEYS_ACL_WF,
     "Rename a key, only if the new key does not exist", "1.0.0", "generic", NULL},
    {"scan", -2, CMD_READONLY, 0, 0, 0, keys_scan, "@keyspace @read @slow",
     "Incrementally iterate the keys space", "2.8.0", "generic", NULL},
    {"select", 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, keys_select, "@fast @connection",
     "Change the selected database for the current connection", "1.0.0", "connection", NULL},
    {"swapdb", 3, KEYS_W_FAST, 0, 0, 0, keys_swapdb, "@keyspace @write @fast @dangerous",
     "Swaps two Redis databases", "4.0.0", "server", NULL},
    {"touch", -2, KEYS_RO_FAST, 1, -1, 1, keys_touch, KEYS_ACL_RF,
     "Alters the last access time of a key(s). Returns the number of existing keys specified.",
     "3.2.1", "generic", NULL},
    {"ttl", 2, KEYS_RO_FAST, 1, 1, 1, keys_ttl, KEYS_ACL_RF,
     "Get the time to live for a key in seconds", "1.0.0", "generic", NULL},
    {"type", 2, KEYS_RO_FAST, 1, 1, 1, keys_type, KEYS_ACL_RF, "Determine the type stored at key",
     "1.0.0", "generic", NULL},
    {"unlink", -2, KEYS_W_FAST, 1, -1, 1, keys_del, KEYS_ACL_WF,
     "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non "
     "blocking.",
     "4.0.0", "generic", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
