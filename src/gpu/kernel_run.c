/* kernel_run.c: the caller's side of `banklab run` (gpu_kernel.h): is there a driver and a
 * device, where the injection library is, the program started with it injected and a
 * private directory for its results, and those results read back (the frames of
 * kernel_wire.c, written by cuda_inject.c in the program's processes). No CUDA headers: the
 * driver is asked through dlopen. Never prints. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_impl.h"

int gpu_run_check(struct bl_err *err)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return bl_fail(err, -1, BL_NOWHERE, GPU_NO_DRIVER);
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(lib, "cuDeviceGetCount");
    int n = 0, r = init && count ? init(0) : -1;
    if (r == 0)
        r = count(&n);
    if (r == 100 /* CUDA_ERROR_NO_DEVICE */ || (r == 0 && n == 0))
        return bl_fail(err, -1, BL_NOWHERE, GPU_NO_DEVICE);
    if (r != 0)
        return bl_fail(err, -1, BL_NOWHERE, KRN_RUN_CUINIT, r);
    return 0; /* the driver stays loaded: the program loads its own in its process */
}

static int regular(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int gpu_run_find_lib(char *path, size_t size, struct bl_err *err)
{
    const char *env = getenv("BANKLAB_INJECT");
    if (env && *env) {
        bl_fmt(path, size, "%s", env);
        if (regular(path))
            return 0;
        return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_NOT_FILE, env);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        bl_fmt(path, size, "%s/libbanklab_inject.so", exe);
        if (regular(path))
            return 0;
        bl_fmt(path, size, "%s/../lib/banklab/libbanklab_inject.so", exe);
        if (regular(path))
            return 0;
    }
#ifdef BANKLAB_LIB_DIR
    bl_fmt(path, size, "%s/libbanklab_inject.so", BANKLAB_LIB_DIR);
    if (regular(path))
        return 0;
#endif
#ifdef BANKLAB_GPU_CUDA
    return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_MISSING, n > 0 ? exe : "banklab");
#else
    return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_NONE);
#endif
}

/* ---- the results ---- */

static unsigned char *slurp(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 65536, len = 0;
    unsigned char *b = malloc(cap);
    while (b) {
        if (len == cap) {
            if (cap >= (1u << 30))
                break;
            unsigned char *w = realloc(b, cap * 2);
            if (!w)
                break;
            b = w;
            cap *= 2;
        }
        ssize_t r = read(fd, b + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    *n = len;
    return b;
}

static void add_note(struct gpu_run_output *out, const unsigned char *p, size_t n)
{
    char line[2 * GPU_KERNEL_TEXT];
    bl_fmt(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), (const char *)p);
    for (int i = 0; i < out->nnotes; i++)
        if (!strcmp(out->notes[i], line))
            return;
    char (*w)[2 * GPU_KERNEL_TEXT] = realloc(out->notes, (size_t)(out->nnotes + 1) * sizeof *w);
    if (!w)
        return;
    out->notes = w;
    bl_fmt(out->notes[out->nnotes++], sizeof out->notes[0], "%s", line);
}

static void read_results(const char *path, struct gpu_run_output *out)
{
    size_t n = 0;
    unsigned char *b = slurp(path, &n);
    int pid = 0;
    long ordinal = 0, nth = 0;
    for (size_t at = 0; b && n - at >= 8;) {
        uint32_t head[2];
        memcpy(head, b + at, sizeof head);
        if (n - at - 8 < head[1])
            break;
        const unsigned char *p = b + at + 8;
        if (head[0] == KWIRE_HELLO && head[1] == 8) {
            int32_t h[2];
            memcpy(h, p, sizeof h);
            pid = h[0];
            out->injected++;
        } else if (head[0] == KWIRE_LAUNCH && head[1] == 8) {
            int32_t w[2];
            memcpy(w, p, sizeof w);
            ordinal = w[0];
            nth = w[1];
        } else if (head[0] == KWIRE_NOTE) {
            add_note(out, p, head[1]);
        } else if (head[0] == KWIRE_RESULT) {
            struct gpu_run_launch *w = realloc(out->launches,
                                               (size_t)(out->nlaunches + 1) * sizeof *w);
            if (w) {
                out->launches = w;
                struct gpu_run_launch *l = &w[out->nlaunches];
                memset(l, 0, sizeof *l);
                if (kwire_get_result(p, head[1], &l->res) == 0) {
                    l->pid = pid;
                    l->ordinal = ordinal;
                    l->nth = nth;
                    out->nlaunches++;
                }
            }
        }
        at += 8 + head[1];
    }
    free(b);
}

void gpu_run_output_done(struct gpu_run_output *out)
{
    for (int i = 0; i < out->nlaunches; i++)
        gpu_kernel_result_done(&out->launches[i].res);
    free(out->launches);
    free(out->notes);
    memset(out, 0, sizeof *out);
}

/* ---- the program ---- */

static void child(const struct gpu_run_request *req, char *const argv[], const char *dir,
                  int errfd)
{
    char num[32];
    setenv("CUDA_INJECTION64_PATH", req->lib, 1);
    setenv("BANKLAB_RUN_DIR", dir, 1);
    /* every module loaded up front: the cubins are seen (and kept) before their launches */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    if (req->one)
        setenv("BANKLAB_RUN_ONE", "1", 1);
    if (req->kernel_re)
        setenv("BANKLAB_RUN_KERNEL", req->kernel_re, 1);
    if (req->skip >= 0) {
        snprintf(num, sizeof num, "%ld", req->skip);
        setenv("BANKLAB_RUN_SKIP", num, 1);
    }
    if (req->count >= 0) {
        snprintf(num, sizeof num, "%ld", req->count);
        setenv("BANKLAB_RUN_COUNT", num, 1);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (req->stdout_to_stderr)
        dup2(2, 1);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(errfd, &e, sizeof e);
    (void)w;
    _exit(127);
}

int gpu_run_program(const struct gpu_run_request *req, char *const argv[],
                    struct gpu_run_output *out, struct bl_err *err)
{
    memset(out, 0, sizeof *out);
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX];
    bl_fmt(dir, sizeof dir, "%s/banklab-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) /* 0700: the results are the user's */
        return bl_fail(err, -1, BL_NOWHERE, KRN_RUN_NO_DIR, strerror(errno));
    bl_fmt(path, sizeof path, "%s/results", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int ep[2] = {-1, -1};
    if (fd < 0 || pipe(ep)) {
        bl_fail(err, -1, BL_NOWHERE, KRN_RUN_NO_FILE, strerror(errno));
        if (fd >= 0)
            close(fd);
        unlink(path);
        rmdir(dir);
        return -1;
    }
    close(fd);
    fcntl(ep[1], F_SETFD, FD_CLOEXEC);
    void (*old_int)(int) = signal(SIGINT, SIG_IGN), (*old_quit)(int) = signal(SIGQUIT, SIG_IGN);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(ep[0]);
        child(req, argv, dir, ep[1]);
    }
    close(ep[1]);
    int rv = 0;
    if (pid < 0) {
        rv = bl_fail(err, -1, BL_NOWHERE, KRN_RUN_CANNOT_START, argv[0], strerror(errno));
    } else {
        int e = 0;
        ssize_t r;
        while ((r = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
            ;
        int ws = 0;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        if (r == (ssize_t)sizeof e) {
            rv = bl_fail(err, -1, BL_NOWHERE, KRN_RUN_CANNOT_RUN, argv[0], strerror(e));
        } else {
            out->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            read_results(path, out);
        }
    }
    close(ep[0]);
    signal(SIGINT, old_int);
    signal(SIGQUIT, old_quit);
    unlink(path);
    rmdir(dir);
    return rv;
}
