/*
 * cmd_fixture: the fake server the cmd unit tests run commands against: a real shard and
 * codec context, libc allocation, one client whose replies go to a growable resp_out, and
 * the helpers to split a command line and capture its raw RESP reply.
 *
 * Linked into every tests/unit/cmd/test_*.c by the Makefile (the *_fixture.c files of a test's
 * folder). Each test keeps its own struct fx (server, client, output and its extra fields)
 * and calls these on its members; nothing here keeps state.
 */
#ifndef TERSE_TEST_CMD_FIXTURE_H
#define TERSE_TEST_CMD_FIXTURE_H

#include <stddef.h>

#include "cmd/core/cmd.h"

/* Arguments a command line of the tests may have. */
#define CMD_FIXTURE_MAX_ARGS 16

/* cmd_fixture_split flags. */
enum cmd_fixture_split_flags {
    CMD_FIXTURE_SPLIT_QUOTES = 1 << 0 /* an argument written '' is the empty string */
};

/* terse_allocator functions over libc (opaque unused). */
void *cmd_fixture_alloc(void *opaque, size_t size);
void cmd_fixture_free(void *opaque, void *p);

/* resp_out grow callback over libc realloc: doubles from 256 bytes until need fits. */
int cmd_fixture_out_grow(void *owner, struct resp_out *o, size_t need);

/* Creates srv->shard (16 databases) and srv->codec, sets the libc allocator and
 * settings.databases = 16; the rest of srv is the caller's (zeroed by calloc). */
void cmd_fixture_setup(struct cmd_server *srv);

/* Points cl's replies at out: out grows with cmd_fixture_out_grow and speaks RESP2. Call it
 * after cmd_client_init, which clears the client. */
void cmd_fixture_attach(struct cmd_client *cl, struct resp_out *out);

/* For the tests that run commands through cmd_dispatch: after cmd_fixture_setup and the
 * caller's settings and hooks, cmd_server_init (asserted TERSE_OK), cmd_client_init on cl, then
 * cmd_fixture_attach(cl, out). */
void cmd_fixture_init(struct cmd_server *srv, struct cmd_client *cl, struct resp_out *out);

/* Undoes cmd_fixture_init: cmd_client_deinit on cl, then cmd_server_deinit. Call
 * cmd_fixture_teardown after it. */
void cmd_fixture_deinit(struct cmd_server *srv, struct cmd_client *cl);

/* Destroys what cmd_fixture_setup created and frees the scratch buffers (allocated with
 * malloc; NULL after cmd_server_deinit) and out's buffer. */
void cmd_fixture_teardown(struct cmd_server *srv, struct resp_out *out);

/* Splits line in place on single spaces into argv (at most CMD_FIXTURE_MAX_ARGS, asserted):
 * two spaces in a row make an empty argument. flags: enum cmd_fixture_split_flags. Returns
 * argc (at least 1). argv points into line. */
size_t cmd_fixture_split(char *line, struct resp_slice *argv, unsigned flags);

/* Asserts out holds no output error and a reply shorter than reply_cap, copies it into reply,
 * NUL-terminated, and returns reply; *reply_len (when not NULL) gets its length. */
const char *cmd_fixture_reply(const struct resp_out *out, char *reply, size_t reply_cap,
                              size_t *reply_len);

/* Runs one command line through cmd_dispatch: splits a copy of line with cmd_fixture_split (no
 * flags), empties out and gives it cl's protocol, dispatches, and returns cmd_fixture_reply
 * (out, reply, reply_cap, NULL). */
const char *cmd_fixture_dispatch(struct cmd_server *srv, struct cmd_client *cl,
                                 struct resp_out *out, const char *line, char *reply,
                                 size_t reply_cap);

#endif /* TERSE_TEST_CMD_FIXTURE_H */
