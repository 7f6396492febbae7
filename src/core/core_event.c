/*
 * core_event: see core_event.h.
 *
 * Handler table: slot[fd] = {fn, arg, mask}; fn == NULL means unregistered. A callback may
 * unregister any fd (closing a client), so each ready event is looked up in the table again
 * right before its callback runs.
 */
#include "core/core_event.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/core_mem.h"
#include "terse/status.h"

#define LOOP_BATCH 256 /* events taken per epoll_wait */

struct loop_slot {
    core_event_fn *fn; /* NULL: fd not registered */
    void *arg;         /* borrowed */
    unsigned mask;     /* enum core_event_mask */
};

struct core_loop {
    int epfd;
    struct loop_slot *slots; /* owned; n_slots entries */
    int n_slots;
    struct epoll_event ready[LOOP_BATCH];
    int depth; /* polls running: a callback may poll again (a long script serving others) */
};

int core_loop_create(struct core_loop **out)
{
    struct core_loop *l = core_calloc(1, sizeof(*l));

    if (l == NULL) {
        return TERSE_ENOMEM;
    }
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0) {
        core_free(l);
        return TERSE_EIO;
    }
    *out = l;
    return TERSE_OK;
}

void core_loop_destroy(struct core_loop **pp)
{
    if (pp == NULL || *pp == NULL) {
        return;
    }
    close((*pp)->epfd);
    core_free((*pp)->slots);
    core_free(*pp);
    *pp = NULL;
}

static uint32_t to_epoll(unsigned mask)
{
    return ((mask & CORE_EV_READ) ? EPOLLIN : 0u) | ((mask & CORE_EV_WRITE) ? EPOLLOUT : 0u);
}

static int ensure_slot(struct core_loop *l, int fd)
{
    int n;
    struct loop_slot *ns;

    if (fd < l->n_slots) {
        return TERSE_OK;
    }
    n = l->n_slots < 64 ? 64 : l->n_slots;
    while (n <= fd) {
        n *= 2;
    }
    ns = core_realloc(l->slots, (size_t)n * sizeof(*ns));
    if (ns == NULL) {
        return TERSE_ENOMEM;
    }
    memset(ns + l->n_slots, 0, (size_t)(n - l->n_slots) * sizeof(*ns));
    l->slots = ns;
    l->n_slots = n;
    return TERSE_OK;
}

int core_loop_add(struct core_loop *l, int fd, unsigned mask, core_event_fn *fn, void *arg)
{
    struct epoll_event ev;

    if (fd < 0 || fn == NULL) {
        return TERSE_EINVAL;
    }
    if (ensure_slot(l, fd) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = to_epoll(mask);
    ev.data.fd = fd;
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        return TERSE_EIO;
    }
    l->slots[fd].fn = fn;
    l->slots[fd].arg = arg;
    l->slots[fd].mask = mask;
    return TERSE_OK;
}

int core_loop_mod(struct core_loop *l, int fd, unsigned mask)
{
    struct epoll_event ev;

    if (fd < 0 || fd >= l->n_slots || l->slots[fd].fn == NULL) {
        return TERSE_EINVAL;
    }
    if (l->slots[fd].mask == mask) {
        return TERSE_OK;
    }
    memset(&ev, 0, sizeof(ev));
    ev.events = to_epoll(mask);
    ev.data.fd = fd;
    if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) != 0) {
        return TERSE_EIO;
    }
    l->slots[fd].mask = mask;
    return TERSE_OK;
}

void core_loop_del(struct core_loop *l, int fd)
{
    if (fd < 0 || fd >= l->n_slots || l->slots[fd].fn == NULL) {
        return;
    }
    epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
    l->slots[fd].fn = NULL;
    l->slots[fd].arg = NULL;
    l->slots[fd].mask = 0;
}

bool core_loop_ready(struct core_loop *l)
{
    struct epoll_event ev; /* level-triggered: a peek loses nothing the next poll reports */

    return epoll_wait(l->epfd, &ev, 1, 0) > 0;
}

int core_loop_poll(struct core_loop *l, int timeout_ms)
{
    /* A poll from inside a callback must not overwrite the batch the outer poll walks. */
    struct epoll_event nested[LOOP_BATCH];
    struct epoll_event *ready = l->depth > 0 ? nested : l->ready;
    int n = epoll_wait(l->epfd, ready, LOOP_BATCH, timeout_ms);

    if (n < 0) {
        return errno == EINTR ? 0 : -1;
    }
    l->depth++;
    for (int i = 0; i < n; i++) {
        int fd = ready[i].data.fd;
        uint32_t e = ready[i].events;
        unsigned mask = 0;

        if (fd >= l->n_slots || l->slots[fd].fn == NULL) {
            continue; /* unregistered by an earlier callback of this batch */
        }
        if (e & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
            mask |= CORE_EV_READ;
        }
        if (e & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
            mask |= CORE_EV_WRITE;
        }
        mask &= l->slots[fd].mask | CORE_EV_READ;
        l->slots[fd].fn(l, fd, l->slots[fd].arg, mask);
    }
    l->depth--;
    return n;
}
