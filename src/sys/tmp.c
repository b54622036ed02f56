/* tmp.c: private temporary directories (sys.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

const char *sys_tmp_base(void)
{
    const char *t = sys_env("TMPDIR");
    return t && t[0] == '/' ? t : "/tmp";
}

int sys_tmp_make(const char *what, char *dir, size_t size)
{
    int n = snprintf(dir, size, "%s/banklab-%s-%ld-XXXXXX", sys_tmp_base(), what, (long)getpid());
    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(dir) ? 0 : -1;
}

/* Everything in the directory dfd that is ours, depth levels down at most; links are removed,
 * never followed. */
static void remove_in(int dfd, int depth)
{
    for (int pass = 0; pass < 4; pass++) {  /* a directory changed while read: read it again */
        int removed = 0;
        struct sys_dir *d = sys_dir_at(dfd);
        if (!d)
            return;
        const char *name;
        while ((name = sys_dir_next(d))) {
            struct stat st;
            if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || st.st_uid != geteuid())
                continue;
            if (S_ISDIR(st.st_mode)) {
                int sub = depth > 0 ? openat(dfd, name, O_RDONLY | O_DIRECTORY |
                                             O_NOFOLLOW | O_CLOEXEC) : -1;
                if (sub >= 0) {
                    remove_in(sub, depth - 1);
                    close(sub);
                }
                removed += unlinkat(dfd, name, AT_REMOVEDIR) == 0;
            } else {
                removed += unlinkat(dfd, name, 0) == 0;
            }
        }
        sys_dir_close(d);
        if (!removed)
            return;
    }
}

void sys_tmp_remove(const char *dir)
{
    struct stat st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid())
        remove_in(fd, 8);
    close(fd);
    rmdir(dir);
}

void sys_tmp_sweep(const char *what, long pid)
{
    const char *base = sys_tmp_base();
    struct sys_dir *d = sys_dir_open(base);
    if (!d)
        return;
    char prefix[64], path[PATH_MAX];
    int plen = snprintf(prefix, sizeof prefix, "banklab-%s-", what);
    time_t now = time(NULL);
    const char *name;
    while ((name = sys_dir_next(d))) {
        if (strncmp(name, prefix, (size_t)plen))
            continue;
        char *end;
        long owner = strtol(name + plen, &end, 10);
        struct stat st;
        int n = snprintf(path, sizeof path, "%s/%s", base, name);
        if (n < 0 || (size_t)n >= sizeof path || end == name + plen || *end != '-' ||
            owner <= 0 || lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        /* that process's (killed by its caller), or a process's that is gone and left it
         * untouched for a minute (a killed caller's child) */
        if (pid > 0 ? owner == pid
                    : kill((pid_t)owner, 0) < 0 && errno == ESRCH && now - st.st_mtime > 60)
            sys_tmp_remove(path);
    }
    sys_dir_close(d);
}
