/*
 * srv_aof_files: the AOF directory and its manifest on disk. The manifest is read whole
 * (at most PERSIST_AOF_MANIFEST_MAX bytes) and parsed by persist_aof_manifest.c; it is written
 * to temp-<appendfilename>.manifest, fsynced, renamed over <appendfilename>.manifest, and the
 * directory fsynced, so a crash leaves the old or the new manifest, never a torn one.
 */
#ifndef TERSE_SRV_AOF_FILES_H
#define TERSE_SRV_AOF_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "server/state/srv_internal.h"

/* srv_aof_files.c */
/* <dir>/<appenddirname>/<name> into out. */
void srv_aof_path(const struct srv *s, const char *name, char *out, size_t cap);
/* srv_aof_files.c: writes s->aof.man to the manifest file atomically (temp file, fsync, rename, fsync of the
 * directory). 0 or -1 (logged). */
int srv_aof_manifest_persist(struct srv *s);
/* Reads the manifest file into s->aof.man. 0; 1 when there is none; -1 (logged) when it is
 * bad. */
int srv_aof_manifest_read(struct srv *s);
/* Creates the AOF directory if missing. 0 or -1 (logged). */
int srv_aof_dir_create(struct srv *s);
/* fsync of the AOF directory. */
void srv_aof_dir_fsync(struct srv *s);

#endif /* TERSE_SRV_AOF_FILES_H */
