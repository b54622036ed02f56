/* files_new.h: writing a file that must not exist yet (the patched copy `banklab kernel --fix`
 * and the kernel view write next to a learner's file): created with O_EXCL and O_NOFOLLOW, so
 * an existing file or a symbolic link in its place is never written through or replaced.
 * Never prints; errors come back in a struct bl_err. */
#ifndef BANKLAB_FILES_NEW_H
#define BANKLAB_FILES_NEW_H

#include <stddef.h>

#include "../base/err.h"

/* files_create_new: write data (len bytes) to a new file at path (mode 0644). Returns 0, 1
 * when path exists already (nothing written, err says so), or -1 with err filled. */
int files_create_new(const char *path, const char *data, size_t len, struct bl_err *err);

#endif
