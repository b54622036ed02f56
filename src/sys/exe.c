/* exe.c: where this executable is, and where its own files are installed (sys.h). */
#include <stdio.h>
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

int sys_own_dirs(char dirs[SYS_OWN_DIRS][SYS_DIR_MAX])
{
    int n = 0;
    char exe[SYS_DIR_MAX - 16];   /* room for "/../lib/banklab" after it */
    if (sys_exe_dir(exe, sizeof exe) == 0) {
        snprintf(dirs[n++], SYS_DIR_MAX, "%s", exe);
        snprintf(dirs[n++], SYS_DIR_MAX, "%s/../lib/banklab", exe);
    }
#ifdef BANKLAB_LIB_DIR
    snprintf(dirs[n++], SYS_DIR_MAX, "%s", BANKLAB_LIB_DIR);
#endif
    return n;
}
