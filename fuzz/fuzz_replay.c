/*
 * fuzz_replay: runs a libFuzzer target's LLVMFuzzerTestOneInput over saved inputs, without
 * libFuzzer, so `make fuzz-replay` (gcc) turns every committed seed and every crash found
 * into a regression test.
 *
 * Usage: <target>-replay PATH...   each PATH is a file or a directory (searched recursively).
 * Exits nonzero when a PATH is missing or a directory holds no input, or a file cannot be
 * read; a failing input aborts inside the target. Prints how many inputs it replayed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file into a block of exactly its size (so an over-read is caught by ASan). */
static int replay_file(const char *path, size_t *n_done)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0;
    size_t cap = 0;
    int rc = -1;

    if (f == NULL) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;

        if (len == cap) {
            size_t ncap = cap != 0 ? cap * 2 : 4096;
            uint8_t *p = realloc(buf, ncap);

            if (p == NULL) {
                fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
                goto out;
            }
            buf = p;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "fuzz_replay: %s: read error\n", path);
        goto out;
    }
    {
        /* Exact-size copy: the tail of buf beyond len would hide over-reads. */
        uint8_t *exact = malloc(len != 0 ? len : 1);

        if (exact == NULL) {
            fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
            goto out;
        }
        if (len != 0) {
            memcpy(exact, buf, len);
        }
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    (*n_done)++;
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}

static int replay_path(const char *path, size_t *n_done)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    size_t before = *n_done;
    int rc = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return replay_file(path, n_done);
    }
    d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        child = malloc(n);
        if (child == NULL) {
            rc = -1;
            break;
        }
        snprintf(child, n, "%s/%s", path, e->d_name);
        rc = replay_path(child, n_done);
        free(child);
    }
    closedir(d);
    if (rc == 0 && *n_done == before) {
        fprintf(stderr, "fuzz_replay: %s: no inputs\n", path);
        return -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    size_t n_done = 0;
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        if (replay_path(argv[i], &n_done) != 0) {
            fprintf(stderr, "fuzz_replay: failed after %zu inputs\n", n_done);
            return 1;
        }
    }
    printf("fuzz_replay: replayed %zu inputs\n", n_done);
    return 0;
}
