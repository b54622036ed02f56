/* exe.c: where this executable is (sys.h). */
#include <string.h>
#include <unistd.h>

#include "sys.h"

int sys_exe_dir(char *dir, size_t size)
{
    if (!size)
        return -1;
    ssize_t n = size > 1 ? readlink("/proc/self/exe", dir, size - 1) : -1;
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return n > 0 ? 0 : -1;
}
