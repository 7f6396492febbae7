/*
 * persist_aof_read: the commands of an AOF file (an incr file, or a base written as commands),
 * read as strictly as Redis 7.0's loadSingleAppendOnlyFile reads them:
 *
 *   command = "*" argc "\r\n" ( "$" len "\r\n" bytes 2-bytes )*argc    argc >= 1
 *   annotation = "#" ... "\n"                                         (skipped)
 *
 * The two bytes after an argument are skipped unchecked, as Redis does. Anything else where a
 * command or an argument must start is a format error; input that ends inside a command is
 * incomplete (a truncated tail, which aof-load-truncated may cut).
 *
 * Arguments are views into the caller's bytes (valid while those are). The argv array is
 * grown with the reader's allocator, kept from one command to the next, and freed by
 * persist_aof_reader_deinit. A declared count is trusted only as far as the bytes left can
 * hold that many arguments, so hostile input cannot make the reader allocate much.
 */
#ifndef TERSE_PERSIST_AOF_READ_H
#define TERSE_PERSIST_AOF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"

/* Longest "*<argc>" or "$<len>" line (Redis's AOF_ANNOTATION_LINE_MAX_LEN). */
#define PERSIST_AOF_HEAD_MAX 1024

struct persist_aof_arg {
    const uint8_t *p; /* borrowed: into the input */
    size_t len;
};

struct persist_aof_reader {
    terse_allocator alloc;        /* copied; NULL functions: libc */
    struct persist_aof_arg *argv; /* owned; the last command's arguments */
    size_t argc;
    size_t argv_cap;
};

void persist_aof_reader_init(struct persist_aof_reader *r, const terse_allocator *alloc);
void persist_aof_reader_deinit(struct persist_aof_reader *r);

/*
 * Reads the next command (or annotation) from buf[0..len). Returns
 *   TERSE_OK      *used bytes consumed; r->argc >= 1 arguments in r->argv, or argc 0 for an
 *                 annotation line;
 *   TERSE_MORE    the input ends inside a command or annotation (*used 0);
 *   TERSE_EPROTO  a format error (*why: a static reason);
 *   TERSE_ENOMEM  argv could not grow.
 * len 0 is TERSE_MORE: the caller knows when the input ended cleanly.
 */
int persist_aof_read_cmd(struct persist_aof_reader *r, const uint8_t *buf, size_t len,
                         size_t *used, const char **why);

#endif /* TERSE_PERSIST_AOF_READ_H */
