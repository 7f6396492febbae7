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

/* Accepts one connection: TERSE_OK (fd non-blocking, TCP_NODELAY), TERSE_MORE (none
 * pending), TERSE_EIO. addr/laddr receive "ip:port" (NET_ADDR_MAX bytes each). */
int net_accept(int lfd, int *fd_out, char *addr, char *laddr);

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
