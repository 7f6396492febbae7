/*
 * codec_bench: libterse against liblz4 / libzstd called directly, on the same real inputs
 * (64 KiB and 1 MiB of corpus MessagePack records, bench/perf_ir_inputs.py), side by side.
 *
 *   codec_bench INPUT_DIR [ROUNDS]     (make bench-codec; not part of make test)
 *
 * Each operation has two arms that do the same work with the same settings:
 *   lz4 store    terse_envelope_store_ctx       vs LZ4_compress_fast_extState_fastReset + XXH3
 *   lz4 retrieve terse_envelope_retrieve_ctx    vs LZ4_decompress_safe + XXH3
 *   zstd encode  codec_value_encode_dict        vs ZSTD_compress2 (same CDict parameters, level,
 *                                                  frame flags) + XXH3
 *   zstd decode  codec_value_decode             vs ZSTD_decompress_usingDDict + XXH3
 * and, for reference, the bare library call without the checksum ("lib only"). A sample is
 * enough calls to last >= 5 ms; arms alternate within each round (order flipped every round);
 * the figure per arm is the minimum over ROUNDS samples, the ratio is min(terse)/min(direct),
 * and the spread is the interquartile range of the per-round paired ratios (terse/direct of
 * the same round).
 */
#define LZ4_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY
#include "terse/terse.h"

#include "codec/codec_value.h"

#include "bench_input.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>
#include <zstd.h>

#define ARMS 3 /* terse, direct (same work), lib only */
#define SAMPLE_NS 5000000.0

struct bench {
    const uint8_t *in;
    size_t n;
    uint8_t *env, *out, *st, *zbuf;
    size_t env_len, env_cap, st_len, st_cap, z_len, z_cap;
    terse_ctx *tc;
    struct codec_ctx *cc;
    void *lz4_state;
    ZSTD_CCtx *zc;
    ZSTD_DCtx *zd;
    ZSTD_CDict *cdict;
    ZSTD_DDict *ddict;
};

static volatile uint64_t sink;

static void
die(const char *what)
{
    fprintf(stderr, "codec_bench: %s\n", what);
    exit(2);
}

static double
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One call of operation op, arm a. */
static void
run(struct bench *b, int op, int a)
{
    size_t len = 0;

    switch (op * ARMS + a) {
    case 0: /* lz4 store */
        if (terse_envelope_store_ctx(b->tc, b->in, b->n, NULL, b->env, b->env_cap, &len) !=
            TERSE_OK) {
            die("store");
        }
        break;
    case 1:
        sink += XXH3_64bits(b->in, b->n);
        /* fallthrough */
    case 2:
        len = (size_t)LZ4_compress_fast_extState_fastReset(b->lz4_state, (const char *)b->in,
                                                           (char *)b->out, (int)b->n,
                                                           LZ4_compressBound((int)b->n), 1);
        break;
    case 3: /* lz4 retrieve */
        if (terse_envelope_retrieve_ctx(b->tc, b->env, b->env_len, b->out, b->n, &len, NULL,
                                        0) != TERSE_OK) {
            die("retrieve");
        }
        break;
    case 4:
    case 5: {
        /* the block inside the envelope: after 94 and a bin32/bin16 header */
        size_t hdr = b->env[1] == 0xc6 ? 5 : b->env[1] == 0xc5 ? 3 : 2;
        size_t blk = b->env[1] == 0xc6 ? (size_t)b->env[2] << 24 | (size_t)b->env[3] << 16 |
                                             (size_t)b->env[4] << 8 | b->env[5]
                                       : (size_t)b->env[2] << 8 | b->env[3];

        len = (size_t)LZ4_decompress_safe((const char *)b->env + 1 + hdr, (char *)b->out,
                                          (int)blk, (int)b->n);
        if (op * ARMS + a == 4) {
            sink += XXH3_64bits(b->out, len);
        }
        break;
    }
    case 6: /* zstd encode */
        if (codec_value_encode_dict(b->cc, 1, b->in, b->n, b->st, b->st_cap, &len) != TERSE_OK) {
            die("encode");
        }
        break;
    case 7:
        sink += XXH3_64bits(b->in, b->n);
        /* fallthrough */
    case 8:
        len = ZSTD_compress2(b->zc, b->zbuf, b->z_cap, b->in, b->n);
        if (ZSTD_isError(len)) {
            die("ZSTD_compress2");
        }
        break;
    case 9: /* zstd decode */
        if (codec_value_decode(b->cc, b->st, b->st_len, b->out, b->n, &len) != TERSE_OK) {
            die("decode");
        }
        break;
    case 10:
    case 11:
        len = ZSTD_decompress_usingDDict(b->zd, b->out, b->n, b->zbuf, b->z_len, b->ddict);
        if (ZSTD_isError(len) || len != b->n) {
            die("ZSTD_decompress_usingDDict");
        }
        if (op * ARMS + a == 10) {
            sink += XXH3_64bits(b->out, len);
        }
        break;
    default:
        die("case");
    }
    sink += len;
}

static void
setup(struct bench *b, const uint8_t *dict, size_t dict_len)
{
    ZSTD_compressionParameters cp = ZSTD_getCParams(CODEC_ZSTD_LEVEL_DEFAULT, 0, dict_len);
    struct codec_value_info info;

    b->env_cap = terse_envelope_bound(b->n);
    b->st_cap = codec_value_bound(b->n);
    b->z_cap = ZSTD_compressBound(b->n);
    b->env = malloc(b->env_cap);
    b->st = malloc(b->st_cap);
    b->zbuf = malloc(b->z_cap);
    b->out = malloc(LZ4_compressBound((int)b->n) + b->n);
    b->lz4_state = malloc((size_t)LZ4_sizeofState());
    if (b->env == NULL || b->st == NULL || b->zbuf == NULL || b->out == NULL ||
        b->lz4_state == NULL || terse_ctx_create(&b->tc, NULL) != TERSE_OK ||
        codec_ctx_create(&b->cc, NULL) != TERSE_OK ||
        codec_ctx_dict_add(b->cc, 1, dict, dict_len, CODEC_ZSTD_LEVEL_DEFAULT) != TERSE_OK) {
        die("setup");
    }
    LZ4_initStream(b->lz4_state, (size_t)LZ4_sizeofState());
    /* Direct zstd: the same CDict parameters, level and frame flags libterse uses. */
    b->zc = ZSTD_createCCtx();
    b->zd = ZSTD_createDCtx();
    b->cdict = ZSTD_createCDict_advanced(dict, dict_len, ZSTD_dlm_byCopy, ZSTD_dct_auto, cp,
                                         ZSTD_defaultCMem);
    b->ddict = ZSTD_createDDict(dict, dict_len);
    if (b->zc == NULL || b->zd == NULL || b->cdict == NULL || b->ddict == NULL ||
        ZSTD_isError(ZSTD_CCtx_refCDict(b->zc, b->cdict)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(b->zc, ZSTD_c_contentSizeFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(b->zc, ZSTD_c_checksumFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(b->zc, ZSTD_c_dictIDFlag, 0))) {
        die("zstd setup");
    }
    if (terse_envelope_store_ctx(b->tc, b->in, b->n, NULL, b->env, b->env_cap, &b->env_len) !=
            TERSE_OK ||
        codec_value_encode_dict(b->cc, 1, b->in, b->n, b->st, b->st_cap, &b->st_len) != TERSE_OK ||
        codec_value_info(b->st, b->st_len, &info) != TERSE_OK || info.kind != CODEC_ZSTD) {
        die("the input does not take the zstd kind");
    }
    b->z_len = ZSTD_compress2(b->zc, b->zbuf, b->z_cap, b->in, b->n);
    if (ZSTD_isError(b->z_len)) {
        die("zstd");
    }
    printf("# %zu B: envelope %zu B (lz4), value %zu B (zstd+dict), direct zstd frame %zu B\n",
           b->n, b->env_len, b->st_len, b->z_len);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
    static const char *const names[] = { "lz4 store", "lz4 retrieve", "zstd encode",
                                         "zstd decode" };
    static const char *const files[] = { "in_65536.bin", "in_1048576.bin" };
    int rounds = argc > 2 ? atoi(argv[2]) : 30;
    size_t dict_len;
    uint8_t *dict;

    if (argc < 2 || rounds < 3) {
        die("usage: codec_bench INPUT_DIR [ROUNDS >= 3]");
    }
    dict = bench_input_read(argv[1], "dict.bin", &dict_len);
    printf("%-8s %-13s %10s %10s %10s %8s %17s %9s\n", "size", "op", "terse us", "direct us",
           "lib us", "ratio", "paired p25..p75", "vs lib");
    for (size_t fi = 0; fi < 2; fi++) {
        struct bench b;
        uint8_t *in;

        memset(&b, 0, sizeof(b));
        in = bench_input_read(argv[1], files[fi], &b.n);
        b.in = in;
        setup(&b, dict, dict_len);
        for (int op = 0; op < 4; op++) {
            double best[ARMS], *ratio = malloc(sizeof(double) * (size_t)rounds);
            long k = 1;

            /* Calls per sample: enough for SAMPLE_NS on the direct arm. */
            for (;;) {
                double t0 = now_ns();

                for (long i = 0; i < k; i++) {
                    run(&b, op, 1);
                }
                if (now_ns() - t0 >= SAMPLE_NS) {
                    break;
                }
                k *= 2;
            }
            for (int a = 0; a < ARMS; a++) {
                best[a] = 1e300;
            }
            for (int r = 0; r < rounds; r++) {
                double t[ARMS];

                for (int j = 0; j < ARMS; j++) {
                    int a = r % 2 == 0 ? j : ARMS - 1 - j;
                    double t0 = now_ns();

                    for (long i = 0; i < k; i++) {
                        run(&b, op, a);
                    }
                    t[a] = (now_ns() - t0) / (double)k;
                    if (t[a] < best[a]) {
                        best[a] = t[a];
                    }
                }
                ratio[r] = t[0] / t[1];
            }
            qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
            printf("%-8s %-13s %10.1f %10.1f %10.1f %8.3f %8.3f..%-8.3f %9.3f\n",
                   fi == 0 ? "64 KiB" : "1 MiB", names[op], best[0] / 1e3, best[1] / 1e3,
                   best[2] / 1e3, best[0] / best[1], ratio[rounds / 4], ratio[rounds * 3 / 4],
                   best[0] / best[2]);
            free(ratio);
        }
        terse_ctx_destroy(&b.tc);
        codec_ctx_destroy(&b.cc);
        ZSTD_freeCCtx(b.zc);
        ZSTD_freeDCtx(b.zd);
        ZSTD_freeCDict(b.cdict);
        ZSTD_freeDDict(b.ddict);
        free(b.env);
        free(b.st);
        free(b.zbuf);
        free(b.out);
        free(b.lz4_state);
        free(in);
    }
    printf("# ratio = min(terse) / min(direct, same work incl. XXH3); p25..p75 = quartiles of\n"
           "# the per-round paired ratios; vs lib = min(terse) / min(bare library call)\n");
    free(dict);
    return 0;
}
