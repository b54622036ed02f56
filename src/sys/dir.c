/* dir.c: the one directory walker (sys.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"

struct sys_dir {
    DIR *d;
};

static struct sys_dir *wrap(DIR *d)
{
    if (!d)
        return NULL;
    struct sys_dir *s = malloc(sizeof *s);
    if (!s) {
        int e = errno;
        closedir(d);
        errno = e;
        return NULL;
    }
    s->d = d;
    return s;
}

struct sys_dir *sys_dir_open(const char *path)
{
    return wrap(opendir(path));
}

struct sys_dir *sys_dir_at(int dfd)
{
    int fd = dfd >= 0 ? dup(dfd) : -1;
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    rewinddir(d);   /* the duplicate shares its offset with dfd */
    return wrap(d);
}

const char *sys_dir_next(struct sys_dir *s)
{
    struct dirent *e;
    while (s && (e = readdir(s->d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            return e->d_name;
    return NULL;
}

void sys_dir_close(struct sys_dir *s)
{
    if (!s)
        return;
    closedir(s->d);
    free(s);
}
