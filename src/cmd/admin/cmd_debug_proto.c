/*
 * cmd_debug_proto: DEBUG PROTOCOL and DEBUG SET-DISABLE-DENY-SCRIPTS, the two DEBUG
 * subcommands Redis's scripting tests lean on: one reply of each RESP type in the caller's
 * protocol (a script's client included, which is how the tests read every conversion), and
 * lifting the ban on CMD_NOSCRIPT commands inside scripts.
 */
#include "cmd/admin/cmd_debug_proto.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/script/cmd_script.h"
#include "cmd/core/cmd_util.h"
#include "terse/status.h"

void cmd_debug_protocol(struct cmd_call *c)
{
    struct resp_out *o = c->out;

    if (cmd_arg_is(c, 2, "string")) {
        resp_write_cstr(o, "Hello World");
    } else if (cmd_arg_is(c, 2, "integer")) {
        resp_write_int(o, 12345);
    } else if (cmd_arg_is(c, 2, "double")) {
        resp_write_double(o, 3.141);
    } else if (cmd_arg_is(c, 2, "bignum")) {
        static const char big[] = "1234567999999999999999999999999999999";
        if (o->proto == 2) {
            resp_write_bulk(o, big, sizeof(big) - 1);
        } else {
            resp_write_raw(o, "(", 1);
            resp_write_raw(o, big, sizeof(big) - 1);
            resp_write_crlf(o);
        }
    } else if (cmd_arg_is(c, 2, "null")) {
        resp_write_null(o);
    } else if (cmd_arg_is(c, 2, "array") || cmd_arg_is(c, 2, "set")) {
        if (cmd_arg_is(c, 2, "set")) {
            resp_write_set(o, 3);
        } else {
            resp_write_array(o, 3);
        }
        for (int j = 0; j < 3; j++) {
            resp_write_int(o, j);
        }
    } else if (cmd_arg_is(c, 2, "map")) {
        resp_write_map(o, 3);
        for (int j = 0; j < 3; j++) {
            resp_write_int(o, j);
            resp_write_bool(o, j == 1);
        }
    } else if (cmd_arg_is(c, 2, "attrib")) {
        if (o->proto >= 3) {
            resp_write_raw(o, "|1\r\n", 4);
            resp_write_cstr(o, "key-popularity");
            resp_write_array(o, 2);
            resp_write_cstr(o, "key:123");
            resp_write_int(o, 90);
        }
        resp_write_cstr(o, "Some real reply following the attribute");
    } else if (cmd_arg_is(c, 2, "push")) {
        if (o->proto < 3) {
            cmd_reply_err(c, "ERR RESP2 is not supported by this command");
            return;
        }
        resp_write_push(o, 2);
        resp_write_cstr(o, "server-cpu-usage");
        resp_write_int(o, 42);
        resp_write_cstr(o, "Some real reply following the push reply");
    } else if (cmd_arg_is(c, 2, "true") || cmd_arg_is(c, 2, "false")) {
        resp_write_bool(o, cmd_arg_is(c, 2, "true"));
    } else if (cmd_arg_is(c, 2, "verbatim")) {
        resp_write_verbatim(o, "txt", "This is a verbatim\nstring", 25);
    } else {
        cmd_reply_err(c, "ERR Wrong protocol type name. Please use one of the following: "
                         "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|"
                         "true|false");
    }
}

void cmd_debug_set_disable_deny_scripts(struct cmd_call *c)
{
    struct cmd_script *e = cmd_script_get(c->srv);
    char num[32];
    size_t n = c->argv[2].len < sizeof(num) - 1 ? c->argv[2].len : sizeof(num) - 1;

    if (e == NULL) {
        cmd_reply_status(c, TERSE_ENOMEM);
        return;
    }
    memcpy(num, c->argv[2].p, n);
    num[n] = '\0';
    e->allow_noscript = atoi(num) != 0; /* Redis reads it with atoi too */
    resp_write_ok(c->out);
}
