/*
 * cmd_list_pop: the list writes that take elements off an end: LPOP, RPOP and LMPOP, which
 * reply them, and LMOVE and RPOPLPUSH, which push the element on an end of another list (or
 * the same one, rotated) and reply it. The shared read and store steps are in cmd_list.c.
 */
#ifndef TERSE_CMD_LIST_POP_H
#define TERSE_CMD_LIST_POP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/core/cmd.h"
#include "store/form/store_list.h"

/*
 * Pops count elements (1 <= count, at most the n there are) from one end of the list at key
 * (form, len: its decoded form) and replies them (after the key, in LMPOP's shape, when
 * with_key; a single one as a bulk when single), then stores what is left. -1 when it replied
 * an error.
 */
int cmd_list_pop_and_store(struct cmd_call *c, const struct resp_slice *key,
                           const struct store_entry *e, const uint8_t *form,
                           size_t len, uint64_t n, bool left, uint64_t count, bool single,
                           bool with_key);
/* LMPOP's work from argv[at] (numkeys key ... LEFT|RIGHT [COUNT n]); BLMPOP's when blocking,
 * which waits up to timeout_ms (cmd_block) when every list is empty. */
void cmd_list_mpop(struct cmd_call *c, size_t at, bool blocking, int64_t timeout_ms);
/* Moves one element from an end of the list argv[1] to an end of argv[2], and replies it (a
 * null when argv[1] holds no list). */
void cmd_list_move(struct cmd_call *c, bool from_left, bool to_left);
/* LEFT or RIGHT at argv[i]: 0 with *left, or -1 when it replied the syntax error. */
int cmd_list_side_or_reply(struct cmd_call *c, size_t i, bool *left);

#endif /* TERSE_CMD_LIST_POP_H */
