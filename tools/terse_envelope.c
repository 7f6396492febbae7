/*
 * terse-envelope: look inside, make and open cachekit envelopes from the shell.
 *
 *   terse-envelope store [--format NAME] < payload > envelope
 *   terse-envelope retrieve [--format-to-stderr] < envelope > payload
 *   terse-envelope inspect < envelope            (human-readable report on stdout)
 *
 * e.g. `redis-cli --raw get k | head -c -1 | terse-envelope inspect` (redis-cli --raw adds a
 * newline). stdin is read whole (at most TERSE_ENVELOPE_MAX + 1 bytes, beyond that the input is
 * refused). Exit 0 on success; on any failure a line "terse-envelope: <what>: <reason>" on
 * stderr and exit 1 (2 for a usage error). inspect verifies the envelope fully (it decodes it)
 * and exits 1 when the checksum or length does not match, after printing what it found.
 */
#include "terse/terse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_MAX (TERSE_ENVELOPE_MAX + 1) /* one more than any valid input: "too big" */

static int
fail(const char *what, const char *why)
{
    fprintf(stderr, "terse-envelope: %s: %s\n", what, why);
    return 1;
}

/* Reads stdin whole into *buf (malloc'd, caller frees). Returns 0, or 1 after reporting. */
static int
read_all(unsigned char **buf, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    unsigned char *p = malloc(cap), *q;

    if (p == NULL) {
        return fail("stdin", "out of memory");
    }
    while ((got = fread(p + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n > READ_MAX) {
            free(p);
            return fail("stdin", terse_strerror(TERSE_ETOOBIG));
        }
        if (n == cap) {
            cap *= 2;
            q = realloc(p, cap);
            if (q == NULL) {
                free(p);
                return fail("stdin", "out of memory");
            }
            p = q;
        }
    }
    if (ferror(stdin)) {
        free(p);
        return fail("stdin", "read error");
    }
    *buf = p;
    *len = n;
    return 0;
}

static int
write_all(const void *p, size_t n)
{
    if ((n > 0 && fwrite(p, 1, n, stdout) != n) || fflush(stdout) != 0) {
        return fail("stdout", "write error");
    }
    return 0;
}

static int
cmd_store(const unsigned char *in, size_t n, const char *format)
{
    size_t cap = terse_envelope_bound(n), len = 0;
    unsigned char *env = malloc(cap);
    int rc;

    if (env == NULL) {
        return fail("store", "out of memory");
    }
    rc = terse_envelope_store(in, n, format, env, cap, &len);
    rc = rc != TERSE_OK ? fail("store", terse_strerror(rc)) : write_all(env, len);
    free(env);
    return rc;
}

static int
cmd_retrieve(const unsigned char *in, size_t n, int format_to_stderr)
{
    char format[TERSE_ENVELOPE_FORMAT_MAX + 1];
    uint64_t size = 0;
    size_t len = 0;
    unsigned char *out;
    int rc;

    rc = terse_envelope_size(in, n, &size);
    if (rc != TERSE_OK) {
        return fail("retrieve", terse_strerror(rc));
    }
    out = malloc(size > 0 ? (size_t)size : 1);
    if (out == NULL) {
        return fail("retrieve", "out of memory");
    }
    /* A format longer than the buffer (other writers) is not an error of the payload. */
    rc = terse_envelope_retrieve(in, n, out, (size_t)size, &len, NULL, 0);
    if (rc == TERSE_OK && format_to_stderr &&
        terse_envelope_retrieve(in, n, out, (size_t)size, &len, format, sizeof(format)) ==
            TERSE_OK) {
        fprintf(stderr, "format: %s\n", format);
    }
    rc = rc != TERSE_OK ? fail("retrieve", terse_strerror(rc)) : write_all(out, len);
    free(out);
    return rc;
}

static int
cmd_inspect(const unsigned char *in, size_t n)
{
    terse_envelope_info info;
    unsigned char *out;
    size_t len = 0;
    int rc;

    rc = terse_envelope_inspect(in, n, &info);
    if (rc != TERSE_OK) {
        return fail("inspect", terse_strerror(rc));
    }
    printf("envelope:       %zu bytes, cachekit ByteStorage (array of 4)\n", n);
    printf("block:          %zu %s, LZ4\n", info.block_len,
           info.legacy ? "elements (legacy array-of-int form)" : "bytes (bin)");
    printf("original_size:  %llu bytes (ratio %.2f)\n", (unsigned long long)info.original_size,
           info.block_len > 0 ? (double)info.original_size / (double)info.block_len : 0.0);
    printf("checksum:       %016llx (XXH3-64)\n", (unsigned long long)info.checksum);
    printf("format:         \"");
    for (size_t i = 0; i < info.format_len; i++) {
        unsigned char ch = (unsigned char)info.format[i];

        printf(ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' ? "%c" : "\\x%02x", ch);
    }
    printf("\"\n");
    out = malloc(info.original_size > 0 ? (size_t)info.original_size : 1);
    if (out == NULL) {
        return fail("inspect", "out of memory");
    }
    rc = terse_envelope_retrieve(in, n, out, (size_t)info.original_size, &len, NULL, 0);
    free(out);
    printf("verified:       %s\n", rc == TERSE_OK ? "yes (decodes, length and checksum match)"
                                                    : terse_strerror(rc));
    if (fflush(stdout) != 0) {
        return fail("stdout", "write error");
    }
    return rc == TERSE_OK ? 0 : fail("inspect", terse_strerror(rc));
}

static int
usage(void)
{
    fprintf(stderr, "usage: terse-envelope store [--format NAME] | retrieve [--format-to-stderr]"
                    " | inspect   (stdin -> stdout)\n");
    return 2;
}

int
main(int argc, char **argv)
{
    const char *format = NULL;
    int fmt_err = 0, rc;
    unsigned char *in = NULL;
    size_t n = 0;

    if (argc < 2) {
        return usage();
    }
    if (strcmp(argv[1], "store") == 0 && argc == 4 && strcmp(argv[2], "--format") == 0) {
        format = argv[3];
    } else if (strcmp(argv[1], "retrieve") == 0 && argc == 3 &&
               strcmp(argv[2], "--format-to-stderr") == 0) {
        fmt_err = 1;
    } else if (argc != 2 || (strcmp(argv[1], "store") != 0 && strcmp(argv[1], "retrieve") != 0 &&
                             strcmp(argv[1], "inspect") != 0)) {
        return usage();
    }
    if (read_all(&in, &n) != 0) {
        return 1;
    }
    if (argv[1][0] == 's') {
        rc = cmd_store(in, n, format);
    } else if (argv[1][0] == 'r') {
        rc = cmd_retrieve(in, n, fmt_err);
    } else {
        rc = cmd_inspect(in, n);
    }
    free(in);
    return rc;
}
