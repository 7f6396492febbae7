/*
 * terse status codes: one enum for the whole tree (server and libterse).
 *
 * TERSE_OK is success, TERSE_MORE means "incomplete: call again with more input or more
 * room" and is not an error, every negative value is an error. Codes are only ever appended;
 * an existing value is never renumbered, because callers and tests compare against them.
 */
#ifndef TERSE_STATUS_H
#define TERSE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum terse_status {
    TERSE_OK = 0,
    TERSE_MORE = 1,        /* incomplete input or output room; not an error */
    TERSE_ENOMEM = -1,     /* an allocation failed */
    TERSE_EINVAL = -2,     /* caller misuse: bad argument */
    TERSE_EPROTO = -3,     /* malformed input (wire protocol, envelope structure) */
    TERSE_ETOOBIG = -4,    /* a size exceeds a documented limit */
    TERSE_ECORRUPT = -5,   /* checksum mismatch or corrupt stored structure */
    TERSE_EOOM = -6,       /* the memory budget (maxmemory) refuses the write */
    TERSE_EIO = -7,        /* an I/O call failed */
    TERSE_EDSTSIZE = -8,   /* the output buffer is too small */
    TERSE_ELENGTH = -9,    /* decoded length differs from the declared original size */
    TERSE_ERATIO = -10,    /* declared compression ratio is beyond the cap */
    TERSE_ECONFIG = -11,   /* unknown or malformed configuration option */
    TERSE_ENOTFOUND = -12, /* the named thing does not exist */
    TERSE_ECRYPTO = -13,   /* encryption/decryption or authentication failed */
    TERSE_EEXHAUSTED = -14 /* a nonce counter reached its limit: never reused, never wrapped */
};

/*
 * terse_strerror: a static, human-readable description of `status`.
 * Never returns NULL, for any int (unknown values get a generic text). Thread-safe, no
 * allocation.
 */
const char *terse_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif /* TERSE_STATUS_H */
