/*
 * cmd_sort: SORT's parts shared by its two files: cmd_sort.c (options, scores, the sort, the
 * command) and cmd_sort_io.c (the run's buffers, the values BY and GET patterns name, loading
 * the elements, replying or storing the result). See cmd_sort.c for the whole.
 */
#ifndef TERSE_CMD_SORT_H
#define TERSE_CMD_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

#define ERR_SORT_SCORE "ERR One or more scores can't be converted into double"

struct sort_opts {
    const struct resp_slice *by; /* NULL: sort by the elements */
    bool dontsort;               /* BY without '*' */
    bool alpha, desc;
    long start, count;           /* LIMIT, -1 count: to the end */
    const struct resp_slice *store;
    size_t *gets;                /* argv indexes of the GET patterns (owned by the run) */
    size_t n_get, cap_get;
};

/* One element: offsets into run.bytes (the element, and its BY value under ALPHA). */
struct sort_el {
    size_t off, len;
    size_t by_off, by_len;
    bool has_by;
    double score;
};

/* A growing byte buffer from the server's allocator. */
struct sort_buf {
    uint8_t *p;
    size_t len, cap;
};

/* Everything one SORT call allocates; sort_run_free frees it. */
struct sort_run {
    struct cmd_call *c;
    struct sort_buf bytes; /* element and BY bytes */
    struct sort_buf key;   /* a key name a pattern makes */
    struct sort_buf out;   /* STORE: the output elements' bytes */
    struct sort_el *v;
    size_t n, cap;
    const struct sort_opts *o;
};

/* Appends n bytes to b. TERSE_OK or TERSE_ENOMEM. */
int sort_buf_add(struct cmd_server *srv, struct sort_buf *b, const void *p, size_t n);
/* Frees what the run allocated (not the options' GET list). */
void sort_run_free(struct sort_run *r);
/* The value pattern names for the element el (Redis's lookupKeyByPattern): 1 with *val, *len
 * (valid until the next lookup or scratch use), 0 when there is none (no '*', a missing key or
 * field, a key of another type), -1 when it replied an error (a corrupt value). */
int sort_pattern_value(struct sort_run *r, const struct resp_slice *pat, const uint8_t *el,
                       size_t el_len, const uint8_t **val, size_t *len);
/* Copies the elements of key (a list, set or zset: e) into r. 0, or -1 when it replied. */
int sort_load(struct sort_run *r, const struct resp_slice *key, const struct store_entry *e);
/* Replies (or collects for STORE) elements [start, end] with their GETs; *n_out outputs. 0,
 * or -1 when it replied an error. */
int sort_emit(struct sort_run *r, long start, long end, size_t *n_out);
/* STORE: the collected outputs as a list at the destination, replacing it. 0, or -1. */
int sort_store_outputs(struct sort_run *r, size_t n_out);

/* The family's rows of the command table, ended by a row whose name is NULL. */
extern const struct cmd_def cmd_sort_defs[];

#endif /* TERSE_CMD_SORT_H */
