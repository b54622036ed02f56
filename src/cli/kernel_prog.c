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

#define BUILD_SECONDS 300   /* nvcc on a file with CUB or CUTLASS headers takes a while */

int kprog_has_main(const char *src, size_t len)
{
    int in_block = 0;
    const char *p = src, *end = src + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *q = p;
        while (q < e) {
            if (in_block) {
                if (q + 1 < e && q[0] == '*' && q[1] == '/') {
                    in_block = 0;
                    q += 2;
                } else {
                    q++;
                }
                continue;
            }
            if (q + 1 < e && q[0] == '/' && q[1] == '/')
                break;
            if (q + 1 < e && q[0] == '/' && q[1] == '*') {
                in_block = 1;
                q += 2;
                continue;
            }
            /* "main" as a word followed by '(' with something before it on the line */
            if (q > p && e - q >= 5 && !memcmp(q, "main", 4) &&
                !(q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z') ||
                  (q[-1] >= '0' && q[-1] <= '9'))) {
                const char *r = q + 4;
                while (r < e && (*r == ' ' || *r == '\t'))
                    r++;
                const char *b = p;
                while (b < q && (*b == ' ' || *b == '\t'))
                    b++;
                if (r < e && *r == '(' && b < q && (!strncmp(b, "int", 3) || !strncmp(b, "auto", 4) ||
                                                    !strncmp(b, "void", 4)))
                    return 1;
            }
            q++;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* Runs argv with its output on ours, in its own process group, killed after `seconds`.
 * Returns its exit status (124 at the limit, 127 when it could not start). */
static int run_limited(char *const argv[], int seconds)
{
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        setpgid(0, 0);
        execvp(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    time_t t0 = time(NULL);
    for (;;) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (w < 0 && errno != EINTR)
            return 127;
        if (time(NULL) - t0 >= seconds) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return 124;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
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
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], exe[PATH_MAX + 16];
    bl_fmt(dir, sizeof dir, "%s/banklab-prog-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        cli_tell("kernel", CLI_F_CANNOT_MAKE_DIRECTORY_IN,
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
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
        unlink(exe);
        rmdir(dir);
        return EXIT_USAGE;
    }
    char re[2 * GPU_KERNEL_TEXT] = "";
    if (req->name[0])
        name_regex(req->name, re, sizeof re);
    char *pargv[] = {exe, NULL};
    rc = cli_run_program(pargv, re[0] ? re : NULL, skip, count, json);
    unlink(exe);
    rmdir(dir);
    return rc;
}
