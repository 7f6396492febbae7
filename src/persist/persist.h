/*
 * persist: snapshots of a shard on disk (format: docs/formats/snapshot.md, version byte
 * PERSIST_VERSION).
 *
 * Saving walks every db of a shard and writes the values as the store holds them (codec
 * stored bytes and int64s, no recompression), with their expiry times, in checksummed blocks
 * followed by an end block that carries a checksum of the whole file. persist_save_file writes
 * a temporary file beside the target, fsyncs it, renames it into place and fsyncs the
 * directory, so a crash at any instant leaves either the old or the new complete snapshot.
 *
 * Loading verifies everything before it touches the shard: the header, every block's
 * checksum, every record's structure, the whole-file checksum and the counts in the end block
 * (first pass). Only then are the keys inserted (second pass), so a snapshot that fails
 * verification leaves the shard exactly as it was. Errors come with the byte offset in the
 * file and a reason.
 *
 * Nothing here reads the clock or config: callers give now_ms and paths. Threading: the shard
 * belongs to the calling thread; a forked child may save the parent's frozen shard.
 */
#ifndef TERSE_PERSIST_H
#define TERSE_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "terse/alloc.h"

#define PERSIST_VERSION 1        /* format version byte written and accepted */
#define PERSIST_REASON_CAP 192   /* bytes of persist_error.reason, NUL included */

/* Where and why a save or a load failed. */
struct persist_error {
    uint64_t offset;                 /* byte offset in the file the reason refers to */
    char reason[PERSIST_REASON_CAP]; /* NUL-terminated, "" when there was no error */
};

struct persist_save_stats {
    uint64_t n_keys;      /* records written (live keys at now_ms) */
    uint64_t n_dedup;     /* values written as references to an identical earlier value */
    uint64_t file_bytes;  /* size of the snapshot */
};

struct persist_load_stats {
    uint64_t n_loaded;    /* keys inserted */
    uint64_t n_expired;   /* records skipped because their expiry <= now_ms */
    uint64_t file_bytes;  /* size of the snapshot */
};

/*
 * Writes a snapshot of every db of s to fd, from the current file position onwards.
 * now_ms: keys whose expiry is <= now_ms are left out. alloc: NULL for libc; used for the
 * block buffer and the deduplication table (PERSIST_DEDUP_SLOTS_MAX slots at most), all
 * freed before return. st (may be NULL) receives counts; err receives the reason of a failure
 * (offset = bytes written so far). s and fd are borrowed; s must not change during the call.
 * Returns TERSE_OK, TERSE_EIO (write failed; errno's text in err), TERSE_ENOMEM.
 */
int persist_save_fd(struct store_shard *s, int fd, int64_t now_ms, const terse_allocator *alloc,
                     struct persist_save_stats *st, struct persist_error *err);

/*
 * Saves s to path atomically: writes tmp_path (created or truncated; same directory as path),
 * fsyncs it, renames it to path and fsyncs the directory. On failure tmp_path is removed and
 * path is untouched. Strings are borrowed. Returns as persist_save_fd.
 */
int persist_save_file(struct store_shard *s, const char *path, const char *tmp_path,
                      int64_t now_ms, const terse_allocator *alloc,
                      struct persist_save_stats *st, struct persist_error *err);

/*
 * Verifies the snapshot in buf (len bytes, borrowed) and, if it is sound, inserts its keys
 * into s (existing keys with the same name are replaced; other keys stay). Records of a db
 * >= store_shard_n_db(s) fail verification. Keys that expired at now_ms are skipped.
 * Returns TERSE_OK; TERSE_ECORRUPT (verification failed, err names offset and reason, s is
 * unchanged); TERSE_ENOMEM or TERSE_ETOOBIG from the store during the insert pass (s then
 * holds part of the snapshot: discard or flush it). No allocation besides the store's.
 */
int persist_load_mem(struct store_shard *s, const uint8_t *buf, size_t len, int64_t now_ms,
                     struct persist_load_stats *st, struct persist_error *err);

/* Verification only (the first pass of persist_load_mem): TERSE_OK or TERSE_ECORRUPT.
 * n_db: databases the loading server has. */
int persist_verify_mem(const uint8_t *buf, size_t len, int n_db, struct persist_error *err);

/*
 * persist_load_mem over the file at path (mapped read-only, unmapped before return).
 * TERSE_ENOTFOUND when the file does not exist (s unchanged); TERSE_EIO when it cannot be
 * opened or mapped (err says why); otherwise as persist_load_mem.
 */
int persist_load_file(struct store_shard *s, const char *path, int64_t now_ms,
                      struct persist_load_stats *st, struct persist_error *err);

#endif /* TERSE_PERSIST_H */
