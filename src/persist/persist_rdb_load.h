/*
 * persist_rdb_load: a whole Redis RDB file (versions 1 to PERSIST_RDB_VERSION, as Redis 7.0
 * writes and loads them) into a shard: an AOF's base file, or a redis-server's dump.
 *
 *   "REDIS" version[4 digits] | ( AUX key value | SELECTDB db | RESIZEDB n n |
 *   [EXPIRETIME_MS ms | EXPIRETIME s] [IDLE n | FREQ b] type key value )* | EOF | [CRC-64]
 *
 * Verified before anything is inserted (as persist_load.c does for terse snapshots): the
 * header, every opcode, every key and value (decoded with persist_rdb_value_read, so each
 * value passes the store's own checks), database numbers below the shard's count, and the
 * CRC-64 of everything before it (version 5 and later; a CRC of 0 means the writer had
 * checksums off, as Redis's rdbchecksum no). Only then a second pass inserts. A refused file
 * leaves the shard as it was. Function libraries and module values are refused: terse has
 * neither. IDLE and FREQ are read and dropped (access metadata starts fresh).
 *
 * Values are stored in the codec's RAW kind (strings of CODEC_RAW_MAX bytes and more marked
 * pending, for the background compression); strings that spell a canonical integer are held
 * as integers, as Redis's loader does. Keys that expired at now_ms are skipped.
 *
 * Memory: w (the caller's reader memory, persist_rdb.h) holds values being decoded, each read
 * where it lies in buf (no copy of its bytes); a key buffer and an encoding buffer are grown
 * with w's allocator and freed before return. With w->load_ck's env set (the server sets it),
 * a big list, hash, set, sorted set or stream is built straight into its chunked container
 * as it is read (persist_rdb_rcoll.c): stored as the key's in the insert pass, freed after its
 * checks in the verifying one, so neither pass holds its whole form.
 */
#ifndef TERSE_PERSIST_RDB_LOAD_H
#define TERSE_PERSIST_RDB_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "persist/persist.h"
#include "persist/persist_rdb.h"
#include "store/store.h"

/*
 * Verifies the RDB file at buf (len bytes, borrowed) and inserts its keys into s (NULL: verify
 * only; n_db then bounds database numbers). *used (may be NULL) gets the bytes the RDB takes,
 * through its CRC: an AOF with an RDB preamble goes on with commands after it; bytes after the
 * RDB are not looked at. Returns TERSE_OK; TERSE_ECORRUPT (err: offset in buf and reason; s
 * unchanged); TERSE_ENOMEM or TERSE_ETOOBIG (during verification: s unchanged; during the
 * insert pass: s holds part of the file, the caller discards it).
 */
int persist_rdb_load_mem(struct store_shard *s, int n_db, struct persist_rdb_work *w,
                         const uint8_t *buf, size_t len, int64_t now_ms,
                         struct persist_load_stats *st, size_t *used, struct persist_error *err);

/* 1 when buf starts as an RDB file does ("REDIS"): an AOF base or preamble. */
int persist_rdb_is_rdb(const uint8_t *buf, size_t len);

#endif /* TERSE_PERSIST_RDB_LOAD_H */
