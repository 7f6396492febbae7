/*
 * core_event: a small epoll event loop, one per worker thread.
 *
 * File descriptors are registered with a callback and an argument (borrowed: the loop never
 * frees it). Level-triggered. The loop owns only its epoll fd and its handler table, which is
 * indexed by fd and grows as higher fds appear.
 */
#ifndef TERSE_CORE_EVENT_H
#define TERSE_CORE_EVENT_H

#include <stdbool.h>

#include <stdint.h>

enum core_event_mask { CORE_EV_READ = 1, CORE_EV_WRITE = 2 };

struct core_loop;
/* events: enum core_event_mask bits that are ready (errors and hang-ups report as READ). */
typedef void core_event_fn(struct core_loop *loop, int fd, void *arg, unsigned events);

/* TERSE_OK, TERSE_ENOMEM or TERSE_EIO. */
int core_loop_create(struct core_loop **out);
void core_loop_destroy(struct core_loop **pp);
/* Registers fd for mask. TERSE_OK, TERSE_ENOMEM, TERSE_EIO. */
int core_loop_add(struct core_loop *l, int fd, unsigned mask, core_event_fn *fn, void *arg);
/* Changes the interest mask of a registered fd (no-op when unchanged). */
int core_loop_mod(struct core_loop *l, int fd, unsigned mask);
/* Unregisters fd (before closing it). Safe to call from inside a callback, also for an fd
 * whose event is still pending in the current batch: it is then skipped. */
void core_loop_del(struct core_loop *l, int fd);
/* Waits up to timeout_ms (-1 forever) and runs the callbacks of ready fds. Returns the number
 * of events handled, or -1 when epoll_wait fails for a reason other than EINTR. */
int core_loop_poll(struct core_loop *l, int timeout_ms);
/* Whether an fd is ready now (the next poll would not wait), without running anything: what
 * background work asks between its steps, to give way to clients. */
bool core_loop_ready(struct core_loop *l);

#endif /* TERSE_CORE_EVENT_H */
