/*
 * bench_input: reads one benchmark input file (the records bench/perf_ir_inputs.py writes to
 * INPUT_DIR, or the dictionary perf_ir trains from them) whole into memory. Shared by
 * bench/codec_bench.c and bench/perf_ir.c; call it outside any measured region, as it allocates
 * and does file I/O.
 *
 * bench_input_read reads DIR/NAME and returns a buffer holding its bytes, with *len set to their
 * number. The buffer is malloc'd with one spare byte past *len; the caller owns it and frees it
 * with free(). It never returns NULL: if the file cannot be opened or read, or memory runs out,
 * it prints "PROG: DIR/NAME" to stderr (PROG: the program's name, perf_ir or codec_bench) and
 * exits the process with status 2, as a benchmark without its input has nothing to measure.
 *
 * Why static in a header, not a .c of its own (STYLE.md 1): perf_ir's budgets
 * (bench/perf_ir_baselines.json) count the instructions of its own measured loops too. With the
 * loader in another translation unit, the compiler must assume the length it writes through
 * `len` escapes, and reloads that length inside those loops: +1 instruction per operation on
 * value_encode_*. Defined here, each program compiles it as its own static function, exactly as
 * its private copy was, and the counts stay the same.
 */
#ifndef BENCH_INPUT_H
#define BENCH_INPUT_H

#include <errno.h> /* program_invocation_short_name (_GNU_SOURCE) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void
bench_input_die(const char *path)
{
    fprintf(stderr, "%s: %s\n", program_invocation_short_name, path);
    exit(2);
}

static uint8_t *
bench_input_read(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    uint8_t *buf;
    long n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (f == NULL) {
        bench_input_die(path);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        bench_input_die(path);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#endif
