/*
 * net: listening sockets and client connections.
 *
 * A struct net_conn is a client socket with its input and output buffers (core_buf). The
 * connection owns both buffers and frees them in net_conn_deinit; it does not own `udata`.
 * Reading appends to `in`; writing sends the pending bytes of `out`. Everything is
 * non-blocking; the caller's event loop decides when to call these.
 */
#ifndef TERSE_NET_CONN_H
#define TERSE_NET_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "core/core_buf.h"

#define NET_ADDR_MAX 64 /* "ip:port" of IPv6 with brackets fits */

/*
 * Binds and listens on addr:port (addr is an IPv4 or IPv6 literal, "*" for any IPv4, "::*"
 * for any IPv6). *fd_out is non-blocking and close-on-exec. TERSE_OK or TERSE_EIO with a
 * reason in err.
 */
int net_listen(const char *addr, int port, int backlog, int *fd_out, char *err, size_t err_cap);

/*
 * Accepts one connection. addr/laddr receive "ip:port" (NET_ADDR_MAX bytes each).
 * TERSE_OK: *fd_out is the connection (non-blocking, close-on-exec, TCP_NODELAY).
 * TERSE_MORE: nothing to take now: none pending, or the one pending failed before it could be
 *     taken (aborted, or one of the network errors Linux's accept(2) says to treat as EAGAIN);
 *     that connection is gone, so calling again does not see it twice.
 * TERSE_EEXHAUSTED: out of descriptors or kernel memory (EMFILE, ENFILE, ENOBUFS, ENOMEM);
 *     the connection stays queued, so calling again at once fails again: wait for
 *     descriptors to be freed. *os_err is the errno.
 * TERSE_EIO: any other failure of the listening socket; *os_err is the errno.
 */
int net_accept(int lfd, int *fd_out, char *addr, char *laddr, int *os_err);

/* 1 when addr ("ip:port", as net_accept writes it) is exactly 127.0.0.1 or ::1: the
 * addresses Redis's islocalClient takes as local (not the rest of 127/8, not an IPv4-mapped
 * ::ffff:127.0.0.1). */
int net_addr_is_local(const char *addr);

/*
 * Raises the soft limit of open descriptors (RLIMIT_NOFILE) toward want, as Redis's
 * adjustOpenFilesLimit does: tries want, then 16 fewer at a time while above the current soft
 * limit; the hard limit is raised along when the process may (CAP_SYS_RESOURCE), never
 * lowered. *old_out: the soft limit before; *limit_out: the soft limit after (>= *old_out;
 * unchanged when it was already want or more); *os_err: errno of the last refused attempt
 * (0: none refused). TERSE_OK, or TERSE_EIO when getrlimit fails (*os_err set).
 */
int net_fd_limit_raise(uint64_t want, uint64_t *old_out, uint64_t *limit_out, int *os_err);

/* Starts a non-blocking TCP connection to host:port (a name is resolved first, blocking, as
 * Redis's replicas do): TERSE_OK with *fd_out (connecting or connected: wait for writability,
 * then net_connect_result), or TERSE_EIO with the reason in err. */
int net_connect(const char *host, int port, int *fd_out, char *err, size_t err_cap);
/* The outcome of a connection started by net_connect, once its socket is writable: TERSE_OK,
 * or TERSE_EIO with the reason in err. */
int net_connect_result(int fd, char *err, size_t err_cap);

/* Enables TCP keepalive with the given idle seconds (0: leave off). */
void net_keepalive(int fd, int idle_s);

struct net_conn {
    int fd;             /* owned: closed by net_conn_deinit */
    struct core_buf in;  /* received, not yet parsed bytes */
    struct core_buf out; /* replies not yet sent */
    uint64_t n_in;      /* bytes received, ever */
    uint64_t n_out;     /* bytes sent, ever */
};

void net_conn_init(struct net_conn *c, int fd);
/* Closes the socket and frees both buffers. */
void net_conn_deinit(struct net_conn *c);

/*
 * Reads up to max bytes into `in` (growing it). *n = bytes read.
 * TERSE_OK (n > 0), TERSE_MORE (nothing available now), TERSE_EIO (peer closed or error),
 * TERSE_ENOMEM (buffer could not grow).
 */
int net_conn_read(struct net_conn *c, size_t max, size_t *n);

/* Sends pending `out` bytes. TERSE_OK (all sent), TERSE_MORE (socket full; call again when
 * writable), TERSE_EIO. */
int net_conn_write(struct net_conn *c);

#endif /* TERSE_NET_CONN_H */
