/*
 * perf_ir: one instruction-budget case per process, for bench/perf_ir.py under valgrind.
 *
 *   perf_ir CASE ITERS INPUT_DIR     runs CASE once (warm-up: first-use state, page faults),
 *                                    then ITERS more times; the runner takes
 *                                    (Ir[ITERS] - Ir[0]) / ITERS, so setup and warm-up cancel
 *   perf_ir train INPUT_DIR OUT      trains the zstd dictionary of the value_*_zstd cases from
 *                                    INPUT_DIR/samples.bin (natively, once, before valgrind)
 *
 * Cases: env_store_<size>, env_retrieve_<size> (size: a file INPUT_DIR/in_<size>.bin, real
 * corpus bytes, see bench/perf_ir_inputs.py), value_encode_<kind>, value_decode_<kind> for kind
 * raw (64 B input), lz4 (1 KiB), zstd (1 KiB, dictionary INPUT_DIR/dict.bin, id 1).
 */
#include "terse/terse.h"

#include "codec/codec_value.h"

#include "bench_input.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DICT_CAP (112 * 1024)
#define DICT_ID 1

static volatile size_t sink;

static void
die(const char *what)
{
    fprintf(stderr, "perf_ir: %s\n", what);
    exit(2);
}

static int
train(const char *dir, const char *out)
{
    size_t n, n_samples = 0, pos, at = 0, dict_len = 0;
    uint8_t *all = bench_input_read(dir, "samples.bin", &n), *dict = malloc(DICT_CAP), *flat;
    size_t *lens = malloc(sizeof(size_t) * (n / 4 + 1));
    FILE *f;

    flat = malloc(n);
    if (dict == NULL || lens == NULL || flat == NULL) {
        die("oom");
    }
    for (pos = 0; pos + 4 <= n;) {
        uint32_t l = (uint32_t)all[pos] | (uint32_t)all[pos + 1] << 8 |
                     (uint32_t)all[pos + 2] << 16 | (uint32_t)all[pos + 3] << 24;
        if (l > n - pos - 4) {
            die("samples.bin is truncated");
        }
        memcpy(flat + at, all + pos + 4, l);
        at += l;
        lens[n_samples++] = l;
        pos += 4 + l;
    }
    if (codec_dict_train(flat, lens, n_samples, dict, DICT_CAP, &dict_len) != TERSE_OK) {
        die("training failed");
    }
    f = fopen(out, "wb");
    if (f == NULL || fwrite(dict, 1, dict_len, f) != dict_len || fclose(f) != 0) {
        die(out);
    }
    free(all);
    free(dict);
    free(lens);
    free(flat);
    return 0;
}

static void
run_envelope(int store, const uint8_t *in, size_t in_len, long iters)
{
    size_t cap = terse_envelope_bound(in_len), env_len = 0, out_len = 0;
    uint8_t *env = malloc(cap), *out = malloc(in_len + 1);

    if (env == NULL || out == NULL ||
        terse_envelope_store(in, in_len, NULL, env, cap, &env_len) != TERSE_OK) {
        die("store");
    }
    for (long i = 0; i <= iters; i++) { /* i == 0 is the warm-up */
        int rc = store ? terse_envelope_store(in, in_len, NULL, env, cap, &env_len)
                       : terse_envelope_retrieve(env, env_len, out, in_len, &out_len, NULL, 0);
        if (rc != TERSE_OK) {
            die(terse_strerror(rc));
        }
        sink += store ? env_len : out_len;
    }
    free(env);
    free(out);
}

static void
run_value(int encode, const char *kind, const char *dir, long iters)
{
    const char *file = strcmp(kind, "raw") == 0 ? "in_64.bin" : "in_1024.bin";
    size_t in_len, dict_len = 0, st_len = 0, out_len = 0;
    uint8_t *in = bench_input_read(dir, file, &in_len), *dict = NULL;
    uint32_t dict_id = 0;
    struct codec_ctx *c = NULL;
    uint8_t *st, *out;

    if (codec_ctx_create(&c, NULL) != TERSE_OK) {
        die("ctx");
    }
    if (strcmp(kind, "zstd") == 0) {
        dict = bench_input_read(dir, "dict.bin", &dict_len);
        dict_id = DICT_ID;
        if (codec_ctx_dict_add(c, dict_id, dict, dict_len, CODEC_ZSTD_LEVEL_DEFAULT) != TERSE_OK) {
            die("dict_add");
        }
    }
    st = malloc(codec_value_bound(in_len));
    out = malloc(in_len + 1);
    if (st == NULL || out == NULL ||
        codec_value_encode_dict(c, dict_id, in, in_len, st, codec_value_bound(in_len), &st_len) !=
            TERSE_OK) {
        die("encode");
    }
    {
        struct codec_value_info info;

        if (codec_value_info(st, st_len, &info) != TERSE_OK ||
            (strcmp(kind, "raw") == 0) != (info.kind == CODEC_RAW) ||
            (strcmp(kind, "lz4") == 0) != (info.kind == CODEC_LZ4) ||
            (strcmp(kind, "zstd") == 0) != (info.kind == CODEC_ZSTD)) {
            die("input does not take the codec kind of its case");
        }
    }
    for (long i = 0; i <= iters; i++) {
        int rc = encode ? codec_value_encode_dict(c, dict_id, in, in_len, st,
                                                  codec_value_bound(in_len), &st_len)
                        : codec_value_decode(c, st, st_len, out, in_len, &out_len);
        if (rc != TERSE_OK) {
            die(terse_strerror(rc));
        }
        sink += encode ? st_len : out_len;
    }
    codec_ctx_destroy(&c);
    free(in);
    free(dict);
    free(st);
    free(out);
}

int
main(int argc, char **argv)
{
    char name[64];
    long iters;

    if (argc == 4 && strcmp(argv[1], "train") == 0) {
        return train(argv[2], argv[3]);
    }
    if (argc != 4) {
        die("usage: perf_ir CASE ITERS INPUT_DIR | perf_ir train INPUT_DIR OUT");
    }
    iters = strtol(argv[2], NULL, 10);
    if (strncmp(argv[1], "env_store_", 10) == 0 || strncmp(argv[1], "env_retrieve_", 13) == 0) {
        int store = argv[1][4] == 's';
        size_t in_len;
        uint8_t *in;

        snprintf(name, sizeof(name), "in_%s.bin", argv[1] + (store ? 10 : 13));
        in = bench_input_read(argv[3], name, &in_len);
        run_envelope(store, in, in_len, iters);
        free(in);
    } else if (strncmp(argv[1], "value_encode_", 13) == 0) {
        run_value(1, argv[1] + 13, argv[3], iters);
    } else if (strncmp(argv[1], "value_decode_", 13) == 0) {
        run_value(0, argv[1] + 13, argv[3], iters);
    } else {
        die("unknown case");
    }
    return 0;
}
