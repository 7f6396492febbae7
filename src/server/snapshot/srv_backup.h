/*
 * srv_backup: snapshots on S3-compatible storage, used when `dir` is s3://<bucket>/<prefix>
 * (Dragonfly's convention). The wire side is src/s3/ (docs/formats/backup.md); the snapshot
 * bytes are persist/'s (docs/formats/snapshot.md), unchanged.
 */
#ifndef TERSE_SRV_BACKUP_H
#define TERSE_SRV_BACKUP_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* Streams a snapshot of s->shard (unchanged during the call) to a new object under dir and
 * logs the result. On failure writes the reason (S3's code and message, or the snapshot
 * writer's) into why (why_cap bytes) and returns a terse_status; no multipart upload is left
 * behind unless why says so. Blocks the calling thread; starts and joins one thread. */
int srv_backup_save(struct srv *s, int64_t now_ms, char *why, size_t why_cap);
/* Downloads the newest snapshot under dir and loads it into shard (verified first; shard is
 * unchanged unless the insert pass runs out of memory). Returns TERSE_OK; TERSE_ENOTFOUND
 * when the prefix holds no snapshot; another status with the reason in why. */
int srv_backup_restore(struct srv *s, struct store_shard *shard, int64_t now_ms,
                       struct persist_load_stats *st, char *why, size_t why_cap);

#endif /* TERSE_SRV_BACKUP_H */
