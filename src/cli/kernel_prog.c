/* kernel_prog.c: a .cu with main() built and run as a program (kernel_prog.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../compile/compile.h"
#include "cli.h"
#include "kernel_prog.h"
#include "../sys/sys.h"

#define BUILD_SECONDS 300   /* nvcc on a file with CUB or CUTLASS headers takes a while */

/* Runs argv with its output on ours, in its own process group, killed after `seconds`.
 * Returns its exit status (124 at the limit, 127 when it could not start). */
static int run_limited(char *const argv[], int seconds)
{
    struct sys_spawn sp = {.argv = argv, .path_search = 1, .group = SYS_OWN_GROUP,
                           .fd = {SYS_FD_KEEP, SYS_FD_KEEP, SYS_FD_KEEP}, .fd3 = -1};
    pid_t pid = sys_spawn(&sp);
    if (pid < 0)
        return 127;
    int st = 0, w = sys_wait(pid, 1000.0 * seconds, 1, &st);
    return w < 0 ? 127 : w > 0 ? 124 : st;
}

/* "^NAME([(<]|$)" for --name NAME, its regex characters escaped. */
static void name_regex(const char *name, char *re, size_t n)
{
    size_t o = 0;
    if (n < 16)
        return;
    re[o++] = '^';
    for (const char *c = name; *c && o + 12 < n; c++) {
        if (strchr("\\^$.|?*+()[]{}", *c))
            re[o++] = '\\';
        re[o++] = *c;
    }
    bl_fmt(re + o, n - o, "%s", strchr(name, '<') ? "([(]|$)" : "([(<]|$)");
}

int kprog_run(const struct gpu_kernel_request *req, long skip, long count, int json)
{
    char nvcc[PATH_MAX];
    if (knvcc_find(nvcc, sizeof nvcc) || access(nvcc, X_OK)) {
        cli_tell("kernel", CLI_F_HAS_MAIN_BUILDING_IT_NEEDS, CLI_CLEAN(req->path));
        return EXIT_NOGPU;
    }
    char dir[PATH_MAX], exe[PATH_MAX + 16];
    if (sys_tmp_make("prog", dir, sizeof dir)) {
        cli_tell("kernel", CLI_F_CANNOT_MAKE_DIRECTORY_IN, sys_tmp_base(), strerror(errno));
        return 1;
    }
    bl_fmt(exe, sizeof exe, "%s/program", dir);
    char *argv[GPU_KERNEL_MAX_FLAGS + 16];
    int n = 0;
    argv[n++] = nvcc;
    argv[n++] = "-O3";
    argv[n++] = "-lineinfo";
    argv[n++] = "-arch=native";
    for (int i = 0; i < req->nflags; i++)
        argv[n++] = (char *)req->flags[i];
    argv[n++] = "-o";
    argv[n++] = exe;
    argv[n++] = (char *)req->path;
    argv[n] = NULL;
    cli_tell("kernel", CLI_F_HAS_MAIN_BUILDING_IT_WITH, CLI_CLEAN(req->path));
    int rc = run_limited(argv, BUILD_SECONDS);
    if (rc) {
        cli_tell("kernel", CLI_F_NVCC_COULD_NOT_BUILD, CLI_CLEAN(req->path),
                rc == 124 ? "time limit" : "its messages are above");
        sys_tmp_remove(dir);
        return EXIT_USAGE;
    }
    char re[2 * GPU_KERNEL_TEXT] = "";
    if (req->name[0])
        name_regex(req->name, re, sizeof re);
    char *pargv[] = {exe, NULL};
    rc = cli_run_program(pargv, re[0] ? re : NULL, skip, count, json);
    sys_tmp_remove(dir);
    return rc;
}
