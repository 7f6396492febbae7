/*
 * cmd_script_base: what the scripting engine's files share: an error reply pushed to Lua as
 * the table Redis's redis.error_reply makes (cmd_script_push_error), the SHA1 hex of a body,
 * and the rule for library and function names.
 */

#include <string.h>

#include "cmd/script/cmd_script_base.h"

#include "codec/codec_sha1.h"
#include "terse/status.h"

void cmd_script_push_error(lua_State *lua, const char *text, size_t len)
{
    const char *code = "ERR", *msg = text;
    size_t clen = 3, mlen = len;

    if (len > 0 && text[0] == '-') {
        const char *sp = memchr(text, ' ', len);
        if (sp == NULL) {
            msg = text + 1;
            mlen = len - 1;
        } else {
            code = text + 1;
            clen = (size_t)(sp - text) - 1;
            msg = sp + 1;
            mlen = len - (size_t)(sp + 1 - text);
        }
    }
    while (mlen > 0 && (msg[0] == '\r' || msg[0] == '\n')) {
        msg++;
        mlen--;
    }
    while (mlen > 0 && (msg[mlen - 1] == '\r' || msg[mlen - 1] == '\n')) {
        mlen--;
    }
    lua_newtable(lua);
    lua_pushstring(lua, "err");
    lua_pushlstring(lua, code, clen);
    lua_pushliteral(lua, " ");
    lua_pushlstring(lua, msg, mlen);
    lua_concat(lua, 3);
    lua_rawset(lua, -3);
}

void cmd_script_sha1hex(struct cmd_script *e, const void *p, size_t n, char *hex)
{
    static const char digits[] = "0123456789abcdef";
    uint8_t d[CODEC_SHA1_LEN];
    int rc = e->sha1 != NULL ? codec_sha1_ctx_digest(e->sha1, p, n, d) : codec_sha1(p, n, d);

    if (rc != TERSE_OK) {
        memset(d, 0, sizeof(d));
    }
    for (size_t i = 0; i < CODEC_SHA1_LEN; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[CMD_SCRIPT_SHA_LEN] = '\0';
}

int cmd_script_name_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_')) {
            return 0;
        }
    }
    return n > 0;
}
