/*
 * persist_aof_manifest: the manifest of Redis 7.0's multi-part AOF, parsed and written.
 *
 * The AOF is a directory (appenddirname) of files: one base (an RDB file, or commands), the
 * incr files of commands written after it, in sequence order, and history files waiting to be
 * deleted. The manifest <appendfilename>.manifest lists them, one line each, as Redis writes
 * it:
 *
 *   file appendonly.aof.1.base.rdb seq 1 type b\n
 *   file appendonly.aof.1.incr.aof seq 1 type i\n
 *
 * A line is key/value pairs (at least three pairs, an even number of words; unknown keys are
 * skipped for forward compatibility, as Redis does), words split as Redis's sdssplitargs
 * ("double quotes" with \xHH escapes, 'single quotes'); a name that needs it is written
 * quoted, as Redis's sdscatrepr writes it. Lines starting with '#' are comments. Rules, with
 * Redis's error texts: every line ends with '\n' and is at most PERSIST_AOF_LINE_MAX bytes;
 * a file name is a base name (no '/'); seq is a positive integer; one base at most; incr
 * sequence numbers strictly increase; the type is b, h or i; an empty file is an error.
 *
 * Memory: the entry arrays are grown with the manifest's allocator and owned by it
 * (persist_aof_manifest_deinit frees them); names are stored inline. Pure functions over
 * buffers: no file I/O, no clock. One thread per manifest.
 */
#ifndef TERSE_PERSIST_AOF_MANIFEST_H
#define TERSE_PERSIST_AOF_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "persist/persist.h"
#include "terse/alloc.h"

#define PERSIST_AOF_NAME_CAP 256       /* bytes of a file name, NUL included */
#define PERSIST_AOF_LINE_MAX 1024      /* longest manifest line (Redis's MANIFEST_MAX_LINE) */
#define PERSIST_AOF_MANIFEST_MAX (1u << 20) /* largest manifest file read */

enum persist_aof_type {
    PERSIST_AOF_BASE = 'b',
    PERSIST_AOF_HIST = 'h',
    PERSIST_AOF_INCR = 'i'
};

struct persist_aof_file {
    char name[PERSIST_AOF_NAME_CAP]; /* a base name, NUL-terminated */
    long long seq;                   /* > 0 */
    char type;                       /* enum persist_aof_type */
};

struct persist_aof_manifest {
    terse_allocator alloc;           /* copied; its functions must outlive the manifest */
    int has_base;
    struct persist_aof_file base;    /* valid when has_base */
    struct persist_aof_file *incr;   /* in sequence order; owned */
    size_t n_incr, incr_cap;
    struct persist_aof_file *hist;   /* history: files to delete; owned */
    size_t n_hist, hist_cap;
    long long base_seq;              /* sequence of the current base (0: none yet) */
    long long incr_seq;              /* highest incr sequence (0: none yet) */
};

/* alloc NULL: libc. */
void persist_aof_manifest_init(struct persist_aof_manifest *m, const terse_allocator *alloc);
void persist_aof_manifest_deinit(struct persist_aof_manifest *m);
/* Empties m, keeping its arrays. */
void persist_aof_manifest_reset(struct persist_aof_manifest *m);

/*
 * Parses a manifest (buf, len bytes, borrowed) into m (reset first). Returns TERSE_OK;
 * TERSE_ECORRUPT with err->offset the 1-based line number and err->reason Redis's text
 * ("Invalid AOF manifest file format", ...), m left empty; TERSE_ENOMEM (m left empty).
 */
int persist_aof_manifest_parse(struct persist_aof_manifest *m, const uint8_t *buf, size_t len,
                               struct persist_error *err);

/* Appends an entry (a copy of name, which must be a base name shorter than
 * PERSIST_AOF_NAME_CAP). A base replaces the current one, whose entry becomes history; an incr
 * entry must have a seq above every other. TERSE_OK, TERSE_EINVAL, TERSE_ENOMEM. */
int persist_aof_manifest_add(struct persist_aof_manifest *m, char type, const char *name,
                             long long seq);
/* Turns the base and every incr entry into history (a rewrite's new base covers them). The
 * incr sequence counter is kept. TERSE_OK or TERSE_ENOMEM (m unchanged). */
int persist_aof_manifest_retire(struct persist_aof_manifest *m);

/* Bytes persist_aof_manifest_format writes for m. */
size_t persist_aof_manifest_size(const struct persist_aof_manifest *m);
/* Writes m as Redis does (base, history, then incr files), into dst of cap bytes (at least
 * persist_aof_manifest_size). Returns the bytes written, or 0 when cap is too small. */
size_t persist_aof_manifest_format(const struct persist_aof_manifest *m, char *dst, size_t cap);

/* Shared by the parser and the writer: a name as written in a manifest line (itself, or
 * quoted with escapes: at most 4 * strlen(s) + 2 bytes into dst, not NUL-terminated), its
 * length returned; and whether its line fits PERSIST_AOF_LINE_MAX once written (a name that
 * does not is refused, so that everything written parses back). */
size_t persist_aof_name_repr(const char *s, char *dst);
int persist_aof_name_fits(const char *name);

#endif /* TERSE_PERSIST_AOF_MANIFEST_H */
