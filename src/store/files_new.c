/* files_new.c: a new file, never over an old one (files_new.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files_new.h"

int files_create_new(const char *path, const char *data, size_t len, struct bl_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) {
            bl_fail(err, EEXIST, BL_NOWHERE, FIL_EXISTS_ALREADY, path);
            return 1;
        }
        return bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_CREATE, path, strerror(errno));
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)w;
    }
    int bad = fsync(fd) != 0;
    bad |= close(fd) != 0;
    if (bad) {
        bl_fail(err, errno, BL_NOWHERE, FIL_CANNOT_WRITE, path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}
