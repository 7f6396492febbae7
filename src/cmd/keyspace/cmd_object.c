/*
 * cmd_object: OBJECT ENCODING, FREQ, IDLETIME, REFCOUNT and HELP, with Redis 7.0's replies
 * and error texts. The container row "object" is in cmd_keys_defs (cmd_keys.c); its
 * subcommand rows, cmd_object_subcmds, are here.
 *
 * Invariants:
 * - OBJECT answers with Redis's string encodings (int, embstr, raw) whatever codec holds the
 *   value, and with the policy-dependent errors of Redis (FREQ needs an LFU policy, IDLETIME
 *   refuses one).
 * - The key is looked up without touching its LRU/LFU data; hits and misses are counted.
 */
#include "cmd/keyspace/cmd_object.h"

#include <limits.h>
#include <string.h>

#include "cmd/hash/cmd_hash.h"
#include "cmd/core/cmd_elems_coll.h"
#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "codec/codec_value.h"
#include "terse/status.h"
#include "cmd/core/cmd_table.h"
#include "cmd/set/cmd_set_store.h"
#include "cmd/zset/cmd_zset_form.h"
#include "cmd/list/cmd_list_coll.h"
#include "coll/coll_form.h"
#include "coll/coll_hash.h"
#include "coll/coll_list.h"
#include "coll/coll_zset.h"
#include "store/form/store_list.h"
#include "store/store.h"

/* Redis's shared integers: values 0 <= v < KEYS_SHARED_INTEGERS are one shared object whose
 * OBJECT REFCOUNT is KEYS_SHARED_REFCOUNT (INT_MAX), when the eviction policy allows sharing. */
#define KEYS_SHARED_INTEGERS 10000
#define KEYS_SHARED_REFCOUNT INT_MAX
/* Longest string Redis reports as "embstr"; longer ones are "raw". */
#define KEYS_EMBSTR_MAX 44
#define KEYS_ERR_LFU_FREQ                                                                         \
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "     \
    "that when switching between policies at runtime LRU and LFU data will take some time to "    \
    "adjust."
#define KEYS_ERR_LFU_IDLE                                                                         \
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "      \
    "switching between policies at runtime LRU and LFU data will take some time to adjust."

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

/* The key of an OBJECT subcommand, without touching it; replies null when missing. */
static const struct store_entry *keys_object_lookup(struct cmd_call *c)
{
    const struct store_entry *e = cmd_keys_lookup(c, c->cl->db, &c->argv[2],
                                                  CMD_KEYS_LOOKUP_STATS | CMD_KEYS_LOOKUP_NONOTIFY);

    if (e == NULL) {
        resp_write_null(c->out);
    }
    return e;
}

/* Compressed or not, a value is a string to clients: report Redis's string encodings, and
 * for a hash the one Redis would use. */
static void keys_object_encoding(struct cmd_call *c)
{
    const struct store_entry *e = keys_object_lookup(c);
    size_t len;
    int st;

    if (e == NULL) {
        return;
    }
    if (store_entry_type(e) != STORE_TYPE_STRING) {
        resp_write_cstr(c->out, cmd_value_encoding(e));
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
    resp_write_int(c->out, (long long)store_entry_freq(cmd_shard(c, c->argv[2].p, c->argv[2].len), e,
                                                       c->now_ms));
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

const struct cmd_def cmd_object_subcmds[] = {
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

/* ---- OBJECT ENCODING of containers, and the encodings a load gives them ------------------ */

const char *cmd_value_encoding(const struct store_entry *e)
{
    switch (store_entry_type(e)) {
    case STORE_TYPE_HASH:
        return cmd_hash_encoding(e);
    case STORE_TYPE_LIST:
        return "quicklist"; /* Redis 7.0's only list encoding */
    case STORE_TYPE_SET:
        return cmd_set_encoding(e);
    case STORE_TYPE_ZSET:
        return cmd_zset_encoding(e);
    case STORE_TYPE_STREAM:
        return "stream"; /* Redis 7.0's only stream encoding */
    case STORE_TYPE_STRING:
        break;
    }
    return "raw";
}
