/*
 * cmd_string_form: the steps the string commands share: look a string key up, check a
 * length against proto-max-bulk-len, and decode a value (an int or a codec value) into scratch.
 */
#include "cmd/string/cmd_string_form.h"


#include <string.h>

#include "cmd/core/cmd_util.h"
#include "cmd/core/cmd_value.h"
#include "cmd/core/cmd_lookup.h"
#include "resp/resp_write.h"
#include "terse/status.h"

/* Replies the error for a failed read of key's value: CORRUPT for a checksum or structure
 * failure (the one place it is counted), the status text otherwise. */
static void reply_read_error(struct cmd_call *c, const struct resp_slice *key, int st)
{
    if (st == TERSE_ECORRUPT || st == TERSE_EDSTSIZE || st == TERSE_ELENGTH) {
        cmd_reply_corrupt(c, key->p, key->len);
    } else {
        cmd_reply_status(c, st);
    }
}

/*
 * Decodes e into srv->scratch, reserved for at least cap bytes (cap >= the value's length,
 * from value_len_or_reply), so the caller can grow the value in place. *p is valid until the
 * next scratch reserve. Replies the error itself on failure.
 */
int cmd_string_decode_or_reply(struct cmd_call *c, const struct store_entry *e,
                               const struct resp_slice *key, size_t cap, uint8_t **p, size_t *len)
{
    const uint8_t *stored;
    size_t stored_len = 0;
    int st;

    st = cmd_scratch_reserve(c->srv, cap < CMD_STRING_LL_CAP ? CMD_STRING_LL_CAP : cap);
    if (st != TERSE_OK) {
        cmd_reply_status(c, st);
        return st;
    }
    *p = c->srv->scratch;
    if (store_entry_enc(e) == STORE_ENC_INT) {
        *len = cmd_format_ll((char *)*p, store_entry_int(e));
        return TERSE_OK;
    }
    stored = store_entry_val(e, &stored_len);
    st = codec_value_decode(c->srv->codec, stored, stored_len, *p, c->srv->scratch_cap, len);
    if (st != TERSE_OK) {
        reply_read_error(c, key, st);
    }
    return st;
}

/* The original length of e (header only). Replies the error itself on failure. */
int cmd_string_len_or_reply(struct cmd_call *c, const struct store_entry *e,
                            const struct resp_slice *key, size_t *len)
{
    int st = cmd_value_len(c, e, len);

    if (st != TERSE_OK) {
        reply_read_error(c, key, st);
    }
    return st;
}

/* Redis's checkStringLength: may a value of size bytes grow by append bytes? Replies the
 * error itself when not. */
int cmd_string_length_ok_or_reply(struct cmd_call *c, unsigned long long size,
                                  unsigned long long append)
{
    long long max = c->srv->settings.proto_max_bulk_len;
    unsigned long long total = size + append;

    if (max > 0 && (total < size || total > (unsigned long long)max)) {
        cmd_reply_err(c, CMD_ERR_STRING_TOO_LONG);
        return TERSE_ETOOBIG;
    }
    return TERSE_OK;
}

struct store_entry *cmd_string_lookup_or_reply(struct cmd_call *c, const struct resp_slice *key)
{
    int replied = 0;
    struct store_entry *e = cmd_lookup_read(c, key, &replied);

    if (!replied && e == NULL) {
        resp_write_null(c->out);
    }
    return e;
}
