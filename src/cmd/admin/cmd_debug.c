/*
 * cmd_debug: DEBUG, allowed only as enable-debug-command says (Redis 7.0's check: "yes", or
 * "local" for clients on 127.0.0.1, ::1 or a unix socket).
 *
 * Subcommands: HELP, OBJECT key, SLEEP seconds, SET-ACTIVE-EXPIRE 0|1, ERROR text, LOG text,
 * DIGEST, DIGEST-VALUE key..., RELOAD [options] (the save and load run in server/ through
 * the reload hook), QUICKLIST-PACKED-THRESHOLD (checked, no effect),
 * and terse's CORRUPT-VALUE key, which flips one byte of a value's stored form so tests can
 * prove that a corrupted value is reported and never returned. As in Redis, DEBUG is not a
 * container in COMMAND INFO: the subcommand is parsed here, and an unknown one or a wrong
 * argument count gets "unknown subcommand or wrong number of arguments".
 */
#include "cmd/admin/cmd_debug.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd/admin/cmd_digest.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_lookup.h"
#include "terse/status.h"
#include "cmd/keyspace/cmd_object.h"
#include "cmd/core/cmd_table.h"
#include "cmd/admin/cmd_debug_proto.h"
#include "coll/coll_form.h"
#include "store/store.h"

/* Redis's LRU clock: seconds, wrapping at 24 bits. */
#define DEBUG_LRU_CLOCK_MAX ((1u << 24) - 1)
/* Longest string Redis keeps as "embstr"; longer ones are "raw". */
#define DEBUG_EMBSTR_MAX 44
/* Redis shares the integers 0..DEBUG_SHARED_INTEGERS-1, with this refcount. */
#define DEBUG_SHARED_INTEGERS 10000
#define DEBUG_SHARED_REFCOUNT INT_MAX
/* Longest argument copied into a C string (SLEEP, SET-ACTIVE-EXPIRE, LOG). */
#define DEBUG_ARG_MAX 1024

#define DEBUG_ERR_DISABLED                                                                       \
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "   \
    "you can run it from a local connection, otherwise you need to set this option in the "     \
    "configuration file, and then restart the server."

/* Redis's islocalClient: a unix socket, or exactly 127.0.0.1 or ::1. addr is "ip:port". */
static int client_is_local(const struct cmd_client *cl)
{
    const char *addr = cl->addr;
    const char *colon = strrchr(addr, ':');
    size_t n = colon != NULL ? (size_t)(colon - addr) : strlen(addr);

    if (addr[0] == '/') {
        return 1;
    }
    if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
        addr++;
        n -= 2;
    }
    return (n == 9 && memcmp(addr, "127.0.0.1", 9) == 0) || (n == 3 && memcmp(addr, "::1", 3) == 0);
}

static int debug_allowed(const struct cmd_call *c)
{
    switch (c->srv->settings.enable_debug_command) {
    case 1:
        return 1;
    case 2:
        return client_is_local(c->cl);
    default:
        return 0;
    }
}

/* Copies argument argi into buf as a C string, cut at cap - 1 bytes. */
static const char *arg_cstr(const struct cmd_call *c, size_t argi, char *buf, size_t cap)
{
    size_t n = c->argv[argi].len < cap - 1 ? c->argv[argi].len : cap - 1;

    memcpy(buf, c->argv[argi].p, n);
    buf[n] = '\0';
    return buf;
}

/* Bytes of Redis's RDB length prefix for n (rdbSaveLen). */
static size_t rdb_len_size(uint64_t n)
{
    return n < (1u << 6) ? 1 : n < (1u << 14) ? 2 : n <= UINT32_MAX ? 5 : 9;
}

/* Redis's serializedlength of an integer-encoded string (rdbEncodeInteger, else digits). */
static size_t int_serialized_len(int64_t v)
{
    char digits[24];

    if (v >= -128 && v <= 127) {
        return 2;
    }
    if (v >= -32768 && v <= 32767) {
        return 3;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
        return 5;
    }
    return 1 + (size_t)snprintf(digits, sizeof(digits), "%lld", (long long)v);
}

/* Whether Redis would hold v as a shared integer (see cmd_object.c's OBJECT REFCOUNT). */
static int int_shared(const struct cmd_call *c, int64_t v)
{
    const char *p = c->srv->settings.maxmemory_policy;
    struct cmd_sysinfo si;

    if (v < 0 || v >= DEBUG_SHARED_INTEGERS) {
        return 0;
    }
    if (p == NULL || (strstr(p, "-lru") == NULL && strstr(p, "-lfu") == NULL)) {
        return 1;
    }
    memset(&si, 0, sizeof(si));
    if (c->srv->hooks.sysinfo != NULL) {
        c->srv->hooks.sysinfo(c->srv->hooks.srv, &si);
    }
    return si.maxmemory == 0;
}

static struct store_entry *debug_lookup(struct cmd_call *c)
{
    const struct resp_slice *key = &c->argv[2];
    struct store_shard *shard = cmd_shard(c, key->p, key->len);
    struct store_entry *e = store_lookup(shard, c->cl->db, key->p, key->len, c->now_ms, 0);

    if (e == NULL) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
    }
    return e;
}

/*
 * "Value at:<addr> refcount:N encoding:E serializedlength:N lru:N lru_seconds_idle:N", as
 * Redis. serializedlength is what the value would take in an RDB file: for a compressed value
 * terse counts its stored payload as Redis counts an LZF-compressed string. A container held
 * in chunks adds terse_chunks:N.
 */
static void debug_object(struct cmd_call *c)
{
    /* Redis reads its dict directly: a key past its expiry, not yet deleted, still shows. */
    struct store_entry *e = store_peek(cmd_shard(c, c->argv[2].p, c->argv[2].len), c->cl->db,
                                       c->argv[2].p, c->argv[2].len);
    const char *enc = "int";
    size_t ser = 0;
    int refcount = 1;
    uint64_t idle;
    unsigned lru;
    char line[256];
    int n;

    if (e == NULL) {
        cmd_reply_err(c, CMD_ERR_NO_KEY);
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT) {
        int64_t v = store_entry_int(e);
        ser = int_serialized_len(v);
        refcount = int_shared(c, v) ? DEBUG_SHARED_REFCOUNT : 1;
    } else if (store_entry_enc(e) == STORE_ENC_COLL) {
        enc = cmd_value_encoding(e);
        ser = coll_form_size(store_entry_coll(e)); /* about what an RDB file would take */
    } else {
        size_t stored_len;
        const uint8_t *stored = store_entry_val(e, &stored_len);
        struct codec_value_info vi;
        if (codec_value_info(stored, stored_len, &vi) != TERSE_OK) {
            cmd_reply_corrupt(c, c->argv[2].p, c->argv[2].len);
            return;
        }
        enc = vi.orig_len <= DEBUG_EMBSTR_MAX ? "embstr" : "raw";
        if (store_entry_type(e) != STORE_TYPE_STRING) {
            enc = cmd_value_encoding(e);
        }
        if (vi.kind == CODEC_RAW) {
            ser = rdb_len_size(vi.orig_len) + vi.orig_len;
        } else {
            ser = 1 + rdb_len_size(vi.payload_len) + rdb_len_size(vi.orig_len) + vi.payload_len;
        }
    }
    idle = store_entry_idle_s(e, c->now_ms);
    lru = (unsigned)(((uint64_t)(c->now_ms / 1000) - idle) & DEBUG_LRU_CLOCK_MAX);
    n = snprintf(line, sizeof(line),
                 "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u "
                 "lru_seconds_idle:%llu",
                 (void *)e, refcount, enc, ser, lru, (unsigned long long)idle);
    if (store_entry_enc(e) == STORE_ENC_COLL && n > 0 && (size_t)n < sizeof(line)) {
        /* terse's own field, as Redis adds ql_nodes for a quicklist: the container's chunks */
        snprintf(line + n, sizeof(line) - (size_t)n, " terse_chunks:%llu",
                 (unsigned long long)store_entry_coll(e)->tree.n_chunks);
    }
    resp_write_simple(c->out, line);
}

/* terse: flips one byte of the stored form; the next read must report the key corrupted. */
static void debug_corrupt_value(struct cmd_call *c)
{
    struct store_entry *e = debug_lookup(c);
    uint8_t *stored;
    size_t stored_len;

    if (e == NULL) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT) {
        cmd_reply_err(c, "ERR the value is held as an integer and has no stored bytes to "
                         "corrupt");
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_COLL) {
        coll_corrupt(store_entry_coll(e)); /* every chunk and open end */
        resp_write_ok(c->out);
        return;
    }
    stored = store_entry_val_mut(e, &stored_len);
    codec_value_corrupt(stored, stored_len);
    resp_write_ok(c->out);
}

/* Blocks the worker, as Redis blocks its main thread. atof rules: junk sleeps 0. */
static void debug_sleep(struct cmd_call *c)
{
    char buf[64];
    double secs = atof(arg_cstr(c, 2, buf, sizeof(buf)));
    struct timespec ts;

    if (secs > 0) {
        ts.tv_sec = (time_t)secs;
        ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0) {
            /* interrupted by a signal: sleep the rest */
        }
    }
    resp_write_ok(c->out);
}

static void debug_set_active_expire(struct cmd_call *c)
{
    char buf[64];

    c->srv->settings.active_expire = atoi(arg_cstr(c, 2, buf, sizeof(buf))) != 0;
    resp_write_ok(c->out);
}

/* Replies the argument verbatim as an error line, code and all (so "-X" gives "--X"), as
 * Redis 7.0 does; CR and LF become spaces so the line stays one line. */
static void debug_error(struct cmd_call *c)
{
    const struct resp_slice *a = &c->argv[2];
    size_t n = a->len > DEBUG_ARG_MAX ? DEBUG_ARG_MAX : a->len;
    char buf[DEBUG_ARG_MAX];

    for (size_t i = 0; i < n; i++) {
        buf[i] = (a->p[i] == '\r' || a->p[i] == '\n') ? ' ' : (char)a->p[i];
    }
    /* Written raw: Redis counts this error in no statistic (INFO errorstats). */
    resp_write_raw(c->out, "-", 1);
    resp_write_raw(c->out, buf, n);
    resp_write_raw(c->out, "\r\n", 2);
}

static void debug_log(struct cmd_call *c)
{
    char buf[DEBUG_ARG_MAX + 8];
    size_t n = c->argv[2].len < DEBUG_ARG_MAX ? c->argv[2].len : DEBUG_ARG_MAX;

    snprintf(buf, sizeof(buf), "DEBUG LOG: %.*s", (int)n, (const char *)c->argv[2].p);
    if (c->srv->hooks.log_warning != NULL) {
        c->srv->hooks.log_warning(c->srv->hooks.srv, buf);
    }
    resp_write_ok(c->out);
}

static void write_hex(struct cmd_call *c, const uint8_t d[CMD_DIGEST_LEN])
{
    static const char hex[] = "0123456789abcdef";
    char buf[2 * CMD_DIGEST_LEN + 1];

    for (int i = 0; i < CMD_DIGEST_LEN; i++) {
        buf[2 * i] = hex[d[i] >> 4];
        buf[2 * i + 1] = hex[d[i] & 15];
    }
    buf[2 * CMD_DIGEST_LEN] = '\0';
    resp_write_simple(c->out, buf);
}

static void debug_digest(struct cmd_call *c)
{
    uint8_t d[CMD_DIGEST_LEN];
    const struct store_entry *bad = NULL;
    int rc = cmd_digest_dataset(c, d, &bad);

    if (rc == TERSE_ECORRUPT && bad != NULL) {
        size_t klen;
        const uint8_t *key = store_entry_key(bad, &klen);
        cmd_reply_corrupt(c, key, klen);
        return;
    }
    if (rc != TERSE_OK) {
        cmd_reply_status(c, rc);
        return;
    }
    write_hex(c, d);
}

/* One digest per key; a missing key's is all zeros, as in Redis. */
static void debug_digest_value(struct cmd_call *c)
{
    size_t mark = c->out->len;

    resp_write_array(c->out, c->argc - 2);
    for (size_t i = 2; i < c->argc; i++) {
        struct store_entry *e = store_lookup(c->srv->shard, c->cl->db, c->argv[i].p,
                                             c->argv[i].len, c->now_ms, 0);
        uint8_t d[CMD_DIGEST_LEN];
        int rc = TERSE_OK;

        memset(d, 0, sizeof(d));
        if (e != NULL) {
            rc = cmd_digest_value(c, e, d);
        }
        if (rc != TERSE_OK) {
            c->out->len = mark; /* withdraw the partial array */
            if (rc == TERSE_ECORRUPT) {
                cmd_reply_corrupt(c, c->argv[i].p, c->argv[i].len);
            } else {
                cmd_reply_status(c, rc);
            }
            return;
        }
        write_hex(c, d);
    }
}

/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: terse replaces the dataset with the snapshot's
 * (verified first); MERGE and NOFLUSH are accepted and ignored, as the load always goes
 * into an empty dataset. */
static void debug_reload(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    char err[256];
    int nosave = 0;

    for (size_t i = 2; i < c->argc; i++) {
        if (cmd_arg_is(c, i, "nosave")) {
            nosave = 1;
        } else if (!cmd_arg_is(c, i, "merge") && !cmd_arg_is(c, i, "noflush")) {
            cmd_reply_err(c, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE "
                             "options.");
            return;
        }
    }
    err[0] = '\0';
    if (h->reload == NULL) {
        cmd_reply_err(c, "ERR Error trying to load the RDB dump, check server logs.");
        return;
    }
    if (h->reload(h->srv, nosave, err, sizeof(err)) != 0) {
        cmd_reply_err(c, err[0] != '\0' ? err : "ERR Error trying to load the RDB dump");
        return;
    }
    resp_write_ok(c->out);
}

/* DEBUG LOADAOF: the AOF on disk replaces the dataset (Redis 7.0 flushes the AOF first). */
static void debug_loadaof(struct cmd_call *c)
{
    struct cmd_hooks *h = &c->srv->hooks;
    char err[256];

    err[0] = '\0';
    if (h->loadaof == NULL || h->loadaof(h->srv, err, sizeof(err)) != 0) {
        cmd_reply_err(c, err[0] != '\0' ? err : "ERR Error loading the AOF");
        return;
    }
    resp_write_ok(c->out);
}

static void debug_help(struct cmd_call *c)
{
    static const char *const lines[] = {
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CORRUPT-VALUE <key>",
        "    Flip one byte of the stored (compressed, checksummed) form of the value at",
        "    <key>, so that the next read reports it corrupted. terse only.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Accepted for compatibility and checked as Redis checks it; a terse list is one",
        "    value, with no quicklist nodes.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "RELOAD [option ...]",
        "    Save the snapshot on disk and reload it back to memory, verified before the",
        "    dataset is replaced. Valid <option> values:",
        "    * NOSAVE: the snapshot is not saved before loading it into memory.",
        "    * MERGE, NOFLUSH: accepted for compatibility; the load replaces the dataset.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/*
 * DEBUG QUICKLIST-PACKED-THRESHOLD <size>: Redis's size above which a list element gets a
 * quicklist node of its own. A terse list is one value with no nodes, so the size is checked
 * as Redis checks it (a memory value, at most 4 GiB - 1 MiB) and has no effect; Redis's own
 * list tests set it before they start.
 */
static void debug_quicklist_packed_threshold(struct cmd_call *c)
{
    static const struct {
        const char *unit;
        unsigned long long mul;
    } units[] = {{"", 1}, {"b", 1}, {"k", 1000}, {"kb", 1024}, {"m", 1000 * 1000},
                 {"mb", 1024 * 1024}, {"g", 1000ull * 1000 * 1000}, {"gb", 1024ull * 1024 * 1024}};
    const uint8_t *p = c->argv[2].p;
    size_t len = c->argv[2].len, digits = 0;
    long long v;

    if (len == 0) {
        resp_write_ok(c->out); /* Redis reads an empty size as 0, its default */
        return;
    }
    while (digits < len && p[digits] >= '0' && p[digits] <= '9') {
        digits++;
    }
    for (size_t i = 0; digits > 0 && i < sizeof(units) / sizeof(units[0]); i++) {
        size_t ul = strlen(units[i].unit);
        if (ul == len - digits && strncasecmp((const char *)p + digits, units[i].unit, ul) == 0 &&
            cmd_parse_ll(p, digits, &v) && (unsigned long long)v <= (1ull << 32) / units[i].mul &&
            (unsigned long long)v * units[i].mul <= (1ull << 32) - (1ull << 20)) {
            resp_write_ok(c->out);
            return;
        }
    }
    cmd_reply_err(c, "ERR argument must be a memory value bigger than 1 and smaller than 4gb");
}

static const struct {
    const char *name; /* lower case */
    size_t argc;      /* exact argument count, DEBUG included; 0: 2 or more */
    cmd_proc *proc;
} debug_subs[] = {
    {"help", 2, debug_help},
    {"object", 3, debug_object},
    {"sleep", 3, debug_sleep},
    {"set-active-expire", 3, debug_set_active_expire},
    {"corrupt-value", 3, debug_corrupt_value},
    {"error", 3, debug_error},
    {"log", 3, debug_log},
    {"digest", 2, debug_digest},
    {"digest-value", 0, debug_digest_value},
    {"reload", 0, debug_reload},
    {"loadaof", 2, debug_loadaof},
    {"quicklist-packed-threshold", 3, debug_quicklist_packed_threshold},
    {"protocol", 3, cmd_debug_protocol},
    {"set-disable-deny-scripts", 3, cmd_debug_set_disable_deny_scripts},
};

void cmd_debug_proc(struct cmd_call *c)
{
    int sub = (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len);

    if (!debug_allowed(c)) {
        cmd_reply_err(c, DEBUG_ERR_DISABLED);
        return;
    }
    for (size_t i = 0; i < sizeof(debug_subs) / sizeof(debug_subs[0]); i++) {
        if (cmd_arg_is(c, 1, debug_subs[i].name) &&
            (c->argc == debug_subs[i].argc || debug_subs[i].argc == 0)) {
            debug_subs[i].proc(c);
            return;
        }
    }
    resp_write_errorf(c->out,
                      "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                      "DEBUG HELP.",
                      sub, (const char *)c->argv[1].p);
}
