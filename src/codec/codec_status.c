/*
 * codec_status: terse_strerror, the text of every code in include/terse/status.h.
 *
 * The table is indexed by -status, so appending a code to the enum means appending one row
 * here; a missing row falls back to the generic text rather than NULL.
 */
#include "terse/status.h"

#include <stddef.h>

static const char *const codec_status_text[] = {
    [0] = "success",
    [-TERSE_ENOMEM] = "out of memory",
    [-TERSE_EINVAL] = "invalid argument",
    [-TERSE_EPROTO] = "malformed input",
    [-TERSE_ETOOBIG] = "size exceeds a limit",
    [-TERSE_ECORRUPT] = "corrupt data (checksum or structure)",
    [-TERSE_EOOM] = "memory budget exceeded",
    [-TERSE_EIO] = "I/O error",
    [-TERSE_EDSTSIZE] = "destination buffer too small",
    [-TERSE_ELENGTH] = "decoded length differs from the declared size",
    [-TERSE_ERATIO] = "compression ratio beyond the limit",
    [-TERSE_ECONFIG] = "unknown or malformed configuration option",
    [-TERSE_ENOTFOUND] = "not found",
    [-TERSE_ECRYPTO] = "encryption or authentication failure",
    [-TERSE_EEXHAUSTED] = "nonce counter exhausted (create a new cipher)",
};

const char *
terse_strerror(int status)
{
    size_t n = sizeof(codec_status_text) / sizeof(codec_status_text[0]);
    const char *s = NULL;

    if (status == TERSE_MORE) {
        return "incomplete: more input or room needed";
    }
    if (status <= 0 && status > -(int)n) {
        s = codec_status_text[-status];
    }
    return s != NULL ? s : "unknown status";
}
