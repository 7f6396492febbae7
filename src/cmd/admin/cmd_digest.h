/*
 * cmd_digest: DEBUG DIGEST and DEBUG DIGEST-VALUE, computed as Redis 7.0 computes them so a
 * dataset can be compared before and after a save and reload, and against redis-server
 * holding the same data.
 *
 * Per key: d = 0; mix(d, key); then the value part: mix(d, type as a 4-byte big-endian int),
 * mix(d, the value's original bytes; an integer as its decimal text), and xor(d, "!!expire!!")
 * when the key has an expiry. The dataset digest starts at 0 and, for every non-empty db in
 * order, is mixed with the db index (4 bytes big-endian), then xor-ed with every key's d: the
 * order of keys does not matter. xor(d, x): d ^= SHA1(x); mix(d, x): xor(d, x), d = SHA1(d).
 * An empty dataset's digest is 20 zero bytes.
 */
#ifndef TERSE_CMD_DIGEST_H
#define TERSE_CMD_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"

#define CMD_DIGEST_LEN 20

/*
 * The digest of every live key of every db at c->now_ms into out. Values are decoded (and
 * verified) into the server's scratch. Returns TERSE_OK, TERSE_ENOMEM, or TERSE_ECORRUPT
 * with *bad (when not NULL) set to the entry whose value failed verification (borrowed,
 * valid until the shard changes).
 */
int cmd_digest_dataset(struct cmd_call *c, uint8_t out[CMD_DIGEST_LEN],
                       const struct store_entry **bad);

/* The value part of one entry's digest (DEBUG DIGEST-VALUE). TERSE_OK, TERSE_ENOMEM,
 * TERSE_ECORRUPT. */
int cmd_digest_value(struct cmd_call *c, const struct store_entry *e,
                     uint8_t out[CMD_DIGEST_LEN]);

/* SHA-1 of n bytes (p may be NULL when n is 0), by libcrypto (codec_sha1); 20 zero bytes if
 * libcrypto runs out of memory. */
void cmd_sha1(const void *p, size_t n, uint8_t out[CMD_DIGEST_LEN]);

#endif /* TERSE_CMD_DIGEST_H */
