/*
 * net_conn: sockets. See net_conn.h.
 */
#include "net/net_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "terse/status.h"

static void format_addr(const struct sockaddr_storage *ss, char *out)
{
    char ip[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
        snprintf(out, NET_ADDR_MAX, "%s:%u", ip, ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
        snprintf(out, NET_ADDR_MAX, "%s:%u", ip, ntohs(a->sin_port));
    }
}

int net_listen(const char *addr, int port, int backlog, int *fd_out, char *err, size_t err_cap)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    int fd, one = 1;
    int v6 = strchr(addr, ':') != NULL;

    memset(&ss, 0, sizeof(ss));
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)(void *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        if (strcmp(addr, "::*") == 0) {
            a->sin6_addr = in6addr_any;
        } else if (inet_pton(AF_INET6, addr, &a->sin6_addr) != 1) {
            snprintf(err, err_cap, "invalid bind address '%s'", addr);
            return TERSE_EIO;
        }
        sl = sizeof(*a);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)(void *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        if (strcmp(addr, "*") == 0) {
            a->sin_addr.s_addr = htonl(INADDR_ANY);
        } else if (inet_pton(AF_INET, addr, &a->sin_addr) != 1) {
            snprintf(err, err_cap, "invalid bind address '%s'", addr);
            return TERSE_EIO;
        }
        sl = sizeof(*a);
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, err_cap, "socket: %s", strerror(errno));
        return TERSE_EIO;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (v6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, backlog) != 0) {
        snprintf(err, err_cap, "Could not create server TCP listening socket %s:%d: %s", addr,
                 port, strerror(errno));
        close(fd);
        return TERSE_EIO;
    }
    *fd_out = fd;
    return TERSE_OK;
}

/* accept(2) failures that concern the connection being taken, not the listener: Linux
 * reports pending network errors of the new connection this way and asks callers to treat them
 * as EAGAIN. The connection is consumed, so they cannot repeat forever. */
static int accept_err_transient(int e)
{
    switch (e) {
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
    case EPERM: /* a firewall rule refused this one connection */
        return 1;
    default:
        return 0;
    }
}

int net_accept(int lfd, int *fd_out, char *addr, char *laddr, int *os_err)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int fd, one = 1;

    *os_err = 0;
    fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (accept_err_transient(e)) {
            return TERSE_MORE;
        }
        *os_err = e;
        if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
            return TERSE_EEXHAUSTED;
        }
        return TERSE_EIO;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    format_addr(&ss, addr);
    sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        format_addr(&ss, laddr);
    } else {
        laddr[0] = '\0';
    }
    *fd_out = fd;
    return TERSE_OK;
}

int net_addr_is_local(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    size_t n = colon != NULL ? (size_t)(colon - addr) : strlen(addr);

    return (n == 9 && memcmp(addr, "127.0.0.1", 9) == 0) || (n == 3 && memcmp(addr, "::1", 3) == 0);
}

int net_fd_limit_raise(uint64_t want, uint64_t *old_out, uint64_t *limit_out, int *os_err)
{
    struct rlimit lim;
    rlim_t old, best;

    *os_err = 0;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        *os_err = errno;
        return TERSE_EIO;
    }
    old = lim.rlim_cur;
    *old_out = *limit_out = (uint64_t)old;
    if (old == RLIM_INFINITY || (uint64_t)old >= want) {
        return TERSE_OK;
    }
    for (best = (rlim_t)want; best > old; best -= 16) {
        struct rlimit next = lim;
        next.rlim_cur = best;
        if (next.rlim_max != RLIM_INFINITY && next.rlim_max < best) {
            next.rlim_max = best; /* needs CAP_SYS_RESOURCE; refused (EPERM) without */
        }
        if (setrlimit(RLIMIT_NOFILE, &next) == 0) {
            *limit_out = (uint64_t)best;
            return TERSE_OK;
        }
        *os_err = errno;
        if (best < 16) {
            break;
        }
    }
    return TERSE_OK;
}

int net_connect(const char *host, int port, int *fd_out, char *err, size_t err_cap)
{
    struct addrinfo hints, *res = NULL, *ai;
    char portstr[16];
    int rc, fd = -1, one = 1;

    err[0] = '\0';
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(portstr, sizeof(portstr), "%d", port);
    rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        snprintf(err, err_cap, "%s", gai_strerror(rc));
        return TERSE_EIO;
    }
    for (ai = res; ai != NULL; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0) {
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) {
            break;
        }
        snprintf(err, err_cap, "%s", strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        if (ai == NULL && err[0] == '\0') {
            snprintf(err, err_cap, "no address to connect to");
        }
        return TERSE_EIO;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    *fd_out = fd;
    return TERSE_OK;
}

int net_connect_result(int fd, char *err, size_t err_cap)
{
    int soerr = 0;
    socklen_t len = sizeof(soerr);

    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) {
        soerr = errno;
    }
    if (soerr != 0) {
        snprintf(err, err_cap, "%s", strerror(soerr));
        return TERSE_EIO;
    }
    return TERSE_OK;
}

void net_keepalive(int fd, int idle_s)
{
    int one = 1, intvl, cnt = 3;

    if (idle_s <= 0) {
        return;
    }
    intvl = idle_s / 3 > 0 ? idle_s / 3 : 1;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

void net_conn_init(struct net_conn *c, int fd)
{
    c->fd = fd;
    core_buf_init(&c->in);
    core_buf_init(&c->out);
    c->n_in = 0;
    c->n_out = 0;
}

void net_conn_deinit(struct net_conn *c)
{
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    core_buf_deinit(&c->in);
    core_buf_deinit(&c->out);
}

int net_conn_read(struct net_conn *c, size_t max, size_t *n)
{
    ssize_t r;

    *n = 0;
    if (core_buf_reserve(&c->in, max) != TERSE_OK) {
        return TERSE_ENOMEM;
    }
    r = read(c->fd, c->in.p + c->in.len, max);
    if (r > 0) {
        c->in.len += (size_t)r;
        c->n_in += (uint64_t)r;
        *n = (size_t)r;
        return TERSE_OK;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return TERSE_MORE;
    }
    return TERSE_EIO;
}

int net_conn_write(struct net_conn *c)
{
    while (core_buf_pending(&c->out) > 0) {
        ssize_t w = send(c->fd, c->out.p + c->out.off, core_buf_pending(&c->out), MSG_NOSIGNAL);
        if (w > 0) {
            core_buf_consume(&c->out, (size_t)w);
            c->n_out += (uint64_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return TERSE_MORE;
        }
        return TERSE_EIO;
    }
    return TERSE_OK;
}
