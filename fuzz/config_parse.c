/*
 * config_parse: libFuzzer target for the configuration parsers (src/core/core_config.c).
 *
 * The input is read three ways, each on a fresh configuration:
 *   1. as a config file (core_config_load_string); then every option's CONFIG GET text must be
 *      accepted back by CONFIG SET (for the options CONFIG SET may change) and read back the
 *      same: what GET shows, SET takes;
 *   2. as a command line: the bytes split at NUL into at most MAX_ARGS words
 *      (core_config_apply_args);
 *   3. its first line as a CONFIG GET glob (core_config_get).
 * Any crash, sanitizer report, leak, unterminated error text or broken round trip aborts.
 */
#include "core/core_config.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32
#define MAX_PATTERN 128

struct sink {
    size_t n;
};

static void sink_emit(void *arg, const char *name, const char *value)
{
    struct sink *s = arg;

    s->n += strlen(name) + strlen(value);
}

/* For each option (via the glob "*"): set it to its own GET text and expect no change. */
struct round_trip {
    struct core_config *c;
};

static void round_trip_emit(void *arg, const char *name, const char *value)
{
    struct round_trip *rt = arg;
    char err[CORE_CONFIG_ERR_CAP];
    char *before;
    char after[CORE_CONFIG_VALUE_CAP];
    size_t len;
    unsigned flags;
    int rc;

    if (core_config_flags(name, &flags) != TERSE_OK) {
        abort();
    }
    if ((flags & (CORE_CONFIG_IMMUTABLE | CORE_CONFIG_PROTECTED)) != 0) {
        return;
    }
    before = malloc(strlen(value) + 1);
    if (before == NULL) {
        return;
    }
    memcpy(before, value, strlen(value) + 1); /* value dies when the config changes */
    rc = core_config_set(rt->c, name, before, err, sizeof err);
    if (rc != TERSE_OK) {
        abort();
    }
    rc = core_config_get_one(rt->c, name, after, sizeof after, &len);
    /* STR values may be longer than the formatting buffer; only compare what fits. */
    if (rc == TERSE_OK && strcmp(before, after) != 0) {
        abort();
    }
    free(before);
}

static void check_err(const char *err, size_t cap)
{
    if (memchr(err, '\0', cap) == NULL) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    struct core_config c;
    char err[CORE_CONFIG_ERR_CAP];
    uint64_t base = core_mem_used();

    /* 1. A config file. */
    if (core_config_init(&c) != TERSE_OK) {
        return 0;
    }
    err[0] = '\0';
    if (core_config_load_string(&c, (const char *)d, n, "fuzz.conf", err, sizeof err) ==
        TERSE_OK) {
        struct round_trip rt = {&c};
        core_config_get(&c, "*", round_trip_emit, &rt);
    }
    check_err(err, sizeof err);
    core_config_deinit(&c);

    /* 2. A command line: NUL-separated words. */
    {
        char *copy = malloc(n + 1);
        char *argv[MAX_ARGS];
        int argc = 0;
        if (copy != NULL) {
            memcpy(copy, d, n);
            copy[n] = '\0';
            for (size_t i = 0; i <= n && argc < MAX_ARGS;) {
                argv[argc++] = copy + i;
                i += strlen(copy + i) + 1;
            }
            if (core_config_init(&c) == TERSE_OK) {
                err[0] = '\0';
                (void)core_config_apply_args(&c, argc, argv, err, sizeof err);
                check_err(err, sizeof err);
                core_config_deinit(&c);
            }
            free(copy);
        }
    }

    /* 3. The first line as a CONFIG GET pattern. */
    {
        char pattern[MAX_PATTERN + 1];
        size_t len = 0;
        struct sink s = {0};
        while (len < n && len < MAX_PATTERN && d[len] != '\n' && d[len] != '\0') {
            pattern[len] = (char)d[len];
            len++;
        }
        pattern[len] = '\0';
        if (core_config_init(&c) == TERSE_OK) {
            core_config_get(&c, pattern, sink_emit, &s);
            core_config_deinit(&c);
        }
    }

    if (core_mem_used() != base) {
        abort(); /* everything the parsers took, they gave back */
    }
    return 0;
}
