/*
 * cmd_script_func: FUNCTION's libraries, kept in their own Lua state (e->flua).
 */
#ifndef TERSE_CMD_SCRIPT_FUNC_H
#define TERSE_CMD_SCRIPT_FUNC_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "cmd/core/cmd.h"
#include "cmd/script/cmd_script_base.h"

/* e->flua, opened on first use; NULL when out of memory. */
lua_State *cmd_script_flua(struct cmd_script *e);
/* FUNCTION LOAD's work: code (borrowed) becomes library *name (the metadata's, written to
 * name_out, name_cap bytes). 0, or -1 after replying the error to c. */
int cmd_script_func_load(struct cmd_script *e, struct cmd_call *c, const struct resp_slice *code,
                         int replace, char *name_out, size_t name_cap);
/* Pushes the function named name and returns 1 with *flags, or 0 (nothing pushed). */
int cmd_script_func_find(struct cmd_script *e, const struct resp_slice *name, unsigned *flags);
/* Drops library name: 1, or 0 when there is none. */
int cmd_script_func_delete(struct cmd_script *e, const struct resp_slice *name);

#endif /* TERSE_CMD_SCRIPT_FUNC_H */
