/* sock.c: Unix stream sockets (sys.h): the only calls of socket, bind, listen, connect and
 * accept. What a room does with them (a stale socket taken over, a connection with a
 * deadline, who the peer is) stays the room's. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sys.h"

int sys_sock_addr(const char *path, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a->sun_path, path, strlen(path) + 1);
    return 0;
}

int sys_sock_new(int nonblock)
{
    return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
}

int sys_sock_connect(int fd, const struct sockaddr_un *a)
{
    return connect(fd, (const struct sockaddr *)a, sizeof *a);
}

int sys_sock_bind(int fd, const struct sockaddr_un *a)
{
    return bind(fd, (const struct sockaddr *)a, sizeof *a);
}

int sys_sock_listen(int fd, int backlog)
{
    return listen(fd, backlog);
}

int sys_sock_accept(int lfd, int flags)
{
    return accept4(lfd, NULL, NULL, flags);
}
