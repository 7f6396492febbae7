/*
 * cmd_server: the server command family's table, and CONFIG, TIME and SHUTDOWN (LASTSAVE
 * lives with SAVE and BGSAVE in cmd_persist.c).
 *
 * INFO is in cmd_info.c, COMMAND in cmd_command.c, DEBUG in cmd_debug.c; they share
 * cmd_server.h (one header for the family rather than one per file: the files only exchange
 * handler prototypes). Replies and error texts are Redis 7.0.15's, checked against
 * redis-server. Configuration lives in core/, reached only through struct cmd_hooks.
 *
 * The rows below carry arity, flags, key positions, ACL categories and the COMMAND DOCS
 * summary/since/group exactly as Redis 7.0's COMMAND INFO and COMMAND DOCS report them.
 */
#include "cmd/admin/cmd_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/script/cmd_script.h"
#include "cmd/core/cmd_util.h"
#include "cmd/mech/cmd_cstats.h"
#include "terse/status.h"
#include "cmd/core/cmd_glob.h"
#include "cmd/core/cmd_table.h"

/* Longest option name CONFIG SET accepts before calling it unknown (Redis's are < 64). */
#define CONFIG_NAME_MAX 128
/* Room for CONFIG SET's error text (Redis lists enum values in it). */
#define CONFIG_ERR_MAX 512

/* ---- shared helpers ---------------------------------------------------------------------- */

struct config_find {
    const char *name;
    char *val;
    size_t cap;
    int found;
};

static void config_find_emit(void *arg, const char *name, const char *value)
{
    struct config_find *f = arg;

    if (f->found || strcasecmp(name, f->name) != 0) {
        return;
    }
    f->found = 1;
    if (f->cap > 0) {
        snprintf(f->val, f->cap, "%s", value);
    }
}

int cmd_server_config_value(const struct cmd_server *srv, const char *name, char *val,
                            size_t val_cap)
{
    struct config_find f = {name, val, val_cap, 0};

    if (val_cap > 0) {
        val[0] = '\0';
    }
    if (srv->hooks.config_get == NULL || strpbrk(name, "*?[\\") != NULL) {
        return 0;
    }
    srv->hooks.config_get(srv->hooks.srv, name, config_find_emit, &f);
    return f.found;
}

/* splitmix64: a well-mixed 64-bit step, enough to spread a seed over 160 bits of id. */
static uint64_t mix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void cmd_server_id(const struct cmd_server *srv, long pid, unsigned salt, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    uint64_t state = (uint64_t)srv->start_ms * 1000003u ^ ((uint64_t)pid << 32) ^ salt;
    size_t i;

    if (salt == 0 && strlen(srv->settings.run_id) == 40) {
        memcpy(out, srv->settings.run_id, 41);
        return;
    }
    /* Seed from run_id too, so that derived ids change with it. */
    for (i = 0; srv->settings.run_id[i] != '\0' && i < 40; i++) {
        state = state * 31 + (unsigned char)srv->settings.run_id[i];
    }
    for (i = 0; i < 40; i += 16) {
        uint64_t r = mix64(&state);
        for (size_t k = 0; k < 16 && i + k < 40; k++) {
            out[i + k] = hex[(r >> (4 * k)) & 0xf];
        }
    }
    out[40] = '\0';
}

/* ---- CONFIG ------------------------------------------------------------------------------ */

struct config_get_ctx {
    struct cmd_call *c;
    size_t pattern_i; /* argv index of the pattern being expanded */
    size_t n_pairs;
};

/* A pattern is passed to config_get only if it fits in a C string of CONFIG_NAME_MAX * 2
 * bytes: a NUL inside, or that length, can name no option. */
static int config_pattern_usable(const struct resp_slice *a)
{
    return a->len < CONFIG_NAME_MAX * 2 && memchr(a->p, '\0', a->len) == NULL;
}

/* Emits one option unless an earlier pattern already matched it (Redis lists each option
 * once however many patterns match it; its matching ignores case). */
static void config_get_emit(void *arg, const char *name, const char *value)
{
    struct config_get_ctx *g = arg;
    size_t nlen = strlen(name);

    for (size_t j = 2; j < g->pattern_i; j++) {
        const struct resp_slice *a = &g->c->argv[j];
        if (config_pattern_usable(a) && cmd_glob_match(a->p, a->len, (const uint8_t *)name,
                                                       nlen, 1)) {
            return;
        }
    }
    resp_write_bulk(g->c->out, name, nlen);
    resp_write_cstr(g->c->out, value);
    g->n_pairs++;
}

static void config_get_proc(struct cmd_call *c)
{
    struct config_get_ctx g = {c, 0, 0};
    char pattern[CONFIG_NAME_MAX * 2];
    size_t at = resp_write_deferred_begin(c->out);

    for (size_t i = 2; i < c->argc && c->srv->hooks.config_get != NULL; i++) {
        if (!config_pattern_usable(&c->argv[i])) {
            continue;
        }
        memcpy(pattern, c->argv[i].p, c->argv[i].len);
        pattern[c->argv[i].len] = '\0';
        g.pattern_i = i;
        c->srv->hooks.config_get(c->srv->hooks.srv, pattern, config_get_emit, &g);
    }
    resp_write_deferred_end(c->out, at, '%', g.n_pairs);
}

/* Frees the NUL-terminated copies made by config_set_proc. */
static void config_set_release(struct cmd_server *srv, char **strs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        srv->alloc.free(srv->alloc.opaque, strs[i]);
    }
    srv->alloc.free(srv->alloc.opaque, (void *)strs);
}

static void config_set_proc(struct cmd_call *c)
{
    struct cmd_server *srv = c->srv;
    size_t n = (c->argc - 2) / 2, n_strs = 0;
    char **strs;
    char err[CONFIG_ERR_MAX];

    if ((c->argc - 2) % 2 != 0) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (srv->hooks.config_set == NULL) {
        cmd_reply_err(c, "ERR CONFIG SET is not available");
        return;
    }
    /* names[0..n) then values[0..n), NUL-terminated copies of the arguments. */
    strs = srv->alloc.alloc(srv->alloc.opaque, 2 * n * sizeof(*strs));
    if (strs == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    for (size_t k = 0; k < 2 * n; k++) {
        const struct resp_slice *a = &c->argv[k < n ? 2 + 2 * k : 3 + 2 * (k - n)];
        strs[k] = srv->alloc.alloc(srv->alloc.opaque, a->len + 1);
        if (strs[k] == NULL) {
            config_set_release(srv, strs, n_strs);
            cmd_reply_status(c, TERSE_ENOMEM);
            return;
        }
        n_strs++;
        memcpy(strs[k], a->p, a->len);
        strs[k][a->len] = '\0';
    }
    err[0] = '\0';
    if (srv->hooks.config_set(srv->hooks.srv, (const char *const *)strs,
                              (const char *const *)(strs + n), n, err, sizeof(err)) != 0) {
        cmd_reply_err(c, err[0] != '\0' ? err : "ERR CONFIG SET failed");
    } else {
        resp_write_ok(c->out);
    }
    config_set_release(srv, strs, n_strs);
}

static void config_resetstat_proc(struct cmd_call *c)
{
    memset(&c->srv->stats, 0, sizeof(c->srv->stats));
    cmd_cstats_reset(c->srv);
    if (c->srv->hooks.config_resetstat != NULL) {
        c->srv->hooks.config_resetstat(c->srv->hooks.srv);
    }
    resp_write_ok(c->out);
}

static void config_rewrite_proc(struct cmd_call *c)
{
    struct cmd_sysinfo si;

    memset(&si, 0, sizeof(si));
    if (c->srv->hooks.sysinfo != NULL) {
        c->srv->hooks.sysinfo(c->srv->hooks.srv, &si);
    }
    if (si.config_file == NULL || si.config_file[0] == '\0') {
        cmd_reply_err(c, "ERR The server is running without a config file");
        return;
    }
    /* Redis answers "Rewriting config file: <strerror>" when it cannot write the file;
     * terse does not rewrite config files (yet), so it answers with ENOTSUP's text. */
    cmd_reply_err(c, "ERR Rewriting config file: Operation not supported");
}

static void config_help_proc(struct cmd_call *c)
{
    static const char *const lines[] = {
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Prints this help.",
        NULL};

    cmd_reply_help(c, lines);
}

/* ---- TIME, SHUTDOWN -------------------------------------------------------------------------- */

static void time_proc(struct cmd_call *c)
{
    /* The clock now, not the command's: a script's commands share its start time (key
     * expiry), but TIME inside a script moves, as in Redis. */
    int64_t ms = c->srv->hooks.now_ms(c->srv->hooks.srv);

    resp_write_array(c->out, 2);
    resp_write_bulk_ll(c->out, (long long)(ms / 1000));
    resp_write_bulk_ll(c->out, (long long)(ms % 1000) * 1000);
}

static void shutdown_proc(struct cmd_call *c)
{
    unsigned flags = 0;
    int abort_req = 0;

    for (size_t i = 1; i < c->argc; i++) {
        if (cmd_arg_is(c, i, "nosave")) {
            flags |= CMD_SHUTDOWN_NOSAVE;
        } else if (cmd_arg_is(c, i, "save")) {
            flags |= CMD_SHUTDOWN_SAVE;
        } else if (cmd_arg_is(c, i, "now")) {
            flags |= CMD_SHUTDOWN_NOW;
        } else if (cmd_arg_is(c, i, "force")) {
            flags |= CMD_SHUTDOWN_FORCE;
        } else if (cmd_arg_is(c, i, "abort")) {
            abort_req = 1;
        } else {
            cmd_reply_err(c, CMD_ERR_SYNTAX);
            return;
        }
    }
    if ((abort_req && flags != 0) ||
        ((flags & CMD_SHUTDOWN_NOSAVE) && (flags & CMD_SHUTDOWN_SAVE))) {
        cmd_reply_err(c, CMD_ERR_SYNTAX);
        return;
    }
    if (!(flags & CMD_SHUTDOWN_NOSAVE) && !abort_req && cmd_script_busy(c->srv)) {
        /* A script runs past its time: saving now would store half of its writes. */
        cmd_reply_err(c, cmd_script_busy_error(c->srv));
        return;
    }
    if (abort_req) {
        /* A shutdown here is immediate (no replicas to wait for), so none is ever pending. */
        cmd_reply_err(c, "ERR No shutdown in progress.");
        return;
    }
    if (c->srv->hooks.shutdown == NULL || c->srv->hooks.shutdown(c->srv->hooks.srv, flags) != 0) {
        cmd_reply_err(c, "ERR Errors trying to SHUTDOWN. Check logs.");
        return;
    }
    /* As Redis: no reply, the connection closes when the server stops. */
}

/* ---- the table --------------------------------------------------------------------------- */

#define ADMIN_CFG (CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE)
#define ACL_ADMIN "@admin @slow @dangerous"
#define ACL_CMD "@slow @connection"

static const struct cmd_def config_subcmds[] = {
    {"config|get", -3, ADMIN_CFG, 0, 0, 0, config_get_proc, ACL_ADMIN,
     "Get the values of configuration parameters", "2.0.0", "server", NULL},
    {"config|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, config_help_proc, "@slow",
     "Show helpful text about the different subcommands", "5.0.0", "server", NULL},
    {"config|resetstat", 2, ADMIN_CFG, 0, 0, 0, config_resetstat_proc, ACL_ADMIN,
     "Reset the stats returned by INFO", "2.0.0", "server", NULL},
    {"config|rewrite", 2, ADMIN_CFG, 0, 0, 0, config_rewrite_proc, ACL_ADMIN,
     "Rewrite the configuration file with the in memory configuration", "2.8.0", "server",
     NULL},
    {"config|set", -4, ADMIN_CFG, 0, 0, 0, config_set_proc, ACL_ADMIN,
     "Set configuration parameters to the given values", "2.0.0", "server", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

static const struct cmd_def command_subcmds[] = {
    {"command|count", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_count_proc, ACL_CMD,
     "Get total number of Redis commands", "2.8.13", "server", NULL},
    {"command|docs", -2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_docs_proc, ACL_CMD,
     "Get array of specific Redis command documentation", "7.0.0", "server", NULL},
    {"command|getkeys", -4, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_getkeys_proc,
     ACL_CMD, "Extract keys given a full Redis command", "2.8.13", "server", NULL},
    {"command|getkeysandflags", -4, CMD_LOADING | CMD_STALE, 0, 0, 0,
     cmd_command_getkeysandflags_proc, ACL_CMD,
     "Extract keys and access flags given a full Redis command", "7.0.0", "server", NULL},
    {"command|help", 2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_help_proc, ACL_CMD,
     "Show helpful text about the different subcommands", "5.0.0", "server", NULL},
    {"command|info", -2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_info_proc, ACL_CMD,
     "Get array of specific Redis command details, or all when no argument is given.",
     "2.8.13", "server", NULL},
    {"command|list", -2, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_list_proc, ACL_CMD,
     "Get an array of Redis command names", "7.0.0", "server", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};

const struct cmd_def cmd_server_defs[] = {
    /* COMMAND has a handler of its own (the full list) besides its subcommands. */
    {"command", -1, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_command_proc, ACL_CMD,
     "Get array of Redis command details", "2.8.13", "server", command_subcmds},
    {"config", -2, 0, 0, 0, 0, NULL, "@slow", "A container for server configuration commands",
     "2.0.0", "server", config_subcmds},
    {"debug", -2, ADMIN_CFG | CMD_PROTECTED, 0, 0, 0, cmd_debug_proc, ACL_ADMIN,
     "A container for debugging commands", "1.0.0", "server", NULL},
    {"info", -1, CMD_LOADING | CMD_STALE, 0, 0, 0, cmd_info_proc, "@slow @dangerous",
     "Get information and statistics about the server", "1.0.0", "server", NULL},
    {"shutdown", -1, ADMIN_CFG | CMD_NO_MULTI | CMD_ALLOW_BUSY, 0, 0, 0, shutdown_proc,
     ACL_ADMIN, "Synchronously save the dataset to disk and then shut down the server",
     "1.0.0", "server", NULL},
    {"time", 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, time_proc, "@fast",
     "Return the current server time", "2.6.0", "server", NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}};
