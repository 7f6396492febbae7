/*
 * cmd_keyspec: key extraction by key specs, in Redis 7.0's order of preference:
 *
 *   1. specs, when at least one is a real key (not NOT_KEY) and none has VARIABLE_FLAGS;
 *      a spec that does not fit the line (unknown search, count out of range) voids them all;
 *   2. the command's own finder (Redis's getkeys_proc), for the commands that have one here;
 *   3. otherwise no keys.
 *
 * A command without metadata uses its row's first/last/step, flags 0 (terse's old answer).
 * Each spec resolves to a range first..last (argument indexes) walked by step; the walk
 * runs twice, once to validate and count, once to visit, so nothing is stored.
 */
#include "cmd/core/cmd_keyspec.h"

#include <string.h>
#include <strings.h>

#include "cmd/core/cmd_meta.h"
#include "cmd/core/cmd_util.h"

/* A spec's keys on one line: first..last by step, argument indexes. */
struct ks_range {
    long long first, last, step;
};

enum ks_fit { KS_SKIP, KS_OK, KS_INVALID };

static int arg_eq(const struct resp_slice *a, const char *s)
{
    return a->len == strlen(s) && strncasecmp((const char *)a->p, s, a->len) == 0;
}

/* Redis's keyword search: from startfrom towards the end (or from argc+startfrom towards the
 * front), never looking at the far end's last index. */
static long long keyword_find(const struct cmd_keyspec *ks, const struct resp_slice *argv,
                              long long argc)
{
    long long start = ks->bs_pos > 0 ? ks->bs_pos : argc + ks->bs_pos;
    long long end = ks->bs_pos > 0 ? argc - 1 : 1;

    for (long long i = start; i != end; i += start <= end ? 1 : -1) {
        if (i >= argc || i < 1) {
            break;
        }
        if (arg_eq(&argv[i], ks->bs_keyword)) {
            return i + 1;
        }
    }
    return 0;
}

static enum ks_fit spec_range(const struct cmd_keyspec *ks, const struct resp_slice *argv,
                              long long argc, struct ks_range *r)
{
    long long first = 0;

    if (ks->bs_type == CMD_KS_BS_INDEX) {
        first = ks->bs_pos;
    } else if (ks->bs_type == CMD_KS_BS_KEYWORD) {
        first = keyword_find(ks, argv, argc);
        if (first == 0) {
            return KS_SKIP;
        }
    } else {
        return KS_INVALID;
    }
    if (ks->fk_type == CMD_KS_FK_RANGE) {
        r->step = ks->fk[1];
        if (ks->fk[0] >= 0) {
            r->last = first + ks->fk[0];
        } else if (ks->fk[2] == 0) {
            r->last = argc + ks->fk[0];
        } else {
            r->last = first + ((argc - first) / ks->fk[2] + ks->fk[0]);
        }
    } else if (ks->fk_type == CMD_KS_FK_KEYNUM) {
        long long numkeys, at = first + ks->fk[0];
        r->step = ks->fk[2];
        if (at >= argc || !cmd_parse_ll(argv[at].p, argv[at].len, &numkeys) || numkeys < 0 ||
            numkeys > argc) {
            return KS_INVALID; /* numkeys > argc: out of range below too, without overflow */
        }
        first += ks->fk[1];
        r->last = first + numkeys - 1;
    } else {
        return KS_INVALID;
    }
    r->first = first;
    if (r->last >= argc || r->last < first || first >= argc || first < 1 || r->step < 1) {
        return KS_INVALID;
    }
    return KS_OK;
}

/* Walks every spec; visit NULL only counts. Returns the count, or -1 when a spec is invalid. */
static long long specs_walk(const struct cmd_meta *m, const struct resp_slice *argv,
                            long long argc, cmd_keyspec_visit *visit, void *arg)
{
    long long n = 0;

    for (size_t j = 0; j < m->n_keyspecs; j++) {
        const struct cmd_keyspec *ks = &m->keyspecs[j];
        struct ks_range r;
        enum ks_fit fit;
        if (ks->flags & CMD_KS_NOT_KEY) {
            continue;
        }
        fit = spec_range(ks, argv, argc, &r);
        if (fit == KS_INVALID) {
            return -1;
        }
        if (fit == KS_SKIP) {
            continue;
        }
        for (long long i = r.first; i <= r.last; i += r.step) {
            if (visit != NULL) {
                visit(arg, (size_t)i, ks->flags);
            }
            n++;
        }
    }
    return n;
}

/* SET: the key is argument 1; GET anywhere after the value makes it a read too. */
static size_t set_keys(const struct resp_slice *argv, size_t argc, cmd_keyspec_visit *visit,
                       void *arg)
{
    unsigned flags = CMD_KS_OW | CMD_KS_UPDATE;

    for (size_t i = 3; i < argc; i++) {
        if (arg_eq(&argv[i], "get")) {
            flags = CMD_KS_RW | CMD_KS_ACCESS | CMD_KS_UPDATE;
            break;
        }
    }
    if (visit != NULL) {
        visit(arg, 1, flags);
    }
    return 1;
}

/* SORT_RO: the key sorted (its other specs, for BY and GET, are "unknown"). */
static size_t sort_ro_keys(const struct resp_slice *argv, size_t argc, cmd_keyspec_visit *visit,
                           void *arg)
{
    (void)argv;
    (void)argc;
    if (visit != NULL) {
        visit(arg, 1, CMD_KS_RO | CMD_KS_ACCESS);
    }
    return 1;
}

/* SORT: the key sorted, and the destination of the last STORE. Options are skipped with their
 * arguments (LIMIT 2, GET and BY 1) as Redis's sortGetKeys skips them; a STORE's destination
 * is not skipped, so in "STORE STORE x" the second STORE still counts. */
static size_t sort_keys(const struct resp_slice *argv, size_t argc, cmd_keyspec_visit *visit,
                        void *arg)
{
    size_t store = 0;

    for (size_t i = 2; i < argc; i++) {
        if (arg_eq(&argv[i], "limit")) {
            i += 2;
        } else if (arg_eq(&argv[i], "get") || arg_eq(&argv[i], "by")) {
            i += 1;
        } else if (arg_eq(&argv[i], "store") && i + 1 < argc) {
            store = i + 1;
        }
    }
    if (visit != NULL) {
        visit(arg, 1, CMD_KS_RO | CMD_KS_ACCESS);
        if (store != 0) {
            visit(arg, store, CMD_KS_OW | CMD_KS_UPDATE);
        }
    }
    return store != 0 ? 2 : 1;
}

/* The commands that have a key finder of their own (Redis's getkeys_proc). */
static const struct {
    const char *name;
    size_t (*find)(const struct resp_slice *argv, size_t argc, cmd_keyspec_visit *visit,
                   void *arg);
} finders[] = {
    {"set", set_keys},
    {"sort", sort_keys},
    {"sort_ro", sort_ro_keys},
};

static size_t (*finder(const char *name))(const struct resp_slice *, size_t,
                                           cmd_keyspec_visit *, void *)
{
    for (size_t i = 0; i < sizeof(finders) / sizeof(finders[0]); i++) {
        if (strcmp(finders[i].name, name) == 0) {
            return finders[i].find;
        }
    }
    return NULL;
}

/* OR of the specs' flags; with inverted, of their complements (Redis's getAllKeySpecsFlags). */
static unsigned specs_flags(const struct cmd_meta *m, int inverted)
{
    unsigned all = 0;

    for (size_t j = 0; j < m->n_keyspecs; j++) {
        all |= inverted ? ~(unsigned)m->keyspecs[j].flags : m->keyspecs[j].flags;
    }
    return all;
}

int cmd_keyspec_has_keys(const struct cmd_def *d)
{
    const struct cmd_meta *m = cmd_meta_find(d->name);

    if (m == NULL) {
        return d->first_key > 0;
    }
    return finder(d->name) != NULL || (specs_flags(m, 1) & CMD_KS_NOT_KEY) != 0;
}

/* terse's answer for a command without metadata: the row's first/last/step. As Redis with
 * variadic commands, positions past the arguments are skipped. */
static size_t row_keys(const struct cmd_def *d, const struct resp_slice *argv, size_t argc,
                       cmd_keyspec_visit *visit, void *arg)
{
    size_t n = 0, last, step = d->key_step > 0 ? (size_t)d->key_step : 1;

    (void)argv;
    if (d->first_key <= 0) {
        return 0;
    }
    if (d->last_key < 0) {
        last = (size_t)-d->last_key <= argc ? argc - (size_t)-d->last_key : 0;
    } else {
        last = (size_t)d->last_key;
    }
    for (size_t i = (size_t)d->first_key; i <= last && i < argc; i += step) {
        if (visit != NULL) {
            visit(arg, i, 0);
        }
        n++;
    }
    return n;
}

size_t cmd_keyspec_keys(const struct cmd_def *d, const struct resp_slice *argv, size_t argc,
                        cmd_keyspec_visit *visit, void *arg)
{
    const struct cmd_meta *m = cmd_meta_find(d->name);
    size_t (*find)(const struct resp_slice *, size_t, cmd_keyspec_visit *, void *);

    if (m == NULL) {
        return row_keys(d, argv, argc, visit, arg);
    }
    if ((specs_flags(m, 1) & CMD_KS_NOT_KEY) && !(specs_flags(m, 0) & CMD_KS_VARIABLE_FLAGS)) {
        long long n = specs_walk(m, argv, (long long)argc, NULL, NULL);
        if (n >= 0) {
            specs_walk(m, argv, (long long)argc, visit, arg);
            return (size_t)n;
        }
    }
    find = finder(d->name);
    return find != NULL ? find(argv, argc, visit, arg) : 0;
}
