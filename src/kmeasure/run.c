/* run.c: the caller's side of `banklab run` (kernel/kernel.h): is there a driver and a
 * device, where the injection library is, the program started with it injected and a
 * private directory for its results, and those results read back (the frames of
 * kernel/wire.c, written by kmeasure/cuda_inject.c in the program's processes). No CUDA headers: the
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

#include "../base/buf.h"
#include "../kernel/kernel.h"
#include "kmeasure.h"
#include "../cuda/cudalib.h"
#include "../sys/sys.h"

int gpu_run_check(struct bl_err *err)
{
    void *lib = bl_cuda_open();
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
    const char *env = sys_env("BANKLAB_INJECT");
    if (env && *env) {
        bl_fmt(path, size, "%s", env);
        if (regular(path))
            return 0;
        return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_NOT_FILE, env);
    }
    char dirs[SYS_OWN_DIRS][SYS_DIR_MAX];
    for (int i = 0, n = sys_own_dirs(dirs); i < n; i++) {
        bl_fmt(path, size, "%s/libbanklab_inject.so", dirs[i]);
        if (regular(path))
            return 0;
    }
#ifdef BANKLAB_GPU_CUDA
    char exe[PATH_MAX];
    return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_MISSING,
                   sys_exe_dir(exe, sizeof exe) == 0 ? exe : "banklab");
#else
    return bl_fail(err, -1, BL_NOWHERE, KRN_INJECT_NONE);
#endif
}

int gpu_run_find_sanitizer(char *lib, char *patch, size_t size, struct bl_err *err)
{
    char dirs[SYS_OWN_DIRS][SYS_DIR_MAX];
    const char *env = sys_env("BANKLAB_SANITIZE_DIR");
    int n = env && *env ? 1 : sys_own_dirs(dirs);
    if (env && *env)
        bl_fmt(dirs[0], sizeof dirs[0], "%s", env);
    for (int i = 0; i < n; i++) {
        bl_fmt(lib, size, "%s/libbanklab_sanitize.so", dirs[i]);
        bl_fmt(patch, size, "%s/banklab_patch.fatbin", dirs[i]);
        if (regular(lib) && regular(patch))
            return 0;
    }
    return bl_fail(err, -1, BL_NOWHERE, KRN_SANITIZE_MISSING);
}

/* ---- the results ---- */

/* The results file, read whole; NULL with a note in out when it is not a regular file (the
 * program may have put a FIFO or a device there: opened O_NONBLOCK, nothing waits) or cannot
 * be read. */
static unsigned char *slurp(const char *path, size_t *n, struct gpu_run_output *out)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    struct bl_err e = {0};
    if (fd < 0 && errno == ELOOP) /* a symbolic link */
        bl_fail(&e, -1, BL_NOWHERE, KRN_RUN_RESULTS_NOT_FILE, (unsigned)S_IFLNK);
    else if (fd < 0 && errno != ENOENT)
        bl_fail(&e, -1, BL_NOWHERE, KRN_RUN_RESULTS_UNREADABLE, strerror(errno));
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode)))
        bl_fail(&e, -1, BL_NOWHERE, KRN_RUN_RESULTS_NOT_FILE, (unsigned)(st.st_mode & S_IFMT));
    if (e.status) {
        gpu_run_note(out, e.msg, strlen(e.msg), &e.why);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (fd < 0)
        return NULL;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    struct bl_buf b = BL_BUF_MAX(1u << 30);
    int rc = bl_buf_read_fd(&b, fd);
    int why = errno;
    close(fd);
    if (rc) {   /* unreadable, over 1 GiB or out of memory: said, never read in part */
        bl_buf_release(&b);
        bl_fail(&e, -1, BL_NOWHERE, KRN_RUN_RESULTS_UNREADABLE, strerror(why));
        gpu_run_note(out, e.msg, strlen(e.msg), &e.why);
        return NULL;
    }
    return (unsigned char *)bl_buf_detach(&b, n);
}

/* ---- notes: each said once, in the order first said ---- */

#define RUN_NOTES_MAX 4096 /* notes held before the repeats are taken out */

struct note_ref {
    const char *s;
    int i;
};

static int cmp_note(const void *a, const void *b)
{
    const struct note_ref *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

void gpu_run_notes_unique(struct gpu_run_output *out)
{
    int n = out->nnotes;
    if (n < 2)
        return;
    struct note_ref *r = malloc((size_t)n * sizeof *r);
    unsigned char *dup = calloc((size_t)n, 1);
    if (r && dup) {  /* sorted by text, then by place: a repeat follows its first */
        for (int i = 0; i < n; i++)
            r[i] = (struct note_ref){out->notes[i].text, i};
        qsort(r, (size_t)n, sizeof *r, cmp_note);
        for (int k = 1; k < n; k++)
            dup[r[k].i] = !strcmp(r[k].s, r[k - 1].s);
        int j = 0;
        for (int i = 0; i < n; i++) {
            if (dup[i]) {
                free(out->notes[i].msg);
                continue;
            }
            if (j != i)
                out->notes[j] = out->notes[i];
            j++;
        }
        out->nnotes = j;
    }
    free(r);
    free(dup);
}

int gpu_run_note(struct gpu_run_output *out, const char *text, size_t n, const struct bl_msg *m)
{
    if (out->notes_cut)
        return -1;
    if (out->nnotes >= RUN_NOTES_MAX) {
        gpu_run_notes_unique(out);
        if (out->nnotes > RUN_NOTES_MAX / 2) { /* that many different ones: enough said */
            out->notes_cut = 1;
            return -1;
        }
    }
    int cap = 16;
    while (cap < out->nnotes)
        cap *= 2;
    if (!out->notes || out->nnotes == cap) {  /* doubled when full: linear in all */
        size_t want = (size_t)(out->notes ? cap * 2 : cap);
        struct gpu_note *w = realloc(out->notes, want * sizeof *w);
        if (!w)
            return -1;
        out->notes = w;
    }
    struct gpu_note *g = &out->notes[out->nnotes++];
    bl_fmt(g->text, sizeof g->text, "%.*s", (int)(n < sizeof g->text ? n : sizeof g->text - 1), text);
    g->msg = NULL; /* text alone: most notes; a message is kept only where one came */
    if (m && m->id != BL_MSG_NONE && (g->msg = malloc(sizeof *g->msg)))
        *g->msg = *m;
    return 0;
}

/* a NOTE frame: the English text, then (after a NUL) its message as the library built it */
static void add_note(struct gpu_run_output *out, const unsigned char *p, size_t n)
{
    const unsigned char *z = memchr(p, 0, n);
    if (!z || (size_t)(p + n - z - 1) != sizeof(struct bl_msg)) {
        gpu_run_note(out, (const char *)p, z ? (size_t)(z - p) : n, NULL);
        return;
    }
    static struct bl_msg m;
    memcpy(&m, z + 1, sizeof m);
    bl_msg_sanitize(&m);        /* our injected library's: nested messages kept */
    gpu_run_note(out, (const char *)p, (size_t)(z - p), &m);
}

static void read_results(const char *path, struct gpu_run_output *out)
{
    size_t n = 0;
    unsigned char *b = slurp(path, &n, out);
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
                struct bl_err why = {0};
                if (kwire_get_result(p, head[1], &l->res, &why) == 0) {
                    l->pid = pid;
                    l->ordinal = ordinal;
                    l->nth = nth;
                    out->nlaunches++;
                } else { /* refused whole, said once */
                    struct bl_err e = {0};
                    bl_fail(&e, -1, BL_NOWHERE, KRN_RUN_BAD_RESULT, pid, why.msg);
                    gpu_run_note(out, e.msg, strlen(e.msg), &e.why);
                }
            }
        }
        at += 8 + head[1];
    }
    free(b);
    gpu_run_notes_unique(out);
}

void gpu_run_output_done(struct gpu_run_output *out)
{
    for (int i = 0; i < out->nlaunches; i++)
        gpu_kernel_result_done(&out->launches[i].res);
    free(out->launches);
    for (int i = 0; i < out->nnotes; i++)
        free(out->notes[i].msg);
    free(out->notes);
    memset(out, 0, sizeof *out);
}

/* ---- the program ---- */

/* INT, QUIT, TERM and HUP while the program runs: passed on to it (a second one kills it);
 * when it has ended, the private directory is removed and banklab ends of the signal. */
static const int run_sigs[4] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
static volatile sig_atomic_t run_signal;
static volatile pid_t run_child;

struct run_child_env {
    const struct gpu_run_request *req;
    const char *dir;
    const struct sigaction *old;
};

/* in the child before exec: the caller's handlers back, the injection library's variables */
static void child_env(void *ctx)
{
    const struct run_child_env *c = ctx;
    const struct gpu_run_request *req = c->req;
    char num[32];
    for (int i = 0; i < 4; i++)
        sys_sig_restore(run_sigs[i], &c->old[i]);
    setenv("CUDA_INJECTION64_PATH", req->lib, 1);
    setenv("BANKLAB_RUN_DIR", c->dir, 1);
    /* every module loaded up front: the cubins are seen (and kept) before their launches */
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    if (req->one)
        setenv("BANKLAB_RUN_ONE", "1", 1);
    if (req->patch)
        setenv("BANKLAB_SANITIZE_PATCH", req->patch, 1);
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
}

static void on_run_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* the terminal's ^C or ^\ (si_code SI_KERNEL) reached the program already: only one
     * sent to banklab alone is passed on */
    int from_tty = info && info->si_code == SI_KERNEL && (sig == SIGINT || sig == SIGQUIT);
    if (run_child > 0 && (run_signal || !from_tty))
        kill(run_child, run_signal ? SIGKILL : sig);
    run_signal = sig;
}

int gpu_run_program(const struct gpu_run_request *req, char *const argv[],
                    struct gpu_run_output *out, struct bl_err *err)
{
    memset(out, 0, sizeof *out);
    char dir[PATH_MAX], path[PATH_MAX];
    sys_tmp_sweep("run", 0); /* the directories of runs that were killed (SIGKILL) */
    if (sys_tmp_make("run", dir, sizeof dir)) /* 0700: the results are the user's */
        return bl_fail(err, -1, BL_NOWHERE, KRN_RUN_NO_DIR, strerror(errno));
    bl_fmt(path, sizeof path, "%s/results", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        bl_fail(err, -1, BL_NOWHERE, KRN_RUN_NO_FILE, strerror(errno));
        sys_tmp_remove(dir);
        return -1;
    }
    close(fd);
    struct sigaction old[4];
    run_signal = 0;
    run_child = 0;
    for (int i = 0; i < 4; i++) /* one ignored by whoever started banklab stays ignored */
        if (sys_sig_get(run_sigs[i], &old[i]) == 0 && old[i].sa_handler != SIG_IGN)
            sys_sig_action(run_sigs[i], on_run_signal, 0, NULL);
    fflush(NULL);
    struct run_child_env ce = {req, dir, old};
    struct sys_spawn sp = {.argv = argv, .path_search = 1, .group = SYS_SAME_GROUP,
                           .fd = {SYS_FD_KEEP, req->stdout_to_stderr ? 2 : SYS_FD_KEEP, SYS_FD_KEEP},
                           .fd3 = -1, .setup = child_env, .ctx = &ce};
    pid_t pid = sys_spawn(&sp);
    run_child = pid > 0 ? pid : 0;
    if (pid > 0 && run_signal) /* it came before the child was known */
        kill(pid, run_signal);
    int rv = 0;
    if (pid == -1) {
        rv = bl_fail(err, -1, BL_NOWHERE, KRN_RUN_CANNOT_START, argv[0], strerror(errno));
    } else if (pid < 0) {
        rv = bl_fail(err, -1, BL_NOWHERE, KRN_RUN_CANNOT_RUN, argv[0], strerror(errno));
    } else {
        int st = 0;
        sys_wait(pid, -1, 0, &st);
        out->status = st;
        read_results(path, out);
    }
    run_child = 0;
    sys_tmp_remove(dir);
    for (int i = 0; i < 4; i++)
        sys_sig_restore(run_sigs[i], &old[i]);
    if (run_signal)
        raise(run_signal); /* killed: ended as the signal says, the directory gone */
    return rv;
}
